"""An ``assumptions`` test: the student's own search deciding an agent's moves in ``chase``.

The lectures' last topic ("modeling assumptions", "the dangers of optimism and pessimism"):
an agent that assumes an adversary (``minimax``: the ghost's node typed ``MIN``, each action's
value from the student's ``alpha_beta``, or ``max_value``/``min_value`` with ``search:
"minimax"``) or chance (``expectimax``: the ghost ``CHANCE``, uniform, the student's
``expectimax``) plays the case's matches against an adversarial ghost (the staff's search,
``reference/assumptions.py``) and a random one (seeded), from seeded starts
(:mod:`grader.games.chase_matches`).

At each of its moves the agent asks the worker for the value of every child position (the
child searched as a root, ``depth_limit`` = depth - 1), each a call under a work budget of
``work_multiple`` times the reference's game calls on that child plus ``work_floor`` (as every
trace test's) and the CPU-time backstop; it plays the first action of largest value. The calls
go in batches, a request for up to :data:`BATCH` children: a decision's, then the ones a
correct agent's matches ask for next (:func:`student_values`).

**Graded by exact decisions**: each of the student's moves must be the move the reference's
search makes in that position (ties to the first action, values within 1e-9 tie). The matches
go on with the student's moves (so its table is its own), and the test passes with its points
when every move of every match agrees, else earns 0 and shows the first difference: the
position, both searches' values of each action. Any failure of the search (an exception, a
value that is not a number, the budget, a time-out) ends the test with 0 and says where.

The feedback is the lectures' 2 x 2 table (:mod:`grader.feedback.assumptions`): the student's
agent's row beside the reference's two rows; ``extra_data["assumptions"]`` holds it for the
whole-submission table (terminal, Gradescope, HTML) and one match to replay on its board.

The staff's side of a case (:class:`StaffSide`: the reference's table, the children a correct
agent's matches ask for, the reference's search of each, the adversarial ghost's moves in them)
is a function of the case, the rubric's ``[assumptions]`` settings and the code, so it is kept
in the answer key (:func:`staff_side`), as the trace tests' answers are: the entry's name holds
the case's setup (:func:`plan`, the rubric's settings in it), the case's fingerprint is the
key's, and the key's code version hashes ``reference/``, ``grader/games/`` and this module, so
a changed case, rubric or code never reads a stale entry. A position a student's agent reaches
and the reference's matches do not is searched by the staff's code then (memoised per process).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import random
from dataclasses import dataclass
from typing import Any

import grader.algorithms as algorithm_specs
from grader.algorithms.assumptions import ALGORITHM as ASSUMPTIONS
from grader.algorithms.assumptions import GHOST_TYPES
from grader.algorithms.assumptions import SETTINGS_FIELD as ASSUMPTIONS_FIELD
from grader.answers.store import AnswerKey
from grader.cases import Case
from grader.cases.rubric import Rubric
from grader.feedback import assumptions as feedback
from grader.feedback.markdown import inline_text
from grader.games.chase import Chase
from grader.games.chase_matches import (
    ChaseMatch,
    children,
    match_stats,
    play_chase,
    start_position,
)
from grader.games.players import match_seed
from grader.run.tracing import Budget
from grader.sandbox.client import Worker
from grader.sandbox.protocol import WorkerReply
from grader.scoring.budget import MAX_BUDGET, within_budget, worker_budget
from grader.scoring.failure import failure_outcome, note_failure, printed_output
from grader.scoring.results import PASSED, TestResult

DEFAULT_TURNS = 20  # chase's own default
# Children searched in one request at most: a decision's, then those a correct agent's matches
# ask next (student_values). Each has its own CPU backstop, so the parent's last-resort limit
# on a request is about this many windows. 128: the bundled cases' 1,292 children in 12
# requests (42 at 32, each request about 1.3 ms of CPU besides its searches); a batch a kill
# ends is asked again a child at a time, up to this many requests.
BATCH = 128
# a table's key -> the reference's table. Never cleared, and a table is a function of its key:
# two grading threads could at worst compute one twice (and cannot: grade._shares gives every
# assumptions case, game chase, to one worker); callers only read a table.
_TABLES: dict[str, dict[str, dict[str, Any]]] = {}


class DecisionFailed(Exception):
    """The student's search gave no usable value for a child: the reply says how."""

    def __init__(self, reply: WorkerReply, position: str, action: str) -> None:
        super().__init__(reply.message)
        self.reply, self.position, self.action = reply, position, action


def plan(case: Case, rubric: Rubric) -> dict[str, Any]:
    """What the case's matches are: agent, function, opponents, matches, seed, depths, turns."""
    settings = case.assumptions
    if settings is None:
        raise ValueError(f"case {case.name!r} has no assumptions settings")
    return {"agent": settings.agent, "algorithm": settings.algorithm,
            "opponents": list(settings.opponents), "seed": settings.seed,
            "matches": settings.matches or rubric.assumptions.matches,
            "depth": settings.depth or rubric.assumptions.depth,
            "ghost_depth": rubric.assumptions.ghost_depth,
            "turns": int((case.params or {}).get("turns", DEFAULT_TURNS)),
            "board": _board(case)}


def _board(case: Case) -> str:
    game = case.build_game()
    return game.state_id(game.initial_state())


def play_matches(game: Chase, setup: dict[str, Any], agent: str, opponent: str,
                 agent_values: Any, expected_values: Any = None,
                 ghost_move: Any = None) -> list[ChaseMatch]:
    """The case's matches of ``agent`` against ``opponent``; the adversarial ghost's move by
    ``ghost_move(position, turns, depth)`` (default: the staff's search)."""
    if ghost_move is None:
        from reference import assumptions as staff

        ghost_move = staff.ghost_move
    turns, ghost_depth = setup["turns"], setup["ghost_depth"]
    return [play_chase(game, index, setup["seed"], agent, opponent, agent_values,
                       lambda p: ghost_move(p, turns, ghost_depth), expected_values)
            for index in range(setup["matches"])]


def reference_table(case: Case, rubric: Rubric) -> dict[str, dict[str, Any]]:
    """The reference agents' 2 x 2 table on the case's matches (every agent, the case's
    ghosts), computed once a process: ``{agent: {ghost: stats}}``."""
    from reference import assumptions as staff

    setup = plan(case, rubric)
    key = table_key(case, rubric)
    if key not in _TABLES:
        _TABLES[key] = staff.reference_table(
            setup["board"], setup["turns"], setup["seed"], setup["matches"], setup["depth"],
            setup["ghost_depth"], setup["opponents"])
    return _TABLES[key]


@dataclass
class StaffSide:
    """The reference's part of an ``assumptions`` case, all a function of the case's setup
    (:func:`plan`) and the code: its 2 x 2 table, the children a correct agent's matches ask
    for in order (:func:`ahead_of`), the reference's search of each (``child -> (value,
    result calls, utility/evaluate calls)``, as ``reference.assumptions.child_search`` gives
    it, the ghost typed by the case's agent) and the adversarial ghost's move at each of its
    positions in those matches. Each kept answer holds for the settings it was computed with
    (``searched_with``: ghost, turns, depth; ``ghosts_with``: turns, the ghost's depth); a call
    with others goes to the staff's code."""

    table: dict[str, dict[str, Any]]
    ahead: list[str]
    searches: dict[str, tuple[float, int, int]]
    ghost_moves: dict[str, str]
    searched_with: tuple[str, int, int]
    ghosts_with: tuple[int, int]

    def child_search(self, child: str, ghost: str, turns: int, depth: int
                     ) -> tuple[float, int, int]:
        """The reference's search of ``child`` (the staff's code for a child not kept)."""
        found = self.searches.get(child) if (ghost, turns, depth) == self.searched_with else None
        if found is not None:
            return found
        from reference import assumptions as staff

        return staff.child_search(child, ghost, turns, depth)

    def ghost_move(self, position: str, turns: int, depth: int) -> str:
        """The adversarial ghost's move at ``position`` (the staff's code where not kept)."""
        found = self.ghost_moves.get(position) if (turns, depth) == self.ghosts_with else None
        if found is not None:
            return found
        from reference import assumptions as staff

        return staff.ghost_move(position, turns, depth)

    def action_values(self, position: str, agent: str, turns: int, depth: int
                      ) -> list[tuple[str, float]]:
        """The reference agent's value of each action at ``position`` (the reference's
        ``action_values``, its children's searches read from :attr:`searches`)."""
        from reference import assumptions as staff

        return staff.action_values(position, agent, turns, depth,
                                   lambda *child: self.child_search(*child)[0])


STAFF_ENTRY = "assumptions-staff"  # the answer key's entry name for a case's StaffSide


def staff_side(case: Case, rubric: Rubric, answers: AnswerKey | None = None) -> StaffSide:
    """The case's :class:`StaffSide`: from ``answers`` (computed and kept there when missing;
    computed here without a key). The entry's name holds a hash of the case's setup, so a
    rubric whose ``[assumptions]`` settings differ has its own entry (the case's content and
    the code are the key's own: module docstring)."""
    if answers is None:
        return _as_staff_side(_staff_entry(case, rubric))
    setup = plan(case, rubric)
    named = hashlib.sha256(json.dumps(setup, sort_keys=True).encode()).hexdigest()[:16]
    return _as_staff_side(answers.extra(case, f"{STAFF_ENTRY}:{named}",
                                        lambda: _staff_entry(case, rubric)))


def _staff_entry(case: Case, rubric: Rubric) -> dict[str, Any]:
    """What :class:`StaffSide` holds, computed by the staff's code, as JSON data."""
    from reference import assumptions as staff

    setup = plan(case, rubric)
    turns, depth, ghost = setup["turns"], setup["depth"] - 1, GHOST_TYPES[setup["agent"]]
    ahead = ahead_of(setup)
    ghost_moves: dict[str, str] = {}
    if "adversarial" in setup["opponents"]:
        for match in staff.reference_matches(setup["board"], turns, setup["seed"],
                                             setup["matches"], setup["depth"],
                                             setup["ghost_depth"], setup["agent"],
                                             "adversarial"):
            ghost_moves.update((position, action) for position, (who, action)
                               in zip(match.positions, match.moves) if who == "G")
    return json.loads(json.dumps({
        "table": reference_table(case, rubric), "ahead": ahead,
        "searches": {child: list(staff.child_search(child, ghost, turns, depth))
                     for child in ahead},
        "ghost_moves": ghost_moves, "searched_with": [ghost, turns, depth],
        "ghosts_with": [turns, setup["ghost_depth"]]}))


def _as_staff_side(entry: dict[str, Any]) -> StaffSide:
    return StaffSide(table=entry["table"], ahead=list(entry["ahead"]),
                     searches={child: (float(found[0]), int(found[1]), int(found[2]))
                               for child, found in entry["searches"].items()},
                     ghost_moves=dict(entry["ghost_moves"]),
                     searched_with=tuple(entry["searched_with"]),
                     ghosts_with=tuple(entry["ghosts_with"]))


def table_key(case: Case, rubric: Rubric) -> str:
    """What makes two cases' tables one (the same board, seed, matches, depths and ghosts)."""
    setup = plan(case, rubric)
    return json.dumps({k: setup[k] for k in ("board", "turns", "seed", "matches", "depth",
                                             "ghost_depth", "opponents")}, sort_keys=True)


def student_values(worker: Worker, setup: dict[str, Any], settings: Any,
                   staff: StaffSide | None = None, ahead: list[str] | None = None) -> Any:
    """``position -> [(action, value)]`` by the student's search in ``worker``; raises
    :class:`DecisionFailed`. Each child's work budget is ``work_multiple`` times the
    reference's calls on it (``staff``'s search) plus ``work_floor`` (without ``staff``, in the
    handout: times a full search's, 4 moves a ply).

    The children are searched in batches (:meth:`Worker.search_positions`: one request, each
    child a call of its own), in the order the matches ask for them: a decision's unknown
    children, then up to :data:`BATCH` in all of ``ahead`` (the children a correct agent's
    matches ask for, in order) after them. A value is the child's own (the worker seeds
    ``random`` the same before every call), so one asked ahead is the value asked later; a
    failure met ahead is kept and raised when the matches reach its child (never, if they do
    not: the student's agent went elsewhere)."""
    ghost = GHOST_TYPES[setup["agent"]]
    turns, depth, algorithm = setup["turns"], setup["depth"] - 1, setup["algorithm"]
    ahead = list(dict.fromkeys(ahead or ()))
    place = {child: index for index, child in enumerate(ahead)}

    def most(calls: int) -> int:
        return min(MAX_BUDGET, int(settings.work_multiple * calls + settings.work_floor))

    def budget_of(child: str) -> Budget:
        if staff is None:  # the handout: 4 moves a ply at most, depth plies
            generated = evaluated = 4 ** (depth + 1)
        else:
            _, generated, evaluated = staff.child_search(child, ghost, turns, depth)
        return Budget(result=most(generated), evaluated=most(evaluated))

    known: dict[str, float] = {}  # child id -> the student's value
    failed: dict[str, WorkerReply] = {}  # child id -> how its search failed (met ahead)

    def search(batch: list[str]) -> None:
        """The student's values of ``batch`` into ``known`` (a failure into ``failed``; the
        children after it are left unknown)."""
        budgets = [budget_of(child) for child in batch]
        reply = worker.search_positions(
            "chase", {"ghost": ghost, "turns": turns}, batch, algorithm, depth_limit=depth,
            budgets=[worker_budget(budget) for budget in budgets],
            time_limit=settings.time_floor, time_multiple=settings.time_multiple)
        if reply.status != "ok" and reply.position is None:  # stopped at no known child
            if len(batch) == 1:
                failed[batch[0]] = reply
            else:  # each child alone finds the one that stops (a kill, a crash)
                for child in batch:
                    search([child])
                    if child in failed:
                        return
            return
        for index, (value, calls) in enumerate(reply.answered or ()):
            # the exact budget, which the worker was not told (scoring.budget.worker_budget);
            # the failing reply is built only for a child past it, not for each of the ~1,300
            # answers a grade gets
            if budgets[index].passed_by(calls):
                within = within_budget(WorkerReply("ok", calls=calls), budgets[index])
                within.function = reply.function
                failed[batch[index]] = within
                return
            known[batch[index]] = value
        if reply.position is None:
            return
        index = reply.position
        reply = within_budget(reply, budgets[index])
        if reply.ok:
            value = reply.value
            reply.status = "wrong_value"
            reply.message = (f"returned {inline_text(repr(value)[:80])}, not a finite "
                             "number (the value of the position)")
        failed[batch[index]] = reply

    def values(position: str) -> list[tuple[str, float]]:
        pairs = children(position, turns)
        wanted = [child for _, child in pairs if child not in known and child not in failed]
        if wanted:
            batch = list(dict.fromkeys(wanted))
            after = max((place[child] for child in batch if child in place), default=None)
            if after is not None:
                for child in ahead[after + 1:]:
                    if len(batch) >= BATCH:
                        break
                    if child not in known and child not in failed and child not in batch:
                        batch.append(child)
            search(batch)
        found = []
        for action, child in pairs:
            if child in failed:
                raise DecisionFailed(failed[child], position, action)
            if child not in known:  # a batch stopped before it: asked alone
                search([child])
                if child in failed:
                    raise DecisionFailed(failed[child], position, action)
            found.append((action, known[child]))
        return found

    return values


def ahead_of(setup: dict[str, Any]) -> list[str]:
    """The children a correct agent's matches ask for, in the order they ask (the reference
    agent's matches, each decision's children): what the student's search is asked ahead."""
    from reference import assumptions as staff

    turns = setup["turns"]
    found: dict[str, None] = {}
    for ghost in setup["opponents"]:
        for match in staff.reference_matches(setup["board"], turns, setup["seed"],
                                             setup["matches"], setup["depth"],
                                             setup["ghost_depth"], setup["agent"], ghost):
            for decision in match.decisions:
                found.update((child, None) for _, child in children(decision.position, turns))
    return list(found)


def grade_assumptions(case: Case, result: TestResult, rubric: Rubric, worker: Worker,
                      answers: AnswerKey | None = None) -> TestResult:
    """Grade an ``assumptions`` case into ``result`` (its name, number and visibility set),
    the staff's side from ``answers`` (:func:`staff_side`). In the handout (no
    ``reference/``: no reference moves, no adversarial ghost) it is the sample check
    (:func:`_sample_check`), for 0 points."""
    if importlib.util.find_spec("reference") is None:
        return _sample_check(case, result, rubric, worker)
    settings = rubric.settings_for(case, ASSUMPTIONS.name)
    setup = plan(case, rubric)
    game = case.build_game()
    agent = setup["agent"]
    staff = staff_side(case, rubric, answers)
    reference = staff.table
    result.extra_data = {ASSUMPTIONS_FIELD: {
        "key": table_key(case, rubric), "agent": agent, "algorithm": setup["algorithm"],
        "depth": setup["depth"], "reference": reference}}

    def expected(position: str) -> list[tuple[str, float]]:
        return staff.action_values(position, agent, setup["turns"], setup["depth"])

    values = student_values(worker, setup, settings, staff, ahead=staff.ahead)
    played: dict[str, list[ChaseMatch]] = {}
    try:
        for ghost in setup["opponents"]:
            played[ghost] = play_matches(game, setup, agent, ghost, values, expected,
                                         staff.ghost_move)
    except DecisionFailed as failed:
        reply = failed.reply
        if reply.status == "wrong_value":
            result.outcome, message = "wrong_value", f"Your search {reply.message}."
        else:
            result.outcome, message = failure_outcome(reply)
        if reply.status == "budget":
            result.outcome = "budget"
            message = f"Your search was stopped: {inline_text(reply.message)}."
        where = (f" (deciding your agent's move at `{failed.position}`: the child after "
                 f"`{failed.action}`)")
        result.summary = message.splitlines()[0] + where
        result.output = message + where + ("" if result.hidden else printed_output(reply))
        note_failure(result, reply)
        return result
    mine = {agent: {ghost: match_stats(matches) for ghost, matches in played.items()}}
    moves = sum(len(m.decisions) for matches in played.values() for m in matches)
    difference = None
    for ghost, matches in played.items():
        for match in matches:
            decision = match.first_difference
            if decision is not None:
                difference = {"opponent": ghost, "match": match.index,
                              "move": match.decisions.index(decision),
                              "position": decision.position, "yours": decision.move,
                              "expected": decision.expected, "values": decision.values,
                              "expected_values": decision.expected_values}
                break
        if difference:
            break
    data = result.extra_data[ASSUMPTIONS_FIELD]
    data["student"] = mine
    data["moves"] = moves
    shown = next((m for matches in played.values() for m in matches
                  if m.first_difference is not None), None) or next(iter(played.values()))[0]
    data["match"] = {"opponent": shown.opponent, "index": shown.index, "agent": agent,
                     "positions": shown.positions, "moves": shown.moves,
                     "outcome": shown.outcome, "score": shown.score}
    table = feedback.table_text(reference, mine)
    function = "/".join(algorithm_specs.registry()[setup["algorithm"]].stubs)
    if difference is None:
        result.score, result.outcome = result.max_score, PASSED
        result.summary = (f"all {moves} moves of your {agent} agent (your `{function}`, depth "
                          f"{setup['depth']}) were the reference's")
        result.output = result.summary[0].upper() + result.summary[1:] + ".\n\n" + table
        return result
    data["first_difference"] = difference
    result.score, result.outcome = 0.0, "wrong_value"
    board = game.board(game.state_from_id(difference["position"]))
    result.summary = (f"match {difference['match'] + 1} vs the {difference['opponent']} ghost, "
                      f"move {difference['move'] + 1}: your {agent} agent played "
                      f"{difference['yours']}, the reference's {difference['expected']}")
    result.output = (f"Your {agent} agent (your `{function}`, depth {setup['depth']}) must make "
                     "the reference's move in every position. "
                     + feedback.difference_text(difference, board) + "\n\n" + table)
    return result


def _sample_check(case: Case, result: TestResult, rubric: Rubric, worker: Worker
                  ) -> TestResult:
    """The handout's check: the agent's search on the children of each match's start (the
    ghost's seeded squares), for 0 points: passed when every value is a finite number. The
    moves are compared with the reference's by the autograder; ``grader play`` makes the
    table with the student's own searches."""
    setup = plan(case, rubric)
    settings = rubric.settings_for(case, ASSUMPTIONS.name)
    game = case.build_game()
    result.max_score, result.score = 0.0, 0.0
    starts = [game.state_id(start_position(game, random.Random(match_seed(setup["seed"], i))))
              for i in range(setup["matches"])]
    values = student_values(worker, setup, settings, ahead=[
        child for start in dict.fromkeys(starts) for _, child in children(start, setup["turns"])])
    try:
        found = {start: values(start) for start in dict.fromkeys(starts)}
    except DecisionFailed as failed:
        result.outcome, message = failure_outcome(failed.reply)
        if failed.reply.status in ("wrong_value", "budget"):
            result.outcome, message = "wrong_value", f"Your search {failed.reply.message}."
        result.summary = message.splitlines()[0] + f" (at the child after `{failed.action}` of " \
            f"`{failed.position}`)"
        result.output = result.summary + printed_output(failed.reply)
        note_failure(result, failed.reply)
        return result
    result.outcome = PASSED
    result.summary = (f"your {setup['agent']} agent's search gave a number for every move at "
                      f"{len(found)} match starts; the autograder checks every move against the "
                      "reference's (grader play shows your agents' table)")
    result.output = result.summary[0].upper() + result.summary[1:] + ".\n\n" + "\n".join(
        f"- `{start}`: " + ", ".join(f"{action} {value:g}" for action, value in pairs)
        for start, pairs in found.items())
    result.extra_data = {"show_output": True}
    return result


def submission_tables(tests: list[TestResult]) -> list[str]:
    """The whole submission's 2 x 2 tables (one a board and seed), each the student's agents
    beside the reference's, from the assumptions tests' ``extra_data``."""
    grouped: dict[str, dict[str, Any]] = {}
    for test in tests:
        data = (test.extra_data or {}).get(ASSUMPTIONS_FIELD)
        if not data or "student" not in data:
            continue
        group = grouped.setdefault(data["key"], {"reference": data["reference"], "student": {}})
        group["student"].update(data["student"])
    return [feedback.table_text(group["reference"], group["student"])
            for _, group in sorted(grouped.items())]


__all__ = ["BATCH", "STAFF_ENTRY", "DecisionFailed", "StaffSide", "ahead_of", "grade_assumptions",
           "plan", "reference_table", "staff_side",
           "submission_tables", "table_key"]
