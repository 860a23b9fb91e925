"""The class report's page: a batch's figures (:mod:`grader.batch.classreport`) as one document.

Self-contained and static: its own small stylesheet, histograms and bars drawn as inline SVG,
no script and no URL fetched (the example replays it links to are files beside it). Printable:
black on white, every count written as a number beside its bar, the student lists folded in
``<details>`` on screen and unfolded in print. XHTML-compatible, as the replay report, so an
XML parser reads it too.

Every figure comes from the figures dict and nothing else, so the same figures give the same
page byte for byte.
"""

from __future__ import annotations

from html import escape
from typing import Any

CASES_SHOWN = 5  # a mistake's cases named on the page, most tests first (the JSON has all)
BAR = "#0072b2"  # the Okabe-Ito blue of the replay report
# The last bin's fill (full marks, a rate of 1): Okabe-Ito's bluish green, hatched, so it
# differs by pattern too; defined once, at the top of the page.
HATCH = ('<svg xmlns="http://www.w3.org/2000/svg" width="0" height="0" aria-hidden="true" '
         'style="position:absolute"><defs><pattern id="hatch" width="6" height="6" '
         'patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" '
         'height="6" fill="#009e73"/><line x1="0" y1="0" x2="0" y2="6" stroke="#fff" '
         'stroke-width="2"/></pattern></defs></svg>')
CSS = """
:root { --ink: #1d1d1f; --muted: #5f6368; --line: #d0d4da; }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 1100px; padding: 16px 24px 48px; color: var(--ink);
       font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
h1 { font-size: 1.5rem; margin: 0 0 4px; }
h2 { font-size: 1.2rem; margin: 26px 0 6px; border-top: 3px solid var(--line); padding-top: 12px; }
h3 { font-size: 1rem; margin: 14px 0 4px; }
.muted { color: var(--muted); }
table { border-collapse: collapse; width: 100%; margin: 6px 0 14px; font-size: 14px; }
th, td { border-bottom: 1px solid var(--line); padding: 4px 8px; text-align: left;
         vertical-align: top; }
th { background: #eef1f5; }
table.mistakes td:first-child { min-width: 170px; }
table.mistakes td:nth-child(6) { min-width: 200px; }
td.num { white-space: nowrap; font-variant-numeric: tabular-nums; text-align: right; }
.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(330px, 1fr));
        gap: 12px 24px; }
.card { border: 1px solid var(--line); border-radius: 6px; padding: 8px 12px; break-inside: avoid; }
.card h3 { margin-top: 0; }
svg text { font: 11px system-ui, sans-serif; fill: var(--ink); }
details summary { cursor: pointer; color: var(--muted); }
ul.who { columns: 3 220px; margin: 4px 0; padding-left: 18px; font-size: 13px; }
@media print {
  body { max-width: none; padding: 0; font-size: 11pt; }
  h2 { break-after: avoid; }
  tr, .card { break-inside: avoid; }
  details > :not(summary) { display: block; }
  details summary { display: none; }
  a { color: inherit; }
}
"""


def _esc(value: Any) -> str:
    return escape(str(value), quote=True)


def _percent(share: float) -> str:
    return f"{100 * share:.0f}%"


def histogram_svg(counts: list[int], labels: list[str], title: str) -> str:
    """A bar per bin, its count written above it and its label below; the last bin (full
    marks, a rate of 1) hatched. ``title``: what it shows, for a screen reader."""
    width, height, top, bottom, left = 320, 120, 14, 30, 16
    slot = (width - 2 * left) / max(len(counts), 1)
    most = max(counts) if counts and max(counts) > 0 else 1
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" role="img" aria-label="{_esc(title)}">',
             f"<title>{_esc(title)}</title>",
             f'<line x1="{left}" y1="{height - bottom}" x2="{width - left}" '
             f'y2="{height - bottom}" stroke="#1d1d1f"/>']
    room = height - top - bottom
    for index, count in enumerate(counts):
        x = left + index * slot
        bar = room * count / most
        fill = "url(#hatch)" if index == len(counts) - 1 else BAR
        if count:
            parts.append(f'<rect x="{x + 2:.1f}" y="{height - bottom - bar:.1f}" '
                         f'width="{slot - 4:.1f}" height="{bar:.1f}" fill="{fill}" '
                         f'stroke="#1d1d1f" stroke-width="0.5"/>')
        parts.append(f'<text x="{x + slot / 2:.1f}" y="{height - bottom - bar - 3:.1f}" '
                     f'text-anchor="middle">{count}</text>')
        if index < len(labels) and labels[index]:
            parts.append(f'<text x="{x + slot / 2:.1f}" y="{height - bottom + 13}" '
                         f'text-anchor="middle">{_esc(labels[index])}</text>')
    parts.append("</svg>")
    return "".join(parts)


def bar_svg(value: int, most: int) -> str:
    """A horizontal bar of ``value`` out of ``most`` (the table beside it says the number)."""
    width = 100
    filled = width * value / most if most else 0
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="12" '
            f'viewBox="0 0 {width} 12" aria-hidden="true"><rect x="0" y="1" width="{width}" '
            f'height="10" fill="#eef1f5" stroke="#d0d4da"/><rect x="0" y="1" '
            f'width="{filled:.1f}" height="10" fill="{BAR}"/></svg>')


def _shares_histogram(counts: list[int], title: str) -> str:
    labels = ["0", "", "", "", "", "50%", "", "", "", "90%", "full"]
    return histogram_svg(counts, labels, title)


def _who(students: list[str]) -> str:
    if not students:
        return ""
    items = "".join(f"<li>{_esc(s)}</li>" for s in students)
    return (f"<details><summary>{len(students)} student{'s' if len(students) != 1 else ''}"
            f"</summary><ul class=\"who\">{items}</ul></details>")


def _algorithms(figures: dict[str, Any]) -> list[str]:
    parts = ["<h2>Scores by algorithm</h2>",
             '<p class="muted">Each submission\'s share of the algorithm\'s points, in bins of '
             "10% (0-10%, ..., 90-100%), then full marks (the last bar, hatched).</p>",
             '<div class="grid">']
    for entry in figures["algorithms"]:
        name = entry["algorithm"]
        cases = "".join(f"<tr><td>{_esc(c['case'])}</td><td class=\"num\">{c['students']}</td>"
                        "</tr>" for c in entry["failing_cases"])
        more = entry["cases_failed"] - len(entry["failing_cases"])
        parts += [
            f'<div class="card" id="algorithm-{_esc(name)}"><h3>{_esc(name)}</h3>',
            _shares_histogram(entry["histogram"], f"{name}: share of points, {entry['students']} "
                              "submissions"),
            f"<p>Full marks: <strong>{entry['full_marks']}</strong> of {entry['students']} "
            f"({_percent(entry['full_share'])}); mean {_percent(entry['mean_share'])} of the "
            "points.</p>",
        ]
        if cases:
            parts += ["<table><tr><th>case failed most</th><th>students</th></tr>", cases,
                      "</table>"]
            if more > 0:
                parts.append(f'<p class="muted">and {more} more case{"s" if more > 1 else ""} '
                             "failed by someone (the .json lists the top ones only).</p>")
        parts.append("</div>")
    parts.append("</div>")
    return parts


def _mistakes(figures: dict[str, Any]) -> list[str]:
    failing, explained = figures["failing_tests"], figures["explained_tests"]
    parts = ["<h2>Named mistakes across the class</h2>",
             f"<p>{failing} failing tests in all: <strong>{explained}</strong> explained by a "
             f"named mistake, <strong>{failing - explained}</strong> by none (below). Most "
             "students first; a title with “or” is a diagnosis no graded case could narrow "
             "down, counted as the students were told it.</p>"]
    if figures["mistakes"]:
        most = max(m["students"] for m in figures["mistakes"])
        parts.append('<table class="mistakes"><tr><th>mistake</th><th>algorithm</th>'
                     "<th>students</th><th></th><th>failing tests</th><th>on cases (tests)</th>"
                     "<th>example</th></tr>")
        for entry in figures["mistakes"]:
            cases = ", ".join(f"{_esc(c['case'])} ({c['tests']})"
                              for c in entry["cases"][:CASES_SHOWN])
            if len(entry["cases"]) > CASES_SHOWN:
                cases += f", and {len(entry['cases']) - CASES_SHOWN} more"
            example = entry.get("example") or {}
            link = (f'<a href="{_esc(example["replay"])}">{_esc(example["student"])}</a>'
                    if example.get("replay") else _esc(example.get("student", "")))
            parts.append(
                f"<tr><td><strong>{_esc(entry['title'])}</strong>{_who(entry['who'])}</td>"
                f"<td>{_esc(entry['algorithm'])}</td><td class=\"num\">{entry['students']}</td>"
                f"<td>{bar_svg(entry['students'], most)}</td>"
                f"<td class=\"num\">{entry['tests']}</td><td>{cases}</td><td>{link}</td></tr>")
        parts.append("</table>")
    else:
        parts.append('<p class="muted">No failing test is explained by a named mistake.</p>')
    parts.append("<h3>Failing tests no named mistake explains</h3>")
    if figures["unexplained"]:
        parts.append("<table><tr><th>algorithm</th><th>outcome</th><th>failing tests</th>"
                     "<th>students</th></tr>")
        for entry in figures["unexplained"]:
            parts.append(f"<tr><td>{_esc(entry['algorithm'])}</td><td>{_esc(entry['outcome'])}"
                         f"</td><td class=\"num\">{entry['tests']}</td><td>"
                         f"{len(entry['students'])}{_who(entry['students'])}</td></tr>")
        parts.append("</table>")
    else:
        parts.append('<p class="muted">None.</p>')
    return parts


def _play(figures: dict[str, Any]) -> list[str]:
    play = figures["play"]
    if not play["opponents"]:
        return []
    parts = ["<h2>evaluate, by play</h2>",
             '<p class="muted">Each submission\'s score rate against each opponent (wins, and '
             "draws at the rubric's weight, over its matches), in bins of 0.1 below 1, then a rate "
             "of 1 (every match won; the last bar, hatched).</p>", '<div class="grid">']
    for entry in play["opponents"]:
        parts += [f'<div class="card"><h3>against {_esc(entry["opponent"])}</h3>',
                  histogram_svg(entry["histogram"], ["0", "", "", "", "", "0.5", "", "", "",
                                                     "0.9", "1"],
                                f"score rate against {entry['opponent']}"),
                  f"<p>{entry['students']} submissions; mean rate {entry['mean_rate']:.2f}.</p>"
                  "</div>"]
    parts.append("</div>")
    if play["strongest"]:
        against = _esc(play["ranked_against"])
        parts += [f"<h3>Strongest submissions (score rate against {against})</h3>",
                  f"<table><tr><th>#</th><th>student</th><th>score rate vs {against}</th>"
                  "<th>leaderboard</th></tr>"]
        for rank, entry in enumerate(play["strongest"], 1):
            board = "; ".join(f"{_esc(e['name'])}: {_esc(e['value'])}"
                              for e in entry.get("leaderboard", []))
            parts.append(f"<tr><td class=\"num\">{rank}</td><td>{_esc(entry['student'])}</td>"
                         f"<td class=\"num\">{entry['rate']:.3f}</td>"
                         f"<td>{board}</td></tr>")
        parts.append("</table>")
    return parts


def _health(figures: dict[str, Any]) -> list[str]:
    parts = ["<h2>The run's health</h2>",
             '<p class="muted">Submissions with at least one test ending so (a submission may '
             "be in several rows).</p>",
             "<table><tr><th>what happened</th><th>submissions</th><th>who</th></tr>"]
    for entry in figures["health"]:
        parts.append(f"<tr><td>{_esc(entry['label'])}</td><td class=\"num\">{entry['count']}"
                     f"</td><td>{_who(entry['students'])}</td></tr>")
    parts.append("</table>")
    return parts


def class_page(figures: dict[str, Any], title: str = "Class report") -> str:
    """The whole page of a batch's figures."""
    anonymised = " Students are named by pseudonym." if figures.get("anonymised") else ""
    parts = [
        "<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8"/>',
        '<meta name="viewport" content="width=device-width, initial-scale=1"/>',
        '<link rel="icon" href="data:,"/>', f"<title>{_esc(title)}</title>",
        f"<style>{CSS}</style>", "</head>", "<body>", HATCH, f"<h1>{_esc(title)}</h1>",
        f'<p class="muted">{figures["submissions"]} submissions, {figures["graded"]} graded '
        f"without a grader error.{anonymised} The same figures are in the .json and .csv "
        "files beside this page.</p>",
        *_algorithms(figures), *_mistakes(figures), *_play(figures), *_health(figures),
        "</body>", "</html>",
    ]
    return "\n".join(parts) + "\n"
