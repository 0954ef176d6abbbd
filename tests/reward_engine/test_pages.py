from __future__ import annotations

from workgym_reward.pages import changed_spans

from .conftest import MakeDb

BIG = """
CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000)
INSERT INTO t SELECT i, printf('row %d of a table spanning many pages', i) FROM n;
"""


def test_identical_files_have_no_spans(make_db: MakeDb) -> None:
    data = make_db(BIG)

    assert changed_spans(data, data) == []


def test_a_row_update_is_narrowed_to_its_page(make_db: MakeDb) -> None:
    initial = make_db(BIG)
    final = make_db("UPDATE t SET body = 'changed' WHERE id = 2500", base=initial)

    spans = changed_spans(initial, final)

    assert spans is not None
    assert any(low <= 2500 <= high for low, high in spans)
    assert sum(high - low + 1 for low, high in spans) < 200  # a page or two, not 5000 rows


def test_appended_rows_are_covered(make_db: MakeDb) -> None:
    initial = make_db(BIG)
    final = make_db(
        "INSERT INTO t SELECT id + 5000, body FROM t WHERE id <= 300", base=initial
    )

    spans = changed_spans(initial, final)

    assert spans is not None
    assert all(any(lo <= i <= hi for lo, hi in spans) for i in range(5001, 5301))


def test_files_with_other_page_sizes_are_not_narrowed(make_db: MakeDb) -> None:
    small_pages = make_db("PRAGMA page_size = 1024; VACUUM;", BIG)

    assert changed_spans(make_db(BIG), small_pages) is None


def test_a_changed_overflow_chain_is_not_narrowed(make_db: MakeDb) -> None:
    initial = make_db(BIG, "UPDATE t SET body = printf('%.9000c', 'x') WHERE id = 7")
    final = make_db("UPDATE t SET body = printf('%.9000c', 'y') WHERE id = 7", base=initial)

    assert changed_spans(initial, final) is None
