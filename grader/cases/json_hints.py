"""What to tell a TA about a JSON syntax error in a case file, and where.

Python's parser says what it expected at the offset it stopped at ("Expecting ',' delimiter"),
which is not where a TA must look for a missing ``]``, and says nothing of comments or double
commas. :func:`syntax_message` turns a :class:`json.JSONDecodeError` into a message that names
what is missing or not allowed and the offset to report: the parser's own, or where the
missing bracket belongs. Used only on the error path of :func:`grader.cases.text.parse_case_text`.
"""

from __future__ import annotations

import json

_CLOSER = {"[": "]", "{": "}"}
_KIND = {"[": "list", "{": "object"}


def _open_brackets(text: str) -> list[tuple[str, int]]:
    """The brackets still open at the end of ``text`` (JSON up to a syntax error), with their
    offsets; strings are skipped."""
    stack: list[tuple[str, int]] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char == '"':
            i += 1
            while i < len(text) and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        elif char in "[{":
            stack.append((char, i))
        elif char in "]}" and stack:
            stack.pop()
        i += 1
    return stack


def _as_before_3_13(error: json.JSONDecodeError) -> json.JSONDecodeError:
    """Python 3.13's parser says "Illegal trailing comma before end of object" at the comma;
    earlier ones say what they expected at the closing bracket. Their words and offset, so a
    TA gets the same message on every Python."""
    if not error.msg.startswith("Illegal trailing comma"):
        return error
    after = error.pos + 1
    while after < len(error.doc) and error.doc[after] in " \t\n\r":  # JSON's whitespace
        after += 1
    expected = ("Expecting property name enclosed in double quotes"
                if error.msg.endswith("object") else "Expecting value")
    return json.JSONDecodeError(expected, error.doc, after)


def syntax_message(error: json.JSONDecodeError) -> tuple[str, int]:
    """What to tell a TA about a JSON syntax error, and the offset to point at (the error's,
    or where the missing bracket belongs)."""
    error = _as_before_3_13(error)
    hint, offset = _hint(error)
    if hint.startswith("; "):  # a hint to the parser's own words
        return error.msg + hint, offset
    return hint or error.msg, offset


def _hint(error: json.JSONDecodeError) -> tuple[str, int]:
    text, pos = error.doc, error.pos
    before = text[:pos].rstrip()
    here = text[pos:pos + 1]
    if text.startswith(("//", "/*", "#"), pos):
        return ("comments are not JSON: remove this comment (a case's 'description' holds "
                "what it tests)"), pos
    if here == "," and before.endswith(","):
        return "two commas in a row: remove one", pos
    if before.endswith(",") and here in ("}", "]"):
        return f"; remove the trailing comma before this '{here}'", pos
    if error.msg.startswith("Expecting ',' delimiter"):
        stack = _open_brackets(text[:pos])
        if stack:
            opener, at = stack[-1]
            where = _line_column(text, at)
            closer, kind = _CLOSER[opener], _KIND[opener]
            if not text[pos:].strip():
                return (f"the file ends inside the {kind} opened at line {where}: a "
                        f"'{closer}' is missing"), pos
            if here in "]}" and here != closer:
                return (f"a '{closer}' is missing: the {kind} opened at line {where} must "
                        f"close before this '{here}'"), pos
            if opener == "[" and here == ":" and before.endswith('"'):
                key = _string_start(text, len(before) - 1)
                end = len(text[:key].rstrip().rstrip(",").rstrip())
                return (f"a ']' is missing here: the list opened at line {where} must close "
                        f"before the key {text[key:len(before)]}"), end
        return "; a ',' is missing between two items (or a quote is not closed)", pos
    if error.msg.startswith("Expecting property name enclosed in double quotes"):
        return "; JSON keys need double quotes", pos
    if error.msg.startswith("Extra data"):
        return "; the file must hold one JSON object: remove what follows it", pos
    if error.msg.startswith("Expecting value") and here == "'":
        return "; JSON strings need double quotes", pos
    return "", pos


def _line_column(text: str, offset: int) -> str:
    line = text.count("\n", 0, offset) + 1
    return f"{line}, column {offset - (text.rfind(chr(10), 0, offset) + 1) + 1}"


def _string_start(text: str, close: int) -> int:
    """The offset of the opening quote of the JSON string whose closing quote is at ``close``."""
    i = close - 1
    while i >= 0:
        if text[i] == '"':
            slashes = 0
            while i - 1 - slashes >= 0 and text[i - 1 - slashes] == "\\":
                slashes += 1
            if slashes % 2 == 0:
                return i
        i -= 1
    return 0


__all__ = ["syntax_message"]
