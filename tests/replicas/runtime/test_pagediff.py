"""A database image kept as the pages that differ from its snapshot is that image again."""

from __future__ import annotations

import pytest

from replicas.runtime.db import connect_memory
from replicas.runtime.pagediff import PageDiff, page_size
from replicas.runtime.snapshots import load


@pytest.fixture(scope="module")
def initial() -> bytes:
    conn = connect_memory()
    conn.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
    conn.executemany("INSERT INTO notes (body) VALUES (?)", [(f"note {i}",) for i in range(2000)])
    data = conn.serialize()
    conn.close()
    return data


@pytest.mark.parametrize(("statement", "grows"), [
    ("UPDATE notes SET body = 'changed' WHERE id = 7", False),
    ("INSERT INTO notes (body) SELECT body || ' again' FROM notes", True),
    ("DELETE FROM notes WHERE id > 10", False),
])
def test_the_pages_that_differ_give_the_image_back(
        initial: bytes, statement: str, grows: bool) -> None:
    conn = load(initial)
    conn.execute(statement)
    state = conn.serialize()
    conn.close()
    diff = PageDiff.between(initial, state)
    assert bytes(diff.apply(initial)) == state
    assert (len(state) > len(initial)) == grows
    assert 0 < len(diff.pages) <= len(state) // page_size(state)
    if not grows:  # a row's update rewrites a few pages, not the database
        assert diff.nbytes < len(initial) // 2 or statement.startswith("DELETE")


def test_an_image_equal_to_its_snapshot_holds_no_page(initial: bytes) -> None:
    diff = PageDiff.between(initial, initial)
    assert not diff.pages and bytes(diff.apply(initial)) == initial


def test_a_shorter_image_is_cut(initial: bytes) -> None:
    step = page_size(initial)
    shorter = initial[:3 * step]
    assert bytes(PageDiff.between(initial, shorter).apply(initial)) == shorter
