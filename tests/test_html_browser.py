"""The HTML report in a real browser: headless Chromium driven by Selenium.

Reports are made for two known-wrong submissions (tests/submissions/variants.py): "strict
pruning" and "never prunes", plus the correct solution graded under a strict course rule (so
that the reference searches nodes the submission prunes: missing nodes). The browser checks
the marks in the SVG, moves the slider to the first difference, reads the alpha/beta window
shown there, takes a screenshot, and finds no error in the console.

Needs Debian's ``chromium`` and ``chromium-driver`` and the ``selenium`` package; skipped, with
the reason, when one is missing. ``docs/make_screenshot.py`` uses the helpers here to make the
README's picture, so the picture comes from this test's code path.
"""

from __future__ import annotations

import importlib.util
import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
import suite_modules

REPO = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.local_check  # run again in the portable worker: tests/test_portable.py
CHROMIUM, CHROMEDRIVER = Path("/usr/bin/chromium"), Path("/usr/bin/chromedriver")
CASES = [REPO / "trees" / "public" / "aima-fig-5-2.json",
         REPO / "trees" / "public" / "prune-equal-root-level.json"]
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]


def missing_browser() -> str | None:
    """Why the browser test cannot run here, or None."""
    for path, package in ((CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")):
        if not path.exists():
            return f"{path} not found: apt-get install -y {package}"
    if importlib.util.find_spec("selenium") is None:
        return "the selenium package is not installed: pip install 'selenium>=4.20'"
    return None


def variants():
    return suite_modules.load("submissions/variants.py")


def make_report(name: str, out: Path, *, strict_course: bool = False) -> Path:
    """Grade submission ``name`` (a variant, or "correct") on :data:`CASES` with alpha-beta and
    write its HTML report to ``out/<name>.html``."""
    from grader.cases.rubric import load_rubric
    from grader.report.html import write_html_report
    from grader.scoring.grade import grade

    submission = variants().materialize(name, out / name)
    rubric_path = None
    if strict_course:
        rubric_path = out / "strict-rubric.toml"
        rubric_path.write_text('[defaults]\npruning = "strict"\n')
    results = grade(submission, CASES, rubric=load_rubric(rubric_path), algorithms=["alpha_beta"])
    path = out / f"{name}{'-strict-course' if strict_course else ''}.html"
    write_html_report(results, path)
    return path


PLAY_CASE = {"$schema": "../../grader/schema/case.schema.json", "name": "connect4-baseline",
             "description": "Connect Four against the staff's baseline search, two matches",
             "algorithms": ["evaluate"], "game": "connect4",
             "params": {"rows": 6, "columns": 7, "connect": 4},
             "play": {"opponent": "baseline", "seed": 6, "matches": 2}}


def make_play_report(out: Path, name: str = "evaluate_constant") -> tuple[Path, Any]:
    """Grade a weak evaluation (a play variant: ``evaluate_constant`` loses both matches of
    :data:`PLAY_CASE`) and write its HTML report to ``out/<name>.html``; (path, results)."""
    from grader.cases.rubric import load_rubric
    from grader.report.html import write_html_report
    from grader.scoring.grade import grade

    case = out / "cases" / f"{PLAY_CASE['name']}.json"
    case.parent.mkdir(parents=True, exist_ok=True)
    case.write_text(json.dumps(PLAY_CASE))
    results = grade(variants().materialize(name, out / name), [case], rubric=load_rubric(None))
    path = out / f"{name}.html"
    write_html_report(results, path)
    return path, results


def chromium(width: int = 1400, height: int = 1000, scale: float = 1.0):
    """A headless Chromium with a fresh profile and the console log kept (``scale``: the
    device scale factor, below 1 for a smaller picture)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in FLAGS + [f"--user-data-dir={tempfile.mkdtemp(prefix='chromium-')}",
                         f"--window-size={width},{height}",
                         f"--force-device-scale-factor={scale}"]:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)


def section_of(driver, case_name: str):
    from selenium.webdriver.common.by import By

    for section in driver.find_elements(By.CSS_SELECTOR, "section.case[data-replay]"):
        if f": {case_name} (" in section.find_element(By.TAG_NAME, "h2").text:
            return section
    raise AssertionError(f"no replay section for {case_name!r}")


def slide_to(driver, section, step: int) -> None:
    """Move the section's slider to ``step`` with the keyboard, as a person would."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    slider = section.find_element(By.CSS_SELECTOR, "input.step")
    slider.send_keys(Keys.HOME)
    slider.send_keys(*[Keys.ARROW_RIGHT] * step)
    assert section.get_attribute("data-step") == str(step)


def side_lines(section, side: str) -> dict[str, str]:
    """The lines of one side's step panel, by kind (entered, window, v, cut...)."""
    from selenium.webdriver.common.by import By

    lines: dict[str, str] = {}
    for item in section.find_elements(By.CSS_SELECTOR, f".side-{side} li"):
        lines.setdefault(item.get_attribute("class"), item.text)
    return lines


def marks(section) -> dict[str, str]:
    from selenium.webdriver.common.by import By

    return {g.get_attribute("data-id"): g.get_attribute("data-mark")
            for g in section.find_elements(By.CSS_SELECTOR, "svg g.node")}


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    if missing_browser():
        pytest.skip(missing_browser())
    out = tmp_path_factory.mktemp("html-browser")
    return {"strict_pruning": make_report("strict_pruning", out),
            "never_prunes": make_report("never_prunes", out),
            "correct-strict": make_report("correct", out, strict_course=True)}


@pytest.fixture(scope="module")
def driver(reports):
    browser = chromium()
    yield browser
    browser.quit()


def open_report(driver, path: Path) -> None:
    driver.get(path.as_uri())
    driver.get_log("browser")  # start each page with an empty log


def severe(driver) -> list[dict]:
    return [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def test_never_prunes_shows_pruned_nodes_as_extra_and_the_window_at_the_difference(
        driver, reports, tmp_path):
    open_report(driver, reports["never_prunes"])
    section = section_of(driver, "aima-fig-5-2")
    found = marks(section)
    assert (found["C2"], found["C3"]) == ("extra", "extra")
    assert {found[n] for n in ("B", "B1", "C", "C1", "D", "D3")} == {"both"}
    slide_to(driver, section, 7)  # the first difference: the reference cut C, went to D
    ref, yours = side_lines(section, "ref"), side_lines(section, "got")
    assert ref["entered"] == "entered D, a child of A (MAX)"
    assert ref["window"] == "window at A: α = 3, β = +∞"
    assert "C cut off, v = 2 ≤ α = 3; pruned C2, C3" in ref["cut"]
    assert yours["entered"] == "entered C2, a child of C (MIN)"
    assert "window" not in yours  # never_prunes matches no rule: its window is not inferred
    assert "first difference" in section.text
    shot = tmp_path / "never-prunes.png"
    section.screenshot(str(shot))
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert severe(driver) == []


def test_strict_pruning_window_is_the_strict_rules(driver, reports, tmp_path):
    from selenium.webdriver.common.by import By

    open_report(driver, reports["strict_pruning"])
    assert len(driver.find_elements(By.CSS_SELECTOR, "section.case")) == 1  # aima-fig-5-2 passes
    section = section_of(driver, "prune-equal-root-level")
    found = marks(section)
    assert (found["C2"], found["C3"], found["D"]) == ("extra", "extra", "both")
    slide_to(driver, section, 7)
    assert side_lines(section, "ref")["window"] == "window at A: α = 3, β = +∞"
    assert side_lines(section, "got")["window"] == "window at C: α = 3, β = 3"
    assert "Likely mistake: prunes only on strict inequality" in section.text
    section.screenshot(str(tmp_path / "strict-pruning.png"))
    assert severe(driver) == []


def test_missing_nodes_under_a_strict_course_and_the_step_controls(driver, reports):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    open_report(driver, reports["correct-strict"])
    section = section_of(driver, "prune-equal-root-level")
    found = marks(section)
    assert (found["C2"], found["C3"]) == ("missing", "missing")
    crossed = [g.get_attribute("data-to")
               for g in section.find_elements(By.CSS_SELECTOR, "g.crossed")]
    assert crossed == []  # the strict reference prunes nothing here
    section.find_element(By.CSS_SELECTOR, "button.jump").click()
    assert section.get_attribute("data-step") == "7"
    section.find_element(By.CSS_SELECTOR, "button.next").click()
    assert section.get_attribute("data-step") == "8"
    section.find_element(By.CSS_SELECTOR, "button.prev").click()
    section.find_element(By.CSS_SELECTOR, "button.prev").send_keys(Keys.ARROW_LEFT)
    assert section.get_attribute("data-step") == "6"
    # before step 7 the reference has not generated C2 yet: its ring is hidden
    ring = section.find_element(By.CSS_SELECTOR, 'g.node[data-id="C2"] circle.ring.ref')
    assert not ring.is_displayed()
    section.find_element(By.CSS_SELECTOR, "button.end").click()
    assert ring.is_displayed()
    assert severe(driver) == []


def test_the_page_fetches_nothing(driver, reports):
    open_report(driver, reports["never_prunes"])
    resources = driver.execute_script(
        "return performance.getEntriesByType('resource').map(function (e) { return e.name; })")
    assert [name for name in resources if not name.startswith(("data:", "file:"))] == []


@pytest.fixture(scope="module")
def play_report(tmp_path_factory):
    if missing_browser():
        pytest.skip(missing_browser())
    return make_play_report(tmp_path_factory.mktemp("html-play"))


def test_a_lost_match_steps_to_its_losing_choice_with_both_moves_ringed(driver, play_report,
                                                                       tmp_path):
    """The report of a weak evaluation: each lost match opens at the move where the student's
    choice lost, both candidate moves ringed where they land, both evaluations of each beside
    the board; stepped away and back with the keys, and to the end, where the four in a row
    that ended the match is struck through."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    from grader.report.html.board import replay_match
    from grader.report.html.play import step_label

    path, results = play_report
    records = results.tests[0].extra_data["play"]
    assert [r["outcome"] for r in records] == ["loss", "loss"]
    open_report(driver, path)
    assert "2 of 3 steps" not in driver.page_source  # 0 of 3 here
    assert "0 of 3 steps" in driver.find_element(By.CSS_SELECTOR, "table.scores").text
    assert "MAX" not in driver.find_element(By.CSS_SELECTOR, ".legend").text
    shown = driver.find_elements(By.CSS_SELECTOR, "details.play-details")
    assert len(shown) == 2 and all(d.get_attribute("open") for d in shown)
    for record, details in zip(records, shown):
        match, choice = replay_match(record), record["choice"]
        step = choice["move"] - 1
        board = details.find_element(By.CSS_SELECTOR, ".play-match")
        assert board.get_attribute("data-step") == str(step)  # it opens at the losing choice

        def ring(who, board=board):
            return board.find_element(By.CSS_SELECTOR, f"g.cand.{who}")

        def discs(board=board):
            return len(board.find_elements(By.CSS_SELECTOR, "g.cell.x, g.cell.o"))

        def drawn(element):  # is_displayed() says no to a level line: its box has no height
            return driver.execute_script(
                "return getComputedStyle(arguments[0]).display !== 'none'", element)

        for who in ("yours", "staff"):
            assert ring(who).is_displayed()
            assert ring(who).get_attribute("data-cell") == str(match.cell_of(step, choice[who]))
            row = {r["action"]: r for r in choice["values"]}[choice[who]]
            assert board.find_element(By.CSS_SELECTOR, f"tr.{who}").text.split()[-2:] == [
                f"{row['yours'][1]:g}", f"{row['staff'][1]:g}"]
        assert discs() == len(match.initial.replace(".", "")) + step
        label = board.find_element(By.CSS_SELECTOR, ".move-label")
        assert label.text == step_label(record, match, step, step)
        board.find_element(By.CSS_SELECTOR, "button.end").click()
        assert not ring("yours").is_displayed() and not ring("staff").is_displayed()
        assert drawn(board.find_element(By.CSS_SELECTOR, "g.winline"))
        assert len(board.find_elements(By.CSS_SELECTOR, "g.cell.won")) >= 4
        assert discs() == len(match.moves) and label.text.endswith("the match is lost")
        slider = board.find_element(By.CSS_SELECTOR, "input.play-step")
        slider.send_keys(Keys.HOME)
        assert discs() == 0 and not drawn(board.find_element(By.CSS_SELECTOR, "g.winline"))
        slider.send_keys(*[Keys.ARROW_RIGHT] * step)
        assert board.get_attribute("data-step") == str(step)
        assert ring("yours").is_displayed() and ring("staff").is_displayed()
        assert "here" in board.find_element(By.CSS_SELECTOR, ".choice").get_attribute("class")
    shot = tmp_path / "play.png"
    shown[0].screenshot(str(shot))
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert severe(driver) == []
