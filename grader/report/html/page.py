"""The document: the score table, the legend, one section a failing test, and the page itself.

Everything here is markup around what :mod:`grader.report.html.replay` built; the page's CSS and
script are ``report.css`` and ``report.js`` beside this module, inlined so no URL is fetched.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import grader.algorithms as algorithm_specs
from grader.compare import check_value, describe
from grader.report.html.mcts import root_line
from grader.report.html.packing import pack
from grader.report.html.picture import esc, patterns
from grader.report.html.replay import CaseReplay
from grader.scoring.results import PASSED, GradingResults, TestResult

ASSETS = Path(__file__).resolve().parent  # report.css, report.js: inlined into every page
MAX_TABLE_ITERATIONS = 300  # MCTS: rows of the per-iteration table


def inline_markdown(text: str) -> str:
    """``code`` and **bold** of a hint's Markdown as HTML; everything else escaped."""
    out = esc(text)
    out = re.sub(r"`([^`]+)`", r"<code>\1</code>", out)
    return re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", out)


VERDICTS = {PASSED: ("pass", "✓ passed"), "wrong_trace": ("part", "◐ partial"),
            "budget": ("fail", "✗ stopped: too many game calls")}


def _verdict(test: TestResult) -> tuple[str, str]:
    if test.outcome in VERDICTS:
        return VERDICTS[test.outcome]
    return "fail", "✗ " + test.outcome.replace("_", " ")


def anchor(test: TestResult) -> str:
    return "test-" + re.sub(r"[^0-9A-Za-z]+", "-", test.number)


def score_table(results: GradingResults, detailed: set[str],
                verdicts: dict[str, tuple[str, str]] | None = None) -> list[str]:
    """The score table; ``verdicts``: a test's (css class, words) by number, where the
    outcome's words do not fit (a played test's "2 of 3 thresholds")."""
    head = "".join(f"<th>{name}</th>" for name in ("#", "test", "points", "result", "summary"))
    lines = ['<table class="scores">', f"<thead><tr>{head}</tr></thead>", "<tbody>"]
    for algorithm, tests in results.by_algorithm().items():
        earned = sum(t.score for t in tests)
        possible = sum(t.max_score for t in tests)
        passed = sum(t.passed for t in tests)
        lines.append(f'<tr class="group"><th colspan="5">{esc(algorithm)}: {earned:g}/'
                     f"{possible:g} points, {passed}/{len(tests)} tests passed</th></tr>")
        for test in tests:
            css, word = (verdicts or {}).get(test.number) or _verdict(test)
            name = esc(test.name.split(": ", 1)[-1])
            if test.number in detailed:
                name = f'<a href="#{anchor(test)}">{name}</a>'
            summary = "" if test.passed else esc(test.summary)
            lines.append(f'<tr data-outcome="{esc(test.outcome)}"><td class="num">'
                         f"{esc(test.number)}</td><td>{name}</td><td class=\"pts\">"
                         f"{test.score:g}/{test.max_score:g}</td><td><span class=\"verdict {css}\">"
                         f"{esc(word)}</span></td><td>{summary}</td></tr>")
    total = f"{results.score:g}/{results.max_score:g}"
    lines += ["</tbody>", (f'<tfoot><tr><th colspan="2">Total</th><th class="pts">{total}</th>'
                           '<th colspan="2"></th></tr></tfoot>'), "</table>"]
    return lines


LEGEND_ITEMS = [
    ('<circle cx="12" cy="12" r="8" fill="none" stroke="#0072b2" stroke-width="2.6"/>',
     "reference generated it (solid blue ring)"),
    (('<circle cx="12" cy="12" r="8" fill="none" stroke="#d55e00" stroke-width="2.6" '
      'stroke-dasharray="5 3"/>'), "you generated it (dashed orange ring)"),
    (('<rect x="4" y="4" width="16" height="16" fill="url(#legend-hatch)" stroke="#1d1d1f"/>'
      '<text x="23" y="10" class="badge got">+</text>'),
     "extra: yours only, the reference pruned it (cross-hatched, +)"),
    (('<rect x="4" y="4" width="16" height="16" fill="url(#legend-dots)" stroke="#1d1d1f"/>'
      '<text x="23" y="10" class="badge ref">−</text>'),
     "missing: the reference's only, you skipped it (dotted, −)"),
    (('<line x1="2" y1="20" x2="22" y2="4" stroke="#a3a8b0" stroke-dasharray="4 3"/>'
      '<line x1="6" y1="8" x2="14" y2="16" class="cross"/>'),
     "branch the reference pruned (crossed out, dashed)"),
    (('<rect x="3" y="3" width="18" height="18" fill="none" stroke="#1d1d1f" '
      'stroke-dasharray="6 2 1 2"/><text x="9" y="16" class="badge">!</text>'),
     "the first difference"),
]
SHAPE_ITEMS = [
    ('<polygon points="12,3 22,20 2,20" class="shape"/>', "MAX"),
    ('<polygon points="2,4 22,4 12,21" class="shape"/>', "MIN"),
    ('<circle cx="12" cy="12" r="9" class="shape"/>', "chance"),
    ('<rect x="3" y="3" width="18" height="18" class="shape"/>', "leaf (its value inside)"),
]


INTRO = ("Each failing case below replays your search beside the reference's: move the "
         "slider, use the buttons, or the arrow keys.")


def legend() -> list[str]:
    items = []
    for index, (icon, text) in enumerate(SHAPE_ITEMS + LEGEND_ITEMS):
        defs = patterns("legend") if index == 0 else ""  # one document: every icon sees them
        items.append(f'<span><svg width="30" height="24" viewBox="0 0 30 24">{defs}{icon}</svg>'
                     f"{esc(text)}</span>")
    return ['<div class="legend">', *items, "</div>"]


def _hint_html(replay: CaseReplay) -> list[str]:
    if not replay.hints:
        title = re.search(r"\(likely mistake: (.+)\)$", replay.test.summary or "")
        if title:
            named = f"<p><strong>Likely mistake: {esc(title.group(1))}</strong></p>"
            return ['<div class="hint">', named, "</div>"]
        return []
    hint = replay.hints[0]
    named = f"<strong>Likely mistake: {esc(hint.title)}</strong> (<code>{esc(hint.name)}</code>)"
    lines = ['<div class="hint">', f"<p>{named}</p>",
             f"<p>What your code does: {inline_markdown(hint.does)}.</p>",
             f"<p>The lecture's pseudo-code: {inline_markdown(hint.departs)}.</p>",
             f"<p>What to change: {inline_markdown(hint.fix)}.</p>"]
    if len(replay.hints) > 1:
        others = ", ".join(esc(h.title) for h in replay.hints[1:])
        lines.append(f'<p class="muted">Or, equally consistent with every graded case: '
                     f"{others}.</p>")
    return lines + ["</div>"]


def _first_difference_html(replay: CaseReplay) -> list[str]:
    ref_ids, got_ids = replay.ref.ids, replay.yours.ids
    step = replay.first
    lines = ['<div class="callout">']
    if step is None:
        lines.append("<p>Both searches generated the same nodes in the same order.</p>")
    else:
        theirs = ref_ids[step - 1] if step <= len(ref_ids) else None
        mine = got_ids[step - 1] if step <= len(got_ids) else None
        text = (f"<strong>First difference at step {step}</strong>: the reference "
                + (f"generated <code>{esc(theirs)}</code>" if theirs else "had finished")
                + "; yours " + (f"generated <code>{esc(mine)}</code>" if mine else "had finished")
                + " (marked <strong>!</strong> in the picture).")
        lines.append(f"<p>{text}</p>")
    if replay.window:
        lines.append(f"<p>{esc(replay.window)}</p>")
    lines += _hint_html(replay)
    return lines + ["</div>"]


def _value_line(replay: CaseReplay) -> str:
    want, have = replay.expected.get("value"), replay.got.get("value")
    ok = check_value(want, have).ok
    verdict = "correct" if ok else "wrong"
    window = getattr(algorithm_specs.find(replay.test.algorithm), "window", False)
    rule = f"; pruning rule: {esc(replay.rule)}" if window else ""
    return (f'<p class="facts">Value: expected <code>{esc(describe(want))}</code>, yours '
            f"<code>{esc(describe(have))}</code> ({verdict}){rule}. Generated: reference "
            f"{len(replay.ref.ids)} nodes, yours {len(replay.yours.ids)}.</p>")


def _stepper_html(replay: CaseReplay) -> list[str]:
    total = max(len(replay.ref.ids), len(replay.yours.ids))
    return [
        '<div class="stepper">',
        '<div class="controls">',
        '<button type="button" class="prev" title="previous step (left arrow)">◀ previous</button>',
        (f'<input type="range" class="step" min="0" max="{total}" value="{total}" '
         'aria-label="step of the replay"/>'),
        '<button type="button" class="next" title="next step (right arrow)">next ▶</button>',
        '<button type="button" class="jump">first difference</button>',
        '<button type="button" class="end">end</button>',
        f'<span class="step-label">step {total} of {total}</span>',
        "</div>",
        '<div class="sides">',
        '<div class="side side-ref"><h4>Reference (solid blue)</h4><ul></ul></div>',
        '<div class="side side-got"><h4>Yours (dashed orange)</h4><ul></ul></div>',
        "</div>",
        *[f'<p class="notes stepper-note">{esc(note)}</p>' for note in replay.notes],
        "</div>",
    ]


def _iterations_html(replay: CaseReplay) -> list[str]:
    if replay.iterations is None:
        return []
    ref, yours = replay.iterations
    if not ref and not yours:
        return ['<p class="notes">The per-iteration statistics are not available here.</p>']
    rows = max(len(ref), len(yours))
    head = "".join(f"<th>{name}</th>" for name in ("iteration", "reference", "yours"))
    summary = "The root's children after each iteration (visits n, mean reward)"
    lines = [f"<details><summary>{summary}</summary>",
             f'<table class="iterations"><thead><tr>{head}</tr></thead><tbody>']
    for i in range(min(rows, MAX_TABLE_ITERATIONS)):
        cells = [esc(root_line(side[i])) if i < len(side) else "—" for side in (ref, yours)]
        lines.append(f"<tr><td>{i + 1}</td><td>{cells[0]}</td><td>{cells[1]}</td></tr>")
    return lines + ["</tbody></table></details>"]


def script_json(data: Any) -> str:
    """JSON safe inside a script element of HTML and of XML (no <, > or &)."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def case_section(replay: CaseReplay) -> list[str]:
    test = replay.test
    data = pack(max(len(replay.ref.ids), len(replay.yours.ids)), replay.first,
                {"ref": replay.ref.data(), "got": replay.yours.data()})
    picture = (f'<div class="picture">{replay.svg}</div>' if replay.svg
               else f'<p class="notes">{esc(replay.picture_note)}</p>')
    return [
        (f'<section class="case" id="{anchor(test)}" data-replay="1" '
         f'data-algorithm="{esc(test.algorithm)}" tabindex="0">'),
        f"<h2>{esc(test.number)} {esc(test.name)}: {test.score:g}/{test.max_score:g}</h2>",
        _value_line(replay),
        '<div class="layout">',
        '<div class="main-panel">', picture, *_stepper_html(replay), "</div>",
        '<div class="side-panel">', *_first_difference_html(replay), "</div>",
        "</div>",
        *_iterations_html(replay),
        *output_html(test),
        f'<script type="application/json" class="replay-data">{script_json(data)}</script>',
        "</section>",
    ]


def output_html(test: TestResult, open_: bool = False) -> list[str]:
    if not test.output:
        return []
    state = ' open="open"' if open_ else ""
    return [f"<details{state}><summary>The feedback as text</summary>",
            f"<pre>{esc(test.output)}</pre>", "</details>"]


def plain_section(test: TestResult, why: str, *, output: bool = True) -> list[str]:
    """A failing test without a step-through: its summary, ``why``, and (``output``) its text."""
    return [f'<section class="case" id="{anchor(test)}">',
            f"<h2>{esc(test.number)} {esc(test.name)}: {test.score:g}/{test.max_score:g}</h2>",
            f'<p class="facts">{esc(test.summary)}</p>', f'<p class="notes">{esc(why)}</p>',
            *(output_html(test, open_=True) if output else []), "</section>"]


def render_page(results: GradingResults, sections: list[list[str]], detailed: set[str],
                title: str = "Search report", *,
                verdicts: dict[str, tuple[str, str]] | None = None,
                legends: list[str] | None = None, intro: str | None = None) -> str:
    """The document. ``legends``: the legend's lines (default: the trees' legend, when there
    are sections); ``intro``: what the line under the score says the sections hold."""
    css = (ASSETS / "report.css").read_text(encoding="utf-8")
    script = (ASSETS / "report.js").read_text(encoding="utf-8")
    failing = sum(not t.passed for t in results.tests)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8"/>',
        '<meta name="viewport" content="width=device-width, initial-scale=1"/>',
        '<link rel="icon" href="data:,"/>',
        f"<title>{esc(title)}</title>",
        f"<style>\n{css}</style>",
        "</head>",
        "<body>",
        f"<h1>{esc(title)}</h1>",
        (f'<p class="muted">Score {results.score:g}/{results.max_score:g}; {failing} of '
         f"{len(results.tests)} tests not passed. "
         + esc(intro if intro is not None else INTRO) + "</p>"),
        *score_table(results, detailed, verdicts),
    ]
    if results.output:
        parts.append(f"<pre>{esc(results.output)}</pre>")
    if legends is None:
        legends = legend() if sections else []
    if legends:
        parts += ["<h2>How to read the pictures</h2>", *legends]
    for section in sections:
        parts += section
    parts += [f"<script>//<![CDATA[\n{script}//]]>\n</script>", "</body>", "</html>"]
    return "\n".join(parts) + "\n"
