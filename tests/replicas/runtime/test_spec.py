"""What is read of an app without importing it: its brief and its actors' model."""

from __future__ import annotations

import subprocess
import sys

from replicas.helpdesk import SPEC
from replicas.helpdesk.actors import Actors
from replicas.runtime.spec import actors_model, read_brief


def test_the_brief_and_actors_are_the_apps_files() -> None:
    assert SPEC.brief == read_brief("helpdesk")
    assert read_brief("helpdesk").startswith("You are a support agent")
    assert SPEC.actors is actors_model("helpdesk") is Actors


def test_reading_them_imports_no_routes() -> None:
    code = ("import sys; from replicas.runtime.spec import actors_model, read_brief; "
            "read_brief('helpdesk'); actors_model('helpdesk').model_validate("
            "{'customer': {'ticket': '$ticket.id', 'knows': [{'kind': 'detail'}]}}); "
            "print(sorted(m for m in sys.modules if m.startswith(('fastapi', 'sqlalchemy', "
            "'replicas.helpdesk.routes', 'replicas.helpdesk.spec'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out == "[]\n"
