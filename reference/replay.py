"""Alpha-beta replayed with its bookkeeping recorded: windows, ``v`` and cuts, step by step.

Staff-only, like the rest of ``reference/``: it is a whole alpha-beta, so it is never shipped to
students. The search is :mod:`reference.alpha_beta`'s step for step (AIMA Fig. 5.7: children in
``actions`` order, each generated right before it is searched; MAX cuts at ``v >= beta``, MIN at
``v <= alpha``, ``v > beta`` / ``v < alpha`` under the strict rule; fail-soft values), on the
untraced game: its ``generated``, ``evaluated`` and value are the reference's (checked on every
case by ``tests/test_replay.py``; :func:`grader.answers.sheet.checked_replay` checks each key).

What :class:`AlphaBetaReplay` records:

* ``visits``: each node as it was entered (its window and depth), the value it returned, and
  whether that value is exact or a fail-soft bound (something was pruned below it);
* ``cuts``: each cutoff that pruned siblings: the node, its mover and depth, ``v``, the window,
  the children pruned, and the depth of the node that set the bound that cut (a deep cutoff
  comes from two or more levels up);
* ``moments``: per step of ``generated``, ``["generate", step, node, is_max, alpha, beta, v,
  [child]]``: the node about to generate its child, with its window and ``v`` so far; and per
  cut, ``["cut", step, node, is_max, alpha, beta, v, pruned]``, ``step`` being the number of
  nodes generated before it. Plain lists, so the answer key can store them.

Readers: ``grader solve --key`` (windows and cut tables), ``grader render`` (bounds and cut
marks), ``grader generate`` / ``grader new`` (deep cutoffs, any cut), and the feedback's window
notes (:func:`grader.feedback.diagnosis.window_moments` keeps the moments in the answer key, which is how
the handout, without ``reference/``, shows them).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from grader.games.base import MAX, MIN
from reference.steps import StepLimitReached

PRUNING_RULES = ("inclusive", "strict")


@dataclass
class Visit:
    """A node as alpha-beta entered it: its window, and what it returned (fail-soft)."""

    id: str
    depth: int
    alpha: float
    beta: float
    returned: Any = None
    exact: bool = True  # nothing was pruned below it, so the value returned is exact

    def bound(self) -> str:
        """``"<="`` when the returned value is an upper bound, ``">="`` a lower, else ``""``."""
        if self.exact:
            return ""
        if self.returned <= self.alpha:
            return "<="
        return ">=" if self.returned >= self.beta else ""


@dataclass
class Cut:
    """One cutoff that pruned something: where, the value and window then, what it pruned."""

    id: str
    player: Any
    depth: int
    value: float
    alpha: float
    beta: float
    pruned: list[str]
    bound_depth: int | None  # the depth of the node that set the bound that caused the cut

    @property
    def deep(self) -> bool:
        """A deep cutoff: at depth >= 2, by a bound from two or more levels up."""
        return (self.depth >= 2 and self.bound_depth is not None
                and self.depth - self.bound_depth >= 2)


class AlphaBetaReplay:
    """The reference's alpha-beta on ``game`` under ``pruning``, everything it did recorded.

    Construct, then read ``value``, ``generated``, ``evaluated``, ``visits``, ``cuts`` and
    ``moments`` (see the module docstring). ``until``: stop once more than ``until + 1`` nodes
    are generated (``complete`` is then False and ``value`` None). Raises ``ValueError`` where
    a node's mover is neither MAX nor MIN, as the reference does.
    """

    def __init__(self, game: Any, pruning: str = "inclusive", *, until: int | None = None) -> None:
        if pruning not in PRUNING_RULES:
            raise ValueError(f"expected pruning to be one of {PRUNING_RULES}, got: {pruning!r}")
        self.game, self.strict, self.until = game, pruning == "strict", until
        self.generated: list[str] = []
        self.evaluated: list[str] = []
        self.visits: list[Visit] = []
        self.cuts: list[Cut] = []
        self.moments: list[list[Any]] = []
        self.complete = True
        try:
            self.value = self._search(game.initial_state(), -math.inf, math.inf, 0, None, None)
        except StepLimitReached:
            self.value, self.complete = None, False

    def _search(self, state: Any, alpha: float, beta: float, depth: int,
                alpha_from: int | None, beta_from: int | None) -> Any:
        """The recursion of :func:`reference.alpha_beta.alpha_beta`, recording; ``*_from``: who
        set each bound."""
        game = self.game
        visit = Visit(game.state_id(state), depth, alpha, beta)
        self.visits.append(visit)
        if game.is_cutoff(state, depth):
            self.evaluated.append(visit.id)
            visit.returned = game.evaluate(state)
            return visit.returned
        player = game.to_move(state)
        if player not in (MAX, MIN):
            raise ValueError(f"alpha_beta needs MAX ({MAX}) or MIN ({MIN}) to move, got player "
                             f"{player!r} at {visit.id}")
        is_max, cuts_before = player == MAX, len(self.cuts)
        actions = list(game.actions(state))
        v = -math.inf if is_max else math.inf
        for index, action in enumerate(actions):
            child = game.result(state, action)
            child_id = game.state_id(child)
            self.moments.append(["generate", len(self.generated), visit.id, is_max, alpha, beta,
                                 v, [child_id]])
            self.generated.append(child_id)
            if self.until is not None and len(self.generated) > self.until + 1:
                raise StepLimitReached
            found = self._search(child, alpha, beta, depth + 1, alpha_from, beta_from)
            if is_max:
                v = max(v, found)
                cut, bound_from = (v > beta) if self.strict else (v >= beta), beta_from
            else:
                v = min(v, found)
                cut, bound_from = (v < alpha) if self.strict else (v <= alpha), alpha_from
            if cut:
                rest = [game.state_id(game.result(state, a)) for a in actions[index + 1:]]
                if rest:
                    self.cuts.append(Cut(visit.id, player, depth, v, alpha, beta, rest,
                                         bound_from))
                    self.moments.append(["cut", len(self.generated), visit.id, is_max, alpha,
                                         beta, v, rest])
                break
            if is_max and v > alpha:
                alpha, alpha_from = v, depth
            elif not is_max and v < beta:
                beta, beta_from = v, depth
        visit.returned, visit.exact = v, len(self.cuts) == cuts_before
        return v


def alpha_beta_moments(game: Any, strict: bool, until: int | None = None) -> list[list[Any]]:
    """The replay's ``moments`` on ``game`` under the strict or inclusive rule; stops once more
    than ``until + 1`` nodes are generated (the window at step ``until`` is then known)."""
    return AlphaBetaReplay(game, "strict" if strict else "inclusive", until=until).moments


__all__ = ["PRUNING_RULES", "AlphaBetaReplay", "Cut", "Visit", "alpha_beta_moments"]
