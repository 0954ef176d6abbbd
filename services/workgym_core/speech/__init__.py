"""Reading what an agent says: statements, not keywords.

:func:`read` splits a message into statements and reads each into a claim (from the apps'
lexicons), its polarity and modality, and the entities it is about; whatever it cannot read
with confidence it says so (:class:`Kind.UNREADABLE`, or ``hedged``). The reward engine judges
the statements against the case; the scripted customer answers the ones it cannot read: one
reader for both.

* :mod:`.model`: statements and entities; :mod:`.cues`: the languages' cues (language.yaml);
* :mod:`.entities`: money, dates, ids, names ...; :mod:`.lexicon`: the apps' claims;
* :mod:`.reader`: the reading; :mod:`.say`: saying statements again (paraphrases, mutants,
  a customer's question back).
"""

from functools import cache

from .lexicon import ClaimType, Lexicon, Names
from .lexicon import of as lexicon_of
from .model import Entity, Kind, Modality, Polarity, Reading, Statement
from .reader import Reader


@cache
def reader(lexicon: Lexicon) -> Reader:
    """The reader of ``lexicon`` (one per process)."""
    return Reader(lexicon)


__all__ = ["ClaimType", "Entity", "Kind", "Lexicon", "Modality", "Names", "Polarity",
           "Reader", "Reading", "Statement", "lexicon_of", "reader"]
