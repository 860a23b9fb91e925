"""TA tooling: ``grader new`` skeletons (grader/authoring.py) and ``grader solve --key`` answer
keys (grader/answer_sheet.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grader import cli
from grader.answers.sheet import AlphaBetaReplay, answer_key, checked_replay, walk
from grader.answers.solve import solve
from grader.answers.validate import validate_paths
from grader.cases import case_from_dict, find_cases, load_case
from grader.cases.authoring import case_json
from grader.cases.rubric import rubric_from_dict
from grader.commands.key import key_main
from grader.commands.new import new_main, skeleton

ROOT = Path(__file__).resolve().parent.parent
PUBLIC = ROOT / "trees" / "public"


# --- grader new -----------------------------------------------------------------------------

SKELETONS = {
    "alpha_beta-3x2": ("alpha_beta", "3x2", 2, False),
    "minimax-2x3": ("minimax", "2x3", 2, False),
    "expectimax-chance-3x2": ("expectimax", "3x2", 2, True),
    "expectimax-chance-2x4": ("expectimax", "2x4", 2, True),
    "maxn-3-players": ("maxn", "2x3", 3, False),
    "maxn-2-players": ("maxn", "3x1", 2, False),
    "mcts-2x2": ("mcts", "2x2", 2, False),
    "mcts-3-players": ("mcts", "2x3", 3, False),  # was a ValueError: judged by minimax
    "evaluate": ("evaluate", None, 2, False),  # no tree: Connect Four, graded by play
}


@pytest.mark.parametrize("key", SKELETONS)
def test_new_writes_a_case_that_validates(tmp_path, key, capsys):
    algorithm, shape, players, chance = SKELETONS[key]
    out = tmp_path / "cases" / f"{key}.json"
    assert new_main(algorithm, shape, players=players, chance=chance, out=out) == 0
    assert "wrote" in capsys.readouterr().out
    assert validate_paths([out]) == []
    data = json.loads(out.read_text())
    assert (out.parent / data["$schema"]).resolve() == ROOT / "grader/schema/case.schema.json"
    assert data["algorithms"] == [algorithm] and data["description"].startswith("TODO")
    assert data["name"] == key.lower().replace("_", "-")


def test_new_tree_has_the_shape_players_and_chance_asked_for():
    data = skeleton("expectimax", 3, 2, chance=True)
    root = data["tree"]
    assert root["player"] == "max" and len(root["children"]) == 3
    chance = root["children"][0]
    assert chance["player"] == "chance"
    assert [c["probability"] for c in chance["children"]] == [1 / 3] * 3
    assert all("value" in leaf for leaf in chance["children"])  # depth 2: leaves below chance
    three = skeleton("maxn", 2, 3, players=3)["tree"]
    assert [three["player"], three["children"][0]["player"]] == [0, 1]
    leaf = three["children"][0]["children"][0]["children"][0]
    assert len(leaf["value"]) == 3 and leaf["id"] == "B1.1"


def test_new_placeholder_values_make_alpha_beta_prune_and_the_best_move_not_first():
    case = case_from_dict(skeleton("alpha_beta", 3, 2))
    assert AlphaBetaReplay(case.build_game()).cuts
    assert solve(case, "alpha_beta").action != "B"
    assert skeleton("alpha_beta", 3, 2) == skeleton("alpha_beta", 3, 2)  # deterministic


def test_new_prints_to_stdout_with_the_trees_public_schema_path(capsys):
    assert new_main("minimax", "2x2") == 0
    data = json.loads(capsys.readouterr().out)
    assert data["$schema"] == "../../grader/schema/case.schema.json"
    assert data["name"] == "new-case"


@pytest.mark.parametrize("args, words", [
    (("alpha_beta", "3-2", 2, False), ["BRANCHINGxDEPTH", "'3-2'"]),
    (("alpha_beta", "3x2", 2, True), ["chance nodes need --algorithm expectimax"]),
    (("minimax", "3x2", 3, False), ["two-player algorithm", "use maxn"]),
    (("alpha_beta", "10x4", 2, False), ["10000 leaves"]),
    (("maxn", "2x2", 1, False), ["--players of at least 2"]),
])
def test_new_rejects_options_that_cannot_make_a_case(args, words, capsys):
    algorithm, shape, players, chance = args
    assert new_main(algorithm, shape, players=players, chance=chance) == 2
    error = capsys.readouterr().err
    assert error.startswith("grader new: ") and all(word in error for word in words)


def test_cli_new_calls_new_main_and_never_overwrites(tmp_path, capsys):
    out = tmp_path / "x.json"
    command = ["new", "-a", "maxn", "--shape", "2x2", "--players", "3", "--out", str(out)]
    assert cli.main(command) == 0
    assert load_case(out).players == 3
    assert cli.main(command) == 2
    assert "already exists" in capsys.readouterr().err


def test_case_json_keeps_short_lists_on_one_line():
    text = case_json({"name": "x", "tree": [[3, 12, 8], [2, 4, 6]]})
    assert '"tree": [[3, 12, 8], [2, 4, 6]]' in text and json.loads(text)["name"] == "x"


# --- grader solve --key -----------------------------------------------------------------------


def test_the_key_of_an_evaluate_case_says_how_it_plays_and_scores():
    from grader.cases import load_case
    from grader.cases.rubric import load_rubric

    text = answer_key(load_case(PUBLIC / "evaluate-connect4-greedy.json"), load_rubric())
    assert "Graded by play" in text and "Opponent: **greedy**; 10 matches (seeds 2000-2009)" in text
    assert ("Points: 1 at each score-rate step 0.5, 0.6, 0.7, 0.8 (a side's wins, a draw "
            "counting 0.5, over its matches), half for each side, x and o, whose rate reaches "
            "it; 4 in all.") in text



@pytest.fixture(scope="module")
def fig_5_2_key() -> str:
    return answer_key(load_case(PUBLIC / "aima-fig-5-2.json"))


def test_key_of_the_3_12_8_tree_lists_c2_and_c3_as_pruned(fig_5_2_key):
    section = fig_5_2_key.split("\n## alpha_beta\n")[1]
    assert "- Pruned: C2, C3 (2 nodes in all" in section
    assert "inclusive and strict rules **agree**" in section
    assert "| 1 | C | MIN | 1 | 2 | (3, +inf) | 2 <= alpha 3 | C2, C3 |" in section
    assert "| C2 | leaf | 2 | 4 | pruned |  |  |" in section
    assert "- Generated (10): `B B1 B2 B3 C C1 D D1 D2 D3`" in section


def test_key_gives_minimax_values_of_every_node(fig_5_2_key):
    section = fig_5_2_key.split("\n## minimax\n")[1].split("\n## alpha_beta\n")[0]
    assert "- Root value: **3**" in section and "- Root move: **B**" in section
    for row in ("| A | MAX | 0 | 3 | root |", "| C | MIN | 1 | 2 | 5 |",
                "| D3 | leaf | 2 | 2 | 12 |"):
        assert row in section


def test_key_shows_both_rules_with_the_equality_cut_when_they_differ():
    key = answer_key(load_case(PUBLIC / "prune-equal-root-level.json"))
    assert "rules **differ**" in key
    inclusive, strict = key.split("### alpha_beta, inclusive rule")[1].split(
        "### alpha_beta, strict rule")
    assert "3 <= alpha 3 (equal) | C2, C3 |" in inclusive
    assert "- Pruned: C2, C3" in inclusive
    assert "- Pruned: none" in strict and "Cuts: none." in strict


def test_key_of_a_deep_cutoff_gives_the_window_from_the_root():
    case = load_case(PUBLIC / "prune-equal-deep-cutoff.json")
    replay = checked_replay(case, "inclusive")
    deep = [cut for cut in replay.cuts if cut.deep]
    assert deep and deep[0].depth >= 2 and deep[0].bound_depth == 0
    assert f"| {deep[0].id} | MIN | {deep[0].depth} |" in answer_key(case)


@pytest.mark.parametrize("name, words", [
    ("expectimax-notes-8-8-vs-36-3.json", ["| B | chance | 1 |  | 8.8 | 1 |",
                                            "| B1 | leaf | 2 | 0.4 |"]),
    ("aima-fig-5-4-three-player.json", ["**(1, 2, 6)**", "| B1 | P2 | 2 | (1, 2, 6) | 2 |"]),
    ("maxn-shallow-pruning.json", ["- Pruned: "]),
    ("mcts-tiny-tree.json", ["- Chosen move (seed 1): **B**", "visits of the root's moves: B: "]),
    ("tictactoe-midgame.json", ["no node table", "x.o\\|"]),
])
def test_key_covers_every_algorithm(name, words):
    key = answer_key(load_case(PUBLIC / name))
    assert all(word in key for word in words), key


def test_replay_matches_the_reference_on_every_explicit_alpha_beta_case():
    cases = [load_case(p) for p in find_cases([ROOT / "trees"])]
    checked = 0
    for case in cases:
        if "alpha_beta" in case.algorithms and case.form != "game":
            for rule in ("inclusive", "strict"):
                checked_replay(case, rule)  # raises when the replay and reference part
            checked += 1
    assert checked >= 20


def test_walk_lists_shared_states_once_expanded():
    nodes = walk(load_case(PUBLIC / "graph-shared-state.json").build_game())
    shared = [n for n in nodes if n.id == "G"]
    assert [n.repeat for n in shared] == [False, True] and shared[1].value == shared[0].value


def test_key_main_prints_markdown_and_exits_2_for_a_missing_case(tmp_path, capsys):
    assert key_main(PUBLIC / "ties-at-root.json") == 0
    assert capsys.readouterr().out.startswith("# Answer key: ties-at-root")
    assert cli.main(["solve", str(tmp_path / "nope.json"), "--key"]) == 2
    assert "nope.json" in capsys.readouterr().err


def test_key_of_a_graph_shows_one_row_a_visit_of_a_shared_state():
    key = answer_key(load_case(PUBLIC / "graph-shared-state.json"))
    inclusive = key.split("### alpha_beta, inclusive rule")[1].split("### alpha_beta, strict")[0]
    # G is searched from B with beta 7, then from C with alpha 5: two windows, two rows.
    assert "| G | MAX | 2 | m | 5 | 3 | (-inf, 7) | 5 |" in inclusive
    assert "| G (again) |  | 2 |  |  | 7 | (5, +inf) | 5 |" in inclusive
    assert "| I (again) |  | 3 |  |  | 9 | (5, +inf) | 5 |" in inclusive
    assert "| F | leaf | 2 | r | 3 | pruned |  |  |" in inclusive
    minimax = key.split("## minimax")[1].split("## alpha_beta")[0]
    assert "| G | MAX | 2 | m | 5 | 3, 7 |" in minimax  # no windows: one row, both numbers


def test_mcts_key_lists_the_optimal_moves_and_the_share_of_seeds_that_find_one():
    key = answer_key(load_case(PUBLIC / "mcts-tiny-tree.json"))
    assert "- Optimal moves (exact game value, what an `outcome` check accepts): **B**" in key
    assert "- Seeds 1-20: 20 of 20 choose an optimal move (100%; an `outcome` check needs 90%)" \
        in key
    case = load_case(PUBLIC / "mcts-tiny-tree.json")
    low = answer_key(case, rubric_from_dict({"defaults": {"outcome_seeds": 3}}))
    assert "- Seeds 1-3: 3 of 3 choose" in low


def test_maxn_key_says_no_pruning_rule_applies_and_expect_maxn_strict_is_an_error(tmp_path):
    key = answer_key(load_case(PUBLIC / "maxn-shallow-pruning.json"))
    assert "- Pruning rule: none applies. The inclusive/strict rule is alpha-beta's" in key
    case = load_case(PUBLIC / "maxn-shallow-pruning.json")
    assert solve(case, "maxn", pruning="strict").generated == solve(case, "maxn").generated
    data = json.loads((PUBLIC / "maxn-shallow-pruning.json").read_text())
    data["expect"] = {"maxn/strict": {"value": [6, 2, 2]}}
    path = tmp_path / "m.json"
    path.write_text(json.dumps(data))
    errors = validate_paths([path])
    assert len(errors) == 1 and "changes only alpha_beta's search" in errors[0].message
    assert "`maxn/strict` is an error" in (ROOT / "docs" / "cases.md").read_text()
