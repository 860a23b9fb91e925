"""Where the grader's own files are: one place, so moving a module never moves a path.

The grader runs from a checkout (or ``/autograder/source`` on Gradescope) laid out as the
README's Layout section says: ``grader/`` beside ``reference/``, ``trees/`` and ``student/``.
"""

from __future__ import annotations

from pathlib import Path

PACKAGE_ROOT = Path(__file__).resolve().parent  # grader/
REPO_ROOT = PACKAGE_ROOT.parent  # the checkout: grader/, reference/, trees/, student/
SCHEMA_PATH = PACKAGE_ROOT / "schema" / "case.schema.json"
# A case's "$schema" as written in trees/public/*.json and trees/hidden/*.json.
SCHEMA_REF = "../../grader/schema/case.schema.json"
DEFAULT_RUBRIC = REPO_ROOT / "trees" / "rubric.toml"
