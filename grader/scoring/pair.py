"""One test: a (case, algorithm) pair graded, whatever the student's code does.

The reference's answers for each accepted pruning rule, the sandboxed run under the test's
work budget (:mod:`.budget`) and CPU-time backstop, the comparison, the score (partial credit
for a right value reached the wrong way), and the failure's feedback. MCTS outcome tests (the
move over many seeds) and their pairing with trace tests are here too. The named mistake is
not: it is decided once every test of an algorithm ran (:mod:`.named`).
"""

from __future__ import annotations

import traceback
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import grader.algorithms as algorithm_specs
from grader.answers.store import AnswerKey, Reference
from grader.cases import Case
from grader.cases.rubric import Rubric
from grader.compare import (
    Comparison,
    SequenceDiff,
    ValueCheck,
    check_decision,
    check_value,
    compare,
)
from grader.feedback import deepening, diagnosis, explain, savings
from grader.feedback import failure as feedback
from grader.feedback.markdown import code_name, inline_text
from grader.feedback.verdict import Observation
from grader.run.packing import PackedIds
from grader.run.runner import RunResult, observed_state
from grader.run.tracing import Budget
from grader.sandbox.client import Worker, root_stub
from grader.sandbox.protocol import WorkerReply
from grader.scoring.budget import (
    budget_message,
    timing_data,
    told,
    within_budget,
    work_budget,
    worker_budget,
)
from grader.scoring.failure import failure_outcome, note_failure, printed_output
from grader.scoring.results import (
    GRADER_ERROR,
    PASSED,
    UPLOAD_ERROR,
    TestResult,
)

def accepted_rules(case_rule: str | None, course_rule: str) -> list[str]:
    """The pruning rules whose traces pass, the course's own rule first."""
    if case_rule == "either":
        return [course_rule] + [rule for rule in ("inclusive", "strict") if rule != course_rule]
    return [case_rule or course_rule]


def _best(comparisons: list[tuple[Reference, Comparison]]) -> tuple[Reference, Comparison]:
    """The comparison to grade and report: a pass, else a right value, else the course's rule."""
    for wanted in (lambda c: c.passed, lambda c: c.value.ok):
        for pair in comparisons:
            if wanted(pair[1]):
                return pair
    return comparisons[0]


def _run(worker: Worker, case: Case, algorithm: str, settings: Any, budget: Budget,
         mcts: Any, answers: AnswerKey, trace_limit: int | None = None,
         packed: bool = False) -> WorkerReply:
    """The student's run under ``budget``. The worker is told only rounded numbers (what it is
    told, the submission can read: the exact budget and trace limit are functions of the
    reference's counts); the exact budget is applied here (:func:`within_budget`)."""
    reply = worker.run(case, algorithm, mcts=mcts, budget=worker_budget(budget),
                       time_limit=settings.time_floor, time_multiple=settings.time_multiple,
                       trace_limit=told(trace_limit) if trace_limit else None, packed=packed,
                       stub=kept_root_stub(case, algorithm, answers))
    return within_budget(reply, budget)


ROOT_STUB = "root-stub"  # the answer key's entry name of a case's root stub, by algorithm


def kept_root_stub(case: Case, algorithm: str, answers: AnswerKey) -> str:
    """The stub ``algorithm`` calls at the case's root (:func:`root_stub`: its game built),
    kept in the answer key: a function of the case and of the code the key's version hashes
    (the games, the algorithms' specs, the rule in ``grader/run/runner.py``), so the grade of
    a cached case builds no game for it."""
    return answers.extra(case, f"{ROOT_STUB}:{algorithm}", lambda: root_stub(case, algorithm))


def grade_pair(
    case: Case, algorithm: str, number: str, rubric: Rubric, worker: Worker, answers: AnswerKey,
    observed: list[tuple[TestResult, Observation]] | None = None,
) -> TestResult:
    """Grade one (case, algorithm) pair. Never raises for anything the student does.

    The flow: tests graded otherwise than by a trace leave first (MCTS outcome, play); else the
    student's run is compared with the reference's traces for each accepted pruning rule, a
    run that stopped early (budget, error) graded on what it did, a finished one scored on
    value and traces. ``observed`` gets what the student's code did, for the diagnosis of the
    whole submission (:func:`grader.scoring.named.name_mistakes`, after every test ran)."""
    settings = rubric.settings_for(case, algorithm)
    result = _ungraded(case, algorithm, number, settings)
    spec = algorithm_specs.get(algorithm)
    if spec.iterations and case.mcts is not None and case.mcts.check == "outcome":
        return _grade_mcts_outcome(case, result, settings, worker, answers)
    if spec.by_play:  # graded by play, no reference trace: the spec's own grading
        grade = algorithm_specs.resolve(spec.grade)
        if spec.grade_takes_key:
            return grade(case, result, rubric, worker, answers)
        return grade(case, result, rubric, worker)

    course_rule = rubric.for_algorithm(algorithm).pruning
    rules = accepted_rules(case.pruning, course_rule)
    # packed (a long trace: 4 bytes an id, not unpacked) until the comparison needs the lists
    references = [answers.reference(case, algorithm, rule, packed=True) for rule in rules]
    keep = _trace_limit(references)
    reply = _run(worker, case, algorithm, settings, work_budget(settings, references), case.mcts,
                 answers, trace_limit=keep, packed=True)
    student_output = "" if result.hidden else printed_output(reply)
    # a pass seen on the packed traces needs no lists; anything else is compared or shown
    passed_packed = reply.status == "ok" and _passes_packed(references, reply, keep, spec)
    if not passed_packed and reply.status in ("ok", "budget"):
        references = [answers.reference(case, algorithm, rule) for rule in rules]  # unpacked
        reply.generated, reply.evaluated = _listed(reply.generated), _listed(reply.evaluated)

    if reply.status == "budget":  # stopped by its work budget: graded on its trace so far
        _observe(observed, result, Observation(case, course_rule, False, None, "budget"))
        return _grade_budget_stop(case, algorithm, result, reply, references, answers,
                                  student_output)
    if reply.status != "ok":  # an error, a time-out, a crash: no trace to grade
        return _grade_failure(case, course_rule, result, reply, references[0], student_output,
                              observed)

    got = RunResult(value=reply.value, generated=_kept(reply.generated, keep),
                    evaluated=_kept(reply.evaluated, keep), state=observed_state(reply.table))
    reference, comparison = _comparison(references, got, spec, passed_packed)
    _observe(observed, result, Observation(case, course_rule, comparison.passed, got))
    cut = reply.trace_truncated or max(len(reply.generated), len(reply.evaluated)) > keep
    _score(result, comparison, settings.partial_credit, cut)
    if not comparison.passed:
        result.output, result.staff_output = _feedback(
            case, algorithm, reference, got, comparison, answers, cut=cut)
        result.output += student_output
    _add_spec_notes(case, spec, reference, answers, got, result, reply, cut)
    result.extra_data = {"timing": timing_data(reference, reply)}
    if not comparison.passed:
        result.extra_data["replay"] = _replay_data(case, reference, got)
    return result


def _ungraded(case: Case, algorithm: str, number: str, settings: Any) -> TestResult:
    """The test before grading: its name, number, points and visibility, no score yet (a
    grader error until an outcome is set)."""
    return TestResult(
        name=f"{algorithm}: {case.name} ({case.description})",
        number=number,
        algorithm=algorithm,
        case_name=case.name,
        max_score=float(settings.points),
        score=0.0,
        outcome=GRADER_ERROR,
        visibility=settings.visibility,
    )


def _trace_limit(references: list[Reference]) -> int:
    """How much of the student's trace is kept. The feedback's work grows with the trace: a
    trace far longer than the reference's is wrong whatever its tail holds, so the worker cuts
    it (at a multiple of the reference's)."""
    longest = max(max(len(ref.run.generated), len(ref.run.evaluated)) for ref in references)
    return TRACE_MULTIPLE * longest + TRACE_SLACK


def _observe(observed: list[tuple[TestResult, Observation]] | None, result: TestResult,
             observation: Observation) -> None:
    if observed is not None:
        observed.append((result, observation))


def _grade_failure(case: Case, course_rule: str, result: TestResult, reply: WorkerReply,
                   reference: Reference, student_output: str,
                   observed: list[tuple[TestResult, Observation]] | None) -> TestResult:
    """A run that ended in an error, a time-out or a crash: no points, the failure's message."""
    result.outcome, message = failure_outcome(reply)
    result.summary = message.splitlines()[0]
    result.output = message + student_output
    _observe(observed, result, Observation(case, course_rule, False, None, result.outcome))
    result.extra_data = {"timing": timing_data(reference, reply)}
    note_failure(result, reply)
    return result


def _comparison(references: list[Reference], got: RunResult, spec: algorithm_specs.Algorithm,
                passed_packed: bool) -> tuple[Reference, Comparison]:
    """The reference the test is graded against and the comparison with it. Passed on the
    packed traces: the student's traces are the first reference's (the one :func:`_best`
    would pick), so they are compared with themselves, no reference list unpacked."""
    if passed_packed:
        check = check_decision if spec.returns_pair else check_value
        return references[0], Comparison(
            check(references[0].run.value, got.value),
            SequenceDiff("generated", got.generated, got.generated),
            SequenceDiff("evaluated", got.evaluated, got.evaluated))
    return _best([(ref, compare(ref.run, got, decision=spec.returns_pair))
                  for ref in references])


def _score(result: TestResult, comparison: Comparison, partial_credit: float,
           cut: bool) -> None:
    """Outcome, score and summary: full points for a pass, ``partial_credit`` for a right
    value reached the wrong way, else none."""
    if comparison.passed:
        result.outcome, result.score = PASSED, result.max_score
        result.summary = "correct value and expansion order"
    elif comparison.value.ok:
        result.outcome = "wrong_trace"
        result.score = round(result.max_score * partial_credit, 6)
        result.summary = "right value, wrong expansion order" + (
            " (your trace was far longer than the reference's and was cut)" if cut else "")
    else:
        result.outcome = "wrong_value"
        result.summary = comparison.value.message


def _add_spec_notes(case: Case, spec: algorithm_specs.Algorithm, reference: Reference,
                    answers: AnswerKey, got: RunResult, result: TestResult,
                    reply: WorkerReply, cut: bool) -> None:
    """The counts an algorithm's spec asks for before the output, pass or fail: the nodes root
    ordering saves (returns a pair: iterative deepening), the nodes its table saves."""
    if spec.returns_pair:
        result.output = _ordering_note(case, reference.rule, answers, got, result, cut)
    if spec.takes_table:
        result.output = _savings_note(case, answers, got, result, reply)


def _passes_packed(references: list[Reference], reply: WorkerReply, keep: int,
                   spec: algorithm_specs.Algorithm) -> bool:
    """Whether the comparison :func:`_best` picks is a pass with the first reference (the one
    it would pick then): right value, and the student's traces those the reference's packed
    ones name (compared id by id, no list unpacked). Then the test needs no more of the
    reference's traces: its own equal them."""
    run = references[0].run
    if reply.trace_truncated or max(len(reply.generated), len(reply.evaluated)) > keep:
        return False
    check = check_decision if spec.returns_pair else check_value
    return (check(run.value, reply.value).ok and run.generated == reply.generated
            and run.evaluated == reply.evaluated)


def _listed(ids: Any) -> list[str]:
    """A reply's trace as a list (unpacked when it came packed)."""
    return ids.unpack() if isinstance(ids, PackedIds) else ids


def _kept(ids: list[str], keep: int) -> list[str]:
    """``ids`` up to ``keep`` of them: the list itself when it is no longer (not a copy)."""
    return ids if len(ids) <= keep else ids[:keep]


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
                                            answers, cut=reply.trace_truncated, stopped=True)
    # (the named mistake comes after every test)
    lead = (f"{code_name(reply.function)} was stopped after too many game calls: {stopped}. "
            "A search that expands what the reference expands never comes near it; the "
            "comparison below shows where yours first went elsewhere.")
    result.output = lead + "\n\n" + output + student_output
    result.extra_data = {"timing": timing_data(reference, reply),
                         "budget": {**(reply.budget_stop or {})},
                         "replay": _replay_data(case, reference, got)}
    return result


MAX_REPLAY_IDS = 2000  # traces longer than this are not kept for the HTML report
# characters of both traces' ids: 2,000 Connect Four boards a side fit; a forged trace of 2,000
# ids of 1,000 characters (2 MB in results.json, a test) does not
MAX_REPLAY_CHARS = 2 * MAX_REPLAY_IDS * 64


def _replay_data(case: Case, reference: Reference, got: RunResult) -> dict[str, Any] | None:
    """What the HTML report needs to replay a failing test (staff-only ``extra_data``)."""
    if max(len(reference.run.generated), len(got.generated)) > MAX_REPLAY_IDS:
        return None
    if sum(map(len, reference.run.generated)) + sum(map(len, got.generated)) > MAX_REPLAY_CHARS:
        return None
    return {
        "case": str(case.path) if case.path else None,
        "rule": reference.rule,
        "expected": {"value": reference.run.value, "generated": reference.run.generated},
        "got": {"value": got.value, "generated": got.generated},
    }


def _feedback(
    case: Case, algorithm: str, reference: Reference, got: RunResult, comparison: Comparison,
    answers: AnswerKey, *, cut: bool = False, stopped: bool = False,
) -> tuple[str, str]:
    """(student output, staff output) of a failing test, without the named mistake (decided
    once every test of the algorithm ran). A bug in the step explanation or the drawing costs
    the student only those extras, never the comparison; staff get the traceback."""
    staff, moments, note = "", None, None
    try:
        if algorithm_specs.get(algorithm).window and not comparison.generated.equal:
            moments = diagnosis.window_moments(case, reference.rule, answers)
        elif not comparison.generated.equal:
            note = explain.step_note(case, algorithm, reference.rule, reference.run, got, answers,
                                     stopped=stopped)
    except Exception:  # noqa: BLE001 - the grader's failure, reported to staff
        staff = "step explanation failed:\n" + traceback.format_exc()
    try:
        lines = feedback.failure_report(case, algorithm, reference.rule, reference.run, got,
                                        comparison, (), moments, note, cut=cut, stopped=stopped)
    except Exception:  # noqa: BLE001 - the grader's failure, reported to staff
        lines = feedback.comparison_report(comparison, cut=cut)
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


def _savings_note(case: Case, answers: AnswerKey, got: RunResult, result: TestResult,
                  reply: WorkerReply) -> str:
    """The test's output with the transposition table's savings first (a bug there costs
    only them)."""
    try:
        lines = savings.table_report(case, answers, len(got.generated), reply.trace_truncated,
                                     reply.table)
    except Exception:  # noqa: BLE001 - the grader's failure, reported to staff
        lines = []
        result.staff_output += "table report failed:\n" + traceback.format_exc()
    return "\n\n".join(filter(None, ["\n".join(lines), result.output]))


def _grade_mcts_outcome(
    case: Case, result: TestResult, settings, worker: Worker, answers: AnswerKey
) -> TestResult:
    """Run ``seeds`` seeds; pass when the move is minimax-optimal in the rubric's share of them."""
    mcts = case.mcts
    seeds = list(range(mcts.seed, mcts.seed + (mcts.seeds or settings.outcome_seeds)))
    best_moves = answers.optimal_actions(case)
    reference = answers.reference(case, result.algorithm, "inclusive", seed=seeds[0])
    budget = work_budget(settings, [reference])  # seeds differ little in calls; multiple is wide
    result.extra_data = {"check": "outcome", "needs_trace": settings.outcome_needs_trace,
                         "partial_credit": settings.partial_credit}
    chosen = []
    for seed, reply in _seed_replies(worker, case, result.algorithm, settings, budget, seeds,
                                     answers):
        if reply.status == "budget":
            result.outcome = "budget"
            result.summary = budget_message(reply, [reference])
            result.output = f"With seed {seed}: `{result.algorithm}` {result.summary}."
            return result
        if reply.status != "ok":
            result.outcome, message = failure_outcome(reply)
            result.summary = message.splitlines()[0]
            result.output = f"With seed {seed}: " + message
            note_failure(result, reply)
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
        result.output = (result.summary + f".\n\nOptimal moves: {best_moves!r}. Your moves by "
                         f"seed: {inline_text(repr(dict(zip(seeds, chosen))))}")
    return result


def _seed_replies(worker: Worker, case: Case, algorithm: str, settings: Any, budget: Budget,
                  seeds: list[int], answers: AnswerKey) -> Iterator[tuple[int, WorkerReply]]:
    """``(seed, reply)`` of each seed in order, as :func:`_run` would give it for that seed
    alone with ``trace_limit=1`` (only the move and the calls are graded: no trace is sent),
    up to the first that did not return within ``budget`` (the caller stops there).

    The seeds go in one request (:meth:`Worker.run_seeds`: each a call of its own, the batch
    ending at the first that fails), not a request a seed: a request costs about a
    millisecond of the worker's and the grader's CPU besides the search, as much as a few
    hundred MCTS iterations. A failure the batch cannot place (output seen at the
    file-descriptor level, the scratch folder, a grader replaced) is found as before: the
    seeds from the first not answered are run one a request. ``budget``, the exact one, is
    the batch's ``exact``: no seed after one past it runs, as none did a request a seed (a
    later seed's time-out would be charged to the hiding allowance)."""
    mcts = case.mcts
    batch = worker.run_seeds(case, algorithm, mcts=mcts, seeds=seeds,
                             budget=worker_budget(budget), exact=budget,
                             time_limit=settings.time_floor,
                             time_multiple=settings.time_multiple,
                             stub=kept_root_stub(case, algorithm, answers))
    answered = batch.answered or []
    for seed, (value, calls) in zip(seeds, answered):
        # the exact budget, which the worker was not told (scoring.budget.worker_budget)
        yield seed, within_budget(WorkerReply("ok", value=value, calls=calls,
                                              function=batch.function, algorithm=algorithm),
                                  budget)
    if batch.position is not None:
        yield seeds[batch.position], within_budget(batch, budget)
    elif not batch.ok:  # at no seed it knows: each seed not answered, alone
        for seed in seeds[len(answered):]:
            yield seed, _run(worker, case, algorithm, settings, budget,
                             replace(mcts, seed=seed), answers, trace_limit=1)


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
    mcts = [test for test in tests if getattr(algorithm_specs.find(test.algorithm), "iterations",
                                              False) and test.outcome != GRADER_ERROR]
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


TRACE_MULTIPLE, TRACE_SLACK = 20, 10_000  # a student's trace is kept up to this (see grade_pair)
