"""Run one algorithm on one game under the tracing wrapper.

The same function serves the reference (in the grader's process, :mod:`grader.answers.solve`), the
student (inside the sandbox worker, :mod:`grader.sandbox.client`) and the known-mistake variants of
the feedback: each is a *function table*, a mapping from the stub names (``max_value``,
``min_value``, ``alpha_beta``, ``expectimax``, ``maxn``, ``mcts``, ``iterative_deepening``,
``alpha_beta_tt``, ``quiescence``) to callables. ``iterative_deepening`` gets the case's
``depth_limit`` as ``max_depth`` and its run's ``value`` is the ``(value, action)`` pair it
returned, unchecked (:func:`grader.compare.compare` checks it); ``alpha_beta_tt`` gets a fresh
dict as its transposition table (it stays in the process that ran the search: only the trace,
the value and the table summed up cross from the worker).

A run's ``state`` is what the grader observes of it besides its value and traces
(:func:`observed_state`): the same for the reference's, a variant's and, rebuilt from the
worker's reply, the student's run, so a known mistake is named only when its variant gives all
of it (:func:`grader.feedback.diagnosis.reproduces`). Today that is ``alpha_beta_tt``'s final
table, summed up by bound kind; a search that exposes more adds it there.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import grader.algorithms as algorithm_specs
from grader.cases.algorithms import ALGORITHMS, MctsSettings  # noqa: F401  (re-exported)
from grader.games.base import MIN, Game
from grader.run.tracing import Budget, traced

FunctionTable = Mapping[str, Callable[..., Any]]


@dataclass
class RunResult:
    """What one run returned and expanded. ``value`` is the chosen action for ``mcts``."""

    value: Any
    generated: list[str] = field(default_factory=list)
    evaluated: list[str] = field(default_factory=list)
    action: Any = None  # the root decision, when the runner was asked for it
    table: dict | None = None  # alpha_beta_tt: the table the search filled (this process only)
    state: dict[str, Any] | None = None  # observed besides value and traces (observed_state)

    def to_dict(self) -> dict[str, Any]:
        return {
            "value": self.value,
            "action": self.action,
            "generated": self.generated,
            "evaluated": self.evaluated,
        }


def function_name(algorithm: str, game: Game) -> str:
    """The stub a case's algorithm calls at this game's root (its MIN stub at a MIN root)."""
    return algorithm_specs.get(algorithm).stub_at(game.to_move(game.initial_state()) == MIN)


def root_mover_is_min(game: Game) -> bool | None:
    """Whether MIN moves at the game's root (what :func:`function_name` asks); None when the
    root cannot say (the call itself will then report it)."""
    try:
        return game.to_move(game.initial_state()) == MIN
    except Exception:  # noqa: BLE001 - the student's call meets the same error, and says so
        return None


def stub_at_root(algorithm: str, minimizing: bool | None) -> str:
    """:func:`function_name`'s answer from :func:`root_mover_is_min`'s, never raising: the
    algorithm's own name when the root has no mover, or the algorithm no stub of its own (the
    request then fails in the worker, where the student's failures are reported). The grader
    names the stub of a request with it (``grader.sandbox.client.root_stub``) and keeps that
    in the answer key: it is here, in a file the key's version hashes, so that an edit of the
    rule never leaves a key naming the old stub."""
    if minimizing is None:
        return algorithm
    try:
        return algorithm_specs.get(algorithm).stub_at(minimizing)
    except Exception:  # noqa: BLE001 - an algorithm without a stub of its own
        return algorithm


def run_algorithm(
    functions: FunctionTable,
    game: Game,
    algorithm: str,
    mcts: MctsSettings | None = None,
    budget: Budget | None = None,
    *,
    ids: bool = True,
) -> RunResult:
    """Call the algorithm's function at the root of ``game``, traced, the way its spec's
    ``call`` says; exceptions propagate (:class:`~grader.run.tracing.BudgetExceeded` too, when
    ``budget`` is passed). ``ids``: False leaves the result's lists empty, for a caller that
    reads the trace itself (the worker packs it without an id an entry:
    :func:`grader.sandbox.reply_parts.packed_trace`)."""
    spec = algorithm_specs.get(algorithm)
    traced_game, trace = traced(game, budget)
    root = game.initial_state()
    function = functions[spec.stub_at(game.to_move(root) == MIN)]  # as function_name says
    if spec.call == "iterations":
        settings = mcts or MctsSettings()
        value = function(traced_game, root, settings.iterations, random.Random(settings.seed), settings.c)
    elif spec.call == "max_depth":
        value = function(traced_game, root, game.depth_limit)
    elif spec.call == "table":
        table: dict = {}  # the transposition table: a fresh dict the search fills
        value = function(traced_game, root, table)
        return _result(value, trace, ids, table)
    else:
        value = function(traced_game, root)
    return _result(value, trace, ids)


def _result(value: Any, trace: Any, ids: bool, table: dict | None = None) -> RunResult:
    state = observed_state(None if table is None else table_summary(table))
    if not ids:
        return RunResult(value=value, table=table, state=state)
    return RunResult(value=value, generated=trace.generated_ids(),
                     evaluated=trace.evaluated_ids(), table=table, state=state)


def observed_state(table: dict[str, int] | None) -> dict[str, Any] | None:
    """What the grader observes of a run besides its value and traces, as one JSON-safe dict
    compared whole: ``{"table": summary}`` for a search that filled a transposition table
    (:func:`table_summary`; a student's comes from the worker's reply, ``WorkerReply.table``);
    None for a search that exposes nothing more."""
    return None if table is None else {"table": dict(table)}


TABLE_KINDS = ("entries", "exact", "lower", "upper", "other")
TABLE_SCAN = 1_000_000  # entries of a table looked at, at most (a bigger one: "entries" only)


def table_summary(table: dict) -> dict[str, int]:
    """How many entries ``table`` holds, and how many are ``(value, bound, searched)`` tuples of
    each bound kind (``other``: anything else). Plain type checks only (``type(x) is``), so no
    code of the table's keys or values runs: the worker calls it on the student's table after
    the student's search returned, outside its time guard."""
    summary = dict.fromkeys(TABLE_KINDS, 0)
    summary["entries"] = len(table)
    if len(table) > TABLE_SCAN:
        return summary
    for entry in dict.values(table):
        bound = entry[1] if type(entry) is tuple and len(entry) == 3 else None
        kind = bound if type(bound) is str and bound in ("exact", "lower", "upper") else "other"
        summary[kind] += 1
    return summary
