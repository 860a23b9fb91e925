"""Reading back what the page is made from: the results model from a ``results.json``, and
the case file of a replay.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from grader.paths import REPO_ROOT
from grader.scoring.results import ALGORITHM_NUMBERS, PASSED, GradingResults, TestResult


class ReportError(ValueError):
    """A results file the report cannot read; the message says what was expected."""


def replay_case(path: str | None, name: str, cache: dict[str, Any],
                base: Path | None = None) -> Any:
    """The case of a replay: its recorded path, else the same path under ``base`` or the repo,
    else a case file named after it under the repo's ``trees/``."""
    from grader.cases import load_case

    key = f"{path}|{name}"
    if key in cache:
        return cache[key]
    candidates = []
    if path:
        candidates += [Path(path)] + [root / path for root in (base, REPO_ROOT) if root is not None]
    candidates += sorted((REPO_ROOT / "trees").rglob(f"{name}.json"))
    for candidate in candidates:
        if candidate.is_file():
            cache[key] = load_case(candidate)
            return cache[key]
    raise ReportError(f"expected the case file of {name!r} at {path!r} or under trees/, found none")


def results_from_json(data: dict[str, Any]) -> GradingResults:
    """The results model again, from a ``results.json`` Gradescope reads (what it keeps)."""
    if not isinstance(data, dict) or not isinstance(data.get("tests"), list):
        raise ReportError(f"expected a results.json object with a 'tests' list, got: "
                          f"{type(data).__name__}")
    results = GradingResults(output=data.get("output") or "",
                             execution_time=float(data.get("execution_time") or 0.0))
    for position, item in enumerate(data["tests"], 1):
        name = str(item.get("name", f"test {position}"))
        algorithm, _, rest = name.partition(": ")
        if algorithm not in ALGORITHM_NUMBERS:
            algorithm, rest = "other", name
        score, most = float(item.get("score") or 0.0), float(item.get("max_score") or 0.0)
        passed = item.get("status") == "passed" or (item.get("status") is None and score >= most)
        extra = item.get("extra_data") or {}
        outcome = extra.get("outcome") or (PASSED if passed else
                                           "wrong_trace" if score > 0 else "failed")
        results.tests.append(TestResult(
            name=name, number=str(item.get("number") or position), algorithm=algorithm,
            case_name=rest.split(" (", 1)[0], max_score=most, score=score, outcome=outcome,
            visibility=item.get("visibility", "visible"), output=item.get("output") or "",
            summary=(item.get("output") or "").split("\n", 1)[0][:200], extra_data=extra))
    return results
