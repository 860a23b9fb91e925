# quiescence that evaluates the cutoff state in the main function ("at a cutoff ... return
# game.evaluate(state)", from alpha_beta) and only then calls the helper, which evaluates it
# again in step 1.
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
        value = game.evaluate(state)
        if game.is_terminal(state) or game.is_quiet(state):
            return value
        return _quiesce(game, state, alpha, beta, depth)
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
