"""An ``evaluate`` test in the HTML report: each lost match replayed move by move.

Reads the matches ``grader.scoring.play`` keeps in the test's ``extra_data["play"]`` (positions
as board ids, moves as ``[mark, action]``); a slider per match (``report.js`` drives any
``.play-replay``; without script, every board is shown in order).
"""

from __future__ import annotations

from html import escape as esc
from typing import Any

from grader.report.html.page import anchor, _output_html
from grader.scoring.results import TestResult

MAX_MATCHES = 3  # lost matches replayed a test


def _board(state_id: str) -> str:
    return "\n".join(" ".join(row) for row in state_id.split("|"))


def _match_html(match: dict[str, Any]) -> list[str]:
    positions, moves = match.get("positions") or [], match.get("moves") or []
    side, opening = str(match.get("side", "")), int(match.get("opening", 0))
    frames = []
    for number, position in enumerate(positions):
        if number < len(moves):
            mark, action = moves[number]
            who = "opening" if number < opening else ("you" if mark == side else "opponent")
            caption = f"before move {number + 1}: {mark} ({who}) plays {action}"
        else:
            caption = f"final position: you ({side}) lost"
        frames.append(f'<figure class="play-frame" data-step="{number}">'
                      f"<pre>{esc(_board(str(position)))}</pre>"
                      f"<figcaption>{esc(caption)}</figcaption></figure>")
    return ['<div class="play-replay">',
            f"<h3>Match {int(match.get('index', 0)) + 1} (you: {esc(side)}), lost</h3>",
            (f'<input type="range" class="play-step" min="0" max="{max(len(frames) - 1, 0)}" '
             f'value="{max(len(frames) - 1, 0)}" aria-label="move of the match"/>'),
            '<div class="play-frames">', *frames, "</div>", "</div>"]


def play_section(test: TestResult) -> list[str]:
    """The section of a not-passed ``evaluate`` test: summary, lost matches, the text."""
    matches = [m for m in (test.extra_data or {}).get("play") or []
               if isinstance(m, dict) and m.get("outcome") == "loss"]
    parts = [f'<section class="case" id="{anchor(test)}">',
             f"<h2>{esc(test.number)} {esc(test.name)}: {test.score:g}/{test.max_score:g}</h2>",
             f'<p class="facts">{esc(test.summary)}</p>']
    for match in matches[:MAX_MATCHES]:
        parts += _match_html(match)
    return parts + [*_output_html(test, open_=not matches), "</section>"]
