"""The step-through's lines for a search without MCTS: what each step of a replay shows.

A :class:`Side` is one search's step-through (per step, the lines shown); :class:`TreeIndex`
is the explicit tree as the steps need it. Alpha-beta's steps come from the reference's
recorded window (:func:`window_side`, fed by :func:`reference_moments`); every other search's
from the trace alone (:func:`inferred_side`), with the reference's values so far where known.
MCTS's steps are in :mod:`grader.report.html.mcts`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from grader.compare import describe
from grader.feedback.diagnosis import window_moments
from grader.feedback.drawing import Moment, number, player_name, stored_moments
from grader.feedback.explain import event_text
from grader.games.base import CHANCE, MAX


@dataclass
class Side:
    """One search's step-through: per step 0..N, the lines shown, as indexes into ``lines``
    (each distinct line is stored once: long traces repeat most of them)."""

    ids: list[str]
    rows: list[list[int]] = field(default_factory=list)
    lines: list[list[str]] = field(default_factory=list)
    _seen: dict[tuple[str, str], int] = field(default_factory=dict, repr=False)

    def add(self, lines: list[tuple[str, str]]) -> None:
        self.rows.append([])
        self.extend(len(self.rows) - 1, lines)

    def extend(self, step: int, lines: list[tuple[str, str]]) -> None:
        """More lines at ``step`` (a step already added)."""
        for line in lines:
            if line not in self._seen:
                self._seen[line] = len(self.lines)
                self.lines.append(list(line))
            self.rows[step].append(self._seen[line])

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


def with_search_events(side: Side, moments: list[Any] | None) -> Side:
    """``side`` (the reference's, inferred from its trace) with what its transposition table or
    quiescence search did after each step (the answer key's moments, :mod:`reference.steps_search`):
    a hit, an entry narrowing the window, a store; a stand pat, a quiet node, the noisy moves."""
    for moment in moments or ():
        if moment[0] in ("table", "quiesce") and moment[1] < len(side.rows):
            side.extend(moment[1], [("window", f"then it {event_text(moment)}")])
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


def reference_moments(case: Any, rule: str, ids: list[str], answers: Any) -> list[Moment] | None:
    """The reference alpha-beta's moments under ``rule`` (from the answer key, so the handout
    has them too) when its ``generate`` moments are exactly ``ids``; else None."""
    try:
        raw = window_moments(case, rule, answers)
    except Exception:  # noqa: BLE001 - no replay for this game or rule: no window shown
        raw = None
    if raw is None:
        return None
    moments = stored_moments(raw)  # the key keeps infinities as "+inf" / "-inf" (strict JSON)
    made = [m.children[0] for m in moments if m.kind == "generate"]
    return moments if made == list(ids) else None
