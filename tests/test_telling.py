"""The shipped table of telling trees (grader/scoring/telling.py, reference/telling_trees.json).

The table stands in for a hypothesis search at every grade whose diagnosis names several
mistakes: each tree in it must really tell its set apart, every pair of mistakes the catalogue
can name together must be in it, and a grade must show what the search itself would (the
search stays for the sets the table lacks, and where an edit made a tree useless).
"""

from __future__ import annotations

import itertools
import json

import pytest

import grader.algorithms as algorithm_specs
from grader.cases import case_from_dict
from grader.scoring import telling
from grader.scoring.telling import (TRIES, key_parts, known_telling_tree, table, table_key,
                                    table_path, telling_tree, variant_runs)
from reference.mistakes import RULES, mistakes_for


def test_the_table_holds_every_pair_of_mistakes_of_every_algorithm_under_each_rule():
    wanted = {table_key(algorithm, pair, rule)
              for algorithm in algorithm_specs.registry() for rule in RULES
              for pair in itertools.combinations([m.name for m in mistakes_for(algorithm, rule)],
                                                 2)}
    failed = json.loads(table_path().read_text())["failed"]
    missing = sorted(wanted - set(table()) - set(failed))
    assert not missing, (f"{len(missing)} sets missing from {table_path()} (a mistake added or "
                         f"renamed: run python bench/telling_trees.py write), e.g. {missing[:3]}")
    assert len(wanted) > 500  # the catalogue's: it was not read empty
    # larger sets the suite's known-wrong submissions are named with: never_prunes graded on
    # aima-fig-5-2.json alone fits three mistakes (tests/test_feedback.py's graded_never_prunes,
    # graded again in test_portable's rerun), strict_pruning on a few public cases three
    for rule in RULES:
        assert table_key("alpha_beta", ["never_prunes", "no_window_passing",
                                        "forgets_alpha_update"], rule) in table()
    assert table_key("alpha_beta", ["strict_pruning", "never_prunes", "no_window_passing"],
                     "inclusive") in table()


def test_every_key_names_mistakes_of_the_catalogue_in_its_own_order():
    for key in table():
        algorithm, rule, names = key_parts(key)
        assert rule in RULES, key
        known = {m.name for m in mistakes_for(algorithm, rule)}
        assert len(names) >= 2 and set(names) <= known, key
        assert names == sorted(names), key  # table_key's form: looked up by it


def test_every_tree_in_the_table_is_a_case_on_which_its_mistakes_run_differently():
    checked = 0
    for key, data in table().items():
        if data is None:
            continue
        algorithm, rule, names = key_parts(key)
        case_from_dict(data)  # a valid case
        runs = variant_runs(algorithm, names, rule, data)
        assert sorted(runs) == names, key
        assert len(set(runs.values())) > 1, f"{key}: its tree no longer tells them apart"
        checked += 1
    assert checked > 350


def test_the_table_was_written_with_the_tries_a_grade_searches_with():
    document = json.loads(table_path().read_text())
    assert document["made_with"]["tries"] == TRIES
    assert set(document) == {"about", "made_with", "trees", "failed"}


def test_a_set_whose_search_failed_still_fails_and_is_searched_at_a_grade():
    """The sets listed as failed are searched at a grade, as before the table; once the
    search works for them (random trees that make their cases), the table must be written
    again: one of each algorithm's is searched here (a failing search stops at its first tree)."""
    failed = json.loads(table_path().read_text())["failed"]
    by_algorithm = {key_parts(key)[0]: key for key in sorted(failed)}
    assert set(by_algorithm) <= set(algorithm_specs.registry())
    for key in by_algorithm.values():
        assert key not in table()
        algorithm, rule, names = key_parts(key)
        with pytest.raises(Exception) as raised:
            known_telling_tree(algorithm, names, rule)
        assert str(raised.value).splitlines()[0] in failed[key], key


def test_a_grade_shows_from_the_table_what_the_search_finds():
    # one set a course's known-wrong submissions are named with (never_prunes and
    # no_window_passing: no tree tells them apart, the table says so), and one with a tree
    assert table()[table_key("alpha_beta", ["never_prunes", "no_window_passing"],
                             "inclusive")] is None
    assert known_telling_tree("alpha_beta", ("no_window_passing", "never_prunes"),
                              "inclusive") is None
    names = ["never_prunes", "forgets_alpha_update"]
    searched = telling_tree("alpha_beta", names, "inclusive")
    assert searched is not None
    assert known_telling_tree("alpha_beta", tuple(names), "inclusive") == searched


def test_a_set_the_table_lacks_or_a_tree_grown_useless_is_searched(monkeypatch):
    names = ["never_prunes", "forgets_alpha_update"]
    key = table_key("alpha_beta", names, "inclusive")
    searches = []

    def search(*args):
        searches.append(args)
        return "searched"

    monkeypatch.setattr(telling, "telling_tree", search)
    shipped = table()[key]
    monkeypatch.setattr(telling, "table", lambda: {})
    assert known_telling_tree("alpha_beta", names, "inclusive") == "searched"
    # a tree on which the two now run alike (one leaf): the search, not the stale tree
    alike = {**shipped, "tree": {"id": "A", "player": "max", "children": [{"id": "B",
                                                                           "value": 1}]}}
    runs = variant_runs("alpha_beta", names, "inclusive", alike)
    assert len(set(runs.values())) == 1
    monkeypatch.setattr(telling, "table", lambda: {key: alike})
    assert known_telling_tree("alpha_beta", names, "inclusive") == "searched"
    # other tries than the table's: the search's answer for those
    assert known_telling_tree("alpha_beta", names, "inclusive", tries=TRIES - 1) == "searched"
    assert searches == [("alpha_beta", names, "inclusive", TRIES)] * 2 + [
        ("alpha_beta", names, "inclusive", TRIES - 1)]
    # and the shipped tree, where it still tells them apart, with its runs worked out anew
    monkeypatch.setattr(telling, "table", lambda: {key: shipped})
    assert known_telling_tree("alpha_beta", names, "inclusive") == (
        shipped, variant_runs("alpha_beta", names, "inclusive", shipped))
    assert len(searches) == 3


@pytest.mark.parametrize("rule", RULES)
def test_no_search_runs_for_a_set_in_the_table(monkeypatch, rule):
    def refuse(*args, **kwargs):
        raise AssertionError(f"searched for {args}")

    monkeypatch.setattr(telling, "telling_tree", refuse)
    for key, data in table().items():
        algorithm, key_rule, names = key_parts(key)
        if key_rule == rule and algorithm == "alpha_beta":
            found = known_telling_tree(algorithm, list(reversed(names)), rule)
            assert (found is None) == (data is None) and (found is None or found[0] == data)
