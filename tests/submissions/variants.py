"""Known-wrong submissions: the correct solution with one realistic mistake each.

One source of truth, ``correct/search.py``; each :class:`Variant` is a list of exact text
replacements on it (each ``old`` must occur exactly once when it is applied, so an edit of the
correct solution that breaks a variant fails loudly, naming it). The worker copies only
``search.py`` into its scratch folder, so a variant is written out as a whole file.

    from variants import VARIANTS, materialize        # loaded by path: tests/ is no package
    materialize("strict_pruning", tmp_path / "strict")  # -> tmp_path/strict/search.py

    python tests/submissions/variants.py OUT_DIR       # every variant as OUT_DIR/<name>/search.py

``algorithms`` names the case algorithms whose functions the mistake touches: every other
test of a variant must get full marks. The table in README.md beside this file says the same.
"""

from __future__ import annotations

import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORRECT = HERE / "correct" / "search.py"
CORRECT_NAME = "correct"


class VariantError(ValueError):
    """A replacement does not apply: its text is not in the correct solution exactly once."""


@dataclass(frozen=True)
class Variant:
    name: str
    mistake: str  # one sentence, as the README table gives it
    functions: tuple[str, ...]  # the stub functions whose behaviour changes
    algorithms: tuple[str, ...]  # the case algorithms those functions serve
    replacements: tuple[tuple[str, str], ...]  # (old, new), applied in order


def _lines(indent: int, text: str) -> str:
    """``text`` (a triple-quoted block) dedented, then indented by ``indent`` spaces."""
    lines = textwrap.dedent(text).strip("\n").splitlines()
    return "".join(" " * indent + line + "\n" if line else "\n" for line in lines)


def _swap(indent: int, old: str, new: str) -> tuple[str, str]:
    """A replacement of whole lines, both blocks indented by ``indent`` spaces."""
    return _lines(indent, old), _lines(indent, new)


# alpha_beta's MAX loop (indented 12) and MIN loop (indented 8): the call and the cut.
AB_MAX = "v = max(v, alpha_beta(game, child, alpha, beta, depth + 1))\n"
AB_MIN = "v = min(v, alpha_beta(game, child, alpha, beta, depth + 1))\n"
AB_MAX_CUT = AB_MAX + "if v >= beta:\n    return v\n"
AB_MIN_CUT = AB_MIN + "if v <= alpha:\n    return v\n"
NO_WINDOW = ("alpha, beta, depth", "-math.inf, math.inf, depth")
CHANCE_SUM = """
    v = 0
    for action, p in game.chance_outcomes(state):
        v += p * expectimax(game, game.result(state, action), depth + 1)
    """

_VARIANTS = [
    Variant(
        "strict_pruning",
        "alpha-beta prunes only on strict inequality (`v > beta` / `v < alpha`, CS188's rule) "
        "instead of `>=` / `<=`",
        ("alpha_beta",), ("alpha_beta", "iterative_deepening"),
        (_swap(12, AB_MAX_CUT, AB_MAX_CUT.replace(">=", ">")),
         _swap(8, AB_MIN_CUT, AB_MIN_CUT.replace("<=", "<"))),
    ),
    Variant(
        "never_prunes",
        "alpha-beta keeps alpha and beta up to date but has no cut: every child is searched",
        ("alpha_beta",), ("alpha_beta", "iterative_deepening"),
        (_swap(12, AB_MAX_CUT, AB_MAX), _swap(8, AB_MIN_CUT, AB_MIN)),
    ),
    Variant(
        "no_window_passing",
        "alpha-beta searches every child with the full window (-inf, inf) instead of passing "
        "its alpha and beta down; then no node can cut, so it searches what never_prunes does",
        ("alpha_beta",), ("alpha_beta", "iterative_deepening"),
        (_swap(12, AB_MAX, AB_MAX.replace(*NO_WINDOW)),
         _swap(8, AB_MIN, AB_MIN.replace(*NO_WINDOW))),
    ),
    Variant(
        "eager_generation",
        "alpha-beta generates all children with game.result first, then searches and prunes "
        "them",
        ("alpha_beta",), ("alpha_beta", "iterative_deepening"),
        tuple(_swap(indent, f"""
            v = {start}
            for action in game.actions(state):
                child = game.result(state, action)
            """, f"""
            v = {start}
            for child in [game.result(state, a) for a in game.actions(state)]:
            """) for indent, start in ((8, "-math.inf"), (4, "math.inf"))),
    ),
    Variant(
        "forgets_alpha_update",
        "alpha-beta's MAX nodes never raise alpha (MIN nodes still lower beta), so MIN nodes "
        "below never cut",
        ("alpha_beta",), ("alpha_beta", "iterative_deepening"),
        (_swap(12, AB_MAX_CUT + "alpha = max(alpha, v)\n", AB_MAX_CUT),),
    ),
    Variant(
        "depth_off_by_one",
        "minimax writes its own cutoff test, `depth > depth_limit`, so it stops one ply too "
        "late (evaluating the depth-limit nodes' children instead of them)",
        ("max_value", "min_value"), ("minimax",),
        tuple(_swap(0, f"""
            def {name}(game, state, depth=0):
                if game.is_cutoff(state, depth):
            """, f"""
            def {name}(game, state, depth=0):
                if game.is_terminal(state) or (game.depth_limit and depth > game.depth_limit):
            """) for name in ("max_value", "min_value")),
    ),
    Variant(
        "chance_as_min",
        "expectimax takes the minimum over a chance node's children, as if chance were MIN "
        "(plain expectimax; Star1 cases keep the right chance nodes)",
        ("expectimax",), ("expectimax",),
        (_swap(8, CHANCE_SUM, """
            v = math.inf
            for action, p in game.chance_outcomes(state):
                v = min(v, expectimax(game, game.result(state, action), depth + 1))
            """),),
    ),
    Variant(
        "chance_unweighted",
        "expectimax averages a chance node's children without their probabilities (plain "
        "expectimax; Star1 cases unaffected)",
        ("expectimax",), ("expectimax",),
        (_swap(8, CHANCE_SUM, """
            outcomes = game.chance_outcomes(state)
            v = 0
            for action, p in outcomes:
                v += expectimax(game, game.result(state, action), depth + 1) / len(outcomes)
            """),),
    ),
    Variant(
        "maxn_player0",
        "max^n maximizes player 0's entry at every node, whoever moves there",
        ("maxn",), ("maxn",),
        (("value[p] > best[p]", "value[0] > best[0]"),),
    ),
    Variant(
        "maxn_wrong_component",
        "max^n maximizes the entry of the player who moved INTO the node (the previous player, "
        "`(mover - 1) % players`) instead of the mover's own",
        ("maxn",), ("maxn",),
        (("    p = game.to_move(state)\n", "    p = (game.to_move(state) - 1) % game.players\n"),),
    ),
    Variant(
        "returns_action",
        "minimax and alpha-beta return the best action at the root (depth 0) instead of the "
        "value",
        ("max_value", "min_value", "alpha_beta"), ("minimax", "alpha_beta"),
        tuple(_swap(4, f"""
            v = {start}
            for action in game.actions(state):
                v = {sign}(v, _value(game, game.result(state, action), depth + 1))
            return v
            """, f"""
            v, best = {start}, None
            for action in game.actions(state):
                value = _value(game, game.result(state, action), depth + 1)
                if value {op} v:
                    v, best = value, action
            return best if depth == 0 else v
            """) for start, sign, op in (("-math.inf", "max", ">"), ("math.inf", "min", "<")))
        + tuple(_swap(indent, f"""
            v = {start}
            for action in game.actions(state):
                child = game.result(state, action)
                v = {sign}(v, alpha_beta(game, child, alpha, beta, depth + 1))
            """, f"""
            v, best = {start}, None
            for action in game.actions(state):
                child = game.result(state, action)
                value = alpha_beta(game, child, alpha, beta, depth + 1)
                if best is None or value {op} v:
                    v, best = value, action
            """) for indent, start, sign, op in ((8, "-math.inf", "max", ">"),
                                                 (4, "math.inf", "min", "<")))
        + (("return v\n    v, best = math.inf, None",
            "return best if depth == 0 else v\n    v, best = math.inf, None"),
           ("return v\n\n\ndef expectimax",
            "return best if depth == 0 else v\n\n\ndef expectimax")),
    ),
    Variant(
        "recomputes_child",
        "minimax calls game.result twice for each child: once to ask who moves there, once to "
        "search it",
        ("max_value", "min_value"), ("minimax",),
        tuple(_swap(8, f"""
            v = {sign}(v, _value(game, game.result(state, action), depth + 1))
            """, f"""
            if game.to_move(game.result(state, action)) == MAX:
                v = {sign}(v, max_value(game, game.result(state, action), depth + 1))
            else:
                v = {sign}(v, min_value(game, game.result(state, action), depth + 1))
            """) for sign in ("max", "min")),
    ),
    Variant(
        "mcts_by_mean",
        "MCTS answers the root child with the best mean reward w/n instead of the most visits",
        ("mcts",), ("mcts",),
        (("child.n > best.n", "child.w / child.n > best.w / best.n"),),
    ),
    Variant(
        "mcts_max_reward",
        "MCTS backs up MAX's reward (player 0's entry) at every node, whoever moved into it",
        ("mcts",), ("mcts",),
        (("_reward(u, node.mover)", "_reward(u, MAX)"),),
    ),
    Variant(
        "ucb_log10",
        "MCTS's UCB1 uses math.log10 instead of the natural log",
        ("mcts",), ("mcts",),
        (("math.log(node.parent.n)", "math.log10(node.parent.n)"),),
    ),
    Variant(
        "mcts_expand_all",
        "MCTS expands every child of a node at once (then plays out from the first; unvisited "
        "children have UCB1 = inf)",
        ("mcts",), ("mcts",),
        (_swap(0, "def _ucb(node, c):", """
            def _ucb(node, c):
                if node.n == 0:
                    return math.inf
            """),
         _swap(12, """
            action = node.untried.pop(0)
            child = _Node(game, game.result(node.state, action), node, action)
            node.children.append(child)
            node = child
            """, """
            for action in node.untried:
                node.children.append(_Node(game, game.result(node.state, action), node, action))
            node.untried = []
            node = node.children[0]
            """)),
    ),
    Variant(
        "simulate_from_parent",
        "MCTS plays out from the selected node (the new child's parent) instead of from the "
        "newly expanded child",
        ("mcts",), ("mcts",),
        (("        s = node.state\n", "        s = node.parent.state\n"),),
    ),
]

# iterative_deepening's root ordering (indented 8) and its per-iteration start (indented 8).
ID_SIGN = "sign = -1 if player == MAX else 1\n"
ID_SORT = "order = sorted(actions, key=lambda a: (a not in values, sign * values.get(a, 0)))\n"
ID_RESET = """
        alpha, beta = -math.inf, math.inf
        v = -math.inf if player == MAX else math.inf
        best, values = None, {}
"""

_VARIANTS += [
    Variant(
        "no_ordering",
        "iterative deepening searches the root's children in `game.actions` order in every "
        "iteration (no reordering)",
        ("iterative_deepening",), ("iterative_deepening",),
        (("        " + ID_SORT, "        order = actions\n"),),
    ),
    Variant(
        "worst_first",
        "iterative deepening sorts the root's children worst first for the mover (lowest first "
        "at a MAX root)",
        ("iterative_deepening",), ("iterative_deepening",),
        (("        " + ID_SIGN, "        sign = 1 if player == MAX else -1\n"),),
    ),
    Variant(
        "descending_at_min",
        "iterative deepening sorts the root's children highest first whoever moves (a sign "
        "error at a MIN root)",
        ("iterative_deepening",), ("iterative_deepening",),
        (("        " + ID_SIGN, "        sign = -1\n"),),
    ),
    Variant(
        "ties_in_previous_order",
        "iterative deepening sorts the previous iteration's order, so equal values keep that "
        "order instead of `game.actions` order",
        ("iterative_deepening",), ("iterative_deepening",),
        (("order = sorted(actions, key", "order = sorted(order, key"),),
    ),
    Variant(
        "window_not_reset",
        "iterative deepening sets alpha and beta once, before the loop over depths, so each "
        "iteration starts with the window the previous one ended with",
        ("iterative_deepening",), ("iterative_deepening",),
        (("        alpha, beta = -math.inf, math.inf\n", ""),
         ("    for limit in range(1, max_depth + 1):\n",
          "    alpha, beta = -math.inf, math.inf\n    for limit in range(1, max_depth + 1):\n")),
    ),
    Variant(
        "best_not_reset",
        "iterative deepening sets `v` and the best action once, before the loop over depths, "
        "so each iteration starts from the previous one's best",
        ("iterative_deepening",), ("iterative_deepening",),
        ((ID_RESET.lstrip("\n"),
          "        alpha, beta = -math.inf, math.inf\n        values = {}\n"),
         ("    for limit in range(1, max_depth + 1):\n",
          "    v = -math.inf if player == MAX else math.inf\n    best = None\n"
          "    for limit in range(1, max_depth + 1):\n")),
    ),
    Variant(
        "only_max_depth",
        "iterative deepening runs one iteration, at `max_depth`, instead of one at each depth "
        "1 .. `max_depth`",
        ("iterative_deepening",), ("iterative_deepening",),
        (("range(1, max_depth + 1)", "range(max_depth, max_depth + 1)"),),
    ),
    Variant(
        "orders_every_node",
        "iterative deepening sorts the children of every node by the previous iteration's "
        "values (kept by path from the root), not only the root's",
        ("iterative_deepening",), ("iterative_deepening",),
        (("child_value = alpha_beta(g, g.result(state, action), alpha, beta, 1)",
          "child_value = _ordered_ab(g, g.result(state, action), alpha, beta, 1, (action,),\n"
          "                                     previous, current)"),
         _swap(4, """
            for limit in range(1, max_depth + 1):
                g = game.with_depth_limit(limit)
            """, """
            previous = {}
            for limit in range(1, max_depth + 1):
                current = {}
                g = game.with_depth_limit(limit)
            """),
         ("        " + ID_SORT, "        " + ID_SORT + "        previous = current\n"),
         ("    return v, best\n", "    return v, best\n\n\n" + _lines(0, """
            def _ordered_ab(game, state, alpha, beta, depth, path, previous, current):
                if game.is_cutoff(state, depth):
                    current[path] = game.evaluate(state)
                    return current[path]
                player = game.to_move(state)
                actions = list(game.actions(state))
                known = {a: previous[path + (a,)] for a in actions if path + (a,) in previous}
                sign = -1 if player == MAX else 1
                order = sorted(actions, key=lambda a: (a not in known, sign * known.get(a, 0)))
                v = -math.inf if player == MAX else math.inf
                for action in order:
                    value = _ordered_ab(game, game.result(state, action), alpha, beta, depth + 1,
                                        path + (action,), previous, current)
                    if player == MAX:
                        v = max(v, value)
                        if v >= beta:
                            break
                        alpha = max(alpha, v)
                    else:
                        v = min(v, value)
                        if v <= alpha:
                            break
                        beta = min(beta, v)
                current[path] = v
                return v
            """))),
    ),
]

# evaluate (graded by play): tests/test_play.py grades these, not the trace tests.
EVALUATE_END = """
    for row in board:
        for c in {columns // 2, (columns - 1) // 2}:
            if row[c] == "x":
                score += 0.5
            elif row[c] == "o":
                score -= 0.5
    return score
"""
_PLAY_VARIANTS = [
    Variant(
        "evaluate_constant", "evaluate returns 0 for every position: the search still takes a "
        "win and blocks a loss it sees, and otherwise plays the first move",
        ("evaluate",), ("evaluate",),
        (_swap(4, EVALUATE_END, EVALUATE_END.replace("return score", "return 0")),),
    ),
    Variant(
        "evaluate_ignores_opponent", "evaluate counts only x's windows (and centre marks): o's "
        "threats never lower the value",
        ("evaluate",), ("evaluate",),
        (_swap(20, """
            elif o and not x:
                score -= 4.0 ** (o - 1)
        """, ""), _swap(12, """
            elif row[c] == "o":
                score -= 0.5
        """, "")),
    ),
    Variant(
        "evaluate_mover_view", "evaluate gives the value for the player to move (negamax's "
        "convention) instead of for MAX: a sign error whenever o is to move",
        ("evaluate",), ("evaluate",),
        (_swap(4, EVALUATE_END, EVALUATE_END.replace(
            "return score", "return score if game.to_move(state) == MAX else -score")),),
    ),
]

# alpha_beta_tt and quiescence: tests/test_transposition.py and tests/test_quiescence.py grade
# these on those algorithms' cases only (the other algorithms' functions are the correct ones).
TT_CALL = """alpha_beta_tt(game, game.result(state, action), table, alpha, beta,
                                     depth + 1))"""
TT_CUT = "            {test}:\n                break\n"
_SEARCH_VARIANTS = [
    Variant(
        "tt_bound_as_exact", "alpha_beta_tt stores every value as `\"exact\"`, also the "
        "bound a cut or a fail-low gives", ("alpha_beta_tt",), ("alpha_beta_tt",),
        (('    bound = "upper" if v <= a else "lower" if v >= b else "exact"\n',
          '    bound = "exact"\n'),),
    ),
    Variant(
        "tt_shallower_entry", "alpha_beta_tt uses a table entry whatever depth it was searched "
        "to", ("alpha_beta_tt",), ("alpha_beta_tt",),
        (("    if entry is not None and entry[2] >= needed:\n", "    if entry is not None:\n"),),
    ),
    Variant(
        "tt_keyed_on_path", "alpha_beta_tt keys its table on the path of actions from the root, "
        "so transposed states never share an entry", ("alpha_beta_tt",), ("alpha_beta_tt",),
        ((("def alpha_beta_tt(game, state, table, alpha=-math.inf, beta=math.inf, depth=0):\n"
           "    key = game.key(state)\n"),
          ("def alpha_beta_tt(game, state, table, alpha=-math.inf, beta=math.inf, depth=0,\n"
           "                  path=()):\n    key = path\n")),
         ("v = max(v, " + TT_CALL, "v = max(v, " + TT_CALL[:-2] + ", path + (action,)))"),
         ("v = min(v, " + TT_CALL, "v = min(v, " + TT_CALL[:-2] + ", path + (action,)))")),
    ),
    Variant(
        "tt_no_store_at_cut", "alpha_beta_tt returns at a cut without storing the state",
        ("alpha_beta_tt",), ("alpha_beta_tt",),
        (("depth + 1))\n" + TT_CUT.format(test="if v >= beta"),
          "depth + 1))\n" + TT_CUT.format(test="if v >= beta").replace("break", "return v")),
         ("depth + 1))\n" + TT_CUT.format(test="if v <= alpha"),
          "depth + 1))\n" + TT_CUT.format(test="if v <= alpha").replace("break", "return v"))),
    ),
    Variant(
        "q_no_quiescence", "quiescence returns `game.evaluate(state)` at the cutoff, as plain "
        "depth-limited alpha-beta", ("quiescence",), ("quiescence",),
        (("        return _quiesce(game, state, alpha, beta, depth)\n",
          "        return game.evaluate(state)\n"),),
    ),
    Variant(
        "q_no_stand_pat", "quiescence starts past the cutoff from -infinity (MAX) / +infinity "
        "(MIN) instead of the stand-pat evaluation", ("quiescence",), ("quiescence",),
        (("    v = stand\n", "    v = -math.inf if game.to_move(state) == MAX else math.inf\n"),),
    ),
    Variant(
        "q_all_moves", "quiescence follows every action past the cutoff, not only the noisy ones, "
        "and goes on at quiet states", ("quiescence",), ("quiescence",),
        (("    if (game.is_terminal(state) or game.is_quiet(state)\n",
          "    if (game.is_terminal(state)\n"),
         ("        alpha = max(alpha, v)\n        for action in game.noisy_actions(state):\n",
          "        alpha = max(alpha, v)\n        for action in game.actions(state):\n"),
         ("        beta = min(beta, v)\n        for action in game.noisy_actions(state):\n",
          "        beta = min(beta, v)\n        for action in game.actions(state):\n")),
    ),
    Variant(
        "q_no_limit", "quiescence ignores `game.quiescence_limit`: noisy moves are followed until "
        "the position is quiet", ("quiescence",), ("quiescence",),
        ((("    if (game.is_terminal(state) or game.is_quiet(state)\n"
           "            or depth >= game.depth_limit + game.quiescence_limit):\n"),
          "    if game.is_terminal(state) or game.is_quiet(state):\n"),),
    ),
]

# Graded by tests/test_assumptions.py on the assumptions cases only: the agent's moves come from
# the search's values, so a mistake there must change a value (pruning mistakes do not).
_ASSUMPTION_VARIANTS = [
    Variant(
        "alpha_beta_depth_off_by_one",
        "alpha-beta writes its own cutoff test, `depth > depth_limit`, so it searches one ply "
        "too deep (evaluating the depth-limit nodes' children instead of them)",
        ("alpha_beta",), ("alpha_beta",),
        (_swap(0, """
            def alpha_beta(game, state, alpha=-math.inf, beta=math.inf, depth=0):
                if game.is_cutoff(state, depth):
            """, """
            def alpha_beta(game, state, alpha=-math.inf, beta=math.inf, depth=0):
                if game.is_terminal(state) or (game.depth_limit and depth > game.depth_limit):
            """),),
    ),
]

VARIANTS: dict[str, Variant] = {variant.name: variant for variant in _VARIANTS}  # by trace
SEARCH_VARIANTS: dict[str, Variant] = {variant.name: variant for variant in _SEARCH_VARIANTS}
PLAY_VARIANTS: dict[str, Variant] = {variant.name: variant for variant in _PLAY_VARIANTS}
ASSUMPTION_VARIANTS: dict[str, Variant] = {variant.name: variant
                                           for variant in _ASSUMPTION_VARIANTS}
ALL: dict[str, Variant] = {**VARIANTS, **PLAY_VARIANTS, **SEARCH_VARIANTS,
                           **ASSUMPTION_VARIANTS}


def source(name: str) -> str:
    """The text of submission ``name``'s search.py (a variant's name, or ``"correct"``)."""
    text = CORRECT.read_text(encoding="utf-8")
    if name == CORRECT_NAME:
        return text
    if name not in ALL:
        raise KeyError(f"expected a variant name (one of {', '.join(ALL)}) or "
                       f"{CORRECT_NAME!r}, got: {name!r}")
    for index, (old, new) in enumerate(ALL[name].replacements):
        count = text.count(old)
        if count != 1:
            raise VariantError(f"variant {name!r}, replacement {index}: expected its text once "
                               f"in {CORRECT}, found it {count} times: {old!r}")
        text = text.replace(old, new)
    return text


def materialize(name: str, directory: str | Path) -> Path:
    """Write submission ``name`` as ``directory/search.py`` (folders made); return that path."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "search.py"
    path.write_text(source(name), encoding="utf-8")
    return path


def materialize_all(out_dir: str | Path) -> dict[str, Path]:
    """Write every variant as ``out_dir/<name>/search.py``; name -> path."""
    return {name: materialize(name, Path(out_dir) / name) for name in ALL}


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python tests/submissions/variants.py OUT_DIR", file=sys.stderr)
        return 2
    for name, path in materialize_all(argv[0]).items():
        print(f"{name}: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
