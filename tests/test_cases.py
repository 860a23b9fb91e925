"""Loading cases in each form into games, and the rubric's defaults and overrides."""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path

import pytest

from grader.cases import Case, case_from_dict, find_cases, load_case, shorthand_id
from grader.cases.rubric import DEFAULT_PATH, RubricError, load_rubric, rubric_from_dict
from grader.errors import CaseError
from grader.games.base import CHANCE, MAX, MIN
from grader.games.tree import TreeGame


def case(**fields: object) -> Case:
    data = {"$schema": "../../grader/schema/case.schema.json", "name": "t",
            "description": "a test case", "algorithms": ["minimax"]}
    data.update(fields)
    return case_from_dict(data)


def walk(game, state, path: list) -> object:
    for action in path:
        state = game.result(state, action)
    return state


# --- full tree ----------------------------------------------------------------------------

AIMA = {"id": "A", "player": "max", "children": [
    {"id": "B", "player": "min", "children": [{"id": "B1", "value": 3}, {"id": "B2", "value": 12}]},
    {"id": "C", "player": "min", "action": "right",
     "children": [{"id": "C1", "value": 2}, {"id": "C2", "value": 4}]}]}


def test_full_tree_builds_a_tree_game() -> None:
    loaded = case(tree=AIMA)
    game = loaded.build_game()
    assert isinstance(game, TreeGame) and loaded.form == "tree"
    root = game.initial_state()
    assert game.to_move(root) == MAX
    assert game.actions(root) == ("B", "right")  # action defaults to the child's id
    c = game.result(root, "right")
    assert game.state_id(c) == "C" and game.to_move(c) == MIN
    leaf = game.result(c, "C2")
    assert game.is_terminal(leaf) and game.utility(leaf) == 4


def test_leaves_get_the_player_who_would_move_there() -> None:
    game = case(tree={"id": "A", "player": "min", "children": [
        {"id": "B", "value": 1},
        {"id": "C", "player": "min", "children": [{"id": "C1", "value": 2}]},
        {"id": "D", "player": "chance", "children": [
            {"id": "D1", "probability": 1, "value": 5}]}]},
        algorithms=["expectimax"]).build_game()
    root = game.initial_state()
    assert game.to_move(walk(game, root, ["B"])) == MAX
    assert game.to_move(walk(game, root, ["C", "C1"])) == MAX
    assert game.to_move(walk(game, root, ["D"])) == CHANCE
    assert game.to_move(walk(game, root, ["D", "D1"])) == MAX  # after chance: the next after MIN
    assert game.chance_outcomes(walk(game, root, ["D"])) == [("D1", 1)]


def test_n_player_values_become_tuples_and_leaves_get_the_next_index() -> None:
    game = case(players=3, algorithms=["maxn"], tree={"id": "A", "player": 2, "children": [
        {"id": "B", "value": [1, 2.5, 3]}]}).build_game()
    leaf = walk(game, game.initial_state(), ["B"])
    assert game.utility(leaf) == (1, 2.5, 3)
    assert game.to_move(leaf) == 0
    assert game.players == 3


def test_two_player_maxn_case_has_vector_values() -> None:
    loaded = case(algorithms=["maxn"], tree=[[[1, 0], [0, 1]], [[2, 0]]])
    game = loaded.build_game()
    assert loaded.vector_values
    assert game.utility(walk(game, game.initial_state(), ["B", "B2"])) == (0, 1)


# --- shorthand ----------------------------------------------------------------------------


def test_shorthand_ids_follow_the_documented_scheme() -> None:
    game = case(tree=[[3, 12, 8], [2, 4, 6], [14, 5, 2]]).build_game()
    root = game.initial_state()
    assert game.state_id(root) == "A"
    assert game.actions(root) == ("B", "C", "D")
    assert game.actions(walk(game, root, ["B"])) == ("B1", "B2", "B3")
    assert game.utility(walk(game, root, ["D", "D1"])) == 14
    assert game.to_move(walk(game, root, ["C"])) == MIN


def test_shorthand_ids_below_the_second_level() -> None:
    game = case(tree=[[[1, 2], [3, [4, 5]]]]).build_game()
    root = game.initial_state()
    assert game.actions(walk(game, root, ["B"])) == ("B1", "B2")
    assert game.actions(walk(game, root, ["B", "B1"])) == ("B1.1", "B1.2")
    assert game.actions(walk(game, root, ["B", "B2", "B2.2"])) == ("B2.2.1", "B2.2.2")
    assert game.utility(walk(game, root, ["B", "B2", "B2.2", "B2.2.2"])) == 5


def test_shorthand_root_letters_continue_after_z() -> None:
    assert [shorthand_id((i,)) for i in (1, 2, 25, 26, 27, 52)] == ["B", "C", "Z", "AA", "AB", "BA"]
    assert shorthand_id(()) == "A" and shorthand_id((26, 3, 1)) == "AA3.1"
    game = case(tree=list(range(30))).build_game()
    assert game.actions(game.initial_state())[-6:] == ("Z", "AA", "AB", "AC", "AD", "AE")


def test_shorthand_root_player_and_turns() -> None:
    game = case(tree=[[1, 2], [3]], root_player="min").build_game()
    root = game.initial_state()
    assert game.to_move(root) == MIN and game.to_move(walk(game, root, ["B"])) == MAX
    game = case(algorithms=["expectimax"], tree=[[1, 2, 3], [4]],
                turns=["max", "chance"]).build_game()
    chance = walk(game, game.initial_state(), ["B"])
    assert game.to_move(chance) == CHANCE
    outcomes = game.chance_outcomes(chance)
    assert [a for a, _ in outcomes] == ["B1", "B2", "B3"]
    assert all(math.isclose(p, 1 / 3) for _, p in outcomes)


def test_shorthand_n_players_cycle_and_lists_are_leaves() -> None:
    game = case(players=3, algorithms=["maxn"],
                tree=[[[1, 2, 3], [3, 2, 1]], [[[0, 0, 9]]]]).build_game()
    root = game.initial_state()
    assert [game.to_move(walk(game, root, p)) for p in ([], ["B"], ["C", "C1"])] == [0, 1, 2]
    assert game.utility(walk(game, root, ["B", "B2"])) == (3, 2, 1)


# --- start + states -------------------------------------------------------------------------

GRAPH = {"A": {"player": "max", "successors": [["left", "B"], ["right", "C"]]},
         "B": {"player": "min", "successors": [["l", "D"], ["m", "G"]]},
         "C": {"player": "min", "successors": [["m", "G"], ["r", "F"]]},
         "G": {"player": "max", "successors": [["x", "H"]]},
         "D": {"value": 7}, "F": {"value": 3}, "H": {"value": 2}}


def test_states_graph_with_a_shared_state() -> None:
    loaded = case(start="A", states=GRAPH)
    game = loaded.build_game()
    root = game.initial_state()
    assert loaded.form == "states"
    assert game.actions(root) == ("left", "right")
    via_b = walk(game, root, ["left", "m"])
    via_c = walk(game, root, ["right", "m"])
    assert via_b is via_c and game.state_id(via_b) == "G"
    assert game.to_move(walk(game, root, ["left", "l"])) == MAX  # after MIN B
    assert game.to_move(walk(game, root, ["left", "m", "x"])) == MIN  # after MAX G


def test_states_chance_probabilities() -> None:
    game = case(algorithms=["expectimax"], start="S", states={
        "S": {"player": "chance", "successors": [["h", "X"], ["t", "Y"]],
              "probabilities": [0.25, 0.75]},
        "X": {"value": 1}, "Y": {"value": 2}}).build_game()
    assert game.chance_outcomes(game.initial_state()) == [("h", 0.25), ("t", 0.75)]


# --- depth limits -------------------------------------------------------------------------


def test_depth_limit_evaluates_the_cut_nodes() -> None:
    loaded = case(depth_limit=1, tree={"id": "A", "player": "max", "children": [
        {"id": "B", "player": "min", "eval": 5, "children": [{"id": "B1", "value": 9}]},
        {"id": "C", "value": 1}]})
    game = loaded.build_game()
    b = walk(game, game.initial_state(), ["B"])
    assert loaded.depth_limit == game.depth_limit == 1
    assert game.is_cutoff(b, 1) and not game.is_cutoff(game.initial_state(), 0)
    assert game.evaluate(b) == 5


def test_nodes_below_the_depth_limit_need_no_eval() -> None:
    loaded = case(depth_limit=2, tree={"id": "A", "player": "max", "children": [
        {"id": "B", "player": "min", "eval": 5, "children": [
            {"id": "B1", "player": "max", "eval": 4, "children": [
                {"id": "B1.1", "player": "min", "children": [{"id": "X", "value": 0}]}]}]}]})
    assert loaded.build_game().depth_limit == 2


# --- built-in games -----------------------------------------------------------------------


def test_builtin_game_is_built_through_the_registry() -> None:
    if importlib.util.find_spec("grader.games.tictactoe") is None:
        pytest.skip("the tic-tac-toe module is not written yet")
    loaded = case(game="tictactoe", state="x.o|...|..x")
    game = loaded.build_game()
    assert loaded.form == "game"
    assert game.state_id(game.initial_state()) == "x.o|...|..x"
    assert not isinstance(game, TreeGame)


def test_builtin_game_error_becomes_a_case_error() -> None:
    if importlib.util.find_spec("grader.games.tictactoe") is None:
        pytest.skip("the tic-tac-toe module is not written yet")
    loaded = case(game="tictactoe", state="x.o|.z.|...")  # loading does not build the game
    with pytest.raises(CaseError, match=r"at \$\.state: the built-in game 'tictactoe' rejected"):
        loaded.build_game()


# --- the case object ----------------------------------------------------------------------


def test_public_dict_has_no_expect_and_is_a_copy() -> None:
    loaded = case(tree=[[3, 12], [2]], expect={"minimax": {"value": 3}})
    public = loaded.public_dict()
    assert "expect" not in public and public["tree"] == [[3, 12], [2]]
    public["tree"][0][0] = 99
    assert loaded.data["tree"][0][0] == 3
    assert loaded.expect == {"minimax": {"value": 3}}
    assert loaded.expectations() == [("minimax", None, {"value": 3})]
    assert case_from_dict(json.loads(json.dumps(public))).name == "case"  # a worker can load it


def test_request_case_is_the_public_dict_made_once() -> None:
    """What a worker request carries of a loaded case: its public dict, kept (one deep copy a
    case, not one a request), not the file's data itself."""
    loaded = case(tree=[[3, 12], [2]], expect={"minimax": {"value": 3}})
    sent = loaded.request_case()
    assert sent == loaded.public_dict() and sent is loaded.request_case()
    assert sent["tree"] is not loaded.data["tree"]


def test_the_worker_gets_no_name_description_or_grading_field_of_any_case() -> None:
    from grader.cases import iter_cases

    root = Path(__file__).resolve().parent.parent / "trees"
    for loaded in iter_cases([root / "public", root / "hidden"]):
        public = loaded.public_dict()
        text = json.dumps(public)
        assert loaded.name not in text and loaded.description not in text, loaded.name
        assert not {"expect", "points", "visibility", "time_limit", "pruning"} & set(public)
        assert set(public.get("mcts", {})) <= {"iterations", "seed", "c"}
        game, expected = case_from_dict(json.loads(text)).build_game(), loaded.build_game()
        state = game.initial_state()  # and it builds the same game
        assert game.state_id(state) == expected.state_id(expected.initial_state())
        assert list(game.actions(state)) == list(expected.actions(expected.initial_state()))


def test_case_fields_and_defaults() -> None:
    loaded = case(tree=[[1]], algorithms=["alpha_beta", "mcts"], points={"alpha_beta": 3},
                  value_bounds=[0, 10], mcts={"iterations": 50, "seed": 7, "check": "outcome"})
    assert loaded.pruning is None and loaded.visibility is None and loaded.time_limit is None
    assert loaded.points_for("alpha_beta") == 3 and loaded.points_for("mcts") is None
    assert loaded.value_bounds == (0, 10) and loaded.depth_limit is None
    assert (loaded.mcts.iterations, loaded.mcts.seed, loaded.mcts.check) == (50, 7, "outcome")
    assert loaded.mcts.c == pytest.approx(math.sqrt(2)) and loaded.mcts.seeds is None
    assert loaded.build_game().value_bounds == (0, 10)


def test_load_case_keeps_the_path(tmp_path: Path) -> None:
    file = tmp_path / "c.json"
    file.write_text(json.dumps({"$schema": "x", "name": "c", "description": "d",
                                "algorithms": ["minimax"], "tree": [[1, 2]]}))
    loaded = load_case(file)
    assert loaded.path == file and loaded.name == "c"


def test_find_cases_is_recursive_sorted_and_skips_non_cases(tmp_path: Path) -> None:
    for name in ("b/z.json", "b/a.json", "a.json", "rubric.toml", "rubric.json",
                 "case.schema.json", "notes.txt", ".hidden/x.json"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("{}")
    found = find_cases([tmp_path])
    assert [p.relative_to(tmp_path).as_posix() for p in found] == ["a.json", "b/a.json", "b/z.json"]
    assert find_cases([tmp_path / "b" / "z.json", tmp_path]) == found
    with pytest.raises(FileNotFoundError):
        find_cases([tmp_path / "missing"])


# --- the rubric ---------------------------------------------------------------------------


def test_missing_default_rubric_gives_the_defaults(tmp_path: Path) -> None:
    rubric = load_rubric(tmp_path)  # a folder without rubric.toml
    settings = rubric.settings_for(case(tree=[[1]]), "minimax")
    assert (settings.points, settings.visibility, settings.pruning) == (1, "visible", "inclusive")
    assert (settings.partial_credit, settings.time_floor, settings.time_multiple) == (0.5, 1.0, 50)
    assert (settings.work_multiple, settings.work_floor) == (40, 1000)
    assert (settings.outcome_seeds, settings.outcome_share) == (20, 0.9)
    assert rubric.random_trees.points_for("alpha_beta") == 0


def test_shipped_rubric_loads() -> None:
    if DEFAULT_PATH.exists():
        assert load_rubric().path == DEFAULT_PATH
    assert load_rubric(None).defaults.pruning in ("inclusive", "strict")


def test_algorithm_overrides_and_case_overrides(tmp_path: Path) -> None:
    file = tmp_path / "rubric.toml"
    file.write_text('[defaults]\npoints = 2\npruning = "strict"\ntime_floor = 0.5\n'
                    "[algorithms.mcts]\npoints = 5\noutcome_seeds = 10\n"
                    "[random_trees]\npoints = {alpha_beta = 3}\n")
    rubric = load_rubric(file)
    plain = case(tree=[[1]], algorithms=["alpha_beta", "mcts"])
    assert rubric.settings_for(plain, "alpha_beta").points == 2
    assert rubric.settings_for(plain, "alpha_beta").pruning == "strict"
    mcts = rubric.settings_for(plain, "mcts")
    assert (mcts.points, mcts.outcome_seeds, mcts.pruning) == (5, 10, "strict")
    assert rubric.random_trees.points_for("alpha_beta") == 3
    assert rubric.random_trees.points_for("minimax") == 0

    custom = case(tree=[[1]], algorithms=["alpha_beta", "mcts"], points={"mcts": 1},
                  visibility="hidden", pruning="either", time_limit=3,
                  mcts={"seeds": 4, "check": "outcome"})
    settings = rubric.settings_for(custom, "alpha_beta")
    assert (settings.points, settings.visibility, settings.pruning) == (2, "hidden", "either")
    assert settings.accepted_pruning == ("inclusive", "strict")
    assert settings.time_floor == 3
    assert rubric.settings_for(custom, "mcts").points == 1
    assert rubric.settings_for(custom, "mcts").outcome_seeds == 4


def test_random_tree_points_for_all_skip_the_algorithms_without_random_trees(tmp_path: Path) -> None:
    """A number "for all" gave evaluate and iterative_deepening a random-tree test that could not
    build its case: a failed 0/0 test and a grader error for staff."""
    file = tmp_path / "rubric.toml"
    file.write_text("[random_trees]\npoints = 2\n")
    rubric = load_rubric(file)
    assert rubric.random_trees.points_for("quiescence") == 2
    assert rubric.random_trees.points_for("evaluate") == 0
    assert rubric.random_trees.points_for("iterative_deepening") == 0


@pytest.mark.parametrize("text, path, words", [
    ("[defaults]\npont = 1\n", "defaults.pont", ["unknown key 'pont'", "did you mean 'points'"]),
    ('[defaults]\npruning = "loose"\n', "defaults.pruning", ["'inclusive', 'strict'", "'loose'"]),
    ("[defaults]\npartial_credit = 2\n", "defaults.partial_credit", ["<= 1", "got: 2"]),
    ("[defaults]\noutcome_seeds = 2.5\n", "defaults.outcome_seeds", ["expected an integer"]),
    ("[algorithms.alphabeta]\npoints = 1\n", "algorithms.alphabeta", ["unknown algorithm"]),
    ("[defalts]\n", "defalts", ["unknown table", "did you mean [defaults]"]),
    ("[random_trees]\npoints = {minmax = 1}\n", "random_trees.points", ["'minmax'"]),
    ("[random_trees]\npoints = {evaluate = 1}\n", "random_trees.points",
     ["evaluate has no random-tree test", "remove evaluate"]),
])
def test_bad_rubric_names_the_file_and_key(
    tmp_path: Path, text: str, path: str, words: list
) -> None:
    file = tmp_path / "rubric.toml"
    file.write_text(text)
    with pytest.raises(RubricError) as raised:
        load_rubric(file)
    assert raised.value.path == path and raised.value.file == str(file)
    assert all(word in raised.value.message for word in words), raised.value.message
    assert str(raised.value).startswith(str(file))


def test_rubric_toml_syntax_error_has_a_line(tmp_path: Path) -> None:
    file = tmp_path / "rubric.toml"
    file.write_text("[defaults]\npoints = = 1\n")
    with pytest.raises(RubricError, match="not valid TOML") as raised:
        load_rubric(file)
    assert raised.value.line == 2


def test_named_rubric_file_must_exist(tmp_path: Path) -> None:
    with pytest.raises(RubricError, match="no such rubric file"):
        load_rubric(tmp_path / "nope.toml")


def test_rubric_from_dict_is_typed() -> None:
    rubric = rubric_from_dict({"defaults": {"visibility": "after_due_date"}})
    assert rubric.for_algorithm("maxn").visibility == "after_due_date"
    with pytest.raises(ValueError, match="expected an algorithm"):
        rubric.for_algorithm("alphabeta")


def test_a_case_file_checked_before_is_loaded_without_its_checks_and_an_edited_one_is_checked(
        tmp_path, monkeypatch):
    """grader/cases/checked.py: a file whose exact text passed every check (under the same
    checking code) loads as the same case without the checks; any edit is checked again; with
    no cache folder nothing is remembered."""
    from grader.cases import checked
    from grader.cases import load as load_module

    checks = []
    real_check = load_module.check_case
    monkeypatch.setattr(load_module, "check_case",
                        lambda data, *a, **k: checks.append(data["name"]) or real_check(data, *a, **k))
    monkeypatch.setattr(load_module, "plain_tree_nodes", lambda data: None)  # every case checked
    text = (Path(__file__).resolve().parent.parent / "trees/public/aima-fig-5-2.json").read_text()
    path = tmp_path / "case.json"
    path.write_text(text)
    monkeypatch.setenv("GRADER_CACHE", str(tmp_path / "no-such-folder"))
    load_case(path), load_case(path)
    assert checks == ["aima-fig-5-2"] * 2 and checked.memo_path() is None  # no memo there
    (tmp_path / "cache").mkdir()
    monkeypatch.setenv("GRADER_CACHE", str(tmp_path / "cache"))
    first, again = load_case(path), load_case(path)
    assert checks == ["aima-fig-5-2"] * 3  # checked once more, then vouched for
    checked.flush()  # (else written when the process ends)
    assert (tmp_path / "cache" / checked.MEMO_NAME).exists()
    assert again.data == first.data and again.algorithms == first.algorithms
    game, game_again = first.build_game(), again.build_game()
    assert game.actions(game.initial_state()) == game_again.actions(game_again.initial_state())
    path.write_text(text.replace("[[3, 12, 8]", '[[3, "twelve", 8]'))  # edited: checked again
    with pytest.raises(CaseError, match="expected a number"):
        load_case(path)
    assert checks[-1] == "aima-fig-5-2" and len(checks) == 4
    path.write_text(text)
    monkeypatch.setattr(checked.algorithm_specs, "extra_entries", lambda: ["course_algorithm"])
    assert not checked.vouched(text)  # an algorithm registered from outside: no memo
