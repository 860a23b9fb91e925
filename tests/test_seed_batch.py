"""An MCTS outcome test's seeds in one worker request (:meth:`Worker.run_seeds`).

Each seed is a call of its own, as a request a seed made it: the batch's answers are the
requests' (moves and game calls), it ends at the first seed whose call does not return, and
that seed's reply is the one its own request gets (status, message, the seed named). A kill is
at the seed that ran and charges only its CPU as a time-out; a forged reply or "started" is a
crash at the first seed, never moves (but for a "started" for the next seed, which is the
worker's own byte for byte: tests/hostile/attacks.py's SEED_FORGERIES says what it can do). A
seed past the exact work budget ends the batch, though the worker is told only the rounded one.
The outcome test graded from a batch is the one graded from a request a seed, whatever the
submission does.
"""

from __future__ import annotations

import math
import os
import random
from dataclasses import asdict, replace
from pathlib import Path

import pytest
import suite_modules
from test_sandbox import CASE, FAST, machine_calibration, submission

from grader.answers.store import AnswerKey
from grader.cases import case_from_dict
from grader.cases.rubric import Rubric
from grader.run.tracing import Budget
from grader.sandbox.client import SEEDS_A_REQUEST, Worker
from grader.sandbox.guard import CLOCK_DRIFT
from grader.sandbox.portable import PortableWorker
from grader.sandbox.protocol import WorkerReply
from grader.scoring.budget import told, work_budget
from grader.scoring.pair import grade_pair

attacks = suite_modules.load("hostile/attacks.py")
CORRECT = Path(__file__).resolve().parent / "submissions" / "correct" / "search.py"

SEEDS = [0, 1, 2, 3, 4, 5]
SETTINGS = {"iterations": 30, "seed": 0, "c": math.sqrt(2)}
BUDGET = Budget(4096, 4096)
FAILING = 3  # the seed the failing submissions fail at (the fourth)

# the correct solution, its mcts failing at seed FAILING only (the rng it gets is
# random.Random(seed): its first number tells the seed) in the way each body says
AT_SEED = """
import random as _random
_right_mcts = mcts


def mcts(game, state, iterations, rng, c=math.sqrt(2)):
    copy = _random.Random()
    copy.setstate(rng.getstate())
    if copy.random() == {target!r}:
{body}
    return _right_mcts(game, state, iterations, rng, c)
"""
FAILURES = {
    "raises": "        raise KeyError('the fourth seed')",
    "budget": "        while True:\n            game.result(state, game.actions(state)[0])",
    "loops": "        while True:\n            pass",
    "swallows": ("        while True:\n            try:\n                while True:\n"
                 "                    pass\n            except BaseException:\n"
                 "                pass"),
    "sleeps": "        import time\n        time.sleep(60)",
    "exits": "        import os\n        os._exit(3)",
    "floods": "        print('x' * 11_000_000)",
}


def failing_source(body: str) -> str:
    return CORRECT.read_text() + AT_SEED.format(target=random.Random(FAILING).random(),
                                                body=body)


def alone(worker: Worker, seed: int, **options):
    return worker.run(CASE, "mcts", mcts={**SETTINGS, "seed": seed}, budget=BUDGET,
                      trace_limit=1, **options)


def batch(worker: Worker, seeds=SEEDS, settings=SETTINGS, **options):
    return worker.run_seeds(CASE, "mcts", mcts=settings, seeds=list(seeds), budget=BUDGET,
                            **options)


def test_a_batch_of_seeds_answers_as_a_request_a_seed(tmp_path: Path) -> None:
    """The moves and game calls of each seed are its own request's: the global ``random``
    seeded before each call, ``random.Random(seed)`` each (here the global one picks the move
    for half the seeds), the same through the portable worker."""
    source = CORRECT.read_text() + (
        "\nimport random as _random\n_right_mcts = mcts\n\n\n"
        "def mcts(game, state, iterations, rng, c=math.sqrt(2)):\n"
        "    if rng.random() < 0.5:\n"
        "        _random.random()\n"
        "        return _random.choice(game.actions(state)[1:])\n"
        "    return _right_mcts(game, state, iterations, rng, c)\n")
    path = submission(tmp_path, source)
    for kind in (Worker, PortableWorker):
        with kind(path, limits=FAST, calibration=machine_calibration()) as worker:
            each = [alone(worker, seed) for seed in SEEDS]
            requests = worker.starts
            whole = batch(worker)
        assert all(reply.ok for reply in each) and len({r.value for r in each}) > 1, each
        assert whole.ok and whole.position is None and whole.function == "mcts", whole
        assert whole.value == [reply.value for reply in each]
        assert [calls for _, calls in whole.answered] == [reply.calls for reply in each]
        assert worker.starts == requests  # one worker served both


@pytest.mark.parametrize("failure", list(FAILURES))
def test_a_batch_ends_at_the_first_failing_seed_with_its_own_requests_reply(
        tmp_path: Path, failure: str) -> None:
    """Whatever way the fourth seed fails (an exception, its budget, a time-out, a time-out
    swallowed, sleeping, the process gone, printing too much), the batch's reply is that
    seed's as its own request gives it, the seeds before it answered as theirs; a kill names
    the seed that ran, and is charged as one time-out. (Printing too much is at no
    seed the parent can tell, as output it saw itself would be: the grader then asks the
    seeds not answered alone.)"""
    path = submission(tmp_path, failing_source(FAILURES[failure]))
    options = {"time_limit": 0.2}
    with Worker(path, limits=FAST, calibration=machine_calibration()) as worker:
        before = [alone(worker, seed, **options) for seed in SEEDS[:FAILING]]
        failed = alone(worker, FAILING, **options)
    with Worker(path, limits=FAST, calibration=machine_calibration()) as worker:
        whole = batch(worker, **options)
        account = worker.account
    assert all(reply.ok for reply in before) and not failed.ok, (before, failed)
    if failure == "floods":
        assert whole.position is None and whole.answered == [], whole
    else:
        assert whole.position == FAILING, whole
        assert [value for value, _ in whole.answered] == [reply.value for reply in before]
        assert [calls for _, calls in whole.answered] == [reply.calls for reply in before]
    for field in ("status", "function", "message", "budget_stop"):
        assert getattr(whole, field) == getattr(failed, field), (field, whole, failed)
    assert (whole.error or {}).get("type") == (failed.error or {}).get("type")
    if whole.status in ("timeout", "killed_timeout"):  # once, as its own request was
        assert account.timed_out == {"mcts": 1} and account.timeouts == 1, account


def test_a_time_out_in_a_batch_charges_the_hiding_allowance_only_its_seeds_cpu(
        tmp_path: Path) -> None:
    """The seeds before the one stopped by the time limit ran 0.25 CPU s each: the whole
    allowance is charged with them, the hiding allowance (what time-outs cost) without."""
    spin = ("        pass\n    import time as _time\n    started = _time.process_time()\n"
            "    while _time.process_time() - started < 0.25:\n        game.actions(state)")
    path = submission(tmp_path, failing_source(FAILURES["swallows"]).replace(
        "    return _right_mcts(", spin.replace("        pass\n", "", 1) + "\n"
        "    return _right_mcts(", 1))
    with Worker(path, limits=FAST, calibration=machine_calibration()) as worker:
        whole = batch(worker, time_limit=0.3)
        account = worker.account
    assert whole.status == "killed_timeout" and whole.position == FAILING, whole
    earlier = FAILING * 0.25
    assert account.spent >= earlier + 0.3, account
    assert 0.3 <= account.hidden < earlier, account


def test_a_missing_or_unimplemented_mcts_is_the_first_seeds_failure(tmp_path: Path) -> None:
    for name, source in (("missing", "import math\n"),
                         ("stub", (CORRECT.parent.parent.parent.parent / "student" /
                                   "search.py").read_text())):
        path = submission(tmp_path, source, f"{name}.py")
        with Worker(path, limits=FAST, calibration=machine_calibration()) as worker:
            first, whole = alone(worker, SEEDS[0]), batch(worker)
        assert whole.position == 0 and whole.answered == [], (name, whole)
        assert (whole.status, whole.message, whole.function) == \
            (first.status, first.message, first.function), (name, whole, first)
        assert whole.status == ("missing_function" if name == "missing" else "error"), whole


def test_seeds_go_in_as_many_requests_as_the_worker_has_cpu_time_for(
        tmp_path: Path, monkeypatch) -> None:
    """A worker process may use ``cpu_time`` CPU seconds in all: a request is sent to one
    with room for its calls' limits (else to a fresh one), so a batch takes only the seeds
    whose limits fit, and the next request the rest; the answers are those of one request."""
    path = submission(tmp_path, CORRECT.read_text())
    with Worker(path, limits=FAST, calibration=machine_calibration()) as worker:
        whole = batch(worker)
        _, most = worker.cpu_limits(FAST.time, 0.0, BUDGET)
    sent = []
    exchange = Worker._exchange
    monkeypatch.setattr(Worker, "_exchange", lambda self, request, *args, **kwargs: (
        sent.append(request), exchange(self, request, *args, **kwargs))[1])
    room = replace(FAST, cpu_time=int(FAST.kill_margin + 2 + 2.5 * most) + 1)
    with Worker(path, limits=room, calibration=machine_calibration()) as worker:
        parts = batch(worker)
        starts = worker.starts
    assert whole.ok and parts.ok and parts.value == whole.value, (whole, parts)
    assert parts.answered == whole.answered
    sizes = [len(request["seeds"]["seeds"]) for request in sent]
    assert sum(sizes) == len(SEEDS) and len(sizes) >= 2 and max(sizes) < len(SEEDS), sizes
    assert starts == 1  # the calls' limits fit the one worker's life: never a fresh one


def test_the_seeds_counted_to_fit_a_worker_are_served_by_it(tmp_path: Path) -> None:
    """The seeds a request takes are counted as the request's limit is checked before it is
    sent (the clock's drift included): a worker with room for 1.05 to 5.95 calls' limits gets
    a batch of as many calls as it has room for, and serves it; one with room for none gets
    as many as a fresh worker has room for, and a fresh worker serves them. (The count once
    left the drift out: a worker with room for 2.1 calls took two, then made way for a fresh
    one, and CI failed on the test above.)"""
    path = submission(tmp_path, CORRECT.read_text())
    with Worker(path, limits=FAST, calibration=machine_calibration()) as worker:
        worker.start()  # the calibration known, and the _cpu set below kept
        _, most = worker.cpu_limits(FAST.time, 0.0, BUDGET)
        need = most * (1 + CLOCK_DRIFT)

        def served(room: float) -> int:
            worker._cpu = worker._room(0.0) - room
            count = worker._calls_that_fit(FAST.time, 0.0, BUDGET)
            whole = Budget(BUDGET.result * count, BUDGET.evaluated * count)
            assert worker._prepare(FAST.time, 0.0, whole, "mcts", "mcts", calls=count)[2] is None
            return count

        for tenths in range(10, 60):  # room for 1.05, 1.15, ... 5.95 calls' limits
            assert served((tenths + 0.5) / 10 * need) == tenths // 10, tenths
            assert worker.starts == 1, tenths
        count = served(0.5 * need)
        assert count == int(worker._room(worker._ready_cpu) // need) > 5 and worker.starts == 2


def test_a_batch_of_large_values_is_read_as_its_requests_were(
        tmp_path: Path, monkeypatch) -> None:
    """A seed's value may hold 10,000 items, as a request of its own allowed (50,002 JSON
    items a reply): a batch's reply of such values is read, not refused as a crash (it was at
    50 items a seed plus 50,000), its seeds in as many requests as keep each message within
    what the parent decodes (:data:`SEEDS_A_REQUEST`)."""
    source = CORRECT.read_text() + (
        "\n\ndef mcts(game, state, iterations, rng, c=math.sqrt(2)):\n"
        "    return [int(rng.random() * 10)] * 9_999\n")
    sent = []
    exchange = Worker._exchange
    monkeypatch.setattr(Worker, "_exchange", lambda self, request, *args, **kwargs: (
        sent.append(request), exchange(self, request, *args, **kwargs))[1])
    seeds = range(SEEDS_A_REQUEST + 2)
    with Worker(submission(tmp_path, source), limits=FAST) as worker:
        whole = batch(worker, seeds=seeds)
        last = alone(worker, seeds[-1])
    assert whole.ok and len(whole.value) == len(seeds), whole.message
    assert whole.value[-1] == last.value and len(last.value) == 9_999, last
    assert [len(request["seeds"]["seeds"]) for request in sent[:2]] == [SEEDS_A_REQUEST, 2]


def test_a_batch_of_seeds_stops_at_the_submissions_allowance_as_its_requests_would(
        tmp_path: Path) -> None:
    """Each seed's CPU most is cut at the allowance left after the seeds before it, as a
    request of its own is: seeds spinning 0.15 CPU s each stop at 0.9 s, at a time-out
    saying so, not a window or more later."""
    source = CORRECT.read_text() + (
        "\nimport time as _time\n_right_mcts = mcts\n\n\n"
        "def mcts(game, state, iterations, rng, c=math.sqrt(2)):\n"
        "    started = _time.process_time()\n"
        "    while _time.process_time() - started < 0.15:\n"
        "        game.actions(state)\n"
        "    return _right_mcts(game, state, iterations, rng, c)\n")
    limits = replace(FAST, submission_cpu=0.9)
    path = submission(tmp_path, source)
    with Worker(path, limits=limits, calibration=machine_calibration()) as worker:
        whole = batch(worker, seeds=range(12), time_limit=0.5)
        spent = worker.account.spent
    assert whole.status == "timeout" and "whole CPU allowance" in whole.message, whole
    assert 2 <= whole.position < 12 and len(whole.answered) == whole.position, whole
    # charged from /proc's readings, whole clock ticks each: the parent may count a tick less
    # than the worker stopped at (0.892 seen beside a whole suite on two cores)
    tick = 1 / os.sysconf("SC_CLK_TCK")
    assert 0.9 - tick <= spent <= 0.9 + FAST.time, spent


def test_forged_replies_to_a_batch_of_seeds_are_crashes_never_moves(tmp_path: Path) -> None:
    """Each forgery of :data:`attacks.SEED_FORGERIES` (the batch's iterations pick it): a
    reply that does not fit the batch is a crash at the first seed with no move; a forged
    "started" past the next seed is ignored (every seed says it begins), so the crash is the
    first seed's. A "started" for the next seed with a move is the worker's own, byte for
    byte: it places the failure at that seed (the test fails either way), and neither it nor
    a forged time-out's CPU figure makes the time-out the whole allowance's."""
    path = submission(tmp_path, attacks.forged_seeds_source())
    with Worker(path, limits=FAST, calibration=machine_calibration()) as worker:
        for number, name in enumerate(attacks.SEED_FORGERIES, start=1):
            reply = batch(worker, seeds=[0, 1, 2], settings={**SETTINGS, "iterations": number})
            assert reply.value is None and "whole CPU allowance" not in reply.message, \
                (name, reply)
            if name == "started_next":
                assert reply.status == "killed_timeout" and reply.position == 1, (name, reply)
                assert reply.answered == [("FORGED", {"result": 0, "evaluated": 0})], reply
                continue
            assert reply.answered == [] and reply.position == 0, (name, reply)
            if name == "timeout_claims_all":  # its own time-out: the worker's word
                assert reply.status == "timeout", (name, reply)
                continue
            assert reply.status == "crashed", (name, reply)
            if name in attacks.SEED_FORGERIES_THEN_EXIT:
                assert "exited with code 3" in reply.message, (name, reply.message)
            elif name == "oversized":  # refused before it is decoded: it costs the grader little
                assert "the grader reads" in reply.message, reply.message
            else:
                assert "malformed" in reply.message or "grader reads" in reply.message, \
                    (name, reply.message)


OUTCOME = {
    "$schema": "../../grader/schema/case.schema.json",
    "name": "seeds", "description": "a tree's best move over seeds",
    "algorithms": ["mcts"], "tree": CASE["tree"],
    "mcts": {"iterations": 30, "seed": 0, "seeds": 6, "check": "outcome"},
}


def _outcome_test(path: Path, case_data: dict, answers: AnswerKey) -> tuple[dict, dict]:
    """The outcome test's result, and the time-outs charged to the submission's allowance."""
    with Worker(path, limits=FAST, calibration=machine_calibration()) as worker:
        test = asdict(grade_pair(case_from_dict(case_data), "mcts", "1.1", Rubric(), worker,
                                 answers))
        return test, dict(worker.account.timed_out)


def past_half_source(answers: AnswerKey, past_exact: bool) -> str:
    """The correct solution, its mcts making, at seed FAILING, more ``result`` calls than half
    the rounded budget the worker is told: one past the exact budget (``past_exact``), else
    one past half the rounded one (within the exact one, the search's own calls added); and
    looping without calling the game at the seed after it (which a request a seed never ran
    past the exact budget: the test ended at FAILING's budget)."""
    case = case_from_dict(OUTCOME)
    reference = answers.reference(case, "mcts", "inclusive", seed=0)
    exact = work_budget(Rubric().settings_for(case, "mcts"), [reference]).result
    extra = exact + 1 if past_exact else told(exact) // 2 + 1
    assert told(exact) // 2 < extra + (0 if past_exact else len(reference.run.generated)) \
        <= (told(exact) if past_exact else exact), exact
    calls = (f"        for _ in range({extra}):\n"
             "            game.result(state, game.actions(state)[0])")
    body = FAILURES["loops"] if past_exact else "        pass"
    after = AT_SEED.format(target=random.Random(FAILING + 1).random(), body=body)
    return failing_source(calls) + after.replace("_right_mcts", "_inner_mcts")


@pytest.mark.parametrize("failure", ["raises", "budget", "exits", "wrong_moves", "past_exact",
                                     "within_exact"])
def test_an_outcome_test_graded_from_a_batch_is_graded_as_from_a_request_a_seed(
        tmp_path: Path, monkeypatch, failure: str) -> None:
    """The same test result (outcome, score, summary, output naming the seed, data) and
    time-outs charged from the batch as from a request a seed (:meth:`Worker.run_seeds` made
    to fail at no seed known: the grader then asks each seed alone, as it did before
    batches). ``past_exact``: a seed past the exact budget but within the rounded one the
    worker is told ends the test there, and the seed after it, which loops, never runs (it
    was charged as a time-out to the hiding allowance when the batch went on);
    ``within_exact``: one past half the rounded budget, within the exact one, pauses the
    batch, and the seeds after it run (the test is the correct solution's)."""
    answers = AnswerKey()
    if failure in ("past_exact", "within_exact"):
        source = past_half_source(answers, past_exact=failure == "past_exact")
    else:
        source = failing_source({**FAILURES,
                                 "wrong_moves": "        return game.actions(state)[-1]"}[failure])
    path = submission(tmp_path, source)
    batched, batched_timeouts = _outcome_test(path, OUTCOME, answers)
    monkeypatch.setattr(Worker, "run_seeds", lambda *args, **kwargs: WorkerReply(
        "crashed", answered=[], position=None))
    single, single_timeouts = _outcome_test(path, OUTCOME, answers)
    assert batched == single
    assert batched_timeouts == single_timeouts == {}, (batched_timeouts, single_timeouts)
    if failure == "within_exact":  # every seed's move, as the correct solution's
        correct, _ = _outcome_test(submission(tmp_path, CORRECT.read_text(), "correct.py"),
                                   OUTCOME, answers)
        assert batched == correct and batched["extra_data"]["seeds"] == 6, batched
        return
    expected = {"raises": "error", "budget": "budget", "exits": "crashed",
                "wrong_moves": "wrong_value", "past_exact": "budget"}[failure]
    assert batched["outcome"] == expected and batched["score"] == 0, batched
    if failure == "wrong_moves":
        assert "of 6 seeds" in batched["summary"] and "Your moves by seed" in batched["output"]
    else:
        assert batched["output"].startswith(f"With seed {FAILING}: "), batched["output"]


def test_a_forged_reply_to_an_outcome_tests_seeds_scores_nothing(tmp_path: Path) -> None:
    path = submission(tmp_path, attacks.forged_seeds_source())
    forged = {**OUTCOME, "mcts": {**OUTCOME["mcts"], "iterations": 1}}  # "too_many"
    test, _ = _outcome_test(path, forged, AnswerKey())
    assert test["outcome"] == "crashed" and test["score"] == 0, test
    assert test["output"].startswith("With seed 0: The process running `mcts` died: the "
                                     "worker sent a malformed reply"), test["output"]
