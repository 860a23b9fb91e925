"""A set of ``evaluate`` functions of known strength, written outside the grader.

Each entry of :data:`EVALUATIONS` is the source of a whole ``evaluate(game, state)`` (with its
helpers), as a student would write it in ``search.py``: it reads only ``game.board(state)``,
``game.rows``, ``game.columns``, ``game.connect``, ``game.to_move(state)`` and
``game.actions(state)``. bench/strength.py measures their strength in a round robin of its own
(its own board and search, not the grader's) and grades them under a rubric; tests/test_play.py
grades a few of them at the bundled rubric.

Listed weakest first as measured (docs/staff.md has the figures).
"""

from __future__ import annotations

import textwrap

_WINDOWS = '''
from operator import itemgetter as _itemgetter

_LINES = {}  # (rows, columns, connect) -> [(cells, reader of their marks)]


def _windows(game, state):
    """Each window of ``connect`` cells in a line: (its cells, its marks as a tuple)."""
    rows, columns, k = game.rows, game.columns, game.connect
    lines = _LINES.get((rows, columns, k))
    if lines is None:
        lines = _LINES[(rows, columns, k)] = []
        for r in range(rows):
            for c in range(columns):
                for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                    if 0 <= r + dr * (k - 1) < rows and 0 <= c + dc * (k - 1) < columns:
                        cells = [(r + dr * i, c + dc * i) for i in range(k)]
                        lines.append((cells, _itemgetter(*[a * columns + b for a, b in cells])))
    flat = "".join(game.board(state))
    return [(cells, read(flat)) for cells, read in lines]
'''

_CENTRE = '''
def _centre(game, state):
    """x's marks minus o's in the middle column(s)."""
    score = 0
    for row in game.board(state):
        for c in {game.columns // 2, (game.columns - 1) // 2}:
            score += {"x": 1, "o": -1}.get(row[c], 0)
    return score
'''

_WEIGHTED = _WINDOWS + _CENTRE + '''
def _weighted(game, state):
    """Windows one player holds alone, weighted 1, 4, 16 by marks; half a point a centre mark."""
    score = 0.0
    for _, marks in _windows(game, state):
        x, o = marks.count("x"), marks.count("o")
        if x and not o:
            score += 4.0 ** (x - 1)
        elif o and not x:
            score -= 4.0 ** (o - 1)
    return score + 0.5 * _centre(game, state)
'''

_THREATS = _WINDOWS + _CENTRE + '''
def _threats(game, state, weights=(0, 1, 6, 40), playable=60.0, centre=1.0):
    """Windows one player holds alone by ``weights[marks]``; a window one mark short whose empty
    cell can be played at once (Connect Four: the cell below is filled) gets ``playable`` more."""
    board = game.board(state)
    k = game.connect
    gravity = len(game.actions(state)) <= game.columns and _gravity(board)
    score = 0.0
    for cells, marks in _windows(game, state):
        x, o = marks.count("x"), marks.count("o")
        if x and o:
            continue
        n, sign = (x, 1) if x else (o, -1)
        worth = weights[min(n, len(weights) - 1)]
        if n == k - 1:
            r, c = cells[marks.index(".")]
            if not gravity or r == game.rows - 1 or board[r + 1][c] != ".":
                worth += playable
        score += sign * worth
    return score + centre * _centre(game, state)


def _gravity(board):
    """No mark above an empty cell: a Connect Four board (or an m,n,k one that looks like it)."""
    return all(not (above != "." and below == ".")
               for upper, lower in zip(board, board[1:]) for above, below in zip(upper, lower))
'''

_SOURCES = {
    "constant": '''
def evaluate(game, state):
    return 0
''',
    "wrong_sign": _WEIGHTED + '''
def evaluate(game, state):
    return -_weighted(game, state)
''',
    "noise": '''
import random as _random


def evaluate(game, state):
    # a value that depends on the position only through a seed: unrelated to who is ahead
    return _random.Random("|".join(game.board(state))).random() - 0.5
''',
    "one_sided": _WEIGHTED + '''
def evaluate(game, state):
    # right as x, sign-flipped as o: the value for the player to move (negamax's convention)
    value = _weighted(game, state)
    return value if game.to_move(state) == 0 else -value
''',
    "ignores_opponent": _WINDOWS + '''
def evaluate(game, state):
    score = 0.0
    for _, marks in _windows(game, state):
        x, o = marks.count("x"), marks.count("o")
        if x and not o:
            score += 4.0 ** (x - 1)
    return score
''',
    "centre": _CENTRE + '''
def evaluate(game, state):
    return _centre(game, state)
''',
    "open_windows": _WINDOWS + '''
def evaluate(game, state):
    # the classic: windows still open for x minus windows still open for o
    score = 0
    for _, marks in _windows(game, state):
        if "o" not in marks and "x" in marks:
            score += 1
        elif "x" not in marks and "o" in marks:
            score -= 1
    return score
''',
    "marks_in_windows": _WINDOWS + '''
def evaluate(game, state):
    # the textbook one: x's marks in windows without an o, minus o's in windows without an x
    score = 0
    for _, marks in _windows(game, state):
        x, o = marks.count("x"), marks.count("o")
        score += (not o) * x - (not x) * o
    return score
''',
    "weighted": _WEIGHTED + '''
def evaluate(game, state):
    return _weighted(game, state)
''',
    "threats": _THREATS + '''
def evaluate(game, state):
    return _threats(game, state)
''',
}

NAMES = tuple(_SOURCES)


def source(name: str) -> str:
    """The source of evaluation ``name`` (an ``evaluate`` and its helpers)."""
    return textwrap.dedent(_SOURCES[name]).strip() + "\n"


def function(name: str):
    """Evaluation ``name`` as a function ``evaluate(game, state)``."""
    namespace: dict = {}
    exec(compile(source(name), f"<evaluation {name}>", "exec"), namespace)  # noqa: S102
    return namespace["evaluate"]


def submission(name: str, correct_search: str) -> str:
    """``correct_search`` (a whole search.py) with its ``evaluate`` replaced by ``name``'s."""
    head, _, tail = correct_search.partition("\ndef evaluate(game, state):")
    if not tail:
        raise ValueError("expected a search.py with a top-level def evaluate(game, state)")
    rest = tail.split("\ndef ", 1)
    after = "\ndef " + rest[1] if len(rest) > 1 else ""
    return head + "\n" + source(name) + after


EVALUATIONS = {name: source(name) for name in NAMES}
