"""``python -m workgym_proxy [--host --port]``: the fault proxy alone.

The same as ``workgym serve --role proxy``: it needs ``REDIS_URL`` (the gym API's) and
``WORKGYM_INTERNAL_SECRET``; each episode's replica URLs come from the registry.
"""

import sys

from workgym.cli import main

sys.exit(main(["serve", "--role", "proxy", *sys.argv[1:]]))
