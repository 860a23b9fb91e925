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
* The search (:func:`search`) is alpha-beta at the root in rounds, so it evaluates only some
  of the positions at the cutoff. To search a position *in full* is to evaluate every
  non-terminal position of its subtree at depth ``depth`` (itself, if it is at that depth) and
  back the values up. At depth 1 every child is searched in full, in one round. Deeper:

  - Round 1: the *favourite* child ``f``, the one :func:`baseline_evaluation` (the staff's)
    likes best for the player to move (a terminal child by its outcome; the first in actions
    order among equals), is searched in full. The *killers* are the action to ``f`` (played
    as a reply in a sibling, it takes the square, or column, ``f`` took), then ``f``'s
    replies ranked by those values (best for ``f``'s mover first, actions order among
    equals). A terminal child's value is its outcome. The *best* child is always the first
    in actions order among those of the best value known exactly (``f`` and the terminal ones
    at first).
  - Every later round, while some child is neither known exactly nor pruned: each such child
    ``c`` that has been *probed* fewer than ``PROBES`` times is probed once more: its first
    reply not yet tried, of the killers then of ``c``'s actions, is searched in full; the
    lowest (``c`` a MIN position) or highest (MAX) of its probes' values is ``c``'s *bound*:
    ``c``'s value is no better than it for the root's mover. The others are searched in
    full; and when none is, the probed child with the best bound (the first in actions order
    among equals) is searched in full instead of probed, as the likeliest to beat the best.
    After the round, a child whose bound is worse than the best child's value is pruned, and
    so is one whose bound equals it and that comes after the best child in actions order. A
    pruned child can thus neither beat the best child nor tie it from before it, so the
    first action of the best value among the children known exactly is minimax's move.

  A round asks for its positions in one go (none: no request; a probe of a terminal reply
  needs none): distinct, none asked before in this search, in search order (the children
  searched in full first, then the probes, each in actions order; each depth first, children
  in actions order). With ``PROBES = 1``, no child promoted and not the action to ``f``
  among the killers this was the search up to issue 45 (three rounds); probing and promoting
  ask 27% fewer positions of the shipped matches (the same moves), and the action to ``f``
  and a fourth probe 9% fewer again (5% over bench/evaluations.py's ten evaluations), for two
  or three rounds more a move, each round one request for all of a case's matches.

The search lives here, never in the handout: ``grader/`` holds no search of its own.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field
from itertools import chain
from typing import Any, NamedTuple

from grader.games.base import MAX
from reference.evaluations import baseline_evaluation
from reference.grid_opponents import baseline_changes

Value = tuple[int, float]
Evaluation = Callable[[Any, Any], float]
Search = Generator[list[Any], Sequence[float], "Decision"]
PROBES = 4  # replies tried, one a round, against a child before it is searched in full


@dataclass
class Decision:
    """One move of a search: the position, the move made, the root values of the children
    searched in full (in actions order; terminal children included), and the bounds of those
    pruned (at most the bound when ``x`` is to move, at least it when ``o`` is)."""

    position: str
    values: dict[Any, Value]
    action: Any
    pruned: dict[Any, Value] = field(default_factory=dict)


class _Inner(NamedTuple):
    """A node of a :func:`_plan` above the cutoff."""

    maximizing: bool  # MAX to move
    children: dict[Any, Plan]  # by action, in actions order


# A node searched in full, as :func:`backed_up` needs it once the evaluations are in: a
# terminal node's outcome, a non-terminal one's id at the cutoff, or a node above the cutoff.
Plan = Value | str | _Inner


def _plan(game: Any, node: Any, level: int, depth: int, found: dict[str, Any]) -> Plan:
    """The :data:`Plan` of ``node`` (at depth ``level``) searched to depth ``depth``; its
    non-terminal positions at depth ``depth`` are added to ``found`` (by id, first met first),
    depth first, children in ``actions`` order. The subtree is walked once: backing it up
    needs no game call."""
    if game.is_terminal(node):
        return outcome_value(game, node, level)
    if level == depth:
        key = game.state_id(node)
        found.setdefault(key, node)
        return key
    plans: dict[Any, Plan] = {}
    if level + 1 == depth:  # the children are the leaves: looked at here, not a call each
        is_terminal, state_id, result = game.is_terminal, game.state_id, game.result
        for action in game.actions(node):
            child = result(node, action)
            if is_terminal(child):
                plans[action] = outcome_value(game, child, depth)
            else:
                key = plans[action] = state_id(child)
                found.setdefault(key, child)
    else:
        for action in game.actions(node):
            plans[action] = _plan(game, game.result(node, action), level + 1, depth, found)
    return _Inner(game.to_move(node) == MAX, plans)


def cutoff_positions(game: Any, state: Any, depth: int) -> list[Any]:
    """The distinct non-terminal positions at depth ``depth`` below ``state``, in search order
    (depth first, children in ``actions`` order): what a search in full evaluates."""
    found: dict[str, Any] = {}
    _plan(game, state, 0, depth, found)
    return list(found.values())


def outcome_value(game: Any, state: Any, level: int) -> Value:
    payoff = game.utility(state)
    if payoff > 0:
        return (1, -level)
    if payoff < 0:
        return (-1, level)
    return (0, 0.0)


def backed_up(plan: Plan, values: dict[str, float]) -> Value:
    """The minimax value of a node searched in full (its :func:`_plan`), ``values`` the
    evaluations by position id."""
    if type(plan) is str:
        return (0, values[plan])
    if type(plan) is _Inner:
        got = [backed_up(child, values) for child in plan.children.values()]
        return max(got) if plan.maximizing else min(got)
    return plan  # a terminal node's outcome


class FullSearch(NamedTuple):
    """A position searched in full (:func:`search_in_full`): what it asks, what backs it up."""

    positions: dict[str, Any]  # the distinct non-terminal positions at the cutoff, by id
    plans: dict[Any, Plan]  # each action's child's plan, in actions order

    def values(self, values: dict[str, float]) -> dict[Any, Value]:
        """``{action: minimax value}``, ``values`` the evaluations by position id."""
        return {action: backed_up(plan, values) for action, plan in self.plans.items()}


def search_in_full(game: Any, state: Any, depth: int) -> FullSearch:
    """``state`` searched in full to depth ``depth`` (at least 1), its subtree walked once: the
    positions to evaluate (as :func:`cutoff_positions` gives them, with their ids) and the
    plans that back their values up (:meth:`FullSearch.values`)."""
    found: dict[str, Any] = {}
    plans = {action: _plan(game, game.result(state, action), 1, depth, found)
             for action in game.actions(state)}
    return FullSearch(found, plans)


def search_values(game: Any, state: Any, depth: int, values: dict[str, float]
                  ) -> dict[Any, Value]:
    """``{action: minimax value}`` at the root, every child searched in full."""
    return search_in_full(game, state, depth).values(values)


def best_action(game: Any, state: Any, by_action: dict[Any, Value]) -> Any:
    """The first action of ``by_action`` (in actions order) whose value is the best for the
    player to move."""
    pick = max if game.to_move(state) == MAX else min
    best = pick(by_action.values())
    return next(action for action, value in by_action.items() if value == best)


def _liked_best(game: Any, node: Any, level: int, children: dict[Any, Any]) -> Any:
    """The action of ``node`` (at depth ``level``; ``children``: its children by action, in
    actions order) to the child the baseline likes best for ``node``'s mover, a terminal child
    by its outcome; the first in actions order of those."""

    # A grid game's children that do not end the game are ranked by how much each move
    # changes the baseline (no evaluation at all): their values all add node's own, so the
    # order is the same. (A child ending in a draw, (0, 0.0), leaves no other: the board full.)
    changes = baseline_changes(game, node)

    def liking(action: Any) -> Value:
        child = children[action]
        if game.is_terminal(child):
            return outcome_value(game, child, level + 1)
        return (0, baseline_evaluation(game, child) if changes is None else changes[action])

    return (max if game.to_move(node) == MAX else min)(children, key=liking)


def _ranked_replies(plan: Plan, values: dict[str, float]) -> list[Any]:
    """The replies to a node at depth 1 (its :func:`_plan`; ``values`` holds its
    evaluations), best first for its mover (actions order among equals); [] when terminal."""
    if type(plan) is not _Inner:
        return []
    replies = {action: backed_up(child, values) for action, child in plan.children.items()}
    ranked = sorted(replies.values(), reverse=plan.maximizing)
    order = {value: rank for rank, value in reversed(list(enumerate(ranked)))}
    return sorted(replies, key=lambda action: order[replies[action]])  # stable: actions order


def _probe_order(legal: Sequence[Any], killers: list[Any], most: int) -> list[Any]:
    """The replies a child's probes try, in order (module docstring): the first ``most`` of
    the killers legal there and then its other actions (``legal``), each once."""
    order: list[Any] = []
    for reply in chain(killers, legal):
        if len(order) >= most:
            break
        if reply in legal and reply not in order:
            order.append(reply)
    return order


def search(game: Any, state: Any, depth: int, probes: int | None = None) -> Search:
    """One move's search (module docstring): yields each round's positions, is sent their
    evaluations (numbers, in the same order), returns the :class:`Decision`."""
    probes = PROBES if probes is None else probes
    children = {action: game.result(state, action) for action in game.actions(state)}
    values: dict[str, float] = {}

    def in_full(roots: list[tuple[Any, int]]
                ) -> Generator[list[Any], Sequence[float], list[Plan]]:
        """Search each ``(node, depth of node)`` in full: ask (one yield) for the positions
        that needs and no earlier round asked for; return each one's plan, to back up."""
        found: dict[str, Any] = {}
        plans = [_plan(game, node, level, depth, found) for node, level in roots]
        asked = [(key, node) for key, node in found.items() if key not in values]
        if asked:
            got = yield [node for _, node in asked]
            values.update(zip((key for key, _ in asked), map(float, got), strict=True))
        return plans

    pruned: dict[Any, Value] = {}
    if depth < 2:
        plans = yield from in_full([(child, 1) for child in children.values()])
        exact = {action: backed_up(plan, values) for action, plan in zip(children, plans)}
        return Decision(game.state_id(state), exact, best_action(game, state, exact), pruned)
    for_max = game.to_move(state) == MAX
    place = {action: i for i, action in enumerate(children)}
    favourite = _liked_best(game, state, 0, children)
    (favoured,) = yield from in_full([(children[favourite], 1)])
    exact = {action: outcome_value(game, child, 1) for action, child in children.items()
             if game.is_terminal(child)}
    exact[favourite] = backed_up(favoured, values)
    if _wins_now(exact, for_max):  # no other child can beat or tie a win in one ply
        return Decision(game.state_id(state), exact, best_action(game, state, exact),
                        {action: _WIN_LATER[for_max] for action in children
                         if action not in exact})
    replies = _ranked_replies(favoured, values)
    killers = [favourite, *(reply for reply in replies if reply != favourite)]
    bounds: dict[Any, Value] = {}
    # child's action -> the replies its probes have still to try, found once (not each round)
    tried: dict[Any, list] = {action: _probe_order(game.actions(child), killers, probes)
                              for action, child in children.items() if action not in exact}
    while True:
        best = best_action(game, state, {a: exact[a] for a in children if a in exact})
        kept = exact[best]
        for action in [a for a in tried if a in bounds]:
            bound = bounds[action]
            if (bound < kept if for_max else bound > kept) or \
                    (bound == kept and place[action] > place[best]):
                pruned[action] = bound
                del tried[action]
        if not tried:
            break
        full, probing = [], {}
        for action, replies in tried.items():
            if replies:
                probing[action] = replies.pop(0)
            else:
                full.append(action)
        if not full and any(a in bounds for a in probing):
            hopeful = [a for a in probing if a in bounds]
            pick = (max if for_max else min)(hopeful, key=lambda a: bounds[a])
            full.append(pick)
            del probing[pick]
        plans = yield from in_full([(children[a], 1) for a in full]
                                   + [(game.result(children[a], r), 2) for a, r in probing.items()])
        for action, plan in zip(full, plans):
            exact[action] = backed_up(plan, values)
            del tried[action]
        for action, plan in zip(probing, plans[len(full):]):
            got = backed_up(plan, values)
            old = bounds.get(action, got)
            bounds[action] = min(old, got) if for_max else max(old, got)
    exact = {action: exact[action] for action in children if action in exact}
    return Decision(game.state_id(state), exact, best_action(game, state, exact), pruned)


def search_move(game: Any, state: Any, depth: int, evaluation: Evaluation) -> Any:
    """The search's move with an evaluation computed here (the baseline opponent, the referee):
    :func:`search`'s move (minimax's, the first in actions order among the best), found by
    plain alpha-beta, as every value is at hand: :func:`search`'s rounds only save requests."""
    for_max = game.to_move(state) == MAX
    chosen, best = None, None
    killers: dict[int, Any] = {}
    for action in game.actions(state):
        child = game.result(state, action)
        if best is None:
            value = _alpha_beta(game, child, 1, depth, evaluation, _LOWEST, _HIGHEST, killers)
        elif for_max:  # a value no better than best's is not exact, and does not matter
            value = _alpha_beta(game, child, 1, depth, evaluation, best, _HIGHEST, killers)
        else:
            value = _alpha_beta(game, child, 1, depth, evaluation, _LOWEST, best, killers)
        if best is None or (value > best if for_max else value < best):
            chosen, best = action, value
    return chosen


_LOWEST, _HIGHEST = (-2, 0.0), (2, 0.0)  # below and above every value
# A win at the root's child (depth 1) is the best value of all for the root's mover; a child
# that does not end the game is worth no more than a win one ply later. By the root's mover
# (True: x, MAX).
_WIN_NOW = {True: (1, -1), False: (-1, 1)}
_WIN_LATER = {True: (1, -2), False: (-1, 2)}


def _wins_now(exact: dict[Any, Value], for_max: bool) -> bool:
    return _WIN_NOW[for_max] in exact.values()


def _alpha_beta(game: Any, node: Any, level: int, depth: int, evaluation: Evaluation,
                alpha: Value, beta: Value, killers: dict[int, Any]) -> Value:
    """``node``'s minimax value (at depth ``level``) when it lies strictly between ``alpha``
    and ``beta``; else a value no better than the bound it passed (fail-soft). The move that
    last cut a search at this depth (``killers``) is tried first: the value is the same in
    any order, and a reply that refuted a sibling often refutes this one."""
    if game.is_terminal(node):
        return outcome_value(game, node, level)
    if level == depth:
        return (0, float(evaluation(game, node)))
    maximizing = game.to_move(node) == MAX
    best: Value | None = None
    actions = list(game.actions(node))
    killer = killers.get(level)
    if killer in actions:
        actions.remove(killer)
        actions.insert(0, killer)
    for action in actions:
        value = _alpha_beta(game, game.result(node, action), level + 1, depth, evaluation,
                            alpha, beta, killers)
        if maximizing:
            best = value if best is None or value > best else best
            alpha = max(alpha, best)
        else:
            best = value if best is None or value < best else best
            beta = min(beta, best)
        if alpha >= beta:
            killers[level] = action
            break
    return best
