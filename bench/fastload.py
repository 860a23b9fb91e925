"""A prototype of the fast path proposed for grader/cases.py (not used by the grader).

It loads a full-tree case the way the proposal would, to measure what the proposal buys on a
10^6-node file: the garbage collector paused; one ``json.loads`` (duplicate keys and NaN caught
by its hooks instead of a Python scan recording every value's position); the JSON Schema run on
the document with the tree replaced by one leaf; each node checked by an explicit loop (no
recursion, so any depth); no networkx for a tree (ids unique and one parent each make it a
tree); the ``Node`` list built in the same pass. On any problem the real loader would fall back to today's slow path,
which finds every error with its line and column; the prototype just raises.

    python bench/fastload.py FILE    prints {"seconds", "nodes"}
"""

from __future__ import annotations

import gc
import json
import sys
import time
from pathlib import Path
from typing import Any

NODE_KEYS = frozenset({"id", "player", "children", "value", "eval", "probability", "action"})
PLAYERS = {"max": 0, "min": 1}


class SlowPath(Exception):
    """Something the fast path does not vouch for: the real loader reruns the full checks."""


def _pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
    data = dict(items)
    if len(data) != len(items):
        raise SlowPath("a key given twice")
    return data


def _constant(word: str) -> float:
    raise SlowPath(f"{word} in the file")


def _number(value: Any) -> bool:
    return type(value) in (int, float)


def fast_load(path: Path) -> Any:
    """Load, check and build; the cyclic garbage collector is off meanwhile: loading makes a
    million containers and frees none, so each full collection it would trigger is wasted
    (about half the time at 10^6 nodes). No student code runs here."""
    gc.disable()
    try:
        return _load(path)
    finally:
        gc.enable()


def _load(path: Path) -> Any:
    from grader.cases.schema import _validator
    from grader.games.tree import Node, TreeGame

    data = json.loads(path.read_text(encoding="utf-8"), object_pairs_hook=_pairs,
                      parse_constant=_constant)
    tree = data.get("tree")
    if not isinstance(tree, dict) or data.get("players", 2) != 2 or data.get("depth_limit"):
        raise SlowPath("only two-player full trees without a depth limit in this prototype")
    if any(True for _ in _validator().iter_errors({**data, "tree": {"id": "x", "value": 0}})):
        raise SlowPath("top-level fields")
    nodes: list[Node] = []
    seen: set[str] = set()
    stack: list[tuple[dict, int]] = [(tree, 0)]  # (node, the player to move at a leaf)
    while stack:
        node, leaf_player = stack.pop()
        if not node.keys() <= NODE_KEYS or type(node.get("id")) is not str or node["id"] in seen:
            raise SlowPath("a node's fields or id")
        seen.add(node["id"])
        children = node.get("children")
        if children:
            player = PLAYERS.get(node.get("player"))
            if player is None or "value" in node or type(children) is not list:
                raise SlowPath("an internal node")
            edges = []
            for child in children:
                if type(child) is not dict or "probability" in child:
                    raise SlowPath("a child")
                edges.append((child.get("action", child.get("id")), child.get("id")))
            if len({action for action, _ in edges}) != len(edges):
                raise SlowPath("an action given twice")
            nodes.append(Node(node["id"], player, edges))
            stack.extend((child, 1 - player) for child in reversed(children))
        else:
            if not _number(node.get("value")) or "eval" in node or "player" in node:
                raise SlowPath("a leaf")
            nodes.append(Node(node["id"], leaf_player, [], value=node["value"]))
    return TreeGame(nodes, tree["id"])


if __name__ == "__main__":
    started = time.perf_counter()
    game = fast_load(Path(sys.argv[1]))
    print(json.dumps({"seconds": time.perf_counter() - started, "nodes": len(game._nodes)}))
