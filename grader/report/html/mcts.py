"""MCTS in the step-through: the root's children's visits and mean rewards after each iteration.

:func:`mcts_iterations` rebuilds the iterations from a ``generated`` trace by running the
reference's own UCT (``reference/mcts.py``, staff only) with the playouts' moves read off the
trace; :func:`mcts_side` turns them into a :class:`~grader.report.html.steps.Side`.
"""

from __future__ import annotations

from bisect import bisect_right
from typing import Any

from grader.algorithms.mcts import ALGORITHM as MCTS
from grader.report.html.steps import Side

# the class of a line on the root's statistics: the algorithm's own line, named after it
STATISTICS_LINE = MCTS.name


class _Departs(Exception):
    pass


class _TraceGame:
    """The game, with every ``result`` call held to the next id of a ``generated`` trace, and
    the playouts' random choices read off that trace (see :func:`mcts_iterations`)."""

    def __init__(self, game: Any, generated: list[str]) -> None:
        self.game, self.generated, self.position = game, generated, 0
        self.asked: Any = None  # the state whose actions were asked for last: the playout's

    def __getattr__(self, name: str) -> Any:
        return getattr(self.game, name)

    def actions(self, state: Any) -> Any:
        self.asked = state
        return self.game.actions(state)

    def result(self, state: Any, action: Any) -> Any:
        child = self.game.result(state, action)
        made = self.game.state_id(child)
        at = self.position
        if at >= len(self.generated) or self.generated[at] != made:
            found = self.generated[at] if at < len(self.generated) else "nothing more"
            raise _Departs(f"at step {at + 1} UCT's convention generates {made}; the trace has "
                           f"{found}")
        self.position += 1
        return child

    def choice(self, actions: list[Any]) -> Any:  # the playout's rng.choice
        at = self.position
        wanted = self.generated[at] if at < len(self.generated) else None
        for action in actions:
            if self.game.state_id(self.game.result(self.asked, action)) == wanted:
                return action
        raise _Departs(f"step {at + 1} ({wanted or 'nothing more'}) is no move of the playout "
                       f"from {self.game.state_id(self.asked)}")


def mcts_iterations(game: Any, generated: list[str], iterations: int, c: float
                    ) -> tuple[list[int], list[list[tuple[str, int, float]]], str]:
    """Rebuild MCTS's iterations from a ``generated`` trace, with the reference's own UCT
    (``reference/mcts.py``: staff only, so the handout ships no MCTS) and the playouts' moves
    read off the trace instead of drawn at random.

    Returns, per iteration, the steps consumed by its end and the root's children as
    ``(action, visits, mean reward)``, and a note when the trace departs from the convention
    (then the iterations before that point). Raises ImportError without ``reference/``.
    """
    from reference.mcts import Node, iterate

    traced = _TraceGame(game, generated)
    root = Node(game, game.initial_state())
    ends: list[int] = []
    stats: list[list[tuple[str, int, float]]] = []
    try:
        for _ in range(iterations if not root.terminal else 0):
            iterate(traced, root, traced, c)
            ends.append(traced.position)
            stats.append([(str(k.action), k.n, k.w / k.n) for k in root.children])
    except _Departs as departure:
        return ends, stats, f"in iteration {len(ends) + 1}, {departure}"
    if traced.position != len(generated):
        extra = len(generated) - traced.position
        return ends, stats, f"after {iterations} iterations the trace has {extra} more ids"
    return ends, stats, ""


def root_line(stats: list[tuple[str, int, float]]) -> str:
    """The root's children after an iteration, in one line (the step-through and the table)."""
    return "; ".join(f"{a}: n = {n}, mean = {w:.3g}" for a, n, w in stats) or "no child yet"


def mcts_side(ids: list[str], total: int, ends: list[int], stats: list[Any]) -> Side:
    """MCTS's steps: the node entered, and the root's children after the iterations done."""
    side = Side(list(ids))
    side.add([("entered", "at the root, before the first iteration")])
    for step in range(1, total + 1):
        lines = [("entered", f"entered {ids[step - 1]}" if step <= len(ids)
                  else "(the search had finished: nothing more generated)")]
        done = bisect_right(ends, step)  # iterations over by this step (``ends`` ascends)
        if not stats:
            lines.append((STATISTICS_LINE, "the root's statistics are not available (see below)"))
        elif done:
            root = root_line(stats[done - 1])
            lines.append((STATISTICS_LINE, f"after iteration {done}, the root's children: {root}"))
        else:
            lines.append((STATISTICS_LINE, "iteration 1 in progress"))
        side.add(lines)
    return side
