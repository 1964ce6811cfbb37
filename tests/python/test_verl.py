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


def test_bad_arguments(tmp_path):
    with pytest.raises(TypeError, match=r"config\['trainer'\]\['nnodes'\]"):
        rp.verl.check(config={"trainer": {"nnodes": object()}}, cluster=THREE_NODES)
    with pytest.raises(TypeError, match="config"):
        rp.verl.check(config=3, cluster=THREE_NODES)
    with pytest.raises(TypeError, match="overrides"):
        rp.verl.check("trainer.nnodes=2", cluster=THREE_NODES)
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


QA_LINE = [
    "python3", "-m", "verl.trainer.main_ppo", "trainer.nnodes=2",
    "reward.reward_model.enable=True", "reward.reward_model.enable_resource_pool=True",
    "reward.reward_model.n_gpus_per_node=4", "reward.reward_model.nnodes=1",
    "distillation.enabled=True", "distillation.nnodes=1",
]


def test_verl_version_builds_that_releases_pools_as_the_cli_does():
    report = rp.verl.check(QA_LINE, cluster=THREE_NODES, verl_version="0.5.0")
    args = ["verl", "--verl-version", "0.5.0", "--cluster", THREE_NODES, "--format", "json", "--", *QA_LINE]
    cli = run_cli(args, merged=False)
    assert report.as_dict() == json.loads(cli.stdout)
    # verl 0.5.0 has no reward or teacher pool; its config lacks the keys that ask for them.
    assert [p["name"] for p in report.as_dict()["pools"]] == ["global_pool"]
    codes = [d["code"] for d in report.diagnostics]
    assert codes.count("resource_pool::verl::unknown_key") == 6, codes
    newest = rp.verl.check(QA_LINE, cluster=THREE_NODES, verl_version="0.9.1")
    assert [p["name"] for p in newest.as_dict()["pools"]] == ["global_pool", "reward_pool", "teacher_pool"]


def test_verl_version_must_be_a_known_release():
    with pytest.raises(rp.ArgumentError, match=r"verl_version: verl 0\.4\.0 is not in"):
        rp.verl.check(OVERRIDES, cluster=THREE_NODES, verl_version="0.4.0")
    with pytest.raises(TypeError, match="verl_version"):
        rp.verl.check(OVERRIDES, cluster=THREE_NODES, verl_version=0.9)
