"""The tree picture: inline SVG of the tree with both searches drawn over it.

Shapes (MAX an up-triangle, MIN a down-triangle, chance a circle, a leaf a square), the
reference's solid blue ring and the student's dashed orange one, extra nodes cross-hatched,
missing ones dotted, pruned branches crossed out, and the first difference framed with a
``!``. The positions come from :mod:`grader.report.html.layout`; the legend that explains all this
is in :mod:`grader.report.html.page`.
"""

from __future__ import annotations

import html
import math
import re
from collections import Counter
from typing import Any

from grader.answers.tree_walk import positions
from grader.feedback.drawing import number, player_name
from grader.games.base import CHANCE, MAX, MIN
from grader.report.html.layout import (
    AROUND,
    MARGIN,
    Place,
    build_places,
    lay_out,
    occurrences,
    shown_occurrences,
    walk_places,
)

LEVEL, R = 84, 15  # px: between levels, node "radius"
VALUE_INSIDE = 4  # characters: a longer value is written beside its node
FILL, ZOOM = 900, 1.5  # px: a picture narrower than FILL fills its box, zoomed ZOOM at most
# The nodes each search enters at the current step: the script moves these onto them.
POINTERS = (f'<path d="M-12,{-R - 22} h11 l-5.5,9 z" class="cur ref"/>'
            f'<path d="M1,{-R - 22} h11 l-5.5,9 z" class="cur got"/>')


# Characters XML 1.0 cannot hold (control characters but tab and line breaks, U+FFFE, U+FFFF):
# a submission's output holding one (an ANSI escape) would make the page unreadable as XML.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def esc(text: Any) -> str:
    """``text`` escaped for HTML and XML alike, quotes included (it goes into attributes);
    characters XML cannot hold become U+FFFD."""
    return html.escape(_NOT_XML.sub("\ufffd", str(text)), quote=True)


def _shape(node: Any, vectors: bool, x: float, y: float, css: str, extra: str = "") -> str:
    """MAX an up-triangle, MIN a down-triangle, chance a circle, a leaf a square (a depth-limit
    node a rounded square); in n-player games player 2 a diamond, later players a hexagon."""
    attrs = f'class="{css}"{extra}'
    if node.cutoff:
        rounded = "" if node.terminal else ' rx="5"'
        return (f'<rect x="{x - R:g}" y="{y - R:g}" width="{2 * R}" height="{2 * R}"{rounded} '
                f"{attrs}/>")
    if node.player == CHANCE:
        return f'<circle cx="{x:g}" cy="{y:g}" r="{R}" {attrs}/>'
    w = R * 1.15
    if node.player == MAX:
        points = [(x, y - R), (x + w, y + R * 0.8), (x - w, y + R * 0.8)]
    elif node.player == MIN:
        points = [(x - w, y - R * 0.8), (x + w, y - R * 0.8), (x, y + R)]
    elif node.player == 2:
        points = [(x, y - R), (x + R, y), (x, y + R), (x - R, y)]
    else:
        points = [(x + R * math.cos(a), y + R * math.sin(a))
                  for a in (math.pi / 3 * k for k in range(6))]
    text = " ".join(f"{px:.1f},{py:.1f}" for px, py in points)
    return f'<polygon points="{text}" {attrs}/>'


def _short(node: Any) -> str:
    """The name drawn: the id, or the move when a built-in game's id is long."""
    if len(node.id) > 10 and node.action is not None:
        text = str(node.action)
    else:
        text = node.id
    return text if len(text) <= 12 else text[:11] + "…"


def _steps_text(steps: list[int]) -> str:
    return ", ".join(map(str, steps[:4])) + (f" … ({len(steps)} times)" if len(steps) > 4 else "")


def _cross(x1: float, y1: float, x2: float, y2: float) -> str:
    """Two short strokes across the middle of an edge: the branch is crossed out."""
    mx, my = (x1 + x2) / 2, (y1 + y2) / 2
    length = math.hypot(x2 - x1, y2 - y1) or 1
    ux, uy = (x2 - x1) / length, (y2 - y1) / length  # along the edge
    px = (ux * 0.5 - uy * 0.866) * 7  # across it, slanted 60 degrees: it reads as "//"
    py = (ux * 0.866 + uy * 0.5) * 7
    marks = []
    for shift in (-3, 3):
        cx, cy = mx + ux * shift, my + uy * shift
        marks.append(f'<line x1="{cx - px:.1f}" y1="{cy - py:.1f}" x2="{cx + px:.1f}" '
                     f'y2="{cy + py:.1f}" class="cross"/>')
    return "".join(marks)


def tree_svg(scene: Any, ref_ids: list[str], got_ids: list[str], first: int | None,
             prefix: str) -> str:
    """The tree as inline SVG, both searches drawn over it (see the legend in the page)."""
    nodes = scene.nodes
    kids, parent, size = occurrences(nodes)
    if first is not None:
        low, high = max(0, first - 1 - AROUND[0]), first - 1 + AROUND[1]
        focus = ref_ids[low:high] + got_ids[low:high]
        for ids in (ref_ids, got_ids):
            if first - 1 < len(ids):
                focus += [c for n in nodes if n.id == ids[first - 1] for c in n.children][:6]
    else:
        focus = ref_ids[:20] + got_ids[:20]
    shown = shown_occurrences(nodes, kids, parent, focus)
    root = build_places(0, 0, kids, size, shown)
    leaves = [p for p in walk_places(root) if not p.children and p.index is not None]
    widest = max((len(_leaf_text(nodes[p.index], scene)) for p in leaves), default=1)
    slot = min(130.0, max(58.0, 7.5 * widest + 16))
    placed, width = lay_out(root, slot)
    depth = max(p.depth for p in placed)
    height = MARGIN + LEVEL * depth + MARGIN + 24
    ref_at, got_at = positions(ref_ids), positions(got_ids)
    ref_count, got_count = Counter(ref_ids), Counter(got_ids)
    differ = {}
    if first is not None:
        for ids, whose in ((got_ids, "yours"), (ref_ids, "reference")):
            if first - 1 < len(ids):
                differ.setdefault(ids[first - 1], []).append(whose)
    y_of = {id(p): MARGIN + LEVEL * p.depth for p in placed}
    edges, drawn, flags = [], [], []
    for place in placed:
        x, y = place.x, y_of[id(place)]
        for child in place.children:
            edges.append(_edge(scene, nodes, place, child, x, y, child.x, y_of[id(child)]))
        if place.index is None:
            drawn.append(f'<text x="{x:g}" y="{y + 4:g}" class="more">… {place.count} more'
                         f"<title>{place.count} more children, not drawn</title></text>")
            continue
        node = nodes[place.index]
        drawn.append(_node_svg(scene, node, place, x, y, prefix, ref_at, got_at, ref_count,
                               got_count, place.index == 0))
        if node.id in differ and not node.repeat:
            whose = " and ".join(differ.pop(node.id))
            box = R + 13
            flags.append(f'<g class="first" data-first="{esc(whose)}"><title>first difference, '
                         f'step {first}: {esc(whose)}</title><rect x="{x - box:g}" '
                         f'y="{y - box:g}" width="{2 * box}" height="{2 * box}"/><circle '
                         f'cx="{x - box:g}" cy="{y - box:g}" r="8"/><text x="{x - box:g}" '
                         f'y="{y - box + 4:g}">!</text></g>')
    defs = patterns(prefix)
    cut = "" if shown is None else " (drawn around the first difference)"
    # A small tree fills its box (up to ZOOM times its size); a large one scrolls.
    size = (f'class="tree fit" style="max-width: {width * ZOOM:.0f}px"' if width <= FILL
            else f'class="tree" width="{width:g}" height="{height:g}"')
    return (f'<svg {size} viewBox="0 0 {width:g} {height:g}" role="img" '
            f'aria-label="{esc(scene.title + cut)}">{defs}'
            + "".join(edges) + "".join(drawn) + "".join(flags) + POINTERS + "</svg>")


def patterns(prefix: str) -> str:
    """The fills of extra nodes (orange cross-hatching) and missing ones (blue dots)."""
    tile = 'patternUnits="userSpaceOnUse"'
    return (f'<defs><pattern id="{prefix}-hatch" width="6" height="6" {tile}>'
            '<path d="M0,6 L6,0 M0,0 L6,6" stroke="#d55e00" stroke-width="1.2"/></pattern>'
            f'<pattern id="{prefix}-dots" width="5" height="5" {tile}>'
            '<circle cx="2.5" cy="2.5" r="1.2" fill="#0072b2"/></pattern></defs>')


def _leaf_text(node: Any, scene: Any) -> str:
    """The widest text under a leaf: its name, or a value too long to fit inside."""
    value = scene.labels.get(node.id, "")
    return max(_short(node), value if len(value) > VALUE_INSIDE else "", key=len)


def _edge(scene: Any, nodes: list[Any], place: Place, child: Place, x1: float, y1: float,
          x2: float, y2: float) -> str:
    start, end = (x1, y1 + R), (x2, y2 - R)
    if child.index is None:
        return (f'<line x1="{start[0]:g}" y1="{start[1]:g}" x2="{end[0]:g}" y2="{end[1] + 6:g}" '
                f'class="edge pruned"/>')
    node = nodes[child.index]
    pruned = scene.pruned(node)
    parts = [(f'<line x1="{start[0]:g}" y1="{start[1]:g}" x2="{end[0]:g}" y2="{end[1]:g}" '
              f'class="edge{" pruned" if pruned else ""}" data-to="{esc(node.id)}"/>')]
    if pruned and not scene.pruned(nodes[place.index]):
        parts.append(f'<g class="crossed" data-to="{esc(node.id)}">{_cross(*start, *end)}</g>')
    label = ""
    if node.probability is not None:
        label = number(node.probability)
    elif node.action is not None and str(node.action) != node.id and len(node.id) <= 10:
        label = str(node.action)[:12]
    if label:
        mx, my = (start[0] + end[0]) / 2, (start[1] + end[1]) / 2
        side = 6 if end[0] >= start[0] else -6
        anchor = "start" if side > 0 else "end"
        parts.append(f'<text x="{mx + side:g}" y="{my - 2:g}" class="elabel" '
                     f'text-anchor="{anchor}">{esc(label)}</text>')
    return "".join(parts)


def _node_svg(scene: Any, node: Any, place: Place, x: float, y: float, prefix: str,
              ref_at: dict[str, list[int]], got_at: dict[str, list[int]], ref_count: Counter,
              got_count: Counter, is_root: bool) -> str:
    refs, gots = ref_at.get(node.id, []), got_at.get(node.id, [])
    mark = "root" if is_root else ("both" if refs and gots else "extra" if gots
                                   else "missing" if refs else "none")
    classes = ["node", mark]
    if mark == "none":
        classes.append("unsearched")
    if node.repeat:
        classes.append("repeat")
    value = "" if node.repeat else scene.labels.get(node.id, "")
    value = value.replace("<=", "≤").replace(">=", "≥")
    kind = "" if node.cutoff else " " + player_name(node.player, scene.vectors)
    title = f"{node.id}{kind}" + (f" = {value}" if value else "")
    title += f"; reference step {_steps_text(refs)}" if refs else ""
    title += f"; your step {_steps_text(gots)}" if gots else ""
    if node.repeat:
        title += "; a shared state: its subtree is drawn at its first place"
    parts = [f'<g class="{" ".join(classes)}" data-id="{esc(node.id)}" data-mark="{mark}">',
             f"<title>{esc(title)}</title>"]
    if mark == "extra":
        parts.append(_shape(node, scene.vectors, x, y, "fillmark extra",
                            f' fill="url(#{prefix}-hatch)"'))
    parts.append(_shape(node, scene.vectors, x, y, "shape",
                        ' fill-opacity="0"' if mark in ("extra", "missing") else ""))
    if mark == "missing":
        parts.append(_shape(node, scene.vectors, x, y, "fillmark missing",
                            f' fill="url(#{prefix}-dots)"'))
    inside = value if len(value) <= VALUE_INSIDE else ""
    if inside:
        dy = 7 if node.player == MAX and not node.cutoff else 0 if node.cutoff else 1
        parts.append(f'<text x="{x:g}" y="{y + 4 + dy:g}" class="value">{esc(inside)}</text>')
    name = _short(node) + (" ↺" if node.repeat else "")
    if node.cutoff:  # a leaf: its name below it, then a value too long to fit inside
        parts.append(f'<text x="{x:g}" y="{y + R + 24:g}" class="nid" text-anchor="middle">'
                     f"{esc(name)}</text>")
        if value and not inside:
            parts.append(f'<text x="{x:g}" y="{y + R + 37:g}" class="nid" '
                         f'text-anchor="middle">{esc(value)}</text>')
    else:
        parts.append(f'<text x="{x - R - 14:g}" y="{y + 4:g}" class="nid" text-anchor="end">'
                     f"{esc(name)}</text>")
        if value and not inside:
            parts.append(f'<text x="{x + R + 11:g}" y="{y + 15:g}" class="nid">{esc(value)}</text>')
    if place.count:
        parts.append(f'<text x="{x:g}" y="{y + R + 14:g}" class="more">+{place.count} below'
                     f"</text>")
    if refs:
        parts.append(f'<circle cx="{x:g}" cy="{y:g}" r="{R + 5}" class="ring ref"/>')
    if gots:
        parts.append(f'<circle cx="{x:g}" cy="{y:g}" r="{R + 9}" class="ring got"/>')
    badge = ""
    if got_count[node.id] > max(ref_count[node.id], 1):
        badge = f'<tspan class="badge got">×{got_count[node.id]}</tspan>'
    elif mark == "extra":
        badge = '<tspan class="badge got">+</tspan>'
    elif mark == "missing":
        badge = '<tspan class="badge ref">−</tspan>'
    if badge:
        gate = f" fillmark {mark}" if mark in ("extra", "missing") else ""  # shown once reached
        parts.append(f'<text x="{x + R + 6:g}" y="{y - R + 2:g}" class="badge{gate}">{badge}'
                     "</text>")
    parts.append("</g>")
    return "".join(parts)
