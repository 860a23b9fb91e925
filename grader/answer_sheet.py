"""Answer keys: ``grader solve --key`` prints, in Markdown, everything a TA grades by hand.

For every algorithm the case lists: the root value and move, every node's backed-up value (a
table, for explicit trees), the nodes pruned, the ``generated`` and ``evaluated`` orders, and
for alpha-beta the alpha/beta window at each cut, under both pruning rules (saying when they
agree). The answers come from the reference (:func:`grader.solve.solve`); the windows from
:mod:`reference.replay`, checked against the reference's trace on every use
(:func:`checked_replay`); the backed-up values from :mod:`reference.values`. :func:`walk` and
the formatting helpers also serve :mod:`grader.render`, :mod:`grader.generate` and the HTML
report.

A TA tool: it imports ``reference/`` where it needs it, and without it (the student handout)
raises :class:`ReferenceMissingError`, saying so. ``AlphaBetaReplay``, ``Visit``, ``Cut`` and
``back_up`` can be imported from here; they are :mod:`reference.replay`'s and
:mod:`reference.values`'s, loaded on first use.
"""

from __future__ import annotations

import importlib
import math
import random
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from grader.errors import CaseError, GraderError
from grader.games.base import CHANCE, MAX, MIN
from grader.solve import RULES, mcts_settings, resolve_pruning, solve

WALK_LIMIT = 2000  # nodes: a key's table and a picture are for trees a person can read
SHOWN_IDS = 60  # ids of a long trace printed before "... (N in all)"
SHOWN_CUTS = 30  # rows of a long cut table printed before "... and N more"
RULE_TEXT = {"inclusive": "cut at v >= beta in MAX nodes, v <= alpha in MIN nodes",
             "strict": "cut at v > beta in MAX nodes, v < alpha in MIN nodes; CS188's rule"}
FROM_REFERENCE = {"AlphaBetaReplay": "replay", "Visit": "replay", "Cut": "replay",
                  "back_up": "values"}  # names importable from here, loaded from reference/


class ReferenceMissingError(ImportError):
    """A TA tool needs ``reference/``, and this installation (the handout) has none."""


class TreeTooLargeError(ValueError):
    """The game has more nodes than a table or a picture can show."""


def staff(module: str, needed_for: str) -> ModuleType:
    """``reference.<module>``; :class:`ReferenceMissingError` where ``reference/`` is missing."""
    try:
        return importlib.import_module(f"reference.{module}")
    except ImportError as error:
        raise ReferenceMissingError(f"{needed_for} needs the reference implementations "
                                    "(reference/), which the handout does not include") from error


def __getattr__(name: str) -> Any:
    """The names of :data:`FROM_REFERENCE`, imported from ``reference/`` on first use."""
    if name in FROM_REFERENCE:
        return getattr(staff(FROM_REFERENCE[name], f"grader.answer_sheet.{name}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@dataclass
class TreeNode:
    """One occurrence of a state in the search tree (a shared state occurs once a parent)."""

    id: str
    player: Any  # MAX / MIN / a player index / CHANCE; at a leaf, whoever would move
    depth: int
    parent: str | None
    action: Any = None  # the move from the parent
    probability: float | None = None  # the chance of this outcome, under a chance node
    terminal: bool = False
    cutoff: bool = False  # terminal, or at the depth limit: the search evaluates it
    value: Any = None  # the exact backed-up value (minimax / expectimax / max^n)
    children: list[str] = field(default_factory=list)
    repeat: bool = False  # a shared state met before: its subtree is listed at its first place


def walk(game: Any, limit: int = WALK_LIMIT, *, values: bool = True) -> list[TreeNode]:
    """Every node the full search (no pruning) reaches, in search order (children in
    ``actions`` / outcome order), a shared state expanded at its first occurrence only.

    ``values``: every node gets its exact backed-up value, by :func:`reference.values.back_up`
    (:class:`ReferenceMissingError` without ``reference/``); else only the leaves (cutoffs) get
    theirs, ``game.evaluate``. Raises :class:`TreeTooLargeError` past ``limit`` nodes.
    """
    back_up = staff("values", "the tree's backed-up values").back_up if values else None
    nodes: list[TreeNode] = []
    first: dict[str, TreeNode] = {}

    def visit(state: Any, depth: int, parent: str | None, action: Any, p: float | None) -> TreeNode:
        if len(nodes) >= limit:
            raise TreeTooLargeError(f"the game tree has more than {limit} nodes")
        node = TreeNode(game.state_id(state), game.to_move(state), depth, parent, action, p,
                        game.is_terminal(state), game.is_cutoff(state, depth))
        nodes.append(node)
        if node.id in first:
            node.repeat, node.value = True, first[node.id].value
            return node
        first[node.id] = node
        if node.cutoff:
            node.value = game.evaluate(state)
            return node
        moves = (game.chance_outcomes(state) if node.player == CHANCE
                 else [(a, None) for a in game.actions(state)])
        children = [visit(game.result(state, a), depth + 1, node.id, a, q) for a, q in moves]
        node.children = [child.id for child in children]
        if back_up is not None:
            node.value = back_up(node.player, [c.value for c in children], [q for _, q in moves])
        return node

    visit(game.initial_state(), 0, None, None, None)
    return nodes


def checked_replay(case: Any, pruning: str, reference: Any = None) -> Any:
    """The alpha-beta replay (:class:`reference.replay.AlphaBetaReplay`) of ``case`` under
    ``pruning``, its trace checked against the reference's run (``reference``, else solved)."""
    replay = staff("replay", "the alpha-beta replay").AlphaBetaReplay(case.build_game(), pruning)
    reference = reference or solve(case, "alpha_beta", pruning=pruning)
    if (replay.generated, replay.evaluated) != (reference.generated, reference.evaluated):
        raise GraderError(f"the alpha-beta replay ({pruning}) disagrees with "
                          f"reference/alpha_beta.py on {case.name!r}: update "
                          "reference/replay.py to follow the reference")
    return replay


# --- formatting -------------------------------------------------------------------------------


def fmt(value: Any) -> str:
    """A value as a person writes it: ``3``, ``8.8``, ``-inf``, ``(1, 2, 6)``."""
    if isinstance(value, (tuple, list)):
        return "(" + ", ".join(fmt(v) for v in value) + ")"
    if isinstance(value, float):
        if math.isinf(value):
            return "+inf" if value > 0 else "-inf"
        return f"{value:.10g}"
    return str(value)


def player_name(node: TreeNode, vectors: bool) -> str:
    if node.cutoff:
        return "leaf" if node.terminal else "cutoff"
    if node.player == CHANCE:
        return "chance"
    if vectors:
        return f"P{node.player}"
    return {MAX: "MAX", MIN: "MIN"}.get(node.player, str(node.player))


def id_list(ids: list[str]) -> str:
    if not ids:
        return "(none)"
    shown = " ".join(ids[:SHOWN_IDS])
    return f"`{shown}`" + (f" ... ({len(ids)} in all)" if len(ids) > SHOWN_IDS else "")


def pruned_tops(nodes: list[TreeNode], generated: list[str]) -> tuple[list[str], int]:
    """The roots of the pruned subtrees (in tree order), and how many nodes were pruned in all."""
    seen = set(generated) | {nodes[0].id}
    pruned = {n.id for n in nodes if n.id not in seen}
    parents = {n.id: n.parent for n in nodes if not n.repeat}
    tops = [i for i in dict.fromkeys(n.id for n in nodes) if i in pruned
            and parents[i] not in pruned]
    return tops, len(pruned)


def positions(generated: list[str]) -> dict[str, list[int]]:
    """Each id's 1-based positions in ``generated`` (a shared state may be generated twice)."""
    orders: dict[str, list[int]] = {}
    for position, node_id in enumerate(generated, 1):
        orders.setdefault(node_id, []).append(position)
    return orders


def _table(nodes: list[TreeNode], vectors: bool, generated: list[str],
           replay: Any = None) -> list[str]:
    chance = any(n.probability is not None for n in nodes)
    named = any(n.action is not None and n.action != n.id for n in nodes)
    head = ["node", "player", "depth"] + (["move"] if named else []) + (["p"] if chance else [])
    head += ["value", "generated #"] + (["window on entry", "returned"] if replay else [])
    lines = [_row(head), "|" + " --- |" * len(head)]
    orders, entered = positions(generated), {}
    for visit in replay.visits if replay else ():
        entered.setdefault(visit.id, visit)
    root = nodes[0].id
    for node in nodes:
        if node.repeat:
            continue
        searched = node.id == root or node.id in orders
        row = [node.id, player_name(node, vectors), str(node.depth)]
        row += [str(node.action or "")] if named else []
        row += [fmt(node.probability) if node.probability is not None else ""] if chance else []
        row += [fmt(node.value), ", ".join(map(str, orders.get(node.id, [])))
                or ("root" if node.id == root else "pruned")]
        if replay:
            visit = entered.get(node.id)
            row += ([f"({fmt(visit.alpha)}, {fmt(visit.beta)})",
                     f"{visit.bound()}{fmt(visit.returned)}"] if visit and searched else ["", ""])
        lines.append(_row(row))
    return lines


def _row(cells: list[str]) -> str:
    """A Markdown table row; a ``|`` inside a cell (tic-tac-toe ids) is escaped."""
    return "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |"


def _cut_table(cuts: list[Cut], strict: bool) -> list[str]:
    if not cuts:
        return ["Cuts: none."]
    lines = ["| # | at node | player | depth | v | window (alpha, beta) | test | pruned |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for number, cut in enumerate(cuts[:SHOWN_CUTS], 1):
        sign = (">" if cut.player == MAX else "<") + ("" if strict else "=")
        bound = f"beta {fmt(cut.beta)}" if cut.player == MAX else f"alpha {fmt(cut.alpha)}"
        test = f"{fmt(cut.value)} {sign} {bound}" + (
            " (equal)" if cut.value == (cut.beta if cut.player == MAX else cut.alpha) else "")
        lines.append(_row([str(number), cut.id, "MAX" if cut.player == MAX else "MIN",
                           str(cut.depth), fmt(cut.value), f"({fmt(cut.alpha)}, {fmt(cut.beta)})",
                           test, ", ".join(cut.pruned)]))
    if len(cuts) > SHOWN_CUTS:
        lines.append(f"... and {len(cuts) - SHOWN_CUTS} more cuts.")
    return lines


def _run_lines(result: Any, nodes: list[TreeNode] | None, show_pruned: bool) -> list[str]:
    lines = [f"- Root value: **{fmt(result.value)}**"]
    if result.action is not None and not isinstance(result.value, str):
        lines.append(f"- Root move: **{result.action}**")
    if nodes is not None and show_pruned:
        tops, count = pruned_tops(nodes, result.generated)
        lines.append("- Pruned: " + (f"{', '.join(tops)} ({count} node"
                                     f"{'s' if count != 1 else ''} in all, subtrees included)"
                                     if tops else "none"))
    lines.append(f"- Generated ({len(result.generated)}): {id_list(result.generated)}")
    lines.append(f"- Evaluated ({len(result.evaluated)}): {id_list(result.evaluated)}")
    return lines


def _alpha_beta_section(case: Any, nodes: list[TreeNode] | None, graded: str) -> list[str]:
    runs = {rule: solve(case, "alpha_beta", pruning=rule) for rule in RULES}
    replays = {rule: checked_replay(case, rule, runs[rule]) for rule in RULES}
    inclusive, strict = runs["inclusive"], runs["strict"]
    agree = (inclusive.generated, inclusive.evaluated) == (strict.generated, strict.evaluated)
    lines = [f"Graded with the **{graded}** rule." if graded in RULES
             else "Graded with **either** rule (the case accepts both traces)."]
    if agree:
        lines.append("The inclusive and strict rules **agree** on this case: one answer below.")
        rules = ["inclusive"]
    else:
        step = next((i for i, (a, b) in enumerate(zip(inclusive.generated, strict.generated))
                     if a != b), min(len(inclusive.generated), len(strict.generated)))
        lines.append(f"The inclusive and strict rules **differ**: `generated` parts at step "
                     f"{step + 1}.")
        rules = list(RULES)
    for rule in rules:
        title = "both rules" if agree else f"{rule} rule ({RULE_TEXT[rule]})"
        lines += ["", f"### alpha_beta, {title}", ""]
        lines += _run_lines(runs[rule], nodes, True) + [""]
        lines += _cut_table(replays[rule].cuts, rule == "strict")
        if nodes is not None:
            lines += [""] + _table(nodes, False, runs[rule].generated, replays[rule])
    return lines


def _mcts_lines(case: Any) -> list[str]:
    from reference import mcts_tree

    settings = mcts_settings(case)
    game = case.build_game()
    root = mcts_tree(game, game.initial_state(), settings.iterations,
                     random.Random(settings.seed), settings.c)
    visits = ", ".join(f"{child.action}: {child.n}" for child in root.children)
    return [(f"Iterations {settings.iterations}, seed {settings.seed}, c {fmt(settings.c)}; "
             f"visits of the root's moves: {visits or '(none)'}.")]


def answer_key(case: Any, rubric: Any = None) -> str:
    """The case's answer key in Markdown (see the module docstring)."""
    game = case.build_game()
    vectors = case.vector_values
    try:
        nodes = walk(game) if case.form != "game" else None
    except TreeTooLargeError:
        nodes = None
    where = f" (`{Path(case.path).name}`)" if case.path else ""  # no folder: keys move
    limit = case.depth_limit if case.depth_limit is not None else "none"
    lines = [f"# Answer key: {case.name}{where}", "", case.description, "",
             f"Players: {case.players}; depth limit: {limit}."]
    if nodes is None:
        lines.append("(A built-in game or a large tree: no node table.)")
    for algorithm in case.algorithms:
        lines += ["", f"## {algorithm}", ""]
        if algorithm == "alpha_beta":
            graded = ("either" if case.pruning == "either"
                      else resolve_pruning(case, algorithm, None, rubric))
            lines += _alpha_beta_section(case, nodes, graded)
            continue
        result = solve(case, algorithm)
        if algorithm == "mcts":
            lines += _mcts_lines(case) + [f"- Chosen move: **{fmt(result.value)}**"]
            lines += _run_lines(result, None, False)[1:]
            continue
        prunes = (algorithm == "expectimax" and case.value_bounds is not None) or (
            algorithm == "maxn" and case.max_sum is not None)
        lines += _run_lines(result, nodes, prunes)
        if not prunes:
            lines.append(f"- ({algorithm} prunes nothing: every node within the depth limit.)")
        elif algorithm == "expectimax":
            lines.append(f"- (Star1 pruning: every leaf value in {list(case.value_bounds)}.)")
        else:
            lines.append(f"- (Shallow pruning: payoffs sum to at most {fmt(case.max_sum)}.)")
        if nodes is not None:
            lines += [""] + _table(nodes, vectors, result.generated)
    return "\n".join(lines) + "\n"


def key_main(case_path: str | Path, *, out: Any = None) -> int:
    """``grader solve CASE --key``: print the answer key; 0, or 2 for a bad case."""
    from grader.cases import load_case
    from grader.rubric import RubricError, load_rubric

    out = out or sys.stdout
    try:
        case = load_case(case_path)
        text = answer_key(case, load_rubric())
    except (CaseError, RubricError, ValueError, OSError) as error:
        where = "" if isinstance(error, CaseError) else f"{case_path}: "  # CaseError names it
        print(f"grader solve --key: {where}{error}", file=sys.stderr)
        return 2
    print(text, end="", file=out)
    return 0


__all__ = ["AlphaBetaReplay", "Cut", "TreeNode", "TreeTooLargeError", "Visit", "answer_key",
           "back_up", "checked_replay", "fmt", "key_main", "player_name", "positions",
           "pruned_tops", "walk"]
