"""``grader render``: a picture of a case's tree, as text, Graphviz DOT, SVG or PNG.

Every node shows its backed-up value (the exact minimax / expectimax / max^n value). With an
algorithm, the reference's run is drawn over it: the order in which each node was generated
(``#n``), pruned branches greyed and dashed, a cut mark where alpha-beta cut (with the test
that cut), and alpha-beta's fail-soft bounds (``<=2``: "at most 2") instead of exact values
at nodes it left early. With a student's run, their generated nodes are drawn too: a double
outline in pictures, a ``you #n`` column in text, ``!`` where they part from the reference.
The values, bounds and cuts are ``reference/``'s (:func:`grader.answers.tree_walk.walk`,
:mod:`reference.replay`); without it (the handout's HTML report) the values and cuts come from
the answer key, and no bounds are shown.

Shapes are the textbook's: MAX a triangle, MIN an upside-down triangle, chance a circle, a leaf
a box (player indexes of n-player games get a shape each). The text drawing is this module's
own, not :func:`grader.feedback.drawing.draw_tree`: that one is the student's failure view (a
student run required, leaf values only, cut around the first difference), while a TA needs the whole
tree with backed-up values, bounds and cuts, with or without runs. DOT text is written directly
(deterministic; no pydot needed); SVG and PNG come from Graphviz's ``dot``.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass, field
from typing import Any

import grader.algorithms as algorithm_specs
from grader.answers.solve import RULES, mcts_settings, resolve_pruning, solve
from grader.answers.tree_walk import (
    ReferenceMissingError,
    TreeNode,
    fmt,
    player_name,
    positions,
    staff,
    walk_case,
)
from grader.errors import GraderError
from grader.feedback.drawing import Moment, stored_moments
from grader.games.base import CHANCE, MAX, MIN

INSTALL_HINT = ("install Graphviz's `dot`: `apt-get install graphviz` (Debian/Ubuntu) or "
                "`brew install graphviz` (macOS); or use --format txt or --format dot")
PNG_INCHES = (40, 20)  # the largest PNG: 3840 x 1920 pixels
SHAPES = {MAX: "triangle", MIN: "invtriangle", CHANCE: "circle"}
INDEX_SHAPES = ("triangle", "invtriangle", "diamond", "pentagon", "hexagon", "octagon")


class GraphvizNotFoundError(RuntimeError):
    """``dot`` is not installed; the message says how to install it."""


@dataclass
class Scene:
    """What a picture shows: the tree, values, and the runs drawn over it."""

    name: str
    title: str
    nodes: list[TreeNode]
    vectors: bool
    labels: dict[str, str]  # node id -> the value shown
    reference: dict[str, list[int]] | None = None  # id -> positions in the reference's list
    student: dict[str, list[int]] | None = None
    cuts: dict[str, Moment] = field(default_factory=dict)  # node id -> its (last) cut
    strict: bool = False
    bounds: bool = False  # alpha-beta's returned values are shown (some are bounds)
    legend: list[str] = field(default_factory=list)  # what was run, and its answer
    algorithm: str | None = None  # the reference's run drawn (None: the tree alone)

    def pruned(self, node: TreeNode) -> bool:
        return self.reference is not None and node.parent is not None and (
            node.id not in self.reference)


def _replay(case: Any, rule: str, generated: list[str], answers: Any
            ) -> tuple[str, list[Moment], list[Any] | None] | None:
    """(rule, moments, visits) of the alpha-beta run whose trace is ``generated``, the rule
    given tried first: :mod:`reference.replay`'s; where it is not installed, the moments the
    answer key keeps (:func:`grader.feedback.diagnosis.window_moments`) and no visits (no
    bounds)."""
    for each in (rule,) + tuple(r for r in RULES if r != rule):
        try:
            replay = staff("replay", "the alpha-beta marks").AlphaBetaReplay(case.build_game(), each)
            moments, visits = [Moment(*m) for m in replay.moments], replay.visits
        except ReferenceMissingError:
            from grader.feedback.diagnosis import window_moments

            stored = window_moments(case, each, answers) if answers is not None else None
            moments, visits = (stored_moments(stored) if stored else None), None
        if moments is not None and [m.children[0] for m in moments
                                    if m.kind == "generate"] == list(generated):
            return each, moments, visits
    return None


def build_scene(case: Any, algorithm: str | None = None, reference_run: Any = None,
                student_run: Any = None, *, pruning: str | None = None,
                rubric: Any = None, answers: Any = None) -> Scene:
    """The picture's content; the reference is solved here unless ``reference_run`` is given.

    Runs are anything with a ``generated`` list (a RunResult, a WorkerReply). Raises
    :class:`TreeTooLargeError` for a game too large to draw. Without ``reference/`` (the
    handout's HTML report) the values and alpha-beta's cuts come from ``answers`` (an
    :class:`~grader.answers.store.AnswerKey`) when it has them, and no bounds are shown.
    """
    nodes = walk_case(case, answers)
    labels = {n.id: fmt(n.value) for n in nodes if not n.repeat and n.value is not None}
    scene = Scene(case.name, f"{case.name}: {case.description}", nodes, case.vector_values,
                  labels)
    if algorithm is None and student_run is None:
        return scene
    algorithm = algorithm or case.algorithms[0]
    rule = resolve_pruning(case, algorithm, pruning, rubric)
    if reference_run is None:
        reference_run = solve(case, algorithm, pruning=rule)
    scene.reference = positions(reference_run.generated)
    scene.algorithm = algorithm
    spec = algorithm_specs.get(algorithm)
    if spec.iterations:  # its value is the move it chose (its tree is cut below)
        settings = mcts_settings(case)
        chose = (f": chooses move {reference_run.value}"
                 if getattr(reference_run, "value", None) is not None else "")
        scene.legend.append(f"{algorithm} ({settings.iterations} iterations, seed {settings.seed})"
                            + chose)
    else:
        how = f", {rule} rule" if spec.window else ""
        scene.legend.append(f"{algorithm}{how}: value {fmt(reference_run.value)}"
                            + (f", move {reference_run.action}"
                               if getattr(reference_run, "action", None) is not None else ""))
    for node in nodes:  # a pruned internal node has no value to show
        if scene.pruned(node) and not node.cutoff:
            labels[node.id] = ""
    replay = (_replay(case, rule, reference_run.generated, answers)
              if spec.window else None)
    if replay is not None:
        matched, moments, visits = replay
        scene.strict = matched == "strict"
        scene.cuts = {m.node: m for m in moments if m.kind == "cut"}
        for visit in reversed(visits or ()):  # the first visit of a shared state wins
            labels[visit.id] = visit.bound() + fmt(visit.returned)
        scene.bounds = visits is not None
    if student_run is not None:
        scene.student = positions(list(student_run.generated))
    if spec.iterations:  # a few hundred of a game's nodes: draw what the runs expanded
        scene.nodes = _expanded(nodes, {**scene.reference, **(scene.student or {})})
        who = "MCTS" if scene.student is None else "the reference's or your MCTS"
        scene.legend.append(f"only the {len(scene.nodes)} nodes {who} expanded are drawn (of "
                            f"{len(nodes)} in the game tree); values: exact game values")
    return scene


def _expanded(nodes: list[TreeNode], generated: dict[str, list[int]]) -> list[TreeNode]:
    """The root and the nodes a run generated whose parent is drawn, in walk order."""
    kept: list[TreeNode] = []
    drawn: set[str] = set()
    for node in nodes:
        if node.parent is None or (node.id in generated and node.parent in drawn):
            kept.append(node)
            drawn.add(node.id)
    return kept


def _run_key(scene: Scene, picture: bool) -> str:
    """What the generation marks mean for the scene's run (pruning words only where a node
    was pruned)."""
    pruned = any(scene.pruned(node) for node in scene.nodes)
    if scene.algorithm is not None and algorithm_specs.get(scene.algorithm).iterations:
        return ("thick outline, #n" if picture else "#n") + (": generated n-th by the "
                                                              "reference's MCTS (each expansion)")
    if picture:
        return ("thick outline, #n: generated n-th by the reference"
                + ("; dashed grey: pruned" if pruned else ""))
    return ("#n: generated n-th by the reference"
            + ("; x: never generated (pruned)" if pruned else ""))


# --- text -------------------------------------------------------------------------------------


def _order(orders: dict[str, list[int]] | None, node: TreeNode) -> str:
    if orders is None:
        return ""
    if node.parent is None:
        return "root"
    return ",".join(f"#{p}" for p in orders[node.id]) if node.id in orders else "x"


def _cut_text(cut: Moment, strict: bool) -> str:
    sign = (">" if cut.is_max else "<") + ("" if strict else "=")
    bound = f"beta {fmt(cut.beta)}" if cut.is_max else f"alpha {fmt(cut.alpha)}"
    return f"// {fmt(cut.v)} {sign} {bound}"


def render_text(scene: Scene) -> str:
    """The tree as indented text (ASCII only, so any terminal shows it)."""
    rows: list[list[str]] = []
    last_child: dict[str, str] = {}
    for node in scene.nodes:
        if node.parent is not None:
            last_child[node.parent] = node.id
    open_levels: list[bool] = []  # per depth: does the parent still have children below?
    for index, node in enumerate(scene.nodes):
        is_last = node.parent is None or _is_last(scene.nodes, index)
        prefix = "".join("|   " if more else "    " for more in open_levels[1:node.depth])
        if node.depth:
            prefix += "`-- " if is_last else "+-- "
        del open_levels[node.depth:]
        open_levels.append(not is_last)
        name = node.id
        if node.action is not None and str(node.action) != node.id:
            name += f" ({node.action})"
        if node.probability is not None:
            name += f" p={fmt(node.probability)}"
        kind = "" if node.cutoff and node.terminal else player_name(node, scene.vectors)
        value = "" if node.repeat else scene.labels.get(node.id, "")
        row = [prefix + name, kind, value, _order(scene.reference, node)]
        if scene.student is not None:
            mine = _order(scene.student, node).replace("#", "you #").replace("x", "-")
            differs = node.parent is not None and (
                scene.student.get(node.id) != scene.reference.get(node.id))
            row.append(mine + (" !" if differs else ""))
        notes = []
        if node.repeat:
            notes.append("(shared state: its subtree is drawn above)")
        if node.id in scene.cuts and not node.repeat:
            notes.append(_cut_text(scene.cuts[node.id], scene.strict))
        rows.append(row + [" ".join(notes)])
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    key = []
    if scene.reference is not None:
        key.append(_run_key(scene, picture=False))
    if scene.bounds:
        key.append("// cut: where alpha-beta cut, and the test; <=v, >=v: a bound it returned, "
                   "not the exact value")
    if scene.student is not None:
        key.append("you #n: generated n-th by your code; !: not as the reference")
    lines = [scene.title] + [f"  {text}" for text in scene.legend + key]
    for row in rows:
        lines.append("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip())
    return "\n".join(lines) + "\n"


def _is_last(nodes: list[TreeNode], index: int) -> bool:
    """Whether no later sibling follows node ``index`` (siblings share parent and depth)."""
    node = nodes[index]
    for later in nodes[index + 1:]:
        if later.depth < node.depth:
            return True
        if later.depth == node.depth:
            return False
    return True


# --- DOT, SVG, PNG ---------------------------------------------------------------------------


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _shape(node: TreeNode, vectors: bool) -> str:
    if node.cutoff:
        return "box"
    if vectors and node.player != CHANCE:
        return INDEX_SHAPES[node.player % len(INDEX_SHAPES)]
    return SHAPES.get(node.player, "box")


def render_dot(scene: Scene) -> str:
    """Graphviz DOT text: one node a state (shared states once), edges in search order."""
    names = {}
    for node in scene.nodes:
        names.setdefault(node.id, f"n{len(names)}")
    legend = [scene.title] + scene.legend
    if scene.reference is not None:
        legend.append(_run_key(scene, picture=True))
    if any(node.cutoff and not node.terminal for node in scene.nodes):
        legend.append("rounded box: a node the depth limit cuts, scored by its eval")
    if scene.bounds:
        legend.append("// on a branch: alpha-beta cut there (the test that cut); <=v, >=v: a "
                      "bound it returned, not the exact value")
    if scene.student is not None:
        legend.append("double outline, you #n: generated n-th by your code")
    left = "".join(_quote(line)[1:-1] + "\\l" for line in legend)  # \l: a left-aligned line
    graph = ("  graph [ordering=out, nodesep=0.25, ranksep=0.45, fontname=Helvetica, "
             f'fontsize=10, labelloc=b, label="{left}"];')
    lines = [f"digraph {_quote(scene.name)} {{", graph,
             "  node [fontname=Helvetica, fontsize=11, style=filled, fillcolor=white];",
             "  edge [fontname=Helvetica, fontsize=9, arrowsize=0.6];"]
    edges = []
    for node in scene.nodes:
        if node.parent is not None:
            edges.append(_edge(scene, node, names))
        if node.repeat:
            continue
        label = node.id
        if scene.vectors and not node.cutoff and node.player != CHANCE:
            label += f" (P{node.player})"  # n players: the shape alone does not say who
        if scene.labels.get(node.id):
            label += f"\n{scene.labels[node.id]}"
        elif scene.pruned(node) and not node.cutoff:  # a second line keeps its full size,
            label += "\npruned"  # so the label sits inside the triangle, not across it
        marks = [m for m in (_order(scene.reference, node),) if m not in ("", "x", "root")]
        if scene.student is not None and node.id in scene.student:
            marks.append("you " + ",".join(f"#{p}" for p in scene.student[node.id]))
        if marks:
            label += "\n" + " ".join(marks)
        attrs = [f"shape={_shape(node, scene.vectors)}", f"label={_quote(label)}"]
        styles = ["rounded"] if node.cutoff and not node.terminal else []  # cut by depth limit
        if scene.pruned(node):
            attrs += ["color=gray60", "fontcolor=gray45"]
            styles.append("dashed")
        elif scene.reference is not None:
            attrs.append("penwidth=2")
        if styles:
            attrs.append(f'style="{",".join(styles)},filled"')
        if scene.student is not None and node.id in scene.student:
            attrs.append("peripheries=2")
        lines.append(f"  {names[node.id]} [{', '.join(attrs)}];")
    return "\n".join(lines + edges + ["}"]) + "\n"


def _edge(scene: Scene, node: TreeNode, names: dict[str, str]) -> str:
    attrs = []
    label = f"{fmt(node.probability)}" if node.probability is not None else ""
    if node.action is not None and str(node.action) != node.id:
        label = f"{node.action}" + (f" ({label})" if label else "")
    if scene.pruned(node):
        attrs += ["style=dashed", "color=gray60", "fontcolor=gray45"]
        parent = next(n for n in scene.nodes if n.id == node.parent)
        if parent.parent is None or not scene.pruned(parent):  # where the branch was cut
            attrs.append("arrowhead=tee")
            cut = scene.cuts.get(parent.id)
            mark = _cut_text(cut, scene.strict) if cut and cut.children[0] == node.id else "//"
            label = mark + (f" ({label})" if label else "")
    if label:
        attrs.append(f"label={_quote(label)}")
    tail = f" [{', '.join(attrs)}]" if attrs else ""
    return f"  {names[node.parent]} -> {names[node.id]}{tail};"


def run_dot(dot_text: str, fmt_name: str) -> bytes:
    """``dot -T<fmt_name>`` on the text; :class:`GraphvizNotFoundError` when it is missing."""
    program = shutil.which("dot")
    if program is None:
        raise GraphvizNotFoundError(f"Graphviz's `dot` program is not installed (needed for "
                                    f"{fmt_name}): {INSTALL_HINT}")
    # A PNG is scaled down to fit PNG_INCHES at 96 dpi (dot keeps smaller ones as they are):
    # a wide game tree would otherwise be tens of thousands of pixels and megabytes.
    fit = [f"-Gsize={PNG_INCHES[0]},{PNG_INCHES[1]}", "-Gdpi=96"] if fmt_name == "png" else []
    done = subprocess.run([program, f"-T{fmt_name}", *fit], input=dot_text.encode("utf-8"),
                          capture_output=True, timeout=60, check=False)
    if done.returncode != 0:
        raise GraderError(f"dot failed ({done.returncode}): {done.stderr.decode(errors='replace')}")
    return done.stdout


def render_svg(case: Any, algorithm: str | None = None, reference_run: Any = None,
               student_run: Any = None, *, pruning: str | None = None) -> str:
    """The tree as SVG text (for inline HTML): the reference's and the student's runs drawn."""
    scene = build_scene(case, algorithm, reference_run, student_run, pruning=pruning)
    return run_dot(render_dot(scene), "svg").decode("utf-8")








__all__ = ["GraphvizNotFoundError", "Scene", "build_scene", "render_dot",
           "render_svg", "render_text", "run_dot"]
