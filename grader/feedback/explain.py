"""The step explanation at the first difference, for minimax, expectimax (Star1), max^n, MCTS,
alpha-beta with a transposition table, quiescence search and iterative deepening.

Alpha-beta's is the window sentence of :func:`grader.feedback.drawing.window_note`; this module
does the same for the other algorithms, from the reference's moments (:mod:`reference.steps`,
kept in the answer key as ``steps:<algorithm>`` by :func:`cached_steps`, so the handout shows
them without ``reference/``):

* minimax and plain expectimax: the node where the searches part, with the values backed up
  there so far (a chance node's running sum ``S``), and what the reference generated next;
* Star1: at a chance node ``S``, ``R``, ``L``, ``U`` and the window, the two bounds
  ``S + U*R`` and ``S + L*R`` against alpha and beta, and why the reference stopped or went on;
  at a MAX/MIN node the window and ``v``;
* max^n: the mover, its best vector so far (and a tie that kept the first child), and the
  shallow-pruning bound ``max_sum - parent's best`` at that node, or why there is none;
* MCTS: the iteration, each selection level's children with their ``n``, ``w`` and UCB1, the
  expansion chosen, and the playout's utility with the reward each node on the path got;
* ``alpha_beta_tt`` and ``quiescence`` (:mod:`reference.steps_search`): what the reference's
  table did just before the step (a hit answering a node, an entry narrowing the window or
  ignored as searched shallower, a store and why it is a bound or exact) or its quiescence
  search (stand pat, a stand-pat cut, a quiet node, the quiescence limit, the noisy moves
  searched), then the node and window where it generates its next child;
* iterative deepening (:class:`reference.deepening.DeepeningReplay`): the iteration (depth
  limit) the step is in, the root order that iteration searches and why (the previous
  iteration's values, best first for the root's mover), then alpha-beta's window sentence
  (:func:`window_sentence`, which :func:`grader.feedback.drawing.window_note` says too). Its
  window follows the course's rule, so the key keeps one replay a rule
  (``steps:<algorithm>:<rule>``).
"""

from __future__ import annotations

import math
from typing import Any

import grader.algorithms as algorithm_specs
from grader.compare import describe, diff_sequence
from grader.errors import GraderError
from grader.feedback.markdown import inline_text
from grader.files import json_safe

MAX_LISTED = 6  # children or path nodes quoted at most
# How a spec's moments are worded (its ``step_notes``): the values backed up at a tree node, an
# MCTS iteration, table or quiescence events, an iteration of iterative deepening (its root
# order and the alpha-beta window). A spec without one gets no step note.
NOTES = ("tree", "playouts", "search", "deepening")
EVENTS_LISTED = 4  # table or quiescence events quoted before the step at most


def number(value: float) -> str:
    """A window bound or value: infinities as ``+∞`` / ``−∞``."""
    if isinstance(value, float) and math.isinf(value):
        return "+∞" if value > 0 else "−∞"
    return describe(value)


def _some(ids: list[str], most: int = 3) -> str:
    return ", ".join(ids[:most]) + (f" and {len(ids) - most} more" if len(ids) > most else "")


def window_sentence(step: int, kind: str, node: str, is_max: bool, alpha: float, beta: float,
                    v: float, children: list[str], strict: bool) -> str:
    """The reference's alpha-beta at ``step`` (0-based) in one sentence: the node, its window
    and ``v``, and the cut it makes or the child it generates next (a moment of
    :mod:`reference.replay`; :func:`grader.feedback.drawing.window_note` and iterative
    deepening's note both say it this way)."""
    who = f"{node} ({'MAX' if is_max else 'MIN'})"
    window = f"α = {number(alpha)}, β = {number(beta)}"
    bound = f"β = {number(beta)}" if is_max else f"α = {number(alpha)}"
    shown_v = f"v = {number(v)}"
    if kind == "cut":
        sign = (">" if strict else "≥") if is_max else ("<" if strict else "≤")
        return (f"At step {step + 1} the reference is at {who} with {window}: {shown_v} {sign} "
                f"{bound}, so it stops there and prunes {_some(children)}.")
    sign = ("≤" if strict else "<") if is_max else ("≥" if strict else ">")
    return (f"At step {step + 1} the reference is at {who} with {window} and {shown_v} so far: "
            f"v {sign} {bound.split(' = ')[0]}, no cut, so it generates {children[0]} next.")


def _num(value: Any) -> str:
    if value in ("+inf", "-inf"):
        return "+∞" if value == "+inf" else "−∞"
    if isinstance(value, float):
        if value != value or abs(value) == float("inf"):
            return describe(value)
        return describe(round(value, 4))
    return describe(value)


def _float(value: Any) -> float:
    return float(value.replace("+inf", "inf")) if isinstance(value, str) else float(value)


def cached_steps(case: Any, algorithm: str, rule: str, answers: Any) -> list[Any] | None:
    """The reference's moments on ``case`` from ``answers`` (computed where ``reference/`` is,
    by the replay its spec names, :mod:`grader.algorithms`); None for an algorithm whose spec
    has no step replay (alpha-beta: its window has its own moments; one without notes: never
    another algorithm's replay) or where none can be computed."""
    spec = algorithm_specs.get(algorithm)
    if spec.steps is None or spec.step_notes not in NOTES:
        return None

    def compute() -> list[Any] | None:
        from grader.answers.solve import mcts_settings

        replay = algorithm_specs.resolve(spec.steps)
        settings = mcts_settings(case) if spec.iterations else None
        if spec.course_rule:  # its window follows the course's rule: one replay a rule
            return json_safe(replay(case.build_game(), settings, strict=rule == "strict"))
        return json_safe(replay(case.build_game(), settings))

    key = f"steps:{algorithm}:{rule}" if spec.course_rule else f"steps:{algorithm}"
    try:
        return answers.extra(case, key, compute)
    except GraderError:
        return None
    except (ValueError, TypeError):  # a game the algorithm cannot take: no explanation
        return None


def step_note(case: Any, algorithm: str, rule: str, expected: Any, got: Any,
              answers: Any, *, stopped: bool = False) -> str | None:
    """The sentence(s) explaining the reference's step at the first difference of
    ``generated``; None when the sequences agree or the moments are not available."""
    diff = diff_sequence("generated", list(expected.generated), list(got.generated))
    if diff.equal:
        return None
    moments = cached_steps(case, algorithm, rule, answers)
    if not moments:
        return None
    step = diff.first_difference
    replay_end = next((m[1] for m in moments if m[0] == "stopped"), None)
    if replay_end is not None and step >= replay_end - 1:
        return None  # past where the stored replay stops: nothing known to explain
    yours = got.generated[step] if step < len(got.generated) else None
    style = algorithm_specs.get(algorithm).step_notes
    if style == "playouts":
        text = _mcts_note(moments, step)
    elif style == "search":
        text = _search_note(moments, step)
    elif style == "deepening":
        text = _deepening_note(moments, step, yours, rule == "strict")
    else:  # "tree": cached_steps gave moments for no other style
        text = _tree_note(moments, step, yours, algorithm, case)
    if text is None:
        return None
    return with_yours(text, got.generated, step, stopped=stopped)


def with_yours(note: str, generated: list[str], step: int, *, stopped: bool = False) -> str:
    """``note``, the reference's step at the first difference ``step`` (this module's, or
    alpha-beta's window), followed by what the student's ``generated`` has there: its id, or how
    it ended before it (a stop only when the work budget stopped the search: ``stopped``)."""
    if step < len(generated):
        return note + f" Yours generated {inline_text(generated[step])}."  # a forged id: inert
    if stopped:
        return note + " Your search had stopped."
    return note + f" Yours had made no more `result` calls: it returned after {len(generated)}."


def _mover(mover: Any, algorithm: str) -> str:
    vectors = algorithm_specs.get(algorithm).games.vector_leaves  # players are numbers
    return f"player {mover}" if vectors else str(mover)


def _seen(seen: list[Any]) -> str:
    parts = []
    for child, value, p in seen[-MAX_LISTED:]:
        weight = f" (p = {_num(p)})" if p is not None else ""
        parts.append(f"{child} = {_num(value)}{weight}")
    more = f"{len(seen) - MAX_LISTED} more, " if len(seen) > MAX_LISTED else ""
    return more + ", ".join(parts)


def _tree_note(moments: list[Any], step: int, yours: str | None, algorithm: str,
               case: Any) -> str | None:
    cuts = [m for m in moments if m[0] == "cut" and m[1] == step]
    moment = next((m for m in cuts if yours in m[5]), cuts[0] if cuts else None)
    if moment is None:
        moment = next((m for m in moments if m[0] == "generate" and m[1] == step), None)
    if moment is None:
        return (f"At step {step + 1} the reference had finished: it generated {step} nodes "
                "in all.")
    kind, _, node, mover, seen, children, facts = moment
    where = f"At step {step + 1} the reference is at {node} ({_mover(mover, algorithm)})"
    backed = (f", with the values backed up there so far: {_seen(seen)}" if seen
              else ", before any of its children")
    if algorithm_specs.get(algorithm).games.vector_leaves:
        reason = _maxn_reason(kind, mover, seen, facts)
    elif mover == "CHANCE" and "R" in facts:
        reason = _star1_chance_reason(kind, seen, facts)
    elif "alpha" in facts:
        reason = _star1_window_reason(kind, mover, facts)
    elif mover == "CHANCE":
        reason = f"S = {_num(facts.get('S', 0))} so far" if seen else ""
    else:
        reason = ""
    reason = f" {reason}" if reason else ""
    if kind == "cut":
        pruned = ", ".join(children[:MAX_LISTED]) + (" ..." if len(children) > MAX_LISTED else "")
        return f"{where}{backed}.{reason} So it stops there and skips {pruned}."
    return f"{where}{backed}.{reason} It generates {children[0]} next."


def _window(alpha: Any, beta: Any) -> str:
    return f"({_num(alpha)}, {_num(beta)})"


def event_text(moment: list[Any]) -> str:
    """One table look-up or store, or one quiescence step, in words."""
    kind, _, node, mover, _, _, facts = moment
    what = facts["what"]
    if kind == "table":
        value, bound, searched = facts["entry"]
        entry = f"({_num(value)}, {bound}, searched {_num(searched)})"
        if what == "store":
            reason = {"upper": f"v ≤ α = {_num(facts['alpha'])} as its loop started",
                      "lower": f"v ≥ β = {_num(facts['beta'])} as its loop started",
                      "exact": f"inside the window {_window(facts['alpha'], facts['beta'])}"
                      }[bound]
            return f"stored {node} = {_num(value)} as `{bound}` ({reason}): {entry}"
        looked = f"looked {node} up and found {entry}, {_num(facts['needed'])} plies needed"
        if what == "shallow":
            return looked + ": searched shallower, so ignored, and it searches " + node
        if what == "hit" and bound == "exact":
            return looked + f": it answers {node} = {_num(value)}, no child generated"
        alpha, beta = facts["now"]
        change = (f"raises α to {_num(alpha)}" if bound == "lower"
                  else f"lowers β to {_num(beta)}")
        if what == "hit":
            return (looked + f": it {change}, the window {_window(alpha, beta)} closes, so "
                    f"{node} = {_num(value)} with no child generated")
        return looked + f": it {change}, the window {_window(alpha, beta)} stays open, so it " \
            f"searches {node}"
    stand, depth = _num(facts["stand"]), facts["depth"]
    if what == "terminal":
        return f"scored {node} (terminal): {stand}"
    if what == "quiet":
        return f"stood pat at {node} (depth {depth}, at or past the depth limit, quiet): {stand}"
    if what == "horizon":
        return (f"stood pat at {node}: depth {depth} is the quiescence limit "
                f"({facts['horizon']}), so it returns its evaluation {stand}")
    if what == "stand_cut":
        test = (f"{stand} ≥ β = {_num(facts['beta'])}" if mover == "MAX"
                else f"{stand} ≤ α = {_num(facts['alpha'])}")
        return (f"stood pat at {node} (not quiet): its evaluation {test}, so it returns "
                f"{stand} without a noisy move")
    alpha, beta = facts["now"]
    change = f"α = {_num(alpha)}" if mover == "MAX" else f"β = {_num(beta)}"
    noisy = ", ".join(facts.get("noisy", [])[:MAX_LISTED]) or "none"
    return (f"found {node} not quiet (depth {depth}): stand pat {stand} sets {change}, and "
            f"only its noisy moves are searched: {noisy}")


def _search_note(moments: list[Any], step: int) -> str | None:
    """The table's or the quiescence search's events just before the reference's step, then
    the step itself."""
    events = [m for m in moments if m[0] in ("table", "quiesce") and m[1] == step]
    said = [event_text(m) for m in events[-EVENTS_LISTED:]]
    more = len(events) - len(said)
    before = ""
    if said:
        before = (f"Before its step {step + 1} the reference "
                  + ("" if not more else f"({more} earlier events not shown) ")
                  + "; ".join(said) + ". ")
    moment = next((m for m in moments if m[0] == "generate" and m[1] == step), None)
    if moment is None:
        return before + (f"At step {step + 1} the reference had finished: it generated {step} "
                         "nodes in all.")
    _, _, node, mover, seen, children, facts = moment
    where = (f"At step {step + 1} it is at {node} ({mover}), window "
             f"{_window(facts['alpha'], facts['beta'])}, v = {_num(facts['v'])}")
    backed = f", its children so far: {_seen(seen)}" if seen else ""
    noisy = (" (past the depth limit: a noisy move, the only kind searched there)"
             if facts.get("noisy") else "")
    return f"{before}{where}{backed}. It generates {children[0]}{noisy} next."


def _order_reason(mover: str, ids: list[str], previous: list[Any] | None, limit: int) -> str:
    """Why an iteration of iterative deepening takes the root's children in its order."""
    listed = ", ".join(ids[:MAX_LISTED]) + (" ..." if len(ids) > MAX_LISTED else "")
    if previous is None:
        return (f"in `game.actions` order ({listed}): the first iteration has no values to "
                "sort by")
    shown = ", ".join(f"{child} = {_num(value)}" if value is not None else f"{child} not searched"
                      for child, value in previous[:MAX_LISTED])
    more = f" and {len(previous) - MAX_LISTED} more" if len(previous) > MAX_LISTED else ""
    best = "highest" if mover == "MAX" else "lowest"
    unsearched = ("; the children it did not search last" if any(value is None for _, value in
                                                                  previous) else "")
    return (f"in the order {listed}: iteration {limit - 1}'s values {shown}{more}, sorted best "
            f"first for {mover} at the root ({best} first, ties in `game.actions` order"
            f"{unsearched})")


def _deepening_note(moments: list[Any], step: int, yours: str | None,
                    strict: bool) -> str | None:
    """Iterative deepening at ``step``: the iteration (depth limit) it is in, the root order
    that iteration uses and why, then the alpha-beta window there (:func:`window_sentence`)."""
    iteration = None
    for moment in moments:
        if moment[0] == "iteration" and moment[1] <= step:
            iteration = moment
    if iteration is None:
        return None
    _, start, limit, mover, ids, previous = iteration
    head = (f"Step {step + 1} is in iteration {limit} of the reference's iterative deepening "
            f"(depth limit {limit}; the iteration's step {step - start + 1}), which searches the root's "
            f"children {_order_reason(mover, ids, previous, limit)}.")
    cuts = [m for m in moments if m[0] == "cut" and m[1] == step]
    moment = next((m for m in cuts if yours in m[7]), cuts[0] if cuts else None)
    if moment is None:
        moment = next((m for m in moments if m[0] == "generate" and m[1] == step), None)
    if moment is None:
        total = sum(m[0] == "generate" for m in moments)
        return (f"At step {step + 1} the reference had finished: it generated {total} nodes in "
                f"all, over {limit} iterations.")
    kind, _, node, is_max, alpha, beta, v, children = moment
    return head + " " + window_sentence(step, kind, node, is_max, _float(alpha), _float(beta),
                                        _float(v), children, strict)


def _star1_chance_reason(kind: str, seen: list[Any], facts: dict[str, Any]) -> str:
    s, r = _float(facts["S"]), _float(facts["R"])
    low, high = _float(facts["L"]), _float(facts["U"])
    alpha, beta = _float(facts["alpha"]), _float(facts["beta"])
    window = f"α = {_num(facts['alpha'])}, β = {_num(facts['beta'])}"
    if not seen:
        return (f"Star1: S = 0, R = 1, window {window}; a chance node always searches its "
                "first child.")
    upper, lower = s + high * r, s + low * r
    head = (f"Star1 with L = {_num(low)}, U = {_num(high)} and {window}: after its children "
            f"so far S = {_num(s)} and R = {_num(r)}, so the node's value is at most "
            f"S + U·R = {_num(upper)} and at least S + L·R = {_num(lower)}.")
    if kind == "cut":  # the replay says which test cut (this module re-runs no search test)
        if facts.get("cut") == "upper":
            return head + f" {_num(upper)} ≤ α = {_num(alpha)}: MAX above already has better."
        return head + f" {_num(lower)} ≥ β = {_num(beta)}: MIN above already has better."
    return head + (f" Neither {_num(upper)} ≤ α nor {_num(lower)} ≥ β, so no cut.")


def _star1_window_reason(kind: str, mover: Any, facts: dict[str, Any]) -> str:
    window = f"α = {_num(facts['alpha'])}, β = {_num(facts['beta'])}, v = {_num(facts['v'])}"
    if kind == "cut":
        test = "v ≥ β" if mover == "MAX" else "v ≤ α"
        return f"Its window: {window}; {test}, a cut."
    test = "v < β" if mover == "MAX" else "v > α"
    return f"Its window: {window}; {test}, no cut."


def _maxn_reason(kind: str, mover: Any, seen: list[Any], facts: dict[str, Any]) -> str:
    best = facts.get("best")
    parts = []
    if best is not None:
        parts.append(f"Its best so far is {_num(best)} (entry {mover} = {_num(best[mover])}).")
        if len(seen) >= 2 and seen[-1][1][mover] == best[mover] and seen[-1][1] != best:
            parts.append(f"{seen[-1][0]} only ties entry {mover}, and ties keep the first "
                         "child.")
    limit = facts.get("limit")
    if facts.get("max_sum") is None:
        pass
    elif limit is None:
        if facts.get("parent_mover") is None:
            parts.append("No shallow-pruning bound here: its parent has no best yet (or it "
                         "is the root).")
        else:
            parts.append(f"No shallow-pruning bound here: its parent's mover is player "
                         f"{mover} too.")
    else:
        bound = (f"The shallow-pruning bound is max_sum − parent's best = "
                 f"{_num(facts['max_sum'])} − {_num(facts['parent_best'])} = {_num(limit)}")
        if best is None:
            parts.append(bound + "; nothing to test before its first child.")
        elif kind == "cut":
            parts.append(bound + f": {_num(best[mover])} ≥ {_num(limit)}.")
        else:
            parts.append(bound + f": {_num(best[mover])} < {_num(limit)}, no cut.")
    return " ".join(parts)


def _mcts_note(moments: list[Any], step: int) -> str | None:
    current = None
    for moment in moments:
        if moment[1] <= step:
            current = moment
        else:
            break
    if current is None:
        return None
    _, start, index, path, expanded, utility, rewards = current
    parts = [f"Step {step + 1} is in iteration {index + 1} of the reference's MCTS (its "
             f"{'expansion' if step == start else 'playout'})."]
    for node, visits, stats, chosen in path[:MAX_LISTED]:
        listed = "; ".join(f"{child}: n = {n}, w = {_num(w)}, UCB1 = {_num(ucb)}"
                           for child, n, w, ucb in stats[:MAX_LISTED])
        parts.append(f"Selection at {node} (N = {visits}): {listed}; it goes to {chosen} "
                     "(the largest UCB1, ties: the first).")
    if expanded is not None:
        parts.append(f"Expansion: at {expanded[0]} the first untried action is {expanded[1]}, "
                     f"which makes {expanded[2]}.")
    else:
        parts.append("No expansion: the selected node is terminal.")
    shown = "; ".join(f"{node} gets {_num(reward)} ({player} moved into it)"
                      for node, player, reward in rewards[:MAX_LISTED])
    parts.append(f"The playout ends with utility {_num(utility)}; each node on the path gets the "
                 f"reward of the player who moved into it: {shown}.")
    return " ".join(parts)


__all__ = ["cached_steps", "number", "step_note", "window_sentence", "with_yours"]
