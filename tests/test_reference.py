"""The reference implementations: published answers, ties, errors and properties on random trees.

Random trees come from hypothesis (derandomized, so every run checks the same trees). Traces
are taken the way the grader takes them: :func:`grader.run.runner.run_algorithm` on a function
table from :func:`reference.reference_functions`.
"""

from __future__ import annotations

import inspect
import itertools
import math
import os
import random
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grader.games import CHANCE, MAX, MIN, builtin_game
from grader.games.tree import Node, TreeGame
from grader.run.runner import MctsSettings, run_algorithm
from reference import decision, reference_functions
from reference.alpha_beta import alpha_beta_decision
from reference.expectimax import expectimax, expectimax_decision
from reference.maxn import maxn_decision
from reference.mcts import mcts, mcts_tree
from reference.minimax import max_value, minimax_decision

RULES = ("inclusive", "strict")
# The same 100 trees a property every run (at 300 this file took 13.4 CPU s, 6.7 now);
# REFERENCE_EXAMPLES=5000 runs a longer, random search instead.
THOROUGH = os.environ.get("REFERENCE_EXAMPLES")
PROPERTY = settings(
    derandomize=not THOROUGH,
    database=None,
    deadline=None,
    max_examples=int(THOROUGH or 100),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


# --- building trees -----------------------------------------------------------------------
def tree(spec, player=MAX, node_id="A", probabilities=None):
    """Nodes from nested ``(player, [children])`` / leaf values; ids A; B, C, D; B1, B2, ..."""
    nodes = []

    def build(item, node_id, depth):
        if not isinstance(item, tuple) or (item and not isinstance(item[1], list)):
            nodes.append(Node(node_id, MAX, value=item))
            return
        mover, children, *probs = item
        ids = [
            chr(ord("B") + i) if depth == 0 else f"{node_id}{i + 1}" for i in range(len(children))
        ]
        nodes.append(Node(node_id, mover, [(i, i) for i in ids], probs[0] if probs else None))
        for child, child_id in zip(children, ids):
            build(child, child_id, depth + 1)

    build(spec, node_id, 0)
    return nodes


def textbook_tree():
    """AIMA Fig. 5.2: the 3-12-8 / 2-4-6 / 14-5-2 tree."""
    return TreeGame(tree((MAX, [(MIN, [3, 12, 8]), (MIN, [2, 4, 6]), (MIN, [14, 5, 2])])), "A")


def run(game, algorithm, rule="inclusive", **options):
    return run_algorithm(reference_functions(rule), game, algorithm, **options)


def is_subsequence(short, long):
    remaining = iter(long)
    return all(item in remaining for item in short)


NUMBERS = st.one_of(st.integers(-3, 3), st.sampled_from([-1.5, -0.5, 0.0, 0.25, 2.75]))


@st.composite
def random_trees(draw, kinds=(MAX, MIN), leaves=NUMBERS, cutoff=True, budget=90):
    """``(nodes, depth_limit)``: branching 1..5, depth 1..6, movers drawn from ``kinds``."""
    depth = draw(st.integers(1, 6))
    nodes = []

    def build(node_id, level):
        leaf = (
            level == depth or len(nodes) >= budget or (level > 0 and draw(st.integers(0, 3)) == 0)
        )
        if leaf:
            nodes.append(Node(node_id, MAX, value=draw(leaves)))
            return
        mover = draw(st.sampled_from(kinds))
        ids = [f"{node_id}.{i}" for i in range(1, draw(st.integers(1, 5)) + 1)]
        probabilities = None
        if mover == CHANCE:
            weights = [draw(st.integers(1, 4)) for _ in ids]
            probabilities = [w / sum(weights) for w in weights]
        node = Node(node_id, mover, [(i, i) for i in ids], probabilities, eval=draw(leaves))
        nodes.append(node)
        for child_id in ids:
            build(child_id, level + 1)

    build("A", 0)
    limit = draw(st.one_of(st.none(), st.integers(1, depth))) if cutoff else None
    return nodes, limit


def vectors(players, total=6):
    """Non-negative vectors whose entries sum to ``total`` or a little less."""

    def parts(drawn):
        cuts, shortfall = drawn
        ends = [0, *sorted(cuts), total]
        vector = [b - a for a, b in itertools.pairwise(ends)]
        vector[0] = max(0, vector[0] - shortfall)
        return tuple(vector)

    cuts = st.lists(st.integers(0, total), min_size=players - 1, max_size=players - 1)
    return st.tuples(cuts, st.integers(0, 2)).map(parts)


# --- published answers --------------------------------------------------------------------
@pytest.mark.parametrize("rule", RULES)
def test_textbook_tree_value_and_alpha_beta_trace(rule):
    game = textbook_tree()
    assert run(game, "minimax").value == 3
    result = run(game, "alpha_beta", rule)
    assert result.value == 3
    assert result.evaluated == ["B1", "B2", "B3", "C1", "D1", "D2", "D3"]
    assert result.generated == ["B", "B1", "B2", "B3", "C", "C1", "D", "D1", "D2", "D3"]
    assert decision(game, "alpha_beta", pruning=rule) == "B" == decision(game, "minimax")


def builtin(name, state=None):
    try:
        return builtin_game(name, state)
    except ImportError:
        pytest.skip(f"the built-in game {name!r} is not there yet")


def test_tictactoe_empty_board_value_and_minimax_node_count():
    game = builtin("tictactoe")
    result = run(game, "minimax")
    assert result.value == 0
    assert len(result.generated) == 549_945
    assert run(game, "alpha_beta").value == 0


def expectimax_example():
    """The study notes' tree (seeds/002): MAX over two chance nodes, 8.8 and 36.3."""
    spec = (MAX, [(CHANCE, [10, 8], [0.4, 0.6]), (CHANCE, [9, 100], [0.7, 0.3])])
    return TreeGame(tree(spec), "A")


def test_expectimax_published_values():
    game = expectimax_example()
    root = game.initial_state()
    assert expectimax(game, game.result(root, "B"), 1) == pytest.approx(8.8, abs=1e-9)
    assert expectimax(game, game.result(root, "C"), 1) == pytest.approx(36.3, abs=1e-9)
    assert run(game, "expectimax").value == pytest.approx(36.3, abs=1e-9)
    assert expectimax_decision(game, root) == "C"
    thirds = TreeGame(tree((CHANCE, [8, 24, -12], [1 / 2, 1 / 3, 1 / 6])), "A")
    assert run(thirds, "expectimax").value == pytest.approx(10, abs=1e-9)
    assert expectimax_decision(thirds, thirds.initial_state()) is None  # chance root: no move


def test_star1_cuts_at_the_upper_bound_and_returns_it():
    # After B, alpha = 6. C's first child: S = 0.5 * 2 = 1, R = 0.5, S + U*R = 6 <= alpha: cut,
    # returning the bound 6 (C's true value is 3); C2 is never generated.
    spec = (MAX, [(CHANCE, [6, 6], [0.5, 0.5]), (CHANCE, [2, 4], [0.5, 0.5])])
    assert run(TreeGame(tree(spec), "A"), "expectimax").value == 6
    star1 = TreeGame(tree(spec), "A", value_bounds=(0, 10))
    result = run(star1, "expectimax")
    assert (result.value, result.generated) == (6, ["B", "B1", "B2", "C", "C1"])
    c = star1.result(star1.initial_state(), "C")
    assert expectimax(star1, c, 1) == 3  # alone, with the full window: no cut
    assert expectimax_decision(star1, star1.initial_state()) == "B"


def test_star1_cuts_at_the_lower_bound_and_returns_it():
    # After B, beta = 4. C's first child: S = 4, R = 0.5, S + L*R = 4 >= beta: cut, return 4.
    spec = (MIN, [(CHANCE, [4, 4], [0.5, 0.5]), (CHANCE, [8, 2], [0.5, 0.5])])
    star1 = TreeGame(tree(spec), "A", value_bounds=(0, 10))
    result = run(star1, "expectimax")
    assert (result.value, result.generated) == (4, ["B", "B1", "B2", "C", "C1"])
    assert run(TreeGame(tree(spec), "A"), "expectimax").generated[-1] == "C2"


def aima_three_player_tree():
    """AIMA Fig. 5.4: A, B, C move in turn; the root's value is (1, 2, 6)."""
    leaves = [
        (1, 2, 6),
        (4, 2, 3),
        (6, 1, 2),
        (7, 4, 1),
        (5, 1, 1),
        (1, 5, 2),
        (7, 7, 1),
        (5, 4, 5),
    ]
    c_nodes = [(2, leaves[i : i + 2]) for i in range(0, 8, 2)]
    spec = (0, [(1, c_nodes[:2]), (1, c_nodes[2:])])
    return TreeGame(tree(spec), "A", players=3)


def test_maxn_three_player_textbook_vector():
    game = aima_three_player_tree()
    result = run(game, "maxn")
    assert result.value == (1, 2, 6)
    assert len(result.evaluated) == 8
    # B's vector (1, 2, 6) and C's (1, 5, 2) tie on A's entry: the first child wins
    assert maxn_decision(game, game.initial_state()) == "B"


def test_mcts_finds_the_forced_win_in_tictactoe():
    game = builtin("tictactoe", "oxo|...|..x")  # x at 7 forks: wins by force
    assert minimax_decision(game, game.initial_state()) == 7
    chosen = [mcts(game, game.initial_state(), 300, random.Random(seed)) for seed in range(20)]
    assert sum(move == 7 for move in chosen) >= 19


def test_mcts_trace_on_two_leaves():
    # 1: expand B (terminal, u = 1); 2: expand C (u = -1); 3: UCB picks B, its utility again.
    game = TreeGame(tree((MAX, [1, -1])), "A")
    result = run(game, "mcts", mcts=MctsSettings(iterations=3, seed=0))
    assert (result.value, result.generated, result.evaluated) == ("B", ["B", "C"], ["B", "C", "B"])
    minimizing = TreeGame(tree((MIN, [1, -1])), "A")  # MIN's reward is -u: C is preferred
    assert run(minimizing, "mcts", mcts=MctsSettings(iterations=3, seed=0)).value == "C"


# --- ties keep the first child ------------------------------------------------------------
@pytest.mark.parametrize("root, best", [(MAX, 3), (MIN, 3)])
def test_tied_children_decision_keeps_the_first(root, best):
    other = MIN if root == MAX else MAX
    spec = (root, [(other, [best, 5 if root == MAX else 1]), best, (other, [best, best])])
    game = TreeGame(tree(spec), "A")
    assert run(game, "minimax").value == best
    assert minimax_decision(game, game.initial_state()) == "B"
    for rule in RULES:
        assert alpha_beta_decision(game, game.initial_state(), strict=rule == "strict") == "B"
    assert expectimax_decision(game, game.initial_state()) == "B"


def test_tied_vectors_keep_the_first():
    game = TreeGame(tree((1, [(0, 4, 2), (9, 4, 0), (0, 1, 9)])), "A", players=3)
    assert run(game, "maxn").value == (0, 4, 2)
    assert maxn_decision(game, game.initial_state()) == "B"


# --- errors -------------------------------------------------------------------------------
def test_minimax_refuses_chance_nodes():
    with pytest.raises(ValueError, match="chance"):
        run(expectimax_example(), "minimax")
    with pytest.raises(ValueError, match="chance"):
        run(expectimax_example(), "alpha_beta")


def test_max_value_refuses_a_min_root():
    game = TreeGame(tree((MIN, [1, 2])), "A")
    with pytest.raises(ValueError, match="not MAX"):
        max_value(game, game.initial_state())


def test_maxn_refuses_numbers():
    with pytest.raises(TypeError, match="vector"):
        run(textbook_tree(), "maxn")


def test_star1_refuses_a_leaf_outside_the_bounds():
    game = TreeGame(tree((MAX, [1, 12])), "A", value_bounds=(0, 10))
    with pytest.raises(ValueError, match="value_bounds"):
        run(game, "expectimax")


def test_bad_rule_algorithm_and_iterations_are_refused():
    with pytest.raises(ValueError, match="pruning"):
        reference_functions("either")
    with pytest.raises(ValueError, match="algorithm"):
        decision(textbook_tree(), "mcts")
    game = textbook_tree()
    with pytest.raises(ValueError, match="iterations"):
        mcts(game, game.initial_state(), -1, random.Random(0))
    chance = expectimax_example()
    with pytest.raises(ValueError, match="chance"):
        mcts(chance, chance.initial_state(), 5, random.Random(0))


# --- properties on random trees -----------------------------------------------------------
@PROPERTY
@given(random_trees())
def test_alpha_beta_equals_minimax_and_prunes_a_subsequence(drawn):
    nodes, limit = drawn
    game = TreeGame(nodes, "A", depth_limit=limit)
    full = run(game, "minimax")
    inclusive, strict = (run(game, "alpha_beta", rule) for rule in RULES)
    for pruned in (inclusive, strict):
        assert pruned.value == full.value
        assert is_subsequence(pruned.generated, full.generated)
        assert is_subsequence(pruned.evaluated, full.evaluated)
    assert is_subsequence(inclusive.generated, strict.generated)
    assert is_subsequence(inclusive.evaluated, strict.evaluated)
    root = game.initial_state()
    best = minimax_decision(game, root)
    assert alpha_beta_decision(game, root) == best == alpha_beta_decision(game, root, strict=True)


@PROPERTY
@given(random_trees())
def test_maxn_on_zero_sum_vectors_equals_minimax(drawn):
    nodes, limit = drawn
    game = TreeGame(nodes, "A", depth_limit=limit)
    pairs = [
        replace(
            n,
            value=None if n.value is None else (n.value, -n.value),
            eval=None if n.eval is None else (n.eval, -n.eval),
        )
        for n in nodes
    ]
    vector_game = TreeGame(pairs, "A", depth_limit=limit)
    full, vector = run(game, "minimax"), run(vector_game, "maxn")
    assert vector.value == (full.value, -full.value)
    assert (vector.generated, vector.evaluated) == (full.generated, full.evaluated)
    assert maxn_decision(vector_game, vector_game.initial_state()) == minimax_decision(
        game, game.initial_state()
    )


@PROPERTY
@given(random_trees())
def test_expectimax_with_certain_chance_nodes_equals_minimax(drawn):
    nodes, limit = drawn
    game = TreeGame(nodes, "A", depth_limit=limit)
    # every edge P -> X becomes P -> X? -> X, X? a chance node with one outcome of probability 1
    with_chance = []
    for node in nodes:
        with_chance.append(replace(node, children=[(a, c + "?") for a, c in node.children]))
        with_chance += [Node(c + "?", CHANCE, [(c, c)], [1.0]) for _, c in node.children]
    doubled = TreeGame(with_chance, "A", depth_limit=None if limit is None else 2 * limit)
    full, chance = run(game, "minimax"), run(doubled, "expectimax")
    assert chance.value == full.value
    assert [i for i in chance.generated if not i.endswith("?")] == full.generated
    assert chance.evaluated == full.evaluated
    assert expectimax_decision(doubled, doubled.initial_state()) == minimax_decision(
        game, game.initial_state()
    )


@PROPERTY
@given(random_trees(kinds=(MAX, MIN, CHANCE), leaves=st.integers(-4, 4)), st.integers(0, 2))
def test_star1_equals_expectimax_and_never_generates_more(drawn, slack):
    nodes, limit = drawn
    values = [v for n in nodes for v in (n.value, n.eval) if v is not None]
    bounds = (min(values) - slack, max(values) + slack)
    plain = run(TreeGame(nodes, "A", depth_limit=limit), "expectimax")
    star1_game = TreeGame(nodes, "A", depth_limit=limit, value_bounds=bounds)
    star1 = run(star1_game, "expectimax")
    assert star1.value == pytest.approx(plain.value, abs=1e-9)
    assert is_subsequence(star1.generated, plain.generated)
    assert is_subsequence(star1.evaluated, plain.evaluated)
    plain_game = TreeGame(nodes, "A", depth_limit=limit)
    assert expectimax_decision(star1_game, star1_game.initial_state()) == expectimax_decision(
        plain_game, plain_game.initial_state()
    )


@st.composite
def multiplayer_trees(draw):
    players = draw(st.integers(2, 4))
    drawn = draw(random_trees(kinds=tuple(range(players)), leaves=vectors(players)))
    return players, drawn


@PROPERTY
@given(multiplayer_trees())
def test_shallow_pruning_equals_maxn_and_never_generates_more(drawn):
    players, (nodes, limit) = drawn
    plain_game = TreeGame(nodes, "A", players=players, depth_limit=limit)
    pruned_game = TreeGame(nodes, "A", players=players, depth_limit=limit, max_sum=6)
    plain, pruned = run(plain_game, "maxn"), run(pruned_game, "maxn")
    assert pruned.value == plain.value
    assert is_subsequence(pruned.generated, plain.generated)
    assert is_subsequence(pruned.evaluated, plain.evaluated)
    assert maxn_decision(pruned_game, pruned_game.initial_state()) == maxn_decision(
        plain_game, plain_game.initial_state()
    )


def walk(node):
    yield node
    for child in node.children:
        yield from walk(child)


@st.composite
def mcts_games(draw):
    players = draw(st.sampled_from([2, 3]))
    if players == 2:
        nodes, _ = draw(random_trees(cutoff=False, budget=40))
    else:
        nodes, _ = draw(random_trees(kinds=(0, 1, 2), leaves=vectors(3), cutoff=False, budget=40))
    return TreeGame(nodes, "A", players=players), draw(st.integers(0, 2**16))


@settings(PROPERTY, max_examples=max(PROPERTY.max_examples // 3, 1))
@given(mcts_games())
def test_mcts_tree_invariants_hold_after_every_iteration(drawn):
    game, seed = drawn
    root_state = game.initial_state()
    for iterations in range(1, 26):
        root = mcts_tree(game, root_state, iterations, random.Random(seed))
        assert root.n == iterations == sum(child.n for child in root.children)
        for node in walk(root):
            actions = list(game.actions(node.state))
            created = [child.action for child in node.children]
            assert created + node.untried == actions  # expansion in actions order
            if node.untried:  # not fully expanded: no child selected yet (each visited once)
                assert all(child.n == 1 for child in node.children)
            if node is not root:
                if node.terminal:
                    assert node.n >= 1 and not node.children
                else:  # its own expansion + simulation, plus every visit below it
                    assert node.n == 1 + sum(child.n for child in node.children)
    result = run(game, "mcts", mcts=MctsSettings(iterations=25, seed=seed))
    assert len(result.evaluated) == 25  # one utility call per iteration
    assert result == run(game, "mcts", mcts=MctsSettings(iterations=25, seed=seed))


# --- the student stubs and grader.answers.solve -----------------------------------------------------
def test_student_stubs_match_the_reference_signatures():
    import importlib.util

    path = Path(__file__).resolve().parent.parent / "student" / "search.py"
    spec = importlib.util.spec_from_file_location("student_search_stubs", path)
    search = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(search)

    def shape(function):
        return [
            (p.name, p.kind, p.default)
            for p in inspect.signature(function).parameters.values()
            if p.kind is not p.KEYWORD_ONLY
        ]

    for name in ("max_value", "min_value", "alpha_beta", "expectimax", "maxn", "mcts"):
        stub = getattr(search, name)
        assert shape(stub) == shape(reference_functions()[name])
        with pytest.raises(NotImplementedError, match=f"{name} is not implemented yet"):
            stub(*([None] * (4 if name == "mcts" else 2)))


def fake_case(game_factory, pruning=None, mcts_settings=None):
    return SimpleNamespace(
        name="fake", build_game=game_factory, pruning=pruning, mcts=mcts_settings
    )


def test_solve_fills_action_and_resolves_either_to_inclusive():
    from grader.answers.solve import optimal_actions, solve

    # C1 ties B's value: inclusive prunes C2 there, strict searches it
    spec = (MAX, [(MIN, [3, 4]), (MIN, [3, 4])])
    case = fake_case(lambda: TreeGame(tree(spec), "A"), pruning="either")
    either = solve(case, "alpha_beta")
    assert (either.value, either.action, either.evaluated) == (3, "B", ["B1", "B2", "C1"])
    assert solve(case, "alpha_beta", pruning="strict").evaluated == ["B1", "B2", "C1", "C2"]
    assert optimal_actions(case) == ["B", "C"]
    mcts_case = fake_case(
        lambda: TreeGame(tree((MAX, [1, -1])), "A"),
        mcts_settings=SimpleNamespace(iterations=3, seed=5, c=math.sqrt(2)),
    )
    result = solve(mcts_case, "mcts", seed=1)
    assert result.value == result.action == "B"


def test_solve_main_prints_json_with_vectors_as_lists(capsys):
    import io
    import json

    from grader.commands.solve import solve_main

    root = Path(__file__).resolve().parent.parent / "trees" / "public"
    case = root / "aima-fig-5-4-three-player.json"
    if not case.exists():
        pytest.skip("the public three-player case is not there yet")
    out = io.StringIO()
    assert solve_main(case, "maxn", as_json=True, out=out) == 0
    answer = json.loads(out.getvalue())
    assert (answer["value"], answer["action"]) == ([1, 2, 6], "B")
    assert set(answer) == {"value", "action", "generated", "evaluated"}
    text = io.StringIO()
    assert solve_main(case, "maxn", out=text) == 0
    assert "value:     (1, 2, 6)" in text.getvalue()
    assert solve_main(root / "no-such-case.json", "maxn") == 2
    assert "no-such-case" in capsys.readouterr().err
