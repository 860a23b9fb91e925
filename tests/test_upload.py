"""The upload as a whole: which file was graded and why, one message when nothing can be graded,
and test numbers that reveal no hidden count (grader/scoring/upload.py, through ``grade``)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from grader.cases.rubric import load_rubric
from grader.report.gradescope import results_dict
from grader.scoring.grade import grade
from grader.scoring.upload import by_visibility, numbered

REPO = Path(__file__).resolve().parent.parent
CORRECT = REPO / "tests" / "submissions" / "correct" / "search.py"
STUBS = REPO / "student" / "search.py"
RUBRIC = load_rubric(REPO / "trees" / "rubric.toml")
CASES = ["aima-fig-5-2", "deep-narrow", "min-at-root", "negative-leaves"]


def cases_with(tmp_path: Path, visibility: dict[str, str]) -> Path:
    """A few public cases, some given their own visibility."""
    folder = tmp_path / "cases"
    folder.mkdir()
    for name in CASES:
        data = json.loads((REPO / "trees" / "public" / f"{name}.json").read_text())
        data["algorithms"] = ["minimax"]
        data.get("expect", {}).pop("alpha_beta", None)
        if name in visibility:
            data["visibility"] = visibility[name]
        (folder / f"{name}.json").write_text(json.dumps(data))
    return folder


def test_an_ambiguous_upload_is_refused_once_at_the_top_with_the_candidates(tmp_path):
    upload = tmp_path / "upload"
    (upload / "student").mkdir(parents=True)
    shutil.copy(CORRECT, upload / "student" / "search.py")
    shutil.copy(STUBS, upload / "search.py")  # the untouched stub a student zipped along
    results = grade(upload, [REPO / "trees" / "public"], rubric=RUBRIC)
    data = results_dict(results)
    assert data["output"].startswith("Nothing was graded: your upload holds 2 different search.py")
    assert "`search.py` (" in data["output"] and "`student/search.py` (" in data["output"]
    (test,) = data["tests"]  # one test, not one copy of the message a case
    assert test["output"] == "Nothing was graded: see the message for the whole submission."
    full = grade(upload / "student", [REPO / "trees" / "public"], rubric=RUBRIC,
                 algorithms=["minimax"])
    assert test["max_score"] > full.max_score > 0  # the total stays the assignment's
    assert data["score"] == 0


def test_the_top_level_output_names_the_graded_file_and_why(tmp_path):
    upload = tmp_path / "upload"
    (upload / "hw3").mkdir(parents=True)
    shutil.copy(STUBS, upload / "hw3" / "search.py")
    results = grade(upload, [cases_with(tmp_path, {})], rubric=RUBRIC)
    assert results.output.splitlines()[0] == (
        "Graded `hw3/search.py`: the only search.py in your upload.")
    assert len(results.tests) == len(CASES)


def test_visible_tests_are_numbered_first_without_gaps(tmp_path):
    """Hidden cases first in case order used to be numbered first: the first visible test 1.3
    told students there were two hidden ones."""
    folder = cases_with(tmp_path, {"aima-fig-5-2": "hidden", "deep-narrow": "after_due_date"})
    results = grade(STUBS, [folder], rubric=RUBRIC, algorithms=["minimax"])
    numbers = {test.case_name: (test.number, test.visibility) for test in results.tests}
    assert numbers == {
        "min-at-root": ("1.1", "visible"),
        "negative-leaves": ("1.2", "visible"),
        "deep-narrow": ("1.3", "after_due_date"),
        "aima-fig-5-2": ("1.4", "hidden"),
    }
    assert [test.number for test in results.tests] == ["1.1", "1.2", "1.3", "1.4"]


def test_numbering_counts_on_lazily_per_algorithm():
    items = [("a", "minimax"), ("b", "alpha_beta"), ("c", "minimax")]
    ordered = by_visibility(items, lambda item: {"a": "hidden"}.get(item[0], "visible"))
    assert ordered == [("b", "alpha_beta"), ("c", "minimax"), ("a", "minimax")]
    counters = {"minimax": 0, "alpha_beta": 3}
    assert [number for *_, number in numbered(ordered, counters)] == ["2.4", "1.1", "1.2"]
    assert counters == {"minimax": 2, "alpha_beta": 4}
