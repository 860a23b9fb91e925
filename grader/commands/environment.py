"""What a student's machine lacks to run the grader: the packages ``pyproject.toml`` lists.

``grader check`` and the student pytest front end (``student/conftest.py``) ask
:func:`missing_packages` before grading, and stop with :func:`missing_message` (which packages,
the command that installs them) instead of grading every test as "a problem on the course
staff's side": a student's Python without the grader's dependencies is the student's to fix,
and only the student can. Imports nothing outside the standard library, so it runs on any
Python that can import this file.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

# Import name -> the name pip installs, for every run-time dependency in pyproject.toml
# (tests/test_docs.py checks the two lists agree).
REQUIRED = {
    "gradescope_utils": "gradescope-utils",
    "timeout_decorator": "timeout-decorator",
    "networkx": "networkx",
    "jsonschema": "jsonschema",
    "pytest": "pytest",
    "hypothesis": "hypothesis",
    "nbformat": "nbformat",
}
REQUIRED_BEFORE_3_11 = {"tomli": "tomli"}  # tomllib is in the standard library from 3.11


def missing_packages() -> list[str]:
    """The pip names of the required packages this Python cannot import, in pyproject's order."""
    required = dict(REQUIRED)
    if sys.version_info < (3, 11):
        required.update(REQUIRED_BEFORE_3_11)
    return [pip for name, pip in required.items() if importlib.util.find_spec(name) is None]


def missing_message(missing: list[str], root: Path) -> str:
    """What to tell the student: which packages, and the commands that install them."""
    script = r"bin\grade.cmd" if os.name == "nt" else "bin/grade"
    venv = r".venv\Scripts\python" if os.name == "nt" else ".venv/bin/python"
    names = ", ".join(missing)
    return (f"this Python ({sys.executable}) lacks {'a package' if len(missing) == 1 else 'packages'}"
            f" the grader needs: {names}. Nothing was graded. Install "
            f"{'it' if len(missing) == 1 else 'them'} with\n"
            f"    \"{sys.executable}\" -m pip install -e \"{root}\"\n"
            f"or run `{script}` in {root}, which sets up .venv/ with everything and grades "
            f"(then `{venv} -m pytest` runs these tests there).")


__all__ = ["REQUIRED", "REQUIRED_BEFORE_3_11", "missing_message", "missing_packages"]
