"""An ``evaluate`` test in the HTML report: the case's score, and every match on a board.

Reads only the test's ``extra_data``: ``play``, the match records
(:func:`grader.feedback.records.records_data`), and ``play_summary``, the score and thresholds
(:func:`grader.feedback.records.summary_data`; results written before it have none, and the
table then says what the records do). No case file, answer key or reference is needed, so any
command that writes these records gets the same section from :func:`play_section`.

A section: the wins, draws and losses by side and the thresholds reached; then every match
(lost ones open, the others folded), each a board (:mod:`grader.report.html.board`) with a
slider over its moves, opening at the student's losing choice: the move their search made
and the one it would have made with the staff's evaluation ringed on the board, and both
evaluations' values of every move there beside it. ``report.js`` steps any ``.play-match``;
without the script the board shows the position it opens at.
"""

from __future__ import annotations

from typing import Any

from grader.feedback.play import value_text
from grader.report.html.board import Match, MatchError, board_svg, replay_match
from grader.report.html.page import anchor, output_html, script_json
from grader.report.html.picture import esc
from grader.scoring.results import TestResult

MAX_DRAWN = 20  # matches drawn a test; the others are listed
OUTCOME_WORDS = {"win": "won", "draw": "drawn", "loss": "lost"}
SIDES = (("x", "x (moves first)"), ("o", "o (moves second)"))


def play_records(test: TestResult) -> list[dict[str, Any]]:
    """The test's match records (``extra_data["play"]``), those that are objects."""
    records = (test.extra_data or {}).get("play")
    return [r for r in records if isinstance(r, dict)] if isinstance(records, list) else []


def thresholds_reached(test: TestResult) -> tuple[float, int] | None:
    """(thresholds reached, thresholds) of a played test, when its results say."""
    summary = (test.extra_data or {}).get("play_summary")
    if not isinstance(summary, dict) or not isinstance(summary.get("thresholds"), list):
        return None
    reached = summary.get("reached")
    if type(reached) not in (int, float) or not 0 <= reached <= len(summary["thresholds"]):
        return None
    return reached, len(summary["thresholds"])


def verdict(test: TestResult) -> tuple[str, str] | None:
    """The score table's words for a played test: "2 of 3 thresholds" (or, in results that do
    not say, the matches won); None for another test."""
    records = play_records(test)
    if not records:
        return None
    found = thresholds_reached(test)
    if found:
        reached, of = found
        css = "pass" if reached >= of else "part" if reached else "fail"
        mark = {"pass": "✓", "part": "◐", "fail": "✗"}[css]
        by_wins = test.extra_data["play_summary"].get("by_wins", True)
        return css, f"{mark} {reached:g} of {of} {'thresholds' if by_wins else 'steps'}"
    wins = sum(r.get("outcome") == "win" for r in records)
    css = "pass" if test.passed else "part" if test.score > 0 else "fail"
    return css, f"{wins} of {len(records)} matches won"


def _summary_html(test: TestResult, records: list[dict[str, Any]]) -> list[str]:
    head = "".join(f"<th>{word}</th>" for word in ("you play", "matches", "wins", "draws",
                                                    "losses"))
    lines = ['<table class="play-summary">', f"<thead><tr>{head}</tr></thead>", "<tbody>"]
    for side, words in (*SIDES, (None, "both")):
        mine = [r for r in records if side is None or r.get("side") == side]
        counts = [sum(r.get("outcome") == k for r in mine) for k in ("win", "draw", "loss")]
        cells = "".join(f'<td class="num">{n}</td>' for n in [len(mine), *counts])
        css = ' class="total"' if side is None else ""
        lines.append(f"<tr{css}><th>{words}</th>{cells}</tr>")
    lines += ["</tbody>", "</table>"]
    found = thresholds_reached(test)
    if found:
        lines.append(_score_line(test, (test.extra_data or {})["play_summary"], *found))
    return lines


def _score_line(test: TestResult, summary: dict[str, Any], reached: int, of: int) -> str:
    """How the score came about: the wins (or each side's score rate), and the thresholds
    (:func:`grader.feedback.records.summary_data`), the first ``reached`` of them met."""
    by_wins = summary.get("by_wins", True) is not False
    weight = _g(summary.get("draw_weight", 0.5))
    opponent = esc(summary.get("opponent", "the opponent"))
    if by_wins:
        made = (f"Score <strong>{esc(_g(summary.get('value')))}</strong> of "
                f"{esc(_g(summary.get('matches')))} against {opponent} (a win counts 1, a "
                f"draw {esc(weight)})")
    else:
        rates = summary.get("rates") if isinstance(summary.get("rates"), dict) else {}
        made = (f"Score rate <strong>{esc(_percent(rates.get('x')))}</strong> as x and "
                f"<strong>{esc(_percent(rates.get('o')))}</strong> as o against {opponent} (a "
                f"win counts 1, a draw {esc(weight)}; both sides must reach a threshold)")
    played, planned = summary.get("matches"), summary.get("planned")
    if type(played) is int and type(planned) is int and planned > played:
        made += (f" in {played} of {planned} matches: the other {planned - played} could not "
                 "change the points, so they were not played")
    chips = []
    for i, t in enumerate(summary["thresholds"]):  # the lowest are the ones reached
        css, mark = ("hit", "✓") if i + 1 <= reached else ("half", "◐") if i < reached else \
            ("miss", "✗")
        chips.append(f'<span class="thr {css}">{esc(_g(t) if by_wins else _percent(t))} '
                     f"{mark}</span>")
    return (f'<p class="thresholds">{made}. Thresholds: {" ".join(chips)}: <strong>'
            f"{reached:g} of {of} reached</strong>, {test.score:g}/{test.max_score:g} "
            "points.</p>")


def _percent(value: Any) -> str:
    return f"{value:.0%}" if isinstance(value, (int, float)) else "?"


def _g(value: Any) -> str:
    return f"{value:g}" if isinstance(value, (int, float)) else str(value)


def _choice_at(record: dict[str, Any], match: Match) -> tuple[int, dict[str, Any]] | None:
    """(the step of the losing choice, the choice) when the record has one that fits."""
    choice = record.get("choice")
    if not isinstance(choice, dict) or type(choice.get("move")) is not int:
        return None
    step = choice["move"] - 1
    if not 0 <= step < len(match.moves) or match.moves[step][1] != choice.get("yours"):
        return None
    return step, choice


def _who(record: dict[str, Any], number: int, mark: str) -> str:
    if number <= _int(record.get("opening")):
        return "random opening"
    return "you" if mark == record.get("side") else "opponent"


def _int(value: Any) -> int:
    return value if type(value) is int else 0


def step_label(record: dict[str, Any], match: Match, step: int, choice_step: int | None) -> str:
    """What the slider's label says at ``step`` (``report.js`` says the same as it steps)."""
    total = len(match.moves)
    if step == 0:
        text = f"start: before move 1 of {total}"
    else:
        mark, action, _ = match.moves[step - 1]
        text = (f"move {step} of {total}: {mark} ({_who(record, step, mark)}) played "
                f"{match.unit} {action}")
    if step == total:
        text += f"; the match is {OUTCOME_WORDS.get(record.get('outcome'), 'over')}"
    if step == choice_step:
        text += f"; your move {step + 1} next: where your choice lost"
    return text


def _value(value: Any) -> str:
    try:
        return value_text(value)
    except (TypeError, ValueError):
        return "?"


def _choice_html(record: dict[str, Any], match: Match, found: Any, start: int) -> list[str]:
    if record.get("outcome") != "loss":
        return []
    if "choice" not in record:
        return ['<div class="choice"><p class="notes">This lost match was not analysed for '
                "its losing move (the first lost matches of a test are).</p></div>"]
    if isinstance(record.get("choice"), dict) and "kind" in record["choice"]:
        return _own_choice_html(record["choice"], found, match.unit)
    if found is None and record.get("choice") is not None:
        return ['<div class="choice"><p class="notes">The losing choice this record gives does '
                "not fit its moves.</p></div>"]
    if found is None:
        return ['<div class="choice"><p>Every move of yours in this match was also the one '
                "the search makes with the staff's evaluation: the loss came from beyond what "
                "the search sees at its depth.</p></div>"]
    step, choice = found
    side = record.get("side")
    unit = match.unit
    here = " here" if start == step else ""
    lines = [f'<div class="choice{here}">',
             f'<p><strong>Before move {step + 1}</strong> (you are {esc(side)}, to move): '
             f'your search played <span class="tag yours">{unit} {esc(choice.get("yours"))}'
             f'</span>; the same search with the staff\'s evaluation would have played '
             f'<span class="tag staff">{unit} {esc(choice.get("staff"))}</span>.</p>',
             '<table class="choice-values"><thead><tr><th>move</th><th>with your evaluation</th>'
             "<th>with the staff's</th></tr></thead><tbody>"]
    rows = choice.get("values") if isinstance(choice.get("values"), list) else []
    for row in rows:
        if not isinstance(row, dict):
            continue
        action = row.get("action")
        css = ("yours" if action == choice.get("yours") else
               "staff" if action == choice.get("staff") else "other")
        word = {"yours": " ◀ you", "staff": " ◀ staff", "other": ""}[css]
        if row.get("yours") is not None:
            mine = _value(row.get("yours"))
        else:
            mine = (f"{'at most' if side == 'x' else 'at least'} {_value(row.get('bound'))} "
                    "(pruned)")
        lines.append(f'<tr class="{css}"><th>{unit} {esc(action)}{word}</th><td>{esc(mine)}'
                     f"</td><td>{esc(_value(row.get('staff')))}</td></tr>")
    better = "larger" if side == "x" else "smaller"
    lines += ["</tbody></table>",
              f'<p class="notes">Values are for x ({better} is better for you, {esc(side)}): '
              "each evaluation at the search's cutoff, backed up; a win or loss the search "
              "sees outranks any evaluation.</p>",
              '<button type="button" class="to-choice">show this position</button>', "</div>"]
    return lines


def _own_choice_html(choice: dict[str, Any], found: Any, unit: str) -> list[str]:
    """``grader play``'s analysis of a lost match (no staff search there): the move that let
    the opponent win at once (:func:`grader.feedback.records.move_that_let_them_win`)."""
    if found is None or choice.get("kind") != "lets_win" or not isinstance(
            choice.get("safe"), list):
        return ['<div class="choice"><p>No single move of yours let them win at once or by a '
                "double threat: the loss was set up earlier.</p></div>"]
    step = found[0]
    safe = ", ".join(f"{unit} {esc(action)}" for action in choice["safe"])
    how = "win at once" if choice.get("plies") == 1 else "force a win (a double threat)"
    return ['<div class="choice here">',
            f'<p><strong>Before move {step + 1}</strong>: your search played '
            f'<span class="tag yours">{unit} {esc(choice.get("yours"))}</span>, which let them '
            f"{how}; {safe} would not have.</p>",
            '<button type="button" class="to-choice">show this position</button>', "</div>"]


def match_html(record: dict[str, Any]) -> list[str]:
    """One match: its board, slider and (lost) losing choice, folded unless it was lost."""
    index = record.get("index")
    number = index + 1 if type(index) is int else "?"
    outcome = str(record.get("outcome", ""))
    side = str(record.get("side", "?"))
    head = f"Match {number} (you: {esc(side)}): {esc(OUTCOME_WORDS.get(outcome, outcome))}"
    opened = ' open="open"' if outcome == "loss" else ""
    try:
        match = replay_match(record)
    except MatchError as error:
        return [f'<details class="play-details {esc(outcome)}"><summary>{head}</summary>',
                f'<p class="notes">This match cannot be drawn: {esc(error)}.</p></details>']
    found = _choice_at(record, match)
    choice_step = found[0] if found else None
    start = choice_step if choice_step is not None else len(match.moves)
    head += f" in {len(match.moves)} moves"
    if choice_step is not None:
        head += f"; your losing choice: move {choice_step + 1}"
    candidates = None
    if found:
        cells = {who: match.cell_of(choice_step, found[1].get(who)) for who in ("yours", "staff")}
        candidates = (choice_step, {who: c for who, c in cells.items() if c is not None})
    data = {"initial": match.initial, "moves": [[m, c, a] for m, a, c in match.moves],
            "side": side, "opening": _int(record.get("opening")), "unit": match.unit,
            "choice": choice_step, "start": start,
            "outcome": OUTCOME_WORDS.get(outcome, "over")}
    label = step_label(record, match, start, choice_step)
    total = len(match.moves)
    choice_button = ('<button type="button" class="to-choice">your losing choice</button>'
                     if choice_step is not None else "")
    return [f'<details class="play-details {esc(outcome)}"{opened}>',
            f"<summary>{head}</summary>",
            f'<div class="play-match" data-step="{start}" tabindex="0">',
            '<div class="board-box">',
            board_svg(match, start, candidates, label=f"match {number}, {label}"),
            '<div class="controls">',
            '<button type="button" class="prev" title="previous move (left arrow)">◀</button>',
            (f'<input type="range" class="play-step" min="0" max="{total}" value="{start}" '
             'aria-label="move of the match"/>'),
            '<button type="button" class="next" title="next move (right arrow)">▶</button>',
            "</div>",
            f'<p class="move-label">{esc(label)}</p>',
            '<div class="controls jumps">',
            '<button type="button" class="start">start</button>', choice_button,
            '<button type="button" class="end">end</button>', "</div>",
            "</div>",
            *_choice_html(record, match, found, start),
            f'<script type="application/json" class="match-data">{script_json(data)}</script>',
            "</div>", "</details>"]


def play_section(test: TestResult, *, lost_only: bool = False) -> list[str]:
    """The section of an ``evaluate`` test (module docstring); ``lost_only``: boards for the
    lost matches only, the others listed (a smaller section, when a page runs out of room)."""
    records = play_records(test)
    name, _, about = test.name.partition(" (")
    parts = [f'<section class="case play" id="{anchor(test)}" data-play="1">',
             f"<h2>{esc(test.number)} {esc(name)}: {test.score:g}/{test.max_score:g}</h2>",
             *([f'<p class="muted">{esc(about.removesuffix(")"))}</p>'] if about else []),
             *_summary_html(test, records)]
    drawn = [r for r in records if not lost_only or r.get("outcome") == "loss"][:MAX_DRAWN]
    for record in drawn:
        parts += match_html(record)
    rest = [r for r in records if not any(r is d for d in drawn)]
    if rest:
        listed = ", ".join(f"{_int(r.get('index')) + 1} "
                           f"({esc(OUTCOME_WORDS.get(r.get('outcome'), r.get('outcome')))})"
                           for r in rest)
        parts.append(f'<p class="notes">Not drawn, to keep the page small: matches {listed}.</p>')
    return parts + [*output_html(test), "</section>"]


PLAY_LEGEND = [
    ('<circle cx="12" cy="12" r="8" class="lg-x"/>', "x's disc (Connect Four)"),
    ('<circle cx="12" cy="12" r="8" class="lg-o"/>', "o's disc"),
    ('<path d="M6,6L18,18M18,6L6,18" class="lg-gx"/>', "x's mark (grid games)"),
    ('<circle cx="12" cy="12" r="6.5" class="lg-go"/>', "o's mark"),
    ('<circle cx="12" cy="12" r="8" class="lg-x"/><circle cx="12" cy="12" r="3.5" '
     'class="lg-dot"/>', "the last move (dotted)"),
    ('<line x1="2" y1="12" x2="22" y2="12" class="lg-win"/>', "the line that ended the match"),
    ('<circle cx="12" cy="12" r="9" class="lg-yours"/>',
     "your losing choice: the move your search made (dashed orange, \u201cyou\u201d)"),
    ('<circle cx="12" cy="12" r="9" class="lg-staff"/>',
     "the move the same search makes with the staff's evaluation (solid blue, \u201cstaff\u201d)"),
]


def play_legend() -> list[str]:
    """The legend of what a match's board shows."""
    items = [f'<span><svg width="24" height="24" viewBox="0 0 24 24">{icon}</svg>'
             f"{esc(text)}</span>" for icon, text in PLAY_LEGEND]
    return ['<div class="legend play-legend">', *items, "</div>"]
