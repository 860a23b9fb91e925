"""grader/drawing.py: the marked tree, cut around the first difference, and the alpha-beta window."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from grader.answers.solve import solve
from grader.cases import find_cases, load_case
from grader.feedback.drawing import (
    MAX_ROWS,
    WIDTH,
    alpha_beta_moments,
    asciify,
    draw_tree,
    wants_ascii,
    window_note,
)
from grader.run.runner import RunResult, run_algorithm
from reference.mistakes import mistakes_for

ROOT = Path(__file__).resolve().parent.parent
PUBLIC = ROOT / "trees" / "public"
ALL_CASES = [load_case(p) for p in find_cases([PUBLIC, ROOT / "trees" / "hidden"])]


def _variant_run(case, algorithm: str, name: str, rule: str = "inclusive") -> RunResult:
    mistake = next(m for m in mistakes_for(algorithm, rule) if m.name == name)
    return run_algorithm(mistake.functions(rule), case.build_game(), algorithm)


def _row(lines: list[str], node_id: str) -> str:
    return next(line for line in lines if f" {node_id} " in f" {line.split('── ')[-1]}"
                or line.startswith(f"{node_id} "))


@pytest.fixture(scope="module")
def fig_5_2():
    return load_case(PUBLIC / "aima-fig-5-2.json")


def test_each_node_is_marked_with_both_searches_steps(fig_5_2):
    expected = solve(fig_5_2, "alpha_beta")
    lines = draw_tree(fig_5_2, expected, _variant_run(fig_5_2, "alpha_beta", "never_prunes"))
    assert lines[1].split() == ["A", "MAX", "root", "root"]
    assert _row(lines, "B1").split() == ["│", "├──", "B1", "=", "3", "✓", "2", "2"]
    assert _row(lines, "C2").split() == ["│", "├──", "C2", "=", "4", "+", "·", "7", "◀", "step",
                                         "7:", "yours"]
    assert _row(lines, "D").split()[-6:] == ["7", "9", "◀", "step", "7:", "reference"]
    assert "+" in _row(lines, "C3") and "✓" in _row(lines, "D3")


def test_nodes_only_the_reference_generated_are_marked_minus(fig_5_2):
    expected = solve(fig_5_2, "alpha_beta")
    got = RunResult(value=3, generated=["B", "B1", "B2", "B3"])
    lines = draw_tree(fig_5_2, expected, got)
    assert "−" in _row(lines, "C") and "−" in _row(lines, "D1")
    assert _row(lines, "C2").split()[-2:] == ["·", "·"]  # pruned by both: no mark


def test_duplicates_show_how_often_the_student_made_the_node(fig_5_2):
    expected = solve(fig_5_2, "minimax")
    got = _variant_run(fig_5_2, "minimax", "recomputes_child")
    row = _row(draw_tree(fig_5_2, expected, got), "B2")
    assert "×2" in row and "3" in row.split()


def test_chance_and_vector_trees_name_players_probabilities_and_values():
    chance = load_case(PUBLIC / "aima-fig-5-12-expectiminimax.json")
    run = solve(chance, "expectimax")
    text = "\n".join(draw_tree(chance, run, run))
    assert "B CHANCE" in text and "B1 (p=0.9) MIN" in text
    three = load_case(PUBLIC / "aima-fig-5-4-three-player.json")
    run = solve(three, "maxn")
    text = "\n".join(draw_tree(three, run, run))
    assert " P0" in text and " P1" in text and "= (1, 2, 6)" in text


def test_depth_limit_nodes_show_their_eval_and_nothing_below():
    case = load_case(PUBLIC / "depth-limit-1.json")
    run = solve(case, "minimax")
    lines = draw_tree(case, run, run)
    assert "B MIN, eval 4 (depth limit)" in lines[2]
    assert not any("B1" in line for line in lines)


def test_a_builtin_game_is_not_drawn():
    case = load_case(PUBLIC / "tictactoe-midgame.json")
    run = solve(case, "minimax")
    assert draw_tree(case, run, run) == []


def test_a_large_tree_is_cut_around_the_first_difference():
    case = load_case(PUBLIC / "deep-narrow.json")
    expected = solve(case, "alpha_beta")
    got = _variant_run(case, "alpha_beta", "strict_pruning")
    lines = draw_tree(case, expected, got)
    assert len(lines) < MAX_ROWS
    assert any("more nodes below" in line for line in lines)
    text = "\n".join(lines)
    assert "◀ step 76: yours" in text and "◀ step 76: reference" in text
    assert "B1.2.1.2.1.1.2 = -15" in text  # the extra node, drawn
    assert "B1.1.1.1" not in text  # far from the difference: summed up


def test_many_siblings_are_summed_up_as_more_siblings():
    case = load_case(PUBLIC / "wide-shallow.json")
    expected = solve(case, "alpha_beta")
    got = _variant_run(case, "alpha_beta", "never_prunes")
    lines = draw_tree(case, expected, got, max_rows=10)
    assert any("more sibling" in line for line in lines)
    assert len(lines) < 30


def test_no_line_is_wider_than_100_columns_even_with_long_ids():
    case = load_case(PUBLIC / "deep-narrow.json")
    expected = solve(case, "alpha_beta")
    got = _variant_run(case, "alpha_beta", "never_prunes")
    for lines in (draw_tree(case, expected, got), draw_tree(case, expected, got, width=60)):
        assert max(map(len, lines)) <= WIDTH


def test_ascii_keeps_the_columns_aligned(fig_5_2):
    expected = solve(fig_5_2, "alpha_beta")
    lines = draw_tree(fig_5_2, expected, _variant_run(fig_5_2, "alpha_beta", "never_prunes"))
    plain = [asciify(line) for line in lines]
    assert all(line.isascii() for line in plain)
    assert [len(line) for line in plain] == [len(line) for line in lines]
    assert plain[3].startswith("|   +-- B1 = 3") and plain[-1].startswith("    `-- D3")
    assert asciify("α = 3, β = +∞: v ≥ β") == "alpha = 3, beta = +inf: v >= beta"


def test_ascii_is_chosen_for_non_utf8_streams_or_on_request(monkeypatch):
    monkeypatch.delenv("GRADER_ASCII", raising=False)
    assert not wants_ascii(io.TextIOWrapper(io.BytesIO(), encoding="utf-8"))
    assert wants_ascii(io.TextIOWrapper(io.BytesIO(), encoding="latin-1"))
    monkeypatch.setenv("GRADER_ASCII", "1")
    assert wants_ascii(io.TextIOWrapper(io.BytesIO(), encoding="utf-8"))


# (tic-tac-toe from the empty board takes seconds under the strict rule: left out)
ALPHA_BETA_CASES = [c for c in ALL_CASES
                    if "alpha_beta" in c.algorithms and c.name != "tictactoe-empty-board"]


@pytest.mark.parametrize("case", ALPHA_BETA_CASES, ids=lambda c: c.name)
def test_the_window_replay_generates_what_the_reference_generates(case):
    for rule in ("inclusive", "strict"):
        moments = alpha_beta_moments(case.build_game(), rule == "strict")
        replay = [m.children[0] for m in moments if m.kind == "generate"]
        assert replay == solve(case, "alpha_beta", pruning=rule).generated
        assert [m.step for m in moments if m.kind == "generate"] == list(range(len(replay)))
        shortened = alpha_beta_moments(case.build_game(), rule == "strict", until=3)
        assert shortened == moments[: len(shortened)] and len(shortened) <= len(moments)


def test_the_window_at_a_missed_cut_names_v_the_bound_and_the_pruned_nodes(fig_5_2):
    expected = solve(fig_5_2, "alpha_beta")
    got = _variant_run(fig_5_2, "alpha_beta", "never_prunes")
    note = window_note(fig_5_2, "inclusive", expected.generated, got.generated)
    assert note == ("At step 7 the reference is at C (MIN) with α = 3, β = +∞: v = 2 ≤ α = 3, so "
                    "it stops there and prunes C2, C3. Yours generated C2.")


def test_the_window_at_a_premature_cut_says_why_the_reference_goes_on():
    case = load_case(PUBLIC / "prune-either-rule.json")
    expected = solve(case, "alpha_beta", pruning="strict")
    got = _variant_run(case, "alpha_beta", "inclusive_pruning", rule="strict")
    note = window_note(case, "strict", expected.generated, got.generated)
    assert note == ("At step 7 the reference is at C (MAX) with α = 4, β = 4 and v = 4 so far: "
                    "v ≤ β, no cut, so it generates C3 next. Yours generated D.")


def test_no_window_when_the_sequences_agree(fig_5_2):
    run = solve(fig_5_2, "alpha_beta")
    assert window_note(fig_5_2, "inclusive", run.generated, run.generated) is None


def test_the_window_comes_from_the_key_where_the_reference_is_not_shipped(fig_5_2, monkeypatch):
    from grader.answers.store import AnswerKey
    from grader.feedback.diagnosis import window_moments

    expected = solve(fig_5_2, "alpha_beta")
    got = _variant_run(fig_5_2, "alpha_beta", "never_prunes")
    stored = window_moments(fig_5_2, "inclusive", AnswerKey(cache=None))
    replayed = window_note(fig_5_2, "inclusive", expected.generated, got.generated)
    monkeypatch.setitem(sys.modules, "reference.replay", None)  # as in the handout
    assert window_note(fig_5_2, "inclusive", expected.generated, got.generated) is None
    assert window_note(fig_5_2, "inclusive", expected.generated, got.generated,
                       stored) == replayed
