"""docker/run_autograder on a temporary /autograder, laid out as Gradescope lays it out.

The source comes from the built autograder zip; setup.sh runs its "permissions" step (installing
Python and creating a user need a real image); GRADER_PYTHON points at the Python running these
tests instead of /opt/grader-venv. Each test puts a submission in submission/, runs
run_autograder, and reads results/results.json, which must be valid whatever happened.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import jsonschema
import pytest
import suite_modules

from grader.report.gradescope import NEUTRAL_SUBMISSION_ERROR

REPO = Path(__file__).resolve().parent.parent
CORRECT = REPO / "tests" / "submissions" / "correct" / "search.py"
STUBS = REPO / "student" / "search.py"
SCHEMA = json.loads((REPO / "tests" / "gradescope_results.schema.json").read_text())
# made once (jsonschema.validate checks the schema itself at each call: 17 ms a results file)
VALIDATOR = jsonschema.validators.validator_for(SCHEMA)(SCHEMA)
HIDDEN_CASE = min((REPO / "trees" / "hidden").glob("*.json")).name
variants = suite_modules.load("submissions/variants.py")
as_root = pytest.mark.skipif(os.geteuid() != 0, reason="the worker drops privileges only as root")


@pytest.fixture(scope="module")
def autograder(autograder_build) -> Path:
    """A world-traversable folder like /autograder (as root, student code runs as nobody),
    from the suite's one build of the zip (tests/conftest.py: tests/test_build.py checks it)."""
    archive, _ = autograder_build
    root = Path(tempfile.mkdtemp(prefix="autograder-"))
    root.chmod(0o755)
    source = root / "source"
    with zipfile.ZipFile(archive) as zipped:
        for info in zipped.infolist():
            zipped.extract(info, source)
            os.chmod(source / info.filename, (info.external_attr >> 16) & 0o777)
    shutil.copy2(source / "run_autograder", root / "run_autograder")  # as Gradescope does
    env = dict(os.environ, AUTOGRADER_ROOT=str(root), GRADER_SETUP_STEPS="permissions")
    subprocess.run(["bash", str(source / "setup.sh")], env=env, check=True, timeout=60)
    yield root
    shutil.rmtree(root, ignore_errors=True)


def run_autograder(root: Path, files: dict[str, str | Path], **env: str) -> tuple[dict, str]:
    """Submit ``files`` (path in submission/ -> text or a file to copy); the results and the log."""
    submission = root / "submission"
    shutil.rmtree(submission, ignore_errors=True)
    for name, content in files.items():
        target = submission / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content.read_text() if isinstance(content, Path) else content)
    environment = {k: v for k, v in os.environ.items() if k not in ("GRADER_CACHE", "PYTHONPATH")}
    environment.update({"AUTOGRADER_ROOT": str(root), "GRADER_PYTHON": sys.executable, **env})
    proc = subprocess.run([str(root / "run_autograder")], env=environment, capture_output=True,
                          text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stderr
    data = json.loads((root / "results" / "results.json").read_text())
    VALIDATOR.validate(data)
    return data, proc.stdout + proc.stderr


def staff_message(data: dict) -> str:
    (test,) = data["tests"]
    assert test["name"] == "Autograder error (visible to staff only)"
    assert test["visibility"] == "hidden" and data["score"] == 0
    assert "problem on the course staff's side" in data["output"]
    return test["output"]


def test_setup_locks_answers_away_from_others(autograder):
    source = autograder / "source"
    for secret in ("reference", "trees", "trees/hidden", ".cache"):
        assert stat.S_IMODE((source / secret).stat().st_mode) & 0o077 == 0, secret
    assert stat.S_IMODE((autograder / "results").stat().st_mode) == 0o700
    for readable in ("grader", "grader/games", "grader/sandbox/worker.py"):
        assert (source / readable).stat().st_mode & 0o004, readable


def test_correct_submission_in_a_student_folder_gets_full_marks(autograder):
    if not CORRECT.exists():
        pytest.skip(f"{CORRECT} is not written yet")
    files = {"student/search.py": CORRECT, "student/notes.txt": "not graded"}
    data, log = run_autograder(autograder, files)
    total = sum(test["max_score"] for test in data["tests"])
    assert total > 0 and data["score"] == total, log
    assert all(test["status"] == "passed" for test in data["tests"])
    hidden_name = json.loads((REPO / "trees" / "hidden" / HIDDEN_CASE).read_text())["name"]
    assert any(hidden_name in test["name"] for test in data["tests"])  # the hidden cases ran


def _without_timings(results: dict) -> dict:
    """``results`` minus ``execution_time`` and each test's ``extra_data.timing``."""
    tests = [{**test, "extra_data": {key: value for key, value in test.get("extra_data", {}).items()
                                     if key != "timing"}} for test in results["tests"]]
    return {**{key: value for key, value in results.items() if key != "execution_time"},
            "tests": [{k: v for k, v in test.items() if k != "execution_time"} for test in tests]}


def test_two_workers_grade_as_one_does(autograder, tmp_path):
    """Issue 33: with two CPUs run_autograder runs a grade's two workers at once; a wrong
    submission's results, feedback included, are those of the same two one after the other. (Its
    ``evaluate`` left a stub: the play cases' matches are most of a grade's CPU, and
    tests/test_hash_seed.py compares them with two workers already.)"""
    wrong = variants.materialize("no_window_passing", tmp_path / "wrong")
    wrong.write_text(wrong.read_text() + "\n\ndef evaluate(game, state):\n"
                     "    raise NotImplementedError\n")
    runs = [run_autograder(autograder, {"search.py": wrong}, GRADER_JOBS=jobs)
            for jobs in ("1", "2")]
    assert "grading with two workers, 1 at once, of 256 MiB each" in runs[0][1]
    assert "grading with two workers, 2 at once, of 256 MiB each" in runs[1][1]
    one, two = (_without_timings(data) for data, _ in runs)
    assert 0 < one["score"] < sum(test["max_score"] for test in one["tests"])
    assert two == one


@pytest.mark.parametrize(("env", "chosen"), [
    ({"GRADER_JOBS": "2"}, "--jobs 2 memory=default"),
    ({"GRADER_JOBS": "1"}, "--jobs 1 memory=default"),
    ({"GRADER_JOBS": "2", "GRADER_WORKER_MEMORY": "300"}, "--jobs 2 memory=300"),
    ({"GRADER_JOBS": "lots"}, "--jobs 1 memory=default"),
    ({"GRADER_JOBS": "4"}, "--jobs 1 memory=default"),
])
def test_the_workers_and_their_memory_fit_the_container(autograder, tmp_path, env, chosen):
    """The grader runs GRADER_JOBS of its two workers at once (default: 2 with two CPUs; not a
    1 or a 2: one), each allowed the grader's default memory (256 MiB, the same everywhere)
    unless GRADER_WORKER_MEMORY says otherwise."""
    fake = tmp_path / "python"
    fake.write_text('#!/bin/sh\necho "$4 $5 memory=${GRADER_WORKER_MEMORY:-default}"\nexit 1\n')
    fake.chmod(0o755)
    data, _ = run_autograder(autograder, {"search.py": STUBS}, GRADER_PYTHON=str(fake), **env)
    assert chosen in staff_message(data)


@pytest.fixture(scope="module")
def first_stubs(autograder) -> tuple[dict, str, bool]:
    """The stubs, uploaded in a folder two levels down, graded as a fresh container's first
    submission (no answer cache yet): the results, the log, and whether the grade wrote an
    answer cache. One whole-assignment grade for the two tests that read it."""
    cache = autograder / "source" / ".cache" / "answer-key.json"
    cache.unlink(missing_ok=True)
    assert (autograder / "source" / "trees" / ".answer-key.json").is_file()
    data, log = run_autograder(autograder, {"hw3/deep/search.py": STUBS})
    return data, log, cache.exists()


def test_stubs_anywhere_in_the_upload_score_zero(first_stubs):
    data, _, _ = first_stubs
    assert data["score"] == 0 and len(data["tests"]) > 40
    assert all(test["status"] == "failed" for test in data["tests"])
    assert "is not implemented yet" in data["tests"][0]["output"]


def test_submission_that_exits_the_interpreter_at_import(autograder):
    data, _ = run_autograder(autograder, {"search.py": "import os\nos._exit(0)\n"})
    assert data["score"] == 0 and data["tests"]
    output = data["tests"][0]["output"]
    assert "could not be imported" in output and "os._exit()" in output


@as_root
def test_student_code_cannot_read_the_reference_or_hidden_cases(autograder):
    hidden = autograder / "source" / "trees" / "hidden" / HIDDEN_CASE
    data, _ = run_autograder(autograder, {"search.py": f"print(open({str(hidden)!r}).read())\n"})
    assert data["score"] == 0
    assert "PermissionError" in data["tests"][0]["output"]
    assert "Permission denied" in data["tests"][0]["output"]
    shim = "from reference import max_value, min_value, alpha_beta, expectimax, maxn, mcts\n"
    data, _ = run_autograder(autograder, {"search.py": shim})
    assert data["score"] == 0
    output = data["tests"][0]["output"]
    assert "ImportError: cannot import name 'max_value' from 'reference'" in output


def test_no_search_py_is_the_students_failure_not_the_graders(autograder):
    data, _ = run_autograder(autograder, {"README.md": "forgot the file"})
    assert data["score"] == 0
    assert "no search.py" in data["output"] and "README.md" in data["output"]
    (test,) = data["tests"]  # the message once, at the top; not once a case
    assert test["max_score"] > 0 and "see the message" in test["output"]


def test_a_broken_rubric_shows_students_only_the_neutral_line(autograder):
    """The grader fails before grading anything: the student reads the neutral line; staff read
    the rubric's error (file, line, column) in the hidden test."""
    rubric = autograder / "source" / "trees" / "rubric.toml"
    good = rubric.read_text()
    try:
        rubric.write_text(good + "\n[defaults]\npoints = = 3\n")
        data, _ = run_autograder(autograder, {"search.py": STUBS})
    finally:
        rubric.write_text(good)
    assert data["output"] == NEUTRAL_SUBMISSION_ERROR  # no exception, no staff path
    message = staff_message(data)
    assert "grading failed" in message and "rubric.toml" in message
    assert "Traceback" in message  # the detail, fenced


def test_the_first_submission_computes_no_reference_answer(first_stubs):
    """The zip carries every case's answers (trees/.answer-key.json): a fresh container's first
    submission finds them all, so its answer cache stays unwritten."""
    data, log, cache_written = first_stubs
    assert data["score"] == 0 and len(data["tests"]) > 40, log
    assert not cache_written


@pytest.fixture
def scripts(tmp_path) -> Path:
    """Stand-ins for a broken grader Python."""
    for name, body in {
        "killed": 'echo "Fatal Python error: Segmentation fault" >&2\nkill -9 $$\n',
        "slow": "exec sleep 60\n",
        "failing": "exit 1\n",
        # a worker's scratch folder made, then killed at the budget before cleaning it up
        "leaves_scratch": 'mkdir "$TMPDIR/grader-worker-x" && echo 1 >"$TMPDIR/grader-worker-x/'
                          'search.py"\necho "$TMPDIR" >"$AUTOGRADER_ROOT/scratch-root"\n'
                          "exec sleep 60\n",
    }.items():
        (tmp_path / name).write_text("#!/bin/sh\n" + body)
        (tmp_path / name).chmod(0o755)
    return tmp_path


def test_grader_killed_mid_run_leaves_a_zero_with_a_staff_message(autograder, scripts):
    data, log = run_autograder(autograder, {"search.py": STUBS},
                               GRADER_PYTHON=str(scripts / "killed"))
    message = staff_message(data)
    assert "killed by signal 9" in message and "Fatal Python error: Segmentation fault" in message
    assert "run_autograder: the grader was killed" in log


def test_grader_past_its_time_budget_is_stopped_and_reported(autograder, scripts):
    data, _ = run_autograder(autograder, {"search.py": STUBS}, GRADER_PYTHON=str(scripts / "slow"),
                             GRADER_TIME_BUDGET="1")
    assert "did not finish within the time budget of 1 s" in staff_message(data)


def test_scratch_folders_go_when_the_grader_is_killed(autograder, scripts):
    """Issue 34: a worker's scratch folder, search.py in it, outlived a grader killed at the
    budget; now every scratch folder lies in one folder of the run's, removed at exit."""
    data, _ = run_autograder(autograder, {"search.py": STUBS},
                             GRADER_PYTHON=str(scripts / "leaves_scratch"), GRADER_TIME_BUDGET="1")
    assert "did not finish within the time budget" in staff_message(data)
    scratch_root = Path((autograder / "scratch-root").read_text().strip())
    assert scratch_root.name.startswith("grader-run.") and not scratch_root.exists()


def test_the_folders_open_to_everyone_are_closed_to_others(autograder, scripts, tmp_path):
    """Issue 34: without Landlock or namespaces /run/lock (1777) took 20 MB of a worker's
    files; in Gradescope's container such folders are closed to others for the run (here:
    folders of the test's own, named by GRADER_SHARED_DIRS)."""
    shared = [tmp_path / "lock", tmp_path / "shm"]
    for folder in shared:
        folder.mkdir()
        folder.chmod(0o1777)
    run_autograder(autograder, {"search.py": STUBS}, GRADER_PYTHON=str(scripts / "failing"),
                   GRADER_SHARED_DIRS=" ".join(map(str, shared)))
    assert [stat.S_IMODE(folder.stat().st_mode) for folder in shared] == [0o1775, 0o1775]


def test_missing_grader_python_replaces_a_stale_results_file(autograder):
    (autograder / "results" / "results.json").write_text('{"score": 100, "tests": []}')
    data, _ = run_autograder(autograder, {"search.py": STUBS}, GRADER_PYTHON="/nonexistent/python")
    assert "could not be run (exit status 127)" in staff_message(data)


def test_fallback_is_written_even_with_no_working_python(autograder, scripts, tmp_path):
    shadow = tmp_path / "shadow"  # first on PATH: a python3 that cannot start
    shadow.mkdir()
    (shadow / "python3").symlink_to(scripts / "failing")
    data, _ = run_autograder(autograder, {"search.py": STUBS},
                             GRADER_PYTHON=str(scripts / "failing"),
                             PATH=f"{shadow}:{os.environ['PATH']}")
    assert "failed with exit status 1" in staff_message(data)
