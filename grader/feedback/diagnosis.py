"""Name the likely mistake behind a failing test: known mistakes run as variants of the reference.

For a (case, algorithm) test, :func:`variant_runs` runs every variant of the algorithm in
``reference/mistakes*.py`` on the same case, here in the grader's process (never in the worker);
:func:`diagnose` returns the hints of the variants that reproduce everything the grader observed
of the student's run on that one case: the value, both traces and the run's other observable
state (:func:`grader.run.runner.observed_state`: ``alpha_beta_tt``'s final table, summed up by
bound kind). A variant that gives the student's traces with another table is a different
mistake, so it is not named (the step note at the first difference still shows). Which
mistake a whole submission is told it has is decided by :mod:`grader.feedback.verdict`, from
the runs on every case of the algorithm.

The variants' runs go through :meth:`AnswerKey.extra` (``variants:<algorithm>:<rule>``), so they
are computed once per case and shipped in the handout's key by
:func:`grader.scoring.grade.prepare_answers`; the handout has no ``reference/``, and a run missing
from its key means no hint (never an error). A stored run keeps the hint's text, the value, a
hash of each trace (a whole game's trace would make the key megabytes) and the observable state
(a few numbers), which is all matching needs.

A variant that raises is stored as ``"raised"``, one that generates more than
:data:`BUDGET_FACTOR` times the reference's nodes (at least :data:`BUDGET_FLOOR`) as ``"budget"``:
the same kind of failure as a student's exception or time-out.

:func:`window_moments` keeps, the same way, the reference alpha-beta's window at each step of a
case, which the feedback quotes at the first difference, and :func:`node_values` every node's
backed-up value, which the HTML report's pictures show (both are computed by staff-only code:
:mod:`reference.replay`, :mod:`reference.values`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import grader.algorithms as algorithm_specs
from grader.algorithms.mcts import SETTINGS_FIELD as MCTS_FIELD
from grader.compare import check_value
from grader.errors import GraderError
from grader.files import json_safe
from grader.footprint import sha256
from grader.run.runner import RunResult

BUDGET_FACTOR = 4
BUDGET_FLOOR = 50_000
MAX_WINDOW_NODES = 3000  # longer alpha-beta traces get no stored window (see window_moments)


@dataclass(frozen=True)
class Hint:
    """A known mistake's advice: what the code does, the lecture line, what to change."""

    name: str
    title: str
    does: str
    departs: str
    fix: str

    def markdown(self) -> list[str]:
        return [
            f"**Likely mistake: {self.title}** (`{self.name}`)",
            f"- What your code does: {self.does}.",
            f"- The lecture's pseudo-code: {self.departs}.",
            f"- What to change: {self.fix}.",
        ]


# id -> (the list, its length, its hash). Shared by grading threads (grade --jobs 2) safely: a
# key at a time, never iterated, and an entry trusted only for the very list it holds
_HASHED: dict[int, tuple[list[str], int, str]] = {}


def trace_hash(generated: list[str]) -> str:
    """A short, stable hash of a ``generated`` sequence (order and repeats included).

    A student's trace is compared with every variant's run (ten or more a case), so the hash of
    a list is remembered while the list is (the memo holds it: its id is not reused), and
    recomputed when its length changed."""
    known = _HASHED.get(id(generated))
    if known is not None and known[0] is generated and known[1] == len(generated):
        return known[2]
    digest = sha256(json.dumps(list(generated)).encode()).hexdigest()[:24]
    if type(generated) is list and len(generated) > 1000:  # worth remembering
        if len(_HASHED) >= 8:  # a few: each holds its list alive
            _HASHED.clear()
        _HASHED[id(generated)] = (generated, len(generated), digest)
    return digest


class OverBudget(Exception):
    """A :class:`BudgetedGame` asked for more children than its limit."""


class BudgetedGame:
    """The game, with ``result`` counted: past ``limit`` calls it raises :class:`OverBudget`.
    ``made`` keeps the states generated, so a stopped run's prefix is known."""

    def __init__(self, game: Any, limit: int) -> None:
        self._game = game
        self._left = limit
        self.limit = limit
        self.made: list[Any] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._game, name)

    def result(self, state: Any, action: Any) -> Any:
        self._left -= 1
        if self._left < 0:
            raise OverBudget
        child = self._game.result(state, action)
        self.made.append(child)
        return child

    def prefix_hash(self) -> str:
        """The hash of the ids generated before the budget ran out (``generated[:limit]``)."""
        return trace_hash([self._game.state_id(state) for state in self.made[:self.limit]])


def variant_runs(case: Any, algorithm: str, rule: str) -> list[dict[str, Any]]:
    """Run each known mistake of ``algorithm`` (course rule ``rule``) on ``case``.

    Returns every coding of every variant (``form``: :class:`reference.mistake_registry.Mistake`
    numbers them), in catalogue order, as ``{"name", "form", "title", "does", "departs", "fix",
    "status", "same", "value", "generated_hash", "evaluated_hash", "state"}``: ``status`` is
    ``"ran"``, ``"raised"`` (the variant raised: a student whose code raised may have it) or
    ``"budget"`` (past the node budget: a student who timed out may have it, and so may one
    whose run went past the budget with the same ``generated`` up to it: ``prefix_length``,
    ``prefix_hash``); ``same`` says a run that is indistinguishable from the reference's (value
    and ``generated``), which a passing student may have; ``state`` is the run's observable
    state (:func:`grader.run.runner.observed_state`, None where there is none). Needs
    ``reference/`` (staff machines, Gradescope).
    """
    from grader.answers.solve import mcts_settings, solve
    from grader.run.runner import run_algorithm
    from reference.mistakes import mistakes_for

    settings = mcts_settings(case) if algorithm_specs.get(algorithm).iterations else None
    reference = solve(case, algorithm, pruning=rule)
    budget = max(BUDGET_FLOOR, BUDGET_FACTOR * len(reference.generated))
    runs = []
    for mistake, form in [(m, form) for m in mistakes_for(algorithm, rule)
                          for form in range(m.codings)]:
        entry: dict[str, Any] = {
            "name": mistake.name, "form": form, "title": mistake.title, "does": mistake.does,
            "departs": mistake.departs, "fix": mistake.fix, "status": "ran", "same": False,
            "value": None, "generated_hash": None, "evaluated_hash": None, "state": None,
        }
        game = BudgetedGame(case.build_game(), budget)
        try:
            run = run_algorithm(mistake.functions(rule, form), game, algorithm, mcts=settings)
        except OverBudget:
            entry.update(status="budget", prefix_length=game.limit,
                         prefix_hash=game.prefix_hash())
        except RecursionError:  # a search that never stops: the student's would time out
            entry["status"] = "budget"
        except Exception:  # noqa: BLE001 - the variant raised, as a student's code may
            entry["status"] = "raised"
        else:
            entry["same"] = (run.generated == reference.generated
                             and check_value(reference.value, run.value).ok)
            entry.update(value=json_safe(run.value), generated_hash=trace_hash(run.generated),
                         evaluated_hash=trace_hash(run.evaluated), state=json_safe(run.state))
        runs.append(entry)
    return runs


def reproduces(run: dict[str, Any], got: RunResult) -> bool:
    """Whether a stored variant ``run`` gives exactly ``got``: its value, its ``generated``,
    (when ``got`` carries one and the run stored one) its ``evaluated``, and, when the grader
    observed more of ``got`` (``got.state``: a transposition table's summary), the same state.
    A run stored without a state (a key from before states were kept) does not reproduce a
    ``got`` that has one: unknown is not the same."""
    if run.get("status") == "budget" and run.get("prefix_hash"):
        # stopped at the budget: a run that also went past it, the same way, is consistent
        length = run["prefix_length"]
        return (len(got.generated) > length
                and trace_hash(list(got.generated[:length])) == run["prefix_hash"])
    if run.get("status", "ran") != "ran":
        return False
    if got.state is not None and run.get("state") != got.state:
        return False
    if run["generated_hash"] != trace_hash(got.generated):
        return False
    if got.evaluated is not None and run.get("evaluated_hash") and got.evaluated != [] \
            and run["evaluated_hash"] != trace_hash(got.evaluated):
        return False
    return check_value(run["value"], got.value).ok


def matching_hints(runs: list[dict[str, Any]], got: RunResult) -> list[Hint]:
    """The hints of the ``runs`` that differ from the reference and reproduce ``got`` (one case's
    evidence only: :mod:`grader.feedback.verdict` weighs a whole submission)."""
    hints: dict[str, Hint] = {}  # by name: two codings of one mistake are one hint
    for run in runs:
        if not run.get("same") and reproduces(run, got):
            hints.setdefault(run["name"], hint_of(run))
    return list(hints.values())


def hint_of(run: dict[str, Any]) -> Hint:
    return Hint(run["name"], run["title"], run["does"], run["departs"], run["fix"])


def cached_runs(case: Any, algorithm: str, rule: str, answers: Any) -> list[dict[str, Any]]:
    """The variants' runs from ``answers`` (computed and cached where the reference exists)."""
    return answers.extra(case, f"variants:{algorithm}:{rule}",
                         lambda: variant_runs(case, algorithm, rule))


def diagnose(case: Any, algorithm: str, rule: str, got: RunResult, answers: Any) -> list[Hint]:
    """The hints of the known mistakes that explain ``got``; [] when none does, or when the
    variants' runs are not available (a handout whose key lacks them)."""
    if not diagnosable(case, algorithm):
        return []
    try:
        runs = cached_runs(case, algorithm, rule, answers)
    except GraderError:
        return []
    return matching_hints(runs, got)


def window_moments(case: Any, rule: str, answers: Any) -> list[list[Any]] | None:
    """The reference alpha-beta's window at each step on ``case`` (the ``moments`` of
    :mod:`reference.replay`, for the feedback's note at the first difference and the HTML
    report), cached in ``answers`` like the variants' runs; None for traces longer than
    :data:`MAX_WINDOW_NODES` (the key stays small) or without the key's entry."""

    def compute() -> list[list[Any]] | None:
        from reference.replay import alpha_beta_moments

        game = case.build_game()
        moments = alpha_beta_moments(game, rule == "strict", until=MAX_WINDOW_NODES)
        generated = sum(moment[0] == "generate" for moment in moments)
        return None if generated > MAX_WINDOW_NODES else json_safe(moments)

    try:
        return answers.extra(case, f"window:alpha_beta:{rule}", compute)
    except GraderError:
        return None
    except (ValueError, TypeError):  # not a two-player game: no window
        return None


def diagnosable(case: Any, algorithm: str) -> bool:
    """Whether a test has one trace to explain (MCTS outcome checks compare moves over seeds)."""
    return not (algorithm_specs.get(algorithm).iterations
                and getattr(getattr(case, MCTS_FIELD, None), "check", "trace") != "trace")


__all__ = ["BudgetedGame", "Hint", "OverBudget", "cached_runs", "diagnosable", "diagnose",
           "hint_of", "matching_hints", "reproduces", "trace_hash", "variant_runs",
           "window_moments"]
