"""Where the tree picture puts each node: which occurrences are drawn, and their positions.

The scene (:func:`grader.feedback.scene.build_scene`) lists node occurrences depth-first; here they
become a tree of :class:`Place` (a node, or a "… N more" placeholder for hidden siblings),
cut around the first difference when the tree has more than :data:`WHOLE_TREE` nodes, with
leaves evenly spaced and each parent centred over its children. Drawing is in
:mod:`grader.report.html.picture`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

WHOLE_TREE = 120  # nodes: a larger tree is drawn around the first difference (~450 bytes a node)
AROUND = (6, 10)  # a cut tree keeps the nodes generated this many steps before / after it
MARGIN = 50  # px: around the picture


@dataclass
class Place:
    """A node (an occurrence in the scene) or a "… N more" placeholder, with its position."""

    index: int | None
    depth: int
    children: list[Place] = field(default_factory=list)
    count: int = 0  # placeholder: hidden siblings; node: nodes below it left undrawn
    x: float = 0.0


def occurrences(nodes: list[Any]) -> tuple[list[list[int]], list[int | None], list[int]]:
    """Children, parent and subtree size of each occurrence (the scene lists them depth-first)."""
    kids: list[list[int]] = [[] for _ in nodes]
    parent: list[int | None] = [None] * len(nodes)
    stack: list[int] = []
    for i, node in enumerate(nodes):
        del stack[node.depth:]
        if stack:
            parent[i] = stack[-1]
            kids[stack[-1]].append(i)
        stack.append(i)
    size = [1] * len(nodes)
    for i in range(len(nodes) - 1, 0, -1):
        size[parent[i]] += size[i]
    return kids, parent, size


def shown_occurrences(nodes: list[Any], kids: list[list[int]], parent: list[int | None],
                      focus: list[str]) -> set[int] | None:
    """The occurrences drawn: None (all) for a small tree; else the paths to the focus nodes,
    each path node's neighbouring siblings, and the children of the focus nodes."""
    if len(nodes) <= WHOLE_TREE:
        return None
    first: dict[str, int] = {}
    for i, node in enumerate(nodes):
        first.setdefault(node.id, i)
    keep = {0}
    for node_id in focus:
        i = first.get(node_id)
        while i is not None and i not in keep:
            keep.add(i)
            i = parent[i]
    shown = set(keep)
    for i in keep:
        if parent[i] is not None:
            siblings = kids[parent[i]]
            at = siblings.index(i)
            shown.update(siblings[max(0, at - 1):at + 2])
    return shown


def build_places(i: int, depth: int, kids: list[list[int]], size: list[int],
                 shown: set[int] | None) -> Place:
    place = Place(i, depth)
    chosen = [c for c in kids[i] if shown is None or c in shown]
    if kids[i] and not chosen:
        place.count = size[i] - 1
        return place
    hidden = 0
    for child in kids[i]:
        if child not in chosen:
            hidden += 1
            continue
        if hidden:
            place.children.append(Place(None, depth + 1, count=hidden))
            hidden = 0
        place.children.append(build_places(child, depth + 1, kids, size, shown))
    if hidden:
        place.children.append(Place(None, depth + 1, count=hidden))
    return place


def lay_out(root: Place, slot: float) -> tuple[list[Place], float]:
    """Leaves evenly spaced left to right, each parent centred over its children."""
    placed: list[Place] = []
    leaves = 0

    def visit(place: Place) -> None:
        nonlocal leaves
        placed.append(place)
        for child in place.children:
            visit(child)
        if place.children:
            place.x = (place.children[0].x + place.children[-1].x) / 2
        else:
            place.x = MARGIN + slot * leaves
            leaves += 1

    visit(root)
    return placed, MARGIN * 2 + slot * max(leaves - 1, 0)


def walk_places(place: Place) -> list[Place]:
    found = [place]
    for child in place.children:
        found += walk_places(child)
    return found
