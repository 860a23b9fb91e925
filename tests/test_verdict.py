"""One diagnosis per algorithm (grader/feedback/verdict.py): named mistakes are right or silent.

A submission here is a catalogue variant (or a reference function table) run in this process
on every case of one algorithm, with the diagnosis's own node budget; what it did on each case
is an :class:`Observation`, as the grading loop records it. The checks:

* every catalogue variant (each coding of it: :class:`reference.mistake_registry.Mistake`) is
  named for itself, on every case where it fails (the one diagnosis goes on every failing test
  of its algorithm), and fails a public case;
* mistakes that share a trace on some case but not on all are never named for each other;
* the property: on random trees (random subsets of them), with random variants, each mistake
  named reproduces the submission on every graded case, checked by running it again here;
* right or silent on mistakes written outside the catalogue (``tests/outside_mistakes/``, for
  the table, quiescence and deepening): no hint is wrong, and at least a third of their
  failing tests carry a right one.
"""

from __future__ import annotations

import dataclasses
import itertools
from pathlib import Path
from typing import Any

import pytest
import suite_modules
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grader.answers.solve import mcts_settings, solve
from grader.answers.store import AnswerKey, case_fingerprint
from grader.cases import case_from_dict, find_cases, load_case
from grader.compare import check_value, compare
from grader.feedback.diagnosis import (
    BUDGET_FACTOR,
    BUDGET_FLOOR,
    BudgetedGame,
    OverBudget,
    cached_runs,
    diagnosable,
)
from grader.feedback.verdict import Observation, consistent, diagnose_submission
from grader.run.runner import run_algorithm
from grader.scoring import random_trees as shrink
from reference import reference_functions
from reference.mistakes import CATALOGUE, STUBS, mistakes_for

ROOT = Path(__file__).resolve().parent.parent
outside = suite_modules.load("outside_mistakes/outside.py")
HEAVY = {"tictactoe-empty-board", "tictactoe-corner-opening-minimax", "connect4-depth-limited",
         "connect4-small-board", "tictactoe-o-to-move", "mcts-tictactoe-o-wins"}
CASES = [case for case in map(load_case, find_cases([ROOT / "trees" / "public",
                                                     ROOT / "trees" / "hidden"]))
         if case.name not in HEAVY]
# every algorithm graded by a trace (its spec's, grader/algorithms/): each has a catalogue
ALGORITHMS = tuple(STUBS)
# Random trees (grader/scoring/random_trees.py) carry no depth limit nor inner evals:
RANDOM_TREE_ALGORITHMS = ("minimax", "alpha_beta", "expectimax", "maxn", "mcts")


def cases_of(algorithm: str) -> list:
    return [case for case in CASES if algorithm in case.algorithms
            and diagnosable(case, algorithm)]


_references: dict[tuple[str, str, str], Any] = {}


def reference_run(case, algorithm: str, rule: str):
    """The reference's run on ``case``, solved once a module for each (case content,
    algorithm, rule): :func:`observe` asks for one about 1,650 times, for 200 answers (solving
    each at every call was two fifths of this file's time)."""
    key = (case_fingerprint(case), algorithm, rule)
    if key not in _references:
        _references[key] = solve(case, algorithm, pruning=rule)
    return _references[key]


def observe(table: dict, case, algorithm: str, rule: str) -> Observation:
    """What ``table`` does on ``case``, as the grading loop records it (the budget stands in
    for the time limit)."""
    reference = reference_run(case, algorithm, rule)
    budget = max(BUDGET_FLOOR, BUDGET_FACTOR * len(reference.generated))
    settings_ = mcts_settings(case) if algorithm == "mcts" else None
    try:
        got = run_algorithm(table, BudgetedGame(case.build_game(), budget), algorithm,
                            mcts=settings_)
    except (OverBudget, RecursionError):
        return Observation(case, rule, False, None, "timeout")
    except Exception:  # noqa: BLE001 - the worker reports it as an error
        return Observation(case, rule, False, None, "error")
    return Observation(case, rule, compare(reference, got).passed, got)


def rule_of(mistake) -> str:
    return "inclusive" if "inclusive" in mistake.rules else "strict"


@pytest.fixture(scope="module")
def answers() -> AnswerKey:
    return AnswerKey.default()


_observed: dict = {}

# every coding of every mistake: (mistake, form)
CODINGS = [(mistake, form) for mistake in CATALOGUE for form in range(mistake.codings)]


def observations(mistake, form: int = 0) -> list[Observation]:
    key = (mistake.algorithm, mistake.name, form)
    if key not in _observed:
        rule = rule_of(mistake)
        _observed[key] = [observe(mistake.functions(rule, form), case, mistake.algorithm, rule)
                          for case in cases_of(mistake.algorithm)]
    return _observed[key]


@pytest.mark.parametrize(("mistake", "form"), CODINGS,
                         ids=[f"{m.algorithm}-{m.name}-{form}" for m, form in CODINGS])
def test_each_variant_is_named_for_itself_wherever_it_fails(mistake, form, answers):
    seen = observations(mistake, form)
    failing = [item.case.name for item in seen if not item.passed]
    assert failing, f"{mistake.name} ({form}) fails no case of {mistake.algorithm}"
    found = diagnose_submission(mistake.algorithm, seen, answers)
    assert found is not None and mistake.name in [hint.name for hint in found.hints], failing
    assert found.cases == len(seen)


PUBLIC = {case.name for case in CASES if case.path.parent.name == "public"}


def test_every_mistake_in_the_catalogue_fails_a_public_case():
    """A student sees every known mistake before the hidden cases do: a new mistake (each of
    its codings) comes with a public case that shows it (and a hidden twin; trees/README.md
    lists both). Every algorithm's, the table's, quiescence's and deepening's included."""
    assert {m.algorithm for m, _ in CODINGS} == set(ALGORITHMS)
    silent = [f"{m.algorithm}/{m.name}/{form}" for m, form in CODINGS
              if not any(item.case.name in PUBLIC and not item.passed
                         for item in observations(m, form))]
    assert silent == []


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_the_reference_gets_no_diagnosis(algorithm, answers):
    seen = [observe(reference_functions("inclusive"), case, algorithm, "inclusive")
            for case in cases_of(algorithm)]
    assert all(item.passed for item in seen)
    assert diagnose_submission(algorithm, seen, answers) is None


def sharing_pairs(answers) -> list[tuple]:
    """(algorithm, A, B, case) where A and B give the same wrong run on ``case`` but B does not
    reproduce A on every case: per case, one mistake could be taken for the other."""
    pairs = []
    for algorithm in ALGORITHMS:
        for case in cases_of(algorithm):
            runs = [run for run in cached_runs(case, algorithm, "inclusive", answers)
                    if run["status"] == "ran" and not run["same"] and not run.get("form")]
            for first, second in itertools.permutations(runs, 2):
                if (first["generated_hash"], repr(first["value"])) == (
                        second["generated_hash"], repr(second["value"])):
                    pairs.append((algorithm, first["name"], second["name"], case.name))
    return pairs


def test_mistakes_that_share_a_trace_on_one_case_are_not_taken_for_each_other(answers):
    by_name = {(m.algorithm, m.name): m for m in mistakes_for_all("inclusive")}
    pairs = sharing_pairs(answers)
    told_apart = set()
    for algorithm, first, second, shared_on in pairs:
        seen = observations(by_name[(algorithm, first)])
        found = diagnose_submission(algorithm, seen, answers)
        names = [hint.name for hint in found.hints] if found else []
        assert first in names, (first, shared_on)
        fits_all = any(all(consistent(next(run for run in cached_runs(
            item.case, algorithm, item.rule, answers) if run["name"] == second
            and run.get("form", 0) == form), item) for item in seen)
            for form in range(by_name[(algorithm, second)].codings))
        if not fits_all:
            assert second not in names, (first, second, shared_on)
            told_apart.add((algorithm, first, second))
    # the catalogue has such pairs in several algorithms: the test is not empty
    assert len(told_apart) >= 5, sorted(told_apart)
    assert len({algorithm for algorithm, _, _ in told_apart}) >= 3, sorted(told_apart)


def mistakes_for_all(rule: str) -> list:
    return [mistake for algorithm in ALGORITHMS for mistake in mistakes_for(algorithm, rule)]


# --- the property ------------------------------------------------------------------------------


@st.composite
def submissions(draw):
    """(algorithm, mistake or None for the reference, 1 to 4 random cases of the algorithm)."""
    algorithm = draw(st.sampled_from(RANDOM_TREE_ALGORITHMS))
    mistake = draw(st.sampled_from([None, *mistakes_for(algorithm, "inclusive")]))
    cases = draw(st.lists(shrink.case_dicts(algorithm), min_size=1, max_size=4))
    return algorithm, mistake, cases


def reruns_the_same(mistake, item: Observation, algorithm: str) -> bool:
    """``mistake`` run again, here, does on the case what the submission did (independent of
    the stored runs the diagnosis read)."""
    again = observe(mistake.functions(item.rule), item.case, algorithm, item.rule)
    if item.got is None or again.got is None:
        return item.got is None and again.got is None and item.outcome == again.outcome
    return (again.got.generated == item.got.generated and again.got.state == item.got.state
            and check_value(again.got.value, item.got.value).ok)


@settings(max_examples=40, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(submissions())
def test_a_named_mistake_reproduces_the_submission_on_every_graded_case(drawn):
    algorithm, mistake, dicts = drawn
    cases = [case_from_dict(data) for data in dicts]
    table = mistake.functions("inclusive") if mistake else reference_functions("inclusive")
    seen = [observe(table, case, algorithm, "inclusive") for case in cases]
    answers = AnswerKey(cache=None)
    found = diagnose_submission(algorithm, seen, answers)
    if mistake is None or all(item.passed for item in seen):
        assert found is None
        return
    by_name = {m.name: m for m in mistakes_for(algorithm, "inclusive")}
    # the submission is itself a catalogue variant: it is always among the named
    assert found is not None and mistake.name in [hint.name for hint in found.hints]
    for hint in found.hints:
        for item in seen:
            assert reruns_the_same(by_name[hint.name], item, algorithm), (hint.name, dicts)


def test_a_small_tree_tells_alternatives_apart_or_none_is_claimed():
    from grader.scoring.telling import telling_tree

    data, runs = telling_tree("alpha_beta", ["never_prunes", "forgets_alpha_update"], "inclusive")
    assert runs["never_prunes"] != runs["forgets_alpha_update"]
    case = case_from_dict(data)  # a valid case, and the runs shown are the variants' own
    table = next(m for m in mistakes_for("alpha_beta", "inclusive") if m.name == "never_prunes")
    got = run_algorithm(table.functions("inclusive"), case.build_game(), "alpha_beta")
    assert runs["never_prunes"].startswith(f"generates {' '.join(got.generated)}, value")
    # the same search written two ways: no tree tells them apart, and none is claimed
    assert telling_tree("alpha_beta", ["never_prunes", "no_window_passing"], "inclusive",
                        tries=30) is None


def test_the_why_line_counts_the_cases_it_rests_on_and_says_which():
    """MCTS's move checks have no trace to explain: the student sees five mcts tests, the
    diagnosis rests on three, and the sentence must not call those three "all" of them."""
    from grader.feedback.diagnosis import Hint
    from grader.feedback.verdict import Diagnosis

    hint = Hint("mcts_by_mean", "answers by mean reward", "does", "departs", "fix")
    traced = " ".join(Diagnosis("mcts", [hint], 3).markdown())
    assert "on all 3 graded mcts cases, the passing" in traced
    mixed = " ".join(Diagnosis("mcts", [hint], 3, untraced=2).markdown())
    assert "all 3 graded mcts cases whose trace is compared (not the 2 that check only" in mixed
    hidden = " ".join(Diagnosis("mcts", [hint], 3, count_shown=False, untraced=2).markdown())
    assert "every graded mcts case whose trace is compared," in hidden and "2" not in hidden


# --- mistakes written outside the catalogue ----------------------------------------------------


def outside_verdicts(answers) -> dict[str, dict[str, int]]:
    """Each outside mistake (tests/outside_mistakes/): how many of its failing tests carry a
    right hint, none, or a wrong one, on every case of its algorithm, public and hidden. As the
    grader decides (:func:`grader.scoring.named.name_mistakes`): a public test's hint on the
    public tests alone (what students see before the due date), a hidden test's on all."""
    every = [load_case(path) for path in find_cases([ROOT / "trees" / "public",
                                                     ROOT / "trees" / "hidden"])]
    tallies = {}
    for name, right in outside.RIGHT.items():
        algorithm = outside.algorithm(name)
        table = outside.functions(name)
        seen = [observe(table, case, algorithm, "inclusive") for case in every
                if algorithm in case.algorithms]
        assert any(not item.passed and item.case.name in PUBLIC for item in seen), (
            f"no public case catches {name}")
        public = [item for item in seen if item.case.name in PUBLIC]
        tally = {"failing": 0, "right": 0, "silent": 0, "wrong": 0}
        for scope in (public, [item for item in seen if item.case.name not in PUBLIC]):
            found = diagnose_submission(algorithm, public if scope is public else seen, answers)
            named = {hint.name for hint in found.hints} if found else set()
            verdict = "silent" if not named else "right" if named <= right else "wrong"
            failing = sum(not item.passed for item in scope)
            tally["failing"] += failing
            tally[verdict] += failing
        tallies[name] = tally
    return tallies


def test_mistakes_written_outside_the_catalogue_are_named_right_or_not_at_all(answers):
    """Issue 41: a hint is right (its fix fixes the code) or absent, never wrong; and the
    catalogue's classes, matched on everything the grader observes (the table's summary too),
    name at least a third of the failing tests right. None of these variants is in the
    catalogue by name (their folder's README says where each came from)."""
    tallies = outside_verdicts(answers)
    assert len(tallies) >= 12
    assert {outside.algorithm(name) for name in tallies} == {
        "alpha_beta_tt", "quiescence", "iterative_deepening"}
    wrong = {name: tally for name, tally in tallies.items() if tally["wrong"]}
    assert wrong == {}
    failing = sum(tally["failing"] for tally in tallies.values())
    right = sum(tally["right"] for tally in tallies.values())
    assert failing and 3 * right >= failing, (right, failing, tallies)
    catalogue = {(m.algorithm, m.name) for m in CATALOGUE}
    assert not any((outside.algorithm(name), name) in catalogue for name in tallies)


def test_the_table_summary_keeps_a_variant_with_the_same_traces_from_being_named(answers):
    """A table keyed on (key, depth) gives ``lookup_after_cutoff``'s value and traces on
    tt-nim-depth-limit, and a search that reads any usable entry as exact gives
    ``bound_stored_as_exact``'s on failing cases: only the final table tells them apart (issue
    41's wrong hints). With the table's summary compared, neither is named."""
    for name, lookalike in (("tt_key_with_depth", "lookup_after_cutoff"),
                            ("tt_reads_bound_as_exact", "bound_stored_as_exact")):
        table = outside.functions(name)
        seen = [observe(table, case, "alpha_beta_tt", "inclusive")
                for case in cases_of("alpha_beta_tt")]
        told_by_table = []
        for item in seen:
            run = next(run for run in cached_runs(item.case, "alpha_beta_tt", item.rule, answers)
                       if run["name"] == lookalike)
            blind = dataclasses.replace(item, got=dataclasses.replace(item.got, state=None))
            if not item.passed and consistent(run, blind) and not consistent(run, item):
                told_by_table.append(item.case.name)
        assert told_by_table, name
        found = diagnose_submission("alpha_beta_tt", seen, answers)
        assert found is None or lookalike not in [hint.name for hint in found.hints]
