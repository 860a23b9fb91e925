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

import time
import traceback
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Iterable

from grader.answers import tree_walk
from grader.answers.store import AnswerKey, Reference
from grader.cases import Case, find_cases, load_case
from grader.cases.algorithms import PAIR_ALGORITHMS
from grader.cases.rubric import Rubric, load_rubric
from grader.compare import Comparison, ValueCheck, compare
from grader.errors import CaseError, SubmissionError
from grader.feedback import deepening, diagnosis, explain
from grader.feedback import failure as feedback
from grader.feedback.markdown import fenced
from grader.feedback.verdict import Observation
from grader.run.runner import RunResult
from grader.run.tracing import Budget
from grader.sandbox.audit import record_audit
from grader.sandbox.client import Worker
from grader.sandbox.portable import open_worker
from grader.sandbox.limits import Limits
from grader.sandbox.protocol import WorkerReply
from grader.scoring import upload
from grader.scoring.budget import budget_message, timing_data, work_budget
from grader.scoring.named import name_mistakes
from grader.scoring.results import (
    ALGORITHM_NUMBERS,
    GRADER_ERROR,
    NEUTRAL_GRADER_ERROR,
    PASSED,
    GradingResults,
    TestResult,
)

NOT_IMPLEMENTED = "NotImplementedError"
TRACE_MULTIPLE, TRACE_SLACK = 20, 10_000  # a student's trace is kept up to this (see grade_pair)
SANDBOX_ERRORS = ("OutputLimitExceeded", "SandboxViolation", "ScratchLimitExceeded")


def accepted_rules(case_rule: str | None, course_rule: str) -> list[str]:
    """The pruning rules whose traces pass, the course's own rule first."""
    if case_rule == "either":
        return [course_rule] + [rule for rule in ("inclusive", "strict") if rule != course_rule]
    return [case_rule or course_rule]


def _failure_outcome(reply: WorkerReply) -> tuple[str, str]:
    """(outcome, Markdown message) for a reply that carries no answer."""
    error = reply.error or {}
    if reply.status == "error" and error.get("type") == NOT_IMPLEMENTED:
        return "not_implemented", f"`{reply.function}` is not implemented yet (it raises NotImplementedError)."
    if reply.status == "missing_function":
        return "missing", f"`search.py` has no function `{reply.function}`; the grader calls it by that name."
    if reply.status == "import_error":
        return "error", "`search.py` could not be imported, so nothing in it could be graded:\n" + _error_block(error)
    if reply.status in ("timeout", "killed_timeout"):
        # Never "does not prune": a search still calling the game meets its budget, not this.
        return "timeout", (
            f"`{reply.function or 'search.py'}` was stopped by the time limit: {reply.message}."
        )
    if reply.status == "crashed":
        return "crashed", f"The process running `{reply.function}` died: {reply.message}."
    if error.get("type") in SANDBOX_ERRORS:  # the sandbox stopped it: its message says why
        return "error", f"`{reply.function}` failed: {error.get('message', '')}."
    return "error", f"`{reply.function}` raised an exception:\n" + _error_block(error)


def _error_block(error: dict[str, Any]) -> str:
    text = error.get("traceback") or f"{error.get('type', 'Error')}: {error.get('message', '')}"
    return fenced(text.rstrip())


def _student_output(reply: WorkerReply) -> str:
    printed = (reply.stdout or "") + (reply.stderr or "")
    if not printed.strip():
        return ""
    return "\nYour code printed:\n" + fenced(printed.rstrip()[-2000:])


def _best(comparisons: list[tuple[Reference, Comparison]]) -> tuple[Reference, Comparison]:
    """The comparison to grade and report: a pass, else a right value, else the course's rule."""
    for wanted in (lambda c: c.passed, lambda c: c.value.ok):
        for pair in comparisons:
            if wanted(pair[1]):
                return pair
    return comparisons[0]


def _run(worker: Worker, case: Case, algorithm: str, settings: Any, budget: Budget,
         mcts: Any, trace_limit: int | None = None) -> WorkerReply:
    return worker.run(case.public_dict(), algorithm, mcts=mcts, budget=budget,
                      time_limit=settings.time_floor, time_multiple=settings.time_multiple,
                      trace_limit=trace_limit)


def grade_pair(
    case: Case, algorithm: str, number: str, rubric: Rubric, worker: Worker, answers: AnswerKey,
    observed: list[tuple[TestResult, Observation]] | None = None,
) -> TestResult:
    """Grade one (case, algorithm) pair. Never raises for anything the student does.

    ``observed`` gets what the student's code did, for the diagnosis of the whole submission
    (:func:`grader.scoring.named.name_mistakes`, after every test of the algorithm ran)."""
    settings = rubric.settings_for(case, algorithm)
    result = TestResult(
        name=f"{algorithm}: {case.name} ({case.description})",
        number=number,
        algorithm=algorithm,
        case_name=case.name,
        max_score=float(settings.points),
        score=0.0,
        outcome=GRADER_ERROR,
        visibility=settings.visibility,
    )
    if algorithm == "mcts" and case.mcts is not None and case.mcts.check == "outcome":
        return _grade_mcts_outcome(case, result, settings, worker, answers)

    rules = accepted_rules(case.pruning, rubric.for_algorithm(algorithm).pruning)
    references = [answers.reference(case, algorithm, rule) for rule in rules]
    budget = work_budget(settings, references)
    # The feedback's work grows with the trace: a trace far longer than the reference's is
    # wrong whatever its tail holds, so the worker cuts it (at a multiple of the reference's).
    keep = TRACE_MULTIPLE * max(max(len(ref.run.generated), len(ref.run.evaluated))
                                for ref in references) + TRACE_SLACK
    reply = _run(worker, case, algorithm, settings, budget, case.mcts, trace_limit=keep)
    student_output = "" if result.hidden else _student_output(reply)
    course_rule = rubric.for_algorithm(algorithm).pruning
    if reply.status == "budget":
        if observed is not None:  # a variant also stopped, the same way, is consistent
            observed.append((result, Observation(case, course_rule, False, None, "budget")))
        return _grade_budget_stop(case, algorithm, result, reply, references, answers,
                                  student_output)
    if reply.status != "ok":
        result.outcome, message = _failure_outcome(reply)
        result.summary = message.splitlines()[0]
        result.output = message + student_output
        if observed is not None:
            observed.append((result, Observation(case, course_rule, False, None, result.outcome)))
        result.extra_data = {"timing": timing_data(references[0], reply)}
        return result

    cut = reply.trace_truncated or max(len(reply.generated), len(reply.evaluated)) > keep
    got = RunResult(value=reply.value, generated=reply.generated[:keep],
                    evaluated=reply.evaluated[:keep])
    cut_note = " (your trace was far longer than the reference's and was cut)" if cut else ""
    pair = algorithm in PAIR_ALGORITHMS  # iterative_deepening: (value, action)
    reference, comparison = _best([(ref, compare(ref.run, got, decision=pair))
                                   for ref in references])
    if observed is not None:
        observed.append((result, Observation(case, course_rule, comparison.passed, got)))
    if comparison.passed:
        result.outcome, result.score = PASSED, result.max_score
        result.summary = "correct value and expansion order"
    elif comparison.value.ok:
        result.outcome = "wrong_trace"
        result.score = round(result.max_score * settings.partial_credit, 6)
        result.summary = "right value, wrong expansion order" + cut_note
    else:
        result.outcome = "wrong_value"
        result.summary = comparison.value.message
    if not comparison.passed:
        result.output, result.staff_output = _feedback(
            case, algorithm, reference, got, comparison, answers)
        result.output += student_output
    if pair:  # the nodes root ordering saves, pass or fail
        result.output = _ordering_note(case, reference.rule, answers, got, result,
                                       reply.trace_truncated)
    result.extra_data = {"timing": timing_data(reference, reply)}
    if not comparison.passed:
        result.extra_data["replay"] = _replay_data(case, reference, got)
    return result


def _grade_budget_stop(case: Case, algorithm: str, result: TestResult, reply: WorkerReply,
                       references: list[Reference], answers: AnswerKey,
                       student_output: str) -> TestResult:
    """A search stopped by its work budget: no value, so no points; its trace so far compared
    with the reference's (first difference, tree, hint) as for any other wrong trace."""
    got = RunResult(value=None, generated=reply.generated, evaluated=reply.evaluated)
    comparisons = []
    for ref in references:
        comparison = compare(ref.run, got)
        comparison.value = ValueCheck(False, "none: the search was stopped before it returned")
        comparisons.append((ref, comparison))
    reference, comparison = next(((r, c) for r, c in comparisons
                                  if not (c.generated.equal and c.evaluated.equal)),
                                 comparisons[0])
    stopped = budget_message(reply, references)
    result.outcome = "budget"
    result.summary = stopped
    output, result.staff_output = _feedback(case, algorithm, reference, got, comparison,
                                            answers)  # the named mistake comes after every test
    lead = (f"`{reply.function}` was stopped after too many game calls: {stopped}. A search "
            "that expands what the reference expands never comes near it; the comparison below "
            "shows where yours first went elsewhere.")
    result.output = lead + "\n\n" + output + student_output
    result.extra_data = {"timing": timing_data(reference, reply),
                         "budget": {**(reply.budget_stop or {})},
                         "replay": _replay_data(case, reference, got)}
    return result


MAX_REPLAY_IDS = 2000  # traces longer than this are not kept for the HTML report


def _replay_data(case: Case, reference: Reference, got: RunResult) -> dict[str, Any] | None:
    """What the HTML report needs to replay a failing test (staff-only ``extra_data``)."""
    if max(len(reference.run.generated), len(got.generated)) > MAX_REPLAY_IDS:
        return None
    return {
        "case": str(case.path) if case.path else None,
        "rule": reference.rule,
        "expected": {"value": reference.run.value, "generated": reference.run.generated},
        "got": {"value": got.value, "generated": got.generated},
    }


def _feedback(
    case: Case, algorithm: str, reference: Reference, got: RunResult, comparison: Comparison,
    answers: AnswerKey,
) -> tuple[str, str]:
    """(student output, staff output) of a failing test, without the named mistake (decided
    once every test of the algorithm ran). A bug in the step explanation or the drawing costs
    the student only those extras, never the comparison; staff get the traceback."""
    staff, moments, note = "", None, None
    try:
        if algorithm == "alpha_beta" and not comparison.generated.equal:
            moments = diagnosis.window_moments(case, reference.rule, answers)
        elif not comparison.generated.equal:
            note = explain.step_note(case, algorithm, reference.rule, reference.run, got, answers)
    except Exception:  # noqa: BLE001 - the grader's failure, reported to staff
        staff = "step explanation failed:\n" + traceback.format_exc()
    try:
        lines = feedback.failure_report(case, algorithm, reference.rule, reference.run, got,
                                        comparison, (), moments, note)
    except Exception:  # noqa: BLE001 - the grader's failure, reported to staff
        lines = feedback.comparison_report(comparison)
        staff += "feedback failed:\n" + traceback.format_exc()
    return "\n".join(lines), staff


def _ordering_note(case: Case, rule: str, answers: AnswerKey, got: RunResult,
                   result: TestResult, truncated: bool) -> str:
    """The test's output with the move-ordering counts first (a bug there costs only them)."""
    try:
        lines = deepening.ordering_report(case, rule, answers, len(got.generated), truncated)
    except Exception:  # noqa: BLE001 - the grader's failure, reported to staff
        lines = []
        result.staff_output += "ordering report failed:\n" + traceback.format_exc()
    return "\n\n".join(filter(None, ["\n".join(lines), result.output]))


def _grade_mcts_outcome(
    case: Case, result: TestResult, settings, worker: Worker, answers: AnswerKey
) -> TestResult:
    """Run ``seeds`` seeds; pass when the move is minimax-optimal in the rubric's share of them."""
    mcts = case.mcts
    seeds = list(range(mcts.seed, mcts.seed + (mcts.seeds or settings.outcome_seeds)))
    best_moves = answers.optimal_actions(case)
    reference = answers.reference(case, "mcts", "inclusive", seed=seeds[0])
    budget = work_budget(settings, [reference])  # seeds differ little in calls; multiple is wide
    result.extra_data = {"check": "outcome", "needs_trace": settings.outcome_needs_trace,
                         "partial_credit": settings.partial_credit}
    chosen = []
    for seed in seeds:
        reply = _run(worker, case, "mcts", settings, budget, replace(mcts, seed=seed))
        if reply.status == "budget":
            result.outcome = "budget"
            result.summary = budget_message(reply, [reference])
            result.output = f"With seed {seed}: `mcts` {result.summary}."
            return result
        if reply.status != "ok":
            result.outcome, message = _failure_outcome(reply)
            result.summary = message.splitlines()[0]
            result.output = f"With seed {seed}: " + message
            return result
        chosen.append(reply.value)
    hits = sum(1 for move in chosen if any(move == best or str(move) == str(best) for best in best_moves))
    needed = settings.outcome_share * len(seeds)
    result.extra_data.update(optimal_in=hits, seeds=len(seeds))
    if hits >= needed:
        result.outcome, result.score = PASSED, result.max_score
        result.summary = f"chose a minimax-optimal move in {hits} of {len(seeds)} seeds"
    else:
        result.outcome = "wrong_value"
        result.summary = (f"chose a minimax-optimal move in only {hits} of {len(seeds)} seeds "
                          f"(needs {needed:g})")
        result.output = (result.summary + f".\n\nOptimal moves: {best_moves!r}. "
                         f"Your moves by seed: {dict(zip(seeds, chosen))!r}")
    return result


def pair_mcts_outcomes(tests: list[TestResult]) -> None:
    """Cap the MCTS outcome tests of a submission whose mcts passes no trace test.

    An outcome test only checks the move, and a minimax search finds the same moves; a trace
    test checks the tree MCTS grows under a seed, which only MCTS does. So, where the rubric's
    ``outcome_needs_trace`` holds, a passed outcome test keeps its points only when an mcts
    trace test passed too (for a visible test, a visible one: a hidden test's result must not
    show through); otherwise it earns ``partial_credit`` of them, as a right answer reached the
    wrong way does. A search that is not MCTS then earns at most ``partial_credit`` of the
    MCTS points. No trace test in the run (``-k``, a course without any): no cap.
    """
    mcts = [test for test in tests if test.algorithm == "mcts" and test.outcome != GRADER_ERROR]
    traces = [test for test in mcts if test.extra_data.get("check") != "outcome"]
    if not traces:
        return
    for test in mcts:
        data = test.extra_data
        if data.get("check") != "outcome" or not data.get("needs_trace") or not test.passed:
            continue
        seen = [t for t in traces if test.visibility != "visible" or t.visibility == "visible"]
        if not seen or any(t.passed for t in seen):
            continue
        test.score = round(test.max_score * float(data.get("partial_credit", 0.5)), 6)
        test.outcome = "wrong_trace"
        test.summary += "; capped: no mcts trace test passed"
        test.output = (f"{test.summary}.\n\nThe move was right, but a search that is not MCTS "
                       "finds the same moves: outcome tests earn full points only when an mcts "
                       "trace test (the exact tree grown under a seed) passes too.")


def prepare_answers(cases: Iterable[Case], rubric: Rubric, answers: AnswerKey) -> None:
    """Compute every reference answer grading these cases will ask ``answers`` for.

    ``grader build handout`` calls this so the handout's key holds everything ``grader check``
    needs without ``reference/``.
    """
    for case in cases:
        tree_walk.node_values(case, answers)  # the HTML pictures' values, for the handout
        for algorithm in case.algorithms:
            settings = rubric.settings_for(case, algorithm)
            if algorithm == "mcts" and case.mcts is not None and case.mcts.check == "outcome":
                answers.optimal_actions(case)
                answers.reference(case, "mcts", "inclusive", seed=case.mcts.seed)
                continue
            course_rule = rubric.for_algorithm(algorithm).pruning
            for rule in accepted_rules(case.pruning, course_rule):
                answers.reference(case, algorithm, rule)
                if algorithm in ("minimax", "expectimax", "maxn", "mcts"):
                    explain.cached_steps(case, algorithm, rule, answers)  # the step explanation
                if algorithm in PAIR_ALGORITHMS:
                    deepening.ordering_counts(case, rule, answers)  # nodes saved by ordering
            diagnosis.cached_runs(case, algorithm, course_rule, answers)  # the named mistakes
            if algorithm == "alpha_beta":  # both rules: the report shows a student's rule too
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
                  answers: AnswerKey, results: GradingResults,
                  observed: list[tuple[TestResult, Observation]] | None = None) -> TestResult:
    """:func:`grade_pair`, with a grader bug turned into a test staff can see and regrade.

    The test keeps its name, points and visibility (removing its points would cost the student
    them silently against the assignment's total); its score is 0 until staff regrade."""
    try:
        return grade_pair(case, algorithm, number, rubric, worker, answers, observed)
    except Exception as error:  # a grader bug: staff see it, the student is told so
        settings = rubric.settings_for(case, algorithm)
        results.staff_notes.append(f"{case.name}/{algorithm}: {error!r}")
        return TestResult(
            name=f"{algorithm}: {case.name} ({case.description})", number=number,
            algorithm=algorithm, case_name=case.name, max_score=float(settings.points),
            score=0.0, outcome=GRADER_ERROR, visibility=settings.visibility,
            output=NEUTRAL_GRADER_ERROR, staff_output=traceback.format_exc(),
            summary="the grader failed on this test; staff have been told",
        )


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
) -> GradingResults:
    """Grade ``submission`` (a ``search.py``, a folder or zip holding one) on the cases.

    Reference answers come from ``answers`` (default: :meth:`AnswerKey.default`), which
    computes and caches what it does not hold yet. ``load`` reads a case file (default:
    :func:`~grader.cases.load_case`; a batch passes cases it loaded once).
    """
    started = time.perf_counter()
    rubric = rubric or load_rubric()
    answers = answers or AnswerKey.default()
    wanted = set(algorithms) if algorithms else None
    results = GradingResults()
    counters = {name: 0 for name in ALGORITHM_NUMBERS}
    cases: list[Case] = []
    for path in find_cases(list(case_paths)):
        try:
            cases.append((load or load_case)(path))
        except Exception as error:  # a broken case is the grader's failure, never the student's
            results.tests.append(_case_error_result(path, error, f"9.{len(results.staff_notes) + 1}"))
            results.staff_notes.append(f"{path}: {error}")
    planned = []  # (case, algorithm) in case order
    for case in cases:
        for algorithm in case.algorithms:
            if (wanted and algorithm not in wanted) or (
                    name_filter and name_filter not in f"{algorithm}: {case.name}"):
                continue
            planned.append((case, algorithm))
    try:
        graded_file = upload.which_file(submission)
    except SubmissionError as error:  # one message, not one a test
        points = upload.planned_points(rubric, planned, wanted, name_filter)
        upload.nothing_graded(results, error, points)
        results.execution_time = time.perf_counter() - started
        return results
    # Visible tests run before the others: one worker serves every test, so a submission could
    # keep what it saw on a hidden case in a global and print it in a later visible test. They
    # are numbered first too (then each visibility in turn), so numbers reveal no hidden count.
    def visibility(item: tuple[Case, str]) -> str:
        return rubric.settings_for(item[0], item[1]).visibility

    shown = [item for item in planned if visibility(item) == "visible"]
    not_shown = upload.by_visibility([item for item in planned if item not in shown], visibility)

    def record(test: TestResult) -> None:
        results.tests.append(test)
        if progress:
            progress(test)

    observed: list[tuple[TestResult, Observation]] = []
    with open_worker(submission, limits=limits or Limits()) as worker:
        for case, algorithm, number in upload.numbered(shown, counters):
            record(_grade_safely(case, algorithm, number, rubric, worker, answers, results,
                                 observed))
        for test in _random_trees(rubric).random_tree_tests(rubric, worker, counters, wanted,
                                                             name_filter):
            record(test)  # numbered after the algorithm's visible cases
        for case, algorithm, number in upload.numbered(not_shown, counters):
            record(_grade_safely(case, algorithm, number, rubric, worker, answers, results,
                                 observed))
    pair_mcts_outcomes(results.tests)
    grader_failed = any(test.outcome == GRADER_ERROR for test in results.tests)
    named = name_mistakes(observed, answers, results)  # one diagnosis per algorithm
    results.output = "\n\n".join(filter(None, [
        graded_file.message(), results.output, named,
        NEUTRAL_GRADER_ERROR if grader_failed else "",
        worker.notebook.note if worker.notebook else "",  # IPython lines dropped
        _random_trees(rubric).handout_note(rubric, wanted, name_filter)]))
    record_audit(submission, results)  # staff only (extra_data, a staff note); never a deduction
    results.clean()  # no NUL or lone surrogate leaves the model
    answers.save()
    results.tests.sort(key=lambda test: tuple(int(part) for part in test.number.split(".")))
    results.execution_time = time.perf_counter() - started
    return results
