"""Name the likely mistake behind a search stopped by its work budget.

A stopped search has no value and only the start of its trace, so :mod:`grader.feedback.diagnosis`
(which matches whole runs) cannot explain it. Here each known mistake of the algorithm
(``reference/mistakes.py``) runs on the case under the budget the student's run met, in the
grader's process; a mistake that is stopped too, with exactly the student's ``generated`` so
far, explains it. (A mistake that makes the same calls stops at the same call: the budget is
counted in calls.) Runs are cached in the answer key by the stop point, like the diagnosis's.
"""

from __future__ import annotations

from typing import Any

from grader.errors import GraderError
from grader.feedback.diagnosis import Hint, diagnosable, trace_hash
from grader.run.runner import RunResult, function_name
from grader.run.tracing import Budget, BudgetExceeded, traced


def _stopped_trace(functions: Any, game: Any, algorithm: str, mcts: Any,
                   budget: Budget) -> list[str] | None:
    """``generated`` of a run stopped by ``budget``; None if it finished or raised otherwise."""
    import random

    traced_game, trace = traced(game, budget)
    function = functions[function_name(algorithm, game)]
    root = game.initial_state()
    try:
        if algorithm == "mcts":
            function(traced_game, root, mcts.iterations, random.Random(mcts.seed), mcts.c)
        else:
            function(traced_game, root)
    except BudgetExceeded:
        pass
    except Exception:  # noqa: BLE001 - a mistake that raises explains nothing
        return None
    return trace.generated_ids() if trace.budget_stop else None


def stopped_runs(case: Any, algorithm: str, rule: str, budget: Budget) -> list[dict[str, Any]]:
    """Each known mistake stopped by ``budget`` on ``case``: its hint and its trace's hash."""
    from grader.answers.solve import mcts_settings
    from reference.mistakes import mistakes_for

    settings = mcts_settings(case) if algorithm == "mcts" else None
    runs = []
    for mistake in mistakes_for(algorithm, rule):
        generated = _stopped_trace(mistake.functions(rule), case.build_game(), algorithm,
                                   settings, budget)
        if generated is not None:
            runs.append({"name": mistake.name, "title": mistake.title, "does": mistake.does,
                         "departs": mistake.departs, "fix": mistake.fix,
                         "generated_hash": trace_hash(generated)})
    return runs


def diagnose_stopped(case: Any, algorithm: str, rule: str, got: RunResult,
                     answers: Any) -> list[Hint]:
    """The hints of the known mistakes stopped where ``got`` was, with its trace so far."""
    if not diagnosable(case, algorithm):
        return []
    budget = Budget(result=len(got.generated), evaluated=len(got.evaluated))
    try:
        runs = answers.extra(case, f"stopped:{algorithm}:{rule}:{budget.result}:{budget.evaluated}",
                             lambda: stopped_runs(case, algorithm, rule, budget))
    except GraderError:  # a handout without the reference: no hint, never an error
        return []
    digest = trace_hash(got.generated)
    return [Hint(run["name"], run["title"], run["does"], run["departs"], run["fix"])
            for run in runs if run["generated_hash"] == digest]


__all__ = ["diagnose_stopped", "stopped_runs"]
