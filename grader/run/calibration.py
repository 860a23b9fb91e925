"""A fixed workload that says how fast this machine runs game code, in CPU seconds.

The sandbox worker times it when it starts, before any student code runs, and its CPU time
limit is a multiple of it (never below the rubric's floor): slow hardware gets a longer limit
in seconds, the same limit in work. The answer key records it too, to scale the reference's
seconds measured on another machine (informational only: no score depends on them).
"""

from __future__ import annotations

import time
from typing import Callable

CALIBRATION_NODES = 18_730  # states the workload visits (depth-5 tic-tac-toe, every line)


def calibration_workload() -> int:
    """Walk tic-tac-toe from the empty board to depth 5; return the number of states."""
    from grader.games import builtin_game

    game = builtin_game("tictactoe")

    def walk(state, depth):
        if depth == 5 or game.is_terminal(state):
            return 1
        return 1 + sum(walk(game.result(state, a), depth + 1) for a in game.actions(state))

    return walk(game.initial_state(), 0)


# this thread's CPU time (calibration_seconds says why not the process's); the process's where a
# platform has no thread clock
THREAD_CPU: Callable[[], float] = getattr(time, "thread_time", time.process_time)


def calibration_seconds(repeats: int = 3, clock: Callable[[], float] = THREAD_CPU) -> float:
    """The best of ``repeats`` timings of :func:`calibration_workload` on ``clock``: this
    thread's CPU time by default (another process's load does not change it much). Not the
    process's (``time.process_time``): once a process has a CPU limit or a profiling timer
    armed, as the sandbox worker has when it times this, Linux reads that clock from a sample
    taken at each scheduler tick, so it moves in 4 ms steps at 250 Hz (51 changes in 0.2 s of
    reading it here, against one a read for this thread's clock), and a workload of about
    20 ms came out as 16 or 20 ms."""
    best = float("inf")
    for _ in range(repeats):
        start = clock()
        calibration_workload()
        best = min(best, clock() - start)
    return max(best, 1e-4)
