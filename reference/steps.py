"""Minimax, expectimax (Star1), max^n and MCTS replayed with what each step depended on.

Staff-only, like the rest of ``reference/``. Each replay is the reference's search step for
step (the same ``generated`` order; ``tests/test_explain.py`` checks it on every case), and
records, per step of ``generated``, the state of the node about to generate its next child
(its ``"generate"`` moment), and per stop before the last child the reason and the children
left (its ``"cut"`` moment). :mod:`grader.feedback.explain` turns the moment at the first
difference into the sentence a failing test shows; the answer key stores the moments (plain
JSON data) so the handout, without ``reference/``, shows the same.

A moment is ``[kind, step, node, mover, seen, children, facts]``: ``step`` is how many nodes
were generated before it; ``mover`` is ``"MAX"``, ``"MIN"``, ``"CHANCE"`` or a player index;
``seen`` lists ``[child, value, p]`` of the children already searched (``p``: a chance
child's probability, else None); ``children`` is ``[the child]`` (generate) or the children
cut; ``facts`` holds what the rule tested: Star1's ``S``, ``R``, ``L``, ``U``, ``alpha``,
``beta``; alpha-beta's ``alpha``, ``beta``, ``v`` (Star1's MAX/MIN nodes); max^n's ``best``,
``limit`` (``max_sum - parent's best``, or None), ``parent_mover``, ``parent_best``.

A replay stopped at :data:`STEP_LIMIT` ends with ``["stopped", step]``. MCTS records one
``["iteration", step, index, path, expanded, utility, rewards]`` per
iteration: ``path`` the selection, a ``[node, N, [[child, n, w, ucb1], ...], chosen]`` per
level; ``expanded`` ``[node, action, child]`` or None (a terminal node was selected);
``rewards`` ``[[node, player, reward], ...]`` along the path, leaf first.
"""

from __future__ import annotations

import math
from typing import Any

from grader.games.base import CHANCE, MAX, MIN

STEP_LIMIT = 3000  # nodes generated before a replay stops (the key stays small)


class StepLimitReached(Exception):
    """A replay generated more than its ``until`` nodes: it stops there."""


def player_name(player: Any) -> Any:
    """A moment's ``mover``: ``"MAX"``, ``"MIN"``, ``"CHANCE"`` or the player index itself."""
    return {MAX: "MAX", MIN: "MIN", CHANCE: "CHANCE"}.get(player, player)


class TreeSteps:
    """Minimax / expectimax (Star1 when ``game.value_bounds``) / max^n, recorded."""

    def __init__(self, game: Any, algorithm: str, until: int = STEP_LIMIT) -> None:
        self.game, self.algorithm, self.until = game, algorithm, until
        self.generated: list[str] = []
        self.moments: list[list[Any]] = []
        self.complete = True
        bounds = game.value_bounds if algorithm == "expectimax" else None
        self.bounds = tuple(bounds) if bounds is not None else None
        try:
            self.value = self._search(game.initial_state(), 0, -math.inf, math.inf, None)
        except StepLimitReached:
            self.value, self.complete = None, False

    def _child(self, state: Any, action: Any) -> tuple[Any, str]:
        """The child made and its id recorded as generated (stops past ``until``)."""
        made = self.game.result(state, action)
        self.generated.append(self.game.state_id(made))
        if len(self.generated) > self.until:
            raise StepLimitReached
        return made, self.generated[-1]

    def _search(self, state: Any, depth: int, alpha: float, beta: float, parent: Any) -> Any:
        game = self.game
        if game.is_cutoff(state, depth):
            value = game.evaluate(state)
            return tuple(value) if self.algorithm == "maxn" else value
        player = game.to_move(state)
        node = game.state_id(state)
        if self.algorithm == "maxn":
            return self._maxn(state, node, player, depth, parent)
        if player == CHANCE:
            return self._chance(state, node, depth, alpha, beta)
        return self._minmax(state, node, player, depth, alpha, beta)

    def _minmax(self, state, node, player, depth, alpha, beta):
        actions = list(self.game.actions(state))
        is_max = player == MAX
        v = -math.inf if is_max else math.inf
        seen: list[list[Any]] = []
        for index, action in enumerate(actions):
            facts = {"alpha": alpha, "beta": beta, "v": v} if self.bounds else {}
            step = len(self.generated)
            child, child_id = self._child(state, action)
            self.moments.append(["generate", step, node, player_name(player), list(seen),
                                 [child_id], facts])
            value = self._search(child, depth + 1, alpha, beta, None)
            seen.append([child_id, value, None])
            v = max(v, value) if is_max else min(v, value)
            if self.bounds and ((v >= beta) if is_max else (v <= alpha)):
                rest = [self.game.state_id(self.game.result(state, a)) for a in actions[index + 1:]]
                if rest:
                    self.moments.append(["cut", len(self.generated), node, player_name(player),
                                         list(seen), rest, {"alpha": alpha, "beta": beta, "v": v}])
                return v
            if self.bounds:
                alpha, beta = (max(alpha, v), beta) if is_max else (alpha, min(beta, v))
        return v

    def _chance(self, state, node, depth, alpha, beta):
        outcomes = list(self.game.chance_outcomes(state))
        s, r = 0, 1
        seen: list[list[Any]] = []
        for index, (action, p) in enumerate(outcomes):
            facts = ({"S": s, "R": r, "L": self.bounds[0], "U": self.bounds[1], "alpha": alpha,
                      "beta": beta} if self.bounds else {"S": s})
            step = len(self.generated)
            child, child_id = self._child(state, action)
            self.moments.append(["generate", step, node, "CHANCE", list(seen), [child_id], facts])
            window = (-math.inf, math.inf)
            value = self._search(child, depth + 1, *window, None)
            seen.append([child_id, value, p])
            s += p * value
            if not self.bounds:
                continue
            r -= p
            if index == len(outcomes) - 1:
                break
            low, high = self.bounds
            which = "upper" if s + high * r <= alpha else ("lower" if s + low * r >= beta else None)
            if which is not None:
                rest = [self.game.state_id(self.game.result(state, a)) for a, _ in
                        outcomes[index + 1:]]
                self.moments.append(["cut", len(self.generated), node, "CHANCE", list(seen), rest,
                                     {"S": s, "R": r, "L": low, "U": high, "alpha": alpha,
                                      "beta": beta, "cut": which}])
                return s + high * r if which == "upper" else s + low * r
        return s

    def _maxn(self, state, node, p, depth, parent):
        game = self.game
        limit = None
        if game.max_sum is not None and parent is not None and parent[0] != p:
            limit = game.max_sum - parent[1]
        actions = list(game.actions(state))
        best = None
        seen: list[list[Any]] = []
        facts = {"limit": limit, "parent_mover": parent[0] if parent else None,
                 "parent_best": parent[1] if parent else None, "max_sum": game.max_sum}
        for index, action in enumerate(actions):
            step = len(self.generated)
            child, child_id = self._child(state, action)
            self.moments.append(["generate", step, node, p, list(seen), [child_id],
                                 {**facts, "best": best}])
            bound = None if best is None else (p, best[p])
            value = self._search(child, depth + 1, 0, 0, bound)
            seen.append([child_id, list(value), None])
            if best is None or value[p] > best[p]:
                best = value
            if limit is not None and best[p] >= limit:
                rest = [game.state_id(game.result(state, a)) for a in actions[index + 1:]]
                if rest:
                    self.moments.append(["cut", len(self.generated), node, p, list(seen), rest,
                                         {**facts, "best": list(best)}])
                return best
        return best


def tree_moments(game: Any, algorithm: str, until: int | None = None) -> list[list[Any]]:
    """The moments of ``algorithm`` (minimax, expectimax, maxn) on ``game``; a replay stopped
    at ``until`` ends with ``["stopped", step]`` (nothing is known from that step on)."""
    until = STEP_LIMIT if until is None else until
    steps = TreeSteps(game, algorithm, until)
    return steps.moments + ([] if steps.complete else [["stopped", until]])


def minimax_moments(game: Any, settings: Any = None) -> list[list[Any]]:
    """The step replay hook of minimax's spec (:mod:`grader.algorithms.minimax`)."""
    return tree_moments(game, "minimax")


def expectimax_moments(game: Any, settings: Any = None) -> list[list[Any]]:
    """The step replay hook of expectimax's spec."""
    return tree_moments(game, "expectimax")


def maxn_moments(game: Any, settings: Any = None) -> list[list[Any]]:
    """The step replay hook of max^n's spec."""
    return tree_moments(game, "maxn")


def mcts_steps(game: Any, settings: Any) -> list[list[Any]]:
    """The step replay hook of MCTS's spec: ``settings`` are the case's (iterations, seed, c)."""
    import random

    return mcts_moments(game, settings.iterations, random.Random(settings.seed), settings.c)


def mcts_moments(game: Any, iterations: int, rng: Any, c: float = math.sqrt(2),
                 until: int = STEP_LIMIT) -> list[list[Any]]:
    """One ``"iteration"`` moment per iteration of :mod:`reference.mcts` on ``game`` (stops
    once more than ``until`` nodes were generated)."""
    from reference.mcts import Node, reward_for

    steps = [0]
    real_result = game.result

    class Counting:
        def __getattr__(self, name: str) -> Any:
            return getattr(game, name)

        def result(self, state: Any, action: Any) -> Any:
            steps[0] += 1
            return real_result(state, action)

    counting = Counting()
    root = Node(counting, game.initial_state())
    moments: list[list[Any]] = []
    if root.terminal:
        return moments
    ident = game.state_id
    for index in range(iterations):
        start = steps[0]
        if start > until:
            moments.append(["stopped", start])
            break
        node, path = root, []
        while not node.terminal and not node.untried:
            stats = [[ident(child.state), child.n, child.w, child.ucb1(c)]
                     for child in node.children]
            best = node.children[0]
            for child in node.children[1:]:
                if child.ucb1(c) > best.ucb1(c):
                    best = child
            path.append([ident(node.state), node.n, stats, ident(best.state)])
            node = best
        expanded = None
        if not node.terminal:
            action = node.untried.pop(0)
            child = Node(counting, counting.result(node.state, action), action, node)
            node.children.append(child)
            expanded = [ident(node.state), repr(action), ident(child.state)]
            node = child
        state = node.state
        while not game.is_terminal(state):
            state = counting.result(state, rng.choice(list(game.actions(state))))
        u = game.utility(state)
        rewards = []
        while node is not None:
            node.n += 1
            if node.parent is not None:
                reward = reward_for(u, node.player)
                node.w += reward
                rewards.append([ident(node.state), player_name(node.player), reward])
            node = node.parent
        moments.append(["iteration", start, index, path, expanded,
                        list(u) if isinstance(u, (tuple, list)) else u, rewards])
    return moments


__all__ = [
    "STEP_LIMIT", "StepLimitReached", "TreeSteps", "expectimax_moments", "maxn_moments",
    "mcts_moments", "mcts_steps", "minimax_moments", "player_name", "tree_moments",
]
