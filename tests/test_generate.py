"""``grader generate`` (grader/generate.py): reproducible trees that show what was asked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grader import cli
from grader.answers.sheet import checked_replay
from grader.answers.solve import solve
from grader.answers.validate import validate_paths
from grader.cases import load_case
from grader.commands import generate
from grader.commands.generate import generate_cases, generate_main

RUNS = {  # require -> options: small trees, so the whole module stays fast
    "strict-differs": {"algorithm": "alpha_beta", "depth": 3, "branching": 2, "seed": 3,
                       "count": 3},
    "ties": {"algorithm": "minimax", "depth": 2, "branching": 3, "seed": 5, "count": 3},
    "deep-cutoff": {"algorithm": "alpha_beta", "depth": 4, "branching": 2, "seed": 1,
                    "count": 2},
}


@pytest.fixture(scope="module")
def written(tmp_path_factory) -> dict[str, Path]:
    """Each requirement's run, written once into its own folder."""
    folders = {}
    for require, options in RUNS.items():
        out = tmp_path_factory.mktemp(require)
        assert generate_main(options["algorithm"], depth=options["depth"],
                             branching=options["branching"], seed=options["seed"],
                             count=options["count"], require=require, out=out) == 0
        folders[require] = out
    return folders


def _cases(folder: Path) -> list:
    return [load_case(path) for path in sorted(folder.glob("*.json"))]


def test_each_case_is_written_with_its_key_and_validates(written):
    for require, folder in written.items():
        cases = sorted(folder.glob("*.json"))
        assert len(cases) == RUNS[require]["count"]
        assert validate_paths(cases) == []
        for path in cases:
            key = path.with_name(path.stem + ".key.md").read_text()
            assert key.startswith(f"# Answer key: {path.stem} (`{path.name}`)")


def test_same_seed_writes_identical_files(written, tmp_path):
    options = RUNS["strict-differs"]
    again = tmp_path / "again"
    assert generate_main(options["algorithm"], depth=3, branching=2, seed=options["seed"],
                         count=options["count"], require="strict-differs", out=again) == 0
    first = written["strict-differs"]
    names = sorted(p.name for p in first.iterdir())
    assert names == sorted(p.name for p in again.iterdir())
    for name in names:
        if name.endswith(".json"):  # $schema is relative to the folder: compare the rest
            one = json.loads((first / name).read_text())
            two = json.loads((again / name).read_text())
            one.pop("$schema"), two.pop("$schema")
            assert one == two
        else:
            assert (first / name).read_bytes() == (again / name).read_bytes()


def test_same_folder_same_seed_is_byte_identical(tmp_path):
    texts = []
    for run in range(2):
        out = tmp_path / "out"
        assert generate_main("expectimax", depth=3, branching=2, seed=9, count=2, out=out) == 0
        texts.append({p.name: p.read_bytes() for p in out.iterdir()})
    assert texts[0] == texts[1] and len(texts[0]) == 4
    other = generate_cases("expectimax", depth=3, branching=2, seed=10, count=2)
    assert [c["tree"] for c in other] != [json.loads(t)["tree"] for n, t in
                                          sorted(texts[0].items()) if n.endswith(".json")]


def test_strict_differs_cases_have_different_reference_traces(written):
    for case in _cases(written["strict-differs"]):
        inclusive = solve(case, "alpha_beta", pruning="inclusive")
        strict = solve(case, "alpha_beta", pruning="strict")
        assert inclusive.generated != strict.generated, case.name


def _tied(tree: list, maximize: bool) -> tuple[int, bool]:
    """Minimax value of a shorthand tree, and whether some node has tied best children."""
    values, ties = [], False
    for child in tree:
        if isinstance(child, list):
            value, below = _tied(child, not maximize)
            ties = ties or below
        else:
            value = child
        values.append(value)
    best = max(values) if maximize else min(values)
    return best, ties or values.count(best) >= 2


def test_ties_cases_have_a_node_with_tied_best_children(written):
    for case in _cases(written["ties"]):
        assert _tied(case.data["tree"], True)[1], case.name


def test_deep_cutoff_cases_cut_by_a_bound_from_two_levels_up(written):
    for case in _cases(written["deep-cutoff"]):
        replay = checked_replay(case, "inclusive")  # its trace is the reference's
        deep = [cut for cut in replay.cuts if cut.deep]
        assert deep and all(c.depth >= 2 and c.depth - c.bound_depth >= 2 for c in deep)


def test_generated_games_follow_the_algorithm():
    expectimax = generate_cases("expectimax", depth=2, branching=2, seed=0)[0]
    assert expectimax["turns"] == ["max", "chance", "min", "chance"]
    maxn = generate_cases("maxn", depth=2, branching=2, seed=0, low=0, high=5)[0]
    assert maxn["players"] == 3 and all(len(leaf) == 3 for child in maxn["tree"] for leaf in child)
    leaves = generate_cases("minimax", depth=2, branching=3, seed=0, low=1, high=4)[0]["tree"]
    assert all(1 <= v <= 4 for child in leaves for v in child)


@pytest.mark.parametrize("options, words", [
    ({"algorithm": "expectimax", "require": "strict-differs"}, ["is about alpha-beta"]),
    ({"algorithm": "alpha_beta", "depth": 3, "require": "deep-cutoff"}, ["--depth 4 or more"]),
    ({"algorithm": "alpha_beta", "low": 5, "high": 1}, ["--low <= --high"]),
    ({"algorithm": "alpha_beta", "count": 0}, ["--count of at least 1"]),
])
def test_options_that_cannot_work_exit_2(options, words, tmp_path, capsys):
    assert generate_main(out=tmp_path, **options) == 2
    error = capsys.readouterr().err
    assert all(word in error for word in words), error
    assert not list(tmp_path.iterdir())


def test_too_few_trees_found_exits_1_and_says_what_to_try(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(generate, "TRIES", 1)
    assert generate_main("alpha_beta", depth=2, branching=2, count=3, require="strict-differs",
                         out=tmp_path, low=0, high=1000) == 1
    assert "try another --seed" in capsys.readouterr().err


def test_cli_generate_calls_generate_main(tmp_path):
    assert cli.main(["generate", "-a", "alpha_beta", "--depth", "2", "--branching", "2",
                     "--out", str(tmp_path)]) == 0
    assert len(list(tmp_path.glob("*.json"))) == 1 and len(list(tmp_path.glob("*.key.md"))) == 1


def test_a_minimax_exercise_showing_strict_differs_lists_alpha_beta_so_its_key_shows_it(tmp_path,
                                                                                        capsys):
    assert generate_main("minimax", depth=3, branching=2, seed=3, count=1,
                         require="strict-differs", out=tmp_path) == 0
    assert "lists minimax and alpha_beta" in capsys.readouterr().out
    case_file = next(tmp_path.glob("*.json"))
    data = json.loads(case_file.read_text())
    assert data["algorithms"] == ["minimax", "alpha_beta"]
    assert "alpha-beta's inclusive and strict traces differ" in data["description"]
    key = case_file.with_suffix(".key.md").read_text()
    assert "rules **differ**" in key
