"""Fault plugins, in the spirit of Toxiproxy's toxics but at the HTTP level.

Every plugin is one small class whose pydantic model is also its API JSON, a member of
the ``FaultSpec`` union; the registry ``PLUGINS`` (kind -> class) derives from it. Whether
a fault fires on a request is decided by (episode seed, request index, position in the
plan), never by wall time.
"""

from .base import Fault, Reply, StepContext
from .plan import PRESETS, FaultPlan, parse_plan, resolve_plan
from .plugins import PLUGINS, FaultSpec

__all__ = [
    "PLUGINS", "PRESETS", "Fault", "FaultPlan", "FaultSpec", "Reply", "StepContext",
    "parse_plan", "resolve_plan",
]
