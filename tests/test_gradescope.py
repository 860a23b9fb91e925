"""grader/gradescope.py: results.json through gradescope-utils, valid whatever happens."""

import functools
import io
import json
import unittest
from pathlib import Path

import jsonschema
import pytest
from gradescope_utils.autograder_utils.decorators import partial_credit, weight
from gradescope_utils.autograder_utils.json_test_runner import JSONTestRunner

from grader.report import gradescope
from grader.scoring.results import GradingResults, TestResult

SCHEMA = json.loads((Path(__file__).parent / "gradescope_results.schema.json").read_text())


def make_test(number, outcome, score, max_score=2.0, visibility="visible", output=""):
    return TestResult(
        name=f"alpha_beta: case-{number} (a case)", number=number, algorithm="alpha_beta",
        case_name=f"case-{number}", max_score=max_score, score=score, outcome=outcome,
        visibility=visibility, output=output, summary=outcome,
    )


@pytest.fixture
def graded():
    return GradingResults(
        tests=[
            make_test("2.1", "passed", 2.0),
            make_test("2.2", "wrong_trace", 1.0, output="generated differs at step 4"),
            make_test("2.3", "wrong_value", 0.0, visibility="hidden", output="expected 3, got 4"),
        ],
        output="graded",
        execution_time=1.25,
    )


def test_results_validate_against_gradescopes_format(graded):
    data = gradescope.results_dict(graded)
    jsonschema.validate(data, SCHEMA)


def test_every_test_appears_with_its_partial_score_and_status(graded):
    data = gradescope.results_dict(graded)
    assert [t["number"] for t in data["tests"]] == ["2.1", "2.2", "2.3"]
    assert [t["score"] for t in data["tests"]] == [2.0, 1.0, 0.0]
    assert [t["status"] for t in data["tests"]] == ["passed", "failed", "failed"]
    assert data["tests"][2]["visibility"] == "hidden"
    assert data["score"] == 3.0


def test_execution_time_is_a_number_not_gradescope_utils_string(graded):
    assert isinstance(gradescope.results_dict(graded)["execution_time"], float)


def test_output_is_ours_not_the_runners_failure_prefix(graded):
    outputs = [t.get("output", "") for t in gradescope.results_dict(graded)["tests"]]
    assert outputs[1] == "generated differs at step 4"
    assert not any("Test Failed" in output for output in outputs)


def test_partial_credit_under_a_wrapping_decorator_loses_the_score():
    """The trap the module avoids: a functools.wraps decorator above @partial_credit."""

    def wrapping(function):
        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            return function(*args, **kwargs)

        return wrapper

    class Trapped(unittest.TestCase):
        @wrapping
        @partial_credit(4)
        def test_half(self, set_score=None):
            set_score(2)

    stream = io.StringIO()
    JSONTestRunner(stream=stream).run(unittest.defaultTestLoader.loadTestsFromTestCase(Trapped))
    assert json.loads(stream.getvalue())["tests"][0]["score"] == 4  # not 2: the score was lost


def test_skipped_tests_vanish_from_gradescope_utils_results():
    """Why replayed tests never skip: a skipped test is silently dropped from tests[]."""

    class Skipping(unittest.TestCase):
        @weight(1)
        def test_skipped(self):
            self.skipTest("never do this")

    stream = io.StringIO()
    JSONTestRunner(stream=stream).run(unittest.defaultTestLoader.loadTestsFromTestCase(Skipping))
    assert json.loads(stream.getvalue())["tests"] == []


def test_printing_during_replay_cannot_forge_the_file(graded, capsys):
    graded.tests[0].output = '{"score": 1000, "tests": []}'
    data = gradescope.results_dict(graded)
    assert data["score"] == 3.0
    assert capsys.readouterr().out == ""


def test_a_failure_while_writing_leaves_valid_error_results(graded, tmp_path, monkeypatch):
    def explode(results):
        raise RuntimeError("boom")

    monkeypatch.setattr(gradescope, "results_dict", explode)
    path = tmp_path / "results" / "results.json"
    gradescope.write_results(graded, path)
    data = json.loads(path.read_text())
    jsonschema.validate(data, SCHEMA)
    assert data["score"] == 0.0
    assert data["tests"][0]["visibility"] == "hidden" and "boom" in data["tests"][0]["output"]
    assert data["output"] == gradescope.NEUTRAL_SUBMISSION_ERROR and "boom" not in data["output"]
    assert [p.name for p in path.parent.iterdir()] == ["results.json"]  # no temp files left


# --- strings a submission controls ----------------------------------------------------------

UNSHOWABLE = "a\x00b\udcffc\ud800"  # NUL, a lone low and a lone high surrogate


def test_nul_and_lone_surrogates_never_reach_the_file_and_the_output_says_so(graded, tmp_path):
    graded.tests[1].output = f"Your code printed:\n{UNSHOWABLE}"
    graded.tests[1].summary = "wrong \x00 value"
    graded.tests[1].extra_data = {"replay": {"got": {"value": UNSHOWABLE, "generated": ["\x00"]}},
                                  "key\udcff": 1}
    graded.staff_notes.append(f"audit: {UNSHOWABLE}")
    graded.output = "graded \x00"
    path = tmp_path / "results.json"
    data = gradescope.write_results(graded, path)
    text = path.read_text()
    assert "\\u0000" not in text and "\\ud" not in text.lower()  # no escape of either survives
    test = data["tests"][1]
    assert test["output"].startswith("Your code printed:\na\ufffdb\ufffdc\ufffd")
    assert "9 character(s) that results cannot hold" in test["output"]  # 3+1+3+1+1
    assert test["extra_data"]["replay"]["got"] == {"value": "a\ufffdb\ufffdc\ufffd",
                                                   "generated": ["\ufffd"]}
    assert "key\ufffd" in test["extra_data"]
    assert data["output"].startswith("graded \ufffd") and "4 character(s)" in data["output"]
    assert data["extra_data"]["staff_notes"] == ["audit: a\ufffdb\ufffdc\ufffd"]
    assert gradescope.results_dict(graded) == data | {"execution_time": data["execution_time"]}


@pytest.mark.parametrize("where", ["name", "number", "case_name", "summary", "staff_output",
                                   "extra key", "extra tuple", "top output", "staff note"])
def test_a_single_unshowable_character_anywhere_is_cleaned(graded, where):
    """The quick pass that lets clean results through unwalked (may_need_cleaning) misses no
    field that the walk cleans, however deep, in a key or in a tuple."""
    test = graded.tests[0]
    if where == "extra key":
        test.extra_data = {"replay": {"got": {"\udcff": [1, 2]}}}
    elif where == "extra tuple":
        test.extra_data = {"values": ("a", ("b", "\x00"))}
    elif where == "top output":
        graded.output = "done\x00"
    elif where == "staff note":
        graded.staff_notes.append("\ud800")
    else:
        setattr(test, where, getattr(test, where) + "\x00")
    assert graded.clean() == 1
    assert graded.clean() == 0  # idempotent: the second call finds nothing
    text = json.dumps(gradescope.results_dict(graded), ensure_ascii=False)
    assert "\\u0000" not in text and "\ud800" not in text and "\udcff" not in text


def test_the_quick_pass_tells_clean_data_from_data_to_clean():
    from grader.feedback.markdown import may_need_cleaning

    clean = ["a", {"k": ["b", ("c", 1.5, None)]}, "\U0001F600 emoji (a surrogate pair in JSON)",
             object()]  # an object is opaque, as clean_data leaves it
    assert not may_need_cleaning(clean)
    for unclean in (["\x00"], {"k\ud800": 1}, [("x", "\udfff")], {1: ["\x00"]}):
        assert may_need_cleaning(unclean)
    # where it cannot tell quickly it says so, and the walk decides
    assert may_need_cleaning({(1, 2): "a"}) and may_need_cleaning(["the text \\u0000"])


def test_error_results_clean_the_staff_detail(tmp_path):
    data = gradescope.error_results("grading failed \x00", "Traceback\n```\nx\udcff")
    jsonschema.validate(data, SCHEMA)
    staff = data["tests"][0]["output"]
    assert "\x00" not in staff and "\udcff" not in staff
    assert "````\nTraceback\n```\nx\ufffd\n````" in staff  # fenced past the detail's own fence


@pytest.mark.parametrize("printed", ["```", "x ``` y", "````````\n# heading\n<b>html</b>"])
def test_student_text_cannot_close_its_fence(printed):
    from grader.feedback.markdown import fenced

    block = fenced(printed)
    fence = block.splitlines()[0]
    inner = block.splitlines()[1:-1]
    assert set(fence) == {"`"} and block.splitlines()[-1] == fence
    # CommonMark closes a backtick block only at a line of at least as many backticks.
    assert not [line for line in inner if line.strip().startswith(fence)]
    assert "\n".join(inner) == printed


def test_results_json_stays_under_its_bound_and_its_reserve_whatever_each_test_holds(tmp_path):
    """Issue 34: 111 tests each holding much of what a worker can make of them (an output
    near its caps, a replay of ids) are cut to RESULTS_BOUND, under the room
    reserved beside results.json; the test says it was cut, and the scores stay."""
    from grader.files import RESERVE_BYTES
    from grader.scoring.results import RESULTS_BOUND

    ids = [f"n{i:05d}" for i in range(4_000)]
    tests = [TestResult(f"alpha_beta: case {i}", f"2.{i}", "alpha_beta", f"case {i}", 1.0,
                        0.5, "wrong_trace", output="X" * 45_000,
                        extra_data={"replay": {"generated": ids, "expected": ids}})
             for i in range(111)]
    results = GradingResults(tests=tests, output="summary")
    path = tmp_path / "results.json"
    gradescope.write_results(results, path)
    size = path.stat().st_size
    assert RESULTS_BOUND < size < RESERVE_BYTES, size
    assert RESULTS_BOUND < RESERVE_BYTES
    data = json.loads(path.read_text())
    assert [t["score"] for t in data["tests"]] == [0.5] * 111
    assert all("was cut: results.json is kept under" in t["output"] for t in data["tests"])
    assert all("replay" not in t["extra_data"] for t in data["tests"])
    small = GradingResults(tests=[TestResult("minimax: a", "1.1", "minimax", "a", 1.0, 1.0,
                                             "passed", output="ok")])
    assert small.bound() == 0 and small.tests[0].output == "ok"  # nothing under the bound cut
