"""A written episode's database kept as the pages that differ from its snapshot.

Most written episodes are not being served at any moment; holding each one's whole database
(a copy of its world, ~1.6 MB for the helpdesk's) would cost ~30x what its writes changed (a
typical write rewrites a handful of 4 KiB pages: the rows', their indexes', the change log's and
the header's). ``store.py`` keeps a bounded set of them open and the others as a
:class:`PageDiff`: their snapshot with these pages put back is their database, byte for byte, so
the state hash, the change log's sequence numbers and everything else read from it stay as if it
had stayed open.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Final

# Where SQLite's header records the page size (two bytes, big-endian; 1 stands for 65536).
_PAGE_SIZE_AT: Final = slice(16, 18)


def page_size(data: bytes) -> int:
    """The page size of the SQLite database image ``data``."""
    size = int.from_bytes(data[_PAGE_SIZE_AT], "big")
    return 65536 if size == 1 else size


@dataclass(frozen=True, slots=True)
class PageDiff:
    """A database image as its snapshot's with ``pages`` (index -> bytes) put back, cut or
    grown to ``size`` bytes. Never changed once made: episodes may share one (a fork)."""

    size: int
    page_size: int
    pages: MappingProxyType[int, bytes]

    @classmethod
    def between(cls, initial: bytes, state: bytes) -> PageDiff:
        """The pages of ``state`` that differ from ``initial``'s (all of them past its end)."""
        step, view = page_size(state), memoryview(state)  # compared in place, not copied
        pages = {at // step: bytes(view[at:at + step]) for at in range(0, len(state), step)
                 if not initial.startswith(view[at:at + step], at)}
        return cls(len(state), step, MappingProxyType(pages))

    @property
    def nbytes(self) -> int:
        """The bytes of the pages it holds."""
        return len(self.pages) * self.page_size

    def apply(self, initial: bytes) -> bytearray:
        """The database image: ``initial`` patched with the pages."""
        data = bytearray(initial[:self.size])
        data.extend(bytes(self.size - len(data)))
        for index, page in self.pages.items():
            data[index * self.page_size:(index + 1) * self.page_size] = page
        return data
