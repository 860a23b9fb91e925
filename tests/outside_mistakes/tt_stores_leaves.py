# alpha_beta_tt that also stores what it evaluates at a cutoff, as an exact entry searched 0
# plies ("every state searched goes in the table"), before returning it.
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
        if bound == "lower":
            alpha = max(alpha, value)
        else:
            beta = min(beta, value)
        if alpha >= beta:
            return value
    if game.is_cutoff(state, depth):
        value = game.evaluate(state)
        table[key] = (value, "exact", needed)
        return value
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
