"""An ``evaluate`` test: the student's evaluation function graded by playing matches.

The grader's search (``reference/play.py``: depth-limited minimax's move, outcomes ranked
above every evaluation, ties in ``actions`` order, found by alpha-beta at the root in rounds,
``reference/play_search.py``) decides every move of the player under test; the student's
``evaluate(game, state)`` is asked only for positions at its depth cutoff, those the search
does not prune. All the case's matches are played in lockstep: each round, the positions every
match waiting on the student needs go to the sandbox worker in one request
(:meth:`Worker.evaluate`), the values come back checked, and each match backs them up itself
(a move of the player under test takes up to two rounds more than the probes a child may get:
six). A worker's cases of one game and one visibility play together, from when the
first of them is graded (:func:`play_ahead`, called by :func:`grader.scoring.grade.grade`):
each round is one request for all of them, as a case's matches share theirs, and each case
is then graded on its own matches. Values are cached by position for the submission (the
worker seeds ``random`` by position, so a value is a function of the position), so a
position met again is never sent again. The lost matches the report shows get exact values
for the moves the search pruned at the losing decision (:func:`_fill_in_pruned`).

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
from collections.abc import Generator
from dataclasses import dataclass
from typing import Any

from grader.algorithms.evaluate import ALGORITHM as EVALUATE
from grader.cases import Case
from grader.cases.algorithms import PLAY_ALGORITHMS
from grader.cases.rubric import Rubric
from grader.feedback import play as play_feedback
from grader.feedback import records as match_records
from grader.feedback.markdown import inline_text
from grader.run.evaluation import MAX_POSITIONS
from grader.sandbox.client import Worker
from grader.sandbox.protocol import WorkerReply
from grader.scoring.failure import failure_outcome, note_failure, printed_output
from grader.scoring.results import PASSED, TestResult

EVALUATION_SEED = 0  # the student's random is seeded "<EVALUATION_SEED>:<position id>"
SAMPLE_POSITIONS = 12  # positions the handout's check evaluates
# Matches started beyond the fewest that could decide a side's points (next_matches): a match
# started later waits in rounds of its own, each a request to the worker; a spare costs fewer
# positions than the rounds it saves. One spare for every five matches of a side (issue 45,
# docs/benchmarks.md: the shipped cases 10,872 positions in 169 requests; one spare a side
# 10,946 in 251, two 11,624 in 169).
MATCHES_PER_SPARE = 5

# Grading threads (grade --jobs 2: one a worker) share these three. _CACHES and _PLAYED are by
# worker, so each thread has its own entry (their one-step setdefault/get/pop are atomic). A
# game of _GAMES (and the position memos in it) is one thread's: grade._shares gives every play
# case of a game to one worker (connect4, and chase's assumptions cases, to the first; mnk to
# the second), and a key is a case's data, so of one game; another thread's clear() or pop()
# only makes a thread build its game again. (Two grades in threads, as tests/test_submissions'
# fixture runs, may share a game: its memos remember its rules only, a key at a time, never
# iterated, so that is safe too.)
_CACHES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # worker -> {game key: {id: v}}
_GAMES: dict[str, Any] = {}  # a play case's data -> its game, kept for the next submission
# worker -> {id(case): (case, rubric, records)}: the matches play_ahead played, until graded
_PLAYED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


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
    settings = rubric.settings_for(case, EVALUATE.name)
    for start in range(0, len(missing), MAX_POSITIONS):
        chunk = missing[start:start + MAX_POSITIONS]
        reply = worker.evaluate(case.game or "", case.params, chunk, calls=rubric.play.calls,
                                seed=EVALUATION_SEED, time_limit=settings.time_floor,
                                time_multiple=settings.time_multiple)
        if reply.status != "ok":
            raise EvaluationFailed(reply)
        cache.update(zip(chunk, reply.value))
    return {i: cache[i] for i in ids}


def play_case(case: Case, rubric: Rubric, evaluate: Any, every_match: bool = False
              ) -> list[Any]:
    """Play the case's matches in lockstep; ``evaluate(ids) -> {id: value}``. The records of
    the matches played, in match order (``reference.play.MatchRecord``): with ``[play]
    stop_when_decided`` (and no leaderboard, whose rates are over every match) only as many
    as the points need (:func:`next_matches`), else, or with ``every_match``, all of them."""
    rounds = case_rounds(case, rubric, _game(case), every_match)
    try:
        ids = next(rounds)
        while True:
            ids = rounds.send(evaluate(ids) if ids else {})
    except StopIteration as stop:
        return stop.value


def case_rounds(case: Case, rubric: Rubric, game: Any, every_match: bool = False
                ) -> Generator[list[str], dict[str, float], list[Any]]:
    """:func:`play_case` as a generator: yields each round's position ids (none: a round with
    nothing to evaluate), is sent ``{id: value}`` for them, returns the records."""
    from reference import play

    settings = case.play
    matches = settings.matches or rubric.play.matches
    depth = settings.depth or rubric.play.depth
    opening = rubric.play.opening if settings.opening is None else settings.opening
    records: list[Any] = [None] * matches
    running: dict[int, Any] = {}
    waiting: dict[int, Any] = {}  # match -> the positions it waits for the values of
    stops = rubric.play.stop_when_decided and not rubric.play.leaderboard and not every_match
    ended = -1  # matches ended when next_matches last looked: only an end changes its answer
    while True:
        now_ended = matches - records.count(None)
        started = [] if stops and now_ended == ended else (
            next_matches(records, set(running), rubric, settings.opponent) if stops
            else [i for i in range(matches) if records[i] is None and i not in running])
        ended = now_ended
        for index in started:
            running[index] = play.play_match(game, index, settings.seed, settings.opponent,
                                             depth, opening)
            _advance(index, running[index], None, waiting, records, running)
        if started:
            continue  # one may have ended in its opening: look again
        if not waiting:
            return [record for record in records if record is not None]
        asked = {index: [game.state_id(p) for p in positions]  # each position's id made once
                 for index, positions in waiting.items()}
        waiting = {}
        values = yield [i for match_ids in asked.values() for i in match_ids]
        for index, match_ids in asked.items():
            _advance(index, running[index], [values[i] for i in match_ids], waiting, records,
                     running)


def _request_key(case: Case, rubric: Rubric) -> str:
    """What one request to the worker fixes (the game, its params, the evaluation's limits)
    and what builds the game (its start): cases alike in these share requests and a game
    (:func:`play_ahead`)."""
    settings = rubric.settings_for(case, EVALUATE.name)
    built = {key: case.data.get(key) for key in BUILDS_GAME}
    return json.dumps([built, rubric.play.calls, settings.time_floor, settings.time_multiple],
                      sort_keys=True, default=repr)


# a built-in game case's fields that build_builtin reads (grader/cases/builtin.py)
BUILDS_GAME = ("game", "state", "params", "depth_limit", "value_bounds", "max_sum",
               "quiescence_limit")


def play_ahead(worker: Worker, cases: list[Case], rubric: Rubric) -> None:
    """Play the matches of several play cases graded by ``worker`` together, in lockstep, so
    that each round is one request for all the cases of a game (a case alone asks for a
    round of its own each time: the shipped five cases make 198 requests apart, 169 with the
    cases of a game and visibility together, each request about 1 ms of CPU):
    :func:`grade_play` then takes each case's records from here. The caller passes only
    cases whose tests may follow each other (one visibility: grade.py). The matches are the
    same as apart (each case's matches depend only on the values, which are a function of
    the position). Should a request fail, nothing more is played together: the cases whose
    matches had not all ended are played alone by :func:`grade_play`, as without this (the
    values answered are cached, the failing positions asked again by the case that meets
    them first), so each failure is the case's own, as before; the failing positions are
    then asked twice (a time-out among them counted twice against the submission's CPU
    allowance, once for each group of cases at most: after it each of them plays alone)."""
    if importlib.util.find_spec("reference") is None:
        return
    by_key: dict[str, list[Case]] = {}
    for case in cases:
        by_key.setdefault(_request_key(case, rubric), []).append(case)
    played = _PLAYED.setdefault(worker, {})
    for alike in by_key.values():
        if len(alike) < 2:
            continue  # nothing to share: grade_play plays it alone
        game = _game(alike[0])  # one game: its remembered children serve every case
        rounds = {id(case): case_rounds(case, rubric, game) for case in alike}
        asked: dict[int, list[str]] = {}
        for case in alike:
            _step(rounds, asked, case, None, played, rubric)
        while asked:
            ids = [i for part in asked.values() for i in part]
            try:
                values = evaluate_ids(worker, alike[0], ids, rubric) if ids else {}
            except EvaluationFailed:
                break  # the unfinished cases are played alone (docstring)
            now, asked = asked, {}
            for case in alike:
                if id(case) in now:
                    _step(rounds, asked, case, {i: values[i] for i in now[id(case)]}, played,
                          rubric)
        for generator in rounds.values():
            generator.close()


def _step(rounds: dict[int, Any], asked: dict[int, list[str]], case: Case, values: Any,
          played: dict[int, Any], rubric: Rubric) -> None:
    """Advance one case of :func:`play_ahead` to its next round (kept in ``asked``) or its end
    (its records kept in ``played``)."""
    try:
        asked[id(case)] = (next(rounds[id(case)]) if values is None
                           else rounds[id(case)].send(values))
    except StopIteration as stop:
        played[id(case)] = (case, rubric, stop.value)


def _played_records(worker: Worker, case: Case, rubric: Rubric) -> list[Any] | None:
    """The records :func:`play_ahead` played for ``case`` (taken: asked once), else None."""
    entry = _PLAYED.get(worker, {}).pop(id(case), None)
    if entry is None or entry[0] is not case or entry[1] is not rubric:
        return None
    return entry[2]


def _groups(matches: int, rubric: Rubric) -> list[list[int]]:
    """The match indexes whose scores are summed for one comparison with the thresholds: all
    of them (scored by wins), else each side's (x plays the even ones, o the odd ones)."""
    if rubric.play.by_wins:
        return [list(range(matches))]
    return [list(range(matches))[side::2] for side in (0, 1)]


def _decided(score: float, left: int, size: int, thresholds: list[float], by_wins: bool) -> bool:
    """Whether every threshold is reached already, or out of reach should all ``left``
    matches be won, by a group of ``size`` matches that has scored ``score``
    (:func:`play_score`'s comparison: a rate, or by wins a count, within 1e-9)."""
    scale = 1 if by_wins else size
    return all(score / scale >= t - 1e-9 or (score + left) / scale < t - 1e-9
               for t in thresholds)


def _fewest(score: float, running: int, left: int, size: int, thresholds: list[float],
            by_wins: bool, draw: float) -> int:
    """The fewest of the ``left`` matches not started that, with the ``running`` ones, some
    outcomes of all could decide a group (:func:`next_matches`); ``left`` when none could."""
    gains = {0.0}  # what the running matches and k more can add: wins + draw x draws
    for played in range(1, running + 1):
        gains |= {wins + draw * (played - wins) for wins in range(played + 1)}
    for k in range(left):
        if any(_decided(score + gain, left - k, size, thresholds, by_wins) for gain in gains):
            return k
        played = running + k + 1
        gains |= {wins + draw * (played - wins) for wins in range(played + 1)}
    return left


def spare_matches(side_matches: int) -> int:
    """Matches started beyond the fewest that could decide a side of ``side_matches``."""
    return -(-side_matches // MATCHES_PER_SPARE)


def next_matches(records: list[Any], running: set[int], rubric: Rubric, opponent: str
                 ) -> list[int]:
    """The matches to start now (``records``: each match's record, None until it ends;
    ``running``: those started and not ended). For each group of matches (:func:`_groups`)
    whose points the ended ones do not decide: its first matches not started, as few as
    could decide them with the running ones, by some outcomes of all (none while the running
    ones could). A function of the outcomes and of the rounds each match takes, neither of
    which depends on the machine: the matches played, like the points, are the same at any
    load; and the points are those every match would give, as the rest could not change
    them."""
    weight = {"win": 1.0, "draw": rubric.play.draw_weight, "loss": 0.0}
    thresholds = rubric.play.thresholds_for(opponent)
    by_wins = rubric.play.by_wins
    start = []
    for group in _groups(len(records), rubric):
        score = sum(weight[records[i].outcome] for i in group if records[i] is not None)
        open_ = sum(1 for i in group if i in running)
        left = [i for i in group if records[i] is None and i not in running]
        if not left or _decided(score, open_ + len(left), len(group), thresholds, by_wins):
            continue
        fewest = _fewest(score, open_, len(left), len(group), thresholds, by_wins,
                         weight["draw"])
        start += left[:fewest + spare_matches(len(group))] if fewest else []
    return sorted(start)


def forget_game(case: Case) -> None:
    """Drop the case's game, and the staff evaluation's positions, with what they remember
    (:func:`_game`): a one-off grade (``grader grade``) has no next submission to reuse them,
    and the play cases' memos kept to the end were 22 MB of its peak (six cases)."""
    _GAMES.pop(json.dumps(case.data, sort_keys=True, default=repr), None)
    if importlib.util.find_spec("reference") is not None:
        from reference.evaluations import forget_positions

        forget_positions()


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


@dataclass(frozen=True)
class PlayScore:
    """A played case's score (:func:`play_score`)."""

    value: float  # wins + draw_weight x draws over all the matches
    rates: dict[str, float]  # side ("x", "o") -> score rate over that side's matches
    thresholds: list[float]  # the opponent's rates (or win counts, scored by wins)
    reached: float  # thresholds reached (by score rates: a half for each side reaching one)
    points: float
    full: float  # the points all thresholds give
    by_wins: bool
    wins_losses: tuple[int, int] = (0, 0)
    planned: int = 0  # the case's matches (more than were played when play stopped, decided)

    @property
    def margin(self) -> int:
        """Wins minus losses."""
        return self.wins_losses[0] - self.wins_losses[1]


def play_score(outcomes: list[Any], rubric: Rubric, opponent: str, matches: int | None = None
               ) -> PlayScore:
    """The score of a case's matches under ``rubric`` (:class:`PlayRubric`'s docstring says
    how); ``outcomes``: the match records, or (side, outcome) pairs; ``matches``: the case's
    matches, when play stopped before the last (:func:`next_matches`): a side's rate is then
    compared as over all of its matches, the unplayed ones lost (its points are decided, so
    the same as had they been played); the rates shown are over the matches played."""
    pairs = [(o.side, o.outcome) if hasattr(o, "side") else tuple(o) for o in outcomes]
    weight = {"win": 1.0, "draw": rubric.play.draw_weight, "loss": 0.0}
    value = sum(weight[outcome] for _, outcome in pairs)
    rates, counted = {}, {}
    planned = {"x": (matches + 1) // 2, "o": matches // 2} if matches else {}
    for side in ("x", "o"):
        mine = [weight[outcome] for s, outcome in pairs if s == side]
        rates[side] = sum(mine) / len(mine) if mine else 0.0
        size = max(planned.get(side, 0), len(mine))
        counted[side] = sum(mine) / size if size else 0.0
    thresholds = rubric.play.thresholds_for(opponent)
    if rubric.play.by_wins:
        reached: float = sum(1 for t in thresholds if value >= t - 1e-9)
    else:  # half of each step for each side whose score rate reaches it
        reached = sum(0.5 for t in thresholds for rate in counted.values() if rate >= t - 1e-9)
    wins = sum(outcome == "win" for _, outcome in pairs)
    losses = sum(outcome == "loss" for _, outcome in pairs)
    return PlayScore(value, rates, thresholds, reached, reached * rubric.play.threshold_points,
                     len(thresholds) * rubric.play.threshold_points, rubric.play.by_wins,
                     (wins, losses), max(matches or 0, len(pairs)))


def grade_play(case: Case, result: TestResult, rubric: Rubric, worker: Worker) -> TestResult:
    """Grade an ``evaluate`` case into ``result`` (its name, number and visibility set)."""
    if importlib.util.find_spec("reference") is None:
        return _sample_check(case, result, rubric, worker)
    try:
        records = _played_records(worker, case, rubric)
        if records is None:
            records = play_case(case, rubric,
                                lambda ids: evaluate_ids(worker, case, ids, rubric))
    except EvaluationFailed as failed:
        reply = failed.reply
        result.outcome, message = failure_outcome(reply)
        if reply.status == "budget":
            result.outcome = "budget"
            message = (f"`evaluate` was stopped: {inline_text(reply.message)} (the budget is "
                       f"{rubric.play.calls} calls an evaluation).")
        result.summary = message.splitlines()[0]
        result.output = message + ("" if result.hidden else printed_output(reply))
        note_failure(result, reply)
        return result
    planned = case.play.matches or rubric.play.matches
    score = play_score(records, rubric, case.play.opponent, planned)
    result.score = round(result.max_score * (score.points / score.full if score.full else 0.0), 6)
    result.outcome = PASSED if score.points >= score.full else "wrong_value"
    game = _game(case)  # the one the matches used: its positions are remembered already
    depth = case.play.depth or rubric.play.depth
    wins, losses = score.wins_losses
    result.extra_data = {"score": {"rate": round(score.value / len(records), 6),
                                   "rates": {k: round(v, 6) for k, v in score.rates.items()},
                                   "matches": len(records), "wins": wins, "losses": losses}}
    losing = _losing_choices(game, records, depth)
    # The follow-up requests (the pruned moves' values, the hint's) cannot change the score,
    # so a failure costs the submission nothing: after the first, none is made (a submission
    # that times out on each would take the grader's time for free, a worker restart each).
    answered = _fill_in_pruned(worker, case, rubric, game, losing.values(), depth)
    result.summary, result.output = play_feedback.report(
        game, case.play.opponent, records, score, rubric.play.draw_weight, losing)
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
        result.score / result.max_score if result.max_score else 0.0, planned)
    return result


def leaderboard(tests: list[TestResult]) -> list[dict[str, Any]]:
    """Gradescope leaderboard entries from the evaluate tests against the baseline: the score
    rate over all their matches and wins minus losses; none without such a test."""
    played = [t.extra_data["score"] for t in tests if t.algorithm in PLAY_ALGORITHMS
              and "score" in (t.extra_data or {}) and "baseline" in t.case_name]
    if not played:
        return []
    matches = sum(p["matches"] for p in played)
    rate = sum(p["rate"] * p["matches"] for p in played) / matches
    margin = sum(p["wins"] - p["losses"] for p in played)
    return [{"name": "evaluate: score rate vs baseline", "value": round(rate, 4)},
            {"name": "evaluate: wins - losses vs baseline", "value": margin}]


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
    staff_values = {}
    for state_id, mine in values.items():
        staff = staff_values[state_id] = reference_evaluation(game, game.state_from_id(state_id))
        staff_negative += staff < 0
        if abs(staff) >= 1 and mine != 0:
            agree[state_id.count("x") == state_id.count("o")].append((staff > 0) == (mine > 0))
    share = {side: sum(kept) / len(kept) for side, kept in agree.items()
             if len(kept) >= MIN_EVIDENCE}
    if share.get(True, 0) >= 0.8 and share.get(False, 1) <= 0.2:
        return ("your values have the right sign when x is to move and the wrong one when o is: "
                "`evaluate` returns the value for the player to move (negamax's convention), "
                "but the search wants the value for MAX (x) whoever is to move: larger better "
                "for x, in every position.")
    if share and all(value <= 0.2 for value in share.values()):
        return ("your values have the wrong sign almost everywhere: larger must be better for "
                "MAX (x), smaller for MIN (o).")
    if min(values.values()) >= 0 and staff_negative >= 0.2 * len(values):
        return ("your values never go below 0, even where o is clearly ahead: does `evaluate` "
                "count o's windows and threats against x?")
    if len(values) >= NOISE_EVIDENCE and abs(rank_correlation(
            [values[i] for i in values], [staff_values[i] for i in values])) < NOISE_CORRELATION:
        return ("your values look unrelated to the position: they do not rise and fall with "
                "who is ahead (windows, threats), so the search plays almost at random except "
                "for the wins and losses it sees. Is `evaluate` reading `game.board(state)`?")
    return ""


NOISE_EVIDENCE = 50  # positions the noise hint needs
NOISE_CORRELATION = 0.15  # below this rank correlation with the staff's values: unrelated


def rank_correlation(first: list[float], second: list[float]) -> float:
    """Spearman's rank correlation (ties get their mean rank); 0 when either is constant."""
    def ranks(values: list[float]) -> list[float]:
        order = sorted(range(len(values)), key=values.__getitem__)
        out = [0.0] * len(values)
        start = 0
        while start < len(order):
            end = start
            while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
                end += 1
            for k in range(start, end + 1):
                out[order[k]] = (start + end) / 2
            start = end + 1
        return out

    a, b = ranks(first), ranks(second)
    mean_a, mean_b = sum(a) / len(a), sum(b) / len(b)
    cov = sum((x - mean_a) * (y - mean_b) for x, y in zip(a, b))
    var_a = sum((x - mean_a) ** 2 for x in a)
    var_b = sum((y - mean_b) ** 2 for y in b)
    return cov / (var_a * var_b) ** 0.5 if var_a and var_b else 0.0


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
        searched = play.search_in_full(game, state, depth)
        try:
            values = evaluate_ids(worker, case, list(searched.positions), rubric)
        except EvaluationFailed:
            return False
        decision.values = searched.values(values)
        decision.pruned = {}
    return True


def _sample_check(case: Case, result: TestResult, rubric: Rubric, worker: Worker) -> TestResult:
    """The handout's check: ``evaluate`` on sample positions, for 0 points (passed when every
    value is a finite number)."""
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
    pairs = play_feedback.mirror_pairs(game, list(positions))
    asked = list(dict.fromkeys([*positions, *(i for pair in pairs for i in pair)]))
    try:
        values = evaluate_ids(worker, case, asked, rubric)
    except EvaluationFailed as failed:
        result.outcome, message = failure_outcome(failed.reply)
        result.summary = message.splitlines()[0]
        result.output = message + printed_output(failed.reply)
        note_failure(result, failed.reply)
        return result
    flags = play_feedback.surely_wrong(game, values, pairs)
    # what can be checked here holds (or not): the points come from play, on the autograder
    result.outcome = "wrong_value" if flags else PASSED
    result.summary = (flags[0] if flags else
                      f"evaluate ran on {len(positions)} sample positions and passed the sign "
                      f"checks; the matches against {case.play.opponent} are played by the "
                      "autograder (grader play plays them with your own alpha_beta)")
    result.output = play_feedback.sample_report(game, list(positions), values, pairs, flags)
    result.extra_data = {"show_output": True}
    return result
