"""Answer keys: ``grader solve --key`` prints, in Markdown, everything a TA grades by hand.

For every algorithm the case lists: the root value and move, every node's backed-up value (a
table, for explicit trees), the nodes pruned, the ``generated`` and ``evaluated`` orders, and
for alpha-beta the alpha/beta window at each cut, under both pruning rules (saying when they
agree). The answers come from the reference (:func:`grader.answers.solve.solve`), the windows from
its replay (:mod:`reference.replay`, checked against the reference's trace on every use:
:func:`checked_replay`), the tree and its values from :func:`grader.answers.tree_walk.walk`.

A TA tool: without ``reference/`` (the student handout) it fails with a message saying so.
``AlphaBetaReplay``, ``Visit``, ``Cut`` and ``back_up`` may be imported from here: they are
``reference/``'s, loaded on first use (:data:`FROM_REFERENCE`); the tree helpers
(:func:`walk`, :func:`fmt`, ...) are :mod:`grader.answers.tree_walk`'s.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import grader.algorithms as algorithm_specs
from grader.algorithms.alpha_beta import ALGORITHM as ALPHA_BETA
from grader.algorithms.mcts import ALGORITHM as MCTS
from grader.answers.solve import RULES, mcts_settings, optimal_actions, resolve_pruning, solve
from grader.answers.tree_walk import (
    ReferenceMissingError,
    TreeNode,
    TreeTooLargeError,
    fmt,
    player_name,
    positions,
    pruned_tops,
    staff,
    walk,
)
from grader.cases.algorithms import PLAY_ALGORITHMS
from grader.cases.rubric import rubric_from_dict
from grader.cases.rules import NOISY_ALGORITHMS
from grader.errors import GraderError
from grader.games.base import MAX

SHOWN_IDS = 60  # ids of a long trace printed before "... (N in all)"
SHOWN_CUTS = 30  # rows of a long cut table printed before "... and N more"
RULE_TEXT = {"inclusive": "cut at v >= beta in MAX nodes, v <= alpha in MIN nodes",
             "strict": "cut at v > beta in MAX nodes, v < alpha in MIN nodes; CS188's rule"}
FROM_REFERENCE = {"AlphaBetaReplay": "replay", "Visit": "replay", "Cut": "replay",
                  "back_up": "values"}  # names importable from here, loaded from reference/


def __getattr__(name: str) -> Any:
    """The names of :data:`FROM_REFERENCE`, imported from ``reference/`` on first use."""
    if name in FROM_REFERENCE:
        return getattr(staff(FROM_REFERENCE[name], f"grader.answers.sheet.{name}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def checked_replay(case: Any, pruning: str, reference: Any = None) -> Any:
    """The alpha-beta replay (:class:`reference.replay.AlphaBetaReplay`) of ``case`` under
    ``pruning``, its trace checked against the reference's run (``reference``, else solved)."""
    replay = staff("replay", "the alpha-beta replay").AlphaBetaReplay(case.build_game(), pruning)
    reference = reference or solve(case, ALPHA_BETA.name, pruning=pruning)
    if (replay.generated, replay.evaluated) != (reference.generated, reference.evaluated):
        raise GraderError(f"the alpha-beta replay ({pruning}) disagrees with "
                          f"reference/alpha_beta.py on {case.name!r}: update "
                          "reference/replay.py to follow the reference")
    return replay


# --- formatting -------------------------------------------------------------------------------


def id_list(ids: list[str]) -> str:
    if not ids:
        return "(none)"
    shown = " ".join(ids[:SHOWN_IDS])
    return f"`{shown}`" + (f" ... ({len(ids)} in all)" if len(ids) > SHOWN_IDS else "")


def _table(nodes: list[TreeNode], vectors: bool, generated: list[str],
           replay: Any = None) -> list[str]:
    chance = any(n.probability is not None for n in nodes)
    named = any(n.action is not None and n.action != n.id for n in nodes)
    head = ["node", "player", "depth"] + (["move"] if named else []) + (["p"] if chance else [])
    head += ["value", "generated #"] + (["window on entry", "returned"] if replay else [])
    lines = [_row(head), "|" + " --- |" * len(head)]
    orders, entered = positions(generated), {}
    for visit in replay.visits if replay else ():
        entered.setdefault(visit.id, []).append(visit)
    root = nodes[0].id
    for node in nodes:
        if node.repeat:
            continue
        searched = node.id == root or node.id in orders
        row = [node.id, player_name(node, vectors), str(node.depth)]
        row += [str(node.action or "")] if named else []
        row += [fmt(node.probability) if node.probability is not None else ""] if chance else []
        numbers = orders.get(node.id, [])
        visits = entered.get(node.id, []) if searched else []
        if not replay or len(visits) <= 1:
            row += [fmt(node.value), ", ".join(map(str, numbers))
                    or ("root" if node.id == root else "pruned")]
            if replay:
                row += ([f"({fmt(visits[0].alpha)}, {fmt(visits[0].beta)})",
                         f"{visits[0].bound()}{fmt(visits[0].returned)}"] if visits else ["", ""])
            lines.append(_row(row))
            continue
        # A shared state alpha-beta searched more than once: one row a visit, each with its
        # own window (the k-th visit is the k-th time it was generated).
        for k, visit in enumerate(visits):
            cells = row if k == 0 else [f"{node.id} (again)", "", str(visit.depth)] + (
                [""] * (len(row) - 3))
            number = str(numbers[k]) if k < len(numbers) else "root"
            lines.append(_row(cells + [fmt(node.value) if k == 0 else "", number,
                                       f"({fmt(visit.alpha)}, {fmt(visit.beta)})",
                                       f"{visit.bound()}{fmt(visit.returned)}"]))
    return lines


def _row(cells: list[str]) -> str:
    """A Markdown table row; a ``|`` inside a cell (tic-tac-toe ids) is escaped."""
    return "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |"


def _cut_table(cuts: list[Any], strict: bool) -> list[str]:
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
    runs = {rule: solve(case, ALPHA_BETA.name, pruning=rule) for rule in RULES}
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


def _mcts_lines(case: Any, algorithm: str, rubric: Any) -> list[str]:
    # reference/ names its MCTS module after the algorithm (reference/mcts.py)
    mcts_tree = staff(MCTS.name, "the key's MCTS statistics").mcts_tree
    settings = mcts_settings(case)
    game = case.build_game()
    root = mcts_tree(game, game.initial_state(), settings.iterations,
                     random.Random(settings.seed), settings.c)
    visits = ", ".join(f"{child.action}: {child.n}" for child in root.children)
    lines = [(f"Iterations {settings.iterations}, seed {settings.seed}, c {fmt(settings.c)}; "
              f"visits of the root's moves: {visits or '(none)'}.")]
    optimal = optimal_actions(case)
    lines.append("- Optimal moves (exact game value, what an `outcome` check accepts): "
                 + (", ".join(f"**{action}**" for action in optimal) or "(none)"))
    rules = (rubric or rubric_from_dict({})).settings_for(case, algorithm)
    seeds = range(settings.seed, settings.seed + rules.outcome_seeds)
    found = sum(solve(case, algorithm, seed=seed).value in optimal for seed in seeds)
    lines.append(f"- Seeds {seeds.start}-{seeds.stop - 1}: {found} of {len(seeds)} choose an "
                 f"optimal move ({found / len(seeds):.0%}; an `outcome` check needs "
                 f"{rules.outcome_share:.0%})")
    return lines


def play_lines(case: Any, algorithm: str, rubric: Any) -> list[str]:
    """How an ``evaluate`` case plays and scores: there is no reference answer to show."""
    rubric = rubric or rubric_from_dict({})
    rules, play = rubric.play, case.play
    matches = play.matches or rules.matches
    depth = play.depth or rules.depth
    opening = rules.opening if play.opening is None else play.opening
    thresholds = ", ".join(fmt(t) for t in rules.thresholds_for(play.opponent))
    points = rubric.settings_for(case, algorithm).points
    first = play.seed * 1000
    return [
        "Graded by play, not against a reference answer: no value or trace to check by hand.",
        (f"- Opponent: **{play.opponent}**; {matches} matches (seeds "
         f"{first}-{first + matches - 1}), the student's side x in half of them."),
        (f"- Each match opens with {opening} random plies; the staff's search looks {depth} "
         "plies ahead and calls the student's `evaluate` at its cutoff."),
        (f"- Points: {fmt(rules.threshold_points)} at each of {thresholds} wins (a draw counts "
         f"{fmt(rules.draw_weight)}), {fmt(points)} in all." if rules.by_wins else
         f"- Points: {fmt(rules.threshold_points)} at each score-rate step {thresholds} (a "
         f"side's wins, a draw counting {fmt(rules.draw_weight)}, over its matches), half for "
         f"each side, x and o, whose rate reaches it; {fmt(points)} in all."),
    ]


def assumption_lines(case: Any, algorithm: str, rubric: Any) -> list[str]:
    """How an ``assumptions`` case plays, and the reference's 2 x 2 table on its matches."""
    from grader.algorithms.assumptions import table_text
    from reference.assumptions import reference_table

    rubric = rubric or rubric_from_dict({})
    settings, rules = case.assumptions, rubric.assumptions
    matches, depth = settings.matches or rules.matches, settings.depth or rules.depth
    turns = int((case.params or {}).get("turns", 20))
    game = case.build_game()
    board = game.state_id(game.initial_state())
    function = " / ".join(algorithm_specs.registry()[settings.algorithm].stubs)
    first = settings.seed * 1000
    table = reference_table(board, turns, settings.seed, matches, depth, rules.ghost_depth,
                            list(settings.opponents))
    return [
        "Graded by exact decisions in matches, not by one value or trace.",
        (f"- Agent: **{settings.agent}**, each action's value from the student's `{function}` "
         f"on the child ({depth} plies ahead); every move must be the reference's."),
        (f"- Ghosts: {', '.join(settings.opponents)}; {matches} matches each (seeds "
         f"{first}-{first + matches - 1}), the adversarial ghost searching {rules.ghost_depth} "
         f"plies; at most {turns} agent moves a match."),
        f"- Points: {fmt(rubric.settings_for(case, algorithm).points)} when every move "
        "agrees, else 0.",
        "", "The reference's table on these matches (the lectures' 2 x 2):", "",
        table_text(table),
    ]


def answer_key(case: Any, rubric: Any = None) -> str:
    """The case's answer key in Markdown (see the module docstring)."""
    staff(None, "the answer key")  # fail here, clearly, in the handout
    game = case.build_game()
    vectors = case.vector_values
    try:
        nodes = (walk(game, quiescence=any(a in NOISY_ALGORITHMS for a in case.algorithms))
                 if case.form != "game" else None)
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
        if algorithm in PLAY_ALGORITHMS:  # its own words on how it plays, or none
            words = algorithm_specs.get(algorithm).sheet_lines
            lines += algorithm_specs.resolve(words)(case, algorithm, rubric) if words else []
            continue
        if algorithm_specs.get(algorithm).window:
            graded = ("either" if case.pruning == "either"
                      else resolve_pruning(case, algorithm, None, rubric))
            lines += _alpha_beta_section(case, nodes, graded)
            continue
        result = solve(case, algorithm)
        if algorithm_specs.get(algorithm).iterations:
            seed = mcts_settings(case).seed
            lines += _mcts_lines(case, algorithm, rubric) + [f"- Chosen move (seed {seed}): "
                                                  f"**{fmt(result.value)}**"]
            lines += [line for line in _run_lines(result, None, False)[1:]
                      if not line.startswith("- Root move")]  # the chosen move, said above
            continue
        note = algorithm_specs.get(algorithm).sheet_note  # its own words, or none
        prunes, words = note(case, result, solve, fmt) if note is not None else (False, [])
        lines += _run_lines(result, nodes, prunes) + words
        if nodes is not None:
            lines += [""] + _table(nodes, vectors, result.generated)
    return "\n".join(lines) + "\n"




# FROM_REFERENCE's names are not listed: a star import would need reference/.
__all__ = ["FROM_REFERENCE", "ReferenceMissingError", "TreeNode", "TreeTooLargeError",
           "answer_key", "checked_replay", "fmt", "player_name", "positions",
           "pruned_tops", "walk"]
