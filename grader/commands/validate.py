"""``grader validate PATH...``: print every error of every case file and rubric given
(:func:`grader.answers.validate.validate_paths`), then its warnings (``warning: `` first);
exit 1 when there is an error (warnings never change the exit status), 2 when a path given
does not exist (nothing there to check: bad input)."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TextIO

from grader.answers.validate import reference_available, validate_paths
from grader.cases import (
    find_cases,
)


def validate_main(paths: Iterable[str | Path], *, check_expect: bool = True,
                  out: TextIO | None = None) -> int:
    """``grader validate``: print each error as ``file:line:col: at $.path: message`` and a
    summary; return 2 if a path does not exist, 1 if there is any other error, else 0."""
    out = out or sys.stdout
    paths = [Path(p) for p in paths]
    warnings: list = []
    errors = validate_paths(paths, check_expect=check_expect, warnings=warnings)
    for error in errors:
        print(error, file=out)
    for warning in warnings:
        print(f"warning: {warning}", file=out)
    try:
        count = len(find_cases([p for p in paths if p.exists()]))
    except FileNotFoundError:  # pragma: no cover - filtered above
        count = 0
    files = len({e.file for e in errors})
    if errors:
        print(f"{len(errors)} error{'s' if len(errors) != 1 else ''} in {files} of {count} "
              f"case file{'s' if count != 1 else ''}", file=out)
    else:
        print(f"{count} case file{'s' if count != 1 else ''} valid", file=out)
    if warnings:
        print(f"{len(warnings)} warning{'s' if len(warnings) != 1 else ''} (not errors: the "
              "exit status does not change)", file=out)
    if check_expect and not reference_available():
        print("note: the reference (grader.answers.solve) cannot be imported yet, so 'expect' answers "
              "were not checked", file=out)
    if any(not path.exists() for path in paths):
        return 2
    return 1 if errors else 0
