"""Lets ``pytest -k minimax`` run exactly the minimax tests.

pytest's ``-k`` matches parts of test names, and some case names hold another algorithm's name
(``expectimax-expectiminimax-turns`` contains ``minimax``), so ``-k minimax`` alone would also run
expectimax tests. Here each test also answers to ``algorithm:<name>``, and a ``-k`` word that is
exactly an algorithm's name is read as that: ``-k minimax``, ``-k "alpha_beta and aima"`` and
``-k "not mcts"`` pick by algorithm; every other word (``-k fig-5-2``) keeps pytest's meaning.
The keyword ends with ``:`` so that ``-k alpha_beta`` does not pick ``alpha_beta_tt`` too
(pytest matches a keyword by substring).
"""

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def pytest_sessionstart(session):
    """A Python without the grader's packages: say which, and how to install them, before any
    test is graded (every test would otherwise fail as the grader's own problem)."""
    sys.path.insert(0, str(ROOT))
    from grader.commands.environment import missing_message, missing_packages

    missing = missing_packages()
    if missing:
        print(f"\n{missing_message(missing, ROOT)}\n", file=sys.stderr)
        pytest.exit("the grader's packages are missing (above)", returncode=2)


_WORD = re.compile(r"[\w:+.\[\]\\/-]+")  # one identifier of a -k expression, as pytest reads it


def algorithm_keyword(algorithm: str) -> str:
    return f"algorithm:{algorithm}:"


@pytest.hookimpl(tryfirst=True)  # before pytest applies -k
def pytest_collection_modifyitems(config, items):
    # the grader's own list, imported here: by now pytest_sessionstart (or test_search.py, when
    # this conftest is not pytest's first) has put the grader on the path
    from grader.cases.algorithms import ALGORITHMS

    for item in items:
        algorithm = getattr(getattr(item, "callspec", None), "params", {}).get("algorithm")
        if isinstance(algorithm, str):
            item.extra_keyword_matches.add(algorithm_keyword(algorithm))
    expression = config.getoption("keyword") or ""
    config.option.keyword = _WORD.sub(
        lambda word: algorithm_keyword(word.group(0).lower())
        if word.group(0).lower() in ALGORITHMS else word.group(0), expression)
