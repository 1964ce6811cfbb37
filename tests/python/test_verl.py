"""``rp.verl.check``: the ``resource-pool verl`` command as a function."""

import json

import pytest

import resource_pool as rp
from conftest import CLUSTERS, ROOT, run_cli

THREE_NODES = CLUSTERS / "three_nodes.toml"
OVERRIDES = ["trainer.nnodes=2", "trainer.n_gpus_per_node=8"]


def test_overrides_report_as_the_cli_does():
    report = rp.verl.check(OVERRIDES, cluster=THREE_NODES)
    cli = run_cli(["verl", "--cluster", THREE_NODES, "--", *OVERRIDES])
    assert str(report) == cli.stdout
    assert str(report).startswith("verl builds: global_pool = [8, 8]; actor_rollout → global_pool")
    assert (report.ok, report.feasible, report.ray) == (True, True, "places")
    as_json = run_cli(["verl", "--cluster", THREE_NODES, "--format", "json", "--", *OVERRIDES], merged=False)
    assert report.as_dict() == json.loads(as_json.stdout)
    assert report.as_dict()["pools"][0]["process_on_nodes"] == [8, 8]
    assert report.config is None


def test_a_layout_that_does_not_fit():
    report = rp.verl.check(["trainer.nnodes=3"], cluster=THREE_NODES)
    assert report.ok is False and report.feasible is False
    cli = run_cli(["verl", "--cluster", THREE_NODES, "--", "trainer.nnodes=3"])
    assert str(report) == cli.stdout and cli.returncode == 1
    with pytest.raises(rp.LayoutError):
        report.raise_for_problems()


CONFIG = {
    "trainer": {"nnodes": 2, "n_gpus_per_node": 8},
    "reward_model": {"enable": True, "enable_resource_pool": True, "n_gpus_per_node": 4, "nnodes": 1},
}


def test_a_config_dict_that_holds_itself_is_an_argument_error():
    looped = {"trainer": {"nnodes": 1, "n_gpus_per_node": 8}}
    looped["self"] = looped
    with pytest.raises(rp.ArgumentError, match="^config: dicts and lists nested deeper than Python can walk"):
        rp.verl.check(config=looped, cluster=THREE_NODES)


def test_a_config_dict_a_yaml_file_and_a_dictconfig_agree(tmp_path):
    from_dict = rp.verl.check(config=CONFIG, cluster=THREE_NODES)
    path = tmp_path / "config.json"  # JSON is YAML
    path.write_text(json.dumps(CONFIG))
    from_file = rp.verl.check(config=path, cluster=THREE_NODES)
    for report in (from_dict, from_file):
        assert [p["name"] for p in report.as_dict()["pools"]] == ["global_pool", "reward_pool"]
        assert report.as_dict()["mapping"]["rm"] == "reward_pool"
    assert {k: v for k, v in from_dict.as_dict().items() if k != "diagnostics"} == {
        k: v for k, v in from_file.as_dict().items() if k != "diagnostics"
    }
    assert str(from_file) == run_cli(["verl", "--config", path, "--cluster", THREE_NODES]).stdout
    omegaconf = pytest.importorskip("omegaconf")
    config = omegaconf.OmegaConf.create(CONFIG)
    from_dictconfig = rp.verl.check(config=config, cluster=THREE_NODES)
    assert str(from_dictconfig) == str(from_dict)
    # Overrides apply over the config, as on verl's command line.
    report = rp.verl.check(["trainer.nnodes=1"], config=CONFIG, cluster=THREE_NODES)
    assert report.as_dict()["pools"][0]["process_on_nodes"] == [8]


def test_a_diagnostic_of_a_dict_config_points_into_its_json():
    report = rp.verl.check(config={"trainer": {"nnodes": "two"}}, cluster=THREE_NODES)
    assert not report.ok
    spanned = [d for d in report.diagnostics if d["file"] == "<config>"]
    assert spanned, report.diagnostics


def test_a_dict_config_with_many_emoji_strings_reads():
    # json.dumps writes each character past U+FFFF as a surrogate pair; a config with
    # more such strings than the YAML reader joins one by one (256) still reads, and a
    # problem after them is still pointed at.
    config = {
        "trainer": {"nnodes": 2, "n_gpus_per_node": 8, "experiment_name": "run \U0001F680"},
        "data": {"prompts": [f"{i} \U0001F600" for i in range(300)]},
    }
    report = rp.verl.check(config=config, cluster=THREE_NODES)
    assert report.ok, str(report)
    assert report.as_dict()["pools"][0]["process_on_nodes"] == [8, 8]
    config["trainer"]["nnodes"] = "two"
    report = rp.verl.check(config=config, cluster=THREE_NODES)
    (wrong,) = [d for d in report.diagnostics if d["code"] == "resource_pool::verl::wrong_type"]
    text = json.dumps(config, indent=2)
    assert text.splitlines()[wrong["line"] - 1].strip() == '"nnodes": "two",'


def test_bad_arguments(tmp_path):
    with pytest.raises(TypeError, match=r"config\['trainer'\]\['nnodes'\]"):
        rp.verl.check(config={"trainer": {"nnodes": object()}}, cluster=THREE_NODES)
    with pytest.raises(TypeError, match="config"):
        rp.verl.check(config=3, cluster=THREE_NODES)
    with pytest.raises(TypeError, match=r"^overrides: expected a list of 'key=value' strings, got a single str.*shlex\.split"):
        rp.verl.check("trainer.nnodes=2", cluster=THREE_NODES)
    # A dict or an int is no list of overrides either: said as such, not read as words.
    with pytest.raises(TypeError, match=r"^overrides: expected a list of 'key=value' strings, got dict"):
        rp.verl.check({"trainer.nnodes": 2}, cluster=THREE_NODES)
    with pytest.raises(TypeError, match=r"^overrides: expected a list of 'key=value' strings, got int"):
        rp.verl.check(5, cluster=THREE_NODES)
    with pytest.raises(TypeError, match=r"^overrides\[1\]: expected a str, got int"):
        rp.verl.check(["trainer.nnodes=2", 3], cluster=THREE_NODES)
    with pytest.raises(TypeError, match=r"^overrides: expected a list of 'key=value' strings, got dict"):
        rp.lint(ROOT / "examples/configs/single_node.toml", overrides={"pools.p.max_colocate_count": 1})
    # The timeout is checked whatever the cluster source, as for rp.check.
    with pytest.raises(rp.ArgumentError, match="^timeout: expected a positive number of seconds"):
        rp.verl.check(OVERRIDES, cluster=THREE_NODES, timeout=0)
    with pytest.raises(FileNotFoundError):
        rp.verl.check(config=tmp_path / "missing.yaml", cluster=THREE_NODES)
    with pytest.raises(FileNotFoundError):
        rp.verl.check(OVERRIDES, cluster=tmp_path / "missing.toml")


def test_a_pasted_launch_line_reads_as_on_the_command_line():
    line = ["python3", "-m", "verl.trainer.main_ppo", *OVERRIDES]
    report = rp.verl.check(line, cluster=THREE_NODES)
    cli = run_cli(["verl", "--cluster", THREE_NODES, "--", *line])
    assert str(report) == cli.stdout
    as_json = run_cli(["verl", "--cluster", THREE_NODES, "--format", "json", "--", *line], merged=False)
    assert report.as_dict() == json.loads(as_json.stdout)
    assert report.as_dict()["pools"][0]["process_on_nodes"] == [8, 8]


SCRIPT = r"""
+ uv run --frozen --no-sync python3 -m verl.trainer.main_ppo \
    "${DATA[@]}" \
    trainer.nnodes=${nnodes} \
    trainer.n_gpus_per_node=$((NUM_GPUS / NUM_NODES)) \
    --config-path="$CONFIG_PATH" \
    "$@" 2>&1 | tee log
"""


def test_a_scripts_line_split_by_shlex_says_what_the_shell_fills_in():
    import shlex

    # The config the shell names is not seen: one notice, and nothing judged after it.
    report = rp.verl.check(shlex.split(SCRIPT), cluster=THREE_NODES)
    data = {d["code"]: d.get("data") for d in report.diagnostics}
    assert set(data) == {"resource_pool::verl::shell_syntax", "resource_pool::verl::not_judged"}, data
    why = data["resource_pool::verl::not_judged"]["why"]
    assert (why["what"], why["flag"], why["value"]) == ("config", "--config-path", "$CONFIG_PATH")
    assert report.as_dict()["pools"] is None
    # Without it, each value the shell fills in is said once, and the pools are not claimed.
    words = [w for w in shlex.split(SCRIPT) if not w.startswith("--config-path")]
    report = rp.verl.check(words, cluster=THREE_NODES)
    data = {d["code"]: d.get("data") for d in report.diagnostics}
    assert data["resource_pool::verl::shell_words"] == {"word": "${DATA[@]}"}
    assert data["resource_pool::verl::shell_variable"]["variable"] == "nnodes"
    assert data["resource_pool::verl::shell_expansion"]["kind"] == "arithmetic"
    assert set(data) == {
        "resource_pool::verl::shell_words",
        "resource_pool::verl::shell_variable",
        "resource_pool::verl::shell_expansion",
        "resource_pool::verl::shell_syntax",
    }, data
    assert report.as_dict()["pools"] is None


SLURM_LINE = r"""
srun --overlap --nodes=1 --ntasks=1 -w "$head_node" \
    apptainer exec --nv --bind /data:/data -e verl.sif \
    python3 -m verl.trainer.main_ppo trainer.nnodes=2 trainer.n_gpus_per_node=8
"""

DOCKER_SHELL_LINE = r"""
docker exec verl bash -lc "cd /workspace && python3 -m verl.trainer.main_ppo \
    trainer.nnodes=2 trainer.n_gpus_per_node=8 2>&1 | tee train.log"
"""


def test_a_slurm_line_that_runs_verl_in_a_container_reads_through_both_launchers():
    import shlex

    for line in [SLURM_LINE, DOCKER_SHELL_LINE]:
        report = rp.verl.check(shlex.split(line), cluster=THREE_NODES)
        codes = {d["code"] for d in report.diagnostics}
        assert not codes & {"resource_pool::verl::not_judged", "resource_pool::verl::override_syntax"}, codes
        assert report.as_dict()["pools"][0]["process_on_nodes"] == [8, 8]
    # A program the reader does not read is not judged: one notice naming it.
    unknown = rp.verl.check(["torchrun", "-m", "verl.trainer.main_ppo"], cluster=THREE_NODES)
    (diagnostic,) = unknown.diagnostics
    assert diagnostic["code"] == "resource_pool::verl::not_judged"
    assert diagnostic["data"]["why"] == {"what": "program", "word": "torchrun"}
    assert unknown.as_dict()["pools"] is None


QA_LINE = [
    "python3", "-m", "verl.trainer.main_ppo", "trainer.nnodes=2",
    "reward.reward_model.enable=True", "reward.reward_model.enable_resource_pool=True",
    "reward.reward_model.n_gpus_per_node=4", "reward.reward_model.nnodes=1",
    "distillation.enabled=True", "distillation.nnodes=1",
]
# The same keys added (`+`), as a line for a release whose config lacks them adds them.
QA_LINE_ADDED = [w if "=" not in w or w.startswith("trainer.") else "+" + w for w in QA_LINE]


def test_verl_version_builds_that_releases_pools_as_the_cli_does():
    report = rp.verl.check(QA_LINE, cluster=THREE_NODES, verl_version="0.5.0")
    args = ["verl", "--verl-version", "0.5.0", "--cluster", THREE_NODES, "--format", "json", "--", *QA_LINE]
    cli = run_cli(args, merged=False)
    assert report.as_dict() == json.loads(cli.stdout)
    # verl 0.5.0's config lacks the keys that ask for a reward or teacher pool: Hydra stops.
    codes = [d["code"] for d in report.diagnostics]
    assert codes.count("resource_pool::verl::unknown_key") == 6, codes
    assert report.as_dict()["pools"] is None
    # Added, Hydra takes them, and verl 0.5.0 builds global_pool alone.
    added = rp.verl.check(QA_LINE_ADDED, cluster=THREE_NODES, verl_version="0.5.0")
    assert [p["name"] for p in added.as_dict()["pools"]] == ["global_pool"]
    newest = rp.verl.check(QA_LINE, cluster=THREE_NODES, verl_version="0.9.1")
    assert [p["name"] for p in newest.as_dict()["pools"]] == ["global_pool", "reward_pool", "teacher_pool"]


def test_verl_version_must_be_a_release():
    # Older than every known release: not judged, one notice that says so.
    older = rp.verl.check(OVERRIDES, cluster=THREE_NODES, verl_version="0.4.0")
    assert [d["code"] for d in older.diagnostics] == ["resource_pool::verl::not_judged"]
    assert older.ok
    with pytest.raises(rp.ArgumentError, match=r"verl_version: verl latest is not in"):
        rp.verl.check(OVERRIDES, cluster=THREE_NODES, verl_version="latest")
    with pytest.raises(TypeError, match="verl_version"):
        rp.verl.check(OVERRIDES, cluster=THREE_NODES, verl_version=0.9)


def test_an_empty_verl_version_is_said_to_be_empty():
    for empty in ["", "  "]:
        with pytest.raises(rp.ArgumentError, match=r"^verl_version: the verl version is empty;"):
            rp.verl.check(OVERRIDES, cluster=THREE_NODES, verl_version=empty)


@pytest.mark.parametrize("version, release", [("0.9.2.dev0", "0.9.1"), ("0.7.0.dev", "0.6.1"), ("1.0.0", "0.9.1")])
def test_verl_version_of_a_build_from_source_or_a_newer_release_reads_as_a_known_one(version, release):
    # verl.__version__ of verl installed from git, or of a release newer than the key set:
    # judged as the newest known release not newer than it, with a warning saying which.
    report = rp.verl.check(QA_LINE, cluster=THREE_NODES, verl_version=version)
    assert report.as_dict()["launch"]["releases"] == [release]
    (note,) = [d for d in report.as_dict()["diagnostics"] if d["code"] == "resource_pool::verl::version_approximated"]
    assert note["severity"] == "warning"
    assert note["data"] == {"version": version, "release": release}
    # As the command does it.
    args = ["verl", "--verl-version", version, "--cluster", THREE_NODES, "--format", "json", "--", *QA_LINE]
    assert report.as_dict() == json.loads(run_cli(args, merged=False).stdout)
    # A known release is judged as itself, without the warning.
    exact = rp.verl.check(QA_LINE, cluster=THREE_NODES, verl_version=release)
    assert "resource_pool::verl::version_approximated" not in [d["code"] for d in exact.diagnostics]


def test_pools_and_mapping_are_in_as_dict_when_verl_would_stop():
    report = rp.verl.check(["trainer.nnodes=2", "trainer.nnode=2"], cluster=THREE_NODES)
    assert not report.ok
    fields = report.as_dict()
    assert (fields["pools"], fields["mapping"]) == (None, None)
    assert not str(report).startswith("verl builds:")


RECORDED = ROOT / "resource-pool-inventory" / "tests" / "data" / "ray-2.60"


@pytest.fixture
def dashboard():
    """A dashboard on 127.0.0.1 that answers with the recorded Ray 2.60 idle cluster (one
    node of 8 GPUs, two of 4); its URL, and the paths it was asked for."""
    import http.server
    import threading

    names = {
        "/api/version": "api_version",
        "/api/v0/nodes": "api_v0_nodes_detail",
        "/api/cluster_status": "api_cluster_status",
        "/api/v0/placement_groups": "api_v0_placement_groups_detail",
    }
    asked = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            path = self.path.split("?")[0]
            asked.append(path)
            file = RECORDED / ("idle_%s.json" % names.get(path, "none"))
            body = file.read_bytes() if file.exists() else b"404: Not Found"
            self.send_response(200 if file.exists() else 404)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield "http://127.0.0.1:%d" % server.server_address[1], asked
    finally:
        server.shutdown()
        server.server_close()


def _closed_url():
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return "http://127.0.0.1:%d" % s.getsockname()[1]


def _submit(address_words):
    return ["ray", "job", "submit", *address_words, "--", "python3", "-m", "verl.trainer.main_ppo", *OVERRIDES]


def test_a_ray_job_submit_line_is_checked_on_the_dashboard_it_names(dashboard, monkeypatch):
    url, asked = dashboard
    line = _submit(["--address", url])
    report = rp.verl.check(line)
    assert "/api/v0/nodes" in asked
    # A verdict on that cluster (two 8-GPU node-slots, one node of 8), with where it came from.
    assert report.ok is False and report.as_dict()["ray_version"] == "2.60.0"
    note = [d for d in report.diagnostics if d["code"] == "resource_pool::verl::launch_cluster"]
    assert len(note) == 1 and url in note[0]["message"], report.diagnostics
    # As the command does it.
    cli = run_cli(["verl", "--", *line])
    assert str(report) == cli.stdout and cli.returncode == 1

    # The line comes before the connected Ray, RESOURCE_POOL_CLUSTER and RAY_ADDRESS...
    import sys

    from test_check import _FakeRay

    monkeypatch.setitem(sys.modules, "ray", _FakeRay(_closed_url()[len("http://"):]))
    monkeypatch.setenv("RESOURCE_POOL_CLUSTER", str(THREE_NODES))
    monkeypatch.setenv("RAY_ADDRESS", "")
    assert rp.verl.check(line).as_dict()["ray_version"] == "2.60.0"
    # ...but not before cluster= or ray=.
    assert rp.verl.check(line, cluster=THREE_NODES).ok
    with pytest.raises(rp.ClusterUnreachable):
        rp.verl.check(line, ray=_closed_url())
    # RAY_ADDRESS set on the line wins over --address, as in Ray.
    line = ["RAY_ADDRESS=" + url, *_submit(["--address", _closed_url()])]
    assert rp.verl.check(line).as_dict()["ray_version"] == "2.60.0"


def test_a_launch_address_that_cannot_be_read_says_it_came_from_the_line():
    url = _closed_url()
    line = _submit(["--address", url])
    with pytest.raises(rp.ClusterUnreachable) as raised:
        rp.verl.check(line, timeout=2)
    codes = [d["code"] for d in raised.value.diagnostics]
    assert codes == ["resource_pool::verl::launch_cluster", "resource_pool::ray::unreachable"], codes
    # Where the URL came from, and how to check another cluster, as the command prints it.
    message = str(raised.value)
    assert "the dashboard the launch line's --address names" in message
    assert "cluster= or ray= in Python" in message
    cli = run_cli(["verl", "--ray-timeout-ms", "2000", "--", *line])
    assert cli.returncode == 2 and message in cli.stdout


def test_a_launch_address_that_is_not_a_dashboard_is_said(monkeypatch):
    line = _submit(["--address", "ray://127.0.0.1:10001"])
    with pytest.raises(rp.ClusterError, match=r"no cluster to check against.*ray://127\.0\.0\.1:10001.* is not a dashboard URL"):
        rp.verl.check(line)
    # With another cluster found, a diagnostic says it.
    monkeypatch.setenv("RESOURCE_POOL_CLUSTER", str(THREE_NODES))
    report = rp.verl.check(line)
    assert "resource_pool::verl::launch_address_not_dashboard" in [d["code"] for d in report.diagnostics]
    # The environment's RAY_ADDRESS overrides --address in `ray job submit`: warned.
    monkeypatch.setenv("RAY_ADDRESS", "127.0.0.1:6379")
    report = rp.verl.check(_submit(["--address", _closed_url()]))
    warned = [d for d in report.diagnostics if d["code"] == "resource_pool::verl::launch_address_overridden"]
    assert warned and warned[0]["severity"] == "warning"


def test_ray_api_server_address_and_a_removed_ray_address(dashboard, monkeypatch):
    url, asked = dashboard
    # os.environ's RAY_API_SERVER_ADDRESS is the job's cluster, before RAY_ADDRESS.
    monkeypatch.setenv("RAY_API_SERVER_ADDRESS", url)
    monkeypatch.setenv("RAY_ADDRESS", _closed_url())
    report = rp.verl.check(_submit([]))
    assert report.as_dict()["ray_version"] == "2.60.0"
    note = [d for d in report.diagnostics if d["code"] == "resource_pool::verl::launch_cluster"]
    assert note and note[0]["data"]["from"] == "environment", report.diagnostics
    # It overrides --address: warned, naming it.
    report = rp.verl.check(_submit(["--address", _closed_url()]))
    warned = [d for d in report.diagnostics if d["code"] == "resource_pool::verl::launch_address_overridden"]
    assert warned and warned[0]["data"]["by"] == "RAY_API_SERVER_ADDRESS"
    # A line that removes RAY_ADDRESS and names nothing: the environment's is not the job's.
    monkeypatch.delenv("RAY_API_SERVER_ADDRESS")
    monkeypatch.setenv("RAY_ADDRESS", url)
    with pytest.raises(rp.ClusterError, match=r"removes \(or empties\) RAY_ADDRESS"):
        rp.verl.check(["env", "-u", "RAY_ADDRESS", *_submit([])])
    # Without the line's removal, RAY_ADDRESS in any case and with spaces is read.
    monkeypatch.setenv("RAY_ADDRESS", " " + url.replace("http://", "HTTP://") + " ")
    assert rp.verl.check(_submit([])).as_dict()["ray_version"] == "2.60.0"
    assert rp.verl.check(OVERRIDES).as_dict()["ray_version"] == "2.60.0"
