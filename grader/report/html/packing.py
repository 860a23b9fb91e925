"""A failing test's step-through data, packed: each node name and each line stored once.

A step-through shows, per step, a few lines per side ("entered X, a child of Y (MAX)", "window
at Y: ..."); a built-in game's node names are whole positions (a Connect Four board is 48
characters) and both sides repeat most lines. Unpacked, one Connect Four section was 0.6 MB.
Packed (:func:`pack`), the section's JSON holds:

* ``nodes``: every node name of both traces, once;
* ``lines``: every distinct line of both sides, once, as ``[kind, part, ...]`` where a part is
  text or, for a node name of at least :data:`MIN_NAME` characters, its index in ``nodes``;
* ``ref`` / ``got``: ``ids`` (indexes in ``nodes``) and ``rows`` (per step, indexes in ``lines``).

``report.js`` unpacks it the way :func:`unpack` does (the tests read sections through it).
"""

from __future__ import annotations

import re
from typing import Any

MIN_NAME = 6  # shorter node names are left in the text: an index would save nothing
_TOKEN = re.compile(r"[^\s,:;()]+")  # where a node name can stand in a line


def pack(steps: int, first: int | None, sides: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """``sides``: ``{"ref": side, "got": side}``, each ``{"ids", "rows", "lines"}`` as
    :meth:`grader.report.html.steps.Side.data` gives it."""
    nodes: list[str] = []
    node_index: dict[str, int] = {}

    def node(name: str) -> int:
        if name not in node_index:
            node_index[name] = len(nodes)
            nodes.append(name)
        return node_index[name]

    for side in sides.values():
        for name in side["ids"]:
            node(str(name))
    lines: list[list[Any]] = []
    line_index: dict[tuple[str, str], int] = {}
    packed_sides = {}
    for key, side in sides.items():
        rows = []
        for row in side["rows"]:
            packed_row = []
            for kind, text in (side["lines"][i] for i in row):
                if (kind, text) not in line_index:
                    line_index[(kind, text)] = len(lines)
                    lines.append([kind, *_parts(text, node_index)])
                packed_row.append(line_index[(kind, text)])
            rows.append(packed_row)
        packed_sides[key] = {"ids": [node_index[str(name)] for name in side["ids"]], "rows": rows}
    return {"steps": steps, "first": first, "nodes": nodes, "lines": lines, **packed_sides}


def _parts(text: str, node_index: dict[str, int]) -> list[Any]:
    """``text`` split around the long node names in it; joining the parts gives it back."""
    parts: list[Any] = []
    start = 0
    for token in _TOKEN.finditer(text):
        name = token.group(0)
        if len(name) >= MIN_NAME and name in node_index:
            if token.start() > start:
                parts.append(text[start:token.start()])
            parts.append(node_index[name])
            start = token.end()
    if start < len(text) or not parts:
        parts.append(text[start:])
    return parts


def unpack(data: dict[str, Any]) -> dict[str, Any]:
    """The packed data as :func:`pack` got it: per side ``ids``, ``rows`` and that side's own
    ``lines`` (``[kind, text]``, in first-use order)."""
    nodes = data["nodes"]
    texts = [[line[0], "".join(nodes[p] if isinstance(p, int) else p for p in line[1:])]
             for line in data["lines"]]
    out = {"steps": data["steps"], "first": data["first"]}
    for key in ("ref", "got"):
        side = data[key]
        own: dict[int, int] = {}
        for row in side["rows"]:
            for i in row:
                own.setdefault(i, len(own))
        out[key] = {"ids": [nodes[i] for i in side["ids"]],
                    "rows": [[own[i] for i in row] for row in side["rows"]],
                    "lines": [texts[i] for i in own]}
    return out
