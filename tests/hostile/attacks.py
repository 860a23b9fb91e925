"""The hostile corpus: one submission per attack or accident, each a correct ``search.py`` with
one function (usually ``alpha_beta``) replaced by the attack.

Each :class:`Attack` keeps only the attacking source; :func:`write_submission` appends it to the
correct solution (``tests/submissions/correct/search.py``), so the later definition overrides
the correct one and every other function stays right. ``python tests/hostile/attacks.py OUT``
writes ``OUT/<name>/search.py`` for every entry (the benchmark reuses it).

Attacks find the grader's files the way a student would: from ``grader.__file__`` (the
``source`` folder of a Gradescope-like layout), its parent (``/autograder``) and the literal
Gradescope paths.

Expectations (checked by tests/test_hostile.py): ``scope`` says which tests lose their points
(``function``: the ``target``'s tests only; ``module``: every test, the file does not import;
``none``: no test, the submission is correct however it behaves); ``message`` is a regular
expression the target's test output matches; ``score`` is the fraction of its points the target
keeps (0 for every attack). ``link`` makes the submitted ``search.py`` a symbolic link to a file of
the layout (the source appended is then never read). ``folder`` puts ``search.py`` in a folder of
that name inside the upload; ``output`` is a regular expression the results' top-level output
matches; ``results_bytes``, when set, bounds results.json's size. ``upload`` names a maker of
:data:`UPLOADS`: the submission is uploaded its way (a zip given to the grader, a notebook, a
folder of many levels) instead of as ``search.py``. ``jobs`` grades it with ``grader grade --jobs
N`` (two workers at once); ``worker_memory`` sets ``$GRADER_WORKER_MEMORY`` (the MiB each worker
may use), as run_autograder does when it grades with two workers. ``shmem_rise`` bounds how far
the machine's ``Shmem`` (/proc/meminfo) may rise above its level before the run, sampled while
it runs.
"""

from __future__ import annotations

import binascii
import json
import struct
import sys
import textwrap
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

CORRECT = Path(__file__).resolve().parent.parent / "submissions" / "correct" / "search.py"
CATEGORIES = ("runaway", "escape", "forgery", "theft", "accident")
CRASHED = r"died: "
TIMEOUT = r"was stopped by the time limit"
REFUSED = r"tried to reach something outside the sandbox"
PROCESS = r"tried to start a process or a thread"
WRONG_VALUE = r"expected (the value|a number)[^\n]*got"

SYSV_KEY = 0x67726100  # the first System V key sysv_shared_memory uses (five in a row)

# Prepended to attacks that look for the grader's files.
PATHS = """
import os as _os
import grader as _grader

SOURCE = _os.path.dirname(_os.path.dirname(_os.path.abspath(_grader.__file__)))
AUTOGRADER = _os.path.dirname(SOURCE)
"""


# The correct alpha_beta, kept before the attack replaces it. Its recursive calls go through the
# global name, so they reach the attack again: attacks using it act at the root only.
CORRECT_KEPT = "_correct = alpha_beta\n"


# Issue 40: System V shared memory made, filled and detached at import, ``count`` segments of
# ``size`` MiB, held for the worker's life; alpha_beta answers only with all of it.
SYSV_HOARD = """
import ctypes as _ctypes, os as _os

_libc = _ctypes.CDLL(None, use_errno=True)
_libc.shmat.restype = _ctypes.c_void_p
_HELD, _WHY = 0, ""
for _ in range({count}):
    _ident = _libc.shmget(0, {size} << 20, 0o1600)  # IPC_PRIVATE, IPC_CREAT | 0o600
    if _ident < 0:
        _WHY = "shmget: " + _os.strerror(_ctypes.get_errno())
        break
    _address = _libc.shmat(_ident, None, 0)
    if _address in (None, _ctypes.c_void_p(-1).value):
        _WHY = "shmat: " + _os.strerror(_ctypes.get_errno())
        break
    _ctypes.memset(_address, 1, {size} << 20)
    _libc.shmdt(_ctypes.c_void_p(_address))
    _HELD += {size}

_correct_alpha_beta = alpha_beta


def alpha_beta(game, state, alpha=-math.inf, beta=math.inf, depth=0):
    if _HELD < {size} * {count}:
        raise MemoryError(f"System V shared memory: got {{_HELD}} of {{{size} * {count}}} MiB "
                          f"({{_WHY}})")
    return _correct_alpha_beta(game, state, alpha, beta, depth)
"""

# Issue 40: an honest solution using the standard library beyond the worker's preloaded modules.
HONEST_IMPORTS = """
import base64
import csv
import datetime
import hashlib
import io
import logging
import pprint
import uuid
from queue import PriorityQueue

_log = logging.getLogger("search")
_kept_alpha_beta = alpha_beta


def alpha_beta(game, state, alpha=-math.inf, beta=math.inf, depth=0):
    queue = PriorityQueue()
    queue.put((depth, "node"))
    row = io.StringIO()
    csv.writer(row).writerow([queue.get()[1], hashlib.sha256(b"x").hexdigest()[:8],
                              base64.b64encode(b"ok").decode(), uuid.UUID(int=depth).hex[:4],
                              datetime.date(2024, 1, 1).isoformat(), pprint.pformat(depth)])
    _log.debug(row.getvalue())
    return _kept_alpha_beta(game, state, alpha, beta, depth)
"""


@dataclass(frozen=True)
class Attack:
    name: str
    category: str  # one of CATEGORIES
    description: str
    source: str  # appended to the correct solution
    message: str = ""  # regex the target test's output matches
    target: str = "alpha_beta"
    scope: str = "function"  # "function", "module" or "none"
    score: float = 0.0  # fraction of its points the target keeps
    slow: bool = False  # runs into a time limit: scheduled first
    fenced: bool = False  # only what the OS refuses (files, processes, signals) stops it
    link: str = ""  # the submitted search.py is a symbolic link to this file of the layout
    folder: str = ""  # search.py is uploaded in a folder of this name
    output: str = ""  # regex the results' top-level output matches
    upload: str = ""  # a maker of UPLOADS: how the submission is uploaded (default: search.py)
    results_bytes: int = 0  # when set, results.json is smaller than this
    budget: int = 0  # the platform's time budget the run is given ($GRADER_TIME_BUDGET; 0: none)
    jobs: int = 0  # graded with ``grader grade --jobs N`` (0: one worker, the default)
    worker_memory: int = 0  # $GRADER_WORKER_MEMORY, MiB a worker (0: the default, 256)
    shmem_rise: int = 0  # when set: the machine's Shmem (/proc/meminfo) rises less (MiB)


def _attack(name: str, category: str, description: str, source: str, **expect) -> Attack:
    return Attack(name, category, description, textwrap.dedent(source).strip() + "\n", **expect)


def _ab(body: str, *, paths: bool = False, prelude: str = "") -> str:
    """An ``alpha_beta`` whose body is ``body``."""
    head = (PATHS if paths else "") + textwrap.dedent(prelude)
    signature = "def alpha_beta(game, state, alpha=-math.inf, beta=math.inf, depth=0):\n"
    return head + "\n" + signature + textwrap.indent(textwrap.dedent(body).strip(), "    ") + "\n"


# Finds the request being served in the worker's frames: its "seq" lets a forged reply pass
# for the real one, its "case" is all the worker knows of the case.
REQUEST = """
import sys as _sys


def _request():
    frame = _sys._getframe()
    while frame is not None and "request" not in frame.f_locals:
        frame = frame.f_back
    return frame.f_locals["request"]


def _forge(head, body_chunks=(), tail=b"}\\n"):
    import os
    fd = int(_sys.argv[1])  # the worker's private channel
    for part in (head, *body_chunks, tail):
        view = memoryview(part)
        while view:
            view = view[os.write(fd, view):]
"""


# --- uploads that are not a plain search.py ----------------------------------------------------
# Each maker writes the submission's text (the correct solution, the attack appended) into
# ``folder`` its way and returns the path the grader is given (``--submission``).


def _zip_bytes(text: str) -> bytearray:
    """``text`` as the one member ``search.py`` of a deflated zip."""
    from io import BytesIO

    buffer = BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("search.py", text)
    return bytearray(buffer.getvalue())


def _patched_zip(folder: Path, text: str, patch: Callable[[bytearray, int, int], None]) -> Path:
    """A zip of ``text`` whose bytes ``patch(data, local, central)`` changes (the offsets of the
    member's local and central headers), as a damaged or hand-made archive would be."""
    data = _zip_bytes(text)
    patch(data, data.find(b"PK\x03\x04"), data.find(b"PK\x01\x02"))
    path = folder / "upload.zip"
    path.write_bytes(bytes(data))
    return path


def _unsupported_method(data: bytearray, local: int, central: int) -> None:
    data[local + 8:local + 10] = data[central + 10:central + 12] = struct.pack("<H", 99)


def _encrypted(data: bytearray, local: int, central: int) -> None:
    data[local + 6:local + 8] = data[central + 8:central + 10] = struct.pack("<H", 1)


def _corrupt_stream(data: bytearray, local: int, central: int) -> None:
    name, extra = struct.unpack("<HH", data[local + 26:local + 30])
    start = local + 30 + name + extra
    data[start:start + 40] = bytes(byte ^ 0x55 for byte in data[start:start + 40])


def _overlapping_members(folder: Path, text: str, count: int = 200) -> Path:
    """A 30 kB zip whose central directory names one 20 MB member ``count`` times: zipfile
    before Python 3.12 reads each entry as a search.py of its own (David Fifield's overlap)."""
    raw = (text + "\n#" + " " * 20_000_000)[:20_000_000].encode()
    squeeze = zlib.compressobj(9, zlib.DEFLATED, -15)
    packed = squeeze.compress(raw) + squeeze.flush()
    crc, name = binascii.crc32(raw), b"search.py"
    local = struct.pack("<4sHHHHHIIIHH", b"PK\x03\x04", 20, 0, 8, 0, 0, crc, len(packed),
                        len(raw), len(name), 0) + name + packed
    entry = struct.pack("<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 20, 20, 0, 8, 0, 0, crc,
                        len(packed), len(raw), len(name), 0, 0, 0, 0, 0o100644 << 16, 0) + name
    end = struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, count, count, len(entry) * count,
                      len(local), 0)
    path = folder / "upload.zip"
    path.write_bytes(local + entry * count + end)
    return path


def _many_entries(folder: Path, text: str, count: int = 180_000) -> Path:
    """A 10 MB zip listing ``count`` one-line files beside search.py: zipfile reads its whole
    directory, about 11 times the zip's size in the grader's memory, at each read of the upload."""
    raw, name = b"x = 1\n", b"a.py"
    crc = binascii.crc32(raw)
    local = struct.pack("<4sHHHHHIIIHH", b"PK\x03\x04", 20, 0, 0, 0, 0, crc, len(raw), len(raw),
                        len(name), 0) + name + raw
    entry = struct.pack("<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 20, 20, 0, 0, 0, 0, crc, len(raw),
                        len(raw), len(name), 0, 0, 0, 0, 0o100644 << 16, 0) + name
    end = struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, 0xFFFF, 0xFFFF, len(entry) * count,
                      len(local), 0)
    path = folder / "upload.zip"
    path.write_bytes(local + entry * count + end)
    return path


def _nested_folders(folder: Path, text: str, levels: int = 1500) -> Path:
    """``search.py`` at the top of an upload that also holds ``levels`` nested folders."""
    (folder / "search.py").write_text(text)
    path = folder
    for _ in range(levels):  # one level at a time: mkdir(parents=True) recurses
        path = path / "a"
        path.mkdir()
    return folder


def _dangling_link(folder: Path, text: str) -> Path:
    """``search.py`` beside a symbolic link to nothing (``stat`` of it raised FileNotFoundError
    in ``grader batch``, stopping every other submission's grading)."""
    (folder / "search.py").write_text(text)
    (folder / "notes.txt").symlink_to(folder / "no-such-file")
    return folder


NOTEBOOK_MARKUP = "%time 1 ` <img src=x onerror=alert(1)> **full marks** `"


def _notebook(folder: Path, text: str) -> Path:
    """``search.ipynb``: the submission in one code cell, then a cell of an IPython line the
    grader drops and lists in the results' output, quoting HTML in backticks, and a comment
    after 20,000 spaces (the old IPython-line pattern backtracked cubically on it: hours of
    the grader's own time)."""
    def cell(source: str) -> dict:
        return {"cell_type": "code", "metadata": {}, "source": source, "outputs": [],
                "execution_count": None}

    hostile = NOTEBOOK_MARKUP + "\n" + " " * 20_000 + "# a comment, far to the right\n"
    notebook = {"nbformat": 4, "nbformat_minor": 5, "metadata": {},
                "cells": [cell(text), cell(hostile)]}
    (folder / "search.ipynb").write_text(json.dumps(notebook))
    return folder


def _notebook_surrogate(folder: Path, text: str) -> Path:
    """``search.ipynb``: the submission, then a cell holding a lone surrogate (JSON escapes it;
    UTF-8 cannot hold it)."""
    cells = [{"cell_type": "code", "metadata": {}, "source": source, "outputs": [],
              "execution_count": None} for source in (text, "NOTE = '\ud800'\n")]
    (folder / "search.ipynb").write_text(json.dumps(
        {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells}))
    return folder


def _notebook_cells(folder: Path, text: str, cells: int = 4_999) -> Path:
    """``search.ipynb``: ``cells - 1`` cells of one line, then the submission in the last."""
    def cell(source: str) -> dict:
        return {"cell_type": "code", "metadata": {}, "source": source, "outputs": [],
                "execution_count": None}

    notebook = {"nbformat": 4, "nbformat_minor": 5, "metadata": {},
                "cells": [cell(f"FILLER_{index} = {index}") for index in range(cells - 1)]
                + [cell(text)]}
    (folder / "search.ipynb").write_text(json.dumps(notebook))
    return folder


UPLOADS: dict[str, Callable[[Path, str], Path]] = {
    "zip_unsupported_method": lambda f, t: _patched_zip(f, t, _unsupported_method),
    "zip_encrypted": lambda f, t: _patched_zip(f, t, _encrypted),
    "zip_corrupt_stream": lambda f, t: _patched_zip(f, t, _corrupt_stream),
    "zip_overlapping_members": _overlapping_members,
    "zip_many_entries": _many_entries,
    "nested_folders": _nested_folders,
    "dangling_link": _dangling_link,
    "notebook": _notebook,
    "notebook_surrogate": _notebook_surrogate,
    "notebook_cells": _notebook_cells,
}


ATTACKS: list[Attack] = [
    # --- runaway --------------------------------------------------------------------------
    _attack("infinite_loop", "runaway", "an endless loop", _ab("while True:\n    pass"),
            message=TIMEOUT, slow=True),
    _attack("swallow_timeout", "runaway", "a loop catching every exception, the time-out too",
            _ab("""
                while True:
                    try:
                        while True:
                            pass
                    except BaseException:
                        pass
            """), message=TIMEOUT, slow=True),
    _attack("deep_recursion", "runaway", "recursion past the C stack, limit raised to 10**6",
            _ab("""
                import sys
                sys.setrecursionlimit(10**6)

                def down(n):  # each level passes through C (max, map): the C stack overflows
                    return max(map(down, [n + 1]))

                return down(0)
            """), message=r"died: was killed by SIGSEGV|RecursionError"),  # the latter: 3.12+
    _attack("recursion_limit", "runaway", "unbounded recursion into the default limit",
            _ab("return alpha_beta(game, state, alpha, beta, depth)"), message=r"RecursionError"),
    _attack("memory_bomb", "runaway", "a list of 100 MB blocks growing without end",
            _ab("""
                hoard = []
                while True:
                    hoard.append(bytes(100_000_000))
            """), message=r"out of memory"),
    _attack("memory_bomb_two_workers", "runaway",
            "graded with two workers of 256 MiB each (run_autograder's with two CPUs): every "
            "function fills 16 MB blocks (written, so resident) until the limit and holds them "
            "0.3 s, so both workers are at their limit at once; each must stop below 256 MB, "
            "or the two and the grader would pass Gradescope's 768 MB container",
            """
            import math, time


            def _hoard(*args, **kwargs):
                hoard = []
                try:
                    while True:
                        hoard.append(bytes([1]) * (16 << 20))
                except MemoryError:
                    pass
                time.sleep(0.3)
                raise MemoryError(f"out of memory after {16 * len(hoard)} MB in 16 MB blocks")


            max_value = min_value = alpha_beta = maxn = _hoard
            """, scope="module", jobs=2, worker_memory=256,
            # 16 to 240 MB: it did allocate, and stopped below its worker's 256 MiB
            message=r"out of memory after (1[6-9]|[2-9]\d|1\d\d|2[0-3]\d|240) MB in"),
    _attack("fork_bomb", "runaway", "os.fork in a loop",
            _ab("""
                import os
                while True:
                    if os.fork() == 0:
                        while True:
                            pass
            """), message=PROCESS, fenced=True),
    _attack("lingering_thread", "runaway", "a thread left spinning after the call returns",
            _ab("""
                import threading

                def spin():
                    while True:
                        pass

                threading.Thread(target=spin, daemon=True).start()
                return 3
            """), message=PROCESS + r"|can't start new thread", fenced=True),
    _attack("subprocess_shell", "runaway", "running a shell command",
            _ab("""
                import subprocess
                return subprocess.run(["sh", "-c", "echo pwned"], capture_output=True).returncode
            """), message=PROCESS + r"|No module named|PermissionError", fenced=True),
    _attack("output_flood", "runaway", "100 MB printed through print()",
            _ab("""
                chunk = "x" * 1_000_000
                for _ in range(100):
                    print(chunk)
                return 3
            """), message=r"printed [\d,]+ bytes in one call"),
    _attack("output_flood_fd", "runaway", "20 MB written to file descriptor 1 directly",
            _ab("""
                import os
                chunk = b"y" * 1_000_000
                for _ in range(20):
                    os.write(1, chunk)
                return 3
            """), message=r"printed [\d,]+ bytes in one call"),
    _attack("sleep_past_limit", "runaway", "time.sleep far past the limit",
            _ab("import time\ntime.sleep(3600)\nreturn 3"), message=TIMEOUT, slow=True),
    _attack("deadlock", "runaway", "a lock acquired twice: asleep for ever, not in time.sleep",
            _ab("""
                import threading
                lock = threading.Lock()
                lock.acquire()
                lock.acquire()
            """), message=TIMEOUT + r"[\s\S]*slept for", slow=True),
    _attack("stop_self", "runaway", "SIGSTOP sent to itself: stopped, using no CPU",
            _ab("""
                import os, signal
                os.kill(os.getpid(), signal.SIGSTOP)
                return 3
            """), message=TIMEOUT + r"[\s\S]*slept for", slow=True),
    _attack("sleep_in_bursts", "runaway",
            "asleep in 0.3 s bursts, 12 ms of CPU between them: never 0.5 s asleep at a stretch, "
            "never 2 s without CPU use (it held each test to the wall-clock limit, 10 s)",
            _ab("""
                import time
                while True:
                    time.sleep(0.3)
                    started = time.process_time()
                    while time.process_time() - started < 0.012:
                        pass
            """), message=TIMEOUT + r"[\s\S]*slept for", slow=True),
    _attack("swallow_ignoring_sigxcpu", "runaway",
            "SIGXCPU ignored, then a loop catching every exception, the time-out too",
            _ab("""
                import signal
                signal.signal(signal.SIGXCPU, signal.SIG_IGN)
                while True:
                    try:
                        while True:
                            pass
                    except BaseException:
                        pass
            """), message=TIMEOUT + r"[\s\S]*did not stop at the time-out", slow=True),
    _attack("swallow_blocking_sigxcpu", "runaway",
            "SIGXCPU blocked (a pending signal is never delivered), then a loop catching the "
            "time-out: the parent's CPU limit ends it",
            _ab("""
                import signal
                signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGXCPU})
                while True:
                    try:
                        while True:
                            pass
                    except BaseException:
                        pass
            """), message=TIMEOUT + r"[\s\S]*ignored the time-out", slow=True),
    _attack("ignore_cpu_signals", "runaway",
            "the CPU-time signals (SIGPROF, SIGXCPU) and SIGALRM ignored, then a loop",
            _ab("""
                import signal
                for number in (signal.SIGPROF, signal.SIGXCPU, signal.SIGALRM):
                    signal.signal(number, signal.SIG_IGN)
                while True:
                    pass
            """), message=TIMEOUT + r"[\s\S]*ignored the time-out", slow=True),
    _attack("replace_signal_function", "runaway",
            "_signal.signal (what the worker's CPU guard sets its SIGPROF handler with at "
            "every call; not a guarded module's) replaced at import by a no-op once SIGPROF is "
            "ignored with the real one, then an endless loop: the guard's own copy, taken "
            "before the import, arms it again at the call (one looked up by name would not)",
            _ab("while True:\n    pass", prelude="""
                import _signal
                import signal

                real = _signal.signal
                _signal.signal = lambda *args: None
                real(signal.SIGPROF, 1)  # SIG_IGN
            """), message=TIMEOUT + r"[\s\S]*ran for [\d.]+ s of CPU time without calling the "
                                     r"game \(an infinite loop", slow=True),
    _attack("endless_game_calls", "runaway",
            "a search calling game.result for ever, catching the budget's stop and going on",
            _ab("""
                while True:
                    try:
                        game.result(state, game.actions(state)[0])
                    except BaseException:
                        pass
            """), message=r"stopped after [\d,]+ `result` calls, [\d.]+ times what the "
                          r"reference needed"),
    _attack("slow_seed_hook", "runaway",
            "random.seed replaced at import by slow work, to run before the clock starts",
            textwrap.dedent("""
                import random as _random

                def _slow_seed(*args, **kwargs):
                    total = 0
                    for number in range(30_000_000):
                        total += number
                    return total

                _random.seed = _slow_seed
            """), scope="none"),
    _attack("sleeping_seed_hook", "runaway",
            "random.seed replaced at import by a long sleep, so the grader waits for it",
            textwrap.dedent("""
                import random as _random
                import time as _time

                _random.seed = lambda *args, **kwargs: _time.sleep(60)
            """), scope="none"),
    _attack("c_loop_sum", "runaway", "sum(range(10**12)): one C call signals cannot interrupt",
            _ab("return sum(range(10**12))"), message=TIMEOUT, slow=True),
    _attack("c_loop_regex", "runaway", "a catastrophically backtracking regular expression",
            _ab("import re\nreturn len(re.findall(r'(a+)+$', 'a' * 64 + 'b'))"),
            message=TIMEOUT, slow=True),
    # --- escape ---------------------------------------------------------------------------
    _attack("sys_exit", "escape", "sys.exit(0) from inside the search",
            _ab("import sys\nsys.exit(0)"), message=r"called sys\.exit\(0\)"),
    _attack("os_exit", "escape", "os._exit(0): the process ends at once",
            _ab("import os\nos._exit(0)"), message=r"exited with code 0"),
    _attack("raise_system_exit", "escape", "raise SystemExit",
            _ab("raise SystemExit"), message=r"called sys\.exit\(\)"),
    _attack("keyboard_interrupt", "escape", "raise KeyboardInterrupt",
            _ab("raise KeyboardInterrupt"), message=r"KeyboardInterrupt"),
    _attack("kill_self", "escape", "SIGKILL to its own process",
            _ab("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)"),
            message=r"died: was killed by SIGKILL"),
    _attack("kill_parent", "escape", "SIGKILL to the grader (its parent process)",
            _ab("import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\nreturn 3"),
            message=REFUSED, fenced=True),
    _attack("kills_sibling_worker", "escape",
            "graded with --jobs 2, the import sends SIGKILL to every other child of its "
            "grader (read from /proc) for 0.3 CPU s: both workers ran as one user, so where "
            "Landlock cannot scope signals each killed the other as it started (a staff error, "
            "and the other's tests failed as an import that died)",
            """
            import os as _os, signal as _signal, time as _time
            _started = _time.process_time()
            while _time.process_time() - _started < 0.3:
                for _pid in range(max(2, _os.getpid() - 3000), _os.getpid() + 3000):
                    try:
                        with open(f"/proc/{_pid}/stat") as _stat:  # another run's: left alone
                            _parent = int(_stat.read().rsplit(")", 1)[1].split()[1])
                        if _pid != _os.getpid() and _parent == _os.getppid():
                            _os.kill(_pid, _signal.SIGKILL)
                    except (OSError, ValueError, IndexError):
                        pass
            """, scope="none", fenced=True, jobs=2),
    _attack("kill_parent_group", "escape", "SIGKILL to the grader's process group",
            _ab("import os, signal\nos.killpg(os.getpgid(os.getppid()), signal.SIGKILL)\nreturn 3"),
            message=REFUSED, fenced=True),
    _attack("replace_alarm_handler", "escape", "signal.signal ignoring SIGALRM, then a loop",
            _ab("""
                import signal
                signal.signal(signal.SIGALRM, signal.SIG_IGN)
                while True:
                    pass
            """), message=TIMEOUT, slow=True),
    _attack("atexit_hook", "escape", "an atexit hook forging results, then a wrong answer",
            _ab("""
                import atexit

                def forge():
                    with open(AUTOGRADER + "/results/results.json", "w") as out:
                        out.write('{"score": 100, "tests": []}')

                atexit.register(forge)
                return 0
            """, paths=True), message=WRONG_VALUE, fenced=True),
    # --- forgery --------------------------------------------------------------------------
    _attack("print_fake_results", "forgery", "a full-score results.json printed to stdout",
            _ab("""
                import json
                print(json.dumps({"score": 100.0, "tests": [
                    {"name": "everything", "score": 100.0, "max_score": 100.0}]}))
                return 0
            """), message=WRONG_VALUE),
    _attack("write_results_file", "forgery", "results.json written directly",
            _ab("""
                forged = '{"score": 100.0, "tests": []}'
                for path in (AUTOGRADER + "/results/results.json",
                             "/autograder/results/results.json"):
                    with open(path, "w") as out:
                        out.write(forged)
                return 0
            """, paths=True), message=REFUSED, fenced=True),
    _attack("overwrite_grader_source", "forgery", "the grader's own code rewritten on disk",
            _ab("""
                with open(SOURCE + "/grader/scoring.py", "a") as out:
                    out.write("\\ngrade = lambda *a, **k: None\\n")
                return 0
            """, paths=True), message=REFUSED, fenced=True),
    _attack("patch_unittest", "forgery", "unittest.TestCase.run replaced, then a wrong answer",
            _ab("""
                import unittest
                unittest.TestCase.run = lambda self, result=None: None
                return 0
            """), message=WRONG_VALUE + "|No module named 'unittest'"),
    _attack("patch_gradescope_utils", "forgery", "gradescope-utils' runner replaced",
            _ab("""
                from gradescope_utils.autograder_utils import json_test_runner
                json_test_runner.JSONTestRunner.run = lambda self, test: print('{"score": 100}')
                return 0
            """), message=WRONG_VALUE + "|No module named"),
    _attack("patch_tracing", "forgery", "the tracing game's recording switched off",
            _ab("""
                import grader.run.tracing, grader.run.runner
                grader.run.tracing.traced = grader.run.runner.traced = lambda game: (game, None)
                return 3
            """), message=r"replaced part of the grader"),
    _attack("shadow_inherited_method", "forgery",
            "a method added to a game class over the one it inherits: the recording of the "
            "trees' games switched off without replacing anything the grader defined",
            _ab("""
                import grader.games.tree
                grader.games.tree.TreeGame.recording_result = (
                    lambda self, generated, most, stop: self.result)
                return 3
            """), message=r"replaced part of the grader \(grader\.games\.tree\.TreeGame\."
                          r"recording_result \(added\)"),
    _attack("shadow_builtin_in_module", "forgery",
            "a module-level name over a builtin: `len` in the game's base module, which the "
            "recording uses to stop a search at its budget",
            _ab("""
                import grader.games.base
                grader.games.base.len = lambda items: 0
                return 3
            """), message=r"replaced part of the grader \(grader\.games\.base\.len \(added\)"),
    _attack("rebase_game_class", "forgery",
            "a game class given other bases, whose recording_result records nothing",
            _ab("""
                import grader.games.base, grader.games.tree
                class Quiet(grader.games.base.Game):
                    def recording_result(self, generated, most, stop):
                        return self.result
                grader.games.tree.TreeGame.__bases__ = (Quiet,)
                return 3
            """), message=r"replaced part of the grader \(grader\.games\.tree\.TreeGame\."
                          r"__bases__"),
    _attack("swap_function_code", "forgery",
            "the recording's code swapped inside the grader's own function object",
            _ab("""
                import grader.games.base
                grader.games.base.Game.recording_result.__code__ = (
                    lambda self, generated, most, stop: self.result).__code__
                return 3
            """), message=r"replaced part of the grader \(grader\.games\.base\.Game\."
                          r"recording_result\.__code__"),
    _attack("defaults_equal_to_anything", "forgery",
            "a grader function's defaults replaced by an object equal to anything (an equality "
            "check would run its __eq__ and hear 'unchanged')",
            _ab("""
                import grader.run.tracing

                class Equal:
                    def __eq__(self, other):
                        return True

                    __hash__ = object.__hash__

                grader.run.tracing.traced.__defaults__ = (Equal(),)
                return 3
            """), message=r"replaced part of the grader \(grader\.run\.tracing\.traced\."
                          r"__defaults__"),
    _attack("keyword_defaults_changed_in_place", "forgery",
            "a grader function's keyword defaults changed inside the dict it holds (the dict "
            "object itself unchanged, so a check of the function's parts by identity passes)",
            _ab("""
                import grader.run.evaluation
                grader.run.evaluation.sealed_game.__kwdefaults__["in_place"] = True
                return 3
            """), message=r"replaced part of the grader \(grader\.run\.evaluation\.sealed_game"
                          r"\.__kwdefaults__\W+'in_place'"),  # the brackets escaped for Markdown
    _attack("patch_compare", "forgery", "the comparison replaced by one that always passes",
            _ab("""
                import grader.compare
                grader.compare.check_value = lambda expected, got: grader.compare.ValueCheck(True)
                return 0
            """), message=WRONG_VALUE),
    _attack("patch_worker_clock", "forgery", "time.perf_counter frozen to hide a slow search",
            _ab("""
                import time
                time.perf_counter = lambda: 0.0
                return 3
            """), message=r"replaced part of the grader"),
    _attack("eq_always_true", "forgery", "an object whose __eq__ always answers True",
            _ab("""
                class Anything:
                    def __eq__(self, other):
                        return True

                    def __hash__(self):
                        return 0

                return Anything()
            """), message=WRONG_VALUE),
    _attack("float_subclass", "forgery", "a float subclass equal to everything",
            _ab("""
                class Sly(float):
                    def __eq__(self, other):
                        return True

                    __hash__ = float.__hash__

                return Sly(-1.0)
            """), message=WRONG_VALUE),
    _attack("nan", "forgery", "NaN, which compares unequal to itself",
            _ab("return float('nan')"), message=r"got NaN"),
    # --- theft ----------------------------------------------------------------------------
    _attack("read_reference", "theft", "reference/alpha_beta.py read and printed",
            _ab("""
                with open(SOURCE + "/reference/alpha_beta.py") as source:
                    print(source.read())
                return 0
            """, paths=True), message=REFUSED),
    _attack("read_hidden_cases", "theft", "trees/hidden listed and printed",
            _ab("""
                folder = SOURCE + "/trees/hidden"
                for name in sorted(_os.listdir(folder)):
                    print(name)
                    with open(folder + "/" + name) as case:
                        print(case.read())
                return 0
            """, paths=True), message=REFUSED),
    _attack("read_answer_key", "theft", "the grader's answer cache read and printed",
            _ab("""
                with open(SOURCE + "/.cache/answer-key.json") as key:
                    print(key.read())
                return 0
            """, paths=True), message=REFUSED),
    _attack("import_reference", "theft", "import reference, to return its answers",
            _ab("""
                import sys
                sys.path.insert(0, SOURCE)
                from reference.alpha_beta import alpha_beta as staff
                return staff(game, state)
            """, paths=True), message=REFUSED + r"|No module named 'reference"),
    _attack("gc_walk", "theft", "gc.get_objects() searched for cases, answers and the reference",
            _ab("""
                import gc
                for item in gc.get_objects():
                    try:
                        if isinstance(item, dict) and ("expect" in item or "name" in item):
                            print(repr(item)[:300])
                        elif type(item).__module__.startswith("reference"):
                            print(repr(item)[:300])
                    except Exception:
                        pass
                return 0
            """), message=WRONG_VALUE),
    _attack("frame_walk", "theft", "the caller's stack frames and their locals printed",
            _ab("""
                import sys
                frame = sys._getframe(1)
                while frame is not None:
                    shown = {k: repr(v)[:200] for k, v in frame.f_locals.items()}
                    print(frame.f_code.co_filename, shown)
                    frame = frame.f_back
                return 0
            """), message=WRONG_VALUE),
    _attack("environment", "theft", "the worker's and the grader's environment printed",
            _ab("""
                print(dict(_os.environ))
                with open(f"/proc/{_os.getppid()}/environ", "rb") as environ:
                    print(environ.read())
                return 0
            """, paths=True), message=REFUSED),
    _attack("stash_hidden", "theft",
            "what max^n sees on hidden cases kept in a global and printed by a visible test",
            textwrap.dedent("""
                import sys
                _stash = []
                _correct_maxn = maxn

                def maxn(game, state, depth=0):
                    frame = sys._getframe()
                    while frame is not None and "request" not in frame.f_locals:
                        frame = frame.f_back
                    if frame is not None:
                        _stash.append(repr(frame.f_locals["request"])[:2000])
                    return _correct_maxn(game, state, depth)

                def alpha_beta(game, state, alpha=-math.inf, beta=math.inf, depth=0):
                    print("\\n".join(_stash))  # a failing visible test shows what was printed
                    return 0
            """), message=WRONG_VALUE),
    _attack("markdown_breakout", "forgery",
            "an exception message that closes its code fence and writes Markdown and HTML, with "
            "a NUL and a lone surrogate (which results.json cannot hold as text)",
            _ab("""
                print("printed ``` too\\x00")
                raise ValueError("\\x00\\udcff\\n```\\n# Full marks\\n<img src=x onerror=alert(1)>")
            """), message=r"````[\s\S]*````[\s\S]*character\(s\) that results cannot hold"),
    _attack("forged_grader_error", "forgery",
            "a 'grader_error' reply with a fake traceback written on the worker's channel",
            _ab("""
                import json
                forged = {"event": "reply", "seq": _request()["seq"], "status": "grader_error",
                          "error": {"type": "KeyError", "message": "the grader broke",
                                    "traceback": "Traceback: in the grader (not really)"}}
                _forge(json.dumps(forged).encode(), tail=b"\\n")
                return 3
            """, prelude=REQUEST), message=r"the worker reported a failure of its own"),
    _attack("forged_huge_trace", "forgery",
            "a forged reply of 6.3 million trace ids, 64 MiB on one line",
            _ab("""
                head = ('{"event": "reply", "seq": %d, "status": "ok", "value": 3, '
                        '"evaluated": [], "generated": [' % _request()["seq"]).encode()
                chunk = ",".join('"%07d"' % i for i in range(100_000)).encode() + b","
                _forge(head, [chunk] * 63, b'"end"]}\\n')
                return 3
            """, prelude=REQUEST), message=r"the grader reads"),
    _attack("forged_long_trace", "forgery",
            "a forged reply of 600,000 made-up ids in each trace list (within the channel's "
            "caps, past the trace limit of a small case)",
            _ab("""
                ids = b",".join(b'"forged-%07d"' % i for i in range(600_000))
                head = ('{"event": "reply", "seq": %d, "status": "ok", "value": 0, '
                        '"generated": [' % _request()["seq"]).encode()
                _forge(head, [ids, b'], "evaluated": [', ids], b"]}\\n")
                return 0
            """, prelude=REQUEST),  # 20 MB may not be written within a loaded machine's limit
            message=WRONG_VALUE + r"|the grader reads|unreadable|did not finish"),
    _attack("forged_long_trace_minimax", "forgery",
            "forged_long_trace's reply from max_value: on all of tic-tac-toe (a hidden case) the "
            "grader reads it whole, its worst case",
            REQUEST + textwrap.dedent("""
                _correct_max_value = max_value

                def max_value(game, state, depth=0):
                    if depth > 0:
                        return _correct_max_value(game, state, depth)
                    ids = b",".join(b'"forged-%07d"' % i for i in range(600_000))
                    head = ('{"event": "reply", "seq": %d, "status": "ok", "value": 0, '
                            '"generated": [' % _request()["seq"]).encode()
                    _forge(head, [ids, b'], "evaluated": [', ids], b"]}\\n")
                    return 0
            """), target="minimax", message=WRONG_VALUE + r"|the grader reads|unreadable|did not finish"),
    _attack("forged_malformed_reply", "forgery",
            "a forged reply whose fields have the wrong types and sizes",
            _ab("""
                import json
                forged = {"event": "reply", "seq": _request()["seq"], "status": "ok",
                          "value": 3, "generated": [[1]] * 10, "error": "x" * 200_000,
                          "elapsed": 10**400 if False else 1e308, "cpu": -1}
                _forge(json.dumps(forged).encode(), tail=b"\\n")
                return 3
            """, prelude=REQUEST), message=r"sent a malformed message"),
    _attack("forged_next_reply", "forgery",
            "a forged right reply for this request (its value and the trace the worker kept) "
            "followed by a wrong 'started' and 'reply' for the next request (seq + 1: max^n's), "
            "so that one test's call decides another's",
            _ab("""
                import json

                value = _correct(game, state, alpha, beta, depth)
                if depth > 0:
                    return value
                from grader.sandbox.reply_parts import trace_ids
                seq = _request()["seq"]
                trace = _sys.modules["__main__"]._Stash.trace
                generated, evaluated, _ = trace_ids(trace, 600_000)
                lines = [{"event": "reply", "seq": seq, "status": "ok", "value": value,
                          "generated": generated, "evaluated": evaluated},
                         {"event": "started", "seq": seq + 1, "function": "maxn"},
                         {"event": "reply", "seq": seq + 1, "status": "ok", "function": "maxn",
                          "value": {"$tuple": [0, 0, 0]}, "generated": [], "evaluated": []}]
                _forge(b"".join(json.dumps(line).encode() + b"\\n" for line in lines), tail=b"")
                return value
            """, prelude=REQUEST + CORRECT_KEPT), scope="none"),
    _attack("forged_markdown_reply", "forgery",
            "a forged 'started' and 'timeout' reply whose function name and message write "
            "Markdown and HTML (a heading, an image, a link) into the feedback",
            _ab("""
                import json
                seq = _request()["seq"]
                fake = "x` ![](https://example.com/t.png) `"
                forged = {"event": "reply", "seq": seq, "function": fake, "status": "timeout",
                          "message": "\\n\\n# Full marks\\n<img src=x onerror=alert(1)> "
                                     "[regrade](https://example.com) \\x1b[2J\\u202e"}
                _forge(json.dumps(forged).encode(), tail=b"\\n")
                return 3
            """, prelude=REQUEST),
            # no heading, HTML or link is left unescaped, nor the escape or the bidi override
            message=r"(?m)\A(?![\s\S]*(^# |(?<!\\)<img|(?<!\\)\]\(|`x` !|\x1b|\u202e))"
                    r"[\s\S]*stopped by the time limit"),
    _attack("markdown_folder_name", "forgery",
            "search.py uploaded in a folder whose name closes the code span of 'Graded `...`' "
            "and writes HTML and bold text into the results' top-level output",
            "", folder="x` <img src=x onerror=alert(1)> **full marks** `y", scope="none",
            output=r"Graded ``x` <img src=x onerror=alert\(1\)> \*\*full marks\*\* "
                   r"`y/search\.py``: "),
    _attack("returns_markup", "forgery",
            "a returned string of HTML and a Markdown link, quoted by the value's verdict",
            _ab("""
                return "<img src=x onerror=alert(1)> [regrade](https://example.com)"
            """), message=r"(?m)\A(?![\s\S]*((?<!\\)<img|(?<!\\)\]\())[\s\S]*expected a number"),
    _attack("forged_markup_ids", "forgery",
            "a forged reply with the right value and trace ids of HTML and a Markdown heading, "
            "quoted by the trace's feedback (first difference, extras, the step note)",
            _ab("""
                import json
                forged = {"event": "reply", "seq": _request()["seq"], "status": "ok", "value": 3,
                          "generated": ["B", "<img src=x onerror=alert(1)>", "\\n# Full marks"],
                          "evaluated": ["<img src=y>"]}
                _forge(json.dumps(forged).encode(), tail=b"\\n")
                return 3
            """, prelude=REQUEST), score=0.5,  # (inside a code block, the ids are text anyway)
            message=r"\A(?=[\s\S]*pruned them: \\<img src=x)(?=[\s\S]*Yours\s+generated\s+\\<img)"),
    _attack("forged_packed_index", "forgery",
            "a forged reply whose packed trace names an entry past its ids table (the packed "
            "form of grader.run.packing)",
            _ab("""
                import binascii, json  # (the worker's own: other modules may be unreadable)
                from array import array
                indexes = array("I", [0, 0, 7]).tobytes()
                forged = {"event": "reply", "seq": _request()["seq"], "status": "ok", "value": 3,
                          "ids": ["A"], "evaluated": "",
                          "generated": binascii.b2a_base64(indexes, newline=False).decode()}
                _forge(json.dumps(forged).encode(), tail=b"\\n")
                return 3
            """, prelude=REQUEST),
            message=r"sent a malformed message \(generated: expected a packed"),
    _attack("forged_packed_long", "forgery",
            "a forged packed trace of 2 million indexes (8 MB, within the channel's byte cap, "
            "past the request's trace limit): refused by its length, before it is decoded",
            _ab("""
                import binascii, json
                forged = {"event": "reply", "seq": _request()["seq"], "status": "ok", "value": 3,
                          "ids": ["A"], "evaluated": "",
                          "generated": binascii.b2a_base64(bytes(8_000_000),
                                                           newline=False).decode()}
                _forge(json.dumps(forged).encode(), tail=b"\\n")
                return 3
            """, prelude=REQUEST),
            message=r"sent a malformed message \(generated: expected a packed"),
    _attack("huge_strings", "forgery",
            "a list of 9,000 strings of 2,000 characters (18 MB, within the channel's caps): "
            "kept whole in the grader's memory and in results.json, once a test",
            _ab('return ["<b>" + "x" * 2000] * 9000'),
            message=r"expected a number[^\n]*got \(\\<a string of 2,003 characters"),
    _attack("forged_long_ids", "forgery",
            "a forged reply with the right value and 1,900 trace ids of 1,000 characters: "
            "2 MB of results.json a test (the HTML report's replay kept them)",
            _ab("""
                import json
                ids = ["%04d" % i + "x" * 996 for i in range(1900)]
                forged = {"event": "reply", "seq": _request()["seq"], "status": "ok",
                          "value": 3, "generated": ids, "evaluated": ids}
                _forge(json.dumps(forged).encode(), tail=b"\\n")
                return 3
            """, prelude=REQUEST),  # (more ids than the work budget allows: a budget stop)
            message=r"stopped after 1,400 `result` calls"),
    _attack("forged_low_calls", "forgery",
            "a forged reply with the right value, 1,900 trace ids (past the work budget, within "
            "the rounded one the worker is told) and a count of 0 calls: graded on the value "
            "with a wrong trace (partial credit) if the parent believed the count",
            _ab("""
                import json
                ids = ["n%04d" % i for i in range(1900)]
                forged = {"event": "reply", "seq": _request()["seq"], "status": "ok",
                          "value": 3, "generated": ids, "evaluated": ids,
                          "calls": {"result": 0, "evaluated": 0}}
                _forge(json.dumps(forged).encode(), tail=b"\\n")
                return 3
            """, prelude=REQUEST),
            message=r"stopped after 1,400 `result` calls"),
    _attack("huge_exception_type", "forgery",
            "an exception class named with 49,000 characters raised at import: its name was "
            "the one string of the worker's not capped (98 kB a test; an 11 MB results.json "
            "for 111 tests, above the 8 MiB reserved beside it)",
            'raise type("X" * 49000, (Exception,), {})()\n', scope="module",
            message=r"could not be imported[\s\S]*X{90}\.\.\.", results_bytes=60_000),
    _attack("stale_reply_flood", "forgery",
            "three valid-looking replies of 8 MB written on the channel for a request that "
            "does not exist, then the right answer: each was parsed in full (0.73 grader CPU s "
            "for 24 MiB) before it was found stale",
            _ab("""
                import json
                if depth == 0:
                    stale = {"event": "reply", "seq": _request()["seq"] + 1, "status": "ok",
                             "value": 3, "generated": ["B"] * 1_000_000}
                    line = json.dumps(stale).encode()
                    for _ in range(3):
                        _forge(line, tail=b"\\n")
                return _correct(game, state, alpha, beta, depth)
            """, prelude=REQUEST + CORRECT_KEPT), scope="none"),
    _attack("huge_int", "forgery", "2**5000: float() of it raises OverflowError",
            _ab("return 2**5000"), message=r"expected a number[^\n]*int of 5001 bits"),
    _attack("huge_int_in_vector", "forgery", "max^n's vector holding 2**5000 and NaN",
            "def maxn(game, state, depth=0):\n    return (2**5000, float('nan'), 1)\n",
            target="maxn", message=r"expected \(.*got \(\\?<int of 5001 bits\\?>"),
    _attack("read_budget", "theft",
            "the reference's node counts read back from the request: its work budget (40 x the "
            "reference's calls + 1,000), trace limit (20 x + 10,000) and CPU allowance; "
            "returns the right value only when they match the count of its own search (a "
            "search that picks, among variants, the one the grader expects, on hidden cases too)",
            _ab("""
                value = _correct(game, state, alpha, beta, depth)
                if depth > 0:
                    return value
                request = _request()
                trace = _sys.modules["__main__"]._Stash.trace
                made = len(trace.generated)
                learned = (request["budget"]["result"] == 40 * made + 1000
                           or request["trace_limit"] == 20 * made + 10_000)
                return value if learned else 0
            """, prelude=REQUEST + CORRECT_KEPT), message=WRONG_VALUE),
    _attack("read_case_text", "theft",
            "max^n on a hidden case reads the case's name and description from the worker",
            REQUEST + textwrap.dedent("""
                _correct_maxn = maxn

                def maxn(game, state, depth=0):
                    case = _request()["case"]
                    if case.get("name") != "case" or case.get("description") != "case":
                        return _correct_maxn(game, state, depth)  # it learned something
                    return (0, 0, 0)
            """), target="maxn", message=r"expected \("),
    _attack("symlink_to_reference", "theft",
            "search.py uploaded as a symbolic link to the course's alpha_beta.py",
            "", link="source/reference/alpha_beta.py", scope="module",
            message=r"is a symbolic link, not a regular file"),
    _attack("nested_folders", "runaway",
            "1,500 nested folders in the scratch folder (shutil.rmtree recursed on them)",
            _ab("""
                import os
                if depth == 0:
                    for _ in range(1500):
                        os.mkdir("d")
                        os.chdir("d")
                return _correct(game, state, alpha, beta, depth)
            """, prelude=CORRECT_KEPT),
            # (on a loaded machine the folders or files may not all be made within the limit)
            message=r"ScratchLimitExceeded|more than 1,000 files|No space left on device|" + TIMEOUT),
    _attack("fill_the_disk", "runaway", "80 files of 1 MB written to the scratch folder",
            _ab("""
                for index in range(80 if depth == 0 else 0):
                    with open(f"filler-{index}", "wb") as out:
                        out.write(b"\\0" * 1_000_000)
                return _correct(game, state, alpha, beta, depth)
            """, prelude=CORRECT_KEPT),
            message=r"ScratchLimitExceeded|scratch folder|No space left on device|" + TIMEOUT),
    _attack("shared_memory", "escape", "20 MB written to /dev/shm, outside the memory limit",
            _ab("""
                for index in range(20):
                    with open(f"/dev/shm/grader-hostile-{index}", "wb") as out:
                        out.write(b"\\0" * 1_000_000)
                return 3
            """), message=REFUSED, fenced=True),
    _attack("run_lock", "escape",
            "20 MB written to /run/lock (mode 1777: Landlock was its only fence)",
            _ab("""
                for index in range(20):
                    with open(f"/run/lock/grader-hostile-{index}", "wb") as out:
                        out.write(b"\\0" * 1_000_000)
                return 3
            """), message=REFUSED, fenced=True),
    _attack("sysv_shared_memory", "runaway",
            "five System V shared-memory segments made and filled: they outlived the grader "
            "(256 MiB each, 1.28 GB owned by the worker's user; shmmax unlimited)",
            _ab("""
                import ctypes
                if depth == 0:
                    libc = ctypes.CDLL(None, use_errno=True)
                    libc.shmat.restype = ctypes.c_void_p
                    for index in range(5):  # IPC_CREAT | 0o666
                        ident = libc.shmget(SYSV_KEY + index, 1 << 20, 0o1666)
                        address = libc.shmat(ident, None, 0)
                        if ident >= 0 and address not in (None, ctypes.c_void_p(-1).value):
                            ctypes.memset(address, 1, 1 << 20)
                            libc.shmdt(ctypes.c_void_p(address))
                return _correct(game, state, alpha, beta, depth)
            """, prelude=CORRECT_KEPT + f"SYSV_KEY = {SYSV_KEY}\n"), scope="none"),
    _attack("sysv_shared_memory_hoard", "runaway",
            "graded with --jobs 2, each worker's import makes 32 System V segments of 64 MiB, "
            "fills and detaches each (RLIMIT_AS sees one at a time, no process's RSS any): "
            "Shmem reached 4.1 GB in one grade, 2 GiB a worker, and the score was full. Its "
            "alpha_beta refuses to answer without the 2 GiB: seccomp refuses shmget (EPERM), "
            "the IPC namespace's caps hold it to 16 MiB a worker where seccomp cannot",
            SYSV_HOARD.format(size=64, count=32), scope="function", jobs=2, shmem_rise=600,
            message=r"MemoryError: System V shared memory: got (0|16) of 2048 MiB"),
    _attack("sysv_shared_memory_hoard_small", "runaway",
            "the same with 46 segments of 8 MiB a worker (736 MiB for two): in a 768 MiB "
            "memory cgroup the kernel killed the grader, the largest process (exit 137, no "
            "results file; tests/test_memory_attacks.py grades it in such a cgroup)",
            SYSV_HOARD.format(size=8, count=46), scope="function", jobs=2, shmem_rise=600,
            message=r"MemoryError: System V shared memory: got (0|8|16) of 368 MiB"),
    _attack("honest_stdlib_imports", "accident",
            "a correct solution importing logging, queue.PriorityQueue, pprint, datetime, "
            "hashlib, csv, uuid and base64: as root with Python under /root (mode 700) the "
            "worker's user could not read them after the privilege drop, and it scored 0/147 "
            "(No module named 'logging')",
            HONEST_IMPORTS, scope="none"),
    # --- uploads: read by the grader's own process, before any worker -----------------------
    _attack("zip_unsupported_method", "accident",
            "a zip whose search.py is stored by a compression method Python lacks: it made "
            "the grader fail (NotImplementedError), a 'problem on the course staff's side'",
            "", upload="zip_unsupported_method", scope="module",
            message=r"not a readable zip file: That compression method is not supported"),
    _attack("zip_encrypted", "accident",
            "a zip with a password: it made the grader fail (RuntimeError)",
            "", upload="zip_encrypted", scope="module",
            message=r"not a readable zip file: .*password required"),
    _attack("zip_corrupt_stream", "accident",
            "a zip whose deflated search.py is damaged: it made the grader fail (zlib.error)",
            "", upload="zip_corrupt_stream", scope="module",
            message=r"not a readable zip file: Error -3 while decompressing"),
    _attack("zip_overlapping_members", "runaway",
            "a 30 kB zip naming one 20 MB search.py 200 times: each read of the upload cost "
            "the grader 30 s of decompression (three reads a grading, one more a worker start)",
            "", upload="zip_overlapping_members", scope="module",
            message=r"holds 200 files named search\.py, more than the 10 the grader compares"),
    _attack("zip_many_entries", "runaway",
            "a 10 MB zip listing 180,000 files: zipfile read its whole directory, some 110 MB of "
            "the grader's memory at each of the four reads of the upload",
            "", upload="zip_many_entries", scope="module",
            message=r"lists too many files for the grader to read"),
    _attack("nested_folders_upload", "accident",
            "an upload holding 1,500 nested folders beside search.py: finding search.py raised "
            "RecursionError in the grader (os.walk)",
            "", upload="nested_folders", scope="none"),
    _attack("dangling_link_upload", "accident",
            "an upload holding a symbolic link to nothing beside search.py: in grader batch, "
            "stat() of it raised FileNotFoundError and no submission was graded",
            "", upload="dangling_link", scope="none"),
    _attack("poisoned_table", "runaway",
            "alpha_beta_tt searches right, then fills the table the grader handed in with "
            "entries whose len(), == and hash loop forever: the worker sums the table up after "
            "the search returned, outside its time guard, so it must run none of their code",
            textwrap.dedent("""
                class _Forever(tuple):
                    def __len__(self):
                        while True:
                            pass

                class _Bound(str):
                    def __eq__(self, other):
                        while True:
                            pass

                    __hash__ = str.__hash__

                _correct_tt = alpha_beta_tt

                def alpha_beta_tt(game, state, table, alpha=-math.inf, beta=math.inf, depth=0):
                    value = _correct_tt(game, state, table, alpha, beta, depth)
                    if depth == 0:
                        for i in range(1000):
                            table[("poison", i)] = _Forever((1, 2, 3))
                            table[("bound", i)] = (value, _Bound("exact"), 0)
                    return value
            """), target="alpha_beta_tt", scope="none"),
    _attack("notebook_markup", "forgery",
            "a notebook whose dropped IPython line closes its code span and writes HTML and "
            "bold text into the results' output, and a comment after 20,000 spaces on which "
            "the grader's IPython-line pattern backtracked for hours",
            "", upload="notebook", scope="none",
            output=r"cell 2, line 1: `` %time 1 ` <img src=x onerror=alert\(1\)> "
                   r"\*\*full marks\*\* ` ``"),
    _attack("notebook_surrogate", "forgery",
            "a notebook cell holding a lone surrogate (JSON escapes it, UTF-8 cannot hold it): "
            "every test was a 'problem on the course staff's side' (and in PrairieLearn a "
            "submission not counted: an attempt for free)",
            "", upload="notebook_surrogate", scope="module",
            message=r"cell 2, line 1: holds the character U\+D800"),
    _attack("notebook_many_line_references", "runaway",
            "a notebook of 4,999 cells whose alpha_beta raises an error naming search.py:9999 "
            "and its neighbours hundreds of times: relabelling each reference walked every "
            "cell (quadratic: ~8 grader CPU s a test), and the notebook was converted again "
            "at each worker start",
            _ab("""
                raise ValueError(" ".join(f"search.py:{line}" for line in range(9000, 9300)))
            """), upload="notebook_cells",
            message=r'raised an exception[\s\S]*File "search\.ipynb", cell 4999, line'),
    # --- accidents ------------------------------------------------------------------------
    _attack("syntax_error", "accident", "a syntax error: nothing in the file can run",
            "def alpha_beta(game, state:\n    return 3\n", scope="module",
            message=r"could not be imported[\s\S]*SyntaxError"),
    _attack("import_error", "accident", "an import of a module that is not installed",
            "import numpy_is_not_installed_here\n", scope="module",
            message=r"could not be imported[\s\S]*ModuleNotFoundError"),
    _attack("missing_function", "accident", "alpha_beta deleted", "del alpha_beta\n",
            message=r"has no function `alpha_beta`"),
    _attack("wrong_signature", "accident", "alpha_beta taking one argument",
            "def alpha_beta(game):\n    return 3\n", message=r"TypeError"),
    _attack("returns_none", "accident", "a search that forgets to return at the root",
            _ab("""
                value = _correct(game, state, alpha, beta, depth)
                if depth > 0:
                    return value
            """, prelude=CORRECT_KEPT), message=r"got None"),
    _attack("returns_string", "accident", "the root value as a string",
            _ab("""
                value = _correct(game, state, alpha, beta, depth)
                return value if depth > 0 else str(value)
            """, prelude=CORRECT_KEPT), message=r"expected a number"),
    _attack("nondeterministic", "accident", "children explored in random order (global RNG)",
            _ab("""
                import random
                if game.is_cutoff(state, depth):
                    return game.evaluate(state)
                actions = list(game.actions(state))
                random.shuffle(actions)
                maximize = game.to_move(state) == MAX
                v = -math.inf if maximize else math.inf
                for action in actions:
                    child = alpha_beta(game, game.result(state, action), alpha, beta, depth + 1)
                    v = max(v, child) if maximize else min(v, child)
                    if (v >= beta) if maximize else (v <= alpha):
                        return v
                    alpha, beta = (max(alpha, v), beta) if maximize else (alpha, min(beta, v))
                return v
            """), message=r"generated", score=0.5),
    _attack("burns_the_allowance", "runaway",
            "a search that calls the game, spending 0.3 CPU s between calls (never a window "
            "without one): every test's CPU limits summed passed the platform's budget (746 CPU "
            "s for one submission); at a 3 s budget its call ends at the submission's allowance",
            """
            def maxn(game, state, depth=0):
                import time
                while True:
                    started = time.process_time()
                    while time.process_time() - started < 0.3:
                        pass
                    game.result(state, game.actions(state)[0])
            """, target="maxn", budget=3, slow=True,  # an allowance of 1.5 CPU s: the two
            # workers' starts (0.15 s each idle, 0.5 loaded) and the visible tests before fit
            message=TIMEOUT + r": your code used the submission's whole CPU allowance"),
    _attack("prints_a_lot", "accident", "a correct search printing 2 MB of debugging output",
            _ab("""
                if depth == 0:
                    for _ in range(2000):
                        print("visiting the root", "x" * 1000)
                return _correct(game, state, alpha, beta, depth)
            """, prelude=CORRECT_KEPT), scope="none"),
]
BY_NAME = {attack.name: attack for attack in ATTACKS}
assert len(BY_NAME) == len(ATTACKS), "attack names must be unique"

# Attacks whose defence is the same whoever runs the grader: the CPU and time guards (the
# worker's timer and RLIMIT_CPU, the parent's watch of /proc), the work budget, exits and
# crashes of the worker itself, the limits on memory and output, and everything the parent does
# with what the worker sends or the upload holds (parsing replies, values, traces, zips,
# notebooks), and thefts from the worker's own memory (the parent sends it no secret, and runs
# the visible tests first). None of them reaches a file, a process or a shared place outside
# the worker, so neither the privilege drop nor the namespaces nor the file modes nor Landlock
# take part: tests/test_hostile grades them as root (Gradescope's way) and not again as a
# normal user or with Landlock off, where they cost a third of the corpus's time (the
# CPU-burning ones most) and checked nothing new. Everything else (theft of files, the fenced
# attacks, signals to other processes, the scratch folder, shared memory and System V IPC, two
# workers, the standard library's exposure, walking the upload's folders) is graded every way.
SAME_FOR_ANY_USER = frozenset({
    # the time guards and the work budget
    "infinite_loop", "swallow_timeout", "swallow_ignoring_sigxcpu", "swallow_blocking_sigxcpu",
    "ignore_cpu_signals", "replace_signal_function", "replace_alarm_handler", "c_loop_sum",
    "c_loop_regex", "endless_game_calls", "sleep_past_limit", "deadlock", "stop_self",
    "sleep_in_bursts", "slow_seed_hook", "sleeping_seed_hook", "burns_the_allowance",
    # the worker's own limits, exits and crashes
    "deep_recursion", "recursion_limit", "memory_bomb", "output_flood", "output_flood_fd",
    "prints_a_lot", "sys_exit", "os_exit", "raise_system_exit", "keyboard_interrupt",
    "kill_self",
    # what the parent makes of the worker's replies and values
    "print_fake_results", "patch_unittest", "patch_gradescope_utils", "patch_tracing",
    "shadow_inherited_method", "shadow_builtin_in_module", "rebase_game_class",
    "swap_function_code", "defaults_equal_to_anything",
    "patch_compare", "patch_worker_clock", "eq_always_true", "float_subclass", "nan",
    "markdown_breakout", "forged_grader_error", "forged_huge_trace", "forged_long_trace",
    "forged_long_trace_minimax", "forged_malformed_reply", "forged_next_reply",
    "forged_markdown_reply", "returns_markup", "forged_markup_ids", "forged_packed_index",
    "forged_packed_long", "huge_strings", "forged_long_ids", "forged_low_calls",
    "huge_exception_type", "stale_reply_flood", "huge_int", "huge_int_in_vector",
    "poisoned_table",
    # what the worker holds in its own memory
    "gc_walk", "frame_walk", "stash_hidden", "read_budget", "read_case_text",
    # the student's mistakes
    "syntax_error", "import_error", "missing_function", "wrong_signature", "returns_none",
    "returns_string", "nondeterministic",
    # what the parent makes of the upload's contents (zips, notebooks, a folder's name)
    "markdown_folder_name", "zip_unsupported_method", "zip_encrypted", "zip_corrupt_stream",
    "zip_overlapping_members", "zip_many_entries", "notebook_markup", "notebook_surrogate",
    "notebook_many_line_references",
})
assert SAME_FOR_ANY_USER <= set(BY_NAME), SAME_FOR_ANY_USER - set(BY_NAME)
assert not any(BY_NAME[name].fenced or BY_NAME[name].jobs or BY_NAME[name].link
               for name in SAME_FOR_ANY_USER), "the OS's fences differ by user"
assert all(attack.category in CATEGORIES for attack in ATTACKS)


def submission_text(attack: Attack, base: Path = CORRECT) -> str:
    """The correct solution with ``attack``'s source appended (overriding its target)."""
    return (
        base.read_text().rstrip()
        + f"\n\n\n# --- hostile corpus: {attack.name} ({attack.category}): "
        + f"{attack.description} ---\n"
        + attack.source
    )


def write_submission(attack: Attack, folder: Path, base: Path = CORRECT) -> Path:
    """Write ``folder/search.py`` for ``attack``; returns its path (with ``upload``: what its
    maker wrote into ``folder``, the path to give the grader)."""
    folder = folder / attack.folder if attack.folder else folder
    folder.mkdir(parents=True, exist_ok=True)
    if attack.upload:
        return UPLOADS[attack.upload](folder, submission_text(attack, base))
    path = folder / "search.py"
    path.write_text(submission_text(attack, base))
    return path


# Left out by write_all: 1,500 nested folders break whatever removes the folder afterwards
# with shutil.rmtree or TemporaryDirectory (they recurse before Python 3.12); only
# tests/test_hostile.py writes it, and removes it itself.
NOT_WRITTEN_BY_WRITE_ALL = ("nested_folders",)


def write_all(out: Path, base: Path = CORRECT) -> list[Path]:
    """``out/<name>/search.py`` (or what its upload maker writes) for every attack but those
    of :data:`NOT_WRITTEN_BY_WRITE_ALL`."""
    return [write_submission(attack, Path(out) / attack.name, base) for attack in ATTACKS
            if attack.upload not in NOT_WRITTEN_BY_WRITE_ALL]


# Forged replies to the evaluate assignment's request (a batch of positions, one reply of
# numbers): each must be a crash of the worker, never values (tests/test_play.py runs them).
EVALUATE_FORGERIES = {
    "too_few": '{"event": "reply", "seq": %d, "status": "ok", "value": [1.0]}',
    "strings": '{"event": "reply", "seq": %d, "status": "ok", "value": ["1", "2", "3"]}',
    "nan": '{"event": "reply", "seq": %d, "status": "ok", "value": [1, {"$float": "nan"}, 3]}',
    # floats only (the parent's quick path for the worker's own replies), one not finite
    "nan_literal": '{"event": "reply", "seq": %d, "status": "ok", "value": [1.0, NaN, 3.0]}',
    "infinity": '{"event": "reply", "seq": %d, "status": "ok", "value": [1.0, 2.0, -Infinity]}',
    "huge_int": '{"event": "reply", "seq": %d, "status": "ok", "value": [1, 2, ' + "9" * 400 + "]}",
    "not_a_list": '{"event": "reply", "seq": %d, "status": "ok", "value": {"$dict": []}}',
    "oversized": None,  # 200,000 numbers for 3 positions: refused before it is decoded
}


# An evaluate that returns the handout's built-in heuristic (grader/games), reached through the
# evaluation game's bound methods: the game behind them is sealed, so the call is refused
# (issue 40; tests/test_play.py).
BUILT_IN_HEURISTIC = "def evaluate(game, state):\n    return game.board.__self__._heuristic(state)\n"

# Issue 40: evaluate reaching the grader's own game object (uncounted, with its built-in
# heuristic) and searching one ply deeper with it, leaves scored by the grader's heuristic:
# through ``game.board.__self__`` it earned 13.5 of 14 evaluate points, its calls outside the
# budget. Each route finds a game *instance* that has the heuristic, or raises; the search is
# the same for all. Each must earn at most half the evaluate points (tests/test_play.py).
RAW_GAME_ROUTES = {
    "bound_self": """
def _raw(game):
    return game.board.__self__
""",
    "func_globals": """
def _raw(game):
    for method in (game.board, game.result, game.utility, game.actions, game.is_terminal):
        for value in list(getattr(getattr(method, "__func__", method), "__globals__", {}).values()):
            if hasattr(value, "_heuristic") and not isinstance(value, type):
                return value
    raise LookupError("no game instance in the globals")
""",
    "closure": """
def _raw(game):
    seen, pending = set(), [game.result, game.utility, game.board]
    while pending:
        item = pending.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if hasattr(item, "_heuristic") and not isinstance(item, type) and item is not game:
            if type(item).__name__.startswith("Sealed"):
                continue  # the sealed one refuses: look on for the grader's own
            return item
        function = getattr(item, "__func__", item)
        for cell in getattr(function, "__closure__", None) or ():
            try:
                pending.append(cell.cell_contents)
            except ValueError:
                pass
        if hasattr(item, "__self__"):
            pending.append(item.__self__)
    raise LookupError("no unsealed game in the closures")
""",
    "gc_referrers": """
import gc as _gc


def _raw(game):
    state_holders = _gc.get_referrers(game) + _gc.get_objects()
    for item in state_holders:
        if (hasattr(item, "_heuristic") and not isinstance(item, type)
                and getattr(item, "rows", None) == game.rows
                and not type(item).__name__.startswith("Sealed")):
            return item
    for item in state_holders:  # else any instance of the game, sealed or not
        if hasattr(item, "_heuristic") and not isinstance(item, type) \
                and getattr(item, "rows", None) == game.rows:
            return item
    raise LookupError("no game instance through gc")
""",
    "inspect_frames": """
import inspect as _inspect


def _raw(game):
    frame = _inspect.currentframe()
    while frame is not None:
        for value in list(frame.f_locals.values()):
            if hasattr(value, "_heuristic") and not isinstance(value, type) and value is not game:
                return value
        frame = frame.f_back
    raise LookupError("no game instance in the frames")
""",
}
RAW_GAME_SEARCH = """

def evaluate(game, state):
    raw = _raw(game)
    if raw.is_terminal(state):
        return raw._utility(state)
    values = []
    for action in raw.actions(state):
        child = raw._result(state, action)
        values.append(raw._utility(child) if raw.is_terminal(child) else raw._heuristic(child))
    return max(values) if raw.to_move(state) == 0 else min(values)
"""


def raw_game_evaluate_source(route: str) -> str:
    """An ``evaluate`` (appended to the correct solution) that finds the grader's game by
    ``route`` (:data:`RAW_GAME_ROUTES`) and scores a search one ply deeper with its heuristic."""
    return RAW_GAME_ROUTES[route].strip() + "\n" + RAW_GAME_SEARCH


def forged_evaluate_source(name: str) -> str:
    """A search.py whose ``evaluate`` writes forgery ``name`` (:data:`EVALUATE_FORGERIES`) on
    the worker's channel for the request being served."""
    text = EVALUATE_FORGERIES[name]
    if text is None:
        forge = ('head = (\'{"event": "reply", "seq": %d, "status": "ok", "value": [\' '
                 '% _request()["seq"]).encode()\n'
                 '    _forge(head, [b"1," * 200_000], b"1]}\\n")')
    else:
        forge = f"_forge(({text!r} % _request()['seq']).encode(), tail=b'\\n')"
    return REQUEST + f"\n\ndef evaluate(game, state):\n    {forge}\n    return 0\n"


# Forged replies to a batch of searches (Worker.search_positions: the assumptions cases ask
# the values of a decision's children, and those a correct agent meets next, in one request):
# each must be a crash of the worker, never values (tests/test_assumptions.py runs them on a
# batch of three positions).
BATCH_FORGERIES = {
    # a value for a child the grader did not ask
    "too_many": '{"event": "reply", "seq": %d, "status": "ok", '
                '"answered": [[1, 1, 1], [2, 1, 1], [3, 1, 1], [4, 1, 1]]}',
    # "ok" with the values of only some of the children, the next one's a number
    "too_few": '{"event": "reply", "seq": %d, "status": "ok", "answered": [[1, 1, 1]], '
               '"value": 2}',
    "strings": '{"event": "reply", "seq": %d, "status": "ok", '
               '"answered": [["1", 1, 1], ["2", 1, 1], ["3", 1, 1]]}',
    "huge_int": '{"event": "reply", "seq": %d, "status": "ok", '
                '"answered": [[1, 1, 1], [2, 1, 1], [' + "9" * 400 + ', 1, 1]]}',
    # a failure for a child after the last one asked
    "failure_after_all": '{"event": "reply", "seq": %d, "status": "error", "message": "x", '
                         '"answered": [[1, 1, 1], [2, 1, 1], [3, 1, 1]]}',
    "oversized": None,  # 200,000 answers for 3 positions: refused before it is decoded
}


def forged_batch_source() -> str:
    """A search.py whose ``alpha_beta`` writes forgery number ``game.depth_limit`` (from 1) of
    :data:`BATCH_FORGERIES` on the worker's channel for the batch being served, then returns
    0 (one file for them all: the test picks a forgery by the batch's depth limit)."""
    forged = {name: text for name, text in BATCH_FORGERIES.items() if text is not None}
    oversized = list(BATCH_FORGERIES).index("oversized") + 1
    return REQUEST + textwrap.dedent(f"""

        import math

        FORGED = {list(forged.values())!r}


        def alpha_beta(game, state, alpha=-math.inf, beta=math.inf, depth=0):
            seq = _request()["seq"]
            if game.depth_limit == {oversized}:
                head = ('{{"event": "reply", "seq": %d, "status": "ok", "answered": [' % seq)
                _forge(head.encode(), [b"[1, 1, 1]," * 200_000], b"[1, 1, 1]]}}\\n")
            else:
                _forge((FORGED[game.depth_limit - 1] % seq).encode(), tail=b"\\n")
            return 0
        """)


# Forged messages to a batch of seeds (Worker.run_seeds: an MCTS outcome test's seeds in one
# request, each a call of its own that says it begins): a reply that does not fit the batch must
# be a crash of the worker at its first seed, never moves; a forged "started" must never name a
# seed past the next one, nor break the grader (tests/test_seed_batch.py runs them on a batch of
# three seeds; the batch's iterations pick the forgery). A "started" for the NEXT seed, with an
# answer, is the one the worker sends when the seed running returns, byte for byte: the parent
# cannot tell it from the real one, so it places a failure of the submission's own at the next
# seed, the forged move among the answers (the test fails either way: "started_next"); its CPU
# figure is cut at what the parent read, so it never makes a time-out the whole allowance's.
SEED_FORGERIES = {
    # a move for a seed the grader did not ask
    "too_many": '{"event": "reply", "seq": %d, "status": "ok", '
                '"answered": [["a", 1, 1], ["a", 1, 1], ["a", 1, 1], ["a", 1, 1]]}',
    # "ok" with the moves of only some of the seeds: a forged "ok" before the last
    "ok_before_last": '{"event": "reply", "seq": %d, "status": "ok", "answered": [["a", 1, 1]], '
                      '"value": "a"}',
    # an answer that is not a move and two counts
    "counts_not_numbers": '{"event": "reply", "seq": %d, "status": "ok", '
                          '"answered": [["a", "1", 1], ["a", 1, 1], ["a", 1, 1]]}',
    "answer_not_a_list": '{"event": "reply", "seq": %d, "status": "ok", '
                         '"answered": [{"move": "a"}, ["a", 1, 1], ["a", 1, 1]]}',
    "huge_count": '{"event": "reply", "seq": %d, "status": "ok", '
                  '"answered": [["a", 1, 1], ["a", ' + "9" * 400 + ', 1], ["a", 1, 1]]}',
    # a failure for a seed after the last one asked
    "failure_after_all": '{"event": "reply", "seq": %d, "status": "error", "message": "x", '
                         '"answered": [["a", 1, 1], ["a", 1, 1], ["a", 1, 1]]}',
    # "started" for a seed past the batch's end, then the process gone: the crash is the
    # first seed's (the one that ran), never an index the grader looks up out of range
    "started_out_of_range": '{"event": "started", "seq": %d, "position": 50, "answered": []}',
    # "started" for the third seed while the first runs, then the process gone: the seeds
    # before it never answered, so the crash is not the third seed's
    "started_ahead": '{"event": "started", "seq": %d, "position": 2, "answered": []}',
    "oversized": None,  # 200,000 answers for 3 seeds: refused before it is decoded
    # "paused" (the batch ended after a seed past half its budget) with no new answer: it would
    # have the parent ask the same seeds again, for ever
    "paused_empty": '{"event": "reply", "seq": %d, "status": "ok", "paused": true, '
                    '"answered": []}',
    # "paused" after a seed within half its budget: the worker never pauses there
    "paused_within_half": '{"event": "reply", "seq": %d, "status": "ok", "paused": true, '
                          '"answered": [["a", 1, 1]]}',
    # a time-out of the first seed saying the seeds before it took 10^300 CPU seconds: the
    # worker's word places its own time-out, but the figure must not make it the whole
    # allowance's ("your code used the submission's whole CPU allowance")
    "timeout_claims_all": '{"event": "reply", "seq": %d, "status": "timeout", "message": "x", '
                          '"answered": [], "answered_cpu": 1e300}',
    # "started" for the second seed, with a move for the first and 10^300 CPU seconds, while
    # the first runs, then a sleep the parent kills: what the worker would send had the first
    # seed returned "FORGED" and the second slept (indistinguishable: the kill is the second
    # seed's), but not the whole allowance's
    "started_next": '{"event": "started", "seq": %d, "position": 1, "answered_cpu": 1e300, '
                    '"answered": [["FORGED", 0, 0]]}',
}
SEED_FORGERIES_THEN_EXIT = ("started_out_of_range", "started_ahead")
SEED_FORGERIES_THEN_SLEEP = ("started_next",)


def forged_seeds_source() -> str:
    """A search.py whose ``mcts`` writes forgery number ``iterations`` (from 1) of
    :data:`SEED_FORGERIES` on the worker's channel for the batch being served, then returns
    its first action (after a forged "started": ends the process, as a crash would, or sleeps
    until the parent kills it)."""
    forged = list(SEED_FORGERIES.values())  # number n is FORGED[n - 1] (None: "oversized")
    oversized = list(SEED_FORGERIES).index("oversized") + 1
    exits = [list(SEED_FORGERIES).index(name) + 1 for name in SEED_FORGERIES_THEN_EXIT]
    sleeps = [list(SEED_FORGERIES).index(name) + 1 for name in SEED_FORGERIES_THEN_SLEEP]
    return REQUEST + textwrap.dedent(f"""

        import math
        import os
        import time

        FORGED = {forged!r}


        def mcts(game, state, iterations, rng, c=math.sqrt(2)):
            seq = _request()["seq"]
            if iterations == {oversized}:
                head = ('{{"event": "reply", "seq": %d, "status": "ok", "answered": [' % seq)
                _forge(head.encode(), [b'["a", 1, 1],' * 200_000], b'["a", 1, 1]]}}\\n')
            else:
                _forge((FORGED[iterations - 1] % seq).encode(), tail=b"\\n")
            if iterations in {exits!r}:
                os._exit(3)
            if iterations in {sleeps!r}:
                time.sleep(60)
            return list(game.actions(state))[0]
        """)


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python tests/hostile/attacks.py OUT_DIR", file=sys.stderr)
        return 2
    paths = write_all(Path(argv[0]))
    print(f"wrote {len(paths)} hostile submissions under {argv[0]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
