"""The game interface students program against.

It is the formal game of the lectures (TO-MOVE, ACTIONS, RESULT, IS-TERMINAL, UTILITY) plus
what depth-limited, stochastic and n-player search need:

================================  ===========================================================
``game.players``                  number of players (two: ``MAX`` = 0, ``MIN`` = 1)
``game.to_move(state)``           the player index to move, or ``CHANCE``
``game.actions(state)``           the legal actions, in a fixed order (children left to right)
``game.result(state, action)``    the child state; every call generates (and records) a child
``game.is_terminal(state)``       True at the end of the game
``game.utility(state)``           MAX's payoff (two players) or a tuple, one entry a player
``game.depth_limit``              None (search to the end) or the depth where search stops
``game.is_cutoff(state, depth)``  terminal, or ``depth >= depth_limit`` (root depth is 0)
``game.with_depth_limit(limit)``  the same game cut at ``limit`` (iterative deepening)
``game.evaluate(state)``          utility at a terminal, heuristic value at a cutoff
``game.chance_outcomes(state)``   ``[(action, probability), ...]`` at a chance node
``game.value_bounds``             ``(L, U)`` when a case asks for Star1 pruning, else None
``game.max_sum``                  the bound on the sum of payoffs for max^n shallow pruning
``game.key(state)``               a hashable key, equal for transposed states (the same
                                  position reached by different move orders): a
                                  transposition table's key
``game.is_quiet(state)``          False when the position may swing at once (quiescence)
``game.noisy_actions(state)``     the actions that make it swing, in ``actions`` order
``game.quiescence_limit``         plies past ``depth_limit`` a quiescence search may extend
================================  ===========================================================

States are opaque: code that searches only passes them back to the game. Misuse raises a
:class:`~grader.errors.GameError` that names the state and the mistake.

Depth is the number of edges from the root; every edge counts, chance edges included.
"""

from __future__ import annotations

import copy
from typing import Any, Callable, Hashable, Sequence

from grader.errors import AboveCutoffError, IllegalActionError, NotChanceNodeError, NotTerminalError

MAX = 0
MIN = 1
CHANCE = "chance"
# The heuristic's method name (``Game.evaluate``): the traced game hands it out under this name,
# the sealed game of a graded evaluation refuses it (grader.run).
EVALUATE = "evaluate"

State = Any  # opaque to searching code; hashable for every built-in game
Action = Hashable


class Game:
    """Base class: subclasses implement the ``_`` hooks and ``state_id``/``depth_of``.

    The public methods here check their arguments, so every game reports misuse the same way.
    """

    players: int = 2
    depth_limit: int | None = None
    value_bounds: tuple[float, float] | None = None
    max_sum: float | None = None
    quiescence_limit: int = 2
    # A state's hashable key, equal for states whose ids are equal (a grid game's cells), or
    # None: the worker then packs a trace by key, making the id of each distinct state only
    # (grader.sandbox.reply_parts.packed_trace)
    trace_key: Callable[[State], Hashable] | None = None

    # --- what a subclass provides -------------------------------------------------------
    def initial_state(self) -> State:
        raise NotImplementedError

    def to_move(self, state: State) -> int | str:
        raise NotImplementedError

    def actions(self, state: State) -> Sequence[Action]:
        raise NotImplementedError

    def _result(self, state: State, action: Action) -> State:
        """The child for a legal action (legality already checked)."""
        raise NotImplementedError

    def is_terminal(self, state: State) -> bool:
        raise NotImplementedError

    def _utility(self, state: State) -> float | tuple[float, ...]:
        """The payoff of a terminal state (terminality already checked)."""
        raise NotImplementedError

    def _heuristic(self, state: State) -> float | tuple[float, ...]:
        """The evaluation of a non-terminal state at the cutoff."""
        raise AboveCutoffError(f"{self.describe(state)} has no evaluation function value")

    def _chance_outcomes(self, state: State) -> list[tuple[Action, float]]:
        raise NotChanceNodeError(f"{self.describe(state)} is not a chance node")

    def state_id(self, state: State) -> str:
        """A readable, stable id: what traces record and feedback prints."""
        raise NotImplementedError

    def key(self, state: State) -> Hashable:
        """A transposition table's key: equal for the same position whatever the path to it.
        Every game here names a position by its id (the id leaves out the path and the ply)."""
        return self.state_id(state)

    def _noisy_actions(self, state: State) -> tuple[Action, ...]:
        """The actions that make the position swing (quiescence); none by default."""
        return ()

    def noisy_actions(self, state: State) -> tuple[Action, ...]:
        """The noisy subset of ``actions(state)``, in ``actions`` order (none at a terminal)."""
        if self.is_terminal(state):
            return ()
        return tuple(self._noisy_actions(state))

    def is_quiet(self, state: State) -> bool:
        """True when a search may stop here: no noisy action (a terminal is quiet)."""
        return not self.noisy_actions(state)

    def depth_of(self, state: State) -> int:
        """Edges from the case's root to ``state``."""
        raise NotImplementedError

    # --- the checked public interface ---------------------------------------------------
    def describe(self, state: State) -> str:
        return f"state {self.state_id(state)!r}"

    def result(self, state: State, action: Action) -> State:
        legal = self.actions(state)
        if action not in legal:
            raise IllegalActionError(
                f"result() got action {action!r} at {self.describe(state)}; "
                f"the legal actions are {list(legal)!r}"
            )
        return self._result(state, action)

    def recording_result(
        self, generated: list[Any], most: float, stop: Callable[[], None]
    ) -> Callable[[State, Action], State]:
        """:meth:`result` as the tracing wrapper offers it: each call first calls ``stop()``
        (which raises) when ``generated`` already holds ``most`` children, then appends the
        child to ``generated``. A game may override it to fuse the two for speed."""
        inner, record = self.result, generated.append

        def result(state: State, action: Action) -> State:
            if len(generated) >= most:
                stop()
            child = inner(state, action)
            record(child)
            return child

        return result

    def recording_score(
        self, name: str, evaluated: list[Any], most: float, stop: Callable[[], None]
    ) -> Callable[[State], Any]:
        """``utility`` or ``evaluate`` (``name``) as the tracing wrapper offers it: each call
        first calls ``stop()`` (which raises) when ``evaluated`` already holds ``most`` states,
        then scores the state and appends it to ``evaluated``. A game may override it to fuse
        the two for speed."""
        inner, record = getattr(self, name), evaluated.append

        def score(state: State) -> Any:
            if len(evaluated) >= most:
                stop()
            value = inner(state)
            record(state)
            return value

        return score

    def utility(self, state: State) -> float | tuple[float, ...]:
        if not self.is_terminal(state):
            raise NotTerminalError(
                f"utility() called on {self.describe(state)}, which is not terminal; "
                "use evaluate() at a depth cutoff"
            )
        return self._utility(state)

    def is_cutoff(self, state: State, depth: int) -> bool:
        if self.is_terminal(state):
            return True
        return self.depth_limit is not None and depth >= self.depth_limit

    def evaluate(self, state: State) -> float | tuple[float, ...]:
        if self.is_terminal(state):
            return self._utility(state)
        depth = self.depth_of(state)
        if self.depth_limit is None or depth < self.depth_limit:
            limit = "no depth limit" if self.depth_limit is None else f"depth limit {self.depth_limit}"
            raise AboveCutoffError(
                f"evaluate() called on {self.describe(state)} at depth {depth}, which is "
                f"neither terminal nor at the cutoff ({limit}); search its children instead"
            )
        return self._heuristic(state)

    def with_depth_limit(self, limit: int) -> Game:
        """This game with ``depth_limit = limit``: ``is_cutoff`` and ``evaluate`` follow it.

        ``limit`` is an int from 1 to ``depth_limit`` (any positive int when there is no
        limit): iterative deepening searches shallower than the game allows, never deeper.
        States are shared with this game (a state of one is a state of the other).
        """
        if type(limit) is not int or limit < 1 or (
                self.depth_limit is not None and limit > self.depth_limit):
            most = ("" if self.depth_limit is None
                    else f" and at most depth_limit {self.depth_limit}")
            raise ValueError(f"with_depth_limit: expected an int at least 1{most}, got: {limit!r}")
        limited = copy.copy(self)
        limited.depth_limit = limit
        return limited

    def chance_outcomes(self, state: State) -> list[tuple[Action, float]]:
        if self.to_move(state) != CHANCE:
            raise NotChanceNodeError(
                f"chance_outcomes() called on {self.describe(state)}, where player "
                f"{self.to_move(state)!r} moves, not chance"
            )
        return self._chance_outcomes(state)
