"""The statement reader on the labelled corpus (tests/speech/corpus): of the statements it
does not abstain on, it reads at least 99% right, overall and in every language; it reads
most of what it should. The figures per claim type and language are printed at the end of
the run (``python -m tests.speech.figures`` prints them alone)."""

from __future__ import annotations

import pytest

from tests.speech.corpus.build import LANGS, corpus
from tests.speech.figures import figures, outcomes

PRECISION = 0.99
RECALL = 0.70


def test_the_corpus_is_large_and_covers_every_language() -> None:
    items = corpus()
    assert len(items) >= 2000
    assert {item["language"] for item in items} == set(LANGS)


def test_precision_overall() -> None:
    table = figures("language")
    wrong = [o for o in outcomes() if not o.abstained and not o.correct]
    assert table["all"].precision >= PRECISION, "\n".join(
        f"{o.item['text']!r}: label {o.item['label']}, read {o.got}" for o in wrong[:20])


@pytest.mark.parametrize("language", LANGS)
def test_precision_in_every_language(language: str) -> None:
    assert figures("language")[language].precision >= PRECISION


def test_recall() -> None:
    assert figures("language")["all"].recall >= RECALL


def test_hedged_and_unreadable_statements_are_never_read_as_certain() -> None:
    confident = [o for o in outcomes() if not o.abstained and not o.correct
                 and (o.item["label"]["hedged"] or o.item["label"]["kind"] == "unreadable")]
    share = len(confident) / max(1, sum(
        o.item["label"]["hedged"] or o.item["label"]["kind"] == "unreadable"
        for o in outcomes()))
    assert share <= 1 - PRECISION, [o.item["text"] for o in confident[:10]]
