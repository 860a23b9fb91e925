"""Two or more threads made to race, for the tests of what grading threads share
(``grade --jobs 2`` grades one submission in two threads, one worker each)."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable


def race(*targets: Callable[[], None]) -> None:
    """Run each target in a thread of its own and wait for all, the interpreter switching
    threads as often as it can meanwhile: a race on a shared structure then shows in a few
    thousand rounds, not once in a long while."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=target) for target in targets]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
