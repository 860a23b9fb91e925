"""Remake docs/class-report.png, docs/staff.md's picture of a class report.

The report is a real one: the 50-submission export of the benchmark (15 correct, 20 wrong, 15
hostile submissions), graded and reported by ``python bench/run.py --only class_report``, which
keeps it in ``bench/class-report/``. This opens it, anonymised (``anonymised/class.html``), in
headless Chromium with the browser test's helpers (tests/test_html_browser.py), shows the
first four algorithms' cards and the first named mistakes, and photographs that.

    .venv/bin/python bench/run.py --only class_report
    .venv/bin/python docs/make_class_screenshot.py [REPORT.html [OUT.png]]

Needs what the browser test needs (chromium, chromium-driver, selenium).
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
REPORT = REPO / "bench" / "class-report" / "anonymised" / "class.html"
MAX_BYTES = 200_000  # the doc's picture stays small
# Shown: the title, four algorithms' cards (their failing-case tables folded away) and the
# named mistakes' first four rows; the rest is hidden for the picture only.
FOCUS = """
document.querySelectorAll('div.card').forEach(function (card, i) {
  if (i >= 4) { card.style.display = 'none'; }
  card.querySelectorAll('table, p.muted').forEach(function (e) { e.style.display = 'none'; });
});
document.querySelectorAll('table.mistakes tr').forEach(function (row, i) {
  if (i > 4) { row.style.display = 'none'; }
});
var hide = false;
Array.prototype.slice.call(document.body.children).forEach(function (e) {
  if (e.tagName === 'H2' && e.textContent.indexOf('evaluate') === 0) { hide = true; }
  if (e.tagName === 'H3' && e.textContent.indexOf('Failing tests no named') === 0) { hide = true; }
  if (hide) { e.style.display = 'none'; }
});
"""


def main(argv: list[str]) -> int:
    report = Path(argv[0]) if argv else REPORT
    out = Path(argv[1]) if len(argv) > 1 else HERE / "class-report.png"
    sys.path.insert(0, str(HERE))
    from make_screenshot import browser_test

    helpers = browser_test()
    why = helpers.missing_browser()
    if why or not report.exists():
        why = why or f"no report at {report}: run bench/run.py --only class_report first"
        print(f"make_class_screenshot: {why}", file=sys.stderr)
        return 2
    driver = helpers.chromium(width=1000, height=2000, scale=0.7)
    try:
        driver.get(report.as_uri())
        driver.execute_script(FOCUS)
        driver.find_element("tag name", "body").screenshot(str(out))
    finally:
        driver.quit()
    size = out.stat().st_size
    print(f"wrote {out} ({size} bytes)")
    if size > MAX_BYTES:
        print(f"make_class_screenshot: {out} is {size} bytes, more than {MAX_BYTES}",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
