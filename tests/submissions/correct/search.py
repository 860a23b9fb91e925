"""Adversarial search: a correct solution (the grader's known-good submission).

Written as a careful student would, from the stubs' docstrings alone. The known-wrong
submissions are derived from this file by tests/submissions/variants.py, through exact text
replacements: an edit here that breaks one of them fails loudly, naming the variant.
"""

import math

from grader.games import CHANCE, MAX, MIN  # noqa: F401  (the stubs' import, kept)


def _value(game, state, depth):
    """Minimax value of a child: the function for the player to move there."""
    if game.to_move(state) == MAX:
        return max_value(game, state, depth)
    return min_value(game, state, depth)


def max_value(game, state, depth=0):
    if game.is_cutoff(state, depth):
        return game.evaluate(state)
    v = -math.inf
    for action in game.actions(state):
        v = max(v, _value(game, game.result(state, action), depth + 1))
    return v


def min_value(game, state, depth=0):
    if game.is_cutoff(state, depth):
        return game.evaluate(state)
    v = math.inf
    for action in game.actions(state):
        v = min(v, _value(game, game.result(state, action), depth + 1))
    return v


def alpha_beta(game, state, alpha=-math.inf, beta=math.inf, depth=0):
    if game.is_cutoff(state, depth):
        return game.evaluate(state)
    if game.to_move(state) == MAX:
        v = -math.inf
        for action in game.actions(state):
            child = game.result(state, action)
            v = max(v, alpha_beta(game, child, alpha, beta, depth + 1))
            if v >= beta:
                return v
            alpha = max(alpha, v)
        return v
    v = math.inf
    for action in game.actions(state):
        child = game.result(state, action)
        v = min(v, alpha_beta(game, child, alpha, beta, depth + 1))
        if v <= alpha:
            return v
        beta = min(beta, v)
    return v


def expectimax(game, state, depth=0):
    if game.value_bounds is not None:
        return _star1(game, state, -math.inf, math.inf, depth)
    if game.is_cutoff(state, depth):
        return game.evaluate(state)
    player = game.to_move(state)
    if player == CHANCE:
        v = 0
        for action, p in game.chance_outcomes(state):
            v += p * expectimax(game, game.result(state, action), depth + 1)
        return v
    values = []
    for action in game.actions(state):
        values.append(expectimax(game, game.result(state, action), depth + 1))
    return max(values) if player == MAX else min(values)


def _star1(game, state, alpha, beta, depth):
    """Expectimax with alpha-beta at MAX/MIN nodes and Star1 cuts at chance nodes."""
    if game.is_cutoff(state, depth):
        return game.evaluate(state)
    player = game.to_move(state)
    if player == CHANCE:
        low, high = game.value_bounds
        outcomes = game.chance_outcomes(state)
        s, r = 0, 1
        for i, (action, p) in enumerate(outcomes):
            s += p * _star1(game, game.result(state, action), -math.inf, math.inf, depth + 1)
            r -= p
            if i == len(outcomes) - 1:
                break
            if s + high * r <= alpha:
                return s + high * r
            if s + low * r >= beta:
                return s + low * r
        return s
    if player == MAX:
        v = -math.inf
        for action in game.actions(state):
            v = max(v, _star1(game, game.result(state, action), alpha, beta, depth + 1))
            if v >= beta:
                return v
            alpha = max(alpha, v)
        return v
    v = math.inf
    for action in game.actions(state):
        v = min(v, _star1(game, game.result(state, action), alpha, beta, depth + 1))
        if v <= alpha:
            return v
        beta = min(beta, v)
    return v


def maxn(game, state, depth=0):
    return _maxn(game, state, depth, None)


def _maxn(game, state, depth, parent):
    """``parent`` is (the parent's mover q, the parent's best entry q so far), or None."""
    if game.is_cutoff(state, depth):
        return tuple(game.evaluate(state))
    p = game.to_move(state)
    limit = None
    if game.max_sum is not None and parent is not None and parent[0] != p:
        limit = game.max_sum - parent[1]
    best = None
    for action in game.actions(state):
        bound = None if best is None else (p, best[p])
        value = _maxn(game, game.result(state, action), depth + 1, bound)
        if best is None or value[p] > best[p]:
            best = value
        if limit is not None and best[p] >= limit:
            return best
    return best


class _Node:
    def __init__(self, game, state, parent=None, action=None):
        self.state = state
        self.parent = parent
        self.action = action
        self.mover = None if parent is None else game.to_move(parent.state)
        self.terminal = game.is_terminal(state)
        self.untried = [] if self.terminal else list(game.actions(state))
        self.children = []
        self.n = 0
        self.w = 0.0


def _ucb(node, c):
    return node.w / node.n + c * math.sqrt(math.log(node.parent.n) / node.n)


def _reward(u, player):
    if isinstance(u, (tuple, list)):
        return u[player]
    return u if player == MAX else -u


def mcts(game, state, iterations, rng, c=math.sqrt(2)):  # noqa: B008  (the stub's signature)
    root = _Node(game, state)
    if root.terminal:
        return None
    for _ in range(iterations):
        node = root
        while not node.terminal and not node.untried:
            best = node.children[0]
            for child in node.children[1:]:
                if _ucb(child, c) > _ucb(best, c):
                    best = child
            node = best
        if not node.terminal:
            action = node.untried.pop(0)
            child = _Node(game, game.result(node.state, action), node, action)
            node.children.append(child)
            node = child
        s = node.state
        while not game.is_terminal(s):
            s = game.result(s, rng.choice(list(game.actions(s))))
        u = game.utility(s)
        while node is not None:
            node.n += 1
            if node.parent is not None:
                node.w += _reward(u, node.mover)
            node = node.parent
    best = None
    for child in root.children:
        if best is None or child.n > best.n:
            best = child
    return None if best is None else best.action


def iterative_deepening(game, state, max_depth):
    if game.is_cutoff(state, 0):
        return game.evaluate(state), None
    player = game.to_move(state)
    actions = list(game.actions(state))
    order = actions
    for limit in range(1, max_depth + 1):
        g = game.with_depth_limit(limit)
        alpha, beta = -math.inf, math.inf
        v = -math.inf if player == MAX else math.inf
        best, values = None, {}
        for action in order:
            child_value = alpha_beta(g, g.result(state, action), alpha, beta, 1)
            values[action] = child_value
            if player == MAX:
                if best is None or child_value > v:
                    v, best = child_value, action
                if v >= beta:
                    break
                alpha = max(alpha, v)
            else:
                if best is None or child_value < v:
                    v, best = child_value, action
                if v <= alpha:
                    break
                beta = min(beta, v)
        sign = -1 if player == MAX else 1
        order = sorted(actions, key=lambda a: (a not in values, sign * values.get(a, 0)))
    return v, best


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


def evaluate(game, state):
    # Windows of `connect` cells held by one player only, weighted 1, 4, 16, ... by their
    # marks; plus half a point for each mark in the middle column(s).
    board = game.board(state)
    rows, columns, k = game.rows, game.columns, game.connect
    score = 0.0
    for r in range(rows):
        for c in range(columns):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                if 0 <= r + dr * (k - 1) < rows and 0 <= c + dc * (k - 1) < columns:
                    marks = [board[r + dr * i][c + dc * i] for i in range(k)]
                    x, o = marks.count("x"), marks.count("o")
                    if x and not o:
                        score += 4.0 ** (x - 1)
                    elif o and not x:
                        score -= 4.0 ** (o - 1)
    for row in board:
        for c in {columns // 2, (columns - 1) // 2}:
            if row[c] == "x":
                score += 0.5
            elif row[c] == "o":
                score -= 0.5
    return score
