"""Alpha-beta with a transposition table: the game's key, the reference's convention step by
step, its savings against plain alpha-beta (README's figures), the catalogue against the public
cases, and the feedback line counting the nodes the table saves."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from grader.answers.store import AnswerKey
from grader.cases import find_cases, load_case
from grader.feedback.savings import table_counts, table_report
from grader.games.nim import Nim
from grader.games.tictactoe import TicTacToe
from grader.run.runner import run_algorithm, table_summary
from grader.run.tracing import traced
from grader.sandbox.protocol import Unreadable, parse_message, reported_table
from reference import reference_functions
from reference.mistakes import mistakes_for
from reference.transposition import alpha_beta_tt, classify, probe

ROOT = Path(__file__).resolve().parent.parent
PUBLIC = ROOT / "trees" / "public"
TT_CASES = [load_case(path) for path in find_cases([PUBLIC, ROOT / "trees" / "hidden"])
            if "alpha_beta_tt" in load_case(path).algorithms]
PUBLIC_TT = [case for case in TT_CASES if case.path.parent == PUBLIC]


def run(functions, case):
    return run_algorithm(functions, case.build_game(), "alpha_beta_tt")


# --- the game's key ---------------------------------------------------------------------------


def test_transposed_boards_share_a_key_and_the_key_leaves_out_the_ply() -> None:
    game = TicTacToe()
    root = game.initial_state()
    one = game.result(game.result(game.result(root, 0), 4), 8)
    other = game.result(game.result(game.result(root, 8), 4), 0)
    assert game.key(one) == game.key(other) == "x..|.o.|..x"
    nim = Nim([2, 2])
    start = nim.initial_state()
    deep = nim.result(nim.result(nim.result(nim.result(start, "p0-1"), "p1-1"), "p0-1"), "p1-1")
    shallow = nim.result(nim.result(start, "p0-2"), "p1-2")
    assert deep.ply == 4 and shallow.ply == 2
    assert nim.key(deep) == nim.key(shallow) and hash(nim.key(deep)) == hash(nim.key(shallow))


def test_a_graphs_shared_state_has_one_key_and_the_traced_game_offers_it() -> None:
    game = load_case(PUBLIC / "tt-graph-intro.json").build_game()
    root = game.initial_state()
    wrapper, _ = traced(game)
    via_b = wrapper.result(wrapper.result(root, "a1"), "b1")
    via_c = wrapper.result(wrapper.result(root, "a2"), "c2")
    assert wrapper.key(via_b) == wrapper.key(via_c) == "D"


# --- the convention, step by step ---------------------------------------------------------------


@pytest.mark.parametrize("entry, need, window, expected", [
    (None, 3, (-1, 1), (None, -1, 1)),
    ((5, "exact", 3), 3, (-9, 9), (5, -9, 9)),
    ((5, "exact", 2), 3, (-9, 9), (None, -9, 9)),  # searched shallower: a miss
    ((5, "lower", math.inf), math.inf, (0, 9), (None, 5, 9)),
    ((5, "upper", 4), 3, (0, 9), (None, 0, 5)),
    ((5, "lower", 3), 3, (0, 5), (5, 5, 5)),  # the window closes: the entry's value
    ((5, "upper", 3), 3, (5, 9), (5, 5, 5)),
])
def test_an_entry_is_used_only_when_searched_deep_enough(entry, need, window, expected) -> None:
    assert probe(entry, need, *window) == expected


def test_a_value_is_exact_strictly_inside_the_window_else_a_bound() -> None:
    assert [classify(v, 2, 6) for v in (1, 2, 4, 6, 7)] == [
        "upper", "upper", "exact", "lower", "lower"]


def test_the_intro_graphs_table_holds_bounds_and_exact_values_with_their_depth() -> None:
    game = load_case(PUBLIC / "tt-graph-intro.json").build_game()
    table: dict = {}
    assert alpha_beta_tt(game, game.initial_state(), table) == 5
    # E is first stored as a lower bound (under B, beta 5, it cuts on G = 5); under C the
    # entry only raises alpha to 5, so E is searched again and its exact 8 replaces it. C fails
    # low on D's exact 5 (alpha 5): an upper bound. Leaves are never stored.
    assert table == {"D": (5, "exact", math.inf), "E": (8, "exact", math.inf),
                     "B": (5, "exact", math.inf), "C": (5, "upper", math.inf),
                     "A": (5, "exact", math.inf)}


def test_the_table_refuses_a_table_that_is_not_a_dict() -> None:
    game = load_case(PUBLIC / "tt-graph-intro.json").build_game()
    with pytest.raises(TypeError, match="expected table to be a dict, got: list"):
        alpha_beta_tt(game, game.initial_state(), [])


@pytest.mark.parametrize("case", TT_CASES, ids=lambda case: case.name)
def test_the_table_never_generates_more_than_alpha_beta_and_keeps_its_value(case) -> None:
    functions = reference_functions()
    table, plain = run(functions, case), run_algorithm(functions, case.build_game(), "alpha_beta")
    assert len(table.generated) < len(plain.generated)
    if case.depth_limit is None:
        assert table.value == plain.value


def test_full_tictactoe_with_and_without_the_table_readmes_figures() -> None:
    functions = reference_functions()
    with_table = run_algorithm(functions, TicTacToe(), "alpha_beta_tt")
    without = run_algorithm(functions, TicTacToe(), "alpha_beta")
    assert (with_table.value, len(with_table.generated), len(with_table.evaluated)) == (0, 4780,
                                                                                          1050)
    assert (without.value, len(without.generated), len(without.evaluated)) == (0, 18296, 7330)


# --- the catalogue against the public cases -----------------------------------------------------


@pytest.mark.parametrize("mistake", mistakes_for("alpha_beta_tt", "inclusive"),
                         ids=lambda mistake: mistake.name)
def test_every_catalogue_mistake_fails_a_public_case(mistake) -> None:
    reference = reference_functions()
    failing = []
    for case in PUBLIC_TT:
        want, got = run(reference, case), run(mistake.functions("inclusive"), case)
        if (want.value, want.generated, want.evaluated) != (got.value, got.generated,
                                                            got.evaluated):
            failing.append(case.name)
    assert failing, mistake.name


# --- the feedback: the nodes the table saves ---------------------------------------------------


def test_the_report_counts_the_nodes_the_table_saves(tmp_path) -> None:
    answers = AnswerKey(cache=tmp_path / "key.json")
    case = load_case(PUBLIC / "tt-graph-intro.json")
    assert table_counts(case, answers) == {
        "table": 11, "plain": 13,
        "entries": {"entries": 5, "exact": 4, "lower": 0, "upper": 1, "other": 0}}
    line = table_report(case, answers, 13, entries={"entries": 7, "exact": 4, "lower": 1,
                                                    "upper": 2, "other": 0})[0]
    assert line.endswith("At the end your table held 7 entries (4 exact, 1 lower, 2 upper); "
                         "the reference's 5 entries (4 exact, 0 lower, 1 upper).")
    assert line.startswith("**Transposition table.** The reference generates 11 nodes with the "
                           "table and 13 without it (plain alpha-beta): the table saves 2 (15%).")
    assert "does your table ever answer?" in line
    assert "does your table" not in table_report(case, answers, 11)[0]


# --- the table across the worker boundary ------------------------------------------------------


def test_the_summary_counts_bounds_and_runs_no_code_of_the_entries() -> None:
    class Loud(str):
        def __eq__(self, other):
            raise AssertionError("the summary ran the entry's code")

        __hash__ = str.__hash__

    class Long(tuple):
        def __len__(self):
            raise AssertionError("the summary ran the entry's code")

    table = {"a": (1, "exact", 2), "b": (1, "lower", 2), "c": (1, Loud("upper"), 2),
             "d": Long((1, "upper", 2)), "e": [1, "upper", 2], "f": (1, "upper", 2)}
    assert table_summary(table) == {"entries": 6, "exact": 1, "lower": 1, "upper": 1,
                                    "other": 3}


def test_a_forged_table_summary_is_cut_to_the_known_kinds_and_sane_counts() -> None:
    message = {"table": {"entries": 1e300, "exact": -4, "lower": 2.7, "upper": "x",
                         "bogus": 9}}
    assert reported_table(message) == {"entries": 10**12, "exact": 0, "lower": 2, "upper": 0,
                                       "other": 0}
    assert reported_table({"table": [1, 2]}) is None and reported_table({}) is None
    line = b'{"event": "reply", "table": {"entries": "many"}}'
    with pytest.raises(Unreadable, match="table"):
        parse_message(line, len(line))


# --- the TA tools: grader new and grader generate -------------------------------------------------


def test_new_and_generate_write_graphs_where_the_table_saves_nodes() -> None:
    from grader.cases import case_from_dict
    from grader.commands.generate import generate_cases
    from grader.commands.new import skeleton

    functions = reference_functions()
    made = [skeleton("alpha_beta_tt", 3, 3), *generate_cases("alpha_beta_tt", count=2)]
    for data in made:
        case = case_from_dict(data)
        assert case.form == "states"
        table = run_algorithm(functions, case.build_game(), "alpha_beta_tt")
        plain = run_algorithm(functions, case.build_game(), "alpha_beta")
        assert len(table.generated) < len(plain.generated)
