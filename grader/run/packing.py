"""A trace's ids packed: each distinct id once, and each list entry as a 4-byte index.

A search repeats its states (full tic-tac-toe minimax: 549,945 ids of 5,478 boards), so its
``generated`` and ``evaluated`` lists, written as JSON strings, cost 12 MB of text and a fresh
string object an entry when read back. Packed (:func:`pack_ids`): ``ids`` lists each distinct id
once (those of ``generated`` in first-seen order, then the rest of ``evaluated``'s), and each
list is a base64 string of little-endian 4-byte unsigned indexes into ``ids``: 3 MB, and
reading it back (:func:`unpack_ids`) makes one list of shared strings. The sandbox protocol
sends traces this way (:mod:`grader.sandbox.protocol`) and the answer key stores long ones
this way (:mod:`grader.answers.store`).

:func:`unpack_ids` takes untrusted input: it checks the size before decoding, the bytes after,
and every index against the table.
"""

from __future__ import annotations

import binascii
import operator
import sys
from array import array
from typing import Any, Iterator

_INDEX = "I" if array("I").itemsize == 4 else "L"  # 4-byte unsigned on every platform here


def pack_ids(*lists: list[str]) -> tuple[list[str], list[str]]:
    """``(ids, packed)``: the distinct ids of ``lists`` (first seen first) and each list packed."""
    seen: dict[str, None] = {}
    for ids in lists:
        seen.update(dict.fromkeys(ids))  # a key already there keeps its place
    table = list(seen)
    index = {item: n for n, item in enumerate(table)}
    return table, [pack(index, ids) for ids in lists]


def pack(index: dict[str, int], ids: list[str]) -> str:
    """``ids`` as base64 of their 4-byte little-endian positions in ``index``."""
    numbers = array(_INDEX, map(index.__getitem__, ids))
    if sys.byteorder != "little":
        numbers.byteswap()
    return binascii.b2a_base64(numbers.tobytes(), newline=False).decode("ascii")


def packed_length(count: int) -> int:
    """Characters of base64 that ``count`` indexes take."""
    return 4 * -(-4 * count // 3)


def decode_indexes(packed: str, count: int, cap: int) -> array | None:
    """The 4-byte indexes a packed list holds, or None when ``packed`` is not one: longer than
    ``cap`` indexes take (checked before decoding), not base64 exactly as :func:`pack` writes it
    (no other characters, padding only at the end), not whole 4-byte indexes, or an index of
    ``count`` or more (past its table)."""
    if type(packed) is not str or len(packed) > packed_length(cap):
        return None
    try:
        raw = binascii.a2b_base64(packed)
    except (binascii.Error, ValueError):  # not base64, or not ASCII
        return None
    # a2b_base64 skips characters outside the alphabet, and its strict_mode needs Python 3.11
    # (Gradescope runs 3.10): only the canonical encoding of what was decoded is accepted
    if len(raw) % 4 or not _canonical(raw, packed):
        return None
    numbers = array(_INDEX)
    numbers.frombytes(raw)
    if sys.byteorder != "little":
        numbers.byteswap()
    if numbers and max(numbers) >= count:
        return None
    return numbers


def unpack_ids(packed: str, table: list[str], cap: int) -> list[str] | None:
    """The ids a packed list names, or None when ``packed`` is not one (:func:`decode_indexes`).
    Entries are ``table``'s own strings (shared, not copies)."""
    numbers = decode_indexes(packed, len(table), cap)
    return None if numbers is None else list(map(table.__getitem__, numbers))


_CHUNK = 3 * 2**16  # bytes re-encoded at a time by _canonical (a multiple of 3)


def _canonical(raw: bytes, packed: str) -> bool:
    """Whether ``packed`` is exactly :func:`pack`'s encoding of ``raw``: compared a chunk at a
    time, so that checking a 3 MB trace does not build its 4 MB encoding (twice) beside it."""
    if len(packed) != 4 * -(-len(raw) // 3):
        return False
    view = memoryview(raw)
    for start in range(0, len(raw), _CHUNK):
        encoded = binascii.b2a_base64(view[start:start + _CHUNK], newline=False)
        at = start // 3 * 4
        if encoded.decode("ascii") != packed[at:at + len(encoded)]:
            return False
    return True


class PackedIds:
    """A list of ids kept packed: its ``table`` of distinct ids and an ``array`` of 4-byte
    indexes into it (4 bytes an entry instead of an 8-byte pointer, and no list until
    :meth:`unpack`). The answer key holds its long traces this way between lookups."""

    __slots__ = ("table", "indexes")

    def __init__(self, table: list[str], indexes: array) -> None:
        self.table, self.indexes = table, indexes

    def __len__(self) -> int:
        return len(self.indexes)

    def __eq__(self, other: object) -> bool:
        """Equal to the same ids, packed or a list (compared id by id, no list built)."""
        if type(other) is not list and not isinstance(other, PackedIds):
            return NotImplemented
        return len(other) == len(self.indexes) and all(map(operator.eq, self, other))

    def __iter__(self) -> Iterator[str]:
        return map(self.table.__getitem__, self.indexes)

    def __getitem__(self, index: int | slice) -> Any:
        """An id, or a slice's ids as a list."""
        if isinstance(index, slice):
            return list(map(self.table.__getitem__, self.indexes[index]))
        return self.table[self.indexes[index]]

    def head(self, count: int) -> PackedIds:
        """The first ``count`` ids, still packed."""
        return self if count >= len(self.indexes) else PackedIds(self.table,
                                                                  self.indexes[:count])

    __hash__ = None  # type: ignore[assignment]  (mutable, like the list it stands for)

    def unpack(self) -> list[str]:
        """The list (entries are the table's own strings)."""
        return list(map(self.table.__getitem__, self.indexes))

    def encode(self) -> str:
        """The indexes as :func:`pack` writes them (base64 of little-endian 4-byte numbers)."""
        numbers = self.indexes
        if sys.byteorder != "little":
            numbers = array(_INDEX, numbers)
            numbers.byteswap()
        return binascii.b2a_base64(numbers.tobytes(), newline=False).decode("ascii")


__all__ = ["PackedIds", "decode_indexes", "pack", "pack_ids", "packed_length", "unpack_ids"]
