"""The lectures' modeling assumptions (``assumptions`` cases): the game ``chase``, the matches,
grading by exact decisions, the 2 x 2 table, the case checks, determinism.

Every test's name holds "assumptions" (students and staff find them in Gradescope's list).
Cheap on purpose: the variants and the determinism check play fewer matches than the shipped
rubric (one or two a ghost); only the correct solution plays the shipped cases in full.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from types import SimpleNamespace

import pytest
import suite_modules
from test_sandbox import machine_calibration

from grader.cases import case_from_dict, find_cases, load_case
from grader.cases.rubric import load_rubric, rubric_from_dict
from grader.errors import CaseError
from grader.games import CHANCE, MAX, MIN, builtin_game
from grader.games.chase import CAUGHT_POINTS, FOOD_POINTS, TIME_COST, WIN_POINTS
from grader.games.chase_matches import children, choose, play_chase
from grader.report.gradescope import write_results
from grader.run.tracing import Budget
from grader.sandbox.client import Worker
from grader.sandbox.limits import Limits
from grader.scoring import assumptions as scoring
from grader.scoring.grade import grade
from reference import assumptions as staff

ROOT = Path(__file__).resolve().parent.parent
CORRECT = ROOT / "tests" / "submissions" / "correct" / "search.py"
STUBS = ROOT / "student" / "search.py"
PUBLIC = sorted((ROOT / "trees" / "public").glob("assumptions-*.json"))
HIDDEN = sorted((ROOT / "trees" / "hidden").glob("assumptions-*.json"))
SCHEMA = "../../grader/schema/case.schema.json"
FEW = rubric_from_dict({"assumptions": {"matches": 2}})  # the variants' matches, a ghost

variants = suite_modules.load("submissions/variants.py")
attacks = suite_modules.load("hostile/attacks.py")
FAST = Limits(time=0.5, kill_margin=0.5, import_time=0.5)


def case_data(**changes: object) -> dict:
    data = {"$schema": SCHEMA, "name": "a", "description": "d", "algorithms": ["assumptions"],
            "game": "chase", "state": "o...o|.#.#.|..P..|.#.#.|o...G", "params": {"turns": 30},
            "assumptions": {"agent": "minimax"}}
    data.update(changes)
    return data


def by_case(results) -> dict:
    return {test.case_name: test for test in results.tests}


# --- the game ---------------------------------------------------------------------------------

def test_assumptions_chase_scores_as_the_lectures_pacman() -> None:
    game = builtin_game("chase", "P.o|##.|G..", {"turns": 5})
    root = game.initial_state()
    assert game.to_move(root) == MAX and game.actions(root) == ("E",)
    first = game.result(root, "E")
    assert first.score == -TIME_COST and game.to_move(first) == MIN
    assert game.actions(first) == ("E",)  # the ghost's one open square
    food = game.result(game.result(first, "E"), "E")
    assert food.score == -2 * TIME_COST + FOOD_POINTS + WIN_POINTS
    assert game.is_terminal(food) and game.outcome(food) == "win"
    assert game.utility(food) == food.score


def test_assumptions_chase_caught_and_out_of_turns() -> None:
    game = builtin_game("chase", "PG.|...|..o", {"turns": 1})
    root = game.initial_state()
    into_ghost = game.result(root, "E")
    assert game.is_terminal(into_ghost) and game.outcome(into_ghost) == "loss"
    assert into_ghost.score == -TIME_COST - CAUGHT_POINTS
    assert game.state_id(into_ghost).startswith(".X.|")
    down = game.result(root, "S")
    away = game.result(down, "E")  # the ghost moves on; one turn made: the game ends
    assert game.is_terminal(away) and game.outcome(away) == "draw"
    assert game.utility(away) == -TIME_COST


def test_assumptions_ghost_typed_by_the_agents_assumption() -> None:
    board = "o.P.o|.#.#.|o.G.o"
    adversary = builtin_game("chase", board, {"ghost": "min"})
    chance = builtin_game("chase", board, {"ghost": "chance"})
    child = adversary.result(adversary.initial_state(), "E")
    assert adversary.to_move(child) == MIN
    child = chance.result(chance.initial_state(), "E")
    assert chance.to_move(child) == CHANCE
    outcomes = chance.chance_outcomes(child)
    assert [a for a, _ in outcomes] == list(chance.actions(child))
    assert math.isclose(sum(p for _, p in outcomes), 1.0)
    assert len({p for _, p in outcomes}) == 1  # uniform


def test_assumptions_chase_ids_round_trip_and_bad_boards_are_named() -> None:
    game = builtin_game("chase", "o.P.o|.#.#.|o.G.o", {"turns": 7}, depth_limit=2)
    state = game.result(game.initial_state(), "W")
    rebuilt = builtin_game("chase", game.state_id(state), {"turns": 7})
    assert rebuilt.state_id(rebuilt.initial_state()) == game.state_id(state)
    assert game.key(state) == game.state_id(state)
    assert game.depth_of(state) == 1
    for bad, words in (("P.o|.#", "equal length"), ("P.o|..G|Z..", "unknown square"),
                       ("P.o|...", r"one agent \(P\) and one ghost")):
        with pytest.raises(ValueError, match=words):
            builtin_game("chase", bad)
    with pytest.raises(ValueError, match="ghost must be one of"):
        builtin_game("chase", None, {"ghost": "random"})


def test_assumptions_ties_go_to_the_first_action_within_a_tolerance() -> None:
    assert choose([("N", 1.0), ("S", 1.0 + 1e-12), ("E", 0.5)]) == "N"
    assert choose([("N", 1.0), ("S", 1.1)]) == "S"
    assert choose([("N", 1.0), ("S", 1.0 - 1e-12), ("E", 2.0)], smallest=True) == "N"


def test_assumptions_matches_are_seeded_and_differ() -> None:
    game = builtin_game("chase", "o...o|.#.#.|..P..|.#.#.|o...G", {"turns": 6})

    def agent(position: str) -> list:
        return staff.action_values(position, "expectimax", 6, 2)

    first = [play_chase(game, i, 0, "expectimax", "random", agent) for i in range(3)]
    again = [play_chase(game, i, 0, "expectimax", "random", agent) for i in range(3)]
    assert [m.moves for m in first] == [m.moves for m in again]
    assert len({m.start for m in first}) > 1  # the ghost's start differs between matches


# --- cases -------------------------------------------------------------------------------------

def test_assumptions_case_checks_name_each_mistake() -> None:
    case = case_from_dict(case_data())
    assert case.assumptions.algorithm == "alpha_beta"
    assert case_from_dict(case_data(assumptions={"agent": "expectimax"})).assumptions.algorithm \
        == "expectimax"
    with pytest.raises(CaseError) as raised:
        case_from_dict(case_data(algorithms=["assumptions", "alpha_beta"], game="nim",
                                 state=None, depth_limit=2, params={"ghost": "min"},
                                 assumptions={"agent": "expectimax", "search": "minimax"}))
    messages = "\n".join(str(error) for error in raised.value.errors)
    for words in ("a case of its own", "set game to \"chase\"", "remove search",
                  "remove depth_limit", "remove params.ghost"):
        assert words in messages
    with pytest.raises(CaseError, match="needs 'assumptions' settings"):
        case_from_dict({key: value for key, value in case_data().items()
                        if key != "assumptions"})
    with pytest.raises(CaseError, match="agent"):
        case_from_dict(case_data(assumptions={"agent": "maximin"}))


def test_assumptions_shipped_cases_load_and_the_rubric_has_its_table() -> None:
    assert len(PUBLIC) == 2 and len(HIDDEN) == 2
    for path in PUBLIC + HIDDEN:
        assert load_case(path).algorithms == ["assumptions"]
    assert load_rubric().assumptions.depth == 4
    with pytest.raises(CaseError, match="assumptions.depth"):
        rubric_from_dict({"assumptions": {"depth": 1}})


# --- the reference's table ---------------------------------------------------------------------

def test_assumptions_reference_table_shows_the_lectures_direction() -> None:
    case = load_case(ROOT / "trees" / "public" / "assumptions-minimax-agent.json")
    table = scoring.reference_table(case, load_rubric())
    minimax, expectimax = table["minimax"], table["expectimax"]
    # against the random ghost the pessimist scores less; against the adversary it wins at
    # least as often as the optimist
    assert expectimax["random"]["average"] > minimax["random"]["average"]
    assert minimax["adversarial"]["won"] >= expectimax["adversarial"]["won"]
    assert minimax["adversarial"]["matches"] == 4


def test_assumptions_staff_side_is_kept_in_the_answer_key_and_never_reused_stale(
        tmp_path: Path) -> None:
    """The reference's table, searches and ghost moves of a case are read back from the answer
    key (a forged entry of the current code is what a grade then gets), and a changed case,
    rubric or code never reads an entry made for another: each gets what the staff's code
    computes for it."""
    from grader.answers.store import AnswerKey

    path = ROOT / "trees" / "public" / "assumptions-minimax-agent.json"
    case, cache = load_case(path), tmp_path / "key.json"
    one = rubric_from_dict({"assumptions": {"matches": 1}})
    key = AnswerKey(cache=cache)
    kept = scoring.staff_side(case, one, key)
    assert kept == scoring.staff_side(case, one)  # as computed without a key
    assert kept.ghost_moves and len(kept.searches) == len(kept.ahead)
    key.save()

    data = json.loads(cache.read_text())
    (name,) = [k for k in data["entries"] if scoring.STAFF_ENTRY in k]
    forged = json.loads(data["entries"][name])
    forged["value"]["ghost_moves"] = {position: "forged" for position in kept.ghost_moves}
    data["entries"][name] = json.dumps(forged)
    cache.write_text(json.dumps(data))
    read = scoring.staff_side(case, one, AnswerKey(cache=cache))
    assert set(read.ghost_moves.values()) == {"forged"}  # the key's entry is what is read
    position = next(iter(read.ghost_moves))
    turns, ghost_depth = read.ghosts_with
    assert read.ghost_move(position, turns, ghost_depth) == "forged"
    # asked with other settings than the entry's: the staff's code answers, not the entry
    assert read.ghost_move(position, turns, ghost_depth + 1) != "forged"
    child, (ghost, turns, depth) = read.ahead[0], read.searched_with
    from reference import assumptions as staff
    assert read.child_search(child, ghost, turns, depth + 1) == \
        staff.child_search(child, ghost, turns, depth + 1)

    # another rubric (two matches a ghost): its own entry, the staff's values
    assert scoring.staff_side(case, FEW, AnswerKey(cache=cache)) == scoring.staff_side(case, FEW)
    # another case (its seed moved): its own entry
    moved = case_from_dict({**case.data, "assumptions": {**case.data["assumptions"], "seed": 7}},
                           path)
    fresh = scoring.staff_side(moved, one)
    assert fresh.ahead != kept.ahead
    assert scoring.staff_side(moved, one, AnswerKey(cache=cache)) == fresh
    # another reference (the key's code version differs): the file is not read at all
    data["code_version"] = "0" * 16
    cache.write_text(json.dumps(data))
    assert scoring.staff_side(case, one, AnswerKey(cache=cache)) == kept


# --- grading -----------------------------------------------------------------------------------

def test_assumptions_correct_solution_full_marks_on_every_case() -> None:
    results = grade(CORRECT, PUBLIC + HIDDEN)
    tests = by_case(results)
    assert len(tests) == 4
    for test in tests.values():
        assert test.algorithm == "assumptions"
        assert test.score == test.max_score == 2.0, test.output
        assert "were the reference's" in test.summary
    assert "Modeling assumptions" in results.output
    rows = [[cell.strip() for cell in line.strip("|").split("|")]
            for line in results.output.splitlines()
            if line.startswith(("| Minimax agent |", "| Expectimax agent |"))]
    assert len(rows) == 2  # one table (the hidden cases' is not the student's to see yet)
    for agent, adversarial, reference_adversarial, random_ghost, reference_random in rows:
        assert adversarial == reference_adversarial and random_ghost == reference_random
        assert "-" not in (adversarial, random_ghost)


def test_assumptions_stubs_score_zero_and_say_why() -> None:
    results = grade(STUBS, PUBLIC, rubric=FEW)
    for test in results.tests:
        assert test.score == 0.0
        assert test.outcome == "not_implemented"
        assert "is not implemented yet" in test.output and "deciding your agent's move" in \
            test.output


@pytest.mark.parametrize("variant, loses", [
    ("chance_as_min", "assumptions-expectimax-agent"),
    ("alpha_beta_depth_off_by_one", "assumptions-minimax-agent"),
])
def test_assumptions_wrong_search_loses_exactly_its_cases(tmp_path: Path, variant: str,
                                                          loses: str) -> None:
    path = variants.materialize(variant, tmp_path / variant)
    tests = by_case(grade(path, PUBLIC, rubric=FEW))
    for name, test in tests.items():
        if name == loses:
            assert test.score == 0.0 and test.outcome == "wrong_value"
            difference = test.extra_data["assumptions"]["first_difference"]
            assert difference["yours"] != difference["expected"]
            assert f"(position `{difference['position']}`)" in test.output
            assert "first difference" in test.output  # the values' table marks it
            mine = dict(difference["values"])
            assert mine != dict(difference["expected_values"])
        else:
            assert test.score == test.max_score, test.output


def test_assumptions_value_that_is_not_a_number_fails_naming_the_position(
        tmp_path: Path) -> None:
    source = variants.source("correct").replace(
        "def alpha_beta(game, state, alpha=-math.inf, beta=math.inf, depth=0):\n",
        "def alpha_beta(game, state, alpha=-math.inf, beta=math.inf, depth=0):\n"
        "    if depth == 0:\n        return float('nan')\n", 1)
    path = tmp_path / "search.py"
    path.write_text(source, encoding="utf-8")
    case = ROOT / "trees" / "public" / "assumptions-minimax-agent.json"
    (test,) = grade(path, [case], rubric=FEW).tests
    assert test.score == 0.0 and test.outcome == "wrong_value"
    assert "not a finite number" in test.output and "deciding your agent's move at" in test.output


def test_assumptions_two_grades_write_identical_results(tmp_path: Path) -> None:
    """One grade alone with one worker, the other with two workers while a thread of this
    process keeps the CPU busy: the results files are the same but for the run's time."""
    import threading

    once = rubric_from_dict({"assumptions": {"matches": 1}})
    files = []
    for run, jobs in (("quiet", 1), ("loaded", 2)):
        done = threading.Event()
        busy = threading.Thread(target=lambda: [None for _ in iter(done.is_set, True)])
        if run == "loaded":
            busy.start()
        try:
            results = grade(CORRECT, PUBLIC, rubric=once, jobs=jobs)
        finally:
            done.set()
            if busy.is_alive():
                busy.join()
        results.execution_time = 0.0  # a timing, not a result
        path = tmp_path / f"{run}.json"
        write_results(results, path)
        files.append(json.loads(path.read_text()))
    assert files[0] == files[1]
    assert all(test["score"] == 2.0 for test in files[0]["tests"])


def test_assumptions_cases_are_found_with_the_others() -> None:
    found = {path.name for path in find_cases([ROOT / "trees"])}
    assert {path.name for path in PUBLIC + HIDDEN} <= found


# --- the batch request: a decision's children searched in one request --------------------------

START = "o...o|.#.#.|..P..|.#.#.|o...G|pac,0,t0"
SIBLINGS = [child for _, child in children(START, 30)][:3]  # a decision's first children


def search_batch(worker, ids=tuple(SIBLINGS), budgets=None, depth=3):
    return worker.search_positions("chase", {"ghost": "min", "turns": 30}, list(ids),
                                   "alpha_beta", depth_limit=depth,
                                   budgets=budgets or [Budget(4096, 4096)] * len(ids))


class _AnsweringWorker:
    """A worker whose batch answers every child, each with ``calls`` game calls."""

    def __init__(self, calls: list[dict[str, int]]) -> None:
        self.calls, self.asked = calls, []

    def search_positions(self, game, params, ids, algorithm, **options):
        from grader.sandbox.protocol import WorkerReply

        self.asked.append(list(ids))
        return WorkerReply("ok", function="alpha_beta", value=[1.0] * len(ids), position=None,
                           answered=[(float(i), self.calls[i]) for i in range(len(ids))])


def test_assumptions_an_answer_past_its_exact_budget_fails_its_child_as_the_budget() -> None:
    """The worker is told a rounder budget: an answer within it and past the exact one (the
    parent's) fails its child as a budget stop, the children before it keep their values."""
    settings = SimpleNamespace(work_multiple=40, work_floor=1000, time_floor=1.0,
                               time_multiple=50)
    setup = {"agent": "minimax", "turns": 30, "depth": 2, "algorithm": "alpha_beta"}
    exact = min(scoring.MAX_BUDGET, int(settings.work_multiple * 4 ** 2 + settings.work_floor))
    worker = _AnsweringWorker([{"result": 3, "evaluated": 3}, {"result": 3, "evaluated": exact + 1},
                               *[{"result": 3, "evaluated": 3}] * 2])
    values = scoring.student_values(worker, setup, settings)
    with pytest.raises(scoring.DecisionFailed) as failed:
        values(START)
    reply = failed.value.reply
    assert (failed.value.action, reply.status, reply.function) == ("S", "budget", "alpha_beta")
    assert reply.budget_stop == {"kind": "evaluated", "calls": exact}
    assert reply.message == (f"stopped after {exact:,} `utility`/`evaluate` calls "
                             "(the work budget)")


def test_assumptions_a_batch_is_each_childs_own_call_and_a_failure_names_its_child(
        tmp_path: Path) -> None:
    """Each child's value is what a call of its own gives (the reference's, for the correct
    solution), with its game calls; the first failure ends the batch: its reply is the failing
    child's (``position``), the children before it answered."""
    assert len(SIBLINGS) == 3
    source = variants.source("correct").replace(
        "def alpha_beta(game, state, alpha=-math.inf, beta=math.inf, depth=0):\n",
        "def alpha_beta(game, state, alpha=-math.inf, beta=math.inf, depth=0):\n"
        "    if depth == 0 and state.pac == TARGET:\n"
        "        raise KeyError('third child')\n", 1) + \
        f"\nTARGET = {builtin_game('chase', SIBLINGS[2]).initial_state().pac}\n"
    path = tmp_path / "search.py"
    path.write_text(source, encoding="utf-8")
    expected = [staff.child_search(child, "min", 30, 3) for child in SIBLINGS]
    with Worker(path, limits=FAST, calibration=machine_calibration()) as worker:
        whole = search_batch(worker, SIBLINGS[:2])
        failed = search_batch(worker)
        stopped = search_batch(worker, budgets=[Budget(4096, 4096), Budget(3, 4096),
                                                Budget(4096, 4096)])
    assert whole.ok and whole.position is None
    assert whole.value == [value for value, _, _ in expected[:2]]
    # the correct alpha_beta makes the reference's calls: the work budget's measure
    assert [(calls["result"], calls["evaluated"]) for _, calls in whole.answered] == \
        [(generated, evaluated) for _, generated, evaluated in expected[:2]]
    assert failed.status == "error" and failed.position == 2 and len(failed.answered) == 2
    assert "KeyError" in failed.message and "third child" in failed.error["traceback"]
    assert stopped.status == "budget" and stopped.position == 1
    assert [value for value, _ in stopped.answered] == [expected[0][0]]


def test_assumptions_a_batch_whose_worker_is_killed_names_the_child_it_ran(
        tmp_path: Path) -> None:
    """A call of a batch that runs a tick of its CPU guard says which it is (``started``),
    so a kill the parent makes (here: a loop swallowing the time-out) is that child's, as
    when each child was a request of its own; a quick crash says nothing (``position`` None:
    the grader asks that batch's children again, one a request)."""
    swallow = ("    if depth == 0 and state.pac == TARGET:\n"
               "        while True:\n            try:\n                while True:\n"
               "                    pass\n            except BaseException:\n"
               "                pass\n")
    crash = "    if depth == 0 and state.pac == TARGET:\n        import os\n        os._exit(3)\n"
    replies = []
    for name, body in (("swallow", swallow), ("crash", crash)):
        source = variants.source("correct").replace(
            "def alpha_beta(game, state, alpha=-math.inf, beta=math.inf, depth=0):\n",
            "def alpha_beta(game, state, alpha=-math.inf, beta=math.inf, depth=0):\n" + body,
            1) + f"\nTARGET = {builtin_game('chase', SIBLINGS[1]).initial_state().pac}\n"
        path = tmp_path / name / "search.py"
        path.parent.mkdir()
        path.write_text(source, encoding="utf-8")
        with Worker(path, limits=FAST, calibration=machine_calibration()) as worker:
            replies.append(search_batch(worker))
    killed, crashed = replies
    assert killed.status == "killed_timeout" and killed.position == 1, killed
    assert crashed.status == "crashed" and crashed.position is None, crashed
    assert "exited with code 3" in crashed.message, crashed.message


def test_assumptions_forged_batch_replies_are_crashes_never_values(tmp_path: Path) -> None:
    """Each forgery of :data:`attacks.BATCH_FORGERIES` (the batch's depth limit picks it)."""
    path = tmp_path / "search.py"
    path.write_text(attacks.forged_batch_source(), encoding="utf-8")
    with Worker(path, limits=FAST, calibration=machine_calibration()) as worker:
        for number, name in enumerate(attacks.BATCH_FORGERIES, start=1):
            reply = search_batch(worker, depth=number)
            assert reply.status == "crashed" and reply.value is None, (name, reply)
            if name == "oversized":  # refused unread: the parent's own reply, at no child
                assert reply.position is None and reply.answered is None
            else:  # read and refused: no value counts, the batch's first child failed
                assert reply.position == 0 and reply.answered == [], name
            assert "malformed" in reply.message or "grader reads" in reply.message, \
                (name, reply.message)


# --- the student's own table (grader play), the HTML section ----------------------------------

def test_assumptions_local_table_with_own_searches_is_the_references(monkeypatch) -> None:
    """grader play's table with the correct solution equals the reference's; in the handout
    (no reference/) its adversarial ghost is the student's own alpha_beta, the same moves."""
    import importlib.util

    from grader.scoring.local_assumptions import local_table
    from grader.scoring.local_play import load_search

    case = load_case(ROOT / "trees" / "public" / "assumptions-minimax-agent.json")
    module = load_search(CORRECT)
    table, who = local_table(module, case, FEW)
    assert who == "the staff's search"
    assert table == scoring.reference_table(case, FEW)
    find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *rest: None if name == "reference" else
                        find_spec(name, *rest))
    handout_table, who = local_table(module, case, FEW)
    assert who.startswith("your own alpha_beta")
    assert handout_table == table


def test_assumptions_html_section_replays_a_match_with_the_difference_marked(
        tmp_path: Path) -> None:
    from grader.report.html.assumptions import assumption_data, assumption_section

    path = variants.materialize("chance_as_min", tmp_path / "v")
    case = ROOT / "trees" / "public" / "assumptions-expectimax-agent.json"
    (test,) = grade(path, [case], rubric=rubric_from_dict({"assumptions": {"matches": 1}})).tests
    data = assumption_data(test)
    assert data is not None and data["first_difference"]["position"] in data["match"]["positions"]
    html = "\n".join(assumption_section(test))
    assert html.count("<figure") == len(data["match"]["positions"])
    assert html.count("(first difference)") == 1
    assert "Expectimax agent" in html and "adversarial ghost" in html
    assert "<script" not in html  # static: every board drawn without a script


def test_assumptions_handout_checks_values_for_no_points(monkeypatch) -> None:
    """Without reference/ (the handout) the test is a 0-point check that the agent's search
    gives a number for every move at the match starts; the stubs fail it, saying where."""
    import importlib.util

    find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *rest: None if name == "reference" else
                        find_spec(name, *rest))
    case = ROOT / "trees" / "public" / "assumptions-minimax-agent.json"
    (correct,) = grade(CORRECT, [case], rubric=FEW).tests
    assert correct.passed and correct.max_score == 0.0
    assert correct.output.count("|pac,0,t0`: ") == 2  # FEW: two match starts
    (stubs,) = grade(STUBS, [case], rubric=FEW).tests
    assert not stubs.passed and stubs.max_score == 0.0
    assert "not implemented" in stubs.output and "at the child after" in stubs.output
