"""grader/commands/environment.py and the local front ends: a student's machine that lacks
what the grader needs is told what is missing and how to install it, never "a problem on the
course staff's side" (issue 31)."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

from grader.cli import main
from grader.commands import environment

ROOT = Path(__file__).resolve().parent.parent
AIMA = ROOT / "trees" / "public" / "aima-fig-5-2.json"
STAFF_SIDE = "staff"  # the neutral grader-failure message says "the course staff's side"


def test_nothing_is_missing_here():
    assert environment.missing_packages() == []


def test_a_missing_package_is_named_with_its_pip_name(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(environment.importlib.util, "find_spec",
                        lambda name, *a: None if name in ("timeout_decorator", "nbformat")
                        else real(name, *a))
    assert environment.missing_packages() == ["timeout-decorator", "nbformat"]


def test_grader_check_names_what_to_install_and_grades_nothing(monkeypatch, capsys):
    monkeypatch.setattr(environment, "missing_packages", lambda: ["timeout-decorator"])
    monkeypatch.setattr("grader.commands.check.missing_packages", lambda: ["timeout-decorator"])
    assert main(["check", "--cases", str(AIMA)]) == 2
    said = capsys.readouterr()
    assert "lacks a package the grader needs: timeout-decorator" in said.err
    assert f'"{sys.executable}" -m pip install -e "{ROOT}"' in said.err
    assert STAFF_SIDE not in said.err + said.out and said.out == ""


PATCHED_PYTEST = """
import importlib.util, sys
real = importlib.util.find_spec
importlib.util.find_spec = lambda name, *a: None if name == "nbformat" else real(name, *a)
import pytest
sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", sys.argv[1]]))
"""


def test_student_pytest_names_what_to_install_and_grades_nothing():
    """The student/ pytest front end, run by a Python that cannot import nbformat."""
    done = subprocess.run([sys.executable, "-c", PATCHED_PYTEST, str(ROOT / "student")],
                          cwd=ROOT / "student", capture_output=True, text=True, timeout=120,
                          check=False)
    text = done.stdout + done.stderr
    assert done.returncode == 2, text
    assert "lacks a package the grader needs: nbformat" in text and "-m pip install -e" in text
    assert STAFF_SIDE not in text and "passed" not in text and "failed" not in text


def test_bin_setup_without_python_says_what_to_install(tmp_path):
    (tmp_path / "bin").mkdir()
    shutil.copy(ROOT / "bin" / "setup", tmp_path / "bin" / "setup")
    done = subprocess.run(["bash", str(tmp_path / "bin" / "setup")], capture_output=True,
                          text=True, env={"PATH": "/usr/bin:/bin", "PYTHON": "no-such-python3"},
                          timeout=60, check=False)
    assert done.returncode == 1
    assert "no no-such-python3 on this machine: install Python 3.10 or newer" in done.stderr
    assert not (tmp_path / ".venv").exists()


def test_bin_setup_leaves_the_grader_compiled(tmp_path):
    """bin/setup compiles the grader's and the reference's modules for the venv's Python, and
    again after an edit: a shell that sets PYTHONDONTWRITEBYTECODE never writes bytecode, so
    without it every grade (the grader and each worker) compiles its imports anew."""
    done = subprocess.run(["bash", str(ROOT / "bin" / "setup")], capture_output=True, text=True,
                          timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    sources = [*(ROOT / "grader").rglob("*.py"), *(ROOT / "reference").rglob("*.py")]
    missing = [str(p.relative_to(ROOT)) for p in sources
               if not Path(importlib.util.cache_from_source(str(p))).exists()]
    assert not missing, missing
    # a copy's module edited after its bytecode was written is compiled again by the next run
    copy = tmp_path / "repo"
    (copy / "bin").mkdir(parents=True)
    shutil.copy(ROOT / "bin" / "setup", copy / "bin" / "setup")
    (copy / "grader").mkdir()
    (copy / "pyproject.toml").write_text((ROOT / "pyproject.toml").read_text())
    (copy / ".venv" / "bin").mkdir(parents=True)  # installed already: the stamp is newer
    (copy / ".venv" / "bin" / "python").symlink_to(sys.executable)
    (copy / ".venv" / ".installed").touch()
    module = copy / "grader" / "edited.py"
    module.write_text("VALUE = 1\n")
    for _ in range(2):
        subprocess.run(["bash", str(copy / "bin" / "setup")], capture_output=True, timeout=600,
                       check=True)
        cached = Path(importlib.util.cache_from_source(str(module)))
        header = cached.read_bytes()[8:16]  # the source's mtime and size it was compiled from
        assert header == (int(module.stat().st_mtime).to_bytes(4, "little")
                          + module.stat().st_size.to_bytes(4, "little"))
        module.write_text("VALUE = 2  # edited\n")  # a later edit (compileall reads the
        later = module.stat().st_mtime + 5  # source's mtime in whole seconds)
        os.utime(module, (later, later))
