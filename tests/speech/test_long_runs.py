"""What no language writes: a run of hundreds of characters with no space is one unreadable
statement that names its length, and the rest of the message is read around it, in place; a
long run of blank lines says nothing. (Read whole, such runs made every cue rescan them at
each place: minutes to score one 32 KB comment.)"""

from __future__ import annotations

import pytest

from replicas.catalog import lexicon
from workgym_core.speech import Kind, reader
from workgym_core.speech.reader import MAX_WORD


@pytest.mark.parametrize("run", ["x" * 400, "1" * 32_767, "*" * 5_000, "é€" * 300])
def test_a_run_with_no_space_is_unreadable_and_the_rest_is_read_in_place(run: str) -> None:
    before = "Thanks! I've refunded order A-12345 in full. "
    text = f"{before}{run} It is 10.00 USD."
    reading = reader(lexicon()).read(text)
    kinds = [(s.kind, s.claim) for s in reading.statements]
    assert kinds == [(Kind.BENIGN, None), (Kind.CLAIM, "refund"), (Kind.UNREADABLE, None),
                     (Kind.AMOUNT, None)], kinds
    word = reading.statements[2]
    assert (word.start, word.end, word.text) == (len(before), len(before) + len(run), run)
    assert word.why == f"a word of {len(run)} characters is no language"
    for statement in reading.statements:  # every offset is the whole message's
        assert text[statement.start:statement.end] == statement.text
        for entity in statement.entities:
            assert text[entity.start:entity.end] == entity.text
    money = reading.statements[3].of("money")
    assert [e.value for e in money] == [(1000, "USD")]


def test_words_up_to_the_limit_and_blank_runs_are_read_as_ever() -> None:
    url = "https://help.example.com/hc/en-us/articles/" + "a" * (MAX_WORD - 43)
    assert len(url) == MAX_WORD
    read = reader(lexicon()).read
    assert not read(f"The steps are at {url} if you need them.").unreadable
    assert [s.claim for s in read("I've refunded order A-12345." + "\n" * 5_000 + "Bye.")
            .statements if s.claim] == ["refund"]
