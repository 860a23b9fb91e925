"""The fast path for a big, plain full tree: checked and turned into nodes in one pass.

Owns :func:`plain_tree_nodes`. The general checks (:mod:`grader.cases.schema`,
:mod:`grader.cases.structure`) read every node into a :class:`~grader.cases.specs.NodeSpec`
that remembers its JSON path, build a graph and word every mistake: right for a TA's
hand-written case, but seconds a 10^5 nodes. A generated tree of 10^6 nodes is almost always
*plain*: two players, MAX and MIN only, numbers at the leaves, no depth limit. For such a case
this module checks exactly what the general checks would find wrong with it and builds the
:class:`~grader.games.tree.Node` list :func:`~grader.cases.specs.to_nodes` would build (same
order, same players, same values), without JSON paths, networkx or jsonschema on the tree.

It vouches, it never reports: on anything outside the plain shape, or anything that could be a
mistake, it returns None and the caller runs the general checks, which find every error with
its line:column. So the errors a TA sees never depend on this module.
"""

from __future__ import annotations

from typing import Any

from grader.cases.rules import field_errors, vector_values
from grader.cases.schema import plain_tree_case
from grader.games.base import MAX, MIN
from grader.games.tree import Node

_PLAYERS = {"max": MAX, "min": MIN}
_SHORTHAND_KEYS = ("root_player", "turns")


def plain_tree_nodes(data: Any) -> tuple[list[Node], str] | None:
    """``(nodes, root id)`` of a plain full-tree case the general checks would accept, nodes
    breadth first as :func:`~grader.cases.specs.to_nodes` orders them; None when the case is
    not plain or may have a mistake (the caller then runs the general checks).

    Plain: a ``tree`` object, two players, no ``maxn``, no depth limit, every internal node
    ``"max"`` or ``"min"`` with distinct actions, every leaf a number without a player, ids
    unique, values within ``value_bounds`` when given.
    """
    if not plain_tree_case(data):  # the schema holds (top-level fields and every node)
        return None
    if (data.get("players", 2) != 2 or vector_values(data) or data.get("depth_limit") is not None
            or any(key in data for key in _SHORTHAND_KEYS) or "probability" in data["tree"]):
        return None
    if field_errors(data, None):
        return None
    bounds = data.get("value_bounds")
    low, high = (bounds[0], bounds[1]) if bounds and bounds[0] < bounds[1] else (None, None)
    root = data["tree"]
    if "children" not in root:
        return None  # "nothing to search": the general checks word it
    nodes: list[Node] = []
    seen: set[str] = set()
    queue: list[tuple[dict, int]] = [(root, MAX)]  # (node, the player a leaf there gets)
    append, add = nodes.append, seen.add
    for node, leaf_player in queue:  # breadth first: the order to_nodes gives
        node_id = node["id"]
        if node_id in seen:
            return None
        add(node_id)
        children = node.get("children")
        if children is None:
            value = node["value"]
            if type(value) is list or "player" in node or "eval" in node or (
                    low is not None and not low <= value <= high):
                return None
            append(Node(node_id, leaf_player, [], None, value, None))
            continue
        player = _PLAYERS.get(node["player"])
        if player is None or "value" in node or "eval" in node:
            return None
        edges = []
        for child in children:
            if "probability" in child:
                return None
            edges.append((child.get("action", child["id"]), child["id"]))
            queue.append((child, 1 - player))
        if len({action for action, _ in edges}) != len(edges):
            return None
        append(Node(node_id, player, edges, None, None, None))
    return nodes, root["id"]
