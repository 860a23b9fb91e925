"""Random explicit game trees for the benchmarks: as ``Node`` lists and as full-tree case JSON.

Shape: breadth-first, each internal node gets 2..5 children (the last one fewer, to hit the
exact size), players alternate MAX / MIN by depth, leaves get integer values in [-50, 50]. A
tree of 10^6 nodes is about 11 levels deep, the shape of a real game tree.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from grader.games.tree import Node, TreeGame


def random_shape(size: int, seed: int = 0) -> tuple[list[list[int]], list[int]]:
    """(children by node index, depth by node index) of a random tree with ``size`` nodes."""
    rng = random.Random(seed)
    children: list[list[int]] = [[]]
    depth = [0]
    frontier, head = [0], 0
    while len(children) < size:
        parent = frontier[head]
        head += 1
        count = min(rng.randint(2, 5), size - len(children))
        for _ in range(count):
            children[parent].append(len(children))
            children.append([])
            depth.append(depth[parent] + 1)
            frontier.append(len(children) - 1)
    return children, depth


def random_tree_game(size: int, seed: int = 0) -> TreeGame:
    """A :class:`TreeGame` of ``size`` nodes, built directly from ``Node`` lists."""
    rng = random.Random(seed + 1)
    children, depth = random_shape(size, seed)
    nodes = [
        Node(f"n{i}", depth[i] % 2, [(f"n{c}", f"n{c}") for c in kids],
             value=None if kids else rng.randint(-50, 50))
        for i, kids in enumerate(children)
    ]
    return TreeGame(nodes, "n0")


def random_case(size: int, seed: int = 0) -> dict[str, Any]:
    """The same kind of tree as a case dict in the full-tree form (built without recursion)."""
    rng = random.Random(seed + 1)
    children, depth = random_shape(size, seed)
    objects: list[dict[str, Any]] = []
    for i, kids in enumerate(children):
        node: dict[str, Any] = {"id": f"n{i}"}
        if kids:
            node["player"] = "max" if depth[i] % 2 == 0 else "min"
            node["children"] = []
        else:
            node["value"] = rng.randint(-50, 50)
        objects.append(node)
    for i, kids in enumerate(children):
        if kids:
            objects[i]["children"] = [objects[c] for c in kids]
    return {
        "$schema": "../../grader/schema/case.schema.json",
        "name": f"random-{size}",
        "description": f"A random tree of {size} nodes (benchmark).",
        "algorithms": ["minimax", "alpha_beta"],
        "tree": objects[0],
    }


def write_random_case(path: Path, size: int, seed: int = 0) -> Path:
    path.write_text(json.dumps(random_case(size, seed)), encoding="utf-8")
    return path
