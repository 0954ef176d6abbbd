"""What a fresh interpreter imports: for the tests that keep a start-up free of a package."""

from __future__ import annotations

import ast
import subprocess
import sys


def imported_after(code: str, *prefixes: str) -> list[str]:
    """The modules named ``prefixes`` (or under them) that a new Python process has imported
    once it has run ``code``, sorted."""
    probe = (f"{code}\nimport sys\nprint(sorted(m for m in sys.modules "
             f"if m.split('.')[0] in {prefixes!r} or m.startswith({prefixes!r})))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True).stdout
    found: list[str] = ast.literal_eval(out)
    return found
