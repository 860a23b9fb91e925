"""``grader import-cs188``: a CS188 ``GraphGameTreeTest`` as a case file, checked against its
``.solution`` file when one is given. The conversion is :mod:`grader.cases.cs188`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from grader.cases import case_from_dict
from grader.cases.authoring import case_json
from grader.cases.cs188 import Cs188FormatError, convert, parse_test_text
from grader.errors import CaseError


def check_solution(case: Any, solution: dict[str, str], file: Any = None) -> list[str]:
    """Each way the reference differs from CS188's ``.solution`` (empty when they agree)."""
    from grader.answers.solve import solve

    algorithm = case.algorithms[0]
    if "action" not in solution or "generated" not in solution:
        raise Cs188FormatError("expected a solution with `action` and `generated`", file)

    def differences(rule: str | None) -> list[str]:
        ours = solve(case, algorithm, pruning=rule)
        found = []
        if str(ours.action) != solution["action"]:
            found.append(f"action: the solution says {solution['action']!r}, our reference "
                         f"says {str(ours.action)!r}")
        mine = sorted(set(ours.generated) | {case.data["start"]})
        theirs = solution["generated"].split()
        if mine != theirs:
            only_theirs = sorted(set(theirs) - set(mine))
            only_ours = sorted(set(mine) - set(theirs))
            found.append(f"generated: the solution has {' '.join(theirs)!r}, our reference "
                         f"{' '.join(mine)!r} (only in the solution: {only_theirs or 'none'}; "
                         f"only ours: {only_ours or 'none'})")
        return found

    rule = "strict" if algorithm == "alpha_beta" else None
    found = differences(rule)
    if found and rule and not differences("inclusive"):
        found.append("the inclusive rule matches the solution: it was made with v >= beta cuts")
    return found


def import_main(test_file: str | Path, *, solution: str | Path | None = None,
                out: str | Path | None = None) -> int:
    """``grader import-cs188``: 0 converted (and matching the solution), 1 a mismatch, 2 a
    file that cannot be read or converted."""
    test_file = Path(test_file)
    if solution is None and test_file.with_suffix(".solution").is_file():
        solution = test_file.with_suffix(".solution")
    say = sys.stderr if out is None else sys.stdout  # stdout holds the JSON when no --out
    try:
        data, notes = convert(parse_test_text(test_file.read_text(encoding="utf-8"), test_file),
                              test_file, out)
        try:
            case = case_from_dict(data, out or test_file)
        except CaseError as error:
            raise Cs188FormatError(f"the converted case does not validate: {error.message} "
                                   f"(at {error.path})", test_file) from None
        answer = (parse_test_text(Path(solution).read_text(encoding="utf-8"), solution)
                  if solution is not None else None)
        differences = check_solution(case, answer, solution) if answer is not None else []
        text = case_json(data)
        if out is None:
            print(text, end="")
        else:
            Path(out).write_text(text, encoding="utf-8")
            print(f"wrote {out}", file=say)
    except (Cs188FormatError, OSError) as error:
        print(f"grader import-cs188: {error}", file=sys.stderr)
        return 2
    for note in notes:
        print(f"note: {note}", file=say)
    if answer is None:
        return 0
    if differences:
        print(f"grader import-cs188: {test_file} differs from {solution}:", file=sys.stderr)
        for line in differences:
            print(f"  - {line}", file=sys.stderr)
        return 1
    rule = f" ({data['pruning']} rule)" if "pruning" in data else ""
    print(f"matches {solution}: action {json.dumps(answer['action'])} and the generated "
          f"set{rule}", file=say)
    return 0
