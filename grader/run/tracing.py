"""The tracing game: records what a search expands, in order.

:func:`traced` wraps any :class:`~grader.games.base.Game` and returns the wrapper that searching
code receives plus the :class:`Trace` that only the grader holds. The trace has two ordered
lists:

* ``generated``: the child made by every ``result`` call (the root is not in it; a child made
  twice is in it twice);
* ``evaluated``: every state scored by ``utility`` or ``evaluate``.

The hot path costs one list append per call: the wrapper's methods are closures that append the
state object itself, and ids are computed once, when the grader asks for them, once per distinct
state where states repeat (:func:`state_ids`). ``result`` is the game's own
:meth:`~grader.games.base.Game.recording_result` (looked up on the game's class, so a wrapper
that forwards attributes keeps its own ``result``): a game may fuse its checks with the
recording, one Python call a child (tic-tac-toe); ``utility`` and ``evaluate`` likewise
(:meth:`~grader.games.base.Game.recording_score`: one call a leaf). The wrapped game is not an
attribute of the wrapper, so the public interface offers no way around the recording.

Work budget: ``traced(game, budget=Budget(result=R, evaluated=E))`` lets the search make at most
``R`` ``result`` calls and ``E`` ``utility``/``evaluate`` calls (together). The call that would
pass a limit does not reach the game: it raises :class:`BudgetExceeded` (a ``BaseException``, so
``except Exception`` does not swallow it), and so does every later call. The trace records the
stop (:attr:`Trace.budget_stop`) so that a search catching even ``BaseException`` and returning
is still graded as stopped. A budget is counted in calls, never in time: the same search on the
same case stops at the same call on any machine, at any load.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from grader.games.base import EVALUATE, Game

SAMPLE = 256  # states looked at to decide whether ids are worth memoizing


def state_ids(states: list[Any], state_id: Any) -> list[str]:
    """``[state_id(s) for s in states]``, computing each distinct state's id once.

    Search revisits states: full tic-tac-toe minimax generates 549,945 children of only 5,478
    positions, and a board's id is string work, so a memo makes the ids about six times
    cheaper. A tree visits each node once; there a memo only costs, so it is used only when a
    sample of the states shows repeats. Equal states must have equal ids (true of every game
    here: a state's id is a function of its fields); unhashable states are never memoized.
    """
    sample = states[:SAMPLE]
    try:
        repeats = len(sample) - len(set(sample))
    except TypeError:  # unhashable states
        repeats = 0
    if repeats * 10 < len(sample):
        return [state_id(state) for state in states]
    memo: dict[Any, str] = {}
    lookup = memo.get
    ids = []
    append = ids.append
    for state in states:
        found = lookup(state)
        if found is None:
            found = memo[state] = state_id(state)
        append(found)
    return ids


class BudgetExceeded(BaseException):
    """Raised in the searching code by the call that would pass its work budget."""


@dataclass(frozen=True)
class Budget:
    """The most calls a traced search may make: ``result`` calls, and ``utility``/``evaluate``
    calls (one count for both)."""

    result: int
    evaluated: int

    def to_dict(self) -> dict[str, int]:
        return {"result": self.result, "evaluated": self.evaluated}

    def passed_by(self, calls: dict[str, int]) -> list[str]:
        """The kinds whose count in ``calls`` (``{"result", "evaluated"}``) passed this
        budget, ``result`` first."""
        return [kind for kind in ("result", "evaluated")
                if calls.get(kind, 0) > getattr(self, kind)]


STOP_NAMES = {"result": "`result`", "evaluated": "`utility`/`evaluate`"}


@dataclass
class Trace:
    """The recorded search. Lists hold states; :meth:`generated_ids` turns them into ids."""

    game: Game
    generated: list[Any] = field(default_factory=list)
    evaluated: list[Any] = field(default_factory=list)
    budget: Budget | None = None
    budget_stop: str | None = None  # "result" or "evaluated": the limit the search ran into

    def generated_ids(self) -> list[str]:
        return self.ids_of(self.generated)

    def evaluated_ids(self) -> list[str]:
        return self.ids_of(self.evaluated)

    def ids_of(self, states: list[Any]) -> list[str]:
        """The ids of ``states``, states this trace holds (or a part of one of its lists)."""
        # A game may offer ``state_ids(states)``: the ids of states it made itself (all a trace
        # holds: children from ``result``, states ``utility``/``evaluate`` accepted), in bulk and
        # without re-checking each state (an explicit tree: four times cheaper).
        bulk = getattr(self.game, "state_ids", None)
        if bulk is not None:
            return bulk(states)
        return state_ids(states, self.game.state_id)

    def duplicate_generations(self) -> dict[str, int]:
        """Ids generated more than once, with their counts."""
        counts = Counter(self.generated_ids())
        return {node: count for node, count in counts.items() if count > 1}


class TracedGame:
    """What searching code receives: the game interface, every call recorded. Read-only."""

    __slots__ = (
        "players", "depth_limit", "value_bounds", "max_sum",
        "to_move", "actions", "result", "is_terminal", "utility",
        "is_cutoff", EVALUATE, "chance_outcomes", "with_depth_limit",
        "key", "is_quiet", "noisy_actions", "quiescence_limit",
    )  # fmt: skip

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"the game is read-only: cannot set {name!r}")

    def __repr__(self) -> str:
        return f"<game: {self.players} players, depth limit {self.depth_limit}>"


def traced(game: Game, budget: Budget | None = None) -> tuple[TracedGame, Trace]:
    """Wrap ``game``; return the wrapper for the search and the trace for the grader.

    ``budget``: the most calls the search may make (module docstring); None: no limit.
    """
    trace = Trace(game, budget=budget)
    return _wrap(game, trace), trace


def _wrap(game: Game, trace: Trace) -> TracedGame:
    """The wrapper of ``game`` recording into ``trace``, under the trace's budget (a
    depth-limited copy, ``with_depth_limit``, shares both)."""
    budget = trace.budget
    generated, evaluated = trace.generated, trace.evaluated
    record_generated = generated.append
    inner_result = game.result
    most_results = budget.result if budget is not None else float("inf")
    most_evaluated = budget.evaluated if budget is not None else float("inf")

    def stop(kind: str) -> None:
        if trace.budget_stop is None:
            trace.budget_stop = kind
        raise BudgetExceeded(f"passed the work budget of {STOP_NAMES[kind]} calls")

    def result(state, action):
        if len(generated) >= most_results:
            stop("result")
        child = inner_result(state, action)
        record_generated(child)
        return child

    # A Game's own, maybe fused, recording result. Looked up on the class: a wrapper that
    # forwards attributes (``__getattr__``) and overrides ``result`` must have its ``result``.
    recording_result = getattr(type(game), "recording_result", None)
    if recording_result is not None:
        result = recording_result(game, generated, most_results, lambda: stop("result"))

    # ``utility`` and ``evaluate`` each score a leaf, and both count toward one budget: a Game's
    # own, maybe fused, recording scorers (looked up on the class, as result is), else Game's
    recording_score = getattr(type(game), "recording_score", Game.recording_score)
    utility, evaluate = (recording_score(game, name, evaluated, most_evaluated,
                                         lambda: stop("evaluated"))
                         for name in ("utility", EVALUATE))

    wrapper = object.__new__(TracedGame)
    attributes = {
        "players": game.players,
        "depth_limit": game.depth_limit,
        "value_bounds": game.value_bounds,
        "max_sum": game.max_sum,
        "to_move": game.to_move,
        "actions": game.actions,
        "result": result,
        "is_terminal": game.is_terminal,
        "utility": utility,
        "is_cutoff": game.is_cutoff,
        EVALUATE: evaluate,
        "chance_outcomes": game.chance_outcomes,
        "with_depth_limit": lambda limit: _wrap(game.with_depth_limit(limit), trace),
        "key": game.key,
        "is_quiet": game.is_quiet,
        "noisy_actions": game.noisy_actions,
        "quiescence_limit": game.quiescence_limit,
    }
    for name, value in attributes.items():
        object.__setattr__(wrapper, name, value)
    return wrapper
