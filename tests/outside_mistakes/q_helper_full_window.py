# quiescence that starts its helper at the cutoff with a fresh window (-inf, +inf) instead of
# the alpha and beta of the call ("called with the same alpha, beta and depth" read as the
# same defaults).
import math

from grader.games import MAX


def _quiesce(game, state, alpha, beta, depth):
    stand = game.evaluate(state)
    if (game.is_terminal(state) or game.is_quiet(state)
            or depth >= game.depth_limit + game.quiescence_limit):
        return stand
    v = stand
    if game.to_move(state) == MAX:
        if v >= beta:
            return v
        alpha = max(alpha, v)
        for action in game.noisy_actions(state):
            v = max(v, _quiesce(game, game.result(state, action), alpha, beta, depth + 1))
            if v >= beta:
                return v
            alpha = max(alpha, v)
    else:
        if v <= alpha:
            return v
        beta = min(beta, v)
        for action in game.noisy_actions(state):
            v = min(v, _quiesce(game, game.result(state, action), alpha, beta, depth + 1))
            if v <= alpha:
                return v
            beta = min(beta, v)
    return v


def quiescence(game, state, alpha=-math.inf, beta=math.inf, depth=0):
    if game.is_cutoff(state, depth):
        return _quiesce(game, state, -math.inf, math.inf, depth)
    if game.to_move(state) == MAX:
        v = -math.inf
        for action in game.actions(state):
            v = max(v, quiescence(game, game.result(state, action), alpha, beta, depth + 1))
            if v >= beta:
                return v
            alpha = max(alpha, v)
        return v
    v = math.inf
    for action in game.actions(state):
        v = min(v, quiescence(game, game.result(state, action), alpha, beta, depth + 1))
        if v <= alpha:
            return v
        beta = min(beta, v)
    return v
