"""grader/compare.py: values within 1e-9, sequences in order, and the diff report."""

import math

from grader.compare import check_value, describe_pair, diff_sequence


def test_numbers_within_tolerance_are_equal():
    assert check_value(3, 3.0).ok
    assert check_value(0.1 + 0.2, 0.3).ok
    assert not check_value(3, 3.001).ok


def test_wrong_types_are_wrong_answers_with_a_message_not_crashes():
    none = check_value(3, None)
    assert not none.ok and "None" in none.message
    text = check_value(3, "3")
    assert not text.ok and "expected a number" in text.message
    assert not check_value(3, math.nan).ok
    assert not check_value(3, True).ok  # a bool is not a number here
    opaque = check_value(3, {"__unserializable__": "Cheat", "repr": "<Cheat>"})
    assert not opaque.ok and "Cheat" in opaque.message


def test_vectors_compare_entry_by_entry():
    assert check_value((1, 2, 3), [1.0, 2.0, 3.0]).ok
    result = check_value((1, 2, 3), [1, 5, 3])
    assert not result.ok and "entry 1" in result.message
    assert not check_value((1, 2, 3), [1, 2]).ok
    assert not check_value((1, 2, 3), 6).ok


def test_actions_compare_after_a_json_round_trip():
    assert check_value("B", "B").ok
    assert check_value((0, 2), [0, 2]).ok
    assert not check_value("B", "C").ok


def test_equal_sequences_have_no_difference():
    diff = diff_sequence("generated", ["B", "B1"], ["B", "B1"])
    assert diff.equal and diff.first_difference is None


def test_sequence_report_names_first_index_extra_missing_and_duplicates():
    expected = ["B", "B1", "B2", "C", "C1", "D", "D1"]
    got = ["B", "B1", "B2", "C", "C1", "C2", "D", "D1", "D1"]
    diff = diff_sequence("generated", expected, got)
    assert diff.first_difference == 5
    assert diff.extra == ["C2"]
    assert diff.missing == []
    assert diff.duplicates == {"D1": 2}


def test_order_matters_even_when_the_sets_agree():
    diff = diff_sequence("evaluated", ["B1", "B2"], ["B2", "B1"])
    assert not diff.equal and diff.first_difference == 0
    assert diff.extra == diff.missing == []


def test_a_prefix_differs_at_its_end():
    diff = diff_sequence("generated", ["B", "B1", "B2"], ["B", "B1"])
    assert diff.first_difference == 2 and diff.missing == ["B2"]


def test_floats_are_shown_with_the_digits_that_differ():
    assert check_value(0.28977499999999995, 0.16460905349794236).message == (
        "expected the value 0.289775, got 0.164609")
    assert describe_pair(1 / 3, 1 / 3 + 1e-7) == ("0.3333333", "0.3333334")  # more where needed
    assert describe_pair(0.5, 2.0) == ("0.5", "2")  # short floats as they are
    assert describe_pair((0.1 + 0.2, 1), (0.25, 2)) == ("(0.3, 1)", "(0.25, 2)")
    assert "0.28977499999999995" not in check_value((0.28977499999999995,), (0.1,)).message
