"""The grader installed as a package, not from a checkout: a wheel built from the repo and
installed without ``-e`` into a fresh venv holds every package (``[tool.setuptools.packages.find]``
in pyproject.toml), runs every command's ``--help`` and a whole ``grader batch``.

Kept cheap and offline: the wheel is built with this venv's setuptools (no build isolation, no
index), installed with ``--no-deps``, and the fresh venv reaches the runtime dependencies through
a path file naming this venv's site-packages. A path file's folder is only put on ``sys.path``
(its own ``.pth`` files are not run), so this venv's editable install of the checkout stays out:
``grader`` is imported from the wheel's copy, which the first test checks.
"""

from __future__ import annotations

import csv
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from grader.cli import build_parser

ROOT = Path(__file__).resolve().parent.parent
CORRECT = ROOT / "tests" / "submissions" / "correct" / "search.py"
CASE = ROOT / "trees" / "public" / "aima-fig-5-2.json"


def _run(*args, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel, built from a copy of what a build reads (not in the checkout: no build/ or
    egg-info left there for other tests to trip on)."""
    work = tmp_path_factory.mktemp("wheel")
    source = work / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    for name in ("grader", "reference"):
        shutil.copytree(ROOT / name, source / name,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    built = _run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                 "--no-index", "--disable-pip-version-check", "-q", "-w", work / "dist", source,
                 cwd=work)
    assert built.returncode == 0, built.stdout + built.stderr
    (found,) = (work / "dist").glob("*.whl")
    return found


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory) -> tuple[Path, dict]:
    """A fresh venv with the wheel installed (not editable); (its bin folder, the environment
    to run it in)."""
    home = tmp_path_factory.mktemp("venv")
    venv = home / "venv"
    made = _run(sys.executable, "-m", "venv", "--without-pip", venv, cwd=home)
    assert made.returncode == 0, made.stderr
    python = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    done = _run(sys.executable, "-m", "pip", "--python", python, "install", "--no-deps",
                "--no-index", "--disable-pip-version-check", "-q", wheel, cwd=home)
    assert done.returncode == 0, done.stdout + done.stderr
    purelib = _run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])",
                   cwd=home).stdout.strip()
    (Path(purelib) / "grader-test-dependencies.pth").write_text(
        sysconfig.get_paths()["purelib"] + "\n")
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    return python.parent, env


def test_the_wheel_holds_every_package_of_the_checkout_and_nothing_else(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    folders = {name.rsplit("/", 1)[0] for name in names if name.endswith("/__init__.py")}
    expected = {path.parent.relative_to(ROOT).as_posix()
                for top in ("grader", "reference") for path in (ROOT / top).rglob("__init__.py")}
    assert folders == expected
    assert "grader/batch" in folders  # once left out of a hand-kept list
    assert "grader/schema/case.schema.json" in names
    assert "reference/telling_trees.json" in names  # the telling trees: package data
    assert not [n for n in names if n.split("/")[0] in ("tests", "student", "bench", "docker")]


def test_every_command_answers_help_from_the_installed_wheel(installed, tmp_path):
    bin_dir, env = installed
    where = _run(bin_dir / "python", "-c", "import grader; print(grader.__file__)",
                 cwd=tmp_path, env=env)
    assert str(bin_dir.parent) in where.stdout, where.stdout + where.stderr  # not the checkout
    commands = sorted(build_parser()._subparsers._group_actions[0].choices)
    assert {"batch", "check", "grade", "play", "validate"} <= set(commands)
    for command in [[], *([c] for c in commands)]:
        shown = _run(bin_dir / "grader", *command, "--help", cwd=tmp_path, env=env)
        assert shown.returncode == 0, (command, shown.stderr)
        assert "usage: grader" in shown.stdout


def test_grader_batch_grades_an_export_from_the_installed_wheel(installed, tmp_path):
    bin_dir, env = installed
    (tmp_path / "export" / "submission_1").mkdir(parents=True)
    shutil.copy(CORRECT, tmp_path / "export" / "submission_1" / "search.py")
    done = _run(bin_dir / "grader", "batch", "export", "--out", "out", "--cases", CASE,
                "--jobs", "1", cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    with open(tmp_path / "out" / "scores.csv", newline="") as stream:
        (row,) = list(csv.DictReader(stream))
    assert (row["submission"], row["score"], row["max_score"], row["error"]) == (
        "submission_1", "2", "2", "")
    assert (tmp_path / "out" / "submission_1" / "results.json").is_file()
