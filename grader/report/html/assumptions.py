"""An ``assumptions`` test in the HTML report: the lectures' 2 x 2 table and one match replayed.

Reads only the test's ``extra_data["assumptions"]`` (:mod:`grader.scoring.assumptions`): the
table (the student's agent beside the reference's agents), the first differing move, and one
match (the first with a differing move, else the first) as its positions. The match is drawn as
a row of small boards, one a position, the agent ``P`` and the ghost ``G`` on the grid, each
with the move made from it; the position of the first differing move is marked and followed
by both searches' values of every action. Static HTML: it needs no script, case file or
answer key.
"""

from __future__ import annotations

from typing import Any

from grader.algorithms.assumptions import SETTINGS_FIELD as ASSUMPTIONS_FIELD
from grader.feedback.assumptions import AGENT_NAMES, GHOST_NAMES, cell, lesson
from grader.report.html.page import anchor, output_html
from grader.report.html.picture import esc
from grader.scoring.results import TestResult

MAX_POSITIONS = 80  # boards drawn a match (a longer one: the first ones, then a note)


def assumption_data(test: TestResult) -> dict[str, Any] | None:
    """The test's ``extra_data["assumptions"]`` when it holds a match, else None."""
    data = (test.extra_data or {}).get(ASSUMPTIONS_FIELD)
    if not isinstance(data, dict) or not isinstance(data.get("match"), dict):
        return None
    return data


def _table_html(data: dict[str, Any]) -> list[str]:
    reference = data.get("reference") if isinstance(data.get("reference"), dict) else {}
    student = data.get("student") if isinstance(data.get("student"), dict) else {}
    ghosts = [g for g in GHOST_NAMES if any(isinstance(row, dict) and g in row
                                            for row in reference.values())]
    head = "".join(f"<th>{esc(GHOST_NAMES[g])}</th>" for g in ghosts)
    lines = ['<table class="play-summary">', f"<thead><tr><th></th>{head}</tr></thead>",
             "<tbody>"]
    for agent, words in AGENT_NAMES.items():
        ref_row = reference.get(agent) if isinstance(reference.get(agent), dict) else {}
        mine = student.get(agent) if isinstance(student.get(agent), dict) else None
        cells = []
        for ghost in ghosts:
            ref = ref_row.get(ghost) if isinstance(ref_row.get(ghost), dict) else None
            yours = (f"yours: {cell(mine.get(ghost))}<br>" if mine is not None
                     and isinstance(mine.get(ghost), dict) else "")
            cells.append(f"<td>{esc(yours).replace('&lt;br&gt;', '<br>')}"
                         f"reference: {esc(cell(ref))}</td>")
        lines.append(f"<tr><th>{esc(words)}</th>{''.join(cells)}</tr>")
    lines += ["</tbody>", "</table>"]
    try:
        sentence = lesson(reference)
    except (KeyError, TypeError):  # results written by hand or cut: no sentence
        sentence = ""
    return lines + ([f'<p class="notes">{esc(sentence)}</p>'] if sentence else [])


def _board(position: str) -> str:
    rows, _, status = position.rpartition("|")
    return "\n".join(rows.split("|")) + "\n" + status


def _match_html(data: dict[str, Any]) -> list[str]:
    match = data["match"]
    positions = [p for p in match.get("positions", []) if isinstance(p, str)]
    moves = [m for m in match.get("moves", []) if isinstance(m, (list, tuple)) and len(m) == 2]
    difference = data.get("first_difference") if isinstance(data.get("first_difference"),
                                                            dict) else None
    where = difference.get("position") if difference else None
    opponent = GHOST_NAMES.get(match.get("opponent"), "ghost")
    outcome = match.get("outcome") or "stopped"
    lines = [f'<h3>Match {esc(str(_int(match.get("index")) + 1))} against the '
             f'{esc(opponent)}: {esc(str(outcome))}, score {esc(str(match.get("score")))}</h3>',
             '<div class="chase-match" style="display:flex;flex-wrap:wrap;gap:6px">']
    for step, position in enumerate(positions[:MAX_POSITIONS]):
        move = moves[step] if step < len(moves) else None
        caption = (f"{'you' if move[0] == 'P' else 'ghost'}: {move[1]}" if move else "end")
        marked = where is not None and position == where
        style = "border:2px solid #d9822b" if marked else "border:1px solid #ccc"
        lines.append(f'<figure style="margin:0;padding:2px;{style}"><pre style="margin:0">'
                     f"{esc(_board(position))}</pre><figcaption>{step + 1}. {esc(caption)}"
                     f"{' (first difference)' if marked else ''}</figcaption></figure>")
    lines.append("</div>")
    if len(positions) > MAX_POSITIONS:
        lines.append(f'<p class="notes">The first {MAX_POSITIONS} of {len(positions)} '
                     "positions are drawn.</p>")
    if difference:
        lines += _values_html(difference)
    return lines


def _values_html(difference: dict[str, Any]) -> list[str]:
    expected = [v for v in difference.get("expected_values") or []
                if isinstance(v, (list, tuple)) and len(v) == 2]
    mine = {v[0]: v[1] for v in difference.get("values") or []
            if isinstance(v, (list, tuple)) and len(v) == 2}
    lines = ['<table class="play-summary"><thead><tr><th>action</th><th>your value</th>'
             "<th>reference value</th></tr></thead><tbody>"]
    for action, value in expected:
        yours = mine.get(action)
        lines.append(f"<tr><td>{esc(str(action))}</td><td>{esc(_g(yours))}</td>"
                     f"<td>{esc(_g(value))}</td></tr>")
    lines.append("</tbody></table>")
    return [f'<p class="facts">Your search chose <code>{esc(str(difference.get("yours")))}'
            f'</code>; the reference\'s chooses <code>{esc(str(difference.get("expected")))}'
            "</code> (the marked position).</p>", *lines]


def _g(value: Any) -> str:
    return f"{value:g}" if isinstance(value, (int, float)) and not isinstance(value, bool) \
        else "-"


def _int(value: Any) -> int:
    return value if type(value) is int else 0


def assumption_section(test: TestResult) -> list[str]:
    """The section of an ``assumptions`` test (module docstring)."""
    data = assumption_data(test) or {}
    name, _, about = test.name.partition(" (")
    return [f'<section class="case" id="{anchor(test)}">',
            f"<h2>{esc(test.number)} {esc(name)}: {test.score:g}/{test.max_score:g}</h2>",
            *([f'<p class="muted">{esc(about.removesuffix(")"))}</p>'] if about else []),
            f'<p class="facts">{esc(test.summary)}</p>',
            *_table_html(data), *(_match_html(data) if data else []),
            *output_html(test), "</section>"]


__all__ = ["assumption_data", "assumption_section"]
