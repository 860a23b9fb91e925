# quiescence whose horizon test reads the limit as plies counted from the root:
# `depth >= game.quiescence_limit`, forgetting the `game.depth_limit +` of step 2.
import math

from grader.games import MAX


def _quiet_value(game, state, alpha, beta, depth):
    stand = game.evaluate(state)
    if game.is_terminal(state) or game.is_quiet(state) or depth >= game.quiescence_limit:
        return stand
    v = stand
    if game.to_move(state) == MAX:
        if v >= beta:
            return v
        alpha = max(alpha, v)
        for action in game.noisy_actions(state):
            v = max(v, _quiet_value(game, game.result(state, action), alpha, beta, depth + 1))
            if v >= beta:
                return v
            alpha = max(alpha, v)
    else:
        if v <= alpha:
            return v
        beta = min(beta, v)
        for action in game.noisy_actions(state):
            v = min(v, _quiet_value(game, game.result(state, action), alpha, beta, depth + 1))
            if v <= alpha:
                return v
            beta = min(beta, v)
    return v


def quiescence(game, state, alpha=-math.inf, beta=math.inf, depth=0):
    if game.is_cutoff(state, depth):
        return _quiet_value(game, state, alpha, beta, depth)
    maximizing = game.to_move(state) == MAX
    v = -math.inf if maximizing else math.inf
    for action in game.actions(state):
        child = quiescence(game, game.result(state, action), alpha, beta, depth + 1)
        if maximizing:
            v = max(v, child)
            if v >= beta:
                return v
            alpha = max(alpha, v)
        else:
            v = min(v, child)
            if v <= alpha:
                return v
            beta = min(beta, v)
    return v
