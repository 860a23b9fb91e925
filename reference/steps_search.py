"""Alpha-beta with a transposition table and quiescence search, replayed with what each step
depended on: the moments of the step explanation (:mod:`grader.feedback.explain`).

Staff-only, like the rest of ``reference/``. Each replay is the reference's search
(:mod:`reference.transposition`, :mod:`reference.quiescence`) step for step: the same
``generated`` order (``tests/test_explain_search.py`` checks it on every case). Moments, in
the format of :mod:`reference.steps` (``step`` is how many nodes were generated before it):

* ``["generate", step, node, mover, seen, [child], facts]``: the node about to generate its
  next child; ``facts``: ``alpha``, ``beta``, ``v`` and, past the depth limit, ``noisy``
  (True: only noisy moves are searched there);
* ``["table", step, node, mover, [], [], facts]``: a look-up or a store of the table;
  ``facts["what"]`` is ``hit`` (the entry answers the node), ``narrow`` (it narrowed the
  window, which stayed open), ``shallow`` (searched fewer plies than needed: ignored) or
  ``store``; with ``entry`` ``[value, bound, searched]``, ``needed``, and the window;
* ``["quiesce", step, node, mover, [], [], facts]``: a quiescence step at or past the cutoff;
  ``facts["what"]`` is ``quiet``, ``horizon`` (at ``depth_limit + quiescence_limit``),
  ``terminal``, ``stand_cut`` (the stand-pat value alone fails high for MAX / low for MIN) or
  ``stand`` (the stand-pat value narrows the window; noisy moves follow), with ``stand`` and
  the window.

A replay stopped at :data:`reference.steps.STEP_LIMIT` ends with ``["stopped", step]``.
"""

from __future__ import annotations

import math
from typing import Any

from grader.games.base import MAX, MIN
from reference.steps import STEP_LIMIT, StepLimitReached, player_name
from reference.transposition import EXACT, LOWER, classify, needed


class _Replay:
    """What both replays share: the generated ids, the moments, the loop over children."""

    def __init__(self, game: Any, until: int = STEP_LIMIT) -> None:
        self.game, self.until = game, until
        self.generated: list[str] = []
        self.moments: list[list[Any]] = []

    def run(self) -> list[list[Any]]:
        """The moments of the whole search, or of its first ``until`` nodes and a
        ``["stopped", until]``."""
        try:
            self.search(self.game.initial_state(), -math.inf, math.inf, 0)
        except StepLimitReached:
            return [*self.moments, ["stopped", self.until]]
        return self.moments

    def search(self, state: Any, alpha: float, beta: float, depth: int) -> float:
        raise NotImplementedError

    def note(self, kind: str, state: Any, facts: dict[str, Any]) -> None:
        self.moments.append([kind, len(self.generated), self.game.state_id(state),
                             player_name(self.game.to_move(state)), [], [], facts])

    def loop(self, state: Any, actions: Any, v: float, alpha: float, beta: float,
             depth: int, search: Any, extra: dict[str, Any]) -> float:
        game = self.game
        node, player = game.state_id(state), game.to_move(state)
        if player not in (MAX, MIN):
            raise ValueError(f"expected MAX or MIN to move at {node}, got {player!r}")
        seen: list[list[Any]] = []
        for action in actions:
            step = len(self.generated)
            child = game.result(state, action)
            self.generated.append(game.state_id(child))
            if len(self.generated) > self.until:
                raise StepLimitReached
            self.moments.append(["generate", step, node, player_name(player), list(seen),
                                 [self.generated[-1]],
                                 {"alpha": alpha, "beta": beta, "v": v, **extra}])
            value = search(child, alpha, beta, depth + 1)
            seen.append([self.generated[step], value, None])
            if player == MAX:
                v = max(v, value)
                if v >= beta:
                    return v
                alpha = max(alpha, v)
            else:
                v = min(v, value)
                if v <= alpha:
                    return v
                beta = min(beta, v)
        return v


class TableSteps(_Replay):
    """:func:`reference.transposition.alpha_beta_tt`, recorded."""

    def __init__(self, game: Any, until: int = STEP_LIMIT) -> None:
        super().__init__(game, until)
        self.table: dict[Any, tuple] = {}

    def search(self, state: Any, alpha: float, beta: float, depth: int) -> float:
        game = self.game
        key, need = game.key(state), needed(game, depth)
        entry = self.table.get(key)
        if entry is not None:
            value, bound, searched = entry
            facts = {"entry": list(entry), "needed": need, "alpha": alpha, "beta": beta}
            if searched < need:
                self.note("table", state, {"what": "shallow", **facts})
            elif bound == EXACT:
                self.note("table", state, {"what": "hit", **facts})
                return value
            else:
                if bound == LOWER:
                    alpha = max(alpha, value)
                else:
                    beta = min(beta, value)
                closed = alpha >= beta
                self.note("table", state, {"what": "hit" if closed else "narrow", **facts,
                                           "now": [alpha, beta]})
                if closed:
                    return value
        if game.is_cutoff(state, depth):
            return game.evaluate(state)
        start = -math.inf if game.to_move(state) == MAX else math.inf
        v = self.loop(state, game.actions(state), start, alpha, beta, depth, self.search, {})
        self.table[key] = (v, classify(v, alpha, beta), need)
        self.note("table", state, {"what": "store", "entry": list(self.table[key]),
                                   "needed": need, "alpha": alpha, "beta": beta})
        return v


class QuiescenceSteps(_Replay):
    """:func:`reference.quiescence.quiescence`, recorded."""

    def search(self, state: Any, alpha: float, beta: float, depth: int) -> float:
        game = self.game
        if game.is_cutoff(state, depth):
            return self.quiesce(state, alpha, beta, depth)
        start = -math.inf if game.to_move(state) == MAX else math.inf
        return self.loop(state, game.actions(state), start, alpha, beta, depth, self.search,
                         {})

    def quiesce(self, state: Any, alpha: float, beta: float, depth: int) -> float:
        game = self.game
        stand = game.evaluate(state)
        facts = {"stand": stand, "alpha": alpha, "beta": beta, "depth": depth,
                 "horizon": game.depth_limit + game.quiescence_limit}
        for what, test in (("terminal", game.is_terminal), ("quiet", game.is_quiet)):
            if test(state):
                self.note("quiesce", state, {"what": what, **facts})
                return stand
        if depth >= game.depth_limit + game.quiescence_limit:
            self.note("quiesce", state, {"what": "horizon", **facts})
            return stand
        player = game.to_move(state)
        if (stand >= beta) if player == MAX else (stand <= alpha):
            self.note("quiesce", state, {"what": "stand_cut", **facts})
            return stand
        if player == MAX:
            alpha = max(alpha, stand)
        else:
            beta = min(beta, stand)
        noisy = list(game.noisy_actions(state))
        self.note("quiesce", state, {"what": "stand", **facts, "now": [alpha, beta],
                                     "noisy": [game.state_id(game.result(state, a))
                                               for a in noisy]})
        return self.loop(state, noisy, stand, alpha, beta, depth, self.quiesce,
                         {"noisy": True})


def search_moments(game: Any, algorithm: str, until: int | None = None) -> list[list[Any]]:
    """The moments of ``alpha_beta_tt`` or ``quiescence`` on ``game``; a replay stopped at
    ``until`` ends with ``["stopped", step]``."""
    replay = TableSteps if algorithm == "alpha_beta_tt" else QuiescenceSteps
    return replay(game, STEP_LIMIT if until is None else until).run()


def table_steps(game: Any, settings: Any = None) -> list[list[Any]]:
    """The step replay hook of alpha_beta_tt's spec (:mod:`grader.algorithms.alpha_beta_tt`)."""
    return TableSteps(game, STEP_LIMIT).run()


def quiescence_steps(game: Any, settings: Any = None) -> list[list[Any]]:
    """The step replay hook of quiescence's spec (:mod:`grader.algorithms.quiescence`)."""
    return QuiescenceSteps(game, STEP_LIMIT).run()


__all__ = ["QuiescenceSteps", "TableSteps", "quiescence_steps", "search_moments", "table_steps"]
