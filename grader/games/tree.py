"""Explicit game trees and state graphs, as written in a case file.

:class:`TreeGame` serves all three explicit forms of a case (full tree, shorthand lists and
``start`` + ``states`` graphs): :mod:`grader.cases` turns each into a list of :class:`Node`.
A state is a :class:`TreeState` handle: it prints as its node id and carries nothing else, so the
tree's structure is reachable only through ``actions`` and ``result``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from grader.errors import IllegalActionError
from grader.games.base import Game

Value = Any  # float for two players, tuple of floats for n players


@dataclass
class Node:
    """One node of an explicit game. ``children`` are ``(action, child_id)`` in search order."""

    id: str
    player: int | str  # MAX / MIN / a player index / CHANCE (at a leaf: whoever would move)
    children: list[tuple[str, str]] = field(default_factory=list)
    probabilities: list[float] | None = None  # one per child, at chance nodes
    value: Value = None  # leaves
    eval: Value = None  # internal nodes a depth limit can cut
    quiet: bool = True  # quiescence: False where the case marks the node "quiet": false
    noisy: tuple[str, ...] = ()  # quiescence: the actions to children marked "noisy": true


class TreeState:
    """An opaque handle on one node. ``str(state)`` is the node id."""

    __slots__ = ("_index", "_id")

    def __init__(self, index: int, node_id: str) -> None:
        self._index = index
        self._id = node_id

    def __repr__(self) -> str:
        return f"<state {self._id}>"

    __str__ = lambda self: self._id  # noqa: E731  (readable in student prints)


class TreeGame(Game):
    """A game given node by node. Shared states (a graph) are allowed; cycles are not."""

    def __init__(
        self,
        nodes: Sequence[Node],
        root: str,
        *,
        players: int = 2,
        depth_limit: int | None = None,
        value_bounds: tuple[float, float] | None = None,
        max_sum: float | None = None,
    ) -> None:
        self.players = players
        self.depth_limit = depth_limit
        self.value_bounds = value_bounds
        self.max_sum = max_sum
        index = {node.id: i for i, node in enumerate(nodes)}
        self._nodes = list(nodes)
        self._states = [TreeState(i, node.id) for i, node in enumerate(nodes)]
        self._actions = [tuple(action for action, _ in node.children) for node in nodes]
        self._children = [
            {action: self._states[index[child]] for action, child in node.children} for node in nodes
        ]
        self._outcomes = [
            list(zip(self._actions[i], node.probabilities)) if node.probabilities else None
            for i, node in enumerate(nodes)
        ]
        self._root = self._states[index[root]]
        self._depth = self._shortest_depths(index)

    def _shortest_depths(self, index: dict[str, int]) -> list[int]:
        depth = [-1] * len(self._nodes)
        depth[self._root._index] = 0
        frontier = [self._root._index]
        while frontier:
            following = []
            for i in frontier:
                for _, child_id in self._nodes[i].children:
                    j = index[child_id]
                    if depth[j] < 0:
                        depth[j] = depth[i] + 1
                        following.append(j)
            frontier = following
        return depth

    def _node(self, state: TreeState) -> Node:
        if not isinstance(state, TreeState) or self._states[state._index] is not state:
            raise IllegalActionError(f"{state!r} is not a state of this game")
        return self._nodes[state._index]

    # --- the interface ------------------------------------------------------------------
    def initial_state(self) -> TreeState:
        return self._root

    def to_move(self, state: TreeState) -> int | str:
        return self._node(state).player

    def actions(self, state: TreeState) -> tuple[str, ...]:
        self._node(state)
        return self._actions[state._index]

    def result(self, state: TreeState, action: str) -> TreeState:
        # Overrides Game.result for speed: one dict lookup on the hot path.
        try:
            return self._children[state._index][action]
        except (KeyError, AttributeError, IndexError, TypeError):
            self._node(state)
            raise IllegalActionError(
                f"result() got action {action!r} at {self.describe(state)}; "
                f"the legal actions are {list(self._actions[state._index])!r}"
            ) from None

    def is_terminal(self, state: TreeState) -> bool:
        return not self._node(state).children

    def _utility(self, state: TreeState) -> Value:
        return self._nodes[state._index].value

    def _heuristic(self, state: TreeState) -> Value:
        node = self._nodes[state._index]
        if node.eval is None:
            return super()._heuristic(state)
        return node.eval

    def is_quiet(self, state: TreeState) -> bool:
        return self._node(state).quiet

    def noisy_actions(self, state: TreeState) -> tuple[str, ...]:
        return self._node(state).noisy

    def _chance_outcomes(self, state: TreeState) -> list[tuple[str, float]]:
        return list(self._outcomes[state._index])

    def state_id(self, state: TreeState) -> str:
        return self._node(state).id

    def state_ids(self, states: list[TreeState]) -> list[str]:
        """Ids of many states at once (the tracing game's fast path; states come from result())."""
        return [state._id for state in states]

    def depth_of(self, state: TreeState) -> int:
        self._node(state)
        return self._depth[state._index]

    def describe(self, state: TreeState) -> str:
        return f"node {self.state_id(state)!r}"

    # --- for the grader (not part of the student interface) -----------------------------
    def node(self, state: TreeState) -> Node:
        return self._node(state)


__all__ = ["Node", "TreeGame", "TreeState"]
