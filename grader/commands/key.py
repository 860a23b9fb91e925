"""``grader solve CASE --key``: the Markdown answer sheet of one case
(:mod:`grader.answers.sheet`)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from grader.answers.sheet import answer_key
from grader.answers.tree_walk import (
    ReferenceMissingError,
)
from grader.errors import CaseError


def key_main(case_path: str | Path, *, out: Any = None) -> int:
    """``grader solve CASE --key``: print the answer key; 0, or 2 for a bad case."""
    from grader.cases import load_case
    from grader.cases.rubric import RubricError, load_rubric

    out = out or sys.stdout
    try:
        case = load_case(case_path)
        text = answer_key(case, load_rubric())
    except (CaseError, RubricError, ValueError, OSError, ReferenceMissingError) as error:
        where = "" if isinstance(error, CaseError) else f"{case_path}: "  # CaseError names it
        print(f"grader solve --key: {where}{error}", file=sys.stderr)
        return 2
    print(text, end="", file=out)
    return 0
