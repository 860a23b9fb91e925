"""Big cases: the fast path for plain full trees (grader/cases/fast.py) builds what the
general checks build, and a mistake anywhere in a big tree still gets its line:column."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.trees import random_case
from grader.cases import explicit_nodes, find_cases, load_case, parse_case_text, to_nodes
from grader.cases.fast import plain_tree_nodes
from grader.cases.rules import vector_values
from grader.errors import CaseError

REPO = Path(__file__).resolve().parent.parent


def general_nodes(data: dict) -> tuple[list, str]:
    errors: list = []
    specs, root = explicit_nodes(data, errors)
    assert not errors
    return to_nodes(specs, root, data.get("players", 2), vector_values(data)), root


def test_a_random_tree_is_vouched_for_and_built_as_the_general_path_builds_it() -> None:
    data = random_case(3000, seed=7)
    assert plain_tree_nodes(data) == general_nodes(data)


@pytest.mark.parametrize("path", find_cases([REPO / "trees" / "public", REPO / "trees" / "hidden"]),
                         ids=lambda p: p.stem)
def test_the_fast_path_agrees_on_every_shipped_case_it_takes(path: Path) -> None:
    data = json.loads(path.read_text())
    plain = plain_tree_nodes(data)
    if plain is not None:
        assert plain == general_nodes(data)


def big_file(tmp_path: Path, change) -> Path:
    """A 3,000-node random case, changed deep down, written one key a line."""
    data = random_case(3000, seed=3)
    node = data["tree"]
    while "children" in node:
        node = node["children"][-1]
    change(data, node)
    path = tmp_path / "big.json"
    path.write_text(json.dumps(data, indent=1))
    return path


def last_line_with(path: Path, text: str) -> int:
    return [i for i, line in enumerate(path.read_text().splitlines(), 1) if text in line][-1]


@pytest.mark.parametrize("change, wanted, mark", [
    (lambda d, leaf: leaf.update(id="n1"), "is used twice", '"id": "n1"'),
    (lambda d, leaf: leaf.update(value=True), "expected", '"value": true'),
    (lambda d, leaf: leaf.update(player="max"), "", None),
    (lambda d, leaf: d.update(value_bounds=[-50, 50]) or leaf.update(value=99),
     "outside value_bounds", '"value": 99'),
])
def test_a_mistake_deep_in_a_big_tree_keeps_its_line_and_column(
        tmp_path: Path, change, wanted: str, mark: str | None) -> None:
    path = big_file(tmp_path, change)
    data = json.loads(path.read_text())
    assert plain_tree_nodes(data) is None  # not vouched for: the general checks run
    if mark is None:  # a player on a leaf is allowed: it loads, by the general path
        load_case(path).build_game()
        return
    with pytest.raises(CaseError) as raised:
        load_case(path)
    error = raised.value
    assert wanted in error.message
    assert error.line == last_line_with(path, mark) and error.column is not None


def test_positions_are_found_only_when_an_error_needs_them(tmp_path: Path) -> None:
    text = json.dumps(random_case(200))
    parsed = parse_case_text(text)
    assert not parsed.errors and parsed.positions._places is None
    assert parsed.positions[("tree", "children", 0)] == (1, text.index('{"id": "n1"') + 1)
    twice = parse_case_text('{"a": 1,\n "a": 2}')
    assert [(e.line, e.column) for e in twice.errors] == [(2, 2)]
    nan = parse_case_text('{"a": [1,\n NaN]}')
    assert [(e.line, e.column, e.path) for e in nan.errors] == [(2, 2, "$.a[1]")]
