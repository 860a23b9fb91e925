"""``grader solve CASE -a ALG``: the reference's value, action, ``generated`` and ``evaluated``,
as text or ``--json`` (:func:`grader.answers.solve.solve` does the work)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, TextIO

import grader.algorithms as algorithm_specs
from grader.answers.solve import mcts_settings, resolve_pruning, solve
from grader.cases.algorithms import PLAY_ALGORITHMS
from grader.errors import CaseError
from grader.run.runner import MctsSettings, RunResult


def _text(
    case: Any,
    path: Path,
    algorithm: str,
    rule: str,
    settings: MctsSettings | None,
    result: RunResult,
) -> str:
    how = f"pruning: {rule}" if algorithm_specs.get(algorithm).window else ""
    if settings is not None:
        how = f"iterations: {settings.iterations}, seed: {settings.seed}, c: {settings.c:g}"
    lines = [
        f"case:      {getattr(case, 'name', path.stem)} ({path})",
        f"algorithm: {algorithm}" + (f" ({how})" if how else ""),
        f"value:     {result.value!r}",
        f"action:    {result.action!r}",
        f"generated: {len(result.generated)} ids",
        "  " + (" ".join(result.generated) or "(none)"),
        f"evaluated: {len(result.evaluated)} ids",
        "  " + (" ".join(result.evaluated) or "(none)"),
    ]
    return "\n".join(lines)


def _jsonable(value: Any) -> Any:
    if isinstance(value, (tuple, list)):
        return [_jsonable(item) for item in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)


def solve_main(
    case_path: Path | str,
    algorithm: str,
    pruning: str | None = None,
    seed: int | None = None,
    as_json: bool = False,
    *,
    out: TextIO | None = None,
) -> int:
    """``grader solve``: print the reference's answer; 0 on success, 2 for a bad case or option."""
    from grader.cases import load_case  # imported here: only the CLI needs them
    from grader.cases.rubric import load_rubric

    out = out or sys.stdout
    path = Path(case_path)
    if algorithm in PLAY_ALGORITHMS:
        print(f"grader solve: {path}: {algorithm} is graded by play (matches against an "
              "opponent), not against a reference answer: there is no value or trace to print; "
              f"`grader solve {path} --key` says how the case plays and scores", file=sys.stderr)
        return 2
    try:
        case = load_case(path)
        rule = resolve_pruning(case, algorithm, pruning, load_rubric())
        result = solve(case, algorithm, pruning=rule, seed=seed)
    except CaseError as error:  # names the file itself
        print(f"grader solve: {error}", file=sys.stderr)
        return 2
    except (ValueError, TypeError, OSError) as error:  # an algorithm the case's game cannot run
        print(f"grader solve: {path}: {error}", file=sys.stderr)
        return 2
    if pruning is not None and not algorithm_specs.get(algorithm).window:
        print(f"note: --pruning changes only alpha_beta's search; {algorithm}'s is the same "
              "under inclusive and strict", file=sys.stderr)
    if as_json:
        payload = {key: _jsonable(value) for key, value in result.to_dict().items()}
        print(json.dumps(payload), file=out)
    else:
        settings = mcts_settings(case, seed) if algorithm_specs.get(algorithm).iterations else None
        print(_text(case, path, algorithm, rule, settings, result), file=out)
    return 0
