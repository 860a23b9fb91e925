"""The portable worker's child: ``python -m grader.sandbox.portable_worker``, started by
:class:`grader.sandbox.portable.PortableWorker`.

It reads requests on its stdin and answers on its stdout (JSON lines, as
:mod:`grader.sandbox.protocol` says); its fd-level stdout is pointed at its stderr first, so
nothing the submission prints can land in the channel by accident. It serves each request with
the sandboxed worker's own functions (:mod:`grader.sandbox.worker`: the game, the traced run,
the work budget, the reply), with stand-ins for what only the sandbox has: :class:`PortableTools`
(CPU time from :func:`time.process_time`, no ``resource``) and :class:`PortableGuard` (no CPU
timer: the parent's wall-clock kill is the time backstop). No privilege drop, no Landlock, no
``resource`` limits: it runs on the student's own computer.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from dataclasses import dataclass
from typing import Callable

from grader.sandbox.guard import Tools
from grader.sandbox.worker import json_lines, prepare_process, serve


@dataclass(frozen=True)
class PortableTools(Tools):
    """:class:`~grader.sandbox.guard.Tools` without ``resource``: CPU time is
    :func:`time.process_time` (captured before the import, like the rest), and there is no
    soft CPU limit to move."""

    process_time: Callable[[], float] = time.process_time

    def cpu(self) -> float:
        return self.process_time()

    def enforced_cpu(self) -> float:
        return self.process_time()  # no RLIMIT_CPU here

    def allow_cpu(self, seconds: float) -> None:
        pass


class PortableGuard:
    """:class:`~grader.sandbox.guard.CpuGuard`'s interface without signals: nothing can stop a
    call from inside (the parent's wall-clock kill does), but a call already past its work
    budget that goes on (code swallowing the stop) is answered as the sandbox answers it: a
    watcher thread calls ``settled`` once the call has used its window of CPU time, and that
    sends the budget reply and ends the process. ``used()`` says how much CPU time the call
    took (a call that comes back past its most is late, as in the sandbox)."""

    def __init__(self, tools: PortableTools) -> None:
        self.tools = tools
        self.reason = ""
        self.settled: Callable[[str], None] | None = None
        self._start = self._window = self._most = 0.0
        self._armed = threading.Event()
        threading.Thread(target=self._watch, daemon=True).start()

    def _watch(self) -> None:
        while True:
            self._armed.wait()
            time.sleep(max(self._window / 4, 0.01))
            settled = self.settled
            if settled is None or not self._armed.is_set():
                continue
            used = self.used()
            if used > self._window:
                settled("most" if used > self._most else "idle")  # returns unless stopped

    def arm(self, window: float, most: float, progress: Callable[[], int],
            settled: Callable[[str], None] | None = None,
            announce: Callable[[], None] | None = None) -> None:
        # (``announce``, a batch's call saying which it is, is not made here: a kill of a
        # batch is then at no known call, and its calls are asked again one a request)
        self.reason, self.settled, self._start = "", settled, self.tools.cpu()
        self._window, self._most = window, most
        self._armed.set()

    def disarm(self) -> None:
        self._armed.clear()
        self.settled = None

    def used(self) -> float:
        return self.tools.cpu() - self._start


def main() -> int:
    if sys.path and sys.path[0] in ("", os.getcwd()):
        del sys.path[0]  # never import from the working directory
    replies = os.fdopen(os.dup(1), "wb", buffering=0)
    requests = os.fdopen(os.dup(0), "rb")
    marks = os.dup(2)  # the output pipe, kept whatever the submission does to its fd 2
    os.dup2(2, 1)  # fd-level prints go to stderr, never into the channel
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    send_line, receive = json_lines(replies.write, requests.readline)
    config = receive()
    if config is None:
        return 0
    mark = str(config.get("mark", "")).encode()
    write = os.write

    def send(message: dict) -> None:
        # The mark first, on the output pipe: every byte written there before this message
        # is ahead of it, so the parent, once it has read the mark, has all the output the
        # message comes after (two pipes read by two threads give no order of their own).
        if mark:
            try:
                write(marks, mark)
            except OSError:
                pass  # closed by the submission: the parent stops waiting for it
        send_line(message)

    seed = prepare_process(config)  # as the sandboxed worker does
    tools = PortableTools(
        seed=seed, perf_counter=time.perf_counter, getrusage=None, getrlimit=None,
        setrlimit=None, setitimer=None, set_handler=None, send=send, receive=receive,
        exit=os._exit, process_time=time.process_time,
    )
    guard = PortableGuard(tools)
    return serve(config, tools, guard, {"uid": -1, "landlock": 0})


if __name__ == "__main__":
    raise SystemExit(main())
