"""The HTML report: a failing case's search replayed beside the reference's, in one file.

``grader check --html F`` calls :func:`write_html_report` with the :class:`GradingResults` it
printed; ``grader report RESULTS --html F`` rebuilds them from a graded ``results.json``
(:func:`report_main`). The page is self-contained (inline SVG, CSS and a small script from
``grader/templates/``; no URL is fetched) and XHTML-compatible, so an XML parser reads it too.

Per failing test with replay data (``extra_data["replay"]``, put there by
:func:`grader.scoring.grade_pair`): the tree drawn with both searches over it (the tree data
comes from :func:`grader.render.build_scene`; the layout is here, so no Graphviz is needed), the
first difference with the hint of the known mistake beside it, and a step-through of both
``generated`` sequences. What each step shows (built here, read by ``templates/report.js``):

* alpha-beta: the reference's window and ``v`` at the parent, from the replay the answer key
  keeps (:func:`grader.diagnosis.window_moments`); the student's only when their trace is
  exactly one rule's (then it is that rule's): a trace alone does not say what a window was;
* minimax, expectimax, max^n: the reference's best so far at each node on the path and each
  chance node's running weighted sum (a child counts, with its exact value, once the search has
  left it); for the student only the node entered: their values are not in their trace;
* MCTS: the root's children's visits and mean rewards after each iteration, rebuilt by running
  the reference's UCT along the trace (:func:`mcts_iterations`, staff only); the student's only
  when their whole trace follows the convention.

A tree of more than :data:`WHOLE_TREE` nodes is drawn around the first difference.
"""

from __future__ import annotations

import html
import json
import math
import re
import sys
from bisect import bisect_right
from collections import Counter
from dataclasses import astuple, dataclass, field
from pathlib import Path
from typing import Any

from grader.compare import check_value, describe, diff_sequence
from grader.diagnosis import diagnose, window_moments
from grader.drawing import Moment, number, player_name, window_note
from grader.games.base import CHANCE, MAX, MIN
from grader.results import ALGORITHM_NUMBERS, PASSED, GradingResults, TestResult
from grader.runner import RunResult

TEMPLATES = Path(__file__).resolve().parent / "templates"
REPO = Path(__file__).resolve().parent.parent
MAX_TABLE_ITERATIONS = 300  # MCTS: rows of the per-iteration table


class ReportError(ValueError):
    """A results file the report cannot read; the message says what was expected."""


def esc(text: Any) -> str:
    return html.escape(str(text), quote=True)


def inline_markdown(text: str) -> str:
    """``code`` and **bold** of a hint's Markdown as HTML; everything else escaped."""
    out = esc(text)
    out = re.sub(r"`([^`]+)`", r"<code>\1</code>", out)
    return re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", out)


# --- the replay of one failing test -------------------------------------------------------------


@dataclass
class Side:
    """One search's step-through: per step 0..N, the lines shown, as indexes into ``lines``
    (each distinct line is stored once: long traces repeat most of them)."""

    ids: list[str]
    rows: list[list[int]] = field(default_factory=list)
    lines: list[list[str]] = field(default_factory=list)
    _seen: dict[tuple[str, str], int] = field(default_factory=dict, repr=False)

    def add(self, lines: list[tuple[str, str]]) -> None:
        row = []
        for line in lines:
            if line not in self._seen:
                self._seen[line] = len(self.lines)
                self.lines.append(list(line))
            row.append(self._seen[line])
        self.rows.append(row)

    def data(self) -> dict[str, Any]:
        return {"ids": self.ids, "rows": self.rows, "lines": self.lines}


@dataclass
class TreeIndex:
    """The explicit tree as the steps need it, from the scene's nodes (first occurrences)."""

    root: str
    children: dict[str, list[str]]
    player: dict[str, Any]
    value: dict[str, Any]
    probability: dict[tuple[str, str], float]
    vectors: bool

    @classmethod
    def from_scene(cls, scene: Any) -> TreeIndex:
        children: dict[str, list[str]] = {}
        player, value, probability = {}, {}, {}
        for node in scene.nodes:
            if node.parent is not None and node.probability is not None:
                probability[(node.parent, node.id)] = node.probability
            if node.repeat:
                continue
            children[node.id] = list(node.children)
            player[node.id], value[node.id] = node.player, node.value
        return cls(scene.nodes[0].id, children, player, value, probability, scene.vectors)


def _entered(node: str, parent: str | None, index: TreeIndex | None) -> tuple[str, str]:
    if parent is None:
        return ("entered", f"entered {node}")
    kind = f" ({player_name(index.player.get(parent), index.vectors)})" if index else ""
    return ("entered", f"entered {node}, a child of {parent}{kind}")


def inferred_side(ids: list[str], total: int, index: TreeIndex | None, values: bool) -> Side:
    """Steps of a search without a replay: the node entered and its parent, found by keeping a
    stack of the nodes the trace is inside. ``values``: also each node on the path's value so
    far, a child counting with its exact value once the trace has left it (the reference's
    values, never a student's: a trace does not carry what their code computed)."""
    side = Side(list(ids))
    root = index.root if index else None
    side.add([("entered", f"at the root {root}" if root else "at the root")])
    stack: list[tuple[str, list[str]]] = [(root, [])] if root else []
    for step in range(1, total + 1):
        if step > len(ids):
            side.add([("entered", "(the search had finished: nothing more generated)")])
            continue
        node = ids[step - 1]
        if index is None:
            side.add([_entered(node, None, None)])
            continue
        while len(stack) > 1 and node not in index.children.get(stack[-1][0], ()):
            done = stack.pop()[0]
            stack[-1][1].append(done)
        parent = stack[-1][0]
        if node not in index.children.get(parent, ()):
            side.add([("entered", f"entered {node} (not a child of a node on the current path)")])
            continue
        stack.append((node, []))
        side.add([_entered(node, parent, index)] + (_so_far(stack[:-1], index) if values else []))
    return side


def _so_far(path: list[tuple[str, list[str]]], index: TreeIndex) -> list[tuple[str, str]]:
    """One line a node on the path: a chance node's running weighted sum, else its best so far."""
    lines = []
    for node, finished in path:
        player = index.player.get(node)
        if player == CHANCE:
            terms = [f"{number(index.probability.get((node, c), 0))}×{number(index.value[c])}"
                     for c in finished]
            total = sum(index.probability.get((node, c), 0) * index.value[c] for c in finished)
            text = " + ".join(terms) + f" = {number(total)}" if terms else "0"
            outcomes = len(index.children.get(node, []))
            done = f"{len(finished)} of {outcomes} outcomes done"
            lines.append(("sum", f"chance {node}: running weighted sum {text} ({done})"))
            continue
        values = [index.value[c] for c in finished]
        if not values:
            lines.append(("v", f"{node}: no child finished yet"))
            continue
        if index.vectors:
            best = max(values, key=lambda v: v[player])
        else:
            best = max(values) if player == MAX else min(values)
        done = f"{len(values)} child{'ren' if len(values) > 1 else ''} finished"
        kind = player_name(player, index.vectors)
        lines.append(("v", f"{node} ({kind}): best so far {describe(best)} ({done})"))
    return lines


def _window_lines(moment: Any) -> list[tuple[str, str]]:
    mover = "MAX" if moment.is_max else "MIN"
    window = f"α = {number(moment.alpha)}, β = {number(moment.beta)}"
    return [("entered", f"entered {moment.children[0]}, a child of {moment.node} ({mover})"),
            ("window", f"window at {moment.node}: {window}"),
            ("v", f"value backed up at {moment.node} so far: v = {number(moment.v)}")]


def _cut_line(moment: Any, strict: bool, when: str) -> tuple[str, str]:
    sign = (">" if strict else "≥") if moment.is_max else ("<" if strict else "≤")
    bound = (f"β = {number(moment.beta)}" if moment.is_max
             else f"α = {number(moment.alpha)}")
    pruned = ", ".join(moment.children[:8]) + (" …" if len(moment.children) > 8 else "")
    test = f"v = {number(moment.v)} {sign} {bound}"
    return ("cut", f"{when}: {moment.node} cut off, {test}; pruned {pruned}")


def window_side(ids: list[str], total: int, moments: list[Any], strict: bool) -> Side:
    """Alpha-beta's steps from a replay's moments (one ``generate`` moment per id of ``ids``)."""
    side = Side(list(ids))
    generates = [m for m in moments if m.kind == "generate"]
    cuts: dict[int, list[Any]] = {}
    for moment in moments:
        if moment.kind == "cut":
            cuts.setdefault(moment.step, []).append(moment)
    side.add([("entered", "at the root: window α = −∞, β = +∞")])
    for step in range(1, total + 1):
        if step > len(generates):
            lines = [("entered", "(the search had finished: nothing more generated)")]
        else:
            lines = _window_lines(generates[step - 1])
        lines += [_cut_line(m, strict, "just before this step") for m in cuts.get(step - 1, [])]
        if step == total:
            lines += [_cut_line(m, strict, "after this step") for m in cuts.get(step, [])]
        side.add(lines)
    return side


def _moments(case: Any, rule: str, ids: list[str], answers: Any) -> list[Moment] | None:
    """The reference alpha-beta's moments under ``rule`` (from the answer key, so the handout
    has them too) when its ``generate`` moments are exactly ``ids``; else None."""
    try:
        raw = window_moments(case, rule, answers)
    except Exception:  # noqa: BLE001 - no replay for this game or rule: no window shown
        raw = None
    if raw is None:
        return None
    moments = [m if isinstance(m, Moment) else Moment(*m) for m in raw]
    for moment in moments:  # the key keeps infinities as "+inf" / "-inf" (strict JSON)
        moment.alpha, moment.beta, moment.v = (float(b) if isinstance(b, str) else b
                                               for b in (moment.alpha, moment.beta, moment.v))
    made = [m.children[0] for m in moments if m.kind == "generate"]
    return moments if made == list(ids) else None


# --- MCTS -----------------------------------------------------------------------------------


class _Departs(Exception):
    pass


class _TraceGame:
    """The game, with every ``result`` call held to the next id of a ``generated`` trace, and
    the playouts' random choices read off that trace (see :func:`mcts_iterations`)."""

    def __init__(self, game: Any, generated: list[str]) -> None:
        self.game, self.generated, self.position = game, generated, 0
        self.asked: Any = None  # the state whose actions were asked for last: the playout's

    def __getattr__(self, name: str) -> Any:
        return getattr(self.game, name)

    def actions(self, state: Any) -> Any:
        self.asked = state
        return self.game.actions(state)

    def result(self, state: Any, action: Any) -> Any:
        child = self.game.result(state, action)
        made = self.game.state_id(child)
        at = self.position
        if at >= len(self.generated) or self.generated[at] != made:
            found = self.generated[at] if at < len(self.generated) else "nothing more"
            raise _Departs(f"at step {at + 1} UCT's convention generates {made}; the trace has "
                           f"{found}")
        self.position += 1
        return child

    def choice(self, actions: list[Any]) -> Any:  # the playout's rng.choice
        at = self.position
        wanted = self.generated[at] if at < len(self.generated) else None
        for action in actions:
            if self.game.state_id(self.game.result(self.asked, action)) == wanted:
                return action
        raise _Departs(f"step {at + 1} ({wanted or 'nothing more'}) is no move of the playout "
                       f"from {self.game.state_id(self.asked)}")


def mcts_iterations(game: Any, generated: list[str], iterations: int, c: float
                    ) -> tuple[list[int], list[list[tuple[str, int, float]]], str]:
    """Rebuild MCTS's iterations from a ``generated`` trace, with the reference's own UCT
    (``reference/mcts.py``: staff only, so the handout ships no MCTS) and the playouts' moves
    read off the trace instead of drawn at random.

    Returns, per iteration, the steps consumed by its end and the root's children as
    ``(action, visits, mean reward)``, and a note when the trace departs from the convention
    (then the iterations before that point). Raises ImportError without ``reference/``.
    """
    from reference.mcts import Node, _iterate

    traced = _TraceGame(game, generated)
    root = Node(game, game.initial_state())
    ends: list[int] = []
    stats: list[list[tuple[str, int, float]]] = []
    try:
        for _ in range(iterations if not root.terminal else 0):
            _iterate(traced, root, traced, c)
            ends.append(traced.position)
            stats.append([(str(k.action), k.n, k.w / k.n) for k in root.children])
    except _Departs as departure:
        return ends, stats, f"in iteration {len(ends) + 1}, {departure}"
    if traced.position != len(generated):
        extra = len(generated) - traced.position
        return ends, stats, f"after {iterations} iterations the trace has {extra} more ids"
    return ends, stats, ""


def _root_line(stats: list[tuple[str, int, float]]) -> str:
    return "; ".join(f"{a}: n = {n}, mean = {w:.3g}" for a, n, w in stats) or "no child yet"


def mcts_side(ids: list[str], total: int, ends: list[int], stats: list[Any]) -> Side:
    """MCTS's steps: the node entered, and the root's children after the iterations done."""
    side = Side(list(ids))
    side.add([("entered", "at the root, before the first iteration")])
    for step in range(1, total + 1):
        lines = [("entered", f"entered {ids[step - 1]}" if step <= len(ids)
                  else "(the search had finished: nothing more generated)")]
        done = bisect_right(ends, step)  # iterations over by this step (``ends`` ascends)
        if not stats:
            lines.append(("mcts", "the root's statistics are not available (see below)"))
        elif done:
            root = _root_line(stats[done - 1])
            lines.append(("mcts", f"after iteration {done}, the root's children: {root}"))
        else:
            lines.append(("mcts", "iteration 1 in progress"))
        side.add(lines)
    return side


# --- the tree picture -----------------------------------------------------------------------

WHOLE_TREE = 300  # nodes: a larger tree is drawn around the first difference
AROUND = (6, 10)  # a cut tree keeps the nodes generated this many steps before / after it
LEVEL, R, MARGIN = 84, 15, 50  # px: between levels, node "radius", around the picture
VALUE_INSIDE = 4  # characters: a longer value is written beside its node
FILL, ZOOM = 900, 1.5  # px: a picture narrower than FILL fills its box, zoomed ZOOM at most
# The nodes each search enters at the current step: the script moves these onto them.
POINTERS = (f'<path d="M-12,{-R - 22} h11 l-5.5,9 z" class="cur ref"/>'
            f'<path d="M1,{-R - 22} h11 l-5.5,9 z" class="cur got"/>')


@dataclass
class _Place:
    """A node (an occurrence in the scene) or a "… N more" placeholder, with its position."""

    index: int | None
    depth: int
    children: list[_Place] = field(default_factory=list)
    count: int = 0  # placeholder: hidden siblings; node: nodes below it left undrawn
    x: float = 0.0


def _occurrences(nodes: list[Any]) -> tuple[list[list[int]], list[int | None], list[int]]:
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


def _shown(nodes: list[Any], kids: list[list[int]], parent: list[int | None],
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


def _place(i: int, depth: int, kids: list[list[int]], size: list[int],
           shown: set[int] | None) -> _Place:
    place = _Place(i, depth)
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
            place.children.append(_Place(None, depth + 1, count=hidden))
            hidden = 0
        place.children.append(_place(child, depth + 1, kids, size, shown))
    if hidden:
        place.children.append(_Place(None, depth + 1, count=hidden))
    return place


def _layout(root: _Place, slot: float) -> tuple[list[_Place], float]:
    """Leaves evenly spaced left to right, each parent centred over its children."""
    placed: list[_Place] = []
    leaves = 0

    def visit(place: _Place) -> None:
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


def _positions(ids: list[str]) -> dict[str, list[int]]:
    found: dict[str, list[int]] = {}
    for step, node_id in enumerate(ids, 1):
        found.setdefault(node_id, []).append(step)
    return found


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
    kids, parent, size = _occurrences(nodes)
    if first is not None:
        low, high = max(0, first - 1 - AROUND[0]), first - 1 + AROUND[1]
        focus = ref_ids[low:high] + got_ids[low:high]
        for ids in (ref_ids, got_ids):
            if first - 1 < len(ids):
                focus += [c for n in nodes if n.id == ids[first - 1] for c in n.children][:6]
    else:
        focus = ref_ids[:20] + got_ids[:20]
    shown = _shown(nodes, kids, parent, focus)
    root = _place(0, 0, kids, size, shown)
    leaves = [p for p in _walk(root) if not p.children and p.index is not None]
    widest = max((len(_leaf_text(nodes[p.index], scene)) for p in leaves), default=1)
    slot = min(130.0, max(58.0, 7.5 * widest + 16))
    placed, width = _layout(root, slot)
    depth = max(p.depth for p in placed)
    height = MARGIN + LEVEL * depth + MARGIN + 24
    ref_at, got_at = _positions(ref_ids), _positions(got_ids)
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


def _walk(place: _Place) -> list[_Place]:
    found = [place]
    for child in place.children:
        found += _walk(child)
    return found


def _leaf_text(node: Any, scene: Any) -> str:
    """The widest text under a leaf: its name, or a value too long to fit inside."""
    value = scene.labels.get(node.id, "")
    return max(_short(node), value if len(value) > VALUE_INSIDE else "", key=len)


def _edge(scene: Any, nodes: list[Any], place: _Place, child: _Place, x1: float, y1: float,
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


def _node_svg(scene: Any, node: Any, place: _Place, x: float, y: float, prefix: str,
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


# --- one failing test -------------------------------------------------------------------------


@dataclass
class CaseReplay:
    """Everything the page shows for one failing test with replay data."""

    test: TestResult
    case: Any
    rule: str
    expected: dict[str, Any]
    got: dict[str, Any]
    first: int | None  # 1-based step of the first difference of ``generated``
    ref: Side
    yours: Side
    svg: str = ""
    picture_note: str = ""
    window: str | None = None
    hints: list[Any] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    iterations: tuple[list[Any], list[Any]] | None = None  # MCTS: per-iteration stats, both


def _scene(case: Any, algorithm: str, rule: str, expected: list[str], got: list[str],
           answers: Any = None):
    """(scene, note): the tree data from grader.render (its values and cuts from ``answers``
    where ``reference/`` is missing), or None and why not."""
    try:
        from grader.render import build_scene  # needs grader.solve, which may need reference/
    except ImportError:
        return None, "The tree picture is not available in this installation."
    try:
        scene = build_scene(case, algorithm, RunResult(None, expected), RunResult(None, got),
                            pruning=rule, answers=answers)
    except Exception as error:  # noqa: BLE001 - TreeTooLargeError, a built-in game's shape
        return None, f"The tree is not drawn: {error}."
    return scene, ""


def build_replay(test: TestResult, case: Any, replay: dict[str, Any], answers: Any) -> CaseReplay:
    """The replay of one failing test; ``answers``: an :class:`~grader.answers.AnswerKey` (the
    hints and the reference's windows come from it)."""
    algorithm, rule = test.algorithm, replay.get("rule") or "inclusive"
    expected, got = replay["expected"], replay["got"]
    ref_ids, got_ids = list(expected["generated"]), list(got["generated"])
    diff = diff_sequence("generated", ref_ids, got_ids)
    first = None if diff.equal else diff.first_difference + 1
    scene, picture_note = _scene(case, algorithm, rule, ref_ids, got_ids, answers)
    index = TreeIndex.from_scene(scene) if scene is not None else None
    total = max(len(ref_ids), len(got_ids))
    iterations, moments = None, None
    if algorithm == "alpha_beta":
        ref, yours, notes, moments = _alpha_beta_sides(case, rule, ref_ids, got_ids, index, answers)
    elif algorithm == "mcts":
        ref, yours, notes, iterations = _mcts_sides(case, ref_ids, got_ids)
    else:
        known = index is not None and None not in index.value.values()  # handout: in the key?
        ref = inferred_side(ref_ids, total, index, values=known)
        yours = inferred_side(got_ids, total, index, values=False)
        notes = [_values_note(case)] if known else []
    result = CaseReplay(test, case, rule, expected, got, first, ref, yours,
                        picture_note=picture_note, notes=notes, iterations=iterations)
    if scene is not None:
        prefix = "t" + test.number.replace(".", "-")
        result.svg = tree_svg(scene, ref_ids, got_ids, first, prefix=prefix)
    if moments is not None and first is not None:
        result.window = window_note(case, rule, ref_ids, got_ids,
                                    moments=[astuple(m) for m in moments])
    result.hints = _hints(test, case, rule, got, answers)
    return result


def _alpha_beta_sides(case: Any, rule: str, ref_ids: list[str], got_ids: list[str],
                      index: TreeIndex | None, answers: Any):
    """(reference side, student side, notes, the reference's moments or None)."""
    total, notes = max(len(ref_ids), len(got_ids)), []
    moments = _moments(case, rule, ref_ids, answers)
    if moments is None:
        ref = inferred_side(ref_ids, total, index, values=False)
        notes.append("The reference's window is not available for this case.")
    else:
        ref = window_side(ref_ids, total, moments, rule == "strict")
    for each in (rule, "strict" if rule == "inclusive" else "inclusive"):
        theirs = _moments(case, each, got_ids, answers)
        if theirs is not None:
            notes.append(f"Your trace is exactly the {each} rule's alpha-beta, so the windows "
                         "shown for yours are that rule's.")
            return ref, window_side(got_ids, total, theirs, each == "strict"), notes, moments
    notes.append("Your alpha/beta window is not shown: a trace alone does not say what your "
                 "window was (yours matches neither rule's alpha-beta). Only the reference's "
                 "window is shown.")
    return ref, inferred_side(got_ids, total, index, values=False), notes, moments


def _mcts_sides(case: Any, ref_ids: list[str], got_ids: list[str]):
    """(reference side, student side, notes, per-iteration statistics of both)."""
    settings = getattr(case, "mcts", None)
    count, c = getattr(settings, "iterations", 100), getattr(settings, "c", math.sqrt(2))
    total = max(len(ref_ids), len(got_ids))
    rebuilt, notes = [], []
    for ids in (ref_ids, got_ids):
        try:
            rebuilt.append(mcts_iterations(case.build_game(), ids, count, c))
        except ImportError:  # the handout: no reference/, no statistics
            return (*(mcts_side(ids, total, [], []) for ids in (ref_ids, got_ids)),
                    ["The root's statistics after each iteration are not available here."],
                    ([], []))
        except Exception as error:  # noqa: BLE001 - e.g. a game MCTS cannot take
            rebuilt.append(([], [], f"the iterations could not be rebuilt: {error}"))
    if rebuilt[1][2]:
        notes.append(f"Your statistics are not shown: they cannot be rebuilt from your trace, "
                     f"which departs from UCT's convention ({rebuilt[1][2]}). Iterations that "
                     "generate nothing leave no mark in a trace.")
        rebuilt[1] = ([], [], "")
    else:
        notes.append("Your statistics are rebuilt from your trace by UCT's convention, which "
                     "your whole trace follows.")
    if rebuilt[0][2]:
        notes.append(f"The reference's statistics could be rebuilt only in part: {rebuilt[0][2]}.")
    ref, yours = (mcts_side(ids, total, *r[:2]) for ids, r in zip((ref_ids, got_ids), rebuilt))
    return ref, yours, notes, (rebuilt[0][1], rebuilt[1][1])


def _values_note(case: Any) -> str:
    pruned = getattr(case, "value_bounds", None) is not None or (
        getattr(case, "max_sum", None) is not None)
    cut = (" (where it pruned, a cut child's exact value stands in for the bound it returned)"
           if pruned else "")
    return (f"The reference's values so far: each child counts with its exact value once the "
            f"search has left it{cut}. Yours are not shown: a trace does not carry the values "
            "your code computed.")


def _hints(test: TestResult, case: Any, rule: str, got: dict[str, Any], answers: Any) -> list[Any]:
    """The known mistakes matching the student's run (recomputed: results keep only a title)."""
    try:
        run = RunResult(value=got.get("value"), generated=list(got["generated"]))
        return diagnose(case, test.algorithm, rule, run, answers)
    except Exception:  # noqa: BLE001 - no hint is better than no report
        return []


# --- the page ---------------------------------------------------------------------------------


VERDICTS = {PASSED: ("pass", "✓ passed"), "wrong_trace": ("part", "◐ partial")}


def _verdict(test: TestResult) -> tuple[str, str]:
    if test.outcome in VERDICTS:
        return VERDICTS[test.outcome]
    return "fail", "✗ " + test.outcome.replace("_", " ")


def anchor(test: TestResult) -> str:
    return "test-" + re.sub(r"[^0-9A-Za-z]+", "-", test.number)


def score_table(results: GradingResults, detailed: set[str]) -> list[str]:
    head = "".join(f"<th>{name}</th>" for name in ("#", "test", "points", "result", "summary"))
    lines = ['<table class="scores">', f"<thead><tr>{head}</tr></thead>", "<tbody>"]
    for algorithm, tests in results.by_algorithm().items():
        earned = sum(t.score for t in tests)
        possible = sum(t.max_score for t in tests)
        passed = sum(t.passed for t in tests)
        lines.append(f'<tr class="group"><th colspan="5">{esc(algorithm)}: {earned:g}/'
                     f"{possible:g} points, {passed}/{len(tests)} tests passed</th></tr>")
        for test in tests:
            css, word = _verdict(test)
            name = esc(test.name.split(": ", 1)[-1])
            if test.number in detailed:
                name = f'<a href="#{anchor(test)}">{name}</a>'
            summary = "" if test.passed else esc(test.summary)
            lines.append(f'<tr data-outcome="{esc(test.outcome)}"><td class="num">'
                         f"{esc(test.number)}</td><td>{name}</td><td class=\"pts\">"
                         f"{test.score:g}/{test.max_score:g}</td><td><span class=\"verdict {css}\">"
                         f"{esc(word)}</span></td><td>{summary}</td></tr>")
    total = f"{results.score:g}/{results.max_score:g}"
    lines += ["</tbody>", (f'<tfoot><tr><th colspan="2">Total</th><th class="pts">{total}</th>'
                           '<th colspan="2"></th></tr></tfoot>'), "</table>"]
    return lines


LEGEND_ITEMS = [
    ('<circle cx="12" cy="12" r="8" fill="none" stroke="#0072b2" stroke-width="2.6"/>',
     "reference generated it (solid blue ring)"),
    (('<circle cx="12" cy="12" r="8" fill="none" stroke="#d55e00" stroke-width="2.6" '
      'stroke-dasharray="5 3"/>'), "you generated it (dashed orange ring)"),
    (('<rect x="4" y="4" width="16" height="16" fill="url(#legend-hatch)" stroke="#1d1d1f"/>'
      '<text x="23" y="10" class="badge got">+</text>'),
     "extra: yours only, the reference pruned it (cross-hatched, +)"),
    (('<rect x="4" y="4" width="16" height="16" fill="url(#legend-dots)" stroke="#1d1d1f"/>'
      '<text x="23" y="10" class="badge ref">−</text>'),
     "missing: the reference's only, you skipped it (dotted, −)"),
    (('<line x1="2" y1="20" x2="22" y2="4" stroke="#a3a8b0" stroke-dasharray="4 3"/>'
      '<line x1="6" y1="8" x2="14" y2="16" class="cross"/>'),
     "branch the reference pruned (crossed out, dashed)"),
    (('<rect x="3" y="3" width="18" height="18" fill="none" stroke="#1d1d1f" '
      'stroke-dasharray="6 2 1 2"/><text x="9" y="16" class="badge">!</text>'),
     "the first difference"),
]
SHAPE_ITEMS = [
    ('<polygon points="12,3 22,20 2,20" class="shape"/>', "MAX"),
    ('<polygon points="2,4 22,4 12,21" class="shape"/>', "MIN"),
    ('<circle cx="12" cy="12" r="9" class="shape"/>', "chance"),
    ('<rect x="3" y="3" width="18" height="18" class="shape"/>', "leaf (its value inside)"),
]


def legend() -> list[str]:
    items = []
    for index, (icon, text) in enumerate(SHAPE_ITEMS + LEGEND_ITEMS):
        defs = patterns("legend") if index == 0 else ""  # one document: every icon sees them
        items.append(f'<span><svg width="30" height="24" viewBox="0 0 30 24">{defs}{icon}</svg>'
                     f"{esc(text)}</span>")
    return ['<div class="legend">', *items, "</div>"]


def _hint_html(replay: CaseReplay) -> list[str]:
    if not replay.hints:
        title = re.search(r"\(likely mistake: (.+)\)$", replay.test.summary or "")
        if title:
            named = f"<p><strong>Likely mistake: {esc(title.group(1))}</strong></p>"
            return ['<div class="hint">', named, "</div>"]
        return []
    hint = replay.hints[0]
    named = f"<strong>Likely mistake: {esc(hint.title)}</strong> (<code>{esc(hint.name)}</code>)"
    lines = ['<div class="hint">', f"<p>{named}</p>",
             f"<p>What your code does: {inline_markdown(hint.does)}.</p>",
             f"<p>The lecture's pseudo-code: {inline_markdown(hint.departs)}.</p>",
             f"<p>What to change: {inline_markdown(hint.fix)}.</p>"]
    if len(replay.hints) > 1:
        others = ", ".join(esc(h.title) for h in replay.hints[1:])
        lines.append(f'<p class="muted">Your run also matches: {others}.</p>')
    return lines + ["</div>"]


def _first_difference_html(replay: CaseReplay) -> list[str]:
    ref_ids, got_ids = replay.ref.ids, replay.yours.ids
    step = replay.first
    lines = ['<div class="callout">']
    if step is None:
        lines.append("<p>Both searches generated the same nodes in the same order.</p>")
    else:
        theirs = ref_ids[step - 1] if step <= len(ref_ids) else None
        mine = got_ids[step - 1] if step <= len(got_ids) else None
        text = (f"<strong>First difference at step {step}</strong>: the reference "
                + (f"generated <code>{esc(theirs)}</code>" if theirs else "had finished")
                + "; yours " + (f"generated <code>{esc(mine)}</code>" if mine else "had finished")
                + " (marked <strong>!</strong> in the picture).")
        lines.append(f"<p>{text}</p>")
    if replay.window:
        lines.append(f"<p>{esc(replay.window)}</p>")
    lines += _hint_html(replay)
    return lines + ["</div>"]


def _value_line(replay: CaseReplay) -> str:
    want, have = replay.expected.get("value"), replay.got.get("value")
    ok = check_value(want, have).ok
    verdict = "correct" if ok else "wrong"
    rule = f"; pruning rule: {esc(replay.rule)}" if replay.test.algorithm == "alpha_beta" else ""
    return (f'<p class="facts">Value: expected <code>{esc(describe(want))}</code>, yours '
            f"<code>{esc(describe(have))}</code> ({verdict}){rule}. Generated: reference "
            f"{len(replay.ref.ids)} nodes, yours {len(replay.yours.ids)}.</p>")


def _stepper_html(replay: CaseReplay) -> list[str]:
    total = max(len(replay.ref.ids), len(replay.yours.ids))
    return [
        '<div class="stepper">',
        '<div class="controls">',
        '<button type="button" class="prev" title="previous step (left arrow)">◀ previous</button>',
        (f'<input type="range" class="step" min="0" max="{total}" value="{total}" '
         'aria-label="step of the replay"/>'),
        '<button type="button" class="next" title="next step (right arrow)">next ▶</button>',
        '<button type="button" class="jump">first difference</button>',
        '<button type="button" class="end">end</button>',
        f'<span class="step-label">step {total} of {total}</span>',
        "</div>",
        '<div class="sides">',
        '<div class="side side-ref"><h4>Reference (solid blue)</h4><ul></ul></div>',
        '<div class="side side-got"><h4>Yours (dashed orange)</h4><ul></ul></div>',
        "</div>",
        *[f'<p class="notes stepper-note">{esc(note)}</p>' for note in replay.notes],
        "</div>",
    ]


def _iterations_html(replay: CaseReplay) -> list[str]:
    if replay.iterations is None:
        return []
    ref, yours = replay.iterations
    if not ref and not yours:
        return ['<p class="notes">The per-iteration statistics are not available here.</p>']
    rows = max(len(ref), len(yours))
    head = "".join(f"<th>{name}</th>" for name in ("iteration", "reference", "yours"))
    summary = "The root's children after each iteration (visits n, mean reward)"
    lines = [f"<details><summary>{summary}</summary>",
             f'<table class="iterations"><thead><tr>{head}</tr></thead><tbody>']
    for i in range(min(rows, MAX_TABLE_ITERATIONS)):
        cells = [esc(_root_line(side[i])) if i < len(side) else "—" for side in (ref, yours)]
        lines.append(f"<tr><td>{i + 1}</td><td>{cells[0]}</td><td>{cells[1]}</td></tr>")
    return lines + ["</tbody></table></details>"]


def _script_json(data: Any) -> str:
    """JSON safe inside a script element of HTML and of XML (no <, > or &)."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def case_section(replay: CaseReplay) -> list[str]:
    test = replay.test
    data = {"steps": max(len(replay.ref.ids), len(replay.yours.ids)), "first": replay.first,
            "ref": replay.ref.data(), "got": replay.yours.data()}
    picture = (f'<div class="picture">{replay.svg}</div>' if replay.svg
               else f'<p class="notes">{esc(replay.picture_note)}</p>')
    return [
        (f'<section class="case" id="{anchor(test)}" data-replay="1" '
         f'data-algorithm="{esc(test.algorithm)}" tabindex="0">'),
        f"<h2>{esc(test.number)} {esc(test.name)}: {test.score:g}/{test.max_score:g}</h2>",
        _value_line(replay),
        '<div class="layout">',
        '<div class="main-panel">', picture, *_stepper_html(replay), "</div>",
        '<div class="side-panel">', *_first_difference_html(replay), "</div>",
        "</div>",
        *_iterations_html(replay),
        *_output_html(test),
        f'<script type="application/json" class="replay-data">{_script_json(data)}</script>',
        "</section>",
    ]


def _output_html(test: TestResult, open_: bool = False) -> list[str]:
    if not test.output:
        return []
    state = ' open="open"' if open_ else ""
    return [f"<details{state}><summary>The feedback as text</summary>",
            f"<pre>{esc(test.output)}</pre>", "</details>"]


def plain_section(test: TestResult, why: str) -> list[str]:
    return [f'<section class="case" id="{anchor(test)}">',
            f"<h2>{esc(test.number)} {esc(test.name)}: {test.score:g}/{test.max_score:g}</h2>",
            f'<p class="facts">{esc(test.summary)}</p>', f'<p class="notes">{esc(why)}</p>',
            *_output_html(test, open_=True), "</section>"]


def render_page(results: GradingResults, sections: list[list[str]], detailed: set[str],
                title: str = "Search report") -> str:
    css = (TEMPLATES / "report.css").read_text(encoding="utf-8")
    script = (TEMPLATES / "report.js").read_text(encoding="utf-8")
    failing = sum(not t.passed for t in results.tests)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8"/>',
        '<meta name="viewport" content="width=device-width, initial-scale=1"/>',
        '<link rel="icon" href="data:,"/>',
        f"<title>{esc(title)}</title>",
        f"<style>\n{css}</style>",
        "</head>",
        "<body>",
        f"<h1>{esc(title)}</h1>",
        (f'<p class="muted">Score {results.score:g}/{results.max_score:g}; {failing} of '
         f"{len(results.tests)} tests not passed. Each failing case below replays your search "
         "beside the reference's: move the slider, use the buttons, or the arrow keys.</p>"),
        *score_table(results, detailed),
    ]
    if results.output:
        parts.append(f"<pre>{esc(results.output)}</pre>")
    if sections:
        parts += ["<h2>How to read the pictures</h2>", *legend()]
    for section in sections:
        parts += section
    parts += [f"<script>//<![CDATA[\n{script}//]]>\n</script>", "</body>", "</html>"]
    return "\n".join(parts) + "\n"


def _load_case(path: str | None, name: str, cache: dict[str, Any], base: Path | None = None) -> Any:
    """The case of a replay: its recorded path, else the same path under ``base`` or the repo,
    else a case file named after it under the repo's ``trees/``."""
    from grader.cases import load_case

    key = f"{path}|{name}"
    if key in cache:
        return cache[key]
    candidates = []
    if path:
        candidates += [Path(path)] + [root / path for root in (base, REPO) if root is not None]
    candidates += sorted((REPO / "trees").rglob(f"{name}.json"))
    for candidate in candidates:
        if candidate.is_file():
            cache[key] = load_case(candidate)
            return cache[key]
    raise ReportError(f"expected the case file of {name!r} at {path!r} or under trees/, found none")


def report_html(results: GradingResults, *, base: Path | None = None, answers: Any = None) -> str:
    """The whole page for ``results`` (see the module docstring); ``answers`` defaults to
    :meth:`AnswerKey.default`, where the hints and windows of the grading run are cached."""
    from grader.answers import AnswerKey

    answers = answers or AnswerKey.default()
    sections, detailed, cases = [], set(), {}
    for test in results.tests:
        if test.passed or test.outcome == "grader_error":
            continue
        detailed.add(test.number)
        replay = (test.extra_data or {}).get("replay")
        if not replay:
            why = ("No step-through: your code gave no trace to replay." if test.outcome not in
                   ("wrong_trace", "wrong_value") else
                   "No step-through: this test's traces are too long to replay, or the results "
                   "do not carry them.")
            sections.append(plain_section(test, why))
            continue
        try:
            case = _load_case(replay.get("case"), test.case_name, cases, base)
            sections.append(case_section(build_replay(test, case, replay, answers)))
        except Exception as error:  # noqa: BLE001 - one bad section never loses the report
            sections.append(plain_section(test, f"The replay could not be drawn: {error}"))
    return render_page(results, sections, detailed)


def write_html_report(results: GradingResults, path: Path) -> None:
    """``grader check --html PATH``: write the report of ``results`` to ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(report_html(results), encoding="utf-8")


def results_from_json(data: dict[str, Any]) -> GradingResults:
    """The results model again, from a ``results.json`` Gradescope reads (what it keeps)."""
    if not isinstance(data, dict) or not isinstance(data.get("tests"), list):
        raise ReportError(f"expected a results.json object with a 'tests' list, got: "
                          f"{type(data).__name__}")
    results = GradingResults(output=data.get("output") or "",
                             execution_time=float(data.get("execution_time") or 0.0))
    for position, item in enumerate(data["tests"], 1):
        name = str(item.get("name", f"test {position}"))
        algorithm, _, rest = name.partition(": ")
        if algorithm not in ALGORITHM_NUMBERS:
            algorithm, rest = "other", name
        score, most = float(item.get("score") or 0.0), float(item.get("max_score") or 0.0)
        passed = item.get("status") == "passed" or (item.get("status") is None and score >= most)
        extra = item.get("extra_data") or {}
        outcome = extra.get("outcome") or (PASSED if passed else
                                           "wrong_trace" if score > 0 else "failed")
        results.tests.append(TestResult(
            name=name, number=str(item.get("number") or position), algorithm=algorithm,
            case_name=rest.split(" (", 1)[0], max_score=most, score=score, outcome=outcome,
            visibility=item.get("visibility", "visible"), output=item.get("output") or "",
            summary=(item.get("output") or "").split("\n", 1)[0][:200], extra_data=extra))
    return results


def report_main(results_path: Path, *, html: Path) -> int:
    """``grader report RESULTS --html F``: 0 when written, 2 when the results cannot be read."""
    results_path = Path(results_path)
    try:
        data = json.loads(results_path.read_text(encoding="utf-8"))
        results = results_from_json(data)
    except (OSError, ValueError) as error:
        print(f"grader report: {results_path}: {error}", file=sys.stderr)
        return 2
    missing = sum(1 for t in results.tests if not t.passed and "replay" not in t.extra_data)
    text = report_html(results, base=results_path.parent)
    Path(html).write_text(text, encoding="utf-8")
    print(f"HTML report written to {html}")
    if missing:
        print(f"note: {missing} failing test(s) carry no replay data in {results_path}",
              file=sys.stderr)
    return 0


__all__ = ["CaseReplay", "ReportError", "build_replay", "mcts_iterations", "report_html",
           "report_main", "results_from_json", "write_html_report"]
