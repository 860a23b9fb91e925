"""grader/scoring.py: how one reply becomes a score, with a scripted worker (no processes)."""

import pytest

from grader.answers.store import AnswerKey
from grader.cases import case_from_dict
from grader.cases.rubric import Rubric
from grader.sandbox.protocol import WorkerReply
from grader.scoring.pair import accepted_rules, grade_pair

AIMA = {
    "$schema": "../../grader/schema/case.schema.json",
    "name": "aima",
    "description": "the 3-12-8 tree",
    "algorithms": ["alpha_beta"],
    "tree": [[3, 12, 8], [2, 4, 6], [14, 5, 2]],
    "points": 4,
}
RIGHT_GENERATED = ["B", "B1", "B2", "B3", "C", "C1", "D", "D1", "D2", "D3"]
RIGHT_EVALUATED = ["B1", "B2", "B3", "C1", "D1", "D2", "D3"]


class ScriptedWorker:
    """Answers each run with the next scripted reply and records what it was asked."""

    def __init__(self, *replies):
        self.replies = list(replies)
        self.requests = []

    def run(self, case, algorithm, *, mcts=None, time_limit=None, time_multiple=0.0, budget=None,
            trace_limit=None, packed=False, stub=None):  # (replies hold lists: packed or not)
        if hasattr(case, "public_dict"):  # what Worker.run sends of a loaded case
            case = case.public_dict()
        self.requests.append({"case": case, "algorithm": algorithm, "time_limit": time_limit,
                              "time_multiple": time_multiple, "budget": budget,
                              "trace_limit": trace_limit, "stub": stub})
        reply = self.replies.pop(0)
        reply.function, reply.algorithm, reply.time_limit = "alpha_beta", algorithm, time_limit
        return reply


@pytest.fixture(scope="module")
def answers():
    return AnswerKey()


def grade(reply, answers, **changes):
    worker = ScriptedWorker(reply)
    test = grade_pair(case_from_dict({**AIMA, **changes}), "alpha_beta", "2.1", Rubric(), worker, answers)
    return test, worker


def test_right_value_and_trace_earn_full_points(answers):
    test, worker = grade(WorkerReply("ok", 3, RIGHT_GENERATED, RIGHT_EVALUATED), answers)
    assert (test.outcome, test.score, test.max_score) == ("passed", 4, 4)
    assert "expect" not in worker.requests[0]["case"]  # the worker never sees answers
    assert worker.requests[0]["time_limit"] >= 1.0  # the rubric's floor


def test_right_value_wrong_trace_earns_the_partial_fraction(answers):
    never_prunes = ["B", "B1", "B2", "B3", "C", "C1", "C2", "C3", "D", "D1", "D2", "D3"]
    test, _ = grade(WorkerReply("ok", 3, never_prunes, ["B1", "B2", "B3", "C1", "C2", "C3", "D1", "D2", "D3"]), answers)
    assert (test.outcome, test.score) == ("wrong_trace", 2.0)
    assert "C2" in test.output and "reference pruned" in test.output


def test_wrong_value_earns_nothing_and_says_expected_and_got(answers):
    test, _ = grade(WorkerReply("ok", 14, RIGHT_GENERATED, RIGHT_EVALUATED), answers)
    assert (test.outcome, test.score) == ("wrong_value", 0)
    assert "expected the value 3, got 14" in test.output


def test_not_implemented_is_reported_as_such(answers):
    reply = WorkerReply("error", error={"type": "NotImplementedError", "message": "", "traceback": ""})
    test, _ = grade(reply, answers)
    assert test.outcome == "not_implemented" and test.score == 0
    assert "not implemented yet" in test.output


def test_timeouts_name_the_limit_and_never_guess_at_pruning(answers):
    reply = WorkerReply("killed_timeout", message="used no CPU time for 2.0 s (sleeping?)")
    test, _ = grade(reply, answers)
    assert test.outcome == "timeout" and "time limit" in test.output
    assert "used no CPU time for 2.0 s" in test.output and "prune" not in test.output


def test_the_budget_is_a_multiple_of_the_references_calls_plus_the_floor(answers):
    test, worker = grade(WorkerReply("ok", 3, RIGHT_GENERATED, RIGHT_EVALUATED), answers)
    budget = worker.requests[0]["budget"]
    # the reference makes 10 result and 7 utility calls on the 3-12-8 tree: the budget is
    # 40 x 10 + 1000 and 40 x 7 + 1000, and the worker (the student's to read) is told each
    # rounded up to a power of two, so it cannot tell the reference's counts from it
    assert (budget.result, budget.evaluated) == (2048, 2048)
    assert worker.requests[0]["trace_limit"] == 16384  # 20 x 10 + 10,000, rounded up
    from grader.cases.rubric import rubric_from_dict
    from grader.scoring.pair import grade_pair as pair

    tight = rubric_from_dict({"defaults": {"work_multiple": 2, "work_floor": 0}})
    worker = ScriptedWorker(WorkerReply("ok", 3, RIGHT_GENERATED, RIGHT_EVALUATED))
    test = pair(case_from_dict(AIMA), "alpha_beta", "2.1", tight, worker, answers)
    assert (worker.requests[0]["budget"].result, worker.requests[0]["budget"].evaluated) == (32, 16)
    assert test.passed
    # the exact budget (20, 14) is the parent's: a search that passed it is stopped there,
    # whatever the worker, told 32 and 16, let it do
    longer = RIGHT_GENERATED * 3  # 21 result calls
    worker = ScriptedWorker(WorkerReply("ok", 3, longer, RIGHT_EVALUATED))
    test = pair(case_from_dict(AIMA), "alpha_beta", "2.1", tight, worker, answers)
    assert (test.outcome, test.score) == ("budget", 0)
    assert "stopped after 20 `result` calls" in test.output


def test_a_budget_stop_scores_nothing_and_compares_the_trace_so_far(answers):
    never_prunes = ["B", "B1", "B2", "B3", "C", "C1", "C2"]
    reply = WorkerReply("budget", None, never_prunes, ["B1", "B2", "B3", "C1", "C2"],
                        budget_stop={"kind": "result", "calls": 7})
    test, _ = grade(reply, answers)
    assert (test.outcome, test.score) == ("budget", 0)
    assert test.summary.startswith("stopped after 7 `result` calls, 0.7 times what the "
                                   "reference needed (10)")
    assert "`generated` differs at step 7" in test.output
    assert "Value: none: the search was stopped before it returned." in test.output
    assert test.extra_data["budget"] == {"kind": "result", "calls": 7}
    assert test.extra_data["replay"]["got"]["generated"] == never_prunes


def test_hidden_tests_show_no_student_output(answers):
    reply = WorkerReply("ok", 14, RIGHT_GENERATED, RIGHT_EVALUATED, stdout="SECRET PRINT")
    visible, _ = grade(reply, answers)
    assert "SECRET PRINT" in visible.output
    reply = WorkerReply("ok", 14, RIGHT_GENERATED, RIGHT_EVALUATED, stdout="SECRET PRINT")
    hidden, _ = grade(reply, answers, visibility="hidden")
    assert "SECRET PRINT" not in hidden.output


def test_either_accepts_the_other_rules_trace():
    assert accepted_rules("either", "inclusive") == ["inclusive", "strict"]
    assert accepted_rules("either", "strict") == ["strict", "inclusive"]
    assert accepted_rules(None, "strict") == ["strict"]
    assert accepted_rules("inclusive", "strict") == ["inclusive"]


def test_names_follow_algorithm_case_description(answers):
    test, _ = grade(WorkerReply("ok", 3, RIGHT_GENERATED, RIGHT_EVALUATED), answers)
    assert test.name == "alpha_beta: aima (the 3-12-8 tree)"
    assert test.number == "2.1"


class BrokenWorker:
    """A grader bug: the worker side raises instead of replying."""

    def run(self, *args, **kwargs):
        raise RuntimeError("boom in the grader")


def test_a_grader_failure_keeps_the_tests_points_and_tells_student_and_staff(answers):
    from grader.scoring.grade import _grade_safely
    from grader.scoring.results import NEUTRAL_GRADER_ERROR, GradingResults

    results = GradingResults()
    case = case_from_dict(AIMA)
    test = _grade_safely(case, "alpha_beta", "2.1", Rubric(), BrokenWorker(), answers,
                         results.staff_notes)
    assert (test.outcome, test.score, test.max_score) == ("grader_error", 0.0, 4.0)
    assert test.visibility == "visible" and test.output == NEUTRAL_GRADER_ERROR
    assert "boom in the grader" in test.staff_output and "boom" not in test.output
    assert results.staff_notes and "boom" in results.staff_notes[0]



def test_staff_notes_of_two_grading_threads_are_in_test_order_whatever_their_timing(
        answers, monkeypatch):
    """`grader grade --jobs 2`: a grader error's staff note (results.json's
    ``extra_data.staff_notes``) is the results' in test order, not in the order two threads
    happened to fail in (they appended them as they failed: the same submission could get
    another results.json). Here the later test's thread fails first, every time."""
    import threading
    from concurrent.futures import ThreadPoolExecutor

    from grader.scoring import grade
    from grader.scoring.results import GradingResults

    case = case_from_dict(AIMA)
    results = GradingResults()
    grading = grade._Grading(Rubric(), answers, results, None, True)
    monkeypatch.setattr(grade, "grade_pair", lambda case, algorithm, *_: 1 / 0)  # a grader bug
    monkeypatch.setattr(grade, "_shares", lambda items, count, cost: [[0], [1]])  # one a thread
    later_failed = threading.Event()
    grade_one = grading.grade_one

    def in_reverse(worker, case, algorithm, number):  # the first test waits for the second's end
        if algorithm == "minimax":
            later_failed.wait(timeout=60)  # (a bound against a hang, not a timing assertion)
        try:
            return grade_one(worker, case, algorithm, number)
        finally:
            if algorithm == "alpha_beta":
                later_failed.set()

    grading.grade_one = in_reverse
    with ThreadPoolExecutor(2) as pool:
        grading.run([object(), object()], pool, [(case, "minimax"), (case, "alpha_beta")])
    assert later_failed.is_set()
    assert [note.split(":")[0] for note in results.staff_notes] == ["aima/minimax",
                                                                   "aima/alpha_beta"]
    assert [test.algorithm for test in results.tests] == ["minimax", "alpha_beta"]


@pytest.mark.parametrize("heavy", ["play", "others"])
def test_every_play_case_of_a_game_goes_to_one_worker_whatever_the_costs(heavy):
    """What makes a play case's game, and its memos, one grading thread's (scoring/play.py's
    _GAMES, grade --jobs 2): grade._shares gives every play case of one game, public and
    hidden, to the same worker, however the costs share out the other tests."""
    from pathlib import Path

    from grader.cases import load_case
    from grader.cases.algorithms import PLAY_ALGORITHMS
    from grader.scoring.grade import SHARES, _shares

    trees = Path(__file__).resolve().parent.parent / "trees"
    cases = [load_case(path) for path in sorted(trees.glob("*/*.json"))
             if path.name.startswith(("evaluate-", "assumptions-", "aima-fig-5-2", "deep-"))]
    items = [(case, algorithm, str(n)) for n, case in enumerate(cases)
             for algorithm in case.algorithms]

    def cost(case, algorithm):  # the play cases far heavier than the rest, or far lighter
        return (10**6 if (algorithm in PLAY_ALGORITHMS) == (heavy == "play") else 1) + len(case.name)

    shares = _shares(items, SHARES, cost)
    worker_of = {index: worker for worker, share in enumerate(shares) for index in share}
    assert sorted(worker_of) == list(range(len(items)))  # each test in one share
    games: dict[str, set[int]] = {}
    for index, (case, algorithm, _) in enumerate(items):
        if algorithm in PLAY_ALGORITHMS:
            games.setdefault(case.game, set()).add(worker_of[index])
    assert set(games) == {"connect4", "mnk", "chase"}
    assert all(len(workers) == 1 for workers in games.values()), games
    assert games["connect4"] != games["mnk"]  # the two boards' games on the two workers

def test_the_root_stub_is_kept_in_the_answer_key_and_never_reused_stale(tmp_path):
    """The stub a test calls at the root (its MIN stub at a MIN root) is read back from the
    answer key (a forged entry of the current code is what the request then names), and a case
    whose root mover changed, or a key of other code, never gives another case's."""
    import json
    from pathlib import Path

    from grader.cases import load_case
    from grader.scoring.pair import ROOT_STUB, kept_root_stub

    path = Path(__file__).resolve().parent.parent / "trees" / "public" / "aima-fig-5-2.json"
    case, cache = load_case(path), tmp_path / "key.json"
    key = AnswerKey(cache=cache)
    assert kept_root_stub(case, "minimax", key) == "max_value"
    key.save()
    data = json.loads(cache.read_text())
    (name,) = [k for k in data["entries"] if f"{ROOT_STUB}:minimax" in k]
    data["entries"][name] = json.dumps({"value": "forged"})
    cache.write_text(json.dumps(data))
    assert kept_root_stub(case, "minimax", AnswerKey(cache=cache)) == "forged"  # read back
    worker = ScriptedWorker(WorkerReply("ok", 3, [], []))
    grade_pair(case, "minimax", "1.1", Rubric(), worker, AnswerKey(cache=cache))
    assert worker.requests[0]["stub"] == "forged"  # the request names the kept stub
    at_min = case_from_dict({**case.data, "root_player": "min", "expect": {}}, path)
    assert kept_root_stub(at_min, "minimax", AnswerKey(cache=cache)) == "min_value"
    data["code_version"] = "0" * 16  # another reference or games: the file is not read
    cache.write_text(json.dumps(data))
    assert kept_root_stub(case, "minimax", AnswerKey(cache=cache)) == "max_value"
