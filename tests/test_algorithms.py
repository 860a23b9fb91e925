"""The algorithm specs (grader/algorithms/): the lists derived from them, the committed schema
generated from them, registration by GRADER_ALGORITHMS, and no explanation borrowed from another
algorithm for one whose spec has no step notes or answer-sheet words."""

from __future__ import annotations

import json
from dataclasses import replace
import textwrap

import pytest

import grader.algorithms as algorithm_specs
from grader.answers.sheet import answer_key
from grader.cases import case_from_dict
from grader.cases.algorithms import ALGORITHMS
from grader.cases.schema import with_algorithms
from grader.feedback import explain
from grader.paths import SCHEMA_PATH, SCHEMA_REF
from grader.run.runner import RunResult
from grader.scoring.results import ALGORITHM_NUMBERS
from reference.mistake_registry import STUBS

# A trace-graded algorithm with no step replay, no notes, no sheet words: alpha-beta's stub under
# another name, as a course adding an algorithm would register it.
EXTRA = textwrap.dedent('''
    from grader.algorithms import Algorithm

    ALGORITHM = Algorithm(
        name="plain_search",
        order=100,
        stubs=("alpha_beta",),
        reference={"alpha_beta": "reference.alpha_beta:alpha_beta"},
        decision="reference.alpha_beta:alpha_beta_decision",
    )
''')


@pytest.fixture
def registered(tmp_path, monkeypatch):
    module = tmp_path / "plain_search.py"
    module.write_text(EXTRA)
    monkeypatch.setenv(algorithm_specs.ENVIRONMENT, str(module))
    yield algorithm_specs.get("plain_search")
    monkeypatch.delenv(algorithm_specs.ENVIRONMENT)


def test_the_lists_are_the_registry():
    assert ALGORITHMS == algorithm_specs.names()
    assert list(ALGORITHM_NUMBERS) == list(ALGORITHMS)
    assert sorted(ALGORITHM_NUMBERS.values()) == list(range(1, len(ALGORITHMS) + 1))
    traced = {spec.name: spec.stubs for spec in algorithm_specs.registry().values()
              if not spec.by_play}
    assert STUBS == traced


def test_the_committed_schema_is_the_generated_one():
    committed = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    assert with_algorithms(json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))) == committed


def test_a_specs_settings_values_are_the_schemas_enums(monkeypatch):
    """The assumptions settings' enums (agent, opponents, search) come from its spec: a value
    added there is one the schema allows, with no edit of the committed file."""
    spec = algorithm_specs.get("assumptions")
    wider = replace(spec, settings_values={**spec.settings_values,
                                           "opponents[]": (*spec.settings_values["opponents[]"],
                                                           "sleepy")})
    monkeypatch.setitem(algorithm_specs.registry(), spec.name, wider)
    schema = with_algorithms(json.loads(SCHEMA_PATH.read_text(encoding="utf-8")))
    settings = schema["properties"][spec.settings]["properties"]
    assert settings["opponents"]["items"]["enum"] == ["adversarial", "random", "sleepy"]
    assert settings["agent"]["enum"] == list(spec.settings_values["agent"])
    assert settings["search"]["enum"] == ["alpha_beta", "minimax"]


def test_an_algorithm_is_registered_by_the_environment_variable(registered):
    assert registered.name in algorithm_specs.names()
    assert algorithm_specs.names()[: len(ALGORITHMS)] == ALGORITHMS  # built-ins keep numbers
    schema = with_algorithms(json.loads(SCHEMA_PATH.read_text(encoding="utf-8")))
    assert registered.name in schema["properties"]["algorithms"]["items"]["enum"]
    assert f"{registered.name}/strict" in schema["properties"]["expect"]["properties"]


def test_an_unknown_algorithm_is_an_error_naming_the_known_ones():
    with pytest.raises(ValueError, match="unknown algorithm 'negamax'.*minimax"):
        algorithm_specs.get("negamax")


class _NoKey:
    def extra(self, *args, **kwargs):
        raise AssertionError("no replay may be computed or cached for it")


def test_no_step_notes_for_an_algorithm_without_a_replay(registered):
    case = case_from_dict({"$schema": SCHEMA_REF, "name": "t", "description": "d",
                           "algorithms": ["minimax"], "tree": [[3, 5], [2, 9]]})
    assert explain.cached_steps(case, registered.name, "inclusive", _NoKey()) is None
    expected = RunResult(value=3, generated=["B", "C"])
    got = RunResult(value=3, generated=["C", "B"])
    assert explain.step_note(case, registered.name, "inclusive", expected, got, _NoKey()) is None


def test_the_answer_sheet_has_no_borrowed_words(registered, monkeypatch):
    import grader.answers.sheet as sheet

    case = case_from_dict({"$schema": SCHEMA_REF, "name": "t", "description": "d",
                           "algorithms": ["minimax"], "tree": [[3, 5], [2, 9]]})
    case.algorithms = [registered.name]
    monkeypatch.setattr(sheet, "solve", lambda case, algorithm, **_: RunResult(
        value=3, generated=["B", "D", "E", "C", "F"], evaluated=["D", "E", "F"], action="B"))
    text = answer_key(case, None)
    assert f"## {registered.name}" in text
    assert "prunes nothing" not in text and "at most None" not in text
    assert "Pruning rule" not in text
