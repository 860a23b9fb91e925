# alpha_beta_tt that narrows a copy of the window with a bound entry, only to test whether it
# closes, then searches the children (and classifies) with the window it was called with.
import math

from grader.games import MAX


def alpha_beta_tt(game, state, table, alpha=-math.inf, beta=math.inf, depth=0):
    key = game.key(state)
    needed = math.inf if game.depth_limit is None else game.depth_limit - depth
    entry = table.get(key)
    if entry is not None and entry[2] >= needed:
        value, bound, _ = entry
        if bound == "exact":
            return value
        lo, hi = alpha, beta
        if bound == "lower":
            lo = max(lo, value)
        else:
            hi = min(hi, value)
        if lo >= hi:
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
    bound = "upper" if v <= a else "lower" if v >= b else "exact"
    table[key] = (v, bound, needed)
    return v
