"""``grader build prairielearn`` and ``grader build handout --ci github|gitlab``: the layouts the
platforms read, checked against their published descriptions (tests/platform_schemas), and run:
PrairieLearn's entrypoint on a temporary /grade, the GitHub workflow's grading step in an unpacked
handout."""

from __future__ import annotations

import base64
import json
import os
import re
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

import grader.algorithms as algorithm_specs
from grader.answers.store import CACHE_KEY
from grader.cli import main as cli_main
from grader.commands import build_ci, build_prairielearn

REPO = Path(__file__).resolve().parent.parent
SCHEMAS = REPO / "tests" / "platform_schemas"
PL_RESULTS = json.loads((SCHEMAS / "prairielearn_results.schema.json").read_text())
PL_INFO = json.loads((SCHEMAS / "prairielearn_info.schema.json").read_text())
# PrairieLearn's own schema of info.json (a copy: tests/platform_schemas/README.md)
PL_INFO_QUESTION = json.loads((SCHEMAS / "prairielearn-infoQuestion.schema.json").read_text())
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
    jsonschema.Draft7Validator(PL_INFO_QUESTION).validate(info)
    options = info["externalGradingOptions"]
    assert info["gradingMethod"] == "External"
    # nothing PrairieLearn's schema marks deprecated ("enabled": true, for one)
    properties = PL_INFO_QUESTION["properties"]
    option_schema = properties["externalGradingOptions"]
    assert option_schema["properties"]["enabled"]["deprecated"] is True
    deprecated = [key for key in info if properties.get(key, {}).get("deprecated")]
    deprecated += [key for key in options if option_schema["properties"][key].get("deprecated")]
    assert not deprecated
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
    stubs = build_prairielearn.stub_functions(REPO)
    every_stub = {stub for spec in algorithm_specs.registry().values() for stub in spec.stubs}
    assert set(stubs) == every_stub  # each algorithm's functions, from its spec
    assert [name for name in stubs if f"<code>{name}</code>" not in html] == []
    readme = (course / "README.md").read_text()
    assert "no registry namespace" in readme  # the default image name: build and push your own
    assert "<pl-external-grader-results>" in html
    dockerfile = (course / "image" / "Dockerfile").read_text()
    assert "requirements.txt" in dockerfile and "grader-worker" in dockerfile
    assert "nbformat==" in (course / "image" / "requirements.txt").read_text()
    assert not [p for p in course.rglob("*") if "__pycache__" in p.parts]


def _elements(html: str, tag: str) -> list[dict[str, str]]:
    """The attributes of each ``tag`` element in ``html``, as a browser's parser reads them."""
    from html.parser import HTMLParser

    found = []

    class Reader(HTMLParser):
        def handle_starttag(self, name, attrs):
            if name == tag:
                found.append(dict(attrs))

    Reader().feed(html)
    return found


def test_prairielearn_students_start_from_the_page_with_the_stub_to_download(course):
    question = course / "questions" / "adversarial-search"
    html = (question / "question.html").read_text()
    (download,) = _elements(html, "pl-file-download")
    # held to PrairieLearn's own documentation of the element: its attributes table
    doc = (SCHEMAS / "prairielearn-docs-elements-pl-file-download.md").read_text()
    allowed = set(re.findall(r"^\| `([a-z-]+)` +\|", doc, re.M))
    assert {"file-name", "directory", "label"} <= allowed
    assert set(download) <= allowed
    default = re.search(r"^\| `directory` +\| [^|]+\| `\"(\w+)\"` +\|", doc, re.M).group(1)
    directory = download.get("directory", default)  # the documented default
    assert directory == "clientFilesQuestion"
    stub = question / directory / download["file-name"]
    assert stub.read_bytes() == (REPO / "student" / "search.py").read_bytes()
    (upload,) = _elements(html, "pl-file-upload")
    assert download["file-name"] in upload["optional-file-names"].replace(" ", "").split(",")


def test_prairielearn_title_lists_every_graded_algorithm_and_the_page_says_what_hidden_shows(
        course):
    from grader.cases import find_cases, load_case
    from grader.report.prairielearn import HIDDEN_DESCRIPTION

    info = json.loads((course / "questions" / "adversarial-search" / "info.json").read_text())
    graded = {a for path in find_cases([REPO / "trees"]) for a in load_case(path).algorithms}
    assert len(graded) >= 9
    assert [a for a in graded if a not in info["title"]] == []
    html = (course / "questions" / "adversarial-search" / "question.html").read_text()
    readme = (course / "README.md").read_text()
    said = "how many there are and their points"
    assert said in html and said in " ".join(readme.split())
    assert "hidden tests: their points only, no names or feedback" in HIDDEN_DESCRIPTION
    staff = " ".join((REPO / "docs" / "staff.md").read_text().split())
    assert "one \"Hidden tests\" line: how many there are and their points, nothing else" in staff


def _commands(readme: str) -> list[str]:
    return [line for block in re.findall(r"```\n(.*?)```", readme, re.S)
            for line in block.splitlines() if line.strip()]


def test_prairielearn_readme_commands_run_as_written_a_placeholder_said_to_be_one(
        course, tmp_path, cache):
    readme = (course / "README.md").read_text()
    commands = _commands(readme)
    assert commands == [
        "docker build -t <your-account>/adversarial-search-grader image/",
        "docker push <your-account>/adversarial-search-grader"]
    assert "`<your-account>` is a placeholder: replace it" in readme
    assert (course / "image" / "Dockerfile").is_file()  # "image/" from the README's folder
    named = tmp_path / "named"
    assert build_prairielearn.build_prairielearn_main(named, image="ada/asg", cache=cache) == 0
    readme = (named / "README.md").read_text()
    assert _commands(readme) == ["docker build -t ada/asg image/", "docker push ada/asg"]
    assert "<your-account>" not in readme
    info = json.loads((named / "questions" / "adversarial-search" / "info.json").read_text())
    assert info["externalGradingOptions"]["image"] == "ada/asg"


def test_prairielearn_build_refuses_a_folder_that_is_not_its_own(tmp_path, cache, capsys):
    (tmp_path / "mine.txt").write_text("course notes")
    assert build_prairielearn.build_prairielearn_main(tmp_path, cache=cache) == 1
    assert "not an earlier build" in capsys.readouterr().err
    assert (tmp_path / "mine.txt").read_text() == "course notes"


def grade_tree(course: Path, student: dict[str, Path | str]) -> Path:
    """A faithful /grade (a temporary folder) as PrairieLearn lays it out for a job (its
    docs/externalGrading.md, "The Grading Process"): ``serverFilesCourse/`` with the folders
    info.json names, the same again under ``shared/`` (the copy PrairieLearn keeps for older
    graders), ``tests/`` (the question's tests folder), ``data/data.json`` and
    ``student/``. Every file root's, world-readable, as a job's are."""
    grade = Path(tempfile.mkdtemp(prefix="pl-grade-"))
    grade.chmod(0o755)
    shutil.copytree(course / "serverFilesCourse", grade / "serverFilesCourse")
    shutil.copytree(course / "serverFilesCourse", grade / "shared")
    (grade / "tests").mkdir()
    (grade / "tests" / "expected.txt").write_text("a question's own test file\n")
    (grade / "data").mkdir()
    (grade / "data" / "data.json").write_text(json.dumps({"params": {}, "correct_answers": {}}))
    (grade / "student").mkdir()
    for name, content in student.items():
        target = grade / "student" / name
        if isinstance(content, Path):
            shutil.copy(content, target)
        else:
            target.write_text(content)
    for path in [grade, *grade.rglob("*")]:
        path.chmod(0o755 if path.is_dir() or path.stat().st_mode & stat.S_IXUSR else 0o644)
    return grade


def run_entrypoint(course: Path, student: dict[str, Path | str], **env: str) -> dict:
    """PrairieLearn's job: the entrypoint run in :func:`grade_tree`; the results file it left,
    checked against the schema."""
    grade = grade_tree(course, student)
    try:
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


# A submission that tries to read every file of the course PrairieLearn copies into /grade,
# by the names an attacker knows from the handout and by listing, and reports what it read in
# its feedback (the exception's message is shown to the student).
PROBE = """\
import os  # loaded before the worker drops privileges (the rest of the stdlib may be unreadable)

ROOT = {root!r}
NAMES = {names!r}


def _readable():
    found = set()
    paths = [os.path.join(ROOT, name) for name in NAMES]
    for top in ("serverFilesCourse", "shared", "tests", "data"):
        for folder, _, files in os.walk(os.path.join(ROOT, top)):
            paths += [os.path.join(folder, name) for name in files]
    for path in paths:
        try:
            with open(path, "rb") as stream:
                stream.read(1)
            found.add(os.path.relpath(path, ROOT))
        except OSError:
            pass
    # the grader package is open to the worker by design (it imports it)
    secret = sorted(name for name in found if name.split("/")[2:3] != ["grader"])
    return [str(len(secret))] + secret[:10]


def max_value(game, state, depth=0):
    # the markers are split: the traceback's copy of this line holds neither
    raise RuntimeError("LEAK" + "START" + ";".join(_readable()) + "LEAK" + "END")
"""


@pytest.mark.skipif(os.geteuid() != 0, reason="the worker drops to another user only as root")
def test_prairielearn_course_files_are_closed_to_the_worker_in_every_copy(course):
    """Landlock off (PrairieLearn's hosts may not give it): the worker, as an unprivileged user,
    reads no course file in any of the copies PrairieLearn makes, only the grader package."""
    shared = course / "serverFilesCourse" / build_prairielearn.SHARED
    secrets = [path.relative_to(shared).as_posix() for path in shared.rglob("*")
               if path.is_file() and "grader" not in path.relative_to(shared).parts[:1]]
    assert any(name.startswith("trees/hidden/") for name in secrets)
    names = [f"{copy}/{build_prairielearn.SHARED}/{name}"
             for copy in ("serverFilesCourse", "shared") for name in secrets]
    names += ["tests/expected.txt", "data/data.json"]
    grade = grade_tree(course, {})
    try:
        (grade / "student" / "search.py").write_text(PROBE.format(root=str(grade), names=names))
        environment = {k: v for k, v in os.environ.items()
                       if k not in ("GRADER_CACHE", "PYTHONPATH")}
        environment.update({"GRADE_ROOT": str(grade), "GRADER_PYTHON": sys.executable,
                            "GRADER_LANDLOCK": "0"})
        environment.pop("GRADER_WORKER_USER", None)  # nobody, or the image's grader-worker
        script = grade / "serverFilesCourse" / build_prairielearn.SHARED / "run.sh"
        proc = subprocess.run([str(script)], env=environment, capture_output=True, text=True,
                              timeout=600, check=False)
        assert proc.returncode == 0, proc.stderr
        data = json.loads((grade / "results" / "results.json").read_text())
    finally:
        shutil.rmtree(grade, ignore_errors=True)
    text = json.dumps(data)
    reports = [found for test in data["tests"]
               for found in re.findall(r"LEAKSTART(.*?)LEAKEND", test["output"])]
    assert reports, text[:2000]  # the probe ran and its report reached the feedback
    count, *names = reports[0].split(";")
    assert count == "0", f"the worker read {count} course files, among them {names}"


def test_prairielearn_job_gives_a_correct_notebook_full_marks(course, tmp_path):
    notebook = notebook_of(CORRECT.read_text(), tmp_path / "search.ipynb")
    data = run_entrypoint(course, {"search.ipynb": notebook})
    assert data["gradable"] is True and data["score"] == 1.0
    assert "%load_ext autoreload" in data["message"]  # the note on dropped IPython lines
    assert "`" not in data["message"] and "**" not in data["message"]  # plain text, for <pre>
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


def builtin_schema(name: str) -> dict:
    """A schema check-jsonschema ships (``--builtin-schema vendor.NAME``): SchemaStore's GitHub
    workflow schema, GitLab's own CI schema."""
    from check_jsonschema.builtin_schemas import get_builtin_schema

    return get_builtin_schema(f"vendor.{name}")


def test_github_workflow_is_classrooms_layout_with_the_reporter_reading_our_step(github_handout):
    with zipfile.ZipFile(github_handout) as zipped:
        workflow = yaml.safe_load(zipped.read(".github/workflows/classroom.yml"))
        readme = zipped.read("README.md").decode()
        names = zipped.namelist()
    schema = builtin_schema("github-workflows")
    jsonschema.validators.validator_for(schema)(schema).validate(workflow)
    assert not [n for n in names if n.startswith(("reference/", "trees/hidden/"))]
    assert "Autograding on GitHub" in readme
    assert workflow["name"] == "Autograding Tests" and "push" in workflow["on"]
    assert workflow["permissions"]["checks"] == "write"
    assert workflow["env"]["PASS_FRACTION"] == "1"
    steps = workflow["jobs"]["run-autograding-tests"]["steps"]
    (reporter,) = [s for s in steps if "autograding-grading-reporter" in s.get("uses", "")]
    assert reporter["uses"].endswith("@v1")
    assert reporter["if"] == "always()"  # it reports a grading step that failed, too
    assert reporter["with"]["runners"] == "${{ steps.search.outputs.runners }}"
    (grading,) = [s for s in steps if s.get("id") == "search"]
    assert 'exit "$status"' in grading["run"]  # after handing the error results on


REPORTER = SCHEMAS / "classroom-reporter-v1-main.js"  # what `...-grading-reporter@v1` runs
NODE = shutil.which("node")


def run_grading_step(handout: Path, tmp_path: Path,
                     grader: str | None = None) -> tuple[subprocess.CompletedProcess, dict]:
    """The workflow's grading step, run in the unpacked handout as GitHub runs it; the
    environment it leaves the next step ($GITHUB_ENV) and its outputs ($GITHUB_OUTPUT).
    ``grader``: the `grader` command's script (default: the grader, as pip install -e . makes
    it in the handout)."""
    workflow = yaml.safe_load((handout / ".github" / "workflows" / "classroom.yml").read_text())
    steps = workflow["jobs"]["run-autograding-tests"]["steps"]
    (step,) = [s for s in steps if s.get("id") == "search"]
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    default = f'#!/bin/sh\nexec "{sys.executable}" -m grader "$@"\n'
    (bin_dir / "grader").write_text(grader or default)
    (bin_dir / "grader").chmod(0o755)
    (bin_dir / "python").symlink_to(sys.executable)
    output, github_env = tmp_path / "github_output", tmp_path / "github_env"
    environment = {k: v for k, v in os.environ.items() if k not in ("GRADER_CACHE", "PYTHONPATH")}
    environment.update({"PATH": f"{bin_dir}:{environment['PATH']}", "PYTHONPATH": str(handout),
                        "GITHUB_OUTPUT": str(output), "GITHUB_ENV": str(github_env),
                        **workflow["env"]})
    proc = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=handout, env=environment,
                          capture_output=True, text=True, timeout=600, check=False)
    handed = dict(line.split("=", 1) for line in github_env.read_text().splitlines())
    handed.update(line.split("=", 1) for line in output.read_text().splitlines())
    return proc, handed


def run_reporter(handed: dict) -> subprocess.CompletedProcess:
    """GitHub Classroom's reporter (its v1 dist/main.js, under node) on what the grading step
    handed on: what the student sees in the log, and the notice Classroom records."""
    environment = {"PATH": os.environ["PATH"], "INPUT_RUNNERS": handed["runners"],
                   **{k: v for k, v in handed.items() if k.endswith("_RESULTS")}}
    return subprocess.run([NODE, str(REPORTER)], env=environment, capture_output=True,
                          text=True, timeout=120, check=False)


@pytest.fixture(scope="module")
def unpacked_handout(github_handout, tmp_path_factory) -> Path:
    handout = tmp_path_factory.mktemp("unpacked") / "handout"
    with zipfile.ZipFile(github_handout) as zipped:
        zipped.extractall(handout)
    return handout


def test_classroom_reporter_shows_each_failure_and_one_total(unpacked_handout, tmp_path):
    """The notebook's one mistake, graded by the workflow's step and shown by the reporter
    itself: the log's total and the "Points" notice Classroom records are the same, and each
    failed test's line says why."""
    handout = tmp_path / "handout"
    shutil.copytree(unpacked_handout, handout)
    notebook_of(CORRECT.read_text().replace("return v\n", "return v + 1\n", 1),
                handout / "student" / "search.ipynb")  # the notebook wins over search.py
    proc, handed = run_grading_step(handout, tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for runner in handed["runners"].split(","):
        jsonschema.validate(json.loads(base64.b64decode(handed[f"{runner.upper()}_RESULTS"])),
                            CLASSROOM)
    if NODE is None:
        pytest.skip("node is not installed (.ci/run installs it): the reporter cannot run")
    shown = run_reporter(handed)
    log = re.sub(r"\x1b\[[0-9;]*m", "", shown.stdout)
    (points,) = re.findall(r"::notice title=Autograding complete::Points ([0-9.]+)/([0-9.]+)", log)
    (total,) = re.findall(r"│ Total: +│ ([0-9.]+) +│ ([0-9.]+) +│", log)
    assert total == points  # one total everywhere
    assert 0 < float(points[0]) < float(points[1])  # the mistake costs points
    failed = [line for line in log.splitlines() if line.startswith("❌")]
    assert failed and all(re.match(r"❌ \S+ \w+: \S+.*: \S", line) for line in failed), failed
    assert "::error::Some tests failed." in log and shown.returncode == 1  # PASS_FRACTION 1


@pytest.mark.skipif(NODE is None, reason="node is not installed (.ci/run installs it)")
def test_classroom_reporter_reports_a_grader_failure(unpacked_handout, tmp_path):
    """The grader cannot grade: the step still hands the error results on, then fails; the
    reporter (``if: always()``) shows the neutral message and fails the run."""
    proc, handed = run_grading_step(unpacked_handout, tmp_path,
                                    grader="#!/bin/sh\necho 'grader: broken' >&2\nexit 2\n")
    assert proc.returncode == 2
    assert handed["runners"] == "grading"
    shown = run_reporter(handed)
    assert "course staff" in shown.stdout and shown.returncode == 1


def test_gitlab_ci_reports_junit_and_fails_the_job_below_the_pass_fraction(tmp_path, cache):
    out = tmp_path / "handout.zip"
    assert build_ci.build_handout_ci_main("handout", out, "gitlab", cache=cache) == 0
    with zipfile.ZipFile(out) as zipped:
        pipeline = yaml.safe_load(zipped.read(".gitlab-ci.yml"))
    schema = builtin_schema("gitlab-ci")
    jsonschema.validators.validator_for(schema)(schema).validate(pipeline)
    job = pipeline["grade"]
    assert job["artifacts"]["reports"]["junit"] == "junit.xml"
    assert job["artifacts"]["when"] == "always"
    assert any("--format junit" in line and "--results junit.xml" in line for line in job["script"])
    assert job["variables"]["PASS_FRACTION"] == "1"
    check = job["script"][-1]  # the job's status is this line's: the report does not decide it
    report = tmp_path / "junit.xml"
    report.write_text(
        '<testsuites><testsuite name="alpha_beta" tests="2" failures="1" errors="0">'
        '<properties><property name="score" value="1.5"/><property name="max_score" value="2"/>'
        '</properties></testsuite></testsuites>')
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    statuses = {}
    for fraction in ("1", "0.75", "0.8"):
        environment["PASS_FRACTION"] = fraction
        statuses[fraction] = subprocess.run(
            ["bash", "-c", check.replace("python ", f"{sys.executable} ", 1)], cwd=tmp_path,
            env=environment, capture_output=True, text=True, timeout=120, check=False).returncode
    assert statuses == {"1": 1, "0.75": 0, "0.8": 1}


def test_ci_goes_with_the_handout_only(tmp_path, capsys):
    out = tmp_path / "a.zip"
    assert cli_main(["build", "autograder", "--ci", "github", "--out", str(out)]) == 1
    said = capsys.readouterr().err
    assert "goes with the handout" in said and "handout --ci github --out" in said, said
    assert not out.exists()
