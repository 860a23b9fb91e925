"""Make docs/play-report.png, the README's picture of an HTML report of matches played.

It takes the browser test's code path (tests/test_html_browser.py, ``make_play_report``): a
weak evaluation (the ``evaluate_constant`` variant) plays two Connect Four matches against the
staff's baseline search and loses both; the report is opened in headless Chromium and the
case's section photographed, its first lost match open at the move where the student's choice
lost (the second folded, the feedback text hidden).

    .venv/bin/python docs/make_play_screenshot.py [OUT.png]

Needs what the browser test needs (chromium, chromium-driver, selenium).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
MAX_BYTES = 150_000  # the README's picture stays small

sys.path.insert(0, str(HERE))
from make_screenshot import browser_test  # noqa: E402 - the one loader of the browser test


def main(argv: list[str]) -> int:
    out = Path(argv[0]) if argv else HERE / "play-report.png"
    helpers = browser_test()
    why = helpers.missing_browser()
    if why:
        print(f"make_play_screenshot: {why}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as scratch:
        report, _ = helpers.make_play_report(Path(scratch))
        driver = helpers.chromium(width=1100, height=1600, scale=0.85)
        try:
            driver.get(report.as_uri())
            section = driver.find_element("css selector", "section.play")
            driver.execute_script(  # the second match folded, the feedback text hidden
                "var s = arguments[0], d = s.querySelectorAll('details');"
                "d.forEach(function (e, i) { if (i > 0) { e.open = false; } });"
                "d[d.length - 1].style.display = 'none';", section)
            section.screenshot(str(out))
        finally:
            driver.quit()
    size = out.stat().st_size
    print(f"wrote {out} ({size} bytes)")
    if size > MAX_BYTES:
        print(f"make_play_screenshot: {out} is {size} bytes, more than {MAX_BYTES}",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
