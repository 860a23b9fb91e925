"""``grader build``: both zips are reproducible, and the handout leaks no answer.

The handout is also installed the way a student would (``bin/setup``: a fresh venv and
``pip install -e .``, once per session) and ``grader check`` and ``pytest`` run inside it.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from grader.answers.store import CACHE_KEY
from grader.cases.algorithms import ALGORITHMS, PLAY_ALGORITHMS
from grader.commands import handout
from grader.commands.build import build_main
from grader.commands.bundle import BuildError, Entry
from grader.commands.handout import find_leaks, handout_pyproject

REPO = Path(__file__).resolve().parent.parent
CORRECT = REPO / "tests" / "submissions" / "correct" / "search.py"
HIDDEN = sorted((REPO / "trees" / "hidden").glob("*.json"))


def unpack(archive: Path, target: Path) -> Path:
    """Extract with the modes the zip records (zipfile alone drops them)."""
    with zipfile.ZipFile(archive) as zipped:
        for info in zipped.infolist():
            zipped.extract(info, target)
            os.chmod(target / info.filename, (info.external_attr >> 16) & 0o777)
    return target


@pytest.fixture(scope="session")
def cache(tmp_path_factory) -> Path:
    """A private answer cache, so the builds here race no other run for the staff cache; it
    starts as a copy of the staff cache when there is one (entries of other code are ignored)."""
    path = tmp_path_factory.mktemp("cache") / "answer-key.json"
    if CACHE_KEY.exists():
        shutil.copy(CACHE_KEY, path)
    return path


@pytest.fixture(scope="session")
def handout_zip(tmp_path_factory, cache) -> Path:
    out = tmp_path_factory.mktemp("handout") / "handout.zip"
    assert build_main("handout", out, cache=cache) == 0
    return out


@pytest.fixture(scope="module")
def handout_files(handout_zip) -> dict[str, bytes]:
    with zipfile.ZipFile(handout_zip) as zipped:
        return {name: zipped.read(name) for name in zipped.namelist()}


# --- the autograder zip ---------------------------------------------------------------------


def test_autograder_zip_is_byte_identical_from_a_fresh_copy_with_junk(tmp_path,
                                                                    autograder_build):
    first, printed = autograder_build  # tests/conftest.py's one build a run of the suite
    assert "wrote" in printed
    # Another checkout: other mtimes and inode order, plus what a working copy accumulates.
    copy = tmp_path / "clone"
    for name in ("grader", "reference", "trees", "docker"):
        shutil.copytree(REPO / name, copy / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, copy / name)
    for junk in ("grader/__pycache__/cli.cpython-311.pyc", ".venv/bin/python", "grader/.DS_Store",
                 "trees/public/.answer-key.json", "reference/scratch.pyc"):
        (copy / junk).parent.mkdir(parents=True, exist_ok=True)
        (copy / junk).write_text("junk")
    second = tmp_path / "second.zip"
    assert build_main("autograder", second, root=copy) == 0
    assert first.read_bytes() == second.read_bytes()


def test_autograder_zip_layout_dates_and_modes(autograder_build):
    out, _ = autograder_build
    with zipfile.ZipFile(out) as zipped:
        infos = zipped.infolist()
    names = [info.filename for info in infos]
    assert names == sorted(names)
    assert {"setup.sh", "run_autograder", "pyproject.toml", "trees/rubric.toml",
            "docker/Dockerfile", "docker/requirements.txt", "reference/__init__.py"} <= set(names)
    assert any(name.startswith("trees/hidden/") for name in names)
    assert any(name.startswith("trees/public/") for name in names)
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")
                or ("/." in "/" + n and n != "trees/.answer-key.json")]
    assert not [n for n in names if n.startswith("docker/handout/")]
    modes = {info.filename: (info.external_attr >> 16) & 0o777 for info in infos}
    assert modes["setup.sh"] == modes["run_autograder"] == 0o755
    assert set(modes.values()) <= {0o644, 0o755}
    assert {info.date_time for info in infos} == {(1980, 1, 1, 0, 0, 0)}
    with zipfile.ZipFile(out) as zipped:
        assert zipped.read("run_autograder").startswith(b"#!/usr/bin/env bash\n")


# --- the handout ----------------------------------------------------------------------------


def test_handout_build_is_byte_identical(tmp_path, handout_zip, cache):
    again = tmp_path / "again.zip"
    assert build_main("handout", again, cache=cache) == 0
    assert again.read_bytes() == handout_zip.read_bytes()


def test_handout_has_what_students_need(handout_files):
    names = set(handout_files)
    assert {"README.md", "pyproject.toml", "bin/setup", "bin/grade", "bin/test",
            "bin/setup.cmd", "bin/grade.cmd", "bin/test.cmd",
            "student/search.py", "trees/rubric.toml", "trees/public/.answer-key.json"} <= names
    for script in ("bin/setup.cmd", "bin/grade.cmd", "bin/test.cmd"):  # cmd needs CRLF
        assert handout_files[script].count(b"\n") == handout_files[script].count(b"\r\n")
    public = {f"trees/public/{p.name}" for p in (REPO / "trees" / "public").glob("*.json")}
    assert public <= names
    readme = handout_files["README.md"].decode()
    assert "grader check" in readme and "pytest" in readme and "Gradescope" in readme
    if (REPO / "student" / "test_search.py").exists():
        assert "student/test_search.py" in names


def test_handout_holds_no_reference_file_hidden_case_or_reference_body(handout_files):
    names = set(handout_files)
    assert not [n for n in names if n.startswith(("reference/", "trees/hidden/"))]
    assert "trees/README.md" not in names  # it names the hidden cases
    hidden_names = {p.stem for p in HIDDEN} | {json.loads(p.read_text())["name"] for p in HIDDEN}
    # A distinctive line of every reference function: the longest code line of its body.
    distinctive = {}
    for path in sorted((REPO / "reference").glob("*.py")):
        lines = path.read_text().splitlines()
        for node in ast.walk(ast.parse("\n".join(lines))):
            if isinstance(node, ast.FunctionDef):
                body = node.body[1:] if isinstance(node.body[0], ast.Expr) else node.body
                code = [line.strip() for line in lines[body[0].lineno - 1 : body[-1].end_lineno]
                        if line.strip() and not line.strip().startswith("#")] if body else []
                if code:
                    distinctive[f"{path.name}:{node.name}"] = max(code, key=len)
    assert len(distinctive) >= 12
    for name, data in handout_files.items():
        text = data.decode("utf-8", errors="replace")
        assert not [h for h in hidden_names if h in text], name
        assert not [f for f, line in distinctive.items() if line in text], name
    pyproject = handout_files["pyproject.toml"].decode()
    assert "reference" not in pyproject


def test_handout_answer_key_has_exactly_the_public_cases(handout_files):
    from grader.answers.store import case_fingerprint
    from grader.cases import load_case

    from grader.answers.store import key_entries

    text = handout_files["trees/public/.answer-key.json"]
    key, entries = json.loads(text), key_entries(text)
    fingerprints = {name.split(":")[0] for name in entries}
    public = {case_fingerprint(case) for case in map(load_case, (REPO / "trees" / "public").glob("*.json"))
              if not set(case.algorithms) <= set(PLAY_ALGORITHMS)}  # by play: no answers to ship
    hidden = {case_fingerprint(load_case(p)) for p in HIDDEN}
    assert fingerprints == public
    assert not fingerprints & hidden
    assert "calibration" not in key  # no timings: the bytes depend on cases and code only
    assert not any("seconds" in entry for entry in entries.values())


def test_leak_check_names_every_kind_of_leak():
    minimax = (REPO / "reference" / "minimax.py").read_text()
    hidden = HIDDEN[0]
    renamed = dict(json.loads(hidden.read_text()), name="innocent", description="nothing to see")
    planted = [
        Entry("reference/minimax.py", minimax.encode()),
        Entry("grader/helpers.py", ("# renamed and re-indented\nif True:\n" + "\n".join(
            "    " + line for line in minimax.splitlines())).encode()),
        Entry("student/notes.md", f"see {hidden.stem} for the trick".encode()),
        Entry("trees/public/innocent.json", json.dumps(renamed).encode()),
        Entry("student/search.py", (REPO / "student" / "search.py").read_bytes()),
    ]
    problems = find_leaks(planted)

    def found(start: str) -> bool:
        return any(problem.startswith(start) for problem in problems)

    assert found("reference/minimax.py: files from reference/")
    assert found("grader/helpers.py: holds the body of reference/minimax.py:")
    assert found("student/notes.md: names the hidden case")
    assert found(f"trees/public/innocent.json: is the hidden case {hidden.stem!r}")
    assert not found("student/search.py")  # the stubs are clean


def test_handout_build_fails_loudly_and_writes_nothing(tmp_path, monkeypatch, capsys):
    def leaky(root, *, cache):
        stubs = Entry("student/search.py", (REPO / "student" / "search.py").read_bytes())
        return [stubs, Entry("grader/util.py", (REPO / "reference" / "alpha_beta.py").read_bytes())]

    monkeypatch.setattr(handout, "handout_entries", leaky)
    out = tmp_path / "handout.zip"
    assert build_main("handout", out) == 1
    error = capsys.readouterr().err
    assert "the handout would give answers away" in error
    assert "grader/util.py: holds the body of reference/alpha_beta.py:" in error
    assert "nothing was written" in error
    assert not out.exists() and not list(tmp_path.iterdir())


def test_handout_pyproject_drops_reference_and_tests_student():
    text = handout_pyproject((REPO / "pyproject.toml").read_text())
    from grader.commands.handout import tomllib

    data = tomllib.loads(text)
    found = data["tool"]["setuptools"]["packages"]["find"]["include"]
    assert "reference" not in found
    assert "grader" in found and "grader.*" in found
    assert data["tool"]["pytest"]["ini_options"]["testpaths"] == ["student"]
    assert "reference" not in data["tool"]["setuptools"]["package-data"]  # nor its data
    assert data["tool"]["setuptools"]["package-data"]["grader"] == ["schema/*.json"]
    with pytest.raises(BuildError, match="expected to drop 'reference'"):
        handout_pyproject('[tool.setuptools.packages.find]\n'
                          'include = [\n  "grader", # x ]\n  "reference"]\n')
    with pytest.raises(BuildError, match="packages.find"):
        handout_pyproject('[tool.setuptools]\npackages = ["grader", "reference"]\n')


# --- the handout, installed as a student would ----------------------------------------------


@pytest.fixture(scope="session")
def installed_handout(tmp_path_factory, handout_zip) -> Path:
    """The handout unpacked and set up by its own bin/setup: a fresh venv, pip install -e .

    Once per session: it takes 10-30 s. (The worker drops to an unprivileged user as root, but
    only after it has imported what it needs, so a private temporary folder is fine.)
    """
    home = unpack(handout_zip, tmp_path_factory.mktemp("student-home"))
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    setup = subprocess.run([str(home / "bin" / "setup")], env=env, capture_output=True, text=True,
                           timeout=600, check=False)
    assert setup.returncode == 0, setup.stderr[-3000:]
    SETUP_SAID.append(setup.stderr)
    return home


SETUP_SAID: list[str] = []  # what the handout's bin/setup printed


def test_the_rubric_file_names_the_module_that_declares_its_defaults():
    said = re.search(r"the defaults are in (\S+?),", (REPO / "trees" / "rubric.toml").read_text())
    assert said and (REPO / said.group(1)).is_file(), said
    assert "class Rubric" in (REPO / said.group(1)).read_text()


def test_handout_setup_installs_the_runtime_dependencies_only_and_says_each_step(
        installed_handout):
    said = SETUP_SAID[0]
    runtime = "setup 2/3: installing the grader and its runtime dependencies"
    for step in ("setup 1/3: creating", runtime, "setup 3/3: ready in"):
        assert step in said, said
    # the long step shows it is moving: a numbered line a package pip fetches, then the count
    fetched = re.findall(r"^  \[(\d+)\] \S+$", said, re.M)
    assert fetched and fetched == [str(n) for n in range(1, len(fetched) + 1)], said
    assert f"  installing {len(fetched)} packages..." in said
    python = str(installed_handout / ".venv" / "bin" / "python")
    probe = _run(installed_handout, python, "-c",
                 "import importlib.util as u; print([m for m in ('selenium', 'xdist', "
                 "'importlinter', 'junitparser', 'yaml', 'vermin', 'pytest', 'hypothesis') "
                 "if u.find_spec(m)])")
    assert probe.stdout.split() == ["['pytest',", "'hypothesis']"], probe.stderr
    readme = (installed_handout / "README.md").read_text()
    assert "pip install -e .\n" in readme  # the manual route installs what the script does


def _run(home: Path, *command: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items()
           if k not in ("VIRTUAL_ENV", "PYTHONPATH", "GRADER_CACHE")}
    return subprocess.run(list(command), cwd=home, env=env, capture_output=True, text=True,
                          timeout=600, check=False)


def test_handout_venv_has_no_reference(installed_handout):
    python = str(installed_handout / ".venv" / "bin" / "python")
    probe = _run(installed_handout, python, "-c",
                 "import grader, importlib.util; print(grader.__file__); "
                 "print(importlib.util.find_spec('reference'))")
    assert probe.returncode == 0, probe.stderr
    where, reference = probe.stdout.split()
    assert where.startswith(str(installed_handout)) and reference == "None"


def test_grader_check_and_pytest_run_in_the_handout(installed_handout):
    stubs = _run(installed_handout, "bin/grade")
    assert stubs.returncode == 1, stubs.stdout[-2000:] + stubs.stderr[-2000:]
    assert "not implemented" in stubs.stdout and "Traceback" not in stubs.stderr
    if not CORRECT.exists():
        pytest.skip(f"{CORRECT} is not written yet")
    shutil.copy(CORRECT, installed_handout / "student" / "search.py")
    check = _run(installed_handout, str(installed_handout / ".venv" / "bin" / "grader"), "check")
    assert check.returncode == 0, check.stdout[-3000:] + check.stderr[-2000:]
    # full marks: the run ends a few lines after its total; the details only with --verbose
    after = check.stdout.split("\nTotal: ", 1)[1].strip().splitlines()
    assert len(after) <= 6, check.stdout[-3000:]
    assert "shown with --verbose" in check.stdout and "to move" not in check.stdout
    verbose = _run(installed_handout, str(installed_handout / ".venv" / "bin" / "grader"),
                   "check", "--verbose")
    assert re.search(r"^position \(rows top to bottom\) +to move +evaluate$", verbose.stdout,
                     re.M), verbose.stdout[-3000:]
    if not (installed_handout / "student" / "test_search.py").exists():
        pytest.skip("student/test_search.py (the pytest front end) is not in the handout yet")
    tests = _run(installed_handout, "bin/test", "-q")
    assert tests.returncode == 0, tests.stdout[-3000:] + tests.stderr[-2000:]
    assert " passed" in tests.stdout


def test_dockerfile_leaves_cmd_and_entrypoint_to_gradescopes_base_image():
    """Gradescope's base image starts its harness through its own CMD/ENTRYPOINT; its sample
    Dockerfile redefines neither, and a course's image must not either."""
    lines = (REPO / "docker" / "Dockerfile").read_text().splitlines()
    instructions = [line.split()[0].upper() for line in lines if line.strip()
                    and not line.lstrip().startswith("#") and not line.startswith((" ", "\t"))]
    assert instructions[0] == "FROM" and "COPY" in instructions
    assert not {"CMD", "ENTRYPOINT", "WORKDIR"} & set(instructions)


def test_autograder_zip_carries_every_cases_answers_keyed_as_the_cache(tmp_path,
                                                                      autograder_build):
    from grader.answers.store import AnswerKey
    from grader.cases import find_cases, load_case
    from grader.cases.rubric import load_rubric
    from grader.scoring.grade import prepare_answers

    out, _ = autograder_build
    with zipfile.ZipFile(out) as zipped:
        (tmp_path / "key.json").write_bytes(zipped.read("trees/.answer-key.json"))
    shipped = AnswerKey(files=[tmp_path / "key.json"], cache=None)
    cases = [load_case(p) for p in find_cases([REPO / "trees" / "public", REPO / "trees" / "hidden"])]
    assert any("hidden" in str(case.path) for case in cases)
    prepare_answers(cases, load_rubric(REPO / "trees" / "rubric.toml"), shipped)
    assert not shipped._dirty  # every answer grading asks for was in the zip
    assert shipped.used == set(shipped.entries)  # and nothing else


@pytest.mark.parametrize("rule, says", [("inclusive", "`v >= beta`"), ("strict", "`v > beta`")])
def test_handout_readme_states_the_rubrics_pruning_rule_and_the_html_report(tmp_path, rule, says):
    rubric = tmp_path / "rubric.toml"
    rubric.write_text(f'[defaults]\npruning = "{rule}"\n')
    text = handout.handout_readme((REPO / "docker" / "handout" / "README.md").read_text(), rubric)
    assert "<!--" not in text and says in text
    assert "grader check --html report.html" in text and "pytest -k minimax" in text
    long = [line for line in text.splitlines() if len(line) > 100 and line[:1] != "|"]
    assert not long, long  # a student reads it in a terminal too (tables aside)


# ``pytest --collect-only -q -k EXPRESSION student/test_search.py`` for each expression given
# (a JSON list), in one process: what each run printed, as a JSON list. (A process a run was
# 0.65 CPU s, most of it pytest's start; each run here collects afresh all the same.)
COLLECT_EACH = """
import contextlib, io, json, sys
import pytest
printed = []
for expression in json.loads(sys.argv[1]):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        pytest.main(["--collect-only", "-q", "-p", "no:cacheprovider", "-k", expression,
                     "student/test_search.py"])
    printed.append(out.getvalue())
sys.stdout.write(json.dumps(printed))
"""


def test_pytest_k_with_an_algorithm_name_picks_that_algorithm_only():
    """``expectimax-expectiminimax-turns`` contains "minimax": plain -k would select it."""
    expressions = ["minimax", "expectiminimax", " and ".join(f"not {name}" for name in ALGORITHMS),
                   "alpha_beta"]
    done = subprocess.run([sys.executable, "-c", COLLECT_EACH, json.dumps(expressions)],
                          cwd=REPO, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    minimax, turns, none, alpha_beta = (
        [line.split("[", 1)[1] for line in printed.splitlines() if "::" in line]
        for printed in json.loads(done.stdout))
    assert minimax and all(name.startswith("minimax-") for name in minimax)
    # a case name still matches as before
    assert turns and all(name.startswith("expectimax-") for name in turns)
    assert none == []  # every one
    # not alpha_beta_tt's, whose name holds alpha_beta
    assert alpha_beta and all(name.startswith("alpha_beta-") for name in alpha_beta)


def test_the_handout_explains_an_iterative_deepening_mistake_without_the_reference(
        installed_handout, tmp_path):
    # The hint and the nodes-saved table come from the handout's answer key alone.
    correct = CORRECT.read_text(encoding="utf-8")
    wrong = correct.replace("sign = -1 if player == MAX else 1", "sign = 1 if player == MAX else -1")
    assert wrong != correct
    submission = tmp_path / "search.py"
    submission.write_text(wrong, encoding="utf-8")
    check = _run(installed_handout, str(installed_handout / ".venv" / "bin" / "grader"), "check",
                 "--submission", str(submission), "-a", "iterative_deepening",
                 "-k", "iterative-deepening-intro")
    assert check.returncode == 1, check.stdout[-3000:] + check.stderr[-2000:]
    assert "Move ordering." in check.stdout
    assert "ordering saves 2 (15%)" in check.stdout
    assert "orders the root worst first" in check.stdout


def test_build_modules_share_through_bundle_and_handout_not_a_circle():
    """build.py dispatches to build_ci and build_prairielearn; what they share lives in
    bundle.py and handout.py, so none of them imports build.py, and no private name crosses."""
    commands = REPO / "grader" / "commands"
    for name in ("bundle", "handout", "build_ci", "build_prairielearn"):
        tree = ast.parse((commands / f"{name}.py").read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("grader.commands"):
                assert node.module != "grader.commands.build", name
                assert not [a.name for a in node.names if a.name.startswith("_")], name


def test_the_handout_explains_a_transposition_table_mistake_without_the_reference(
        installed_handout, tmp_path):
    # The nodes the table saves, the table's step explanation and the hint: the key alone.
    correct = CORRECT.read_text(encoding="utf-8")
    wrong = correct.replace('    bound = "upper" if v <= a else "lower" if v >= b else "exact"\n',
                            '    bound = "exact"\n')
    assert wrong != correct
    submission = tmp_path / "search.py"
    submission.write_text(wrong, encoding="utf-8")
    check = _run(installed_handout, str(installed_handout / ".venv" / "bin" / "grader"), "check",
                 "--submission", str(submission), "-a", "alpha_beta_tt", "-k", "tt-graph-intro")
    assert check.returncode == 1, check.stdout[-3000:] + check.stderr[-2000:]
    assert "the table saves 2 (15%)" in check.stdout
    assert "looked E up and found (5, lower, searched +∞)" in check.stdout
    assert "stores a bound as exact" in check.stdout
