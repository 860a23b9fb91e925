"""Text a test shows, made safe for Gradescope's Markdown and for results.json.

Student text (what their code printed, an exception's message, a returned value) is fenced with
a fence longer than any run of backticks inside it, so no text can close the block early and
render the rest as headings, links or HTML (CommonMark: a block closes only at a fence of the
same character at least as long as the opening one).

NUL characters and lone surrogates (``\\udcff``: what ``surrogateescape`` makes of undecodable
bytes) cannot stand in results.json as text: :func:`clean_text` replaces each with U+FFFD and
counts them, so the results can say so (:data:`REPLACED_NOTE`).
"""

from __future__ import annotations

import re

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
