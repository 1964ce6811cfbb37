"""What the fixture scripts that write many small cases (launcher-argv, shell-strings) share:
the fixture as JSON with one case a line, so that the file stays a reviewable diff.

Imported by those scripts from their own folder; not a script itself.
"""

import json
from pathlib import Path


def write_cases(path: Path, fixture: dict) -> None:
    """Writes `fixture` (whose last key is `cases`, a list) to `path`: its other keys
    indented, each case on a line of its own."""
    fields = dict(fixture)
    body = ",\n  ".join(json.dumps(c) for c in fields.pop("cases"))
    head = json.dumps(fields, indent=1)[:-2]
    path.write_text(f'{head},\n "cases": [\n  {body}\n ]\n}}\n')
