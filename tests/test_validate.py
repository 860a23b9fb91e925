"""``grader validate``: every broken case file gets its own clear message, all in one run."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import jsonschema
import pytest

from grader.answers.validate import reference_available, validate_paths
from grader.cases import (
    SCHEMA_PATH,
    case_from_dict,
    case_schema,
    check_case,
    load_case,
    parse_case_text,
)
from grader.commands.validate import validate_main
from grader.errors import CaseError

ROOT = Path(__file__).resolve().parent.parent
BROKEN = Path(__file__).resolve().parent / "broken_cases"
TREES = ROOT / "trees"

# file -> (JSON path, line, words the message must contain): one rule each.
BROKEN_FILES = {
    "not_json.json": ("$", 7, ["not valid JSON", "trailing comma"]),
    "empty.json": ("$", None, ["the file is empty"]),
    "wrong_types.json": ("$.players", 6, ["expected an integer", '"2" (a string)']),
    "unknown_field.json": ("$.tree.children[1].vaule", 8, ["unknown field 'vaule'",
                                                           "did you mean 'value'"]),
    "missing_required.json": ("$", 1, ["missing required field 'description'"]),
    "no_game.json": ("$", 1, ["no game given", "'start' + 'states'"]),
    "two_games.json": ("$.game", 7, ["gives 'tree' and 'game'", "exactly one game form"]),
    "duplicate_key.json": ("$.algorithms", 6, ["'algorithms' is given twice"]),
    "cycle.json": ("$.states.A", 8, ["cycle A -> B -> A"]),
    "undefined_successor.json": ("$.states.B.successors[1][1]", 9,
                                 ["successor 'E' of state 'B' is not defined"]),
    "unreachable_state.json": ("$.states.Z", 11, ["'Z' cannot be reached from the start 'A'"]),
    "start_undefined.json": ("$.start", 6, ["start state 'S' is not defined"]),
    "duplicate_id.json": ("$.tree.children[1].children[0].id", 8,
                          ["id 'B1' is used twice", "$.tree.children[0].children[0]"]),
    "leaf_arity.json": ("$.tree.children[1].value", 9, ["expected a list of 3 numbers",
                                                        "got 2 numbers"]),
    "probabilities_sum.json": ("$.tree.children[1]", 8, [
        "probabilities of the children of 'C' sum to 0.9; they must sum to 1"]),
    "probability_range.json": ("$.tree.children[1].probability", 8, ["expected a number > 0"]),
    "missing_probability.json": ("$.tree.children[1]", 8, ["without a probability"]),
    "player_index.json": ("$.tree.children[0].player", 8, ["player 3 does not exist",
                                                           "3 players (0..2)"]),
    "missing_eval.json": ("$.tree.children[1]", 9, ["'C' is at the depth limit 1",
                                                    "give it 'eval'"]),
    "value_on_internal.json": ("$.tree.children[0].value", 7, ["has children and a value"]),
    "chance_for_minimax.json": ("$.algorithms[0]", 5, ["minimax cannot search chance nodes",
                                                      "use expectimax"]),
    "two_player_algorithm.json": ("$.algorithms[0]", 5, ["alpha_beta is a two-player algorithm",
                                                        "3 players"]),
    "maxn_with_minimax.json": ("$.algorithms[0]", 5, ["put maxn and minimax in separate cases"]),
    "maxn_scalar.json": ("$.tree.children[0].value", 7, ["expected a list of 2 numbers",
                                                         "got 1 (an integer)"]),
    "mcts_depth_limit.json": ("$.depth_limit", 6, ["cannot have a depth limit"]),
    "unknown_game.json": ("$.game", 6, ['got "chess"', '"tictactoe"']),
    "unknown_algorithm.json": ("$.algorithms[0]", 5, ["did you mean 'alpha_beta'"]),
    "shared_state_depth.json": ("$.states.E", 12, ["reached at depth 1 and at the depth limit 2"]),
    "shorthand_depth_limit.json": ("$.depth_limit", 6, ["shorthand trees have no eval"]),
    "nan_value.json": ("$.tree[0][1]", 6, ["NaN is not a JSON number"]),
    "wrong_expect_key.json": ("$.expect.alpha_beta", 7, ["alpha_beta, which is not in algorithms"]),
}


def errors_of(name: str) -> list[CaseError]:
    return validate_paths([BROKEN / name])


@pytest.mark.parametrize("name", sorted(BROKEN_FILES))
def test_each_broken_file_gets_its_own_message(name: str) -> None:
    path, line, words = BROKEN_FILES[name]
    errors = errors_of(name)
    matching = [e for e in errors if all(word in e.message for word in words)]
    assert matching, f"no error with {words} among {[str(e) for e in errors]}"
    error = matching[0]
    assert error.path == path
    assert error.line == line
    assert error.file == str(BROKEN / name)
    assert str(error).startswith(f"{BROKEN / name}:" + (f"{line}:" if line else ""))


def test_every_broken_file_has_a_test() -> None:
    listed = set(BROKEN_FILES) | {"duplicate_name_a.json", "duplicate_name_b.json",
                                  "expect_wrong.json", "builtin_bad_state.json",
                                  "expect_other_rule.json", "misspelled_children.json",
                                  "quiet_without_noisy.json"}
    assert {p.name for p in BROKEN.glob("*.json")} == listed


def test_a_folder_reports_all_errors_in_one_run() -> None:
    errors = validate_paths([BROKEN])
    files_with_errors = {Path(e.file).name for e in errors}
    expected = {p.name for p in BROKEN.glob("*.json")} - {"duplicate_name_a.json",
                                                         "quiet_without_noisy.json"}
    if not reference_available():
        expected -= {"expect_wrong.json", "expect_other_rule.json"}
    try:
        import grader.games.tictactoe  # noqa: F401
    except ImportError:
        expected.discard("builtin_bad_state.json")
    assert files_with_errors == expected
    assert len(errors) >= len(expected) + 1  # unknown_field.json and wrong_types.json have two


def test_wrong_types_reports_every_schema_error() -> None:
    errors = errors_of("wrong_types.json")
    assert [(e.path, e.line) for e in errors] == [("$.players", 6), ("$.depth_limit", 7)]
    assert "expected an integer or null, got 1.5" in errors[1].message


def test_duplicate_names_across_files() -> None:
    errors = validate_paths([BROKEN / "duplicate_name_a.json", BROKEN / "duplicate_name_b.json"])
    assert len(errors) == 1
    assert errors[0].file.endswith("duplicate_name_b.json")
    assert errors[0].path == "$.name" and errors[0].line == 3
    assert "'same-name' is already used by" in errors[0].message
    assert "duplicate_name_a.json" in errors[0].message
    assert validate_paths([BROKEN / "duplicate_name_a.json"]) == []


def test_builtin_game_reports_the_games_own_error() -> None:
    pytest.importorskip("grader.games.tictactoe")
    errors = errors_of("builtin_bad_state.json")
    assert len(errors) == 1
    assert errors[0].path == "$.state" and errors[0].line == 7
    assert "rejected the state" in errors[0].message and "'z'" in errors[0].message


def test_a_misspelled_field_is_named_before_what_it_leaves_missing() -> None:
    errors = errors_of("misspelled_children.json")
    assert [(e.path, e.line) for e in errors] == [("$.tree.childern", 6), ("$.tree", 6)]
    assert "unknown field 'childern' (did you mean 'children'?)" in errors[0].message
    assert "missing required field 'value'" in errors[1].message
    assert "side effect of the misspelled 'childern' above" in errors[1].message
    assert errors[1].column < errors[0].column  # first though it stands later on the line


def test_a_non_quiet_node_without_a_noisy_child_is_warned_about_not_failed() -> None:
    warnings: list[CaseError] = []
    assert validate_paths([BROKEN / "quiet_without_noisy.json"], warnings=warnings) == []
    (warning,) = warnings
    assert (warning.path, warning.line) == ("$.tree.children[0].quiet", 9)
    assert "node 'B' is marked \"quiet\": false but none of its children is \"noisy\": true" \
        in warning.message
    marked = [p for p in (TREES / "public").glob("quiescence-*.json")]
    assert marked
    quiet: list[CaseError] = []
    validate_paths(marked, check_expect=False, warnings=quiet)
    assert not [w for w in quiet if "noisy" in w.message]  # the course's cases mark it right


@pytest.mark.skipif(not reference_available(), reason="the reference is not importable yet")
def test_an_expect_worked_by_the_other_pruning_rule_is_said_to_be() -> None:
    (error,) = errors_of("expect_other_rule.json")
    assert error.path == "$.expect.alpha_beta.evaluated"
    assert "that is the strict pruning rule's answer, but this case is graded by the " \
        "inclusive rule" in error.message
    assert '"alpha_beta/strict"' in error.message
    wrong = errors_of("expect_wrong.json")  # a plain slip: no rule named
    assert "pruning rule" not in wrong[0].message


@pytest.mark.skipif(not reference_available(), reason="the reference is not importable yet")
def test_expect_is_checked_against_the_reference() -> None:
    errors = errors_of("expect_wrong.json")
    assert [(e.path, e.line) for e in errors] == [("$.expect.minimax.value", 7)]
    assert "expected 2 at expect.minimax.value, the reference gives 3" in errors[0].message


def test_missing_path_is_an_error() -> None:
    errors = validate_paths([BROKEN / "no-such-file.json"])
    assert len(errors) == 1 and "no such file or folder" in errors[0].message


def test_validate_main_prints_one_error_a_line_and_a_summary() -> None:
    out = io.StringIO()
    status = validate_main([BROKEN / "wrong_types.json", BROKEN / "cycle.json"], out=out)
    lines = out.getvalue().splitlines()
    assert status == 1
    assert lines[0] == (f"{BROKEN / 'wrong_types.json'}:6:3: at $.players: expected an integer, "
                        'got "2" (a string) (number of players (default 2; 3 or more for maxn))')
    assert lines[1].startswith(f"{BROKEN / 'wrong_types.json'}:7:3: at $.depth_limit: ")
    cycle = BROKEN / "cycle.json"
    assert lines[2].startswith(f"{cycle}:8:5: at $.states.A: the states form a cycle")
    assert lines[3] == "3 errors in 2 of 2 case files"


def test_validate_main_returns_zero_when_valid(tmp_path: Path) -> None:
    (tmp_path / "ok.json").write_text(json.dumps({
        "$schema": "x", "name": "ok", "description": "d", "algorithms": ["minimax"],
        "tree": [[1, 2], [3]]}))
    out = io.StringIO()
    assert validate_main([tmp_path], out=out) == 0
    assert "1 case file valid" in out.getvalue().splitlines()  # after a $schema warning


def test_bad_rubric_in_a_folder_is_reported(tmp_path: Path) -> None:
    (tmp_path / "rubric.toml").write_text("[defaults]\npoints = 1\npartial_credt = 0.5\n")
    errors = validate_paths([tmp_path])
    assert len(errors) == 1
    assert errors[0].path == "defaults.partial_credt" and errors[0].line == 3
    assert "did you mean 'partial_credit'" in errors[0].message


def test_every_case_under_trees_validates() -> None:
    # The shipped corpus (empty or not) must be clean: names unique, expect answers right.
    errors = validate_paths([TREES]) if TREES.exists() else []
    assert [str(e) for e in errors] == []


# --- load_case / case_from_dict raise the first error -------------------------------------


def test_load_case_raises_the_first_error_with_its_place() -> None:
    with pytest.raises(CaseError) as raised:
        load_case(BROKEN / "wrong_types.json")
    error = raised.value
    assert (error.path, error.line, error.column) == ("$.players", 6, 3)
    assert "and 1 more error" in error.message
    assert len(error.errors) == 2


def test_load_case_on_invalid_json() -> None:
    with pytest.raises(CaseError, match=r"not_json.json:7:1: at \$: not valid JSON"):
        load_case(BROKEN / "not_json.json")


def test_case_from_dict_raises_a_structural_error() -> None:
    data = json.loads((BROKEN / "cycle.json").read_text())
    with pytest.raises(CaseError, match="cycle A -> B -> A") as raised:
        case_from_dict(data, file="cycle.json")
    assert raised.value.path == "$.states.A" and raised.value.line is None


def test_case_from_dict_rejects_unknown_top_level_fields() -> None:
    data = {"$schema": "x", "name": "n", "description": "d", "algorithms": ["minimax"],
            "tree": [[1, 2]], "algoritms": []}
    with pytest.raises(CaseError, match=r"unknown field 'algoritms' \(did you mean 'algorithms'"):
        case_from_dict(data)


# --- positions and the schema -------------------------------------------------------------


def test_positions_of_keys_items_and_quoted_keys() -> None:
    text = '{\n  "a": [1,\n    [2, {"b c": 3}]],\n  "d": {}\n}'
    positions = parse_case_text(text).positions
    assert positions[()] == (1, 1)
    assert positions[("a",)] == (2, 3)
    assert positions[("a", 1)] == (3, 5)
    assert positions[("a", 1, 1, "b c")] == (3, 10)
    assert positions[("d",)] == (4, 3)


def test_schema_is_valid_draft_2020_12() -> None:
    jsonschema.Draft202012Validator.check_schema(case_schema())
    assert SCHEMA_PATH.name == "case.schema.json"


def test_schema_game_names_match_the_builtin_games() -> None:
    from grader.games import BUILTIN_GAMES

    assert case_schema()["properties"]["game"]["enum"] == list(BUILTIN_GAMES)


def test_every_schema_property_has_a_description() -> None:
    missing = []

    def walk(schema: object, where: str) -> None:
        if isinstance(schema, dict):
            for name, sub in schema.get("properties", {}).items():
                if "description" not in sub:
                    missing.append(f"{where}.{name}")
            for key, sub in schema.items():
                walk(sub, f"{where}/{key}")
        elif isinstance(schema, list):
            for i, sub in enumerate(schema):
                walk(sub, f"{where}[{i}]")

    walk(case_schema(), "#")
    assert missing == []


# --- built-in games are built and explored --------------------------------------------------


def builtin_case(**fields: object) -> dict:
    data = {"$schema": "x", "name": "b", "description": "d", "algorithms": ["minimax"]}
    data.update(fields)
    return data


def test_builtin_chance_nodes_rule_out_minimax() -> None:
    pytest.importorskip("grader.games.dice")
    errors = check_case(builtin_case(game="dice", algorithms=["minimax", "expectimax"]),
                        build_builtin=True)
    assert [e.path for e in errors] == ["$.algorithms[0]"]
    assert "minimax cannot search chance nodes and dice has them" in errors[0].message


def test_builtin_player_count_must_match() -> None:
    pytest.importorskip("grader.games.three_player")
    errors = check_case(builtin_case(game="three_player", algorithms=["maxn"]), build_builtin=True)
    assert len(errors) == 1 and 'has 3 players but this case says 2; set "players": 3' in (
        errors[0].message)
    assert check_case(builtin_case(game="three_player", algorithms=["maxn"], players=3),
                      build_builtin=True) == []


def test_builtin_values_must_suit_the_algorithms() -> None:
    pytest.importorskip("grader.games.tictactoe")
    errors = check_case(builtin_case(game="tictactoe", algorithms=["maxn"]), build_builtin=True)
    assert [e.path for e in errors] == ["$.algorithms"]
    assert "expected a list of 2 numbers" in errors[0].message


def test_builtin_finished_position_and_bad_params() -> None:
    pytest.importorskip("grader.games.nim")
    over = check_case(builtin_case(game="nim", state=[0, 0]), build_builtin=True)
    assert [e.path for e in over] == ["$.state"] and "already over" in over[0].message
    params = check_case(builtin_case(game="nim", params={"misery": True}), build_builtin=True)
    assert [e.path for e in params] == ["$.params"] and "'misery'" in params[0].message


# --- names across the collection, warnings ------------------------------------------------------


def _collection(tmp_path: Path) -> Path:
    """A course folder: trees/rubric.toml, one public case."""
    trees = tmp_path / "course" / "trees"
    (trees / "public").mkdir(parents=True)
    (trees / "hidden").mkdir()
    (trees / "rubric.toml").write_text("[defaults]\npoints = 1\n")
    case = json.loads((TREES / "public" / "min-at-root.json").read_text())
    case["$schema"] = "../../../../grader/schema/case.schema.json"  # wrong from here
    (trees / "public" / "min-at-root.json").write_text(json.dumps(case, indent=2))
    return trees


def test_a_case_checked_alone_meets_the_names_of_its_whole_trees_folder(tmp_path):
    trees = _collection(tmp_path)
    copy = trees / "hidden" / "copy.json"
    copy.write_text((trees / "public" / "min-at-root.json").read_text())
    errors = validate_paths([copy])
    assert len(errors) == 1 and errors[0].path == "$.name" and errors[0].line == 3
    assert "the name 'min-at-root' is already used by" in errors[0].message
    assert "public/min-at-root.json" in errors[0].message
    assert validate_paths([trees]) != []  # both given: the clash is still one error a copy
    data = json.loads(copy.read_text())
    data["name"] = "min-at-root-hidden"
    copy.write_text(json.dumps(data))
    assert validate_paths([copy]) == []


def test_validate_warns_on_a_todo_description_and_a_schema_path_that_leads_nowhere(tmp_path):
    trees = _collection(tmp_path)
    case = trees / "public" / "min-at-root.json"
    data = json.loads(case.read_text())
    data["description"] = "TODO: one line saying what this case tests"
    case.write_text(json.dumps(data, indent=2))
    warnings: list[CaseError] = []
    assert validate_paths([case], warnings=warnings) == []
    assert [w.path for w in warnings] == ["$[\"$schema\"]", "$.description"]
    right = os.path.relpath(SCHEMA_PATH, case.parent)
    assert "$schema '../../../../grader/schema/case.schema.json' does not lead" \
        in warnings[0].message
    assert f"write {right!r}" in warnings[0].message
    assert "grader new's TODO" in warnings[1].message and warnings[1].line == 4
    out = io.StringIO()
    assert validate_main([case], out=out) == 0  # warnings do not fail
    text = out.getvalue()
    assert "warning: " in text and "2 warnings" in text


def test_the_cases_of_the_repository_have_no_warnings():
    warnings: list[CaseError] = []
    assert validate_paths([TREES], check_expect=False, warnings=warnings) == []
    assert warnings == []


CASE_HEAD = '{\n  "$schema": "../../grader/schema/case.schema.json",\n  "name": "x",\n'


@pytest.mark.parametrize("body, where, message", [
    # a missing ']': said, and placed right after the last item of the list
    ('  "algorithms": ["minimax", "alpha_beta",\n  "description": "d",\n  "tree": [[1]]\n}',
     (4, 41), "a ']' is missing here: the list opened at line 4, column 17 must close before "
              'the key "description"'),
    ('  "description": "d", "algorithms": ["minimax"],\n  "tree": [[1, 2], [3}\n}',
     (5, 22), "a ']' is missing: the list opened at line 5, column 20 must close before this '}'"),
    ('  "description": "d", "algorithms": ["minimax"],\n  "tree": [[1, 2], [3]',
     (5, 23), "the file ends inside the list opened at line 5, column 11: a ']' is missing"),
    ('  // the textbook figure\n  "description": "d"}', (4, 3),
     "comments are not JSON: remove this comment"),
    ('  "description": "d", /* note */ "algorithms": []}', (4, 23), "comments are not JSON"),
    ('  "description": "d",,\n  "algorithms": []}', (4, 22), "two commas in a row: remove one"),
    ('  "algorithms": ["minimax",, "alpha_beta"]}', (4, 28), "two commas in a row"),
    ('  "description": "d",\n}', (5, 1), "remove the trailing comma before this '}'"),
])
def test_json_syntax_errors_say_what_is_missing_or_not_allowed_at_the_right_place(body, where,
                                                                                  message):
    errors = parse_case_text(CASE_HEAD + body, "c.json").errors
    assert len(errors) == 1
    assert (errors[0].line, errors[0].column) == where, str(errors[0])
    assert message in errors[0].message


def _write(tmp_path: Path, data: dict) -> Path:
    path = tmp_path / f"{data['name']}.json"
    path.write_text(json.dumps({"$schema": "x", "description": "d", **data}, indent=1))
    return path


def test_a_misspelled_successors_names_the_fields_of_the_states_form(tmp_path):
    path = _write(tmp_path, {"name": "s", "algorithms": ["minimax"], "start": "A", "states": {
        "A": {"player": "max", "sucessors": [["l", "B"]]}, "B": {"value": 1}}})
    first = validate_paths([path])[0]
    assert first.path == "$.states.A"
    assert "state 'A' has neither 'successors' nor 'value'" in first.message
    assert '{"player": ..., "successors": [[action, state], ...]}' in first.message
    assert "'sucessors' looks like a misspelled 'successors'" in first.message
    assert "give it children" not in first.message


@pytest.mark.parametrize("game, state, words", [
    ("connect4", "....|...|.o..|.xx.", "row 2 ('...') has 3 cells but row 1 ('....') has 4"),
    ("tictactoe", "x.o|...|..xo", "row 3 ('..xo') has 4 cells but row 1 ('x.o') has 3"),
])
def test_a_board_row_of_the_wrong_length_is_named(tmp_path, game, state, words):
    path = _write(tmp_path, {"name": "b", "algorithms": ["minimax"], "game": game,
                             "state": state})
    errors = validate_paths([path])
    assert len(errors) == 1 and errors[0].path == "$.state" and words in errors[0].message


def test_players_is_needed_only_when_the_game_has_another_count(tmp_path):
    # docs/cases.md: players defaults to 2; three_player needs "players": 3.
    assert validate_paths([_write(tmp_path, {"name": "c4", "algorithms": ["minimax"],
                                             "game": "connect4", "state": "...|...|.x."})]) == []
    errors = validate_paths([_write(tmp_path, {"name": "t3", "algorithms": ["maxn"],
                                               "game": "three_player"})])
    assert len(errors) == 1 and 'set "players": 3' in errors[0].message
    docs = (ROOT / "docs" / "cases.md").read_text()
    assert "the two-player games need no `players`" in docs


def test_a_top_level_warning_is_located_without_scanning_the_whole_tree(tmp_path, monkeypatch):
    """A `$schema` that leads nowhere is reported at its line, found by a pass over the top
    level only: a warning about a big case's header must not walk its whole tree (seconds and
    a gigabyte at 10^6 nodes)."""
    from grader.cases import text

    leaves = ", ".join(f'{{"id": "L{i}", "value": {i}}}' for i in range(50))
    case = tmp_path / "big.json"
    case.write_text('{\n  "$schema": "nowhere.json",\n  "name": "big", "description": "x",\n'
                    '  "algorithms": ["minimax"],\n'
                    f'  "tree": {{"id": "R", "player": "max", "children": [{leaves}]}}\n}}\n')
    monkeypatch.setattr(text, "_scan", lambda *args: pytest.fail("scanned the whole tree"))
    warnings: list = []
    assert validate_paths([case], warnings=warnings) == []
    assert [(w.line, w.column) for w in warnings] == [(2, 3)]
