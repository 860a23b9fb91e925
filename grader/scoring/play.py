"""An ``evaluate`` test: the student's evaluation function graded by playing matches.

The grader's search (``reference/play.py``: depth-limited minimax's move, outcomes ranked
above every evaluation, ties in ``actions`` order, found by alpha-beta at the root in three
rounds) decides every move of the player under test; the student's ``evaluate(game, state)`` is
asked only for positions at its depth cutoff, those the search does not prune. All the case's
matches are played in lockstep: each round, the positions every match waiting on the student
needs go to the sandbox worker in one request (:meth:`Worker.evaluate`), the values come back
checked, and each match backs them up itself (a move of the player under test takes up to
three rounds). Values are cached by position for the submission (the worker seeds ``random`` by
position, so a value is a function of the position), so a position met again is never sent
again. The lost matches the report shows get exact values for the moves the search pruned at
the losing decision (:func:`_fill_in_pruned`).

Deterministic: the opponents and openings are seeded per case and match
(``reference.play.match_seed``), the student's ``random`` per position, and every evaluation
has a budget of ``[play] calls`` game calls; CPU time is only the backstop.

Score: ``wins + draw_weight x draws`` out of the case's matches, ``threshold_points`` for each
of the rubric's thresholds for the opponent it reaches (CS188's way). Any failure of the
evaluation (an exception, a value that is not a finite number, the budget, a time-out) ends
the test with 0 points and says where.

In the handout there is no ``reference/``, so no search to play with: the test runs the
student's ``evaluate`` on sample positions (seeded random play from the case's start) and
reports the values, for 0 points: it passes when every value is a finite number (an error
fails it as any test's would); the matches are played by the autograder.
"""

from __future__ import annotations

import importlib.util
import json
import random
import weakref
from typing import Any

from grader.cases import Case
from grader.cases.rubric import Rubric
from grader.feedback import play as play_feedback
from grader.feedback import records as match_records
from grader.feedback.markdown import inline_text
from grader.run.evaluation import MAX_POSITIONS
from grader.sandbox.client import Worker
from grader.sandbox.protocol import WorkerReply
from grader.scoring.results import PASSED, TestResult

EVALUATION_SEED = 0  # the student's random is seeded "<EVALUATION_SEED>:<position id>"
SAMPLE_POSITIONS = 12  # positions the handout's check evaluates
_CACHES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # worker -> {game key: {id: v}}
_GAMES: dict[str, Any] = {}  # a play case's data -> its game, kept for the next submission


class EvaluationFailed(Exception):
    """The student's evaluation failed on a batch: the worker's reply says how."""

    def __init__(self, reply: WorkerReply) -> None:
        super().__init__(reply.message)
        self.reply = reply


def _cache(worker: Worker, case: Case) -> dict[str, float]:
    per_worker = _CACHES.setdefault(worker, {})
    key = json.dumps([case.game, case.params], sort_keys=True)
    return per_worker.setdefault(key, {})


def evaluate_ids(worker: Worker, case: Case, ids: list[str], rubric: Rubric) -> dict[str, float]:
    """The student's values of ``ids`` (cached ones not sent again); raises
    :class:`EvaluationFailed`."""
    cache = _cache(worker, case)
    missing = list(dict.fromkeys(i for i in ids if i not in cache))
    settings = rubric.settings_for(case, "evaluate")
    for start in range(0, len(missing), MAX_POSITIONS):
        chunk = missing[start:start + MAX_POSITIONS]
        reply = worker.evaluate(case.game or "", case.params, chunk, calls=rubric.play.calls,
                                seed=EVALUATION_SEED, time_limit=settings.time_floor,
                                time_multiple=settings.time_multiple)
        if reply.status != "ok":
            raise EvaluationFailed(reply)
        cache.update(zip(chunk, reply.value))
    return {i: cache[i] for i in ids}


def play_case(case: Case, rubric: Rubric, evaluate: Any) -> list[Any]:
    """Play the case's matches in lockstep; ``evaluate(ids) -> {id: value}``. The records, in
    match order (``reference.play.MatchRecord``)."""
    from reference import play

    settings = case.play
    matches = settings.matches or rubric.play.matches
    depth = settings.depth or rubric.play.depth
    opening = rubric.play.opening if settings.opening is None else settings.opening
    game = _game(case)
    running = {i: play.play_match(game, i, settings.seed, settings.opponent, depth, opening)
               for i in range(matches)}
    records: list[Any] = [None] * matches
    waiting = {}
    for index, match in list(running.items()):
        _advance(index, match, None, waiting, records, running)
    while waiting:
        ids = [game.state_id(p) for positions in waiting.values() for p in positions]
        values = evaluate(ids) if ids else {}
        asked, waiting = waiting, {}
        for index, positions in asked.items():
            got = [values[game.state_id(p)] for p in positions]
            _advance(index, running[index], got, waiting, records, running)
    return records


def _game(case: Case) -> Any:
    """The case's game, built once a process: a built-in game only remembers what its rules
    give (children, ids), so the next submission's matches reuse what this one's computed."""
    key = json.dumps(case.data, sort_keys=True, default=repr)
    game = _GAMES.get(key)
    if game is None:
        if len(_GAMES) >= 16:
            _GAMES.clear()
        game = _GAMES[key] = case.build_game()
    return game


def _advance(index: int, match: Any, send: Any, waiting: dict, records: list, running: dict
             ) -> None:
    """Run one match to its next request for values (kept in ``waiting``) or its end."""
    try:
        while True:
            positions = match.send(send) if send is not None else next(match)
            if positions:
                waiting[index] = positions
                return
            send = []  # every leaf was an outcome: nothing to evaluate
    except StopIteration as stop:
        records[index] = stop.value
        running.pop(index, None)


def score_of(records: list[Any], rubric: Rubric, opponent: str) -> tuple[float, float, list]:
    """(wins + draw_weight x draws, points earned, thresholds)."""
    wins = sum(r.outcome == "win" for r in records)
    draws = sum(r.outcome == "draw" for r in records)
    value = wins + rubric.play.draw_weight * draws
    thresholds = rubric.play.thresholds_for(opponent)
    reached = sum(1 for t in thresholds if value >= t)
    return value, reached * rubric.play.threshold_points, thresholds


def grade_play(case: Case, result: TestResult, rubric: Rubric, worker: Worker) -> TestResult:
    """Grade an ``evaluate`` case into ``result`` (its name, number and visibility set)."""
    from grader.scoring.pair import _failure_outcome, _student_output, note_upload_error

    if importlib.util.find_spec("reference") is None:
        return _sample_check(case, result, rubric, worker)
    try:
        records = play_case(case, rubric, lambda ids: evaluate_ids(worker, case, ids, rubric))
    except EvaluationFailed as failed:
        reply = failed.reply
        result.outcome, message = _failure_outcome(reply)
        if reply.status == "budget":
            result.outcome = "budget"
            message = (f"`evaluate` was stopped: {inline_text(reply.message)} (the budget is "
                       f"{rubric.play.calls} calls an evaluation).")
        result.summary = message.splitlines()[0]
        result.output = message + ("" if result.hidden else _student_output(reply))
        note_upload_error(result, reply)
        return result
    value, earned, thresholds = score_of(records, rubric, case.play.opponent)
    full = len(thresholds) * rubric.play.threshold_points
    result.score = round(result.max_score * (earned / full if full else 0.0), 6)
    result.outcome = PASSED if result.score >= result.max_score else "wrong_value"
    game = _game(case)  # the one the matches used: its positions are remembered already
    depth = case.play.depth or rubric.play.depth
    result.extra_data = {}
    losing = _losing_choices(game, records, depth)
    # The follow-up requests (the pruned moves' values, the hint's) cannot change the score,
    # so a failure costs the submission nothing: after the first, none is made (a submission
    # that times out on each would take the grader's time for free, a worker restart each).
    answered = _fill_in_pruned(worker, case, rubric, game, losing.values(), depth)
    result.summary, result.output = play_feedback.report(
        game, case.play.opponent, records, value, thresholds, rubric.play.draw_weight, losing)
    if result.score < result.max_score and answered:
        hint = likely_mistake(game, _match_values(worker, case, rubric, records))
        if hint:
            result.output += "\n\nLikely mistake: " + hint
            result.extra_data["hint"] = hint
    # the HTML report's data (grader/feedback/records.py): every match, each losing choice,
    # how the score came about
    result.extra_data["play"] = match_records.records_data(records, game, losing)
    result.extra_data["play_summary"] = match_records.summary_data(
        case.play.opponent, records, rubric.play,
        result.score / result.max_score if result.max_score else 0.0)
    result.staff_output = built_in_heuristic(game, _cache(worker, case))
    return result


def built_in_heuristic(game: Any, values: dict[str, float]) -> str:
    """A note for staff (never a deduction) when the student's values are the built-in
    game's own heuristic, up to a positive scale and shift, on every position evaluated (at
    least :data:`MIN_EVIDENCE`, not all alike); "" otherwise. The handout ships that heuristic
    in ``grader/games`` (and ``game.board.__self__._heuristic`` reaches it from ``evaluate``:
    nothing in the worker is out of the submission's reach), and it is the baseline opponent's
    evaluation: a one-line ``evaluate`` returning it earned 10 of 12 points on four evaluate
    cases, the hidden baseline one in full."""
    heuristic = getattr(game, "_heuristic", None)
    if heuristic is None or len(values) < MIN_EVIDENCE:
        return ""
    # A student's own evaluation parts from the heuristic within a few positions: those are
    # checked first, so the thousands a submission's matches reach (rebuilding them all costs
    # as much again as the matches' own search) are checked only when the few fit
    ids = list(values)
    if _affine_scale(heuristic, game, values, ids[:FIRST_LOOK]) is False:
        return ""
    scale = _affine_scale(heuristic, game, values, ids)
    if not scale:
        return ""
    return (f"evaluate returned the built-in game's own heuristic (scaled by {scale:g}) on all "
            f"{len(ids)} positions it was asked for: the handout's grader/games heuristic, "
            "the baseline opponent's evaluation, not the student's own (not a deduction)")


FIRST_LOOK = 32  # positions :func:`built_in_heuristic` checks before it checks them all


def _affine_scale(heuristic: Any, game: Any, values: dict[str, float], ids: list[str]
                  ) -> float | bool | None:
    """The positive scale ``s`` with ``values[i] == a + s x heuristic(i)`` for every id, False
    when there is none, None when the heuristic is the same at all of them (no scale to tell)."""
    pairs = [(float(heuristic(game.state_from_id(state_id))), values[state_id])
             for state_id in ids]
    low, high = min(pairs), max(pairs)
    if high[0] == low[0]:
        return None if all(_close(v, low[1]) for _, v in pairs) else False
    if high[1] <= low[1]:
        return False
    scale = (high[1] - low[1]) / (high[0] - low[0])
    if not all(_close(low[1] + scale * (h - low[0]), v) for h, v in pairs):
        return False
    return scale


def _close(found: float, value: float) -> bool:
    return abs(found - value) <= 1e-9 * max(1.0, abs(value))


def _match_values(worker: Worker, case: Case, rubric: Rubric, records: list[Any]
                  ) -> dict[str, float]:
    """The student's values of the positions its matches went through (before each move), the
    hint's evidence: the same whatever positions the search pruned (most were evaluated at
    the search's cutoff already, and are cached). Empty when ``evaluate`` fails on them."""
    ids = [i for record in records for i in record.positions]
    try:
        return evaluate_ids(worker, case, list(dict.fromkeys(ids))[:HINT_POSITIONS], rubric)
    except EvaluationFailed:
        return {}


MIN_EVIDENCE = 10  # positions a hint needs, of each kind it compares
HINT_POSITIONS = 500  # positions a hint looks at


def likely_mistake(game: Any, values: dict[str, float]) -> str:
    """A named mistake when the values the student gave show one clearly ("" otherwise):
    compared with the staff's evaluation (``reference.play.reference_evaluation``) on the same
    positions, by sign and by the player to move."""
    from reference.play import reference_evaluation

    if len(values) < MIN_EVIDENCE:
        return ""
    if len(set(values.values())) == 1:
        return ("`evaluate` returned the same value for every position, so the search tells "
                "moves apart only by the wins and losses it sees and otherwise plays the first "
                "move in `actions` order.")
    agree: dict[bool, list[bool]] = {True: [], False: []}  # x to move?
    staff_negative = 0
    for state_id, mine in values.items():
        staff = reference_evaluation(game, game.state_from_id(state_id))
        staff_negative += staff < 0
        if abs(staff) >= 1 and mine != 0:
            agree[state_id.count("x") == state_id.count("o")].append((staff > 0) == (mine > 0))
    share = {side: sum(kept) / len(kept) for side, kept in agree.items()
             if len(kept) >= MIN_EVIDENCE}
    if share.get(True, 0) >= 0.8 and share.get(False, 1) <= 0.2:
        return ("your values have the right sign when x is to move and the wrong one when o is: "
                "`evaluate` returns the value for MAX (x) whoever is to move, not the value "
                "for the player to move.")
    if share and all(value <= 0.2 for value in share.values()):
        return ("your values have the wrong sign almost everywhere: larger must be better for "
                "MAX (x), smaller for MIN (o).")
    if min(values.values()) >= 0 and staff_negative >= 0.2 * len(values):
        return ("your values never go below 0, even where o is clearly ahead: does `evaluate` "
                "count o's windows and threats against x?")
    return ""


def _losing_choices(game: Any, records: list[Any], depth: int) -> dict[int, Any]:
    """For each lost match the reports show (the first ``MAX_LOST_ANALYSED``), the move the
    staff's search would have made otherwise."""
    from reference import play

    lost = [record for record in records if record.outcome == "loss"]
    return {record.index: play.losing_choice(game, record, depth)
            for record in lost[:match_records.MAX_LOST_ANALYSED]}


def _fill_in_pruned(worker: Worker, case: Case, rubric: Rubric, game: Any, choices: Any,
                    depth: int) -> bool:
    """Exact values for the moves the search pruned at the decisions the report shows: the
    student's values of the rest of those positions' cutoff (a request as any other: cached,
    checked), backed up in full. The matches are already scored: should ``evaluate`` fail on
    those positions, the report shows the pruned moves' bounds instead, and no more is asked
    (False is returned; True when every request was answered)."""
    from reference import play

    for found in choices:
        if found is None or not found[0].pruned:
            continue
        decision = found[0]
        state = game.state_from_id(decision.position)
        ids = [game.state_id(p) for p in play.cutoff_positions(game, state, depth)]
        try:
            values = evaluate_ids(worker, case, ids, rubric)
        except EvaluationFailed:
            return False
        decision.values = play.search_values(game, state, depth, values)
        decision.pruned = {}
    return True


def _sample_check(case: Case, result: TestResult, rubric: Rubric, worker: Worker) -> TestResult:
    """The handout's check: ``evaluate`` on sample positions, for 0 points (passed when every
    value is a finite number)."""
    from grader.scoring.pair import _failure_outcome, _student_output, note_upload_error

    game = case.build_game()
    rng = random.Random(case.play.seed)
    positions: dict[str, Any] = {}
    for _ in range(50 * SAMPLE_POSITIONS):  # bounded: a start near the end has few positions
        if len(positions) >= SAMPLE_POSITIONS:
            break
        state = game.initial_state()
        for _ in range(rng.randrange(1, 12)):
            if game.is_terminal(state):
                break
            state = game.result(state, rng.choice(list(game.actions(state))))
        if not game.is_terminal(state):
            positions.setdefault(game.state_id(state), state)
    result.max_score, result.outcome = 0.0, "not_graded"
    try:
        values = evaluate_ids(worker, case, list(positions), rubric)
    except EvaluationFailed as failed:
        result.outcome, message = _failure_outcome(failed.reply)
        result.summary = message.splitlines()[0]
        result.output = message + _student_output(failed.reply)
        note_upload_error(result, failed.reply)
        return result
    result.outcome = PASSED  # what can be checked here holds; the points come from play
    result.summary = (f"evaluate ran on {len(values)} sample positions; the matches against "
                      f"{case.play.opponent} are played by the autograder")
    result.output = play_feedback.sample_report(game, positions, values)
    return result
