"""The text of a case file: JSON with positions, and errors that point into it.

Owns the first checking layer (JSON syntax, an empty file, a key given twice,
``NaN``/``Infinity``: :func:`parse_case_text`) and the error plumbing every layer shares: a
:class:`~grader.errors.CaseError` built from a JSON path (:func:`case_error`), given its
line:column from the parsed positions (:func:`locate`), and put in file order
(:func:`sort_errors`). Knows nothing of what a case means.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grader.cases.json_hints import syntax_message
from grader.errors import CaseError

JsonPath = tuple  # ("tree", "children", 1, "value"): str keys, int indexes


# --- errors with JSON paths ---------------------------------------------------------------


def format_path(parts: Iterable[Any]) -> str:
    """``("tree", "children", 1)`` -> ``$.tree.children[1]``; odd keys are quoted."""
    text = "$"
    for part in parts:
        if isinstance(part, int):
            text += f"[{part}]"
        elif re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", part):
            text += f".{part}"
        else:
            text += f"[{json.dumps(part)}]"
    return text


def place(error: CaseError, line: int | None, column: int | None) -> CaseError:
    """Set where ``error`` is in its file (the message text follows)."""
    error.line, error.column = line, column
    error.args = (f"{error.location()}: {error.message}",)
    return error


def case_error(message: str, parts: Iterable[Any] = (), file: str | None = None) -> CaseError:
    """A :class:`CaseError` that remembers its JSON path as parts, for :func:`locate`."""
    parts = tuple(parts)
    error = CaseError(message, file=file, path=format_path(parts))
    error.json_path = parts  # type: ignore[attr-defined]
    return error


# --- the text: JSON with positions ----------------------------------------------------------


@dataclass
class ParsedText:
    """A case file's text parsed: the data, where each JSON path starts, and text errors."""

    data: Any = None
    positions: Mapping[JsonPath, tuple[int, int]] = field(default_factory=dict)
    errors: list[CaseError] = field(default_factory=list)


class Positions(Mapping):
    """Where each JSON path starts in a text known to be JSON, as (line, column), 1-based.

    Computed on first use: finding every value's place is a Python scan of the whole text
    (seconds for a 10^6-node case), and it is only needed when an error is reported. The root
    and its members (``$schema``, ``name``, ...) are found without it: a pass over the top
    level, each member's value skipped by the C decoder (a warning about ``$schema`` must not
    scan a whole tree).
    """

    def __init__(self, text: str) -> None:
        self._text = text
        self._places: dict[JsonPath, tuple[int, int]] | None = None
        self._top: dict[JsonPath, tuple[int, int]] | None = None
        self.problems: list[tuple[JsonPath, tuple[int, int], str]] = []  # keys twice, NaN

    def _where(self, offsets: Iterable[tuple[Any, int]]) -> dict[Any, tuple[int, int]]:
        """``{key: (line, column)}`` of ``(key, offset)`` pairs."""
        line_starts = [0] + [m.end() for m in re.finditer("\n", self._text)]
        found = {}
        for key, offset in offsets:
            line = bisect.bisect_right(line_starts, offset)
            found[key] = (line, offset - line_starts[line - 1] + 1)
        return found

    def _computed(self) -> dict[JsonPath, tuple[int, int]]:
        if self._places is None:
            offsets: dict[JsonPath, int] = {}
            problems: list[tuple[JsonPath, int, str]] = []
            _scan(self._text, offsets, problems)
            self._places = self._where(offsets.items())
            places = self._where((i, offset) for i, (_, offset, _) in enumerate(problems))
            self.problems = [(parts, places[i], message)
                             for i, (parts, _, message) in enumerate(problems)]
        return self._places

    def _top_level(self) -> dict[JsonPath, tuple[int, int]]:
        if self._places is not None:
            return self._places
        if self._top is None:
            top = _scan_top(self._text)
            if top is None:
                return self._computed()
            self._top = self._where(top.items())
        return self._top

    def _table(self, parts: object) -> dict[JsonPath, tuple[int, int]]:
        shallow = isinstance(parts, tuple) and len(parts) <= 1
        return self._top_level() if shallow else self._computed()

    def __getitem__(self, parts: JsonPath) -> tuple[int, int]:
        return self._table(parts)[parts]

    def __contains__(self, parts: object) -> bool:
        return parts in self._table(parts)

    def __iter__(self) -> Iterator[JsonPath]:
        return iter(self._computed())

    def __len__(self) -> int:
        return len(self._computed())

    def __bool__(self) -> bool:
        return True  # the root always has a place; ``positions or {}`` must not scan


class _Suspect(Exception):
    """Raised by the parser's hooks: a key given twice or a NaN, for the full scan to report."""


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    data = dict(pairs)
    if len(data) != len(pairs):
        raise _Suspect
    return data


def _no_constant(word: str) -> Any:
    raise _Suspect


def _parse(text: str) -> tuple[Any, bool]:
    """The JSON data, and whether it has a key given twice or a NaN (the parser's hooks see
    both, so a clean file needs no Python scan); raises json.JSONDecodeError."""
    try:
        return json.loads(text, object_pairs_hook=_unique_pairs, parse_constant=_no_constant), False
    except _Suspect:
        return json.loads(text), True


_NUMBER_OR_WORD = re.compile(
    r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?|true|false|null|NaN|-?Infinity"
)
_WHITESPACE = re.compile(r"[ \t\n\r]*")


def parse_case_text(text: str, file: str | None = None) -> ParsedText:
    """Parse a case file's text; positions map JSON paths to (line, column), both 1-based.

    A member's position is its key's (where the TA looks: ``"value": 3``); an array item's is
    its first character.
    """
    parsed = ParsedText()
    if not text.strip():
        parsed.errors.append(case_error(
            "the file is empty; a case is one JSON object: copy a case from trees/public/ "
            "and edit it (see docs/cases.md)", (), file))
        return parsed
    try:
        parsed.data, suspect = _parse(text)
    except json.JSONDecodeError as error:
        detail, offset = syntax_message(error)
        line = error.doc.count("\n", 0, offset) + 1
        column = offset - (error.doc.rfind("\n", 0, offset) + 1) + 1
        parsed.errors.append(CaseError(f"not valid JSON: {detail}", file=file,
                                       path="$", line=line, column=column))
        return parsed
    parsed.positions = positions = Positions(text)
    if suspect:
        positions._computed()
        for parts, (line, column), message in positions.problems:
            parsed.errors.append(place(case_error(message, parts, file), line, column))
    return parsed


def _scan_top(text: str) -> dict[JsonPath, int] | None:
    """Where the root and each of its members start (text already known to be JSON; None when
    the root is not an object); the members' values are skipped by the C decoder, not walked."""
    skip = _WHITESPACE.match
    decode = json.JSONDecoder().raw_decode
    i = skip(text, 0).end()
    if text[i] != "{":
        return None  # not an object: the full scan has every place
    offsets: dict[JsonPath, int] = {(): i}
    i = skip(text, i + 1).end()
    while text[i] != "}":
        key, end = json.decoder.scanstring(text, i + 1)
        offsets[(key,)] = i  # a key given twice: the last, as the full scan and JSON
        i = skip(text, end).end() + 1  # past ":"
        i = skip(text, decode(text, skip(text, i).end())[1]).end()
        if text[i] == ",":
            i = skip(text, i + 1).end()
    return offsets


def _scan(text: str, offsets: dict[JsonPath, int], problems: list) -> None:
    """Record where each value starts (text already known to be JSON), duplicate keys, NaN."""

    def skip(i: int) -> int:
        return _WHITESPACE.match(text, i).end()

    def value(i: int, parts: JsonPath) -> int:
        i = skip(i)
        offsets.setdefault(parts, i)
        char = text[i]
        if char == "{":
            i = skip(i + 1)
            if text[i] == "}":
                return i + 1
            seen: set[str] = set()
            while True:
                i = skip(i)
                key_start = i
                key, i = json.decoder.scanstring(text, i + 1)
                member = parts + (key,)
                if key in seen:
                    message = (f"the key {key!r} is given twice in this object; JSON keeps "
                               "only the last one: remove one")
                    problems.append((member, key_start, message))
                seen.add(key)
                offsets[member] = key_start
                i = value(skip(i) + 1, member)
                i = skip(i)
                if text[i] == "}":
                    return i + 1
                i += 1  # ","
        if char == "[":
            i = skip(i + 1)
            if text[i] == "]":
                return i + 1
            index = 0
            while True:
                i = skip(value(i, parts + (index,)))
                index += 1
                if text[i] == "]":
                    return i + 1
                i += 1  # ","
        if char == '"':
            return json.decoder.scanstring(text, i + 1)[1]
        match = _NUMBER_OR_WORD.match(text, i)
        word = match.group()
        if word in ("NaN", "Infinity", "-Infinity"):
            problems.append((parts, i, f"{word} is not a JSON number; write a finite number"))
        return match.end()

    value(0, ())


def locate(errors: Iterable[CaseError], positions: dict[JsonPath, tuple[int, int]]) -> None:
    """Fill in line:column of each error from its JSON path (the deepest known prefix)."""
    for error in errors:
        if error.line is not None:
            continue
        parts = getattr(error, "json_path", ())
        for end in range(len(parts), -1, -1):
            if parts[:end] in positions:
                place(error, *positions[parts[:end]])
                break



def sort_errors(errors: list[CaseError]) -> list[CaseError]:
    """Errors in file order (those without a line last), stable; an error that ``follows``
    another (a side effect of it: :func:`grader.cases.schema.schema_errors`) right after it."""

    def key(error: CaseError) -> tuple:
        cause = getattr(error, "follows", None)
        placed = cause if cause is not None and cause in errors else error
        return (placed.line is None, placed.line or 0, placed.column or 0, placed is not error)

    return sorted(errors, key=key)


def first_error(errors: list[CaseError]) -> CaseError:
    """The error to raise for ``errors``: the first in file order, saying how many follow;
    its ``errors`` attribute holds them all, sorted."""
    errors = sort_errors(errors)
    first = errors[0]
    if len(errors) == 1:
        raised = first
    else:
        more = len(errors) - 1
        raised = CaseError(f"{first.message} (and {more} more error{'s' if more > 1 else ''}: "
                           "run `grader validate` on this file)", file=first.file,
                           path=first.path, line=first.line, column=first.column)
    raised.errors = errors  # type: ignore[attr-defined]
    return raised


def read_case_text(path: Path) -> tuple[str | None, list[CaseError]]:
    """The file's text, or the error that it cannot be read as UTF-8."""
    try:
        return path.read_text(encoding="utf-8-sig"), []
    except UnicodeDecodeError as error:
        return None, [CaseError(f"the file is not UTF-8 text ({error.reason} at byte "
                                f"{error.start}); save it as UTF-8", file=str(path))]
    except OSError as error:
        return None, [CaseError(f"cannot read the file: {error.strerror}", file=str(path))]

