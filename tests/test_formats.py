"""grader/report/{prairielearn,junit,classroom}.py and ``grader grade --format``: each platform's
file from the one results model, valid against the platform's own schema (tests/platform_schemas:
Jenkins' junit-10.xsd, vendored with its licence) or description, and a real parser, hidden
cases' details kept out, and a valid file even when the grader fails."""

import base64
import copy
import json
from pathlib import Path

import jsonschema
import junitparser
import pytest
import suite_modules
from lxml import etree

from grader.commands.grade import grade_main
from grader.report import classroom, formats, junit, prairielearn
from grader.scoring.grade import grade
from grader.scoring.results import GRADER_ERROR, NEUTRAL_GRADER_ERROR, GradingResults, TestResult

HERE = Path(__file__).parent
SCHEMAS = HERE / "platform_schemas"
PL_SCHEMA = json.loads((SCHEMAS / "prairielearn_results.schema.json").read_text())
CLASSROOM_SCHEMA = json.loads((SCHEMAS / "classroom_results.schema.json").read_text())
GRADESCOPE_SCHEMA = json.loads((HERE / "gradescope_results.schema.json").read_text())
JUNIT_XSD = etree.XMLSchema(etree.parse(str(SCHEMAS / "junit-10.xsd")))  # Jenkins' xUnit plugin
SECRET = "secret-hidden-case"
CASE = HERE.parent / "trees" / "public" / "aima-fig-5-2.json"
CORRECT = HERE / "submissions" / "correct" / "search.py"
variants = suite_modules.load("submissions/variants.py")

# Every kind of upload a platform's file must stay valid for (name -> (file name, text)).
UPLOADS = {
    "stub": ("search.py", (HERE.parent / "student" / "search.py").read_text()),
    "syntax_error": ("search.py", "def alpha_beta(game, state:\n    return 0\n"),
    "import_exception": ("search.py", "raise RuntimeError('boom at import')\n"),
    "raises_in_alpha_beta": ("search.py", CORRECT.read_text().replace(
        "def alpha_beta(game, state, alpha=-math.inf, beta=math.inf, depth=0):",
        "def alpha_beta(game, state, alpha=-math.inf, beta=math.inf, depth=0):\n"
        "    raise KeyError('inside alpha_beta')", 1)),
    "control_characters": ("search.py", CORRECT.read_text().replace(
        "def alpha_beta(game, state, alpha=-math.inf, beta=math.inf, depth=0):",
        "def alpha_beta(game, state, alpha=-math.inf, beta=math.inf, depth=0):\n"
        "    print('\\x00\\x07\\x1b[31m\\udcff\\ufffe ]]> <x/> &amp;')\n"
        "    raise ValueError('\\x00\\x0b\\x1f')", 1)),
    "empty_upload": ("search.py", ""),
    "never_prunes": ("search.py", variants.source("never_prunes")),
    "correct": ("search.py", CORRECT.read_text()),
    "not_json_notebook": ("search.ipynb", "not json\n"),
    "empty_notebook": ("search.ipynb", ""),
}


@pytest.fixture(scope="module")
def graded_upload(tmp_path_factory, shared_answers):
    """``graded_upload(name)``: the results of grading :data:`UPLOADS`' ``name`` on
    :data:`CASE` (graded once a module, on first use; each caller gets its own copy, from which
    every format is written as ``grader grade`` writes it)."""
    done: dict[str, GradingResults] = {}

    def graded(name: str) -> GradingResults:
        if name not in done:
            file_name, text = UPLOADS[name]
            path = tmp_path_factory.mktemp(name) / file_name
            path.write_text(text, encoding="utf-8", errors="surrogatepass")
            done[name] = grade(path, [CASE], answers=shared_answers)
        return copy.deepcopy(done[name])

    return graded


def make_test(number, outcome, score, max_score=2.0, visibility="visible", output="", name=None):
    case = name or f"case-{number}"
    return TestResult(
        name=f"alpha_beta: {case} (a case)", number=number, algorithm="alpha_beta",
        case_name=case, max_score=max_score, score=score, outcome=outcome,
        visibility=visibility, output=output, summary=f"{outcome} summary",
        staff_output="staff only: traceback",
    )


@pytest.fixture
def graded():
    return GradingResults(
        tests=[
            make_test("2.1", "passed", 2.0),
            make_test("2.2", "wrong_trace", 1.0, output="generated differs at step 4"),
            make_test("2.3", "wrong_value", 0.0, visibility="after_due_date",
                      output=f"expected 3, got 4 on {SECRET}", name=SECRET),
            make_test("2.4", "passed", 2.0, visibility="hidden", name=f"{SECRET}-2"),
        ],
        output="graded",
        staff_notes=["audit: staff note"],
        execution_time=1.25,
    )


# --- PrairieLearn ---------------------------------------------------------------------------


def test_prairielearn_results_follow_its_format_and_score_as_a_fraction(graded):
    data = prairielearn.results_dict(graded)
    jsonschema.validate(data, PL_SCHEMA)
    assert data["gradable"] is True
    assert data["score"] == pytest.approx(5 / 8)
    shown = {test["name"]: test for test in data["tests"]}
    assert shown["2.2 alpha_beta: case-2.2 (a case)"]["points"] == 1.0
    assert shown["2.2 alpha_beta: case-2.2 (a case)"]["output"] == "generated differs at step 4"
    assert sum(t["points"] for t in data["tests"]) == graded.score
    assert sum(t["max_points"] for t in data["tests"]) == graded.max_score


def test_prairielearn_folds_hidden_tests_into_points_only(graded):
    data = prairielearn.results_dict(graded)
    text = json.dumps(data)
    assert SECRET not in text and "staff only" not in text and "audit" not in text
    (hidden,) = [t for t in data["tests"] if t["name"] == prairielearn.HIDDEN_NAME]
    assert (hidden["points"], hidden["max_points"]) == (2.0, 4.0)
    assert hidden["output"] == hidden["message"] == ""


def test_prairielearn_shows_each_failure_once_not_in_message_and_output(graded_upload):
    """PrairieLearn's results element prints a test's message above its output: feedback that
    opens with its summary would say it twice."""
    for name in ("stub", "never_prunes", "raises_in_alpha_beta"):
        data = prairielearn.results_dict(graded_upload(name))
        tests = [t for t in data["tests"] if t["message"]]
        assert tests
        assert [t["name"] for t in tests if t["output"].startswith(t["message"])] == [], name
    stub = prairielearn.results_dict(graded_upload("stub"))["tests"][0]
    assert "not implemented" in stub["message"] and stub["output"] == ""
    assert prairielearn.after_message("won 3: the rate 1\n\ntable", "won 3") == \
        "The rate 1\n\ntable"
    assert prairielearn.after_message("other text", "won 3") == "other text"


def test_prairielearn_grader_failure_is_not_gradable(graded):
    graded.tests.append(make_test("2.5", GRADER_ERROR, 0.0))
    data = prairielearn.results_dict(graded)
    jsonschema.validate(data, PL_SCHEMA)
    assert data["gradable"] is False and data["message"] == NEUTRAL_GRADER_ERROR
    jsonschema.validate(prairielearn.error_results("boom", "traceback"), PL_SCHEMA)
    assert "traceback" not in json.dumps(prairielearn.error_results("boom", "traceback"))


def test_prairielearn_file_stays_under_its_one_megabyte_limit(tmp_path):
    many = GradingResults(tests=[make_test(f"2.{i}", "wrong_value", 0.0, output="x" * 200_000)
                                 for i in range(1, 30)])
    path = tmp_path / "results.json"
    prairielearn.write_results(many, path)
    assert path.stat().st_size < prairielearn.MAX_BYTES
    jsonschema.validate(json.loads(path.read_text()), PL_SCHEMA)


# --- JUnit ----------------------------------------------------------------------------------


def parse_junit(path):
    """The report read by junitparser, after it was checked against Jenkins' junit-10.xsd."""
    JUNIT_XSD.assertValid(etree.parse(str(path)))
    xml = junitparser.JUnitXml.fromfile(str(path))
    return xml, [case for suite in xml for case in suite]


def test_junit_report_parses_with_counts_points_and_failures(graded, tmp_path):
    path = tmp_path / "junit.xml"
    junit.write_results(graded, path)
    xml, cases = parse_junit(path)
    (suite,) = list(xml)
    assert (suite.name, suite.tests, suite.failures, suite.errors) == ("alpha_beta", 4, 2, 0)
    assert {p.name: p.value for p in suite.properties()} == {"score": "5", "max_score": "8"}
    assert "<properties>" not in path.read_text().split("<testsuite ")[0]  # none on <testsuites>
    by_name = {case.name: case for case in cases}
    wrong = by_name["2.2 alpha_beta: case-2.2 (a case)"]
    (failure,) = wrong.result
    assert isinstance(failure, junitparser.Failure)
    assert failure.type == "wrong_trace" and failure.message.startswith("1/2 points")
    assert "generated differs at step 4" in failure.text
    assert by_name["2.1 alpha_beta: case-2.1 (a case)"].is_passed


def test_junit_hides_hidden_cases_details_but_keeps_pass_and_fail(graded, tmp_path):
    path = tmp_path / "junit.xml"
    junit.write_results(graded, path)
    text = path.read_text()
    assert SECRET not in text and "staff only" not in text
    _, cases = parse_junit(path)
    by_name = {case.name: case for case in cases}
    assert not by_name["hidden test 2.3"].is_passed
    assert by_name["hidden test 2.4"].is_passed


def test_junit_drops_what_xml_cannot_hold_and_errors_stay_valid(tmp_path):
    results = GradingResults(tests=[
        make_test("2.1", "error", 0.0, output="printed \x00\x07\x1b[31m bytes"),
        make_test("2.2", GRADER_ERROR, 0.0),
    ])
    path = tmp_path / "junit.xml"
    junit.write_results(results, path)
    _, cases = parse_junit(path)
    assert isinstance(cases[1].result[0], junitparser.Error)
    assert cases[1].result[0].message == NEUTRAL_GRADER_ERROR
    path.write_text(junit.error_xml("boom", "traceback"))
    _, (case,) = parse_junit(path)
    assert isinstance(case.result[0], junitparser.Error)


# --- GitHub Classroom -----------------------------------------------------------------------


def validate_classroom(data):
    """classroom.json: runners, each a result the grading reporter reads from <ID>_RESULTS."""
    assert data["runners"]
    for name, runner in data["runners"].items():
        assert name.isalnum()  # the reporter's rule for runner ids
        jsonschema.validate(runner, CLASSROOM_SCHEMA)
    return data


def reporter_totals(data):
    """The reporter's two totals (v1 dist/main.js): the log's (tests passed / tests x
    max_score, a runner) and the "Points" notice's (the sum of the tests' scores)."""
    log = sum(sum(t["status"] == "pass" for t in r["tests"]) / len(r["tests"]) * r["max_score"]
              for r in data["runners"].values())
    points = sum(t["score"] for r in data["runners"].values() if r["max_score"]
                 for t in r["tests"])
    return log, points


def test_classroom_result_is_what_the_grading_reporter_reads(graded):
    data = validate_classroom(classroom.results_dict(graded))
    log, points = reporter_totals(data)
    assert log == points == 5.0
    assert sum(r["max_score"] for r in data["runners"].values()) == 8.0
    assert set(data["runners"]) == {"worth2pt", "worth1pt"}  # 2.2 is 1 earned + 1 not
    names = [t["name"] for r in data["runners"].values() for t in r["tests"]]
    # the reporter prints a failed test's name only: the reason is in it
    assert "2.2 alpha_beta: case-2.2 (the other 1): wrong_trace summary" in names
    assert "2.2 alpha_beta: case-2.2 (1 of 2 points)" in names
    assert "hidden test 2.3: not passed" in names
    assert SECRET not in json.dumps(data) and "staff only" not in json.dumps(data)
    error = validate_classroom(classroom.error_results("boom"))
    (runner,) = error["runners"].values()
    assert runner["status"] == "error" and runner["tests"][0]["message"] == NEUTRAL_GRADER_ERROR


def test_classroom_totals_agree_for_any_points_and_partial_credit():
    tests = [make_test("2.1", "wrong_trace", 0.3, max_score=1.0),
             make_test("2.2", "passed", 2.5, max_score=2.5),
             make_test("2.3", "wrong_value", 0.0, max_score=0.7),
             make_test("7.1", "passed", 0.0, max_score=0.0),
             make_test("2.4", GRADER_ERROR, 0.0, max_score=1.0)]
    data = validate_classroom(classroom.results_dict(GradingResults(tests=tests)))
    log, points = reporter_totals(data)
    assert log == pytest.approx(points) and points == pytest.approx(2.8)
    assert data["runners"]["checks"]["max_score"] == 0  # counted by neither total
    assert [r["status"] for r in data["runners"].values()].count("error") == 1


def test_classroom_step_hands_the_runners_to_the_reporter(graded, tmp_path):
    path, env, output = tmp_path / "classroom.json", tmp_path / "env", tmp_path / "output"
    classroom.write_results(graded, path)
    assert classroom.write_github_step(path, env, output) == ["worth2pt", "worth1pt"]
    assert output.read_text() == "runners=worth2pt,worth1pt\n"
    lines = dict(line.split("=", 1) for line in env.read_text().splitlines())
    runner = json.loads(base64.b64decode(lines["WORTH2PT_RESULTS"]))
    assert runner["status"] == "fail"  # PASS_FRACTION 1: below full marks, the run fails
    classroom.write_github_step(path, env, output, pass_fraction=0.5)  # 5/8 >= 0.5: it passes
    lines = dict(line.split("=", 1) for line in env.read_text().splitlines())
    assert json.loads(base64.b64decode(lines["WORTH2PT_RESULTS"]))["status"] == "pass"
    assert classroom.write_github_step(tmp_path / "missing.json", env, output) == ["grading"]


def test_junit_meets_is_the_gitlab_job_status(graded, tmp_path, capsys):
    path = tmp_path / "junit.xml"
    junit.write_results(graded, path)
    assert junit.meets(path, 1.0) == 1
    assert "5/8: below 100% of the points (PASS_FRACTION 1)," in capsys.readouterr().out
    assert junit.meets(path, 0.6) == 0 and junit.meets(path, 0.0) == 0  # 5 of 8 points
    assert "5/8: at least 60% of the points (PASS_FRACTION 0.6);" in capsys.readouterr().out
    path.write_text(junit.error_xml("boom"))
    assert junit.meets(path, 0.0) == 1  # the grader failed: never a green job
    assert junit.meets(tmp_path / "missing.xml", 0.0) == 1


# --- grader grade --format ------------------------------------------------------------------

VALIDATORS = {
    "gradescope": lambda path: jsonschema.validate(json.loads(path.read_text()), GRADESCOPE_SCHEMA),
    "prairielearn": lambda path: jsonschema.validate(json.loads(path.read_text()), PL_SCHEMA),
    "junit": parse_junit,
    "classroom": lambda path: validate_classroom(json.loads(path.read_text())),
}


def test_every_format_has_a_validator_here():
    assert set(VALIDATORS) == set(formats.FORMATS)


@pytest.mark.parametrize("name", sorted(formats.FORMATS))
def test_a_grader_failure_still_writes_a_valid_file_of_the_format(name, tmp_path, capsys):
    path = tmp_path / "out"
    code = grade_main(HERE / "submissions" / "correct" / "search.py", [tmp_path],
                      results_path=path, rubric_path=tmp_path / "no-such-rubric.toml",
                      format_name=name)
    assert code == 2
    VALIDATORS[name](path)
    assert "grading failed" in capsys.readouterr().out  # the detail, for staff, in the log


@pytest.mark.parametrize("name", ["prairielearn", "junit"])
def test_grade_writes_the_chosen_format_for_a_real_submission(name, tmp_path):
    path = tmp_path / "out"
    case = HERE.parent / "trees" / "public" / "aima-fig-5-2.json"
    code = grade_main(HERE / "submissions" / "correct" / "search.py", [case],
                      results_path=path, format_name=name)
    assert code == 0
    VALIDATORS[name](path)
    if name == "prairielearn":
        data = json.loads(path.read_text())
        assert data["score"] == 1.0 and data["gradable"] is True
    else:
        _, cases = parse_junit(path)
        assert cases and all(case.is_passed for case in cases)


@pytest.mark.parametrize("upload", sorted(UPLOADS))
def test_junit_report_of_every_kind_of_upload_is_valid_against_jenkins_xsd(upload, graded_upload,
                                                                           tmp_path):
    path = tmp_path / "junit.xml"
    formats.write_results(graded_upload(upload), path, "junit")
    _, cases = parse_junit(path)  # junit-10.xsd, then junitparser
    assert len(cases) == 2
    assert all(case.is_passed for case in cases) == (upload == "correct")


NOT_GRADABLE = {"syntax_error", "empty_upload", "not_json_notebook", "empty_notebook"}


@pytest.mark.parametrize("upload", sorted(UPLOADS))
def test_prairielearn_unreadable_uploads_are_not_gradable_and_text_is_for_pre(upload,
                                                                              graded_upload,
                                                                              tmp_path):
    """PrairieLearn's docs give a syntax error and missing or malformed input as the cases for
    ``gradable: false`` (no attempt used), with ``format_errors``; its results element shows
    ``message`` and ``output`` in ``<pre>``, so no Markdown and no control character."""
    path = tmp_path / "results.json"
    formats.write_results(graded_upload(upload), path, "prairielearn")
    data = json.loads(path.read_text())
    jsonschema.validate(data, PL_SCHEMA)
    assert data["gradable"] is (upload not in NOT_GRADABLE)
    if upload in NOT_GRADABLE:
        assert data["format_errors"] and all(data["format_errors"])
        assert "does not count as an attempt" in data["message"]
    else:
        assert "format_errors" not in data
    if upload == "correct":
        assert data["score"] == 1.0
    elif upload in NOT_GRADABLE | {"stub", "import_exception"}:
        assert data["score"] == 0.0
    else:  # minimax right, alpha_beta not (or only its value)
        assert 0.0 < data["score"] < 1.0
    texts = [data["message"], *data.get("format_errors", [])]
    texts += [test[key] for test in data["tests"] for key in ("name", "message", "output")]
    for text in texts:
        assert "**" not in text and "```" not in text and "\\*" not in text, text
        assert not [c for c in text if ord(c) < 32 and c not in "\n\t"], repr(text)


def test_prairielearn_says_why_an_upload_is_not_gradable(graded_upload):
    (error,) = prairielearn.results_dict(graded_upload("syntax_error"))["format_errors"]
    assert "SyntaxError" in error and "line 1" in error
    (error,) = prairielearn.results_dict(graded_upload("empty_upload"))["format_errors"]
    assert error.startswith("search.py defines none of the functions")
    (error,) = prairielearn.results_dict(graded_upload("not_json_notebook"))["format_errors"]
    assert "search.ipynb" in error and "not a readable Jupyter notebook" in error


def test_prairielearn_upload_without_a_file_is_not_gradable(tmp_path):
    """PrairieLearn's upload element lets a student submit no file: /grade/student is empty."""
    data = prairielearn.results_dict(grade(tmp_path, [CASE]))
    assert data["gradable"] is False
    assert data["format_errors"] == ["no search.py in your upload; the files submitted were: none"]


def test_prairielearn_text_is_plain_where_the_feedback_is_markdown():
    from grader.report.prairielearn import pre_text

    markdown = ("**alpha_beta** on `aima-fig-5-2`:\n```\nexpected: B **B1**\n```\n"
                "a\\*b \\<img\\> `` a`b ``\x1b[31m")
    expected = "alpha_beta on aima-fig-5-2:\nexpected: B **B1**\na*b <img> a`b[31m"
    assert pre_text(markdown) == expected
