"""grader/cli.py: the wiring of each command (behaviour is tested beside each library module)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from grader.cli import build_parser, main

ROOT = Path(__file__).resolve().parent.parent
AIMA = ROOT / "trees" / "public" / "aima-fig-5-2.json"
STUBS = ROOT / "student" / "search.py"


def test_every_command_has_a_parser_and_a_function():
    parser = build_parser()
    commands = parser._subparsers._group_actions[0].choices
    assert {"validate", "solve", "grade", "check", "batch", "build", "new", "render", "generate",
            "import-cs188", "report"} <= set(commands)
    for name, sub in commands.items():
        assert sub.get_default("run") is not None, name


def test_validate_exits_0_on_the_bundled_cases():
    assert main(["validate", str(ROOT / "trees")]) == 0


def test_validate_exits_1_on_a_broken_case(tmp_path, capsys):
    broken = tmp_path / "broken.json"
    broken.write_text("{ not json")
    assert main(["validate", str(broken)]) == 1
    assert "broken.json:1" in capsys.readouterr().out


def test_solve_json_prints_the_design_keys(capsys):
    assert main(["solve", str(AIMA), "--algorithm", "alpha_beta", "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert set(answer) == {"value", "action", "generated", "evaluated"}
    assert answer["value"] == 3 and "C2" not in answer["generated"]


def test_solve_without_an_algorithm_or_key_is_a_usage_error(capsys):
    assert main(["solve", str(AIMA)]) == 2


def test_grade_writes_results_for_the_stubs(tmp_path):
    results = tmp_path / "results.json"
    assert main(["grade", "--submission", str(STUBS), "--cases", str(AIMA), "--results", str(results)]) == 0
    data = json.loads(results.read_text())
    assert data["score"] == 0 and len(data["tests"]) == 2


@pytest.mark.local_check
def test_check_exits_1_for_the_stubs(capsys):
    assert main(["check", "--submission", str(STUBS), "--cases", str(AIMA)]) == 1
    assert "Total: 0" in capsys.readouterr().out


def test_python_dash_m_grader_is_the_same_program():
    done = subprocess.run([sys.executable, "-m", "grader", "--help"], capture_output=True, text=True)
    assert done.returncode == 0 and "validate" in done.stdout


@pytest.mark.parametrize("argv", [["grade"], ["solve"], ["nonsense"]])
def test_bad_usage_exits_2(argv):
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2


def test_check_takes_the_function_names_students_write_for_an_algorithm():
    parser = build_parser()
    for name, algorithm in (("max_value", "minimax"), ("min_value", "minimax"),
                            ("minimax", "minimax"), ("alpha_beta", "alpha_beta")):
        assert parser.parse_args(["check", "-a", name]).algorithm == algorithm
    assert parser.parse_args(["check", "--verbose"]).verbose
    with pytest.raises(SystemExit):
        parser.parse_args(["check", "-a", "maxvalue"])
