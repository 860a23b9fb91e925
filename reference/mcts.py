"""Monte Carlo tree search with UCT: the reference for ``mcts`` cases.

Deterministic given the ``random.Random`` the grader passes in: the only randomness is
``rng.choice`` in the playouts. Convention (the student stub ``mcts`` spells out the same),
one iteration:

1. Selection: start at the root; while the node is not terminal and fully expanded (every
   action has a child), go to the child with the largest UCB1
   ``w/n + c * sqrt(ln(N)/n)`` (``N`` the parent's visits, ``ln`` the natural log, counts as
   they are before this iteration; ties: the first child in creation = ``actions`` order).
2. Expansion: if that node is not terminal, create the child for its *first untried action*
   in ``game.actions`` order (one ``game.result`` call), and move to it.
3. Simulation: from that node's state, while not terminal, play
   ``game.result(s, rng.choice(list(game.actions(s))))``; then ``u = game.utility(s)``. A node
   that is already terminal is not played out: its own ``game.utility`` is the result.
4. Backpropagation: every node on the path, root included, gets ``n += 1``; every node but
   the root gets ``w +=`` the reward of the player who moved *into* it (the player to move at
   its parent): ``u`` for MAX and ``-u`` for MIN when ``u`` is a number (two players), entry
   ``p`` of ``u`` when ``u`` is a vector.

The root is never simulated. The answer is the action of the root child with the most visits
(ties: the first). Chance nodes are not supported (``ValueError``). Invariants: the root's
``n`` equals the number of iterations; a non-terminal non-root node has ``n`` = 1 (the
iteration that created it) + the sum of its children's ``n``; a node that is not fully
expanded has only children with ``n == 1`` (nothing is selected below it before all its
children exist).
"""

from __future__ import annotations

import math
from typing import Any

from grader.games.base import CHANCE, MAX, MIN


class Node:
    """One node of the search tree. ``player`` moved into it (None at the root)."""

    __slots__ = ("action", "children", "n", "parent", "player", "state", "terminal", "untried", "w")

    def __init__(
        self, game: Any, state: Any, action: Any = None, parent: Node | None = None
    ) -> None:
        self.state = state
        self.action = action
        self.parent = parent
        self.player = None if parent is None else game.to_move(parent.state)
        if self.player == CHANCE:
            raise ValueError(f"mcts does not support chance nodes (state {parent.state})")
        self.terminal = game.is_terminal(state)
        self.untried = [] if self.terminal else list(game.actions(state))
        self.children: list[Node] = []
        self.n = 0
        self.w = 0.0

    def ucb1(self, c: float) -> float:
        return self.w / self.n + c * math.sqrt(math.log(self.parent.n) / self.n)

    def __repr__(self) -> str:
        return f"<Node {self.state} via {self.action!r}: w={self.w} n={self.n}>"


def reward_for(u: Any, player: Any) -> float:
    """What utility ``u`` is worth to ``player``, the player who moved into a node (step 4)."""
    if isinstance(u, (tuple, list)):
        return u[player]
    if player == MAX:
        return u
    if player == MIN:
        return -u
    raise ValueError(f"a number utility needs MAX or MIN to move, got player {player!r}")


def iterate(game: Any, root: Node, rng: Any, c: float) -> None:
    """One iteration (steps 1 to 4) from ``root``; ``rng.choice`` draws the playout's moves."""
    node = root
    while not node.terminal and not node.untried:  # 1. selection
        best = node.children[0]
        best_score = best.ucb1(c)
        for child in node.children[1:]:
            score = child.ucb1(c)
            if score > best_score:
                best, best_score = child, score
        node = best
    if not node.terminal:  # 2. expansion
        action = node.untried.pop(0)
        child = Node(game, game.result(node.state, action), action, node)
        node.children.append(child)
        node = child
    state = node.state  # 3. simulation
    while not game.is_terminal(state):
        state = game.result(state, rng.choice(list(game.actions(state))))
    u = game.utility(state)
    while node is not None:  # 4. backpropagation
        node.n += 1
        if node.parent is not None:
            node.w += reward_for(u, node.player)
        node = node.parent


def mcts_tree(game: Any, state: Any, iterations: int, rng: Any, c: float = math.sqrt(2)) -> Node:
    """Run ``iterations`` iterations from ``state`` and return the root :class:`Node`."""
    if not isinstance(iterations, int) or isinstance(iterations, bool) or iterations < 0:
        raise ValueError(f"mcts: expected iterations to be a non-negative int, got: {iterations!r}")
    root = Node(game, state)
    if root.terminal:
        return root
    for _ in range(iterations):
        iterate(game, root, rng, c)
    return root


def best_child(root: Node) -> Node | None:
    """The root child with the most visits; the first on ties; None without children."""
    best = None
    for child in root.children:
        if best is None or child.n > best.n:
            best = child
    return best


def mcts(game: Any, state: Any, iterations: int, rng: Any, c: float = math.sqrt(2)) -> Any:
    """The action MCTS chooses at ``state`` (None at a terminal root or with 0 iterations)."""
    child = best_child(mcts_tree(game, state, iterations, rng, c))
    return None if child is None else child.action


__all__ = ["Node", "best_child", "iterate", "mcts", "mcts_tree", "reward_for"]
