"""The search that plays the ``evaluate`` matches for the player under test (:mod:`reference.play`).

Convention (the student stub ``evaluate`` states what a student needs of it):

* The player under test moves as a depth-limited minimax search of ``depth`` plies from the
  position to move in (the root, at depth 0) would: a terminal position is scored by its
  outcome, a non-terminal one at depth ``depth`` by the evaluation, a number for MAX (``x``),
  and the move is the first action in ``game.actions`` order among those of the best value.
* Values are pairs compared in order, so that an outcome the search sees outranks every
  evaluation whatever its scale: a win for MAX at depth ``d`` is ``(1, -d)`` (sooner is
  better), a loss ``(-1, d)`` (later is better), a draw ``(0, 0.0)`` and an evaluated position
  ``(0, v)``. MAX takes the largest pair, MIN the smallest.
* The search (:func:`search`) is alpha-beta at the root in three rounds, so it evaluates only
  some of the positions at the cutoff. To search a position *in full* is to evaluate every
  non-terminal position of its subtree at depth ``depth`` (itself, if it is at that depth) and
  back the values up. At depth 1 every child is searched in full, in one round. Deeper:

  - Round 1: the *favourite* child ``f``, the one :func:`baseline_evaluation` (the staff's)
    likes best for the player to move (a terminal child by its outcome; the first in actions
    order among equals), is searched in full. Its best reply by those values (the first in
    actions order among the best for ``f``'s mover) is the *killer*.
  - Round 2: for every other non-terminal child ``c``, its *refutation* is searched in full:
    ``c``'s child by the killer when the killer is one of ``c``'s actions, else by ``c``'s
    first action (a reply that refutes the favourite often refutes its siblings, and the
    student's own values chose it). Its value bounds ``c``'s: ``c``'s is at most it when ``c``
    is a MIN position, at least it when MAX.
  - Round 3: every other child is searched in full but those pruned: a child after ``f`` in
    actions order is pruned when its bound is no better than ``f``'s value for the player to
    move, a child before ``f`` only when strictly worse. A pruned child's value is thus no
    better than ``f``'s, and worse when it comes first, so the first action with the best
    value among the children searched in full is minimax's move.

  A round asks for its positions in one go (none: no request): distinct, none asked before in
  this search, in search order (round 2: the refutations' in actions order; round 3: the
  children's in actions order; each depth first, children in actions order).

The search lives here, never in the handout: ``grader/`` holds no search of its own.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field
from typing import Any

from grader.games.base import MAX
from reference.evaluations import baseline_evaluation

Value = tuple[int, float]
Evaluation = Callable[[Any, Any], float]
Search = Generator[list[Any], Sequence[float], "Decision"]


@dataclass
class Decision:
    """One move of a search: the position, the move made, the root values of the children
    searched in full (in actions order; terminal children included), and the bounds of those
    pruned (at most the bound when ``x`` is to move, at least it when ``o`` is)."""

    position: str
    values: dict[Any, Value]
    action: Any
    pruned: dict[Any, Value] = field(default_factory=dict)


def _collect(game: Any, node: Any, level: int, depth: int, found: dict[str, Any]) -> None:
    """Add the non-terminal positions at depth ``depth`` below ``node`` (at depth ``level``)
    to ``found`` (by id, first met first), depth first, children in ``actions`` order."""
    if game.is_terminal(node):
        return
    if level == depth:
        found.setdefault(game.state_id(node), node)
        return
    for action in game.actions(node):
        _collect(game, game.result(node, action), level + 1, depth, found)


def cutoff_positions(game: Any, state: Any, depth: int) -> list[Any]:
    """The distinct non-terminal positions at depth ``depth`` below ``state``, in search order
    (depth first, children in ``actions`` order): what a search in full evaluates."""
    found: dict[str, Any] = {}
    _collect(game, state, 0, depth, found)
    return list(found.values())


def outcome_value(game: Any, state: Any, level: int) -> Value:
    payoff = game.utility(state)
    if payoff > 0:
        return (1, -level)
    if payoff < 0:
        return (-1, level)
    return (0, 0.0)


def backed_up(game: Any, node: Any, level: int, depth: int, values: dict[str, float]) -> Value:
    """The minimax value of ``node`` (at depth ``level``) searched in full, ``values`` the
    evaluations by position id."""
    if game.is_terminal(node):
        return outcome_value(game, node, level)
    if level == depth:
        return (0, values[game.state_id(node)])
    children = [backed_up(game, game.result(node, a), level + 1, depth, values)
                for a in game.actions(node)]
    return max(children) if game.to_move(node) == MAX else min(children)


def search_values(game: Any, state: Any, depth: int, values: dict[str, float]
                  ) -> dict[Any, Value]:
    """``{action: minimax value}`` at the root, every child searched in full."""
    return {action: backed_up(game, game.result(state, action), 1, depth, values)
            for action in game.actions(state)}


def best_action(game: Any, state: Any, by_action: dict[Any, Value]) -> Any:
    """The first action of ``by_action`` (in actions order) whose value is the best for the
    player to move."""
    pick = max if game.to_move(state) == MAX else min
    best = pick(by_action.values())
    return next(action for action, value in by_action.items() if value == best)


def _liked_best(game: Any, node: Any, level: int) -> Any:
    """The action of ``node`` (at depth ``level``) to the child the baseline likes best for
    ``node``'s mover, a terminal child by its outcome; the first in actions order of those."""

    def liking(action: Any) -> Value:
        child = game.result(node, action)
        if game.is_terminal(child):
            return outcome_value(game, child, level + 1)
        return (0, baseline_evaluation(game, child))

    return (max if game.to_move(node) == MAX else min)(game.actions(node), key=liking)


def _best_reply(game: Any, node: Any, depth: int, values: dict[str, float]) -> Any:
    """The reply to ``node`` (at depth 1, searched in full: ``values`` holds its evaluations)
    best for its mover, the first in actions order among equals; None when it is terminal."""
    if game.is_terminal(node):
        return None
    replies = {action: backed_up(game, game.result(node, action), 2, depth, values)
               for action in game.actions(node)}
    return best_action(game, node, replies)


def _refutation(game: Any, node: Any, killer: Any) -> Any:
    """The reply to try first against ``node``: ``killer`` where it is legal, else the first."""
    actions = list(game.actions(node))
    return killer if killer in actions else actions[0]


def search(game: Any, state: Any, depth: int) -> Search:
    """One move's search (module docstring): yields each round's positions, is sent their
    evaluations (numbers, in the same order), returns the :class:`Decision`."""
    children = {action: game.result(state, action) for action in game.actions(state)}
    values: dict[str, float] = {}

    def in_full(roots: list[tuple[Any, int]]) -> Generator[list[Any], Sequence[float], None]:
        """Search each ``(node, depth of node)`` in full: ask (one yield) for the positions
        that needs and no earlier round asked for."""
        found: dict[str, Any] = {}
        for node, level in roots:
            _collect(game, node, level, depth, found)
        asked = [(key, node) for key, node in found.items() if key not in values]
        if asked:
            got = yield [node for _, node in asked]
            values.update(zip((key for key, _ in asked), map(float, got), strict=True))

    pruned: dict[Any, Value] = {}
    if depth < 2:
        yield from in_full([(child, 1) for child in children.values()])
    else:
        favourite = _liked_best(game, state, 0)
        yield from in_full([(children[favourite], 1)])
        killer = _best_reply(game, children[favourite], depth, values)
        refutations = {action: game.result(child, _refutation(game, child, killer))
                       for action, child in children.items()
                       if action != favourite and not game.is_terminal(child)}
        yield from in_full([(grandchild, 2) for grandchild in refutations.values()])
        kept = backed_up(game, children[favourite], 1, depth, values)
        for_max = game.to_move(state) == MAX
        after = False  # past the favourite in actions order, where a tie with it loses to it
        for action in children:
            after |= action == favourite
            if action in refutations:
                bound = backed_up(game, refutations[action], 2, depth, values)
                if (bound < kept if for_max else bound > kept) or (after and bound == kept):
                    pruned[action] = bound
        yield from in_full([(child, 1) for action, child in children.items()
                            if action != favourite and action not in pruned])
    exact = {action: backed_up(game, child, 1, depth, values)
             for action, child in children.items() if action not in pruned}
    return Decision(game.state_id(state), exact, best_action(game, state, exact), pruned)


def search_move(game: Any, state: Any, depth: int, evaluation: Evaluation) -> Any:
    """The search's move with an evaluation computed here (the baseline opponent, the referee)."""
    rounds = search(game, state, depth)
    try:
        positions = next(rounds)
        while True:
            positions = rounds.send([float(evaluation(game, p)) for p in positions])
    except StopIteration as stop:
        return stop.value.action
