"""Known mistakes of expectimax, max^n and MCTS: variants of the reference, each with its hint.

Registered in the catalogue (:mod:`reference.mistake_registry`) on import; see
:mod:`reference.mistakes` for how to add one. Variants that share a core
(``_chance_variant``, ``_maxn_variant``, ``_mcts_variant``) switch one mistake on with an
argument, so each registration stays a few lines.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from grader.algorithms.expectimax import ALGORITHM as EXPECTIMAX
from grader.algorithms.maxn import ALGORITHM as MAXN
from grader.algorithms.mcts import ALGORITHM as MCTS
from grader.games.base import CHANCE, MAX
from reference.expectimax import expectimax as reference_expectimax
from reference.mcts import Node, reward_for
from reference.mistake_registry import mistake

# --- expectimax ------------------------------------------------------------------------------


def _chance_variant(combine: Callable[[list[float], list[float]], float]) -> Callable[..., float]:
    """Plain expectimax whose chance nodes combine (values, probabilities) with ``combine``."""

    def search(game: Any, state: Any, depth: int = 0) -> float:
        if game.value_bounds is not None:  # the mistake is in plain expectimax's chance nodes
            return reference_expectimax(game, state, depth)
        return plain(game, state, depth)

    def plain(game: Any, state: Any, depth: int) -> float:
        if game.is_cutoff(state, depth):
            return game.evaluate(state)
        player = game.to_move(state)
        if player == CHANCE:
            outcomes = game.chance_outcomes(state)
            values = [plain(game, game.result(state, a), depth + 1) for a, _ in outcomes]
            return combine(values, [p for _, p in outcomes])
        values = [plain(game, game.result(state, a), depth + 1) for a in game.actions(state)]
        return max(values) if player == MAX else min(values)

    return search


mistake(
    "chance_as_min", EXPECTIMAX.name, title="treats chance nodes as MIN",
    does="your chance nodes take the smallest child value, as if the opponent chose the "
         "outcome",
    departs="the CHANCE line of EXPECTIMINIMAX (AIMA Sec. 5.5): "
            "`sum over r of P(r) * value(RESULT(state, r))`",
    fix="at a CHANCE node start at `v = 0` and add `p * value` for each "
        "`(action, p)` of `game.chance_outcomes(state)`",
)(_chance_variant(lambda values, ps: min(values)))

mistake(
    "chance_unweighted", EXPECTIMAX.name, title="averages chance outcomes without probabilities",
    does="your chance nodes take the plain average of the children, ignoring their "
         "probabilities (right only when all outcomes are equally likely)",
    departs="the CHANCE line of EXPECTIMINIMAX (AIMA Sec. 5.5): "
            "`sum over r of P(r) * value(RESULT(state, r))`",
    fix="weight each child by its probability: `v += p * value` for each `(action, p)` of "
        "`game.chance_outcomes(state)`",
)(_chance_variant(lambda values, ps: sum(v / len(values) for v in values)))


mistake(
    "chance_as_max", EXPECTIMAX.name, title="treats chance nodes as MAX",
    does="your chance nodes take the largest child value, as if MAX chose the outcome",
    departs="the CHANCE line of EXPECTIMINIMAX (AIMA Sec. 5.5): "
            "`sum over r of P(r) * value(RESULT(state, r))`",
    fix="at a CHANCE node start at `v = 0` and add `p * value` for each "
        "`(action, p)` of `game.chance_outcomes(state)`",
)(_chance_variant(lambda values, ps: max(values)))

_STAR1 = "Star1 at a chance node (the `expectimax` docstring; Ballard 1983)"


@mistake(
    "ignores_bounds", EXPECTIMAX.name, title="ignores the value bounds (no Star1)",
    does="your search never uses `game.value_bounds`: every chance node searches all its "
         "children, so where the reference prunes with Star1 you generate more",
    departs=f"{_STAR1}: when `game.value_bounds` is `(L, U)`, MAX/MIN nodes pass an alpha-beta "
            "window down and a chance node stops once `S + U*R <= alpha` or `S + L*R >= beta`",
    fix="when `game.value_bounds` is set, search with a window `(alpha, beta)` and apply the "
        "two Star1 tests after each chance child but the last",
)
def _ignores_bounds(game: Any, state: Any, depth: int = 0) -> float:
    return reference_expectimax(game, state, depth, star1=False)


def _star1_variant(*, r_late: bool = False, swap_bounds: bool = False) -> Callable[..., float]:
    """The reference Star1 (:mod:`reference.expectimax`) with one mistake switched on."""

    def star1(game: Any, state: Any, alpha: float, beta: float, depth: int) -> float:
        if game.is_cutoff(state, depth):
            return game.evaluate(state)
        player = game.to_move(state)
        if player == CHANCE:
            low, high = game.value_bounds
            if swap_bounds:
                low, high = high, low
            outcomes = game.chance_outcomes(state)
            s, r = 0, 1
            for i, (action, p) in enumerate(outcomes):
                s += p * star1(game, game.result(state, action), -math.inf, math.inf, depth + 1)
                r -= 0 if r_late else p
                if i == len(outcomes) - 1:
                    break
                if s + high * r <= alpha:
                    return s + high * r
                if s + low * r >= beta:
                    return s + low * r
                r -= p if r_late else 0
            return s
        v = -math.inf if player == MAX else math.inf
        for action in game.actions(state):
            value = star1(game, game.result(state, action), alpha, beta, depth + 1)
            if player == MAX:
                v = max(v, value)
                if v >= beta:
                    return v
                alpha = max(alpha, v)
            else:
                v = min(v, value)
                if v <= alpha:
                    return v
                beta = min(beta, v)
        return v

    def search(game: Any, state: Any, depth: int = 0) -> float:
        if game.value_bounds is None:
            return reference_expectimax(game, state, depth)
        return star1(game, state, -math.inf, math.inf, depth)

    return search


mistake(
    "star1_r_after_test", EXPECTIMAX.name, title="lowers R after the Star1 test",
    does="your chance node subtracts the child's probability from R only after testing the "
         "bounds, so each test counts that child twice (once in S, once in R) and cuts later",
    departs=f"{_STAR1}: after each child `S += p * value` and `R -= p`, then the tests "
            "`S + U*R <= alpha` and `S + L*R >= beta`",
    fix="do `r -= p` right after `s += p * value`, before the two tests",
)(_star1_variant(r_late=True))

mistake(
    "star1_bounds_swapped", EXPECTIMAX.name, title="swaps L and U in the Star1 tests",
    does="your chance node tests `S + L*R <= alpha` and `S + U*R >= beta`: the lower bound "
         "where the upper belongs and back, so it cuts where the reference goes on",
    departs=f"{_STAR1}: the node's value is at most `S + U*R` (cut when that is `<= alpha`) "
            "and at least `S + L*R` (cut when that is `>= beta`)",
    fix="with `low, high = game.value_bounds`, test `s + high * r <= alpha` and "
        "`s + low * r >= beta`",
)(_star1_variant(swap_bounds=True))


# --- max^n -----------------------------------------------------------------------------------


def _maxn_variant(chooser: Callable[[Any, Any], int], picker: Callable[[int], int] | None = None,
                  *, ties_last: bool = False, same_mover: bool = False,
                  first_child: bool = False, strict: bool = False):
    """The reference max^n where the player whose entry counts is ``chooser(game, state)``;
    ``picker(p)`` (default: ``p``) is the entry compared when choosing the best child."""
    picker = picker or (lambda p: p)

    def search(game: Any, state: Any, depth: int = 0, parent: tuple | None = None) -> tuple:
        if game.is_cutoff(state, depth):
            return tuple(game.evaluate(state))
        p = chooser(game, state)
        limit = None
        if game.max_sum is not None and parent is not None and (same_mover or parent[0] != p):
            limit = game.max_sum - parent[1]
        best = None
        for action in game.actions(state):
            bound = None if best is None else (p, best[p])
            if first_child and best is None:
                bound = (p, 0)  # the parent's best "so far" taken as 0 before it has one
            value = search(game, game.result(state, action), depth + 1, bound)
            if best is None or value[picker(p)] > best[picker(p)] or (
                    ties_last and value[picker(p)] == best[picker(p)]):
                best = value
            if limit is not None and (best[p] > limit if strict else best[p] >= limit):
                return best
        return best

    return lambda game, state, depth=0: search(game, state, depth)


_MAXN_RULE = "the max^n rule (Luckhardt and Irani; the lecture's three-player tree, AIMA Fig. 5.4)"

mistake(
    "maxn_player0", MAXN.name, title="maximizes player 0's entry everywhere",
    does="at every node your code picks the child with the largest entry 0, whoever moves there",
    departs=f"{_MAXN_RULE}: the player to move picks the child whose vector has the largest "
            "entry for that player",
    fix="compare `value[p]` with `best[p]`, where `p = game.to_move(state)`",
)(_maxn_variant(lambda game, state: game.to_move(state), lambda p: 0))

mistake(
    "maxn_wrong_component", MAXN.name, title="uses another player's entry",
    does="your code compares the entry of the player who moved into the node "
         "(`(p - 1) % players`) instead of the entry of the player to move",
    departs=f"{_MAXN_RULE}: each player maximizes its own entry",
    fix="use `p = game.to_move(state)` itself as the index into the vectors",
)(_maxn_variant(lambda game, state: (game.to_move(state) - 1) % game.players))

mistake(
    "maxn_next_component", MAXN.name, title="uses the next player's entry",
    does="your code compares the entry of the player who moves after the mover "
         "(`(p + 1) % players`) instead of the entry of the player to move",
    departs=f"{_MAXN_RULE}: each player maximizes its own entry",
    fix="use `p = game.to_move(state)` itself as the index into the vectors",
)(_maxn_variant(lambda game, state: (game.to_move(state) + 1) % game.players))


mistake(
    "maxn_ties_last", MAXN.name, title="breaks ties for the last child",
    does="your code replaces the best child when a later one is only as good (`>=`), so on a "
         "tie it keeps the last child's vector, not the first",
    departs=f"{_MAXN_RULE} with the course's tie rule (the `maxn` docstring): ties keep the "
            "first child; a later child must be strictly better",
    fix="replace `best` only when `value[p] > best[p]`",
)(_maxn_variant(lambda game, state: game.to_move(state), ties_last=True))

mistake(
    "maxn_prunes_same_mover", MAXN.name, title="prunes below a parent with the same mover",
    does="your shallow pruning also cuts at a node whose mover is the parent's mover, where "
         "`max_sum - parent's best` is no bound at all (the parent wants that same entry to grow)",
    departs="Korf's shallow pruning (the `maxn` docstring): a node whose mover `p` differs "
            "from its parent's mover `q` stops once `best[p] >= max_sum - parent_best[q]`; no "
            "bound when `p == q`",
    fix="compute the bound only when the parent's mover differs from `game.to_move(state)`",
)(_maxn_variant(lambda game, state: game.to_move(state), same_mover=True))

mistake(
    "maxn_prunes_first_child", MAXN.name, title="prunes below a parent's first child",
    does="your shallow pruning bounds the parent's first child too, taking the parent's best "
         "so far as 0 before it has one, so that child stops once its mover's entry reaches "
         "`max_sum`",
    departs="Korf's shallow pruning (the `maxn` docstring): no bound exists while the parent "
            "has no best yet (its first child)",
    fix="pass no bound to a node's first child: compute `max_sum - parent_best[q]` only once "
        "the parent has a best vector",
)(_maxn_variant(lambda game, state: game.to_move(state), first_child=True))


mistake(
    "maxn_prunes_strictly", MAXN.name, title="prunes only past the shallow-pruning bound",
    does="your shallow pruning stops a node only when `best[p] > max_sum - parent_best[q]`, so "
         "a node whose mover's entry meets the bound with equality goes on searching",
    departs="Korf's shallow pruning (the `maxn` docstring): stop as soon as `best[p] >= "
            "max_sum - parent_best[q]` (the parent can then never prefer this node)",
    fix="compare with `>=`: `if best[p] >= game.max_sum - parent_best: return best`",
)(_maxn_variant(lambda game, state: game.to_move(state), strict=True))


# --- MCTS ------------------------------------------------------------------------------------


def _mcts_variant(*, log: Callable[[float], float] = math.log, by_mean: bool = False,
                  max_reward: bool = False, expand_all: bool = False,
                  from_parent: bool = False, expand_last: bool = False,
                  reward_to_move: bool = False, ties_last: bool = False,
                  ucb_sign: int = 1, credit_opponent: bool = False,
                  min_gets_max_sign: bool = False) -> Callable[..., Any]:
    """The reference UCT (:mod:`reference.mcts`) with one of its known mistakes switched on."""

    def ucb(node: Node, c: float) -> float:
        if node.n == 0:  # only ever reached when every child is made at once
            return math.inf
        return node.w / node.n + ucb_sign * c * math.sqrt(log(node.parent.n) / node.n)

    def search(game: Any, state: Any, iterations: int, rng: Any, c: float = math.sqrt(2)) -> Any:
        root = Node(game, state)
        if root.terminal:
            return None
        for _ in range(iterations):
            node = root
            while not node.terminal and not node.untried:  # 1. selection
                best = node.children[0]
                for child in node.children[1:]:
                    if ucb(child, c) > ucb(best, c) or (
                            ties_last and ucb(child, c) == ucb(best, c)):
                        best = child
                node = best
            if not node.terminal and expand_all:
                for action in node.untried:
                    node.children.append(Node(game, game.result(node.state, action), action, node))
                node.untried = []
                node = node.children[0]
            elif not node.terminal:
                action = node.untried.pop(-1 if expand_last else 0)
                node.children.append(Node(game, game.result(node.state, action), action, node))
                node = node.children[-1]
            s = node.parent.state if from_parent else node.state
            while not game.is_terminal(s):  # 3. simulation
                s = game.result(s, rng.choice(list(game.actions(s))))
            u = game.utility(s)
            while node is not None:  # 4. backpropagation
                node.n += 1
                if node.parent is not None:
                    player = MAX if max_reward else node.player
                    if min_gets_max_sign and game.players == 2:
                        player = MAX
                    player = game.to_move(node.state) if reward_to_move else player
                    node.w += -reward_for(u, player) if credit_opponent else reward_for(u, player)
                node = node.parent
        score = (lambda n: n.w / n.n) if by_mean else (lambda n: n.n)
        best = None
        for child in root.children:
            if best is None or score(child) > score(best):
                best = child
        return None if best is None else best.action

    return search


_MCTS = "MONTE-CARLO-TREE-SEARCH (AIMA Fig. 5.11)"

mistake(
    "mcts_by_mean", MCTS.name, title="answers by mean reward instead of visits",
    does="your MCTS returns the root child with the best average reward `w/n`",
    departs=f"the last line of {_MCTS}: `return the move whose node has the highest number of "
            "playouts` (the most visits, ties: the first)",
    fix="return the action of the root child with the largest `n`",
)(_mcts_variant(by_mean=True))

mistake(
    "mcts_max_reward", MCTS.name, title="backs up MAX's reward at every node",
    does="your backpropagation adds MAX's reward (entry 0) to `w` at every node, so MIN's "
         "nodes are chosen as if MIN wanted MAX to win",
    departs=f"BACK-PROPAGATE in {_MCTS} and step 4 of the `mcts` docstring: each node gets the "
            "reward of the player who moved INTO it (the player to move at its parent)",
    fix="add `u` when the parent's mover is MAX, `-u` when it is MIN (entry `p` of a vector)",
)(_mcts_variant(max_reward=True))

mistake(
    "ucb_log10", MCTS.name, title="UCB1 with log10",
    does="your UCB1 uses `math.log10`, so the exploration term is smaller than it should be",
    departs="the UCB1 formula `w/n + c * sqrt(ln(N) / n)` (AIMA Sec. 5.4; step 1 of the `mcts` "
            "docstring): the logarithm is the natural one",
    fix="use `math.log(N)` (natural log)",
)(_mcts_variant(log=math.log10))

mistake(
    "mcts_expand_all", MCTS.name, title="expands all children at once",
    does="your expansion creates every child of the node (one `game.result` call each) in a "
         "single iteration",
    departs=f"EXPAND in {_MCTS} and step 2 of the `mcts` docstring: one iteration adds ONE "
            "child, for the first untried action",
    fix="pop only the first untried action, create that one child, and simulate from it",
)(_mcts_variant(expand_all=True))

mistake(
    "simulate_from_parent", MCTS.name, title="simulates from the parent",
    does="your playout starts from the selected node (the new child's parent), not from the "
         "child you just expanded",
    departs=f"`result <- SIMULATE(child)` in {_MCTS} (step 3 of the `mcts` docstring): the "
            "playout starts at the new child",
    fix="after the expansion, start the playout from the new child's state",
)(_mcts_variant(from_parent=True))

mistake(
    "mcts_expands_last", MCTS.name, title="expands the last untried action",
    does="your expansion takes the LAST untried action (`untried.pop()`), so children are "
         "created in reverse `game.actions` order",
    departs=f"EXPAND in {_MCTS} and step 2 of the `mcts` docstring: the child for the FIRST "
            "untried action, in `game.actions` order",
    fix="use `node.untried.pop(0)`",
)(_mcts_variant(expand_last=True))

mistake(
    "mcts_reward_to_move", MCTS.name, title="rewards the player to move at the node",
    does="your backpropagation adds to `w` the reward of the player to move AT the node, not of "
         "the player who moved INTO it, so each node is scored for the wrong side",
    departs=f"BACK-PROPAGATE in {_MCTS} and step 4 of the `mcts` docstring: each node gets the "
            "reward of the player to move at its PARENT",
    fix="store the parent's mover in each node when you create it and reward that player",
)(_mcts_variant(reward_to_move=True))

mistake(
    "ucb_log_n_plus_1", MCTS.name, title="UCB1 with log(N + 1)",
    does="your UCB1 takes `log(N + 1)` instead of `log(N)`, so the exploration term is "
         "slightly larger than it should be",
    departs="the UCB1 formula `w/n + c * sqrt(ln(N) / n)` (AIMA Sec. 5.4; step 1 of the `mcts` "
            "docstring): `N` is the parent's visit count as it is before this iteration",
    fix="use `math.log(parent.n)`",
)(_mcts_variant(log=lambda n: math.log(n + 1)))

mistake(
    "ucb_log2", MCTS.name, title="UCB1 with log2",
    does="your UCB1 uses `math.log2`, so the exploration term is larger than it should be",
    departs="the UCB1 formula `w/n + c * sqrt(ln(N) / n)` (AIMA Sec. 5.4; step 1 of the `mcts` "
            "docstring): the logarithm is the natural one",
    fix="use `math.log(N)` (natural log)",
)(_mcts_variant(log=math.log2))

mistake(
    "ucb_ties_last", MCTS.name, title="UCB1 ties go to the last child",
    does="your selection moves to a later child whose UCB1 only equals the best so far (`>=`), "
         "so ties go to the last child, not the first",
    departs="step 1 of the `mcts` docstring: ties go to the first child in creation order; a "
            "later child must have a strictly larger UCB1",
    fix="replace the best child only when `ucb(child) > ucb(best)`",
)(_mcts_variant(ties_last=True))

mistake(
    "ucb_minus_exploration", MCTS.name, title="UCB1 subtracts the exploration term",
    does="your UCB1 is `w/n - c * sqrt(ln(N) / n)`: the less a child was tried, the LESS it is "
         "chosen, so the search keeps going down the children it already knows",
    departs="the UCB1 formula `w/n + c * sqrt(ln(N) / n)` (AIMA Sec. 5.4; step 1 of the `mcts` "
            "docstring): the exploration term is added",
    fix="add the exploration term: `w/n + c * math.sqrt(math.log(N) / n)`",
)(_mcts_variant(ucb_sign=-1))

mistake(
    "mcts_credits_opponent", MCTS.name, title="credits the playout to the opponent",
    does="your backpropagation adds the NEGATED reward of the player who moved into the node "
         "(`w -= reward`), so every node counts its mover's wins as losses",
    departs=f"BACK-PROPAGATE in {_MCTS} and step 4 of the `mcts` docstring: each node gets the "
            "reward of the player who moved INTO it, with its own sign",
    fix="add `u` when the parent's mover is MAX, `-u` when it is MIN (entry `p` of a vector)",
)(_mcts_variant(credit_opponent=True))

mistake(
    "mcts_min_gets_max_sign", MCTS.name, title="credits MIN's nodes with MAX's sign",
    does="in a two-player game your backpropagation adds the utility `u` itself at every node, "
         "MIN's included, so a node MIN moved into counts MAX's wins as MIN's (vector "
         "rewards of more players are right)",
    departs=f"BACK-PROPAGATE in {_MCTS} and step 4 of the `mcts` docstring: a node MIN moved "
            "into gets `-u`",
    fix="add `u` when the parent's mover is MAX, `-u` when it is MIN",
)(_mcts_variant(min_gets_max_sign=True))
