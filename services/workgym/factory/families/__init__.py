"""The family kinds: each turns an app's rules into candidate tasks
(:class:`..synthesis.Family`). The same code serves every app; what differs is the rules file."""

from __future__ import annotations

from workgym_core.errors import ConfigError

from ..synthesis import Family
from .assign import Assign
from .cross_act_tell import CrossActTell
from .cross_settle import CrossSettle
from .decision import Decision
from .follow_up import FollowUp
from .guarded_act import GuardedAct
from .link import LinkRecords
from .lookup_act import LookupAct
from .lookup_act_tell import LookupActTell
from .merge import Merge
from .question import Question
from .sweep import SweepFamily

FAMILIES: tuple[Family, ...] = (LookupActTell(), LookupAct(), Decision(), Question(),
                                SweepFamily(), LinkRecords(), FollowUp(), Assign(),
                                CrossActTell(), CrossSettle(), GuardedAct(), Merge())


def named(names: list[str] | None) -> list[Family]:
    """The families called ``names`` (all of them for None); ConfigError naming an unknown
    one."""
    known = {family.name: family for family in FAMILIES}
    if not names:
        return list(FAMILIES)
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ConfigError(f"no family {', '.join(unknown)} (known: {', '.join(known)})")
    return [known[n] for n in names]
