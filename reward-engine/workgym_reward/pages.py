"""Which rowids can differ between two SQLite files that share their history.

Both states of an episode are serialized from one snapshot, so the agent's few writes leave
all but a few pages byte-identical, and comparing the files page by page is much cheaper than
comparing their rows. A row that differs lives, on each side that has it, on a table-leaf page
whose bytes differ, or on a leaf that only that side's b-tree reaches, which shows as a
differing parent page. The rowid spans of those leaves bound the rows the diff must compare.

Pages this reader cannot place (overflow chains, pointer maps, another page size or text
encoding) make :func:`changed_spans` return None: compare every row.
"""

from __future__ import annotations

from collections.abc import Iterator
from struct import unpack_from

Span = tuple[int, int]

_LEAF, _INTERIOR = 13, 5  # table b-tree page kinds
_INDEX_KINDS = frozenset({2, 10})  # index b-tree pages hold no table rows
_MAX_SPANS = 100  # past this, narrowing costs more than it saves


def changed_spans(initial: bytes, final: bytes) -> list[Span] | None:
    """Sorted, disjoint rowid spans covering every row that differs, in any table.

    The spans are not per table: applying them to every table only adds rows that compare
    equal. None when the files cannot be compared page by page.
    """
    if min(len(initial), len(final)) < 100 or not _compatible(initial, final):
        return None
    size = _page_size(initial)
    files = (_File(initial, size), _File(final, size))
    spans: list[Span] = []
    for pgno in _differing_pages(initial, final, size):
        for this, other in (files, files[::-1]):
            found = this.spans(pgno, other)
            if found is None:
                return None
            spans += found
    merged = _merge(spans)
    return merged if len(merged) <= _MAX_SPANS else None


def _compatible(a: bytes, b: bytes) -> bool:
    """Same page size, reserved bytes and text encoding: equal bytes mean equal content."""
    return a[16:21] == b[16:21] and a[56:60] == b[56:60]


def _page_size(data: bytes) -> int:
    size: int = unpack_from(">H", data, 16)[0]
    return 65536 if size == 1 else size


def _differing_pages(a: bytes, b: bytes, size: int) -> Iterator[int]:
    """1-based numbers of the pages whose bytes differ or that only one file has."""
    view = memoryview(b)

    def bisect(lo: int, hi: int) -> Iterator[int]:  # 0-based pages [lo, hi)
        if a.startswith(view[lo * size : hi * size], lo * size):
            return
        if hi - lo == 1:
            yield lo + 1
            return
        mid = (lo + hi) // 2
        yield from bisect(lo, mid)
        yield from bisect(mid, hi)

    common = min(len(a), len(b)) // size
    yield from bisect(0, common)
    yield from range(common + 1, max(len(a), len(b)) // size + 1)


def _merge(spans: list[Span]) -> list[Span]:
    merged: list[Span] = []
    for lo, hi in sorted(spans):
        if merged and lo <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(hi, merged[-1][1]))
        else:
            merged.append((lo, hi))
    return merged


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    """The SQLite varint at ``pos`` and the position after it."""
    value = 0
    for i in range(8):
        byte = data[pos + i]
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            return value, pos + i + 1
    return (value << 8) | data[pos + 8], pos + 9


class _File:
    """Read-only view of the b-tree pages of one serialized database."""

    def __init__(self, data: bytes, size: int) -> None:
        self.data = data
        self.size = size
        self.pages = len(data) // size
        self.free = self._freelist()

    def _freelist(self) -> frozenset[int]:
        free: set[int] = set()
        trunk: int = unpack_from(">I", self.data, 32)[0]
        while 0 < trunk <= self.pages and trunk not in free:
            free.add(trunk)
            base = (trunk - 1) * self.size
            following, count = unpack_from(">II", self.data, base)
            free.update(unpack_from(f">{count}I", self.data, base + 8))
            trunk = following
        return frozenset(free)

    def _header(self, pgno: int) -> int | None:
        """Offset of the b-tree header of a live page, None if the page is free or absent."""
        if pgno > self.pages or pgno in self.free:
            return None
        return (pgno - 1) * self.size + (100 if pgno == 1 else 0)

    def spans(self, pgno: int, other: _File) -> list[Span] | None:
        """Rowid spans of the rows that page ``pgno`` may hold here and not in ``other``."""
        header = self._header(pgno)
        if header is None:
            return []
        kind = self.data[header]
        if kind == _LEAF:
            return self._leaf_span(header)
        if kind == _INTERIOR:
            spans: list[Span] = []
            for child in self._children(pgno) - other._children(pgno):
                child_header = self._header(child)
                if child_header is None or self.data[child_header] != _LEAF:
                    return None
                spans += self._leaf_span(child_header)
            return spans
        return [] if kind in _INDEX_KINDS else None

    def _cells(self, header: int, pointers: int) -> tuple[int, ...]:
        """Absolute offsets of the cells of the page whose header starts at ``header``."""
        count: int = unpack_from(">H", self.data, header + 3)[0]
        base = header - header % self.size
        return tuple(base + cell for cell in unpack_from(f">{count}H", self.data, pointers))

    def _leaf_span(self, header: int) -> list[Span]:
        cells = self._cells(header, header + 8)
        if not cells:
            return []
        return [(self._rowid(cells[0]), self._rowid(cells[-1]))]

    def _rowid(self, cell: int) -> int:
        _, pos = _varint(self.data, cell)  # payload size
        rowid, _ = _varint(self.data, pos)
        return rowid - (1 << 64) if rowid >= 1 << 63 else rowid

    def _children(self, pgno: int) -> set[int]:
        header = self._header(pgno)
        if header is None or self.data[header] != _INTERIOR:
            return set()
        cells = self._cells(header, header + 12)
        children = {unpack_from(">I", self.data, cell)[0] for cell in cells}
        children.add(unpack_from(">I", self.data, header + 8)[0])
        return children
