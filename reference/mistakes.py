"""Known mistakes: small variants of the reference, each with the hint a student can act on.

Staff-only, like the rest of ``reference/``. The feedback (:mod:`grader.diagnosis`) runs every
variant of an algorithm on a failing case, in the grader's process; when a variant's value and
``generated`` equal the student's, its hint is shown. A hint says what the code does, which
line of the lecture pseudo-code it departs from (in words), and what to change.

Adding a mistake is one decorated function, with the signature of the stub it replaces
(``alpha_beta`` variants also take ``strict``, the course's rule; a ``minimax`` variant
replaces both ``max_value`` and ``min_value`` and dispatches on the player itself)::

    @mistake("never_prunes", "alpha_beta", title="never prunes",
             does="...", departs="...", fix="...")
    def _never_prunes(game, state, alpha=-math.inf, beta=math.inf, depth=0, *, strict=False):
        return _ab(game, state, alpha, beta, depth, strict, cut=False)

``rules`` limits a variant to the courses whose rule makes it a mistake (pruning on strict
inequality is the right answer where the course teaches it). Variants that share a core
(``_mm``, ``_ab``, ``_mcts_variant``, ...) switch one mistake on with a flag, so each
registration stays a few lines.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from grader.games.base import CHANCE, MAX, MIN
from reference import alpha_beta_decision, minimax_decision, reference_functions
from reference.mcts import Node, _reward

RULES = ("inclusive", "strict")
STUBS = {"minimax": ("max_value", "min_value"), "alpha_beta": ("alpha_beta",),
         "expectimax": ("expectimax",), "maxn": ("maxn",), "mcts": ("mcts",)}
FIG_5_7 = "AIMA Fig. 5.7"


@dataclass(frozen=True)
class Mistake:
    """One known mistake of one algorithm: its variant function and its hint."""

    name: str  # snake_case, unique per algorithm
    algorithm: str
    title: str  # a few words: "prunes only on strict inequality"
    does: str  # what code with this mistake does
    departs: str  # the line of the lecture pseudo-code it departs from
    fix: str  # what to change
    function: Callable[..., Any]
    rules: tuple[str, ...] = RULES

    def functions(self, rule: str) -> dict[str, Callable[..., Any]]:
        """The reference's function table with this variant in place of the algorithm's stubs."""
        table = reference_functions(rule)
        function = self.function
        if self.algorithm == "alpha_beta":
            function = functools.partial(function, strict=rule == "strict")
        for stub in STUBS[self.algorithm]:
            table[stub] = function
        return table


CATALOGUE: list[Mistake] = []


def mistake(name: str, algorithm: str, *, title: str, does: str, departs: str, fix: str,
            rules: tuple[str, ...] = RULES) -> Callable[[Callable], Callable]:
    """Register the decorated function as the variant ``name`` of ``algorithm``."""
    if algorithm not in STUBS:
        raise ValueError(f"expected an algorithm, one of {tuple(STUBS)}, got: {algorithm!r}")
    if any(m.name == name and m.algorithm == algorithm for m in CATALOGUE):
        raise ValueError(f"mistake {name!r} of {algorithm!r} is registered twice")

    def register(function: Callable) -> Callable:
        CATALOGUE.append(Mistake(name, algorithm, title, does, departs, fix, function, rules))
        return function

    return register


def mistakes_for(algorithm: str, rule: str) -> list[Mistake]:
    """The catalogue's mistakes of ``algorithm`` under the course rule ``rule``, in order."""
    return [m for m in CATALOGUE if m.algorithm == algorithm and rule in m.rules]


# --- minimax ---------------------------------------------------------------------------------


def _mm(game: Any, state: Any, depth: int, *, late_cutoff: bool = False, eager: bool = False,
        twice: bool = False) -> float:
    """Minimax with one of its known mistakes switched on."""
    cut = game.is_cutoff(state, depth)
    if late_cutoff:
        cut = game.is_terminal(state) or (game.depth_limit is not None and depth > game.depth_limit)
    if cut:
        return game.evaluate(state)
    pick = max if game.to_move(state) == MAX else min
    flags = {"late_cutoff": late_cutoff, "eager": eager, "twice": twice}
    if eager:
        children = [game.result(state, a) for a in game.actions(state)]
    elif twice:
        children = ((game.result(state, a), game.result(state, a))[1] for a in game.actions(state))
    else:
        children = (game.result(state, a) for a in game.actions(state))
    return pick(_mm(game, child, depth + 1, **flags) for child in children)


@mistake(
    "depth_off_by_one", "minimax", title="stops one ply too late",
    does="your cutoff test lets the search go one level below the depth limit: it searches the "
         "children of the depth-limit nodes instead of evaluating those nodes",
    departs="`if CUTOFF-TEST(state, depth) then return EVAL(state)` (AIMA Sec. 5.4, H-MINIMAX): "
            "the test is `depth == depth_limit` with the root at depth 0 and `depth + 1` passed "
            "to each child",
    fix="test `game.is_cutoff(state, depth)` at the top of every function, and pass `depth + 1`",
)
def _late_cutoff(game: Any, state: Any, depth: int = 0) -> float:
    return _mm(game, state, depth, late_cutoff=True)


@mistake(
    "eager_generation", "minimax", title="generates all children first",
    does="your code calls `game.result` for every child of a node before searching the first "
         "one, so the generated order is breadth-first within each node",
    departs="`for each a in ACTIONS(state) do v <- MAX(v, MIN-VALUE(RESULT(state, a)))` (AIMA "
            "Fig. 5.3): each child is made right before it is searched",
    fix="call `game.result(state, action)` inside the loop, right where you search the child",
)
def _mm_eager(game: Any, state: Any, depth: int = 0) -> float:
    return _mm(game, state, depth, eager=True)


@mistake(
    "recomputes_child", "minimax", title="makes each child twice",
    does="your code calls `game.result(state, action)` twice for the same child (for example "
         "once to ask who moves there and once to search it); every call generates a node",
    departs="`v <- MAX(v, MIN-VALUE(RESULT(state, a)))` (AIMA Fig. 5.3) calls RESULT once per "
            "child",
    fix="store the child once (`child = game.result(state, action)`) and use that variable",
)
def _mm_twice(game: Any, state: Any, depth: int = 0) -> float:
    return _mm(game, state, depth, twice=True)


@mistake(
    "returns_action", "minimax", title="returns the action, not the value",
    does="your function returns the best action at the root instead of the minimax value",
    departs="MAX-VALUE / MIN-VALUE return the utility `v` (AIMA Fig. 5.3); only "
            "MINIMAX-SEARCH returns a move, and the grader calls the value functions",
    fix="return `v` at every depth; keep the best move in a separate function if you need it",
)
def _mm_action(game: Any, state: Any, depth: int = 0) -> Any:
    return minimax_decision(game, state)


# --- alpha-beta ------------------------------------------------------------------------------


def _ab(game: Any, state: Any, alpha: float, beta: float, depth: int, strict: bool, *,
        cut: bool = True, window: bool = True, raise_alpha: bool = True, lower_beta: bool = True,
        eager: bool = False) -> float:
    """Alpha-beta (AIMA Fig. 5.7) with one of its known mistakes switched on."""
    if game.is_cutoff(state, depth):
        return game.evaluate(state)
    flags = {"cut": cut, "window": window, "raise_alpha": raise_alpha, "lower_beta": lower_beta,
             "eager": eager}
    is_max = game.to_move(state) == MAX
    if not is_max and game.to_move(state) != MIN:
        raise ValueError(f"alpha_beta variant: player {game.to_move(state)!r} at {state}")
    children = ([game.result(state, a) for a in game.actions(state)] if eager
                else (game.result(state, a) for a in game.actions(state)))
    v = -math.inf if is_max else math.inf
    for child in children:
        low, high = (alpha, beta) if window else (-math.inf, math.inf)
        value = _ab(game, child, low, high, depth + 1, strict, **flags)
        if is_max:
            v = max(v, value)
            if cut and ((v > beta) if strict else (v >= beta)):
                return v
            alpha = max(alpha, v) if raise_alpha else alpha
        else:
            v = min(v, value)
            if cut and ((v < alpha) if strict else (v <= alpha)):
                return v
            beta = min(beta, v) if lower_beta else beta
    return v


def _ab_variant(**flags: bool) -> Callable[..., float]:
    def variant(game: Any, state: Any, alpha: float = -math.inf, beta: float = math.inf,
                depth: int = 0, *, strict: bool = False) -> float:
        return _ab(game, state, alpha, beta, depth, strict, **flags)

    return variant


def _other_rule(**flags: bool) -> Callable[..., float]:
    """A variant that prunes by the rule the course does not teach."""

    def variant(game: Any, state: Any, alpha: float = -math.inf, beta: float = math.inf,
                depth: int = 0, *, strict: bool = False) -> float:
        return _ab(game, state, alpha, beta, depth, not strict, **flags)

    return variant


mistake(
    "strict_pruning", "alpha_beta", title="prunes only on strict inequality",
    does="your search cuts only when `v > beta` (MAX) or `v < alpha` (MIN), so when a child's "
         "value equals the bound it still searches the remaining siblings",
    departs=f"`if v >= beta then return v` in MAX-VALUE and `if v <= alpha then return v` in "
            f"MIN-VALUE ({FIG_5_7}): this course prunes on equality",
    fix="use `>=` in the MAX test and `<=` in the MIN test",
    rules=("inclusive",),
)(_other_rule())

mistake(
    "inclusive_pruning", "alpha_beta", title="prunes on equality",
    does="your search cuts when `v >= beta` (MAX) or `v <= alpha` (MIN), so it prunes siblings "
         "of a child whose value only equals the bound",
    departs="this course prunes only on strict inequality: `if v > beta then return v` in "
            "MAX-VALUE and `if v < alpha then return v` in MIN-VALUE",
    fix="use `>` in the MAX test and `<` in the MIN test",
    rules=("strict",),
)(_other_rule())

mistake(
    "never_prunes", "alpha_beta", title="never prunes",
    does="your search keeps alpha and beta but never stops early: every child is searched, so "
         "nodes the reference prunes appear in your `generated`",
    departs=f"`if v >= beta then return v` in MAX-VALUE and `if v <= alpha then return v` in "
            f"MIN-VALUE ({FIG_5_7}): the early return is the pruning",
    fix="right after updating `v` in the loop, return `v` when it reaches the bound (MAX: "
        "`v >= beta`, MIN: `v <= alpha`)",
)(_ab_variant(cut=False))

mistake(
    "no_window_passing", "alpha_beta", title="does not pass alpha and beta down",
    does="your search calls the children with the full window (-inf, +inf) (or the defaults) "
         "instead of the node's current alpha and beta, so no child can ever cut",
    departs=f"`v <- MAX(v, MIN-VALUE(game, RESULT(state, a), alpha, beta))` ({FIG_5_7}): each "
            "child gets the window as it is at that moment",
    fix="pass the current `alpha, beta` in the recursive call: "
        "`alpha_beta(game, child, alpha, beta, depth + 1)`",
)(_ab_variant(window=False))

mistake(
    "eager_generation", "alpha_beta", title="generates all children first",
    does="your code calls `game.result` for all children of a node before searching them, so "
         "children that are later pruned are generated anyway",
    departs=f"`for each a in ACTIONS(state) do v <- MAX(v, MIN-VALUE(RESULT(state, a), ...))` "
            f"({FIG_5_7}): a child is made only when it is about to be searched",
    fix="call `game.result(state, action)` inside the loop, after the cut test of the previous "
        "child",
)(_ab_variant(eager=True))

mistake(
    "forgets_alpha_update", "alpha_beta", title="never raises alpha",
    does="your MAX nodes never raise alpha, so the MIN nodes below them never see a bound to "
         "cut against",
    departs=f"`alpha <- MAX(alpha, v)` in MAX-VALUE ({FIG_5_7}), after the cut test",
    fix="after the `v >= beta` test in the MAX branch, add `alpha = max(alpha, v)`",
)(_ab_variant(raise_alpha=False))

mistake(
    "forgets_beta_update", "alpha_beta", title="never lowers beta",
    does="your MIN nodes never lower beta, so the MAX nodes below them never see a bound to "
         "cut against",
    departs=f"`beta <- MIN(beta, v)` in MIN-VALUE ({FIG_5_7}), after the cut test",
    fix="after the `v <= alpha` test in the MIN branch, add `beta = min(beta, v)`",
)(_ab_variant(lower_beta=False))

@mistake(
    "returns_action", "alpha_beta", title="returns the action, not the value",
    does="your `alpha_beta` returns the best action at the root instead of the value",
    departs=f"MAX-VALUE / MIN-VALUE return `v` ({FIG_5_7}); only ALPHA-BETA-SEARCH returns a "
            "move, and the grader calls the value function",
    fix="return `v` at every depth, the root included",
)
def _ab_action(game: Any, state: Any, alpha: float = -math.inf, beta: float = math.inf,
               depth: int = 0, *, strict: bool = False) -> Any:
    return alpha_beta_decision(game, state, strict=strict)


# --- expectimax ------------------------------------------------------------------------------


def _chance_variant(combine: Callable[[list[float], list[float]], float]) -> Callable[..., float]:
    """Plain expectimax whose chance nodes combine (values, probabilities) with ``combine``."""

    def search(game: Any, state: Any, depth: int = 0) -> float:
        if game.is_cutoff(state, depth):
            return game.evaluate(state)
        player = game.to_move(state)
        if player == CHANCE:
            outcomes = game.chance_outcomes(state)
            values = [search(game, game.result(state, a), depth + 1) for a, _ in outcomes]
            return combine(values, [p for _, p in outcomes])
        values = [search(game, game.result(state, a), depth + 1) for a in game.actions(state)]
        return max(values) if player == MAX else min(values)

    return search


mistake(
    "chance_as_min", "expectimax", title="treats chance nodes as MIN",
    does="your chance nodes take the smallest child value, as if the opponent chose the "
         "outcome",
    departs="the CHANCE line of EXPECTIMINIMAX (AIMA Sec. 5.5): "
            "`sum over r of P(r) * value(RESULT(state, r))`",
    fix="at a CHANCE node start at `v = 0` and add `p * value` for each "
        "`(action, p)` of `game.chance_outcomes(state)`",
)(_chance_variant(lambda values, ps: min(values)))

mistake(
    "chance_unweighted", "expectimax", title="averages chance outcomes without probabilities",
    does="your chance nodes take the plain average of the children, ignoring their "
         "probabilities (right only when all outcomes are equally likely)",
    departs="the CHANCE line of EXPECTIMINIMAX (AIMA Sec. 5.5): "
            "`sum over r of P(r) * value(RESULT(state, r))`",
    fix="weight each child by its probability: `v += p * value` for each `(action, p)` of "
        "`game.chance_outcomes(state)`",
)(_chance_variant(lambda values, ps: sum(v / len(values) for v in values)))


# --- max^n -----------------------------------------------------------------------------------


def _maxn_variant(chooser: Callable[[Any, Any], int], picker: Callable[[int], int] | None = None):
    """The reference max^n where the player whose entry counts is ``chooser(game, state)``;
    ``picker(p)`` (default: ``p``) is the entry compared when choosing the best child."""
    picker = picker or (lambda p: p)

    def search(game: Any, state: Any, depth: int = 0, parent: tuple | None = None) -> tuple:
        if game.is_cutoff(state, depth):
            return tuple(game.evaluate(state))
        p = chooser(game, state)
        limit = None
        if game.max_sum is not None and parent is not None and parent[0] != p:
            limit = game.max_sum - parent[1]
        best = None
        for action in game.actions(state):
            bound = None if best is None else (p, best[p])
            value = search(game, game.result(state, action), depth + 1, bound)
            if best is None or value[picker(p)] > best[picker(p)]:
                best = value
            if limit is not None and best[p] >= limit:
                return best
        return best

    return lambda game, state, depth=0: search(game, state, depth)


_MAXN_RULE = "the max^n rule (Luckhardt and Irani; the lecture's three-player tree, AIMA Fig. 5.4)"

mistake(
    "maxn_player0", "maxn", title="maximizes player 0's entry everywhere",
    does="at every node your code picks the child with the largest entry 0, whoever moves there",
    departs=f"{_MAXN_RULE}: the player to move picks the child whose vector has the largest "
            "entry for that player",
    fix="compare `value[p]` with `best[p]`, where `p = game.to_move(state)`",
)(_maxn_variant(lambda game, state: game.to_move(state), lambda p: 0))

mistake(
    "maxn_wrong_component", "maxn", title="uses another player's entry",
    does="your code compares the entry of the player who moved into the node "
         "(`(p - 1) % players`) instead of the entry of the player to move",
    departs=f"{_MAXN_RULE}: each player maximizes its own entry",
    fix="use `p = game.to_move(state)` itself as the index into the vectors",
)(_maxn_variant(lambda game, state: (game.to_move(state) - 1) % game.players))

mistake(
    "maxn_next_component", "maxn", title="uses the next player's entry",
    does="your code compares the entry of the player who moves after the mover "
         "(`(p + 1) % players`) instead of the entry of the player to move",
    departs=f"{_MAXN_RULE}: each player maximizes its own entry",
    fix="use `p = game.to_move(state)` itself as the index into the vectors",
)(_maxn_variant(lambda game, state: (game.to_move(state) + 1) % game.players))


# --- MCTS ------------------------------------------------------------------------------------


def _mcts_variant(*, log: Callable[[float], float] = math.log, by_mean: bool = False,
                  max_reward: bool = False, expand_all: bool = False,
                  from_parent: bool = False) -> Callable[..., Any]:
    """The reference UCT (:mod:`reference.mcts`) with one of its known mistakes switched on."""

    def ucb(node: Node, c: float) -> float:
        if node.n == 0:  # only ever reached when every child is made at once
            return math.inf
        return node.w / node.n + c * math.sqrt(log(node.parent.n) / node.n)

    def search(game: Any, state: Any, iterations: int, rng: Any, c: float = math.sqrt(2)) -> Any:
        root = Node(game, state)
        if root.terminal:
            return None
        for _ in range(iterations):
            node = root
            while not node.terminal and not node.untried:  # 1. selection
                best = node.children[0]
                for child in node.children[1:]:
                    if ucb(child, c) > ucb(best, c):
                        best = child
                node = best
            if not node.terminal and expand_all:
                for action in node.untried:
                    node.children.append(Node(game, game.result(node.state, action), action, node))
                node.untried = []
                node = node.children[0]
            elif not node.terminal:
                action = node.untried.pop(0)
                node.children.append(Node(game, game.result(node.state, action), action, node))
                node = node.children[-1]
            s = node.parent.state if from_parent else node.state
            while not game.is_terminal(s):  # 3. simulation
                s = game.result(s, rng.choice(list(game.actions(s))))
            u = game.utility(s)
            while node is not None:  # 4. backpropagation
                node.n += 1
                if node.parent is not None:
                    node.w += _reward(u, MAX if max_reward else node.player)
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
    "mcts_by_mean", "mcts", title="answers by mean reward instead of visits",
    does="your MCTS returns the root child with the best average reward `w/n`",
    departs=f"the last line of {_MCTS}: `return the move whose node has the highest number of "
            "playouts` (the most visits, ties: the first)",
    fix="return the action of the root child with the largest `n`",
)(_mcts_variant(by_mean=True))

mistake(
    "mcts_max_reward", "mcts", title="backs up MAX's reward at every node",
    does="your backpropagation adds MAX's reward (entry 0) to `w` at every node, so MIN's "
         "nodes are chosen as if MIN wanted MAX to win",
    departs=f"BACK-PROPAGATE in {_MCTS} and step 4 of the `mcts` docstring: each node gets the "
            "reward of the player who moved INTO it (the player to move at its parent)",
    fix="add `u` when the parent's mover is MAX, `-u` when it is MIN (entry `p` of a vector)",
)(_mcts_variant(max_reward=True))

mistake(
    "ucb_log10", "mcts", title="UCB1 with log10",
    does="your UCB1 uses `math.log10`, so the exploration term is smaller than it should be",
    departs="the UCB1 formula `w/n + c * sqrt(ln(N) / n)` (AIMA Sec. 5.4; step 1 of the `mcts` "
            "docstring): the logarithm is the natural one",
    fix="use `math.log(N)` (natural log)",
)(_mcts_variant(log=math.log10))

mistake(
    "mcts_expand_all", "mcts", title="expands all children at once",
    does="your expansion creates every child of the node (one `game.result` call each) in a "
         "single iteration",
    departs=f"EXPAND in {_MCTS} and step 2 of the `mcts` docstring: one iteration adds ONE "
            "child, for the first untried action",
    fix="pop only the first untried action, create that one child, and simulate from it",
)(_mcts_variant(expand_all=True))

mistake(
    "simulate_from_parent", "mcts", title="simulates from the parent",
    does="your playout starts from the selected node (the new child's parent), not from the "
         "child you just expanded",
    departs=f"`result <- SIMULATE(child)` in {_MCTS} (step 3 of the `mcts` docstring): the "
            "playout starts at the new child",
    fix="after the expansion, start the playout from the new child's state",
)(_mcts_variant(from_parent=True))


# --- not a mistake: the reference's alpha-beta, instrumented -------------------------------


class _Enough(Exception):
    pass


def alpha_beta_moments(game: Any, strict: bool, until: int | None = None) -> list[list[Any]]:
    """Replay the reference's alpha-beta (AIMA Fig. 5.7, the given rule) on the untraced
    ``game``, recording the window at each generation and each cut, as plain lists
    ``[kind, step, node, is_max, alpha, beta, v, children]`` (``kind`` "generate": children is
    [the child]; "cut": the children pruned; ``step``: nodes generated before it). Stops once
    more than ``until`` nodes are generated. Here, not in ``grader/``, because it is a whole
    alpha-beta: the feedback's window at the first difference (:mod:`grader.drawing`) reads it
    through the answer key, so the handout never ships it."""
    moments: list[list[Any]] = []
    made = 0

    def search(state: Any, alpha: float, beta: float, depth: int) -> float:
        nonlocal made
        if game.is_cutoff(state, depth):
            return game.evaluate(state)
        is_max = game.to_move(state) == MAX
        v = -math.inf if is_max else math.inf
        actions = list(game.actions(state))
        node = game.state_id(state)
        for index, action in enumerate(actions):
            child = game.result(state, action)
            moments.append(["generate", made, node, is_max, alpha, beta, v,
                            [game.state_id(child)]])
            made += 1
            if until is not None and made > until + 1:
                raise _Enough
            value = search(child, alpha, beta, depth + 1)
            v = max(v, value) if is_max else min(v, value)
            bound = beta if is_max else alpha
            cut = (v > bound if strict else v >= bound) if is_max else (
                v < bound if strict else v <= bound)
            if cut:
                rest = [game.state_id(game.result(state, a)) for a in actions[index + 1:]]
                if rest:
                    moments.append(["cut", made, node, is_max, alpha, beta, v, rest])
                return v
            alpha, beta = (max(alpha, v), beta) if is_max else (alpha, min(beta, v))
        return v

    try:
        search(game.initial_state(), -math.inf, math.inf, 0)
    except _Enough:
        pass
    return moments


__all__ = ["CATALOGUE", "Mistake", "alpha_beta_moments", "mistake", "mistakes_for"]
