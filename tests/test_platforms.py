"""``grader build prairielearn`` and ``grader build handout --ci github|gitlab``: the layouts the
platforms read, checked against their published descriptions (tests/platform_schemas), and run:
PrairieLearn's entrypoint on a temporary /grade, the GitHub workflow's grading step in an unpacked
handout."""

from __future__ import annotations

import base64
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
import nbformat
import pytest
import yaml

from grader.answers.store import CACHE_KEY
from grader.cli import main as cli_main
from grader.commands import build_ci, build_prairielearn

REPO = Path(__file__).resolve().parent.parent
SCHEMAS = REPO / "tests" / "platform_schemas"
PL_RESULTS = json.loads((SCHEMAS / "prairielearn_results.schema.json").read_text())
PL_INFO = json.loads((SCHEMAS / "prairielearn_info.schema.json").read_text())
CLASSROOM = json.loads((SCHEMAS / "classroom_results.schema.json").read_text())
CORRECT = REPO / "tests" / "submissions" / "correct" / "search.py"


def notebook_of(source: str, path: Path) -> Path:
    """``source`` as a notebook a student would write: a title, a setup cell with IPython
    lines, then one code cell a top-level definition."""
    notebook = nbformat.v4.new_notebook()
    notebook.cells.append(nbformat.v4.new_markdown_cell("# Adversarial search"))
    notebook.cells.append(nbformat.v4.new_code_cell("%load_ext autoreload\n!pip install numpy"))
    head, *functions = source.split("\n\n\ndef ")
    notebook.cells.append(nbformat.v4.new_code_cell(head))
    notebook.cells += [nbformat.v4.new_code_cell("def " + body) for body in functions]
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, str(path))
    return path


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("cache") / "answer-key.json"
    if CACHE_KEY.exists():
        shutil.copy(CACHE_KEY, path)
    return path


# --- PrairieLearn ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def course(cache) -> Path:
    """The build, in a world-traversable folder like /grade (as root, student code runs as
    nobody, who must reach the grader package)."""
    root = Path(tempfile.mkdtemp(prefix="pl-build-"))
    root.chmod(0o755)
    out = root / "course"
    assert build_prairielearn.build_prairielearn_main(out, cache=cache) == 0
    yield out
    shutil.rmtree(root, ignore_errors=True)


def test_prairielearn_info_json_follows_its_schema_and_points_at_the_entrypoint(course):
    info = json.loads((course / "questions" / "adversarial-search" / "info.json").read_text())
    jsonschema.validate(info, PL_INFO)
    options = info["externalGradingOptions"]
    assert info["gradingMethod"] == "External" and options["enabled"] is True
    shared = options["serverFilesCourse"][0].rstrip("/")
    entrypoint = Path(options["entrypoint"])
    assert entrypoint.parts[:4] == ("/", "grade", "serverFilesCourse", shared)
    script = course / "serverFilesCourse" / Path(*entrypoint.parts[3:])
    assert script.read_text().startswith("#!/usr/bin/env bash\n")
    assert script.stat().st_mode & stat.S_IXUSR
    assert options["timeout"] > build_prairielearn.BUDGET


def test_prairielearn_layout_has_the_grader_the_cases_the_key_and_the_image(course):
    shared = course / "serverFilesCourse" / build_prairielearn.SHARED
    for path in ("grader/cli.py", "reference/__init__.py", "trees/rubric.toml",
                 ".cache/answer-key.json", "pyproject.toml"):
        assert (shared / path).is_file(), path
    assert list((shared / "trees" / "hidden").glob("*.json"))
    html = (course / "questions" / "adversarial-search" / "question.html").read_text()
    assert "<pl-file-upload" in html and "search.ipynb" in html
    assert "<pl-external-grader-results>" in html
    dockerfile = (course / "image" / "Dockerfile").read_text()
    assert "requirements.txt" in dockerfile and "grader-worker" in dockerfile
    assert "nbformat==" in (course / "image" / "requirements.txt").read_text()
    assert not [p for p in course.rglob("*") if "__pycache__" in p.parts]


def test_prairielearn_build_refuses_a_folder_that_is_not_its_own(tmp_path, cache, capsys):
    (tmp_path / "mine.txt").write_text("course notes")
    assert build_prairielearn.build_prairielearn_main(tmp_path, cache=cache) == 1
    assert "not an earlier build" in capsys.readouterr().err
    assert (tmp_path / "mine.txt").read_text() == "course notes"


def run_entrypoint(course: Path, student: dict[str, Path | str], **env: str) -> dict:
    """PrairieLearn's job: /grade (a temporary copy) with serverFilesCourse and the student's
    files, the entrypoint run; the results file it left, checked against the schema."""
    grade = Path(tempfile.mkdtemp(prefix="pl-grade-"))
    try:
        grade.chmod(0o755)
        shutil.copytree(course / "serverFilesCourse", grade / "serverFilesCourse")
        (grade / "student").mkdir()
        for name, content in student.items():
            target = grade / "student" / name
            if isinstance(content, Path):
                shutil.copy(content, target)
            else:
                target.write_text(content)
        environment = {k: v for k, v in os.environ.items()
                       if k not in ("GRADER_CACHE", "PYTHONPATH")}
        environment.update({"GRADE_ROOT": str(grade), "GRADER_PYTHON": sys.executable, **env})
        script = grade / "serverFilesCourse" / build_prairielearn.SHARED / "run.sh"
        proc = subprocess.run([str(script)], env=environment, capture_output=True, text=True,
                              timeout=600, check=False)
        assert proc.returncode == 0, proc.stderr
        results = grade / "results" / "results.json"
        assert results.stat().st_size < 1_000_000
        data = json.loads(results.read_text())
        jsonschema.validate(data, PL_RESULTS)
        return data
    finally:
        shutil.rmtree(grade, ignore_errors=True)


def test_prairielearn_job_gives_a_correct_notebook_full_marks(course, tmp_path):
    notebook = notebook_of(CORRECT.read_text(), tmp_path / "search.ipynb")
    data = run_entrypoint(course, {"search.ipynb": notebook})
    assert data["gradable"] is True and data["score"] == 1.0
    assert "`%load_ext autoreload`" in data["message"]  # the note on dropped IPython lines
    assert [t for t in data["tests"] if t["name"] == "Hidden tests"][0]["points"] > 0
    hidden = {json.loads(p.read_text())["name"] for p in (REPO / "trees" / "hidden").glob("*.json")}
    assert not [name for name in hidden if name in json.dumps(data)]


def test_prairielearn_job_writes_a_not_gradable_file_when_the_grader_cannot_run(course):
    data = run_entrypoint(course, {"search.py": CORRECT}, GRADER_PYTHON="/bin/false")
    assert data["gradable"] is False and "course staff" in data["message"]


def test_prairielearn_job_removes_the_scratch_folders_a_killed_grader_left(course, tmp_path):
    """Issue 34: the workers' scratch folders lie in one folder of the job's, removed at exit,
    however the grader ended (here: it made one and failed)."""
    grader = tmp_path / "grader"
    grader.write_text('#!/bin/sh\nmkdir "$TMPDIR/grader-worker-x" && echo 1 >'
                      '"$TMPDIR/grader-worker-x/search.py"\necho "$TMPDIR" >"$SCRATCH_NOTE"\n'
                      "exit 1\n")
    grader.chmod(0o755)
    note = tmp_path / "scratch-root"
    data = run_entrypoint(course, {"search.py": CORRECT}, GRADER_PYTHON=str(grader),
                          SCRATCH_NOTE=str(note))
    assert data["gradable"] is False
    scratch_root = Path(note.read_text().strip())
    assert scratch_root.name.startswith("grader-run.") and not scratch_root.exists()


# --- the handout with CI --------------------------------------------------------------------


@pytest.fixture(scope="module")
def github_handout(tmp_path_factory, cache) -> Path:
    out = tmp_path_factory.mktemp("handout") / "handout.zip"
    assert build_ci.build_handout_ci_main("handout", out, "github", cache=cache) == 0
    return out


def test_github_workflow_is_classrooms_layout_with_the_reporter_reading_our_step(github_handout):
    with zipfile.ZipFile(github_handout) as zipped:
        workflow = yaml.safe_load(zipped.read(".github/workflows/classroom.yml"))
        readme = zipped.read("README.md").decode()
        names = zipped.namelist()
    assert not [n for n in names if n.startswith(("reference/", "trees/hidden/"))]
    assert "Autograding on GitHub" in readme
    assert workflow["name"] == "Autograding Tests" and "push" in workflow["on"]
    assert workflow["permissions"]["checks"] == "write"
    steps = workflow["jobs"]["run-autograding-tests"]["steps"]
    (reporter,) = [s for s in steps if "autograding-grading-reporter" in s.get("uses", "")]
    runners = [r.strip() for r in reporter["with"]["runners"].split(",")]
    for runner in runners:  # the reporter reads <RUNNER>_RESULTS: our step's base64 output
        expression = f"${{{{ steps.{runner}.outputs.result }}}}"
        assert reporter["env"][f"{runner.upper()}_RESULTS"] == expression
        assert [s for s in steps if s.get("id") == runner]


def test_github_workflow_grading_step_reports_points_in_the_handout(github_handout, tmp_path):
    handout = tmp_path / "handout"
    with zipfile.ZipFile(github_handout) as zipped:
        zipped.extractall(handout)
        workflow = yaml.safe_load(zipped.read(".github/workflows/classroom.yml"))
    steps = workflow["jobs"]["run-autograding-tests"]["steps"]
    (step,) = [s for s in steps if s.get("id") == "search"]
    bin_dir = tmp_path / "bin"  # `grader` as pip install -e . would make it, in the handout
    bin_dir.mkdir()
    (bin_dir / "grader").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m grader "$@"\n')
    (bin_dir / "grader").chmod(0o755)
    notebook_of(CORRECT.read_text().replace("return v\n", "return v + 1\n", 1),
                handout / "student" / "search.ipynb")  # the notebook wins over search.py
    output = tmp_path / "github_output"
    environment = {k: v for k, v in os.environ.items() if k not in ("GRADER_CACHE", "PYTHONPATH")}
    environment.update({"PATH": f"{bin_dir}:{environment['PATH']}", "PYTHONPATH": str(handout),
                        "GITHUB_OUTPUT": str(output)})
    proc = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=handout, env=environment,
                          capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    key, value = output.read_text().strip().split("=", 1)
    assert key == "result"
    data = json.loads(base64.b64decode(value))
    jsonschema.validate(data, CLASSROOM)
    scores = [test["score"] for test in data["tests"]]
    assert 0 < sum(scores) < data["max_score"]  # the notebook's one mistake costs points
    assert [test for test in data["tests"] if test["status"] == "fail" and test["message"]]


def test_gitlab_ci_reports_junit(tmp_path, cache):
    out = tmp_path / "handout.zip"
    assert build_ci.build_handout_ci_main("handout", out, "gitlab", cache=cache) == 0
    with zipfile.ZipFile(out) as zipped:
        pipeline = yaml.safe_load(zipped.read(".gitlab-ci.yml"))
    job = pipeline["grade"]
    assert job["artifacts"]["reports"]["junit"] == "junit.xml"
    assert any("--format junit" in line and "--results junit.xml" in line for line in job["script"])


def test_ci_goes_with_the_handout_only(tmp_path, capsys):
    out = tmp_path / "a.zip"
    assert cli_main(["build", "autograder", "--ci", "github", "--out", str(out)]) == 1
    assert "goes with the handout" in capsys.readouterr().err
    assert not out.exists()
