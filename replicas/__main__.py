"""``python -m replicas <app> [--host --port]``: one replica app alone.

The same as ``workgym serve --role replica --app <app>``: its API, ``/_env`` routes and
``/openapi.json`` at ``/``; it needs ``WORKGYM_INTERNAL_SECRET``, the gym API's and proxy's.
"""

import sys

from workgym.cli import main

if len(sys.argv) < 2 or sys.argv[1].startswith("-"):
    sys.exit("usage: python -m replicas <app> [--host HOST] [--port PORT] [--log-level LEVEL]")
sys.exit(main(["serve", "--role", "replica", "--app", *sys.argv[1:]]))
