"""Every command given bad input says ``file: what is wrong`` and exits 2, never a traceback
(issue 31). Each runs in this process through :func:`grader.cli.main`, so an exception that
escapes a command fails its test here with the traceback a user would have seen.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grader.cli import main

ROOT = Path(__file__).resolve().parent.parent
AIMA = ROOT / "trees" / "public" / "aima-fig-5-2.json"
EVALUATE = ROOT / "trees" / "public" / "evaluate-connect4-greedy.json"
STUBS = ROOT / "student" / "search.py"
CS188 = ROOT / "tests" / "cs188" / "test_cases"


@pytest.fixture
def bad(tmp_path):
    """A folder of bad inputs: a missing path, a file that is not JSON, an empty folder, ..."""
    (tmp_path / "not.json").write_text("not json")
    (tmp_path / "empty.json").write_text("{}")
    (tmp_path / "bad.toml").write_text("points = = 1\n")
    (tmp_path / "folder").mkdir()
    return tmp_path


# (argv with {bad} for the folder above, the file the message must name)
CASES = {
    "validate a missing file": (["validate", "{bad}/missing.json"], "{bad}/missing.json"),
    "solve a missing case": (["solve", "{bad}/missing.json", "-a", "minimax"], "{bad}/missing.json"),
    "solve a file that is not JSON": (["solve", "{bad}/not.json", "-a", "minimax"], "{bad}/not.json"),
    "solve --key on a folder": (["solve", "{bad}/folder", "--key"], "{bad}/folder"),
    "solve an algorithm the case's game cannot run": (["solve", str(AIMA), "-a", "maxn"], str(AIMA)),
    "solve -a evaluate": (["solve", str(EVALUATE), "-a", "evaluate", "--json"], str(EVALUATE)),
    "grade missing cases": (["grade", "--submission", str(STUBS), "--cases", "{bad}/missing.json",
                             "--results", "{bad}/r.json"], "{bad}/missing.json"),
    "grade a broken rubric": (["grade", "--submission", str(STUBS), "--cases", str(AIMA),
                               "--rubric", "{bad}/bad.toml", "--results", "{bad}/r.json"],
                              "{bad}/bad.toml"),
    "check missing cases": (["check", "--cases", "{bad}/missing.json"], "{bad}/missing.json"),
    "check a broken rubric": (["check", "--cases", str(AIMA), "--rubric", "{bad}/bad.toml"],
                              "{bad}/bad.toml"),
    "batch a missing export": (["batch", "{bad}/missing", "--out", "{bad}/out"], "{bad}/missing"),
    "batch a bad shard": (["batch", "{bad}/folder", "--out", "{bad}/out", "--shard", "3/2"], "3/2"),
    "batch no jobs": (["batch", "{bad}/folder", "--out", "{bad}/out", "--jobs", "0"], "--jobs"),
    "batch --merge a folder that is no shard": (["batch", "--merge", "{bad}/folder", "--out",
                                                 "{bad}/out"], "{bad}/folder"),
    "build into a folder": (["build", "autograder", "--out", "{bad}/folder"], "{bad}/folder"),
    "build under a file": (["build", "handout", "--out", "{bad}/not.json/handout.zip"],
                           "{bad}/not.json/handout.zip"),
    "new a bad shape": (["new", "-a", "minimax", "--shape", "abc"], "abc"),
    "new over an existing file": (["new", "-a", "minimax", "--out", "{bad}/not.json"],
                                  "{bad}/not.json"),
    "new evaluate with a shape": (["new", "-a", "evaluate", "--shape", "2x2"], "--shape"),
    "render a missing case": (["render", "{bad}/missing.json"], "{bad}/missing.json"),
    "render an algorithm the case lacks": (["render", str(AIMA), "-a", "maxn"], str(AIMA)),
    "render a missing trace": (["render", str(AIMA), "-a", "minimax", "--trace",
                                "{bad}/missing.py"], "{bad}/missing.py"),
    "generate evaluate": (["generate", "-a", "evaluate", "--out", "{bad}/g"], "grader new"),
    "generate into a file": (["generate", "-a", "minimax", "--depth", "1", "--out",
                              "{bad}/not.json"], "{bad}/not.json"),
    "import-cs188 a missing file": (["import-cs188", "{bad}/missing.test"], "{bad}/missing.test"),
    "import-cs188 a folder to a .json": (["import-cs188", str(CS188), "--out", "{bad}/x.json"],
                                         "{bad}/x.json"),
    "play a missing submission": (["play", "--submission", "{bad}/missing/search.py"],
                                  "{bad}/missing/search.py"),
    "play a missing case folder": (["play", "--cases", "{bad}/no-cases"], "{bad}/no-cases"),
    "report a missing file": (["report", "{bad}/missing.json", "--html", "{bad}/r.html"],
                              "{bad}/missing.json"),
    "report a file that is not JSON": (["report", "{bad}/not.json", "--html", "{bad}/r.html"],
                                       "{bad}/not.json"),
    "report JSON that is no results": (["report", "{bad}/empty.json", "--html", "{bad}/r.html"],
                                       "{bad}/empty.json"),
}


@pytest.mark.parametrize("name", CASES)
def test_bad_input_is_named_and_exits_2(name, bad, capsys):
    argv, named = CASES[name]
    argv = [part.replace("{bad}", str(bad)) for part in argv]
    assert main(argv) == 2
    said = capsys.readouterr()
    text = said.out + said.err
    assert named.replace("{bad}", str(bad)) in text, text
    assert "Traceback" not in text, text
    assert not (bad / "x.json").exists()  # import-cs188 made no folder of that name


def test_every_command_is_driven_with_bad_input():
    from grader.cli import build_parser

    commands = set(build_parser()._subparsers._group_actions[0].choices)
    driven = {argv[0] for argv, _ in CASES.values()}
    assert commands == driven


def test_a_refused_grade_still_writes_valid_results(bad, capsys):
    results = bad / "r.json"
    assert main(["grade", "--submission", str(STUBS), "--cases", str(bad / "missing.json"),
                 "--results", str(results)]) == 2
    data = json.loads(results.read_text())
    assert data["score"] == 0 and "missing.json" in json.dumps(data)


def test_a_closed_pipe_ends_the_command_quietly():
    import subprocess
    import sys

    done = subprocess.run(
        f'"{sys.executable}" -m grader solve "{ROOT}/trees/public/tictactoe-empty-board.json" '
        "-a alpha_beta --json | head -c 40", shell=True, capture_output=True, text=True,
        timeout=120, executable="/bin/bash", check=False)
    assert done.stdout.startswith('{"value": 0') and done.stderr == ""
