"""``grader import-cs188`` (grader/cs188.py): CS188 GraphGameTreeTests as cases.

tests/cs188/ holds tests written here in CS188's format (not copies of CS188's files).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grader import cli
from grader.answers.solve import solve
from grader.answers.validate import validate_paths
from grader.cases import case_from_dict, load_case
from grader.cases.cs188 import Cs188FormatError, convert, parse_test_text
from grader.commands.import_cs188 import import_main

FIXTURES = Path(__file__).resolve().parent / "cs188"
TIED = FIXTURES / "tied-root.test"


@pytest.fixture(scope="module")
def tied_case(tmp_path_factory):
    out = tmp_path_factory.mktemp("cs188") / "tied.json"
    assert import_main(TIED, out=out) == 0
    return out


def _test_text(alg: str = "AlphaBetaAgent", agents: int = 2, depth: int = 1, extra: str = "",
               successors: str = "a L b\na R c", evaluation: str = "b 1\nc 2",
               win: str = "b", lose: str = "c") -> str:
    return (f'class: "GraphGameTreeTest"\nalg: "{alg}"\ndepth: "{depth}"\n'
            f'num_agents: "{agents}"\nstart_state: "a"\nwin_states: "{win}"\n'
            f'lose_states: "{lose}"\n{extra}'
            f'successors: """\n{successors}\n"""\nevaluation: """\n{evaluation}\n"""\n')


def test_parser_reads_one_line_and_block_fields_and_skips_comments():
    fields = parse_test_text(TIED.read_text(), TIED)
    assert fields["alg"] == "AlphaBetaAgent" and fields["num_agents"] == "2"
    assert fields["successors"].split("\n")[0] == "top Left west"
    assert "#" not in fields["class"]


def test_tied_root_converts_to_a_valid_strict_states_case(tied_case, capsys):
    assert validate_paths([tied_case]) == []
    data = json.loads(tied_case.read_text())
    assert data["algorithms"] == ["alpha_beta"] and data["pruning"] == "strict"
    assert data["start"] == "top" and data["depth_limit"] == 2  # depth 1 x 2 agents
    assert data["states"]["top"]["player"] == "max" and data["states"]["east"]["player"] == "min"
    assert data["states"]["e2"] == {"player": "max", "successors": [["Left", "e2a"],
                                                                     ["Right", "e2b"]], "eval": 9}
    assert data["states"]["w1"] == {"value": 7}


def test_converted_strict_trace_matches_the_solution_and_the_inclusive_one_does_not(tied_case):
    case = load_case(tied_case)
    solution = parse_test_text((FIXTURES / "tied-root.solution").read_text())
    strict = solve(case, "alpha_beta")  # the case's own rule: strict
    assert sorted(set(strict.generated) | {"top"}) == solution["generated"].split()
    assert strict.action == solution["action"] == "Left"
    inclusive = solve(case, "alpha_beta", pruning="inclusive")
    assert inclusive.generated != strict.generated and "e2" not in inclusive.generated


def test_import_reports_the_match_with_the_solution_beside_the_test(tmp_path, capsys):
    assert import_main(TIED, out=tmp_path / "x.json") == 0
    assert "matches" in capsys.readouterr().out


def test_a_mismatching_solution_exits_1_naming_each_difference(tmp_path, capsys):
    wrong = tmp_path / "wrong.solution"
    wrong.write_text('action: "Right"\ngenerated: "e1 east top w1 w2 west"\n')
    assert import_main(TIED, solution=wrong, out=tmp_path / "x.json") == 1
    error = capsys.readouterr().err
    assert "action: the solution says 'Right', our reference says 'Left'" in error
    assert "only ours: ['e2']" in error
    assert import_main(TIED, solution=tmp_path / "missing.solution", out=tmp_path / "y.json") == 2


def test_inclusive_solution_is_recognised(tmp_path, capsys):
    inclusive = tmp_path / "inclusive.solution"
    inclusive.write_text('action: "Left"\ngenerated: "e1 east top w1 w2 west"\n')
    assert import_main(TIED, solution=inclusive, out=tmp_path / "x.json") == 1
    assert "the inclusive rule matches the solution" in capsys.readouterr().err


def test_ghosts_are_min_players_and_depth_counts_rounds_of_all_agents():
    text = _test_text("MinimaxAgent", agents=3, depth=1,
                      successors="a L b\nb L c\nc L d\nd L e\nd R f",
                      evaluation="d 4\ne 1\nf 2", win="e", lose="f")
    data, notes = convert(parse_test_text(text))
    states = data["states"]
    assert [states[s]["player"] for s in "abc"] == ["max", "min", "min"]
    assert data["depth_limit"] == 3 and states["d"]["eval"] == 4
    case = case_from_dict(data)
    assert solve(case, "minimax").generated == ["b", "c", "d"] and notes == []


def test_expectimax_ghosts_are_chance_nodes_with_equal_probabilities():
    text = _test_text("ExpectimaxAgent", successors="a L g\ng L b\ng R c", depth=2)
    data, _ = convert(parse_test_text(text))
    assert data["states"]["g"]["player"] == "chance"
    assert data["states"]["g"]["probabilities"] == [0.5, 0.5]
    assert solve(case_from_dict(data), "expectimax").value == 1.5


def test_win_states_are_leaves_and_their_successors_are_dropped():
    data, notes = convert(parse_test_text(_test_text(successors="a L b\na R c\nb L z",
                                                     evaluation="b 1\nc 2\nz 3")))
    assert data["states"]["b"] == {"value": 1} and "z" not in data["states"]
    assert any("'b' is a win/lose state" in note for note in notes)


@pytest.mark.parametrize("text, words", [
    (_test_text(successors="a L"), ["expected `state action next` lines", "'a L'"]),
    (_test_text(evaluation="b 1"), ["'c' is terminal but has no evaluation", "`c <value>`"]),
    (_test_text(alg="GreedyAgent"), ["expected alg to be one of", "'GreedyAgent'"]),
    ('alg: "AlphaBetaAgent"\n', ["missing field(s)", "num_agents"]),
    ('successors: """\na L b\n', ["no closing", ":1"]),
    ("not a field\n", ["expected `key: \"value\"`", ":1"]),
])
def test_files_that_cannot_be_converted_say_why(text, words):
    with pytest.raises(Cs188FormatError) as raised:
        convert(parse_test_text(text, "bad.test"), "bad.test")
    assert all(word in str(raised.value) for word in words), str(raised.value)


def test_cli_import_prints_json_and_exits_2_for_a_missing_file(tmp_path, capsys):
    assert cli.main(["import-cs188", str(TIED)]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["name"] == "cs188-tied-root" and "matches" in captured.err
    assert cli.main(["import-cs188", str(tmp_path / "none.test")]) == 2
    assert "none.test" in capsys.readouterr().err


# --- whole test_cases/ folders ------------------------------------------------------------------

TEST_CASES = FIXTURES / "test_cases"  # q2, q3, q4 with the same file name, a Pacman test, CONFIG


@pytest.fixture
def tree(tmp_path):
    """A copy of tests/cs188/test_cases/ plus files a course's folder may really hold: one
    saved as Latin-1, one with a UTF-8 byte-order mark, one saved as UTF-16."""
    import shutil

    folder = tmp_path / "test_cases"
    shutil.copytree(TEST_CASES, folder)
    small = (TEST_CASES / "q2" / "1-small-tree.test").read_text()
    (folder / "q5").mkdir()
    (folder / "q5" / "latin1.test").write_bytes(("# é\n" + small).encode("latin-1"))
    (folder / "q5" / "bom.test").write_bytes(b"\xef\xbb\xbf" + small.encode())
    (folder / "q5" / "utf16.test").write_bytes(small.encode("utf-16"))
    return folder


def test_a_folder_import_keeps_question_folders_and_makes_names_unique(tree, tmp_path, capsys):
    out = tmp_path / "cases"
    assert import_main(tree, out=out) == 2  # the Latin-1 and UTF-16 files cannot be read
    captured = capsys.readouterr()
    written = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.json"))
    assert written == ["q2/1-small-tree.json", "q3/1-small-tree.json", "q3/6-tied-root.json",
                       "q4/1-small-tree.json", "q5/bom.json"]
    names = [json.loads((out / p).read_text())["name"] for p in written]
    assert names == ["cs188-q2-1-small-tree", "cs188-q3-1-small-tree", "cs188-q3-6-tied-root",
                     "cs188-q4-1-small-tree", "cs188-q5-bom"]
    assert validate_paths([out]) == []  # no clash, each $schema right from its folder
    assert json.loads((out / "q4/1-small-tree.json").read_text())["algorithms"] == ["expectimax"]
    assert "q2/8-pacman-game.test: skipped: class 'PacmanGameTreeTest' is not supported" \
        in captured.out
    assert captured.out.count("matches 1-small-tree.solution") == 3
    assert "5 of 8 .test files imported" in captured.out and "2 failed" in captured.out
    assert "latin1.test:1: the file is not UTF-8 text: byte 0xe9 at column 3" in captured.err
    assert "utf16.test:1: the file is UTF-16 text" in captured.err
    assert "Traceback" not in captured.err


def test_a_folder_import_never_overwrites_without_force(tree, tmp_path, capsys):
    out = tmp_path / "cases"
    import_main(tree, out=out)
    target = out / "q3" / "6-tied-root.json"
    target.write_text("edited by a TA")
    capsys.readouterr()
    assert import_main(tree, out=out) == 2
    assert f"{target} exists; pass --force to overwrite it" in capsys.readouterr().err
    assert target.read_text() == "edited by a TA"
    assert import_main(tree, out=out, force=True) == 2  # still the two unreadable files
    assert json.loads(target.read_text())["name"] == "cs188-q3-6-tied-root"


def test_names_that_still_clash_take_the_rest_of_the_path(tmp_path, capsys):
    folder = tmp_path / "suite"
    for sub in ("fall/q3", "spring/q3", "spring/q3/q3"):
        (folder / sub).mkdir(parents=True)
        (folder / sub / "t.test").write_text(_test_text())
    assert import_main(folder, out=tmp_path / "out") == 0
    names = sorted(json.loads(p.read_text())["name"] for p in (tmp_path / "out").rglob("*.json"))
    assert names == ["cs188-q3-t", "cs188-spring-q3-q3-t", "cs188-spring-q3-t"]


def test_a_single_file_import_refuses_to_overwrite_and_names_unsupported_classes(tmp_path,
                                                                                 capsys):
    out = tmp_path / "x.json"
    out.write_text("{}")
    assert import_main(TIED, out=out) == 2 and out.read_text() == "{}"
    assert "exists; pass --force" in capsys.readouterr().err
    assert import_main(TIED, out=out, force=True) == 0
    assert import_main(TEST_CASES / "q2" / "8-pacman-game.test", out=tmp_path / "p.json") == 2
    assert "class 'PacmanGameTreeTest' is not supported" in capsys.readouterr().err
    assert import_main(TEST_CASES, out=None) == 2  # a folder needs --out
    assert "is a folder: give --out FOLDER" in capsys.readouterr().err


def test_a_bom_is_skipped_and_wide_encodings_are_named():
    from grader.cases.cs188 import decode_cs188

    assert decode_cs188(b'\xef\xbb\xbfalg: "x"\n') == 'alg: "x"\n'
    with pytest.raises(Cs188FormatError, match=r"f.test:1: the file is UTF-16 text"):
        decode_cs188('alg: "x"'.encode("utf-16"), "f.test")
    with pytest.raises(Cs188FormatError, match=r"f.test:3: .*byte 0xe9 at column 3"):
        decode_cs188(b"a\nb\n# \xe9t\xe9", "f.test")


@pytest.mark.parametrize("rule", ["inclusive", "either"])
def test_pruning_option_sets_the_rule_and_the_solution_is_still_checked_strict(rule, tmp_path,
                                                                               capsys):
    out = tmp_path / "tied.json"
    assert cli.main(["import-cs188", str(TIED), "--out", str(out), "--pruning", rule]) == 0
    data = json.loads(out.read_text())
    assert data["pruning"] == rule and rule in data["description"]
    said = capsys.readouterr().out
    assert "matches" in said  # CS188's own .solution is strict
    assert "fails this trace" not in said  # the course rule (trees/rubric.toml) is inclusive


def test_the_importer_warns_when_the_case_rule_differs_from_the_course_rule(tmp_path, capsys):
    (tmp_path / "rubric.toml").write_text('[defaults]\npruning = "inclusive"\n')
    assert import_main(TIED, out=tmp_path / "tied.json") == 0
    said = capsys.readouterr().out
    assert "graded with the strict rule" in said and "course rule in" in said
    assert "--pruning either" in said
    (tmp_path / "rubric.toml").write_text('[defaults]\npruning = "strict"\n')
    assert import_main(TIED, out=tmp_path / "tied2.json") == 0
    assert "course rule" not in capsys.readouterr().out
