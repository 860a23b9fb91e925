"""The public cases as pytest tests: run ``pytest`` in this folder.

One test per (algorithm, public case), named ``<algorithm>-<case>`` (``alpha_beta-aima-fig-5-2``),
so ``pytest -k alpha_beta`` runs the alpha-beta ones and ``pytest -k fig-5-2`` one tree
(``conftest.py`` beside this file makes an algorithm's name pick exactly its tests: ``-k minimax``
leaves out the expectimax test of the ``expectiminimax-turns`` case). A
failure shows what ``grader check`` shows: the value, the expansion order with the first
difference marked, the tree, and a hint when your mistake is a known one. This file grades
``search.py`` beside it; you do not need to edit it.
"""

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))  # the grader package sits beside this folder

from grader.cases import find_cases, load_case
from grader.feedback.drawing import asciify, wants_ascii
from grader.report.terminal import terminal_text
from grader.cases.rubric import load_rubric
from grader.scoring.grade import grade
from grader.scoring.random_trees import random_test_name, random_test_selected
from grader.scoring.results import ALGORITHM_NUMBERS

SUBMISSION = HERE / "search.py"
PUBLIC = ROOT / "trees" / "public"
RUBRIC = load_rubric()


def _case_params():
    params = []
    for path in find_cases([PUBLIC]):
        case = load_case(path)
        for algorithm in case.algorithms:
            params.append(pytest.param(algorithm, case.name, path, id=f"{algorithm}-{case.name}"))
    return params


def _random_params():
    return [pytest.param(algorithm, id=f"{algorithm}-random-trees")
            for algorithm in ALGORITHM_NUMBERS  # the grader's own choice of random-tree tests
            if random_test_selected(RUBRIC, algorithm, None, None)]


@pytest.fixture(scope="session")
def graded(request):
    """Every selected test, graded in one run (one worker process for the session)."""
    selected = []
    for item in request.session.items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        if isinstance(params.get("algorithm"), str):
            selected.append(params)
    paths = sorted({params["path"] for params in selected if "path" in params})
    algorithms = sorted({params["algorithm"] for params in selected})
    results = grade(SUBMISSION, paths or [PUBLIC], rubric=RUBRIC, algorithms=algorithms or None)
    return results


def _explain(test):
    text = terminal_text(test.output) if test.output else test.summary
    if not text.startswith(test.summary):
        text = f"{test.summary}\n\n{text}"
    return asciify(text) if wants_ascii(sys.__stdout__) else text


@pytest.mark.parametrize("algorithm, name, path", _case_params())
def test_public_case(graded, algorithm, name, path):
    found = [t for t in graded.tests if t.algorithm == algorithm and t.case_name == name]
    if not found:
        pytest.fail(f"{algorithm} on {name} was not graded (see the messages above)")
    if not found[0].passed:
        pytest.fail(_explain(found[0]), pytrace=False)


if _random_params():  # only when the rubric gives random-tree tests points

    @pytest.mark.parametrize("algorithm", _random_params())
    def test_random_trees(graded, algorithm):
        found = [t for t in graded.tests if t.name == random_test_name(algorithm)]
        if not found:
            pytest.skip("random-tree tests need the reference: they run on Gradescope")
        if not found[0].passed:
            pytest.fail(_explain(found[0]), pytrace=False)
