# alpha_beta_tt keyed on (game.key(state), depth): the docstring's key, with the depth added "to
# be safe" so entries of different depths never mix. Issue 41's first example.
import math

from grader.games import MAX


def alpha_beta_tt(game, state, table, alpha=-math.inf, beta=math.inf, depth=0):
    key = (game.key(state), depth)
    needed = math.inf if game.depth_limit is None else game.depth_limit - depth
    if key in table:
        value, bound, searched = table[key]
        if searched >= needed:
            if bound == "exact":
                return value
            if bound == "lower":
                alpha = max(alpha, value)
            elif bound == "upper":
                beta = min(beta, value)
            if alpha >= beta:
                return value
    if game.is_cutoff(state, depth):
        return game.evaluate(state)
    a, b = alpha, beta
    if game.to_move(state) == MAX:
        v = -math.inf
        for action in game.actions(state):
            v = max(v, alpha_beta_tt(game, game.result(state, action), table, alpha, beta,
                                     depth + 1))
            if v >= beta:
                break
            alpha = max(alpha, v)
    else:
        v = math.inf
        for action in game.actions(state):
            v = min(v, alpha_beta_tt(game, game.result(state, action), table, alpha, beta,
                                     depth + 1))
            if v <= alpha:
                break
            beta = min(beta, v)
    if v <= a:
        table[key] = (v, "upper", needed)
    elif v >= b:
        table[key] = (v, "lower", needed)
    else:
        table[key] = (v, "exact", needed)
    return v
