"""``rp.lint``: a file or text, linted as ``resource-pool lint`` lints it."""

from pathlib import Path

import pytest

import resource_pool as rp
from conftest import CONFIGS, ROOT, run_cli

MANY = "resource-pool-core/tests/data/lint/many_problems.toml"


def test_a_file_reports_as_the_cli_does(monkeypatch):
    monkeypatch.chdir(ROOT)
    report = rp.lint(MANY)
    cli = run_cli(["lint", MANY])
    assert str(report) == cli.stdout
    assert report.ok is False and cli.returncode == 1
    codes = {d["code"] for d in report.diagnostics}
    assert "resource_pool::config::zero_slot" in codes
    assert all(d["file"] == MANY for d in report.diagnostics if d["line"] is not None)
    with pytest.raises(rp.LayoutError) as raised:
        report.raise_for_problems()
    assert raised.value.report is report


def test_a_path_object_and_text():
    path = CONFIGS / "verl_default.toml"
    by_path = rp.lint(path)
    assert by_path.ok and by_path.raise_for_problems() is by_path
    assert str(by_path) == run_cli(["lint", path]).stdout
    by_text = rp.lint(path.read_text())
    assert by_text.ok
    assert str(by_text) == "<rp.lint>: valid (0 errors, 0 warnings)\n"
    bad = rp.lint("[pools.p]\nprocess_on_nodes = [0]\n[mapping]\nactor = 'p'\n")
    assert not bad.ok
    (zero,) = [d for d in bad.diagnostics if d["code"] == "resource_pool::config::zero_slot"]
    assert (zero["file"], zero["line"], zero["column"]) == ("<rp.lint>", 2, 21)
    assert "ok=False" in repr(bad)


def test_overrides_and_roles(tmp_path):
    path = CONFIGS / "verl_default.toml"
    report = rp.lint(path, overrides=["pools.global_pool.process_on_nodes=[0]"])
    assert not report.ok
    cli = run_cli(["lint", path, "--set", "pools.global_pool.process_on_nodes=[0]"])
    assert str(report) == cli.stdout
    with pytest.raises(rp.ConfigError) as raised:
        rp.lint(path, overrides=["no equals sign"])
    assert raised.value.diagnostics
    text = "[pools.p]\nprocess_on_nodes = [4]\n[mapping]\njudge = 'p'\n"
    assert [d["severity"] for d in rp.lint(text).diagnostics] == ["warning"]
    # repr counts as the verdict line does: errors, warnings, advice.
    assert str(rp.lint(text)).endswith("(0 errors, 1 warning)\n")
    assert repr(rp.lint(text)).endswith(" errors=0 warnings=1 advice=0>"), repr(rp.lint(text))
    assert rp.lint(text, any_roles=True).diagnostics == []


def test_bad_arguments():
    with pytest.raises(FileNotFoundError):
        rp.lint("does-not-exist.toml")
    with pytest.raises(TypeError, match="path_or_text"):
        rp.lint(3)
    with pytest.raises(TypeError, match=r"overrides\[0\]"):
        rp.lint("x.toml", overrides=[1])
    with pytest.raises(TypeError, match="overrides"):
        rp.lint("x.toml", overrides="a=1")
