# quiescence whose helper counts its own plies from 0 at the cutoff ("called with the same
# alpha, beta and depth" read as: depth starts again), so step 2's horizon,
# `depth >= game.depth_limit + game.quiescence_limit`, is reached depth_limit plies too late.
import math

from grader.games import MAX


def _qsearch(game, state, alpha, beta, qdepth):
    stand = game.evaluate(state)
    if (game.is_terminal(state) or game.is_quiet(state)
            or qdepth >= game.depth_limit + game.quiescence_limit):
        return stand
    v = stand
    if game.to_move(state) == MAX:
        if v >= beta:
            return v
        alpha = max(alpha, v)
        for action in game.noisy_actions(state):
            v = max(v, _qsearch(game, game.result(state, action), alpha, beta, qdepth + 1))
            if v >= beta:
                return v
            alpha = max(alpha, v)
    else:
        if v <= alpha:
            return v
        beta = min(beta, v)
        for action in game.noisy_actions(state):
            v = min(v, _qsearch(game, game.result(state, action), alpha, beta, qdepth + 1))
            if v <= alpha:
                return v
            beta = min(beta, v)
    return v


def quiescence(game, state, alpha=-math.inf, beta=math.inf, depth=0):
    if game.is_cutoff(state, depth):
        return _qsearch(game, state, alpha, beta, 0)
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
