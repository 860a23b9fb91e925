"""The known-wrong submissions of ``alpha_beta_tt`` and ``quiescence`` through the pipeline.

``tests/submissions/variants.py`` keeps them apart (``SEARCH_VARIANTS``) so that each is graded
here on its own algorithm's cases only (12 each: public and hidden), not on every case as
tests/test_submissions.py grades the older variants (which, with the correct solution and the
stubs, it grades on these cases too). Each must score exactly what the rubric implies from an
in-process run, fail at least one public case, and be named for its own catalogue mistake on
every test it fails.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import suite_modules

from grader.cases import find_cases, load_case
from grader.cases.rubric import load_rubric
from grader.compare import compare
from grader.run.runner import run_algorithm
from grader.scoring.grade import grade
from reference import reference_functions

ROOT = Path(__file__).resolve().parent.parent
PUBLIC = ROOT / "trees" / "public"
variants = suite_modules.load("submissions/variants.py")
RUBRIC = load_rubric()
CASES = [load_case(path) for path in find_cases([PUBLIC, ROOT / "trees" / "hidden"])]
# each variant's name -> the catalogue mistake that reproduces it
NAMED = {"tt_bound_as_exact": "bound_stored_as_exact", "tt_shallower_entry": "shallower_entry_used",
         "tt_keyed_on_path": "keyed_on_path", "tt_no_store_at_cut": "no_store_at_cut",
         "q_no_quiescence": "no_quiescence", "q_no_stand_pat": "no_stand_pat",
         "q_all_moves": "all_moves", "q_no_limit": "no_quiescence_limit"}


def cases_of(algorithm: str) -> list:
    return [case for case in CASES if algorithm in case.algorithms]


@pytest.fixture(scope="module")
def graded(tmp_path_factory, shared_answers) -> dict:
    """Every search variant graded once on its algorithm's cases: name -> GradingResults."""
    folder = tmp_path_factory.mktemp("search_variants")

    def job(name):
        (algorithm,) = variants.SEARCH_VARIANTS[name].algorithms
        path = variants.materialize(name, folder / name)
        return name, grade(path, [case.path for case in cases_of(algorithm)], rubric=RUBRIC,
                           algorithms=[algorithm], answers=shared_answers)

    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(pool.map(job, variants.SEARCH_VARIANTS))


def functions_of(name: str) -> dict:
    namespace: dict = {}
    exec(compile(variants.source(name), f"<{name}>", "exec"), namespace)  # noqa: S102
    return namespace


def test_every_search_variant_is_listed_and_named_here() -> None:
    readme = (ROOT / "tests" / "submissions" / "README.md").read_text()
    assert set(NAMED) == set(variants.SEARCH_VARIANTS)
    for name in variants.SEARCH_VARIANTS:
        assert f"| `{name}` |" in readme, name


@pytest.mark.parametrize("name", list(variants.SEARCH_VARIANTS))
def test_search_variant_scores_exactly_what_the_rubric_implies_and_is_named(graded, name):
    (algorithm,) = variants.SEARCH_VARIANTS[name].algorithms
    functions = functions_of(name)
    tests = {test.case_name: test for test in graded[name].tests}
    assert set(tests) == {case.name for case in cases_of(algorithm)}
    failed_public = []
    for case in cases_of(algorithm):
        settings = RUBRIC.settings_for(case, algorithm)
        comparison = compare(run_algorithm(reference_functions(), case.build_game(), algorithm),
                             run_algorithm(functions, case.build_game(), algorithm))
        if comparison.passed:
            expected = ("passed", settings.points)
        elif comparison.value.ok:
            expected = ("wrong_trace", round(settings.points * settings.partial_credit, 6))
        else:
            expected = ("wrong_value", 0.0)
        test = tests[case.name]
        assert (test.outcome, test.score) == expected, (test.name, test.summary)
        if algorithm == "alpha_beta_tt":
            assert test.output.startswith("**Transposition table.**"), test.name
        if not test.passed:
            named = [hint["name"] for hint in test.extra_data.get("mistakes", [])]
            assert NAMED[name] in named, (test.name, test.summary)
            if case.path.parent == PUBLIC:
                failed_public.append(case.name)
    assert failed_public, f"no public case catches {name}"
