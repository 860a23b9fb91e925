"""The layering of grader/ (docs/architecture.md), enforced by import-linter's contracts in
pyproject.toml: no package imports one above it, the student's side never reaches the
reference, and the reference sees only the game interface."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
importlinter_cli = pytest.importorskip("importlinter.cli", reason="pip install -e '.[dev]'")


def lint(monkeypatch, root: Path) -> int:
    """import-linter's exit code for the contracts in ``root``/pyproject.toml, over ``root``."""
    monkeypatch.chdir(root)
    return importlinter_cli.lint_imports(config_filename=str(root / "pyproject.toml"),
                                         no_cache=True)


def test_the_import_contracts_hold(monkeypatch, capsys):
    assert lint(monkeypatch, REPO) == 0, capsys.readouterr().out


def test_a_module_reaching_up_breaks_the_contract(tmp_path, monkeypatch, capsys):
    # The same contracts over a copy of grader/ where a case module imports the scoring model.
    copy = tmp_path / "repo"
    shutil.copytree(REPO / "grader", copy / "grader", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(REPO / "reference", copy / "reference",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "pyproject.toml", copy / "pyproject.toml")
    rules = copy / "grader" / "cases" / "rules.py"
    rules.write_text(rules.read_text() + "\nfrom grader.scoring import results  # noqa\n")
    monkeypatch.syspath_prepend(str(copy))
    for name in [m for m in sys.modules if m.split(".")[0] in ("grader", "reference")]:
        monkeypatch.delitem(sys.modules, name)  # the copy is what gets analysed
    assert lint(monkeypatch, copy) == 1
    assert "grader.cases.rules -> grader.scoring.results" in capsys.readouterr().out
