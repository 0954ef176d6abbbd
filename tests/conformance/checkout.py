"""The checkout's product: Stripe's API as the official Node SDK describes it, npm
``stripe@18.3.0`` (its ``cjs/apiVersion.js`` is ``2025-06-30.basil``, the version the replica
answers as). Its operations are the ``stripeMethod({method, fullPath})`` of each resource
module under ``cjs/resources``, grouped by the module's name (``Checkout/Sessions.js`` is
``Checkout.Sessions``); the shapes are its ``types/`` (``stripe_types.py``)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from tests.conformance.coverage import Description, Operation
from tests.conformance.registry import npm_package
from tests.conformance.stripe_types import PACKAGE

METHOD = re.compile(r"stripeMethod\(\{\s*method:\s*'(?P<method>[A-Z]+)',\s*"
                    r"fullPath:\s*'(?P<path>[^']+)'")


def operations() -> Iterator[Operation]:
    root = npm_package(*PACKAGE) / "cjs" / "resources"
    for module in sorted(root.rglob("*.js")):
        resource = ".".join(module.relative_to(root).with_suffix("").parts)
        for found in METHOD.finditer(module.read_text()):
            yield Operation(resource, found["method"], found["path"])


DESCRIPTION = Description(
    product="Stripe API 2025-06-30.basil",
    source=f"npm {PACKAGE[0]}@{PACKAGE[1]} (cjs/resources)",
    operations=operations,
)
