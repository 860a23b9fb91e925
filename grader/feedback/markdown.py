"""Text a test shows, made safe for Gradescope's Markdown and for results.json.

Student text (what their code printed, an exception's message, a returned value) is fenced with
a fence longer than any run of backticks inside it, so no text can close the block early and
render the rest as headings, links or HTML (CommonMark: a block closes only at a fence of the
same character at least as long as the opening one).

A table is written once, as Markdown (:func:`table`: each cell's ``|`` escaped, as the ids of
a board hold them), and shown as text aligned in columns wherever Markdown is not rendered (the
terminal, PrairieLearn's ``<pre>``, a log): :func:`aligned_tables` reads the Markdown rows back
(:func:`table_cells`), so both views come from the same table.

NUL characters and lone surrogates (``\\udcff``: what ``surrogateescape`` makes of undecodable
bytes) cannot stand in results.json as text: :func:`clean_text` replaces each with U+FFFD and
counts them, so the results can say so (:data:`REPLACED_NOTE`).

Student text shown inline, outside a fence (a worker's message, which code in search.py can
forge on the grader's channel), goes through :func:`inline_text`: one line, no control or
format characters (ANSI escapes, bidi overrides), Markdown's and HTML's inline syntax escaped;
a function's name through :func:`code_name`, which takes only an identifier.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Callable

MIN_FENCE = 3
_BACKTICKS = re.compile(r"`+")
_UNSHOWABLE = re.compile("[\x00\ud800-\udfff]")
REPLACEMENT = "\ufffd"
REPLACED_NOTE = ("({count} character(s) that results cannot hold, NUL or unpaired surrogates, "
                 f"were replaced with {REPLACEMENT}.)")


def fence_for(text: str) -> str:
    """A backtick fence longer than the longest run of backticks in ``text`` (at least 3)."""
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    return "`" * max(MIN_FENCE, longest + 1)


def fenced(text: str) -> str:
    """``text`` as one fenced code block (no trailing newline)."""
    fence = fence_for(text)
    return f"{fence}\n{text}\n{fence}"


def fenced_lines(lines: list[str]) -> list[str]:
    """``lines`` as a fenced code block, one list item a line."""
    fence = fence_for("\n".join(lines))
    return [fence, *lines, fence]


def clean_text(text: str) -> tuple[str, int]:
    """``text`` with every NUL and lone surrogate replaced by U+FFFD, and how many were."""
    return _UNSHOWABLE.subn(REPLACEMENT, text)


def may_need_cleaning(data: object) -> bool:
    """Whether :func:`clean_text` could replace anything in a string of ``data`` (JSON-like:
    strings, numbers, dicts, lists and tuples; anything else is opaque, as
    :func:`grader.scoring.results.clean_data` leaves it), keys included: one pass of the C JSON
    encoder (a NUL comes out as ``\\u0000``, a lone surrogate as itself) instead of a Python
    call a string. True also where it cannot tell (a key that is not a string, a cycle) or
    where a string holds the six characters ``\\u0000``: the caller then cleans string by
    string."""
    try:
        text = json.dumps(data, ensure_ascii=False, default=lambda _: None)
    except (TypeError, ValueError, RecursionError):
        return True
    return "\\u0000" in text or _UNSHOWABLE.search(text) is not None


_LINE_BREAKS = re.compile("[\r\n\v\f\x1c-\x1e\x85\u2028\u2029]+")
# Code, emphasis, links and images, HTML and entities. Not "_" (intraword, as in os._exit, it is
# no emphasis), "|" and "~" (a game's ids hold them: xo.|.x.|..o), which make no HTML or link.
_INLINE_SYNTAX = re.compile(r"([\\`*\[\]<>&])")
MAX_INLINE = 2000


def inline_text(text: str, limit: int = MAX_INLINE) -> str:
    """``text`` as inert inline Markdown: one line of at most ``limit`` characters, without
    control or format characters, every character of inline syntax backslash-escaped (so it
    shows as itself: ``a*b`` stays ``a*b``, ``<img>`` is text, not HTML)."""
    text = _LINE_BREAKS.sub(" ", str(text))
    text = "".join(" " if char == "\t" else char for char in text
                   if char == "\t" or unicodedata.category(char) not in ("Cc", "Cf", "Cs"))
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return _INLINE_SYNTAX.sub(r"\\\1", text)


def code_name(name: object, default: str = "the function") -> str:
    """A function's name as inline code (`` `alpha_beta` ``), or ``default`` when ``name`` is
    not an ASCII identifier (a forged reply's)."""
    if isinstance(name, str) and name.isascii() and name.isidentifier() and len(name) <= 100:
        return f"`{name}`"
    return default


_FENCE_LINE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_BOLD = re.compile(r"\*\*(.+?)\*\*")
_CODE_SPAN = re.compile(r"(`+)(.+?)\1")
_ESCAPED = re.compile(r"\\([\\`*\[\]<>&_#|~-])")
_ASIDE = re.compile("\0([0-9]+)\0")
_HEADING = re.compile(r"^#{1,6} +")
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def plain_text(markdown: str) -> str:
    """The feedback's Markdown as the plain text a platform shows in ``<pre>`` (PrairieLearn's
    results element) or a log (GitHub Classroom's reporter): fence lines dropped and what they
    held kept as it was (student text, drawn trees); outside them, ``**bold**`` and `` `code` ``
    marks and the backslash escapes of :func:`inline_text` removed, so nothing shows a Markdown
    character that is not the text's own. Control characters but line breaks and tabs are
    dropped everywhere (no colours or cursor moves of a submission's making)."""
    lines, fence, outside = [], "", []
    for line in _CONTROL.sub("", markdown).splitlines():
        opened = _FENCE_LINE.match(line)
        if fence:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence) \
                    and not line.strip().strip(fence[0]):
                fence = ""
            else:
                lines.append(line)
            continue
        if opened:
            lines += aligned_tables(outside, _plain_line)
            outside = []
            fence = opened.group(1)
            continue
        outside.append(line)
    lines += aligned_tables(outside, _plain_line)
    return "\n".join(lines)


def unmarked_line(line: str, keep_bold: bool = False) -> str:
    """One line outside a fence without its Markdown marks (a heading's ``#``, code spans'
    backticks, backslash escapes; ``**bold**`` too unless ``keep_bold``, for a renderer that
    shows bold its own way, as the terminal's)."""
    return _plain_line(line.replace("\0", ""), keep_bold)


def _plain_line(line: str, keep_bold: bool = False) -> str:
    """One line outside a fence without its Markdown marks; escaped characters stand aside
    (as ``\\0N\\0``: :func:`plain_text` dropped every NUL) while the marks go."""
    escaped: list[str] = []

    def aside(match: re.Match) -> str:
        escaped.append(match.group(1))
        return f"\0{len(escaped) - 1}\0"

    line = _HEADING.sub("", _ESCAPED.sub(aside, line))
    line = _CODE_SPAN.sub(lambda m: m.group(2).strip(" ") or m.group(0), line)
    if not keep_bold:
        line = _BOLD.sub(r"\1", line)
    return _ASIDE.sub(lambda m: escaped[int(m.group(1))], line)



# --- tables: written as Markdown, shown aligned where Markdown is not rendered ----------------

_ROW = re.compile(r"^\s*\|.*\|\s*$")
_RULE_CELL = re.compile(r"^\s*:?-{3,}:?\s*$")
_UNESCAPED_PIPE = re.compile(r"(?<!\\)\|")
_NUMBER = re.compile(r"^[-+]?[0-9][0-9.,]*(%| points?)?$")
COLUMN_GAP = "  "


def table(header: list[str], rows: list[list[str]]) -> list[str]:
    """A Markdown table: the header, its rule, a line a row; a ``|`` in a cell escaped (GFM
    shows ``\\|`` as ``|``, inside code spans too)."""

    def row(cells: list[str]) -> str:
        return "| " + " | ".join(str(cell).replace("|", "\\|") for cell in cells) + " |"

    return [row(header), "| " + " | ".join("---" for _ in header) + " |", *map(row, rows)]


def table_cells(line: str) -> list[str] | None:
    """A Markdown table row's cells, their ``\\|`` unescaped; None when ``line`` is no row."""
    if not _ROW.match(line):
        return None
    inner = line.strip()[1:-1]
    return [cell.strip().replace("\\|", "|") for cell in _UNESCAPED_PIPE.split(inner)]


def _text_table(rows: list[list[str]]) -> list[str]:
    """Rows (the header first) aligned in columns, a rule of dashes under the header; a column
    of numbers right-aligned."""
    rows = [[_plain_line(cell) for cell in row] for row in rows]
    count = max(len(row) for row in rows)
    rows = [row + [""] * (count - len(row)) for row in rows]
    widths = [max(len(row[c]) for row in rows) for c in range(count)]
    numeric = [len(rows) > 1 and all(_NUMBER.match(row[c]) for row in rows[1:] if row[c])
               for c in range(count)]

    def line(cells: list[str]) -> str:
        return COLUMN_GAP.join(cell.rjust(w) if right else cell.ljust(w)
                               for cell, w, right in zip(cells, widths, numeric)).rstrip()

    return [line(rows[0]), COLUMN_GAP.join("-" * w for w in widths), *map(line, rows[1:])]


def aligned_tables(lines: list[str], other: Callable[[str], str] = str) -> list[str]:
    """``lines`` (Markdown) with each table (a header row, then its ``| --- |`` rule, then rows)
    as text aligned in columns, its cells without Markdown marks (:func:`table`'s other view);
    every other line through ``other`` (as it is, by default)."""
    out: list[str] = []
    index = 0
    while index < len(lines):
        header = table_cells(lines[index])
        rule = table_cells(lines[index + 1]) if index + 1 < len(lines) else None
        if header is None or rule is None or not all(_RULE_CELL.match(c) for c in rule):
            out.append(other(lines[index]))
            index += 1
            continue
        rows, index = [header], index + 2
        while index < len(lines) and (cells := table_cells(lines[index])) is not None:
            rows.append(cells)
            index += 1
        out += _text_table(rows)
    return out
