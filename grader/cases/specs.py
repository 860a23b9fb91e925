"""Explicit games as written: the full tree, the shorthand lists, ``start`` + ``states``.

Owns reading each form into :class:`NodeSpec`/:class:`EdgeSpec` (ids, players and values as
the file gives them, and where each is in the file: :func:`explicit_nodes`), the shorthand's
ids and turns (:func:`shorthand_id`, :func:`shorthand_turns`), and turning the specs into the
:class:`~grader.games.tree.Node` list of a :class:`~grader.games.tree.TreeGame`
(:func:`to_nodes`). A leaf, which the file gives no player, gets the player who would move
there (the next player after its parent's mover), so ``to_move`` is defined everywhere.
Mistakes met while reading go to the caller's ``errors``; the graph is checked later
(:mod:`grader.cases.structure`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from grader.cases.rules import player_problem, vector_values
from grader.cases.text import JsonPath, case_error, format_path
from grader.games.base import CHANCE, MAX, MIN
from grader.games.tree import Node

PLAYER_NAMES = {"max": MAX, "min": MIN, "chance": CHANCE}


# --- the forms, read into specs --------------------------------------------------------------


@dataclass
class EdgeSpec:
    """One move as written: the action, the child's id and where the move is in the file."""

    action: str
    child: str
    path: JsonPath
    probability: float | None = None
    probability_path: JsonPath | None = None
    noisy: bool = False  # quiescence: a noisy move (full tree: the child's "noisy": true)


@dataclass
class NodeSpec:
    """One node or state as written, before players are filled in for leaves."""

    id: str
    path: JsonPath
    player: Any = None  # as written: "max", "min", "chance", an index, or None
    edges: list[EdgeSpec] = field(default_factory=list)
    value: Any = None
    eval: Any = None
    has_probabilities: bool = False  # a states-form 'probabilities' list was given
    quiet: bool = True  # quiescence: false where the file says "quiet": false

    @property
    def is_leaf(self) -> bool:
        return not self.edges


def _full_tree(root: dict, errors: list, file: str | None) -> list[NodeSpec]:
    nodes: list[NodeSpec] = []
    first_path: dict[str, JsonPath] = {}
    stack: list[tuple[dict, JsonPath]] = [(root, ("tree",))]
    while stack:
        obj, path = stack.pop()
        node = NodeSpec(obj["id"], path, obj.get("player"), value=obj.get("value"),
                        eval=obj.get("eval"), quiet=obj.get("quiet", True))
        if node.id in first_path:
            errors.append(case_error(
                f"id {node.id!r} is used twice (first at {format_path(first_path[node.id])}); "
                "every node needs its own id", path + ("id",), file))
        first_path.setdefault(node.id, path)
        chance = obj.get("player") == "chance"
        for i, child in enumerate(obj.get("children", ())):
            child_path = path + ("children", i)
            edge = EdgeSpec(child.get("action", child["id"]), child["id"], child_path,
                            noisy=child.get("noisy", False))
            if "probability" in child:
                if chance:
                    edge.probability = child["probability"]
                    edge.probability_path = child_path + ("probability",)
                else:
                    errors.append(case_error(
                        f"node {child['id']!r} has a probability but its parent {node.id!r} is "
                        "not a chance node; remove it, or make the parent \"chance\"",
                        child_path + ("probability",), file))
            node.edges.append(edge)
        nodes.append(node)
        stack.extend((child, path + ("children", i))
                     for i, child in reversed(list(enumerate(obj.get("children", ())))))
    return nodes


def shorthand_id(position: tuple[int, ...]) -> str:
    """The id of a shorthand node from its 1-based child positions (the root is ``()``)."""
    if not position:
        return "A"
    number, letters = position[0] + 1, ""  # B is the 2nd letter: bijective base 26
    while number:
        number, rest = divmod(number - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return letters + ".".join(str(p) for p in position[1:])


def shorthand_turns(data: dict) -> list[Any]:
    """Who moves at each depth of a shorthand tree (cycling)."""
    if "turns" in data:
        return list(data["turns"])
    players = data.get("players", 2)
    root = data.get("root_player", "max" if players == 2 else 0)
    first = PLAYER_NAMES.get(root, root)
    if players == 2 and first in (MAX, MIN):
        if isinstance(root, str):
            return [root, "min" if first == MAX else "max"]
        return [first, 1 - first]
    return [(first + i) % players for i in range(players)]


def _shorthand(data: dict, errors: list, file: str | None) -> list[NodeSpec]:
    vectors = vector_values(data)
    if "turns" in data and "root_player" in data:
        errors.append(case_error("give 'root_player' or 'turns', not both: 'turns' already says "
                                 "who moves at the root", ("root_player",), file))
    if data.get("root_player") == "chance":
        errors.append(case_error("a shorthand root_player cannot be \"chance\"; to put chance "
                                 "nodes in a shorthand tree give 'turns', e.g. [\"chance\", "
                                 "\"max\", \"chance\", \"min\"]", ("root_player",), file))
        return []
    players = data.get("players", 2)
    given = [("turns", i) for i in range(len(data.get("turns", ())))] or [("root_player",)]
    for where in given:
        player = data["turns"][where[1]] if len(where) == 2 else data.get("root_player")
        problem = player_problem(player, players)
        if problem:
            errors.append(case_error(problem, where, file))
    turns = shorthand_turns(data)
    nodes: list[NodeSpec] = []

    def is_leaf(item: Any) -> bool:
        if not isinstance(item, list):
            return True
        return vectors and all(not isinstance(x, list) for x in item)

    def visit(item: list, position: tuple[int, ...], path: JsonPath) -> None:
        player = turns[len(position) % len(turns)]
        node = NodeSpec(shorthand_id(position), path, player)
        nodes.append(node)
        chance = player == "chance"
        for i, child in enumerate(item):
            child_position = position + (i + 1,)
            edge = EdgeSpec(shorthand_id(child_position), shorthand_id(child_position), path + (i,))
            if chance:
                edge.probability = 1 / len(item)
            node.edges.append(edge)
            if is_leaf(child):
                nodes.append(NodeSpec(edge.child, path + (i,), None, value=child))
            else:
                visit(child, child_position, path + (i,))

    if is_leaf(data["tree"]):
        errors.append(case_error("the shorthand tree is a single leaf; give the root's children "
                                 "as a list of values or lists", ("tree",), file))
        return []
    visit(data["tree"], (), ("tree",))
    return nodes


def _states(data: dict, errors: list, file: str | None) -> list[NodeSpec]:
    nodes = []
    for state_id, state in data["states"].items():
        path = ("states", state_id)
        node = NodeSpec(state_id, path, state.get("player"), value=state.get("value"),
                        eval=state.get("eval"), has_probabilities="probabilities" in state)
        probabilities = state.get("probabilities")
        successors = state.get("successors", ())
        chance = state.get("player") == "chance"
        if probabilities is not None and not chance:
            errors.append(case_error(
                f"state {state_id!r} has probabilities but is not a chance state; remove them, "
                "or set \"player\": \"chance\"", path + ("probabilities",), file))
            probabilities = None
        elif probabilities is not None and len(probabilities) != len(successors):
            errors.append(case_error(
                f"chance state {state_id!r} has {len(successors)} successors but "
                f"{len(probabilities)} probabilities; give one probability a successor",
                path + ("probabilities",), file))
            probabilities = None
        for i, (action, child) in enumerate(successors):
            edge = EdgeSpec(action, child, path + ("successors", i))
            if probabilities is not None:
                edge.probability = probabilities[i]
                edge.probability_path = path + ("probabilities", i)
            node.edges.append(edge)
        nodes.append(node)
    return nodes


def explicit_nodes(data: dict, errors: list, file: str | None = None) -> tuple[list[NodeSpec], str]:
    """The nodes of an explicit game as written, and the root id; problems go to ``errors``."""
    if "states" in data:
        return _states(data, errors, file), data["start"]
    if isinstance(data["tree"], list):
        return _shorthand(data, errors, file), "A"
    if "root_player" in data or "turns" in data:
        key = "root_player" if "root_player" in data else "turns"
        errors.append(case_error(f"{key!r} belongs to shorthand trees (lists); a full tree gives "
                                 "each node's 'player': remove it", (key,), file))
    if "probability" in data["tree"]:
        errors.append(case_error("the root has a probability, but only the children of a chance "
                                 "node do; remove it", ("tree", "probability"), file))
    return _full_tree(data["tree"], errors, file), data["tree"]["id"]


# --- specs -> Nodes ---------------------------------------------------------------------------


def _player_index(player: Any) -> int | str:
    return PLAYER_NAMES.get(player, player) if isinstance(player, str) else player


def _next_player(mover: int | None, players: int) -> int:
    """Who moves after ``mover`` (None: nobody has moved yet, so MAX)."""
    if mover is None:
        return MAX
    return (mover + 1) % players


def to_nodes(specs: list[NodeSpec], root: str, players: int, vectors: bool) -> list[Node]:
    """NodeSpecs -> Nodes: players as indexes, leaves given their player, values as tuples."""
    by_id = {spec.id: spec for spec in specs}
    # The last player (not chance) to move on the way to each node, for leaves' players.
    last_mover: dict[str, int | None] = {}
    order = [root]
    seen = {root}
    last_mover[root] = None
    for state in order:  # breadth first: a shared leaf takes its first parent's next player
        spec = by_id[state]
        mover = _player_index(spec.player) if spec.player is not None else None
        passed = last_mover[state] if mover in (None, CHANCE) else mover
        for edge in spec.edges:
            if edge.child not in seen:
                seen.add(edge.child)
                last_mover[edge.child] = passed
                order.append(edge.child)

    def convert(value: Any) -> Any:
        if value is None:
            return None
        return tuple(value) if vectors and isinstance(value, list) else value

    nodes = []
    for state in order:
        spec = by_id[state]
        player = _player_index(spec.player) if spec.player is not None else None
        if spec.is_leaf and player in (None, CHANCE):
            player = _next_player(last_mover[state], players)
        elif player is None:  # cannot happen in a checked case
            player = MAX
        probabilities = ([edge.probability for edge in spec.edges]
                         if player == CHANCE else None)
        nodes.append(Node(spec.id, player, [(edge.action, edge.child) for edge in spec.edges],
                          probabilities, convert(spec.value), convert(spec.eval), spec.quiet,
                          tuple(edge.action for edge in spec.edges if edge.noisy)))
    return nodes

