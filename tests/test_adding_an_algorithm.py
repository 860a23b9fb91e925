"""Adding an algorithm the documented way (docs/architecture.md, "Adding an algorithm"), proven.

A course adds negamax (alpha-beta in negamax form) without editing a file of the project: its
spec module, its reference module (reference, decision and mistake catalogue), its cases, a
correct, a stub and a mistaken submission are written to a temporary folder; the spec is named in
``GRADER_ALGORITHMS`` (a ``.py`` path: the sandbox worker loads it by path) and the reference's
folder is put on ``PYTHONPATH`` (the grader resolves the spec's import strings there). Then the
``grader`` commands grade, key and report it end to end, each in a fresh process, as a TA runs
them (the case schema and the mistake registry are read once a process: registration comes
first). Tiny trees: a few CPU seconds in all.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import grader.algorithms as algorithm_specs
from grader.answers.store import code_version, extra_algorithm_sources
from grader.cases.algorithms import ALGORITHMS
from grader.paths import SCHEMA_PATH

ROOT = Path(__file__).resolve().parent.parent

# 1. The spec: the student's side reads it (the worker calls the stub by it), so it holds no
# reference code, only import strings the grader resolves.
SPEC = '''
    """Negamax: ``negamax(game, state)``, alpha-beta in negamax form: one recursion for both
    players, each maximizing the negated values of its children; the value is the mover's."""

    from grader.algorithms import Algorithm

    ALGORITHM = Algorithm(
        name="negamax",
        order=100,
        stubs=("negamax",),
        summary="alpha-beta in negamax form (the value for the player to move)",
        reference={"negamax": "negamax_reference:negamax"},
        decision="negamax_reference:negamax_decision",
        mistakes="negamax_reference",
    )
'''

# 2. The reference and its mistake catalogue: staff-only, never in the worker's view.
REFERENCE = '''
    """The reference negamax, its decision, and the catalogue of its known mistakes."""

    import math

    from grader.games import MAX
    from reference.mistake_registry import mistake


    def _negamax(game, state, alpha, beta, depth, negate=True):
        sign = 1 if game.to_move(state) == MAX else -1
        if game.is_cutoff(state, depth):
            return sign * game.evaluate(state)
        v = -math.inf
        for action in game.actions(state):
            child = _negamax(game, game.result(state, action), -beta, -alpha, depth + 1, negate)
            v = max(v, -child if negate else child)
            if v >= beta:
                return v
            alpha = max(alpha, v)
        return v


    def negamax(game, state, alpha=-math.inf, beta=math.inf, depth=0):
        return _negamax(game, state, alpha, beta, depth)


    def negamax_decision(game, state, **_):
        best, best_value, alpha = None, -math.inf, -math.inf
        for action in game.actions(state):
            value = -_negamax(game, game.result(state, action), -math.inf, -alpha, 1)
            if best is None or value > best_value:
                best, best_value = action, value
            alpha = max(alpha, value)
        return best


    @mistake("forgets_negation", "negamax", title="takes a child's value without negating it",
             does="maximizes the children's values as they come, the opponent's values",
             departs="v = max(v, -negamax(child, -beta, -alpha))",
             fix="negate the child's value and swap and negate the window")
    def _forgets_negation(game, state, alpha=-math.inf, beta=math.inf, depth=0):
        return _negamax(game, state, alpha, beta, depth, negate=False)
'''

# 3. The cases: a MAX root (AIMA Fig. 5.2) and a MIN root, where the sign matters.
CASES = {
    "negamax-fig-5-2": {"description": "AIMA Fig. 5.2 in negamax form: 3 via B, C2 C3 pruned",
                        "tree": [[3, 12, 8], [2, 4, 6], [14, 5, 2]], "root_player": "max"},
    "negamax-min-root": {"description": "MIN to move at the root: C (6), the value for MIN -6",
                         "tree": [[4, 9], [1, 6], [7, 2]], "root_player": "min"},
}

# 4. The submissions: correct, the untouched stub, and the catalogued mistake.
CORRECT = '''
    import math

    from grader.games import MAX


    def negamax(game, state, alpha=-math.inf, beta=math.inf, depth=0):
        sign = 1 if game.to_move(state) == MAX else -1
        if game.is_cutoff(state, depth):
            return sign * game.evaluate(state)
        v = -math.inf
        for action in game.actions(state):
            v = max(v, -negamax(game, game.result(state, action), -beta, -alpha, depth + 1))
            if v >= beta:
                return v
            alpha = max(alpha, v)
        return v
'''
STUB = '''
    import math


    def negamax(game, state, alpha=-math.inf, beta=math.inf, depth=0):
        """Alpha-beta in negamax form: the value of ``state`` for the player to move."""
        raise NotImplementedError("negamax is not implemented yet")
'''
MISTAKEN = CORRECT.replace("v = max(v, -negamax(", "v = max(v, negamax(")


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> dict:
    """The temporary course: its files, and the environment that registers negamax."""
    folder = tmp_path_factory.mktemp("negamax-course")
    (folder / "negamax.py").write_text(textwrap.dedent(SPEC))
    (folder / "negamax_reference.py").write_text(textwrap.dedent(REFERENCE))
    cases = folder / "cases"
    cases.mkdir()
    schema = os.path.relpath(SCHEMA_PATH, cases)
    for name, case in CASES.items():
        (cases / f"{name}.json").write_text(json.dumps({
            "$schema": schema, "name": name, "algorithms": ["negamax"], **case}, indent=2))
    for name, source in {"correct": CORRECT, "stub": STUB, "mistaken": MISTAKEN}.items():
        (folder / name).mkdir()
        (folder / name / "search.py").write_text(textwrap.dedent(source))
    environment = {**os.environ, algorithm_specs.ENVIRONMENT: str(folder / "negamax.py"),
                   "PYTHONPATH": os.pathsep.join([str(folder), str(ROOT)]),
                   "GRADER_CACHE": str(folder / "cache")}
    return {"folder": folder, "cases": cases, "env": environment}


def grader(course: dict, *arguments: str) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", "grader", *arguments], env=course["env"],
                          capture_output=True, text=True, cwd=course["folder"])
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def graded(course: dict, submission: str) -> dict:
    results = course["folder"] / f"{submission}.json"
    grader(course, "grade", "--submission", str(course["folder"] / submission), "--cases",
           str(course["cases"]), "--results", str(results))
    return json.loads(results.read_text())


def test_the_cases_validate_with_negamax_in_the_schema(course):
    done = grader(course, "validate", str(course["cases"]))
    assert "2 case files valid" in done.stdout


def test_a_correct_negamax_gets_full_marks_on_values_and_traces(course):
    data = graded(course, "correct")
    assert [test["name"].split(":")[0] for test in data["tests"]] == ["negamax", "negamax"]
    assert data["score"] == 2
    # after the built-in algorithms: its tests' numbers start at its place in the registry
    assert {test["number"].split(".")[0] for test in data["tests"]} == {str(len(ALGORITHMS) + 1)}
    for test in data["tests"]:
        assert test["status"] == "passed" and "correct value and expansion order" in test["output"]


def test_the_stub_gets_zero_saying_what_is_not_implemented(course):
    data = graded(course, "stub")
    assert data["score"] == 0
    for test in data["tests"]:
        assert "`negamax` is not implemented yet" in test["output"]


def test_a_mistake_is_named_from_its_own_catalogue_and_reported_in_html(course):
    data = graded(course, "mistaken")
    assert data["score"] == 0
    fig = next(test for test in data["tests"] if "negamax-fig-5-2" in test["name"])
    assert "Value: expected the value 3, got 14." in fig["output"]
    assert "not searched, but the reference searched them: D2, D3" in fig["output"]
    assert "(`forgets_negation`)" in fig["output"]
    html = course["folder"] / "mistaken.html"
    grader(course, "report", str(course["folder"] / "mistaken.json"), "--html", str(html))
    page = html.read_text(encoding="utf-8")
    assert "negamax-min-root" in page and "forgets_negation" in page


def test_the_answer_key_and_solve_come_from_its_reference(course):
    key = grader(course, "solve", str(course["cases"] / "negamax-min-root.json"), "--key").stdout
    assert "## negamax" in key and "- Root value: **-6**" in key and "- Root move: **C**" in key
    assert "prunes nothing" not in key  # no words borrowed from another algorithm's sheet
    answer = json.loads(grader(course, "solve", str(course["cases"] / "negamax-fig-5-2.json"),
                               "-a", "negamax", "--json").stdout)
    assert answer == {"value": 3, "action": "B", "evaluated": ["B1", "B2", "B3", "C1", "D1",
                                                              "D2", "D3"],
                      "generated": ["B", "B1", "B2", "B3", "C", "C1", "D", "D1", "D2", "D3"]}


def test_its_files_are_in_the_answer_keys_code_version(course, monkeypatch):
    before = code_version()
    monkeypatch.syspath_prepend(str(course["folder"]))
    monkeypatch.setenv(algorithm_specs.ENVIRONMENT, str(course["folder"] / "negamax.py"))
    assert extra_algorithm_sources() == [(course["folder"] / "negamax.py").resolve(),
                                         (course["folder"] / "negamax_reference.py").resolve()]
    registered = code_version()
    assert registered != before
    reference = course["folder"] / "negamax_reference.py"
    source = reference.read_text()
    reference.write_text(source + "\n# edited\n")
    try:
        assert code_version() not in (before, registered)  # edited: its answers are recomputed
    finally:
        reference.write_text(source)
