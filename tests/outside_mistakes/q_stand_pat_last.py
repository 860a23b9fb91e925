# quiescence that searches the noisy moves first and lets the mover stand pat at the end
# ("the player to move may decline every noisy move": take the better of stand and the best
# noisy move), with no cut or window change from `stand` before the loop.
import math

from grader.games import MAX


def _quiesce(game, state, alpha, beta, depth):
    stand = game.evaluate(state)
    if (game.is_terminal(state) or game.is_quiet(state)
            or depth >= game.depth_limit + game.quiescence_limit):
        return stand
    if game.to_move(state) == MAX:
        v = -math.inf
        for action in game.noisy_actions(state):
            v = max(v, _quiesce(game, game.result(state, action), alpha, beta, depth + 1))
            if v >= beta:
                break
            alpha = max(alpha, v)
        return max(v, stand)
    v = math.inf
    for action in game.noisy_actions(state):
        v = min(v, _quiesce(game, game.result(state, action), alpha, beta, depth + 1))
        if v <= alpha:
            break
        beta = min(beta, v)
    return min(v, stand)


def quiescence(game, state, alpha=-math.inf, beta=math.inf, depth=0):
    if game.is_cutoff(state, depth):
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
