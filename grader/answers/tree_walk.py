"""The whole game tree as the TA tools show it, and their access to ``reference/``.

:func:`walk` lists every node the full search reaches (no pruning), in search order, with its
exact backed-up value; the answer key (:mod:`grader.answers.sheet`), ``grader render``, the HTML
report's pictures and ``grader generate`` draw and test trees from it. The values are the
reference's (:func:`reference.values.back_up`): where ``reference/`` is missing (the student
handout) a walk without values gives the structure and the leaves' values, and the HTML report
takes the rest from the answer key.

The TA tools import ``reference/`` through :func:`staff`, which raises
:class:`ReferenceMissingError` (an ``ImportError``) with a message saying the handout does not
include it.
"""

from __future__ import annotations

import importlib
import math
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from grader.cases.rules import NOISY_ALGORITHMS
from grader.errors import GraderError
from grader.files import json_safe
from grader.games.base import CHANCE, MAX, MIN

WALK_LIMIT = 2000  # nodes: a key's table and a picture are for trees a person can read


class ReferenceMissingError(ImportError):
    """A TA tool needs ``reference/``, and this installation (the handout) has none."""


class TreeTooLargeError(ValueError):
    """The game has more nodes than a table or a picture can show."""


def staff(module: str | None, needed_for: str) -> ModuleType:
    """``reference.<module>`` (``reference`` itself for None); :class:`ReferenceMissingError`
    naming ``needed_for`` where ``reference/`` is missing."""
    try:
        return importlib.import_module("reference" + (f".{module}" if module else ""))
    except ImportError as error:
        raise ReferenceMissingError(f"{needed_for} needs the reference implementations "
                                    "(reference/), which the handout does not include") from error


@dataclass
class TreeNode:
    """One occurrence of a state in the search tree (a shared state occurs once a parent)."""

    id: str
    player: Any  # MAX / MIN / a player index / CHANCE; at a leaf, whoever would move
    depth: int
    parent: str | None
    action: Any = None  # the move from the parent
    probability: float | None = None  # the chance of this outcome, under a chance node
    terminal: bool = False
    cutoff: bool = False  # terminal, or at the depth limit: the search evaluates it
    value: Any = None  # the exact backed-up value (minimax / expectimax / max^n)
    children: list[str] = field(default_factory=list)
    repeat: bool = False  # a shared state met before: its subtree is listed at its first place
    stand: Any = None  # quiescence: the stand-pat evaluation of a node extended past the cutoff


def walk(game: Any, limit: int = WALK_LIMIT, *, values: bool = True,
         quiescence: bool = False) -> list[TreeNode]:
    """Every node the full search (no pruning) reaches, in search order (children in
    ``actions`` / outcome order), a shared state expanded at its first occurrence only.

    ``values``: every node gets its exact backed-up value, by :func:`reference.values.back_up`
    (:class:`ReferenceMissingError` without ``reference/``); else only the leaves (cutoffs) get
    theirs, ``game.evaluate``. Raises :class:`TreeTooLargeError` past ``limit`` nodes.

    ``quiescence``: a cutoff that is not quiet is extended along its noisy moves (to the
    quiescence limit), as the quiescence search does; such a node is no longer a cutoff, its
    ``stand`` is its evaluation, and its value the stand-pat one (its mover's best of the
    evaluation and the noisy children's values).
    """
    back_up = staff("values", "the tree's backed-up values").back_up if values else None
    nodes: list[TreeNode] = []
    first: dict[str, TreeNode] = {}

    def visit(state: Any, depth: int, parent: str | None, action: Any, p: float | None) -> TreeNode:
        if len(nodes) >= limit:
            raise TreeTooLargeError(f"the game tree has more than {limit} nodes")
        node = TreeNode(game.state_id(state), game.to_move(state), depth, parent, action, p,
                        game.is_terminal(state), game.is_cutoff(state, depth))
        nodes.append(node)
        if node.id in first:
            node.repeat, node.value = True, first[node.id].value
            return node
        first[node.id] = node
        noisy = None
        if node.cutoff:
            if not (quiescence and extends(state, depth)):
                node.value = game.evaluate(state)
                return node
            node.cutoff, node.stand = False, game.evaluate(state)
            noisy = game.noisy_actions(state)
        moves = (game.chance_outcomes(state) if node.player == CHANCE
                 else [(a, None) for a in (game.actions(state) if noisy is None else noisy)])
        children = [visit(game.result(state, a), depth + 1, node.id, a, q) for a, q in moves]
        node.children = [child.id for child in children]
        if back_up is not None:
            stand = [] if node.stand is None else [node.stand]  # the stand-pat option
            node.value = back_up(node.player, stand + [c.value for c in children],
                                 [None] * len(stand) + [q for _, q in moves])
        return node

    def extends(state: Any, depth: int) -> bool:
        return (not game.is_terminal(state) and not game.is_quiet(state)
                and depth < game.depth_limit + game.quiescence_limit)

    visit(game.initial_state(), 0, None, None, None)
    return nodes


def walk_case(case: Any, answers: Any = None) -> list[TreeNode]:
    """:func:`walk` of ``case``'s game with every value it can have: the reference's where it
    is installed; else (the handout) the answer key's, when ``answers`` (an
    :class:`~grader.answers.store.AnswerKey`) has them (:func:`node_values`); else
    the leaves' only."""
    quiescent = any(a in NOISY_ALGORITHMS for a in case.algorithms)
    try:
        return walk(case.build_game(), quiescence=quiescent)
    except ReferenceMissingError:
        nodes = walk(case.build_game(), values=False, quiescence=quiescent)

    stored = node_values(case, answers) if answers is not None else None
    for node in nodes if stored else ():
        node.value = stored.get(node.id, node.value)
    return nodes


def node_values(case: Any, answers: Any) -> dict[str, Any] | None:
    """Every node's exact backed-up value on ``case``'s tree, by id (what the HTML report's
    picture shows), cached in ``answers`` so the handout, whose walk has no values without
    ``reference/``, has them; None for a tree too large to draw, or without the key's entry."""

    def compute() -> dict[str, Any] | None:
        try:
            noisy = any(a in NOISY_ALGORITHMS for a in case.algorithms)
            nodes = walk(case.build_game(), quiescence=noisy)
        except TreeTooLargeError:
            return None
        return {node.id: json_safe(node.value) for node in nodes if not node.repeat}

    try:
        stored = answers.extra(case, "values", compute)
    except GraderError:
        return None
    if stored is None:
        return None
    return {key: tuple(value) if isinstance(value, list) else value  # max^n vectors
            for key, value in stored.items()}


def fmt(value: Any) -> str:
    """A value as a person writes it: ``3``, ``8.8``, ``-inf``, ``(1, 2, 6)``."""
    if isinstance(value, (tuple, list)):
        return "(" + ", ".join(fmt(v) for v in value) + ")"
    if isinstance(value, float):
        if math.isinf(value):
            return "+inf" if value > 0 else "-inf"
        return f"{value:.10g}"
    return str(value)


def player_name(node: TreeNode, vectors: bool) -> str:
    if node.cutoff:
        return "leaf" if node.terminal else "cutoff"
    if node.player == CHANCE:
        return "chance"
    if vectors:
        return f"P{node.player}"
    return {MAX: "MAX", MIN: "MIN"}.get(node.player, str(node.player))


def pruned_tops(nodes: list[TreeNode], generated: list[str]) -> tuple[list[str], int]:
    """The roots of the pruned subtrees (in tree order), and how many nodes were pruned in all."""
    seen = set(generated) | {nodes[0].id}
    pruned = {n.id for n in nodes if n.id not in seen}
    parents = {n.id: n.parent for n in nodes if not n.repeat}
    tops = [i for i in dict.fromkeys(n.id for n in nodes) if i in pruned
            and parents[i] not in pruned]
    return tops, len(pruned)


def positions(generated: list[str]) -> dict[str, list[int]]:
    """Each id's 1-based positions in ``generated`` (a shared state may be generated twice)."""
    orders: dict[str, list[int]] = {}
    for position, node_id in enumerate(generated, 1):
        orders.setdefault(node_id, []).append(position)
    return orders


__all__ = ["WALK_LIMIT", "ReferenceMissingError", "TreeNode", "TreeTooLargeError", "fmt",
           "player_name", "positions", "pruned_tops", "staff", "walk",
           "walk_case"]
