"""A failing test's step-through data, packed: each node name and each line stored once.

A step-through shows, per step, a few lines per side ("entered X, a child of Y (MAX)", "window
at Y: ..."); a built-in game's node names are whole positions (a Connect Four board is 48
characters) and both sides repeat most lines. Unpacked, one Connect Four section was 0.6 MB.
Packed (:func:`pack`), the section's JSON holds:

* ``nodes``: every node name of both traces, once;
* ``templates``: each distinct line with its long node names (at least :data:`MIN_NAME`
  characters) taken out, as ``[kind, text, text, ...]``: the text between the names;
* ``lines``: every distinct line of both sides, once, as ``[template, node, node, ...]``: the
  template's index and the indexes in ``nodes`` of the names that go between its texts;
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
    lines: list[list[int]] = []
    line_index: dict[tuple[str, str], int] = {}
    templates: list[list[str]] = []
    template_index: dict[tuple[str, ...], int] = {}
    packed_sides = {}
    for key, side in sides.items():
        rows = []
        for row in side["rows"]:
            packed_row = []
            for kind, text in (side["lines"][i] for i in row):
                if (kind, text) not in line_index:
                    texts, names = _split(text, node_index)
                    template = (kind, *texts)
                    if template not in template_index:
                        template_index[template] = len(templates)
                        templates.append(list(template))
                    line_index[(kind, text)] = len(lines)
                    lines.append([template_index[template], *names])
                packed_row.append(line_index[(kind, text)])
            rows.append(packed_row)
        packed_sides[key] = {"ids": [node_index[str(name)] for name in side["ids"]], "rows": rows}
    return {"steps": steps, "first": first, "nodes": nodes, "templates": templates,
            "lines": lines, **packed_sides}


def _split(text: str, node_index: dict[str, int]) -> tuple[list[str], list[int]]:
    """``text`` as the texts around its long node names, and those names' indexes: ``texts[0]
    + name[0] + texts[1] + ... + texts[-1]`` gives it back."""
    texts, names, start = [], [], 0
    for token in _TOKEN.finditer(text):
        name = token.group(0)
        if len(name) >= MIN_NAME and name in node_index:
            texts.append(text[start:token.start()])
            names.append(node_index[name])
            start = token.end()
    texts.append(text[start:])
    return texts, names


def unpack(data: dict[str, Any]) -> dict[str, Any]:
    """The packed data as :func:`pack` got it: per side ``ids``, ``rows`` and that side's own
    ``lines`` (``[kind, text]``, in first-use order)."""
    nodes, templates = data["nodes"], data["templates"]
    texts = []
    for template_at, *names in data["lines"]:
        kind, first, *rest = templates[template_at]
        texts.append([kind, first + "".join(nodes[n] + text for n, text in zip(names, rest))])
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
