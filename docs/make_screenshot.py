"""Remake docs/report.png, the README's picture of an HTML report.

It takes the browser test's code path (tests/test_html_browser.py): grade the "strict pruning"
variant on two public cases, write the report, open it in headless Chromium, move the slider to
the first difference of ``prune-equal-root-level`` and photograph that case's section.

    .venv/bin/python docs/make_screenshot.py [OUT.png]

Needs what the browser test needs (chromium, chromium-driver, selenium).
"""

from __future__ import annotations

import importlib.util
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
CASE = "prune-equal-root-level"
MAX_BYTES = 150_000  # the README's picture stays small


def browser_test():
    tests = str(REPO / "tests")
    if tests not in sys.path:  # the test imports its neighbours (suite_modules), as pytest lets it
        sys.path.insert(0, tests)
    spec = importlib.util.spec_from_file_location("test_html_browser",
                                                  REPO / "tests" / "test_html_browser.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv: list[str]) -> int:
    out = Path(argv[0]) if argv else HERE / "report.png"
    helpers = browser_test()
    why = helpers.missing_browser()
    if why:
        print(f"make_screenshot: {why}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as scratch:
        report = helpers.make_report("strict_pruning", Path(scratch))
        driver = helpers.chromium(width=1100, height=1800, scale=0.85)
        try:
            driver.get(report.as_uri())
            section = helpers.section_of(driver, CASE)
            helpers.slide_to(driver, section, 7)  # the first difference
            driver.execute_script(  # the long feedback text is folded away in the picture
                "arguments[0].querySelectorAll('details').forEach(function (d) {"
                " d.style.display = 'none'; });", section)
            section.screenshot(str(out))
        finally:
            driver.quit()
    size = out.stat().st_size
    print(f"wrote {out} ({size} bytes)")
    if size > MAX_BYTES:
        print(f"make_screenshot: {out} is {size} bytes, more than {MAX_BYTES}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
