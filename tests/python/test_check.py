"""``rp.check``: every field, the human report against the CLI's, errors and types."""

import enum
import json
import os
import socket
import sys
import threading
import time
from pathlib import Path

import pytest

import resource_pool as rp
from conftest import CLUSTERS, ROOT, run_cli

# The critic's pool first: verl creates the worker groups' pools in the spec's order.
HANG_SPEC = {"critic_pool": [4], "global_pool": [8]}
HANG_MAPPING = {
    "critic": "critic_pool",
    "actor_rollout": "global_pool",
    "ref": "global_pool",
}
BIG_AND_SMALL = CLUSTERS / "big_and_small.toml"
THREE_NODES = CLUSTERS / "three_nodes.toml"
DIAGNOSTIC_KEYS = {"code", "severity", "message", "help", "file", "line", "column"}


class Role(enum.Enum):
    """A stand-in of verl's ``Role`` (verl/trainer/ppo/utils.py): its names and values."""

    Actor = 0
    Rollout = 1
    ActorRollout = 2
    Critic = 3
    RefPolicy = 4
    RewardModel = 5
    ActorRolloutRef = 6
    Env = 7
    TeacherModel = 8


def test_a_layout_ray_hangs_on_has_every_field():
    report = rp.check(HANG_SPEC, HANG_MAPPING, cluster=str(BIG_AND_SMALL))
    assert report.ok is False
    assert report.feasible is True
    assert report.ray == "hangs"
    assert report.placement == [
        {"pool": "critic_pool", "slot": 0, "node": "small"},
        {"pool": "global_pool", "slot": 0, "node": "big"},
    ]
    assert report.ray_placement == [{"pool": "critic_pool", "slot": 0, "node": "big"}]
    (hang,) = report.diagnostics
    assert DIAGNOSTIC_KEYS <= set(hang)
    assert hang["code"] == "resource_pool::ray::hangs"
    assert hang["severity"] == "error"
    assert "Ray hangs" in hang["message"]
    assert "global_pool, critic_pool" in hang["help"]
    # The span: the `8` of global_pool's process_on_nodes in the config written from the
    # arguments (Report.config).
    assert (hang["file"], hang["line"], hang["column"]) == ("<rp.check>", 6, 21)
    assert report.config.splitlines()[5] == "process_on_nodes = [8]"
    assert "ok=False" in repr(report) and "ray='hangs'" in repr(report)
    assert report.ray_version is None and "ray_version" not in report.as_dict()


def test_a_placeable_layout_passes():
    report = rp.check(
        {"global_pool": [8, 8]},
        {"actor_rollout": "global_pool", "critic": "global_pool"},
        max_colocate_count=3,
        accelerator="GPU",
        cluster=THREE_NODES,
    )
    assert (report.ok, report.feasible, report.ray) == (True, True, "places")
    assert sorted(p["node"] for p in report.placement) == ["node-a", "node-b"]
    assert report.diagnostics == []
    assert report.raise_for_problems() is report


def test_the_config_written_from_the_arguments():
    report = rp.check(
        {"global_pool": [8, 8], "reward pool": [4]},
        {"actor_rollout": "global_pool", "rm": "reward pool"},
        max_colocate_count=1,
        accelerator="NPU",
        cluster=THREE_NODES,
    )
    assert report.config == (
        "[pools.global_pool]\n"
        "process_on_nodes = [8, 8]\n"
        'accelerator = "NPU"\n'
        "max_colocate_count = 1\n"
        "\n"
        '[pools."reward pool"]\n'
        "process_on_nodes = [4]\n"
        'accelerator = "NPU"\n'
        "max_colocate_count = 1\n"
        "\n"
        "[mapping]\n"
        'actor_rollout = "global_pool"\n'
        'rm = "reward pool"\n'
    )


CASES = {
    "ray hangs": (HANG_SPEC, HANG_MAPPING, 3, "GPU", BIG_AND_SMALL),
    "places": ({"global_pool": [8, 8]}, {"actor_rollout": "global_pool"}, 3, "GPU", THREE_NODES),
    "not placeable": ({"global_pool": [8, 8, 8]}, {"actor_rollout": "global_pool"}, 3, "GPU", BIG_AND_SMALL),
    "lint errors": ({"global_pool": [0, 8]}, {"actor_rollout": "nowhere"}, 3, "TPU", THREE_NODES),
    "unknown role": ({"p": [4]}, {"judge": "p"}, 1, "GPU", CLUSTERS / "busy.toml"),
    "npu": ({"global_pool": [8]}, {"actor_rollout": "global_pool"}, 3, "NPU", CLUSTERS / "ascend.toml"),
}


# The advice worded for the dict rather than for the config file generated from it: a pool
# order's help, and a suggestion's. Everything else (every JSON field but these helps) is
# what `resource-pool check` says of Report.config.
PYTHON_WORDED = {"resource_pool::ray::hangs", "resource_pool::suggest::layout"}


def without_help(text):
    """A human report without its `help:` blocks (a help's lines after the first are
    indented eight spaces)."""
    kept, in_help = [], False
    for line in text.splitlines(keepends=True):
        if line.startswith("  help: "):
            in_help = True
        elif not (in_help and line.startswith("        ")):
            in_help = False
            kept.append(line)
    return "".join(kept)


def without_python_helps(result):
    result = json.loads(json.dumps(result))
    for d in result["diagnostics"]:
        if d["code"] in PYTHON_WORDED:
            d.pop("help", None)
    return result


@pytest.mark.parametrize("case", sorted(CASES))
def test_str_and_json_equal_the_cli_for_the_same_inputs(case, tmp_path):
    spec, mapping, mcc, accelerator, cluster = CASES[case]
    report = rp.check(spec, mapping, mcc, accelerator, cluster=str(cluster))
    # The CLI reads the same config from a file of the same name.
    (tmp_path / "<rp.check>").write_text(report.config)
    human = run_cli(["check", "<rp.check>", "--cluster", cluster], cwd=tmp_path)
    worded = {d["code"] for d in report.diagnostics} & PYTHON_WORDED
    if worded:
        assert without_help(str(report)) == without_help(human.stdout)
        assert str(report) != human.stdout
    else:
        assert str(report) == human.stdout
    assert human.returncode == (0 if report.ok else 1)
    as_json = run_cli(
        ["check", "<rp.check>", "--cluster", cluster, "--format", "json"], cwd=tmp_path, merged=False
    )
    cli = json.loads(as_json.stdout)
    assert without_python_helps(report.as_dict()) == without_python_helps(cli)
    for ours, theirs in zip(report.diagnostics, cli["diagnostics"]):
        if ours["code"] in PYTHON_WORDED:
            assert "resource_pool_spec" in ours["help"] and "resource_pool_spec" not in theirs["help"]
        else:
            assert ours["help"] == theirs.get("help")
    for key in ("feasible", "ray", "placement", "ray_placement", "suggestions"):
        assert getattr(report, key) == report.as_dict()[key]
    for ours, theirs in zip(report.diagnostics, report.as_dict()["diagnostics"]):
        assert {k: v for k, v in ours.items() if v is not None} == theirs


def test_a_hang_says_to_reorder_resource_pool_specs_keys():
    # The README's trap: the 4-GPU pool first. The fix is the dict's order, which is the
    # order verl creates the pools in; the generated config's tables mean nothing here.
    report = rp.check(HANG_SPEC, HANG_MAPPING, cluster=BIG_AND_SMALL)
    (hang,) = report.diagnostics
    assert hang["help"].endswith(
        "Ray places every group when the pools are created in this order: global_pool, "
        "critic_pool (reorder resource_pool_spec's keys: verl creates the pools in its order)"
    )
    assert "reorder resource_pool_spec's keys" in " ".join(str(report).split())
    assert "[pools.*]" not in str(report)
    # The data is the same as the CLI's: the order, nothing about the wording.
    (data,) = [d for d in report.as_dict()["diagnostics"] if d["code"] == "resource_pool::ray::hangs"]
    assert data["data"]["fix"] == {"kind": "pool_order", "pools": ["global_pool", "critic_pool"]}
    # Reordered as it says, the layout passes.
    fixed = rp.check(dict(reversed(list(HANG_SPEC.items()))), HANG_MAPPING, cluster=BIG_AND_SMALL)
    assert fixed.ok, str(fixed)


def test_a_suggestion_shows_the_new_resource_pool_spec():
    spec = {"global_pool": [8, 8], "reward_pool": [4]}
    mapping = {"actor_rollout": "global_pool", "critic": "global_pool", "rm": "reward_pool"}
    report = rp.check(spec, mapping, cluster=BIG_AND_SMALL)
    (advice,) = [d for d in report.diagnostics if d["code"] == "resource_pool::suggest::layout"]
    new_spec = {"global_pool": [8], "reward_pool": [4]}
    assert advice["help"] == (
        f"pass `resource_pool_spec={json.dumps(new_spec)}` to rp.check, then to verl's ResourcePoolManager"
    )
    assert "--set" not in str(report)
    assert "resource_pool_spec={" in str(report)
    # What it says to pass is Python, and the layout it names passes.
    pasted = advice["help"].split("`resource_pool_spec=", 1)[1].split("`", 1)[0]
    assert eval(pasted, {}) == new_spec
    assert rp.check(new_spec, mapping, cluster=BIG_AND_SMALL).ok
    # The data stays the generated config's: `--set` values on Report.config.
    (now,) = report.suggestions
    assert now["pools"] == new_spec
    assert now["overrides"] == ["pools.global_pool.process_on_nodes=[8]"]


def test_lint_problems_are_diagnostics_not_exceptions():
    report = rp.check({"global_pool": [0]}, {"actor_rollout": "global_pool"}, cluster=THREE_NODES)
    assert (report.ok, report.feasible, report.ray) == (False, None, None)
    assert report.placement == [] and report.ray_placement == []
    codes = [d["code"] for d in report.diagnostics]
    assert "resource_pool::config::zero_slot" in codes
    zero = report.diagnostics[codes.index("resource_pool::config::zero_slot")]
    assert (zero["file"], zero["line"]) == ("<rp.check>", 2)


def test_raise_for_problems_raises_a_layout_error():
    report = rp.check(HANG_SPEC, HANG_MAPPING, cluster=BIG_AND_SMALL)
    with pytest.raises(rp.LayoutError) as raised:
        report.raise_for_problems()
    assert isinstance(raised.value, ValueError)
    assert raised.value.report is report
    assert raised.value.diagnostics == report.diagnostics
    assert str(raised.value) == str(report).rstrip()


def test_repr_counts_errors_warnings_and_advice_as_the_summary_line_does():
    # Too large for the cluster, and for verl's own check (its refusal is one more error).
    report = rp.check({"global_pool": [8, 8, 8]}, {"actor_rollout": "global_pool"}, cluster=BIG_AND_SMALL)
    assert str(report).endswith("(3 errors, 1 warning, 1 advice)\n")
    assert repr(report).endswith(" errors=3 warnings=1 advice=1>"), repr(report)
    assert [d["severity"] for d in report.diagnostics].count("advice") == 1


def test_suggestions_are_an_attribute_as_in_as_dict():
    report = rp.check({"global_pool": [8, 8, 8]}, {"actor_rollout": "global_pool"}, cluster=BIG_AND_SMALL)
    assert report.suggestions == report.as_dict()["suggestions"]
    (now,) = report.suggestions
    assert (now["when"], now["pools"]) == ("now", {"global_pool": [8]})
    placed = rp.check({"global_pool": [8]}, {"actor_rollout": "global_pool"}, cluster=BIG_AND_SMALL)
    assert placed.suggestions == []


def test_colour_only_when_asked():
    report = rp.check(HANG_SPEC, HANG_MAPPING, cluster=BIG_AND_SMALL)
    assert "\x1b[" not in str(report)
    assert "\x1b[" in report.render(colour=True)
    assert report.render() == str(report)


def test_verl_role_members_are_taken_by_name():
    by_role = rp.check(
        {"global_pool": [8], "reward_pool": [4]},
        {
            Role.ActorRollout: "global_pool",
            Role.Critic: "global_pool",
            Role.RefPolicy: "global_pool",
            Role.RewardModel: "reward_pool",
        },
        cluster=BIG_AND_SMALL,
    )
    by_name = rp.check(
        {"global_pool": [8], "reward_pool": [4]},
        {"actor_rollout": "global_pool", "critic": "global_pool", "ref": "global_pool", "rm": "reward_pool"},
        cluster=BIG_AND_SMALL,
    )
    assert by_role.config == by_name.config
    assert str(by_role) == str(by_name)
    assert by_role.ok and by_role.diagnostics == []


def test_an_enum_name_verl_does_not_have_is_a_warned_role():
    class MyRole(enum.Enum):
        JudgeModel = 1

    report = rp.check({"p": [4]}, {MyRole.JudgeModel: "p"}, cluster=BIG_AND_SMALL)
    assert 'judge_model = "p"' in report.config
    assert [d["code"] for d in report.diagnostics] == ["resource_pool::config::unknown_role"]
    assert report.diagnostics[0]["severity"] == "warning"


NODE = {"id": "a", "available": {"GPU": 8, "CPU": 32}}


@pytest.mark.parametrize(
    "kwargs, names",
    [
        (dict(resource_pool_spec={"p": "8"}), "resource_pool_spec['p']"),
        (dict(resource_pool_spec={"p": [8, "8"]}), "resource_pool_spec['p'][1]"),
        (dict(resource_pool_spec={"p": [8.0]}), "resource_pool_spec['p'][0]"),
        (dict(resource_pool_spec={"p": [True]}), "resource_pool_spec['p'][0]"),
        (dict(resource_pool_spec={3: [8]}), "resource_pool_spec"),
        (dict(resource_pool_spec=[8, 8]), "resource_pool_spec"),
        (dict(mapping={"actor": 3}), "mapping['actor']"),
        (dict(mapping={3: "p"}), "mapping"),
        (dict(mapping=None), "mapping"),
        (dict(max_colocate_count="3"), "max_colocate_count"),
        (dict(max_colocate_count=True), "max_colocate_count"),
        (dict(accelerator=1), "accelerator"),
        (dict(cluster=3), "cluster"),
        (dict(cluster={"nodes": [{"id": "a", "available": {"GPU": None}}]}), "cluster['nodes'][0]['available']['GPU']"),
        (dict(cluster={"nodes": [{"id": object()}]}), "cluster['nodes'][0]['id']"),
        (dict(cluster={"nodes": [NODE]}, ray=8), "ray"),
    ],
)
def test_wrong_types_are_type_errors_naming_the_argument_and_key(kwargs, names):
    arguments = dict(resource_pool_spec={"p": [8]}, mapping={"actor": "p"}, cluster={"nodes": [NODE]})
    arguments.update(kwargs)
    with pytest.raises(TypeError) as raised:
        rp.check(**arguments)
    assert str(raised.value).startswith(names + ":"), str(raised.value)


def test_an_int_past_64_bits_is_an_argument_error():
    with pytest.raises(rp.ArgumentError, match=r"resource_pool_spec\['p'\]\[0\]: .*out of range"):
        rp.check({"p": [10**30]}, {"actor": "p"}, cluster={"nodes": [NODE]})


def test_a_cluster_dict_that_holds_itself_is_an_argument_error_not_a_crash():
    # Written to TOML by a recursion that had no bound: a dict holding itself, or one
    # nested thousands deep, ran the native stack out and killed Python (SIGSEGV).
    looped = {}
    looped["x"] = looped
    deep = 8
    for _ in range(5000):
        deep = [deep]
    wide = {}
    wide["é"] = wide  # a path cut inside a two-byte character would panic
    for labels, start in [
        (looped, "cluster['nodes'][0]['labels']['x']"),
        (deep, "cluster['nodes'][0]['labels'][0]"),
        (wide, "cluster['nodes'][0]['labels']['é']"),
    ]:
        node = {"id": "a", "available": {"GPU": 8, "CPU": 96}, "labels": labels}
        with pytest.raises(rp.ArgumentError, match="nested more than 80 deep") as raised:
            rp.check({"p": [8]}, {"actor": "p"}, cluster={"nodes": [node]})
        message = str(raised.value)
        assert message.startswith(start), message[:200]
        # The path, 80 subscripts long, is cut short.
        assert "[…]: lists and dicts" in message and len(message) < 300, message
    # At the limit it is written, and the cluster reader words what is wrong with it.
    within = "a"
    for _ in range(79):
        within = {"x": within}
    node = {"id": "a", "available": {"GPU": 8, "CPU": 96}, "labels": within}
    with pytest.raises(rp.ClusterError, match="must be a string"):
        rp.check({"p": [8]}, {"actor": "p"}, cluster={"nodes": [node]})


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(resource_pool_spec={"p": [10**30]}), "out of range"),
        (dict(max_colocate_count=-(10**30)), "out of range"),
        (dict(cluster={"nodes": [{"id": "a", "available": {"GPU": 10**40}}]}), "out of range"),
        (dict(ray="http://127.0.0.1:1"), "not both"),
        (dict(cluster=None, ray="http://127.0.0.1:1", timeout=0), "timeout"),
        (dict(cluster=None, ray="http://127.0.0.1:1", timeout=-1), "timeout"),
        (dict(cluster=None, ray="http://127.0.0.1:1", timeout=float("nan")), "timeout"),
        # Whatever the cluster source: a script tested on a file must not fail on a dashboard.
        (dict(timeout=0), "timeout"),
        (dict(timeout=-1), "timeout"),
        (dict(timeout=float("nan")), "timeout"),
        (dict(timeout=float("inf")), "timeout"),
    ],
)
def test_argument_values_the_check_cannot_take_are_package_errors(kwargs, message):
    # docs/python.md: every error of the package derives from rp.ResourcePoolError (and
    # these stay ValueErrors, as they were).
    arguments = dict(resource_pool_spec={"p": [8]}, mapping={"actor": "p"}, cluster={"nodes": [NODE]})
    arguments.update(kwargs)
    with pytest.raises(rp.ArgumentError, match=message) as raised:
        rp.check(**arguments)
    assert isinstance(raised.value, rp.ResourcePoolError)
    assert isinstance(raised.value, ValueError)
    assert raised.value.diagnostics == []


def test_a_timeout_that_is_not_a_number_is_a_type_error():
    with pytest.raises(TypeError, match="^timeout: expected a number of seconds"):
        rp.check({"p": [8]}, {"actor": "p"}, ray="http://127.0.0.1:1", timeout="10")
    with pytest.raises(TypeError, match="^timeout: expected a number of seconds"):
        rp.verl.check(["trainer.nnodes=1"], ray="http://127.0.0.1:1", timeout=None)


def test_a_cluster_dict_checks_as_its_file_does():
    nodes = {
        "nodes": [
            {"id": "big", "available": {"GPU": 8, "CPU": 32}, "total": {"GPU": 8, "CPU": 32}},
            {"id": "small", "available": {"GPU": 4, "CPU": 16}, "total": {"GPU": 4, "CPU": 16}},
        ]
    }
    from_dict = rp.check(HANG_SPEC, HANG_MAPPING, cluster=nodes)
    from_file = rp.check(HANG_SPEC, HANG_MAPPING, cluster=BIG_AND_SMALL)
    assert from_dict.as_dict() == from_file.as_dict()
    assert str(from_dict) == str(from_file)


def test_an_unreadable_cluster_file_is_an_os_error(tmp_path):
    missing = tmp_path / "missing.toml"
    with pytest.raises(FileNotFoundError) as raised:
        rp.check({"p": [8]}, {"actor": "p"}, cluster=missing)
    assert raised.value.filename == str(missing)
    # Python writes the errno itself (`[Errno 2] ...`): the text does not repeat it.
    assert "os error" not in str(raised.value), str(raised.value)
    with pytest.raises(IsADirectoryError):
        rp.check({"p": [8]}, {"actor": "p"}, cluster=tmp_path)
    (tmp_path / "latin1.toml").write_bytes(b'[[nodes]]\nid = "\xe9"\n')
    with pytest.raises(OSError, match="not UTF-8"):
        rp.check({"p": [8]}, {"actor": "p"}, cluster=tmp_path / "latin1.toml")


def test_an_invalid_cluster_is_a_cluster_error_with_diagnostics(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('[[nodes]]\nid = "a"\navailable = { GPU = "eight" }\n')
    with pytest.raises(rp.ClusterError) as raised:
        rp.check({"p": [8]}, {"actor": "p"}, cluster=bad)
    assert isinstance(raised.value, ValueError)
    (diagnostic,) = raised.value.diagnostics
    assert (diagnostic["file"], diagnostic["line"]) == (str(bad), 3)
    # Its message is the CLI's report of the same file.
    cli = run_cli(["check", ROOT / "examples/configs/single_node.toml", "--cluster", bad])
    assert cli.returncode == 2
    assert str(raised.value) in cli.stdout
    with pytest.raises(rp.ClusterError) as raised:
        rp.check({"p": [8]}, {"actor": "p"}, cluster={"nodes": [{"id": "a", "available": {"GPU": "8"}}]})
    assert raised.value.diagnostics[0]["file"] == "<cluster>"


def _closed_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_dashboard_that_is_down_is_cluster_unreachable():
    url = "http://127.0.0.1:%d" % _closed_port()
    start = time.monotonic()
    with pytest.raises(rp.ClusterUnreachable) as raised:
        rp.check({"p": [8]}, {"actor": "p"}, ray=url, timeout=2.0)
    assert time.monotonic() - start < 2.0
    assert isinstance(raised.value, ConnectionError)
    assert raised.value.diagnostics[0]["code"] == "resource_pool::ray::unreachable"
    assert url in str(raised.value)


def test_a_dashboard_that_never_answers_times_out_and_the_gil_is_free_meanwhile():
    # A socket that accepts connections (the kernel's backlog) and never answers.
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    url = "http://127.0.0.1:%d" % server.getsockname()[1]
    ticks = []
    done = threading.Event()

    def count():
        while not done.is_set():
            ticks.append(time.monotonic())
            time.sleep(0.01)

    counter = threading.Thread(target=count)
    try:
        start = time.monotonic()
        counter.start()
        with pytest.raises(rp.ClusterUnreachable) as raised:
            rp.check({"p": [8]}, {"actor": "p"}, ray=url, timeout=1.0)
        took = time.monotonic() - start
    finally:
        done.set()
        counter.join()
        server.close()
    assert 0.9 < took < 3.0, took
    assert raised.value.diagnostics[0]["code"] == "resource_pool::ray::timeout"
    # The help names Python's own setting, not the command's flag.
    help_ = raised.value.diagnostics[0]["help"]
    assert "raise the timeout (`timeout=`, in seconds)" in help_, help_
    assert "--ray-timeout-ms" not in help_, help_
    # The other thread ran all along (it could not, were the GIL held by the check).
    during = [t for t in ticks if start + 0.2 < t < start + took - 0.1]
    assert len(during) > 20, len(during)


def test_without_cluster_or_ray_the_environment_says_where(monkeypatch):
    with pytest.raises(rp.ClusterError, match="no cluster to check against"):
        rp.check({"p": [8]}, {"actor": "p"})
    monkeypatch.setenv("RESOURCE_POOL_CLUSTER", str(THREE_NODES))
    assert rp.check({"p": [8]}, {"actor": "p"}).ok
    monkeypatch.delenv("RESOURCE_POOL_CLUSTER")
    url = "http://127.0.0.1:%d" % _closed_port()
    monkeypatch.setenv("RAY_ADDRESS", url)
    with pytest.raises(rp.ClusterUnreachable, match=url):
        rp.check({"p": [8]}, {"actor": "p"})
    # A GCS address (not http) is not a dashboard.
    monkeypatch.setenv("RAY_ADDRESS", "127.0.0.1:6379")
    with pytest.raises(rp.ClusterError, match="no cluster"):
        rp.check({"p": [8]}, {"actor": "p"})
    with pytest.raises(rp.ArgumentError, match="not both"):
        rp.check({"p": [8]}, {"actor": "p"}, cluster=THREE_NODES, ray=url)
    with pytest.raises(rp.ArgumentError, match="not both"):
        rp.verl.check(["trainer.nnodes=1"], cluster=THREE_NODES, ray=url)


class _FakeRay:
    """What ``rp.dashboard_url`` reads of a connected ``ray`` (the real one: test_live): a
    driver's (``mode`` 0, Ray's ``SCRIPT_MODE``) or a worker's (1, ``WORKER_MODE``: an
    actor such as verl's ``TaskRunner``) node's ``webui_url``. The GCS's ``webui:url`` is
    ``_FakeGcs``."""

    def __init__(self, webui_url, initialized=True, mode=0):
        self._initialized = initialized
        node = type("Node", (), {"address_info": {"webui_url": webui_url}})()
        global_worker = type("G", (), {"node": node, "mode": mode})()
        worker = type("Worker", (), {"global_worker": global_worker, "SCRIPT_MODE": 0, "WORKER_MODE": 1})()
        self._private = type("P", (), {"worker": worker})()

    def is_initialized(self):
        return self._initialized


class _FakeGcs:
    """``ray.experimental.internal_kv`` with the head's ``webui:url`` (bytes, as Ray gives it)."""

    def __init__(self, webui_url):
        self._url = webui_url

    def _internal_kv_get(self, key, namespace=None):
        assert (key, namespace) == ("webui:url", "dashboard")
        return self._url.encode() if self._url else None


def test_a_connected_ray_names_its_dashboard(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", _FakeRay("127.0.0.1:%d" % _closed_port()))
    url = rp.dashboard_url()
    assert url.startswith("http://127.0.0.1:")
    monkeypatch.setenv("RESOURCE_POOL_CLUSTER", str(THREE_NODES))
    # The connected cluster comes first: it is the one verl will use.
    with pytest.raises(rp.ClusterUnreachable, match=url):
        rp.check({"p": [8]}, {"actor": "p"})
    monkeypatch.setitem(sys.modules, "ray", _FakeRay("127.0.0.1:1", initialized=False))
    assert rp.dashboard_url() is None
    assert rp.check({"p": [8]}, {"actor": "p"}).ok


def test_in_a_ray_actor_the_heads_dashboard_is_read_not_the_workers_default(monkeypatch):
    # In a worker, the node's webui_url is Ray's default 127.0.0.1:8265 whatever the head's
    # dashboard is (the QA report's TaskRunner); the GCS's webui:url is the head's.
    monkeypatch.setitem(sys.modules, "ray", _FakeRay("127.0.0.1:8265", mode=1))
    monkeypatch.setitem(sys.modules, "ray.experimental.internal_kv", _FakeGcs("127.0.0.31:35597"))
    assert rp.dashboard_url() == "http://127.0.0.31:35597"
    # The GCS comes first in a driver too (Ray's drivers read their webui_url from it).
    monkeypatch.setitem(sys.modules, "ray", _FakeRay("127.0.0.1:8265", mode=0))
    assert rp.dashboard_url() == "http://127.0.0.31:35597"
    # Without it, a driver's own webui_url, but never a worker's.
    monkeypatch.setitem(sys.modules, "ray.experimental.internal_kv", _FakeGcs(None))
    assert rp.dashboard_url() == "http://127.0.0.1:8265"
    monkeypatch.setitem(sys.modules, "ray", _FakeRay("127.0.0.1:8265", mode=1))
    assert rp.dashboard_url() is None
    with pytest.raises(rp.ClusterError, match="no cluster to check against"):
        rp.check({"p": [8]}, {"actor": "p"})


def test_one_role_given_twice_is_an_argument_error_naming_both_keys():
    class Role(enum.Enum):
        RefPolicy = 4

    with pytest.raises(rp.ArgumentError) as raised:
        rp.check({"global_pool": [8], "reward_pool": [4]}, {Role.RefPolicy: "global_pool", "ref": "reward_pool"},
                 cluster=THREE_NODES)
    assert str(raised.value) == (
        "mapping: role `ref` is given twice: Role.RefPolicy and 'ref'; map it to one pool"
    )


@pytest.mark.parametrize("name", ['a"]\nx', "tab\there", "back\\slash", "nul\x00", "del\x7f", "\u00e9t\u00e9"])
def test_any_pool_name_is_written_as_a_toml_key(name):
    # Never a TOML syntax error about a file the caller did not write.
    report = rp.check({name: [8]}, {"actor_rollout": name}, cluster=THREE_NODES)
    codes = [d["code"] for d in report.diagnostics]
    assert "resource_pool::toml::syntax" not in codes, str(report)
    assert report.ok, str(report)
    assert [p["pool"] for p in report.placement] == [name]


def test_mappings_that_are_not_dicts_are_read_as_dicts():
    from types import MappingProxyType

    report = rp.check(
        MappingProxyType({"p": (8,)}), MappingProxyType({"actor": "p"}), cluster=THREE_NODES
    )
    assert report.ok
    assert "process_on_nodes = [8]" in report.config
