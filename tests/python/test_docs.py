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


def test_every_error_class_derives_from_resource_pool_error():
    import resource_pool as rp

    errors = [getattr(rp, name) for name in rp.__all__ if name.endswith("Error") or name == "ClusterUnreachable"]
    assert rp.ArgumentError in errors
    assert all(issubclass(error, rp.ResourcePoolError) for error in errors)
