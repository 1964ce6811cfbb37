"""docs/python.md's example is true: its code prints what the page says it prints."""

import contextlib
import io
import re

from conftest import ROOT


def test_the_five_line_example(monkeypatch):
    page = (ROOT / "docs" / "python.md").read_text()
    section = page.split("## In five lines", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    expected = re.search(r"```text\n(.*?)```", section, re.S).group(1)
    assert len(code.strip().splitlines()) == 5
    monkeypatch.chdir(ROOT)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "docs/python.md", "exec"), {})
    assert out.getvalue() == expected


def test_the_verl_launch_checks_after_ray_init():
    # verl's run_ppo(config) calls ray.init itself (0.5.0 to 0.9.x): a check placed at its
    # start finds no Ray and raises ClusterError, so the page must place it after ray.init.
    page = (ROOT / "docs" / "python.md").read_text()
    section = page.split("## The one line for a verl launch", 1)[1].split("\n## ", 1)[0]
    assert "at the start of verl's `run_ppo" not in section
    assert "right after its `if not ray.is_initialized(): ray.init(...)`" in section
    assert "`TaskRunner.run(config)`" in section


def test_every_error_class_derives_from_resource_pool_error():
    import resource_pool as rp

    errors = [getattr(rp, name) for name in rp.__all__ if name.endswith("Error") or name == "ClusterUnreachable"]
    assert rp.ArgumentError in errors
    assert all(issubclass(error, rp.ResourcePoolError) for error in errors)
