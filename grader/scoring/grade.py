"""The grading loop: every (case, algorithm) pair becomes one scored :class:`TestResult`.

Reference answers come from the answer key (:mod:`grader.answers.store`: computed in the
grader's process, never in the worker, and cached by case content); the student's function runs
in the sandbox worker under a work budget counted in game calls (:func:`work_budget`: at most
``work_multiple`` times the reference's ``result`` calls on that case plus ``work_floor``, and
the same for ``utility``/``evaluate`` calls), so the same submission gets the same score on any
machine at any load. A search stopped by its budget is graded on what it did: no value, its
trace so far compared with the reference's. Time is only a backstop for code that stops calling
the game (CPU seconds, :mod:`grader.sandbox.watch`); the reference's seconds are informational.
Visible tests run before all others in the one worker a submission gets.

Scores: a passing test earns its points; a right value with a wrong trace earns the rubric's
``partial_credit`` fraction; anything else earns 0. Under ``pruning: either`` the student may
match the trace of either rule. MCTS ``outcome`` cases run several seeds and pass when the
chosen move is minimax-optimal in at least the rubric's share of them.
"""

from __future__ import annotations

import contextlib
import os
import time
import traceback
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable

import grader.algorithms as algorithm_specs
from grader.algorithms.assumptions import ALGORITHM as ASSUMPTIONS
from grader.answers import tree_walk
from grader.answers.store import AnswerKey
from grader.cases import Case, find_cases, load_case
from grader.cases.algorithms import PLAY_ALGORITHMS, PLAY_GAMES
from grader.cases.rubric import Rubric, load_rubric
from grader.errors import CaseError, GraderError, SubmissionError
from grader.feedback import deepening, diagnosis, explain, savings
from grader.feedback.verdict import Observation
from grader.footprint import release_free_memory
from grader.sandbox.audit import record_audit
from grader.sandbox.client import Worker
from grader.sandbox.portable import open_worker
from grader.sandbox.limits import Limits, worker_users
from grader.sandbox.submission import Choice
from grader.scoring import upload
from grader.scoring.assumptions import staff_side, submission_tables
from grader.scoring.named import name_mistakes
from grader.scoring.pair import accepted_rules, grade_pair, kept_root_stub, pair_mcts_outcomes
from grader.scoring.play import forget_game, leaderboard, play_ahead
from grader.scoring.results import (
    ALGORITHM_NUMBERS,
    GRADER_ERROR,
    NEUTRAL_GRADER_ERROR,
    GradingResults,
    TestResult,
)

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor


def prepare_answers(cases: Iterable[Case], rubric: Rubric, answers: AnswerKey, *,
                    staff_matches: bool = True) -> None:
    """Compute every reference answer grading these cases will ask ``answers`` for.

    ``grader build handout`` calls this so the handout's key holds everything ``grader check``
    needs without ``reference/``; it passes ``staff_matches=False``: the staff's side of the
    ``assumptions`` matches (the reference's moves) is the autograder's only, since the
    handout's check of those cases asks for no reference move.
    """
    for case in cases:
        if staff_matches and ASSUMPTIONS.name in case.algorithms:
            staff_side(case, rubric, answers)  # the reference's table, searches, ghost moves
        if all(algorithm in PLAY_ALGORITHMS for algorithm in case.algorithms):
            continue  # graded by play: no reference answers, no tree to draw
        tree_walk.node_values(case, answers)  # the HTML pictures' values, for the handout
        for algorithm in case.algorithms:
            spec = algorithm_specs.get(algorithm)
            if spec.by_play:  # graded by play: no reference answers
                continue
            if spec.iterations and case.mcts is not None and case.mcts.check == "outcome":
                kept_root_stub(case, algorithm, answers)
                answers.optimal_actions(case)
                answers.reference(case, algorithm, "inclusive", seed=case.mcts.seed)
                continue
            kept_root_stub(case, algorithm, answers)  # the worker's request names it
            course_rule = rubric.for_algorithm(algorithm).pruning
            for rule in accepted_rules(case.pruning, course_rule):
                answers.reference(case, algorithm, rule)
                explain.cached_steps(case, algorithm, rule, answers)  # none without a replay
                if spec.returns_pair:
                    deepening.ordering_counts(case, rule, answers)  # nodes saved by ordering
                if spec.takes_table:
                    savings.table_counts(case, answers)  # nodes saved by the table
            diagnosis.cached_runs(case, algorithm, course_rule, answers)  # the named mistakes
            if spec.window:  # both rules: the report shows a student's rule too
                for rule in ("inclusive", "strict"):
                    diagnosis.window_moments(case, rule, answers)


def _case_error_result(path: Path, error: Exception, number: str) -> TestResult:
    """A case file that cannot be loaded: staff get the detail; students see a neutral line
    (not the file's name: it may be a hidden case's) and lose nothing (no points are at stake)."""
    detail = str(error) if isinstance(error, CaseError) else traceback.format_exc()
    return TestResult(
        name="grader error: a case could not be loaded",
        number=number,
        algorithm="grader",
        case_name=path.stem,
        max_score=0.0,
        score=0.0,
        outcome=GRADER_ERROR,
        output=NEUTRAL_GRADER_ERROR,
        staff_output=f"{path}: {detail}",
        summary="a case could not be loaded; staff have been told",
    )


def _grade_safely(case: Case, algorithm: str, number: str, rubric: Rubric, worker: Worker,
                  answers: AnswerKey, notes: list[str],
                  observed: list[tuple[TestResult, Observation]] | None = None) -> TestResult:
    """:func:`grade_pair`, with a grader bug turned into a test staff can see and regrade.

    The test keeps its name, points and visibility (removing its points would cost the student
    them silently against the assignment's total); its score is 0 until staff regrade. The
    staff note goes to ``notes``, the test's own (the results' take them in test order)."""
    try:
        return grade_pair(case, algorithm, number, rubric, worker, answers, observed)
    except Exception as error:  # a grader bug: staff see it, the student is told so
        settings = rubric.settings_for(case, algorithm)
        notes.append(f"{case.name}/{algorithm}: {error!r}")
        return TestResult(
            name=f"{algorithm}: {case.name} ({case.description})", number=number,
            algorithm=algorithm, case_name=case.name, max_score=float(settings.points),
            score=0.0, outcome=GRADER_ERROR, visibility=settings.visibility,
            output=NEUTRAL_GRADER_ERROR, staff_output=traceback.format_exc(),
            summary="the grader failed on this test; staff have been told",
        )


PLAY_COST = 300_000  # a play case's estimated cost, in the reference's game calls
MCTS_CALL_COST = 20  # game calls estimated an MCTS iteration (its playout)


def _cost(case: Case, algorithm: str, rubric: Rubric, answers: AnswerKey) -> int:
    """A test's estimated cost in game calls: the reference's trace on the case (the answer key
    holds it), a playout's calls an MCTS iteration a seed, a constant for a play case."""
    if algorithm in PLAY_ALGORITHMS:
        return PLAY_COST
    try:
        if algorithm_specs.get(algorithm).iterations and case.mcts is not None:
            seeds = (case.mcts.seeds or rubric.settings_for(case, algorithm).outcome_seeds
                     if case.mcts.check == "outcome" else 1)
            return MCTS_CALL_COST * case.mcts.iterations * seeds
        run = answers.reference(case, algorithm, rubric.for_algorithm(algorithm).pruning,
                                packed=True).run  # lengths only: long traces stay packed
        return len(run.generated) + len(run.evaluated)
    except Exception:  # noqa: BLE001 - grading the test says what is wrong with it
        return 1_000


def _plays_positions(algorithm: str) -> bool:
    """Whether the algorithm's tests play matches on the student's values of positions (the
    ones :func:`play_ahead` plays together); other play-graded ones (the modeling
    assumptions' matches) have no such matches and are graded alone."""
    return algorithm_specs.get(algorithm).call == "positions"


SHARES = 2  # workers a grade's tests are shared among, on one core as on two (grade's jobs)
# Estimated game calls (_cost) from which a grade's tests are shared among SHARES workers: below
# it one worker grades them all, since a second worker's start (an interpreter and the grader's
# modules, about 0.1 CPU s, a quarter of a one-case grade) costs more than such tests do. A
# function of the cases only, whatever jobs is, so a submission sees the same workers either
# way. Every course's whole assignment is far above it (the bundled cases: 2.2 million).
SHARED_FROM = 20_000
SHARED_FROM_VARIABLE = "GRADER_SHARE_FROM"  # overrides SHARED_FROM (0: always shared)


def _shared_from() -> int:
    """:data:`SHARED_FROM`, or ``$GRADER_SHARE_FROM`` when set (a whole number >= 0)."""
    given = os.environ.get(SHARED_FROM_VARIABLE)
    if given is None or not given.strip():
        return SHARED_FROM
    try:
        value = int(given)
    except ValueError:
        value = -1
    if value < 0:
        raise GraderError(f"{SHARED_FROM_VARIABLE}: expected a whole number of game calls >= 0 "
                          f"(0: always share a grade's tests among {SHARES} workers), got: "
                          f"{given!r}")
    return value


class _Costs:
    """Each test's :func:`_cost`, estimated once a grade: :func:`_worker_count` and
    :func:`_shares` both read them (a whole grade's first tests were looked up twice)."""

    def __init__(self, rubric: Rubric, answers: AnswerKey) -> None:
        self.rubric, self.answers = rubric, answers
        self._known: dict[tuple[int, str], int] = {}  # (id of the case, algorithm) -> cost

    def __call__(self, case: Case, algorithm: str) -> int:
        found = self._known.get((id(case), algorithm))
        if found is None:  # the grade's cases live as long as it does: their ids stay theirs
            found = self._known[id(case), algorithm] = _cost(case, algorithm, self.rubric,
                                                            self.answers)
        return found


def _worker_count(items: list[tuple[Case, str]], cost: _Costs) -> int:
    """How many workers a grade's tests are shared among: :data:`SHARES` when their estimated
    cost reaches :func:`_shared_from`, else one (and one for a single test)."""
    if len(items) < 2:
        return 1
    threshold, total = _shared_from(), 0
    for case, algorithm in items:
        if total >= threshold:
            break  # the rest need no estimate to decide
        total += cost(case, algorithm)
    return SHARES if total >= threshold else 1


def _in_parallel(workers: list[Worker], items: list[tuple[Case, str, str]], grading: _Grading,
                 pool: ThreadPoolExecutor | None
                 ) -> list[tuple[TestResult, list[tuple[TestResult, Observation]], list[str]]]:
    """Each ``(case, algorithm, number)`` graded, with what it observed and its staff notes,
    in ``items``' order.

    With several workers, the tests are shared out before any runs (:func:`_shares`), each
    share run in ``items``' order: in a thread of ``pool`` when there is one (the GIL is
    released while the grader waits for its worker, where most of a grade's CPU is spent), else
    one share after the other. So how many run at once never changes what a worker sees."""
    if len(workers) == 1 or len(items) < 2:
        return [test for _, test in grading.graded_in_turn(workers[0], items,
                                                           list(range(len(items))))]
    shares = _shares(items, len(workers), grading.cost)

    def run(worker: Worker, share: list[int]) -> list[tuple[int, Any]]:
        return grading.graded_in_turn(worker, items, share)

    graded: dict[int, Any] = {}
    for part in (pool.map if pool is not None else map)(run, workers, shares):
        graded.update(part)
    return [graded[index] for index in range(len(items))]


def _shares(items: list[tuple[Case, str, str]], count: int, cost: _Costs) -> list[list[int]]:
    """``items``' indices shared among ``count`` workers, each share in ``items``' order: a
    game's play cases to one worker (by the game, so in every phase the same: the student's
    values are cached by position a worker, play.evaluate_ids, and a game's cases meet the same
    positions), then the others by their estimated cost (:func:`_cost`, the largest first,
    each to the least loaded worker). A function of the cases only, so a regrade gives each
    worker the same tests in the same order."""
    shares: list[list[int]] = [[] for _ in range(count)]
    loads = [0] * count
    costs = [cost(case, algorithm) for case, algorithm, _ in items]
    others = []
    for index, (case, algorithm, _) in enumerate(items):
        if algorithm not in PLAY_ALGORITHMS:
            others.append(index)
            continue
        game = PLAY_GAMES.index(case.game) if case.game in PLAY_GAMES else 0
        shares[game % count].append(index)
        loads[game % count] += costs[index]
    for index in sorted(others, key=lambda i: (-costs[i], i)):
        least = loads.index(min(loads))
        shares[least].append(index)
        loads[least] += costs[index]
    return [sorted(share) for share in shares]


class _Grading:
    """One submission's grading under way: what each test needs (rubric, answer key, the
    results for staff notes) and what the tests add up to, in the order they are recorded: the
    tests, what each observed (for the named mistakes) and the numbers given per algorithm."""

    def __init__(self, rubric: Rubric, answers: AnswerKey, results: GradingResults,
                 progress: Callable[[TestResult], None] | None, keep_games: bool) -> None:
        self.rubric, self.answers, self.results = rubric, answers, results
        self.cost = _Costs(rubric, answers)  # each test's estimated cost, once
        self.progress, self.keep_games = progress, keep_games
        self.counters = {name: 0 for name in ALGORITHM_NUMBERS}  # tests numbered so far
        self.observed: list[tuple[TestResult, Observation]] = []

    def record(self, test: TestResult) -> None:
        self.results.tests.append(test)
        if self.progress:
            self.progress(test)

    def run(self, workers: list[Worker], pool: ThreadPoolExecutor | None,
            items: list[tuple[Case, str]]) -> None:
        """``items`` numbered on from the counters, graded, and recorded in their order (their
        staff notes too: two threads grading at once would append them in the order of their
        timing, and results.json must not depend on it)."""
        numbered = list(upload.numbered(items, self.counters))
        for test, seen, notes in _in_parallel(workers, numbered, self, pool):
            self.observed.extend(seen)
            self.results.staff_notes.extend(notes)
            self.record(test)

    def graded_in_turn(self, worker: Worker, items: list[tuple[Case, str, str]],
                       share: list[int]) -> list[tuple[int, Any]]:
        """The share's tests in order, a play case's matches played, when it comes up, with
        those of the share's later play cases of its visibility (play.play_ahead: one request
        a round for the cases of a game, the same matches): never before a test of an earlier
        visibility, which must not see (and print) what a later one's evaluation was asked."""
        done: set[int] = set()
        graded = []
        for at, index in enumerate(share):
            case, algorithm, _ = items[index]
            if _plays_positions(algorithm) and index not in done:
                seen = self.rubric.settings_for(case, algorithm).visibility
                alike = [i for i in share[at:] if _plays_positions(items[i][1]) and
                         self.rubric.settings_for(items[i][0], items[i][1]).visibility == seen]
                done.update(alike)
                play_ahead(worker, [items[i][0] for i in alike], self.rubric)
            graded.append((index, self.grade_one(worker, *items[index])))
        return graded

    def grade_one(self, worker: Worker, case: Case, algorithm: str, number: str
                  ) -> tuple[TestResult, list[tuple[TestResult, Observation]], list[str]]:
        """One test, what it observed and its staff notes (a grader error's); a play case's
        game dropped after it unless kept."""
        seen: list[tuple[TestResult, Observation]] = []
        notes: list[str] = []
        test = _grade_safely(case, algorithm, number, self.rubric, worker, self.answers, notes,
                             seen)
        if algorithm in PLAY_ALGORITHMS and not self.keep_games:
            forget_game(case)
            release_free_memory()
        return test, seen, notes


def _thread_pool(count: int) -> ThreadPoolExecutor:
    """A pool of ``count`` threads (imported here: one worker, the default, needs none, and
    concurrent.futures with the logging it imports is 1.2 MB of the grader's peak)."""
    from concurrent.futures import ThreadPoolExecutor

    return ThreadPoolExecutor(count)


class _NoRandomTrees:
    """What :func:`_random_trees` gives when the rubric gives random trees no points."""

    @staticmethod
    def random_tree_tests(*_: Any) -> list[TestResult]:
        return []

    @staticmethod
    def handout_note(*_: Any) -> str:
        return ""


def _random_trees(rubric: Rubric) -> Any:
    """:mod:`grader.scoring.random_trees`, imported only when the rubric gives random trees
    points: it imports hypothesis, about a third of ``grader grade``'s memory and start-up."""
    if not any(rubric.random_trees.points_for(name) for name in ALGORITHM_NUMBERS):
        return _NoRandomTrees
    from grader.scoring import random_trees

    return random_trees


def grade(
    submission: Path,
    case_paths: Iterable[Path],
    *,
    rubric: Rubric | None = None,
    algorithms: Iterable[str] | None = None,
    name_filter: str | None = None,
    limits: Limits | None = None,
    answers: AnswerKey | None = None,
    progress: Callable[[TestResult], None] | None = None,
    load: Callable[[Path], Case] | None = None,
    jobs: int = 1,
    keep_games: bool = True,
) -> GradingResults:
    """Grade ``submission`` (a ``search.py``, a folder or zip holding one) on the cases.

    Reference answers come from ``answers`` (default: :meth:`AnswerKey.default`), which
    computes and caches what it does not hold yet. ``load`` reads a case file (default:
    :func:`~grader.cases.load_case`; a batch passes cases it loaded once). ``jobs``: workers
    grading at once. The tests are shared among :data:`SHARES` workers whatever ``jobs`` is
    (:func:`_in_parallel`; one worker for a grade estimated under :data:`SHARED_FROM` game
    calls, whose tests cost less than a second worker's start), and ``jobs`` only says how many
    of them run at once: a submission
    that keeps state between calls sees the same tests in the same order on one core as on two,
    so its results are the same (docs/security.md). ``keep_games``: keep
    each play case's game, and what it remembers of positions, for the next submission (a
    batch); ``grader grade`` grades one and drops each when its case is graded (a smaller
    peak, the same results: a game's memos remember its rules only).
    """
    started = time.perf_counter()
    rubric = rubric or load_rubric()
    answers = answers or AnswerKey.default()
    wanted = set(algorithms) if algorithms else None
    results = GradingResults()
    planned = _planned(_load_cases(case_paths, load or load_case, results), wanted, name_filter)
    try:
        graded_file = upload.which_file(submission)
    except SubmissionError as error:  # one message, not one a test
        points = upload.planned_points(rubric, planned, wanted, name_filter)
        upload.nothing_graded(results, error, points)
        results.execution_time = time.perf_counter() - started
        return results
    grading = _Grading(rubric, answers, results, progress, keep_games)
    worker = _run_tests(grading, submission, planned, limits, jobs, wanted, name_filter)
    _conclude(grading, submission, graded_file, worker, wanted, name_filter)
    results.execution_time = time.perf_counter() - started
    return results


def _load_cases(case_paths: Iterable[Path], load: Callable[[Path], Case],
                results: GradingResults) -> list[Case]:
    """The cases that load; a broken one is the grader's failure, never the student's: a
    test of its own (no points) and a staff note."""
    cases: list[Case] = []
    for path in find_cases(list(case_paths)):
        try:
            cases.append(load(path))
        except Exception as error:
            number = f"9.{len(results.staff_notes) + 1}"
            results.tests.append(_case_error_result(path, error, number))
            results.staff_notes.append(f"{path}: {error}")
    return cases


def _planned(cases: list[Case], wanted: set[str] | None,
             name_filter: str | None) -> list[tuple[Case, str]]:
    """The (case, algorithm) tests to grade, in case order: those of the wanted algorithms
    whose ``algorithm: case`` name holds ``name_filter``."""
    return [(case, algorithm) for case in cases for algorithm in case.algorithms
            if not ((wanted and algorithm not in wanted) or (
                name_filter and name_filter not in f"{algorithm}: {case.name}"))]


def _in_visibility_order(planned: list[tuple[Case, str]], rubric: Rubric
                         ) -> tuple[list[tuple[Case, str]], list[tuple[Case, str]]]:
    """(the visible tests, the others by visibility). Visible tests run before the others:
    one worker serves every test, so a submission could keep what it saw on a hidden case in
    a global and print it in a later visible test. They are numbered first too (then each
    visibility in turn), so numbers reveal no hidden count."""
    def visibility(item: tuple[Case, str]) -> str:
        return rubric.settings_for(item[0], item[1]).visibility

    shown = [item for item in planned if visibility(item) == "visible"]
    return shown, upload.by_visibility([item for item in planned if item not in shown],
                                       visibility)


def _run_tests(grading: _Grading, submission: Path, planned: list[tuple[Case, str]],
               limits: Limits | None, jobs: int, wanted: set[str] | None,
               name_filter: str | None) -> Worker:
    """Every planned test graded and recorded: the visible ones, the random-tree tests, the
    others. The tests are shared among up to :data:`SHARES` workers whatever ``jobs`` is (one
    for a grade estimated under :data:`SHARED_FROM` game calls: :func:`_worker_count`); ``jobs``
    only says how many run at once (see :func:`grade`). Returns the first worker."""
    shown, not_shown = _in_visibility_order(planned, grading.rubric)
    # as root, each worker a user of its own: one cannot signal (kill) another where Landlock
    # cannot scope signals (both the default user where job slots cannot be claimed)
    users = worker_users(_worker_count(planned, grading.cost))
    count = max(1, min(jobs, len(users)))  # how many of them grade at once
    with contextlib.ExitStack() as stack:
        # threads that outlive every worker: a worker dies with the thread that started it
        # (PR_SET_PDEATHSIG), and one may start a fresh worker after a time-out; the workers
        # are closed (below, first out) before the pool's threads end
        pool = stack.enter_context(_thread_pool(count)) if count > 1 else None
        # the grader's own measure of this machine (batch: once for all), so the worker need not
        workers = [stack.enter_context(open_worker(
            submission, limits=limits or Limits(), calibration=grading.answers.calibration(),
            user=user)) for user in users]
        worker = workers[0]
        for other in workers[1:]:  # one submission, one allowance; its import printed once
            other.account, other.show_import_output = worker.account, False
        grading.run(workers, pool, shown)
        for test in _random_trees(grading.rubric).random_tree_tests(
                grading.rubric, worker, grading.counters, wanted, name_filter):
            grading.record(test)  # numbered after the algorithm's visible cases
        grading.run(workers, pool, not_shown)
    return worker


def _conclude(grading: _Grading, submission: Path, graded_file: Choice, worker: Worker,
              wanted: set[str] | None, name_filter: str | None) -> None:
    """What needs every test: the MCTS outcome caps, the leaderboard, the named mistakes, the
    submission's message, the audit; then the results cleaned, sorted, the key saved."""
    results, rubric = grading.results, grading.rubric
    pair_mcts_outcomes(results.tests)
    if rubric.play.leaderboard:
        results.leaderboard = leaderboard(results.tests)
    grader_failed = any(test.outcome == GRADER_ERROR for test in results.tests)
    named = name_mistakes(grading.observed, grading.answers, results)  # one an algorithm
    # the lectures' 2 x 2 table from the visible assumptions tests (a hidden test's matches
    # are not the student's to see before its results are)
    tables = submission_tables([t for t in results.tests if t.visibility == "visible"])
    results.output = "\n\n".join(filter(None, [
        graded_file.message(), results.output, named,
        "\n\n".join(["**Modeling assumptions** (the lectures' table: your agents beside the "
                      "reference's)", *tables]) if tables else "",
        NEUTRAL_GRADER_ERROR if grader_failed else "",
        worker.notebook.note if worker.notebook else "",  # IPython lines dropped
        _random_trees(rubric).handout_note(rubric, wanted, name_filter)]))
    record_audit(submission, results)  # staff only (extra_data, a staff note); never a deduction
    results.clean()  # no NUL or lone surrogate leaves the model
    grading.answers.save()
    results.tests.sort(key=lambda test: tuple(int(part) for part in test.number.split(".")))
