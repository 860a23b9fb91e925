# alpha_beta_tt that reads "lower" and "upper" entries as step 1 says but stores an entry only
# when the value is exact ("a bound is not the state's value, so why keep it"). Issue 41's
# second example.
import math

from grader.games import MAX


def alpha_beta_tt(game, state, table, alpha=-math.inf, beta=math.inf, depth=0):
    key = game.key(state)
    needed = game.depth_limit - depth if game.depth_limit is not None else math.inf
    entry = table.get(key)
    if entry is not None and entry[2] >= needed:
        if entry[1] == "exact":
            return entry[0]
        if entry[1] == "lower":
            alpha = max(alpha, entry[0])
        else:
            beta = min(beta, entry[0])
        if alpha >= beta:
            return entry[0]
    if game.is_cutoff(state, depth):
        return game.evaluate(state)
    a, b = alpha, beta
    maximizing = game.to_move(state) == MAX
    v = -math.inf if maximizing else math.inf
    for action in game.actions(state):
        child = alpha_beta_tt(game, game.result(state, action), table, alpha, beta, depth + 1)
        if maximizing:
            v = max(v, child)
            if v >= beta:
                break
            alpha = max(alpha, v)
        else:
            v = min(v, child)
            if v <= alpha:
                break
            beta = min(beta, v)
    if a < v < b:
        table[key] = (v, "exact", needed)
    return v
