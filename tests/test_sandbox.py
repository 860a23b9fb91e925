"""The sandbox worker: whatever search.py does, the grader gets plain data and goes on."""

from __future__ import annotations

import functools
import math
import os
import random
import re
import resource
import shutil
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

from grader.errors import GraderError
from grader.run.calibration import calibration_seconds
from grader.run.tracing import Budget
from grader.sandbox.client import Worker
from grader.sandbox.confine import landlock_abi
from grader.sandbox.limits import LANDLOCK_ENV, Limits, worker_users
from grader.sandbox.private import PRIVATE_ENV, coverable
from grader.sandbox.protocol import WorkerReply
from grader.sandbox.values import OpaqueValue, decode_value, encode_value

MIB = 1024 * 1024
FAST = Limits(time=0.5, kill_margin=0.5, import_time=0.5)


@functools.cache
def machine_calibration() -> float:
    """This machine's calibration (:mod:`grader.run.calibration`), timed once a process and
    given to the workers the tests start, as ``grade`` gives its workers the answer cache's:
    a worker left to time it itself does so at each of its starts (a start and a call, 0.22
    CPU s, is 0.14 with it given), and the files that import this start some 150 workers.
    tests/test_fast_paths.py checks both ways of getting it."""
    return calibration_seconds()

# AIMA Fig. 5.2 as a full tree: minimax value 3; alpha-beta prunes C2 and C3.
CASE = {
    "$schema": "../../grader/schema/case.schema.json",
    "name": "fig-5-2",
    "description": "AIMA Fig 5.2",
    "algorithms": ["minimax", "alpha_beta", "mcts"],
    "tree": {"id": "A", "player": "max", "children": [
        {"id": "B", "player": "min", "children": [
            {"id": "B1", "value": 3}, {"id": "B2", "value": 12}, {"id": "B3", "value": 8}]},
        {"id": "C", "player": "min", "children": [
            {"id": "C1", "value": 2}, {"id": "C2", "value": 4}, {"id": "C3", "value": 6}]},
        {"id": "D", "player": "min", "children": [
            {"id": "D1", "value": 14}, {"id": "D2", "value": 5}, {"id": "D3", "value": 2}]},
    ]},
}  # fmt: skip

MINIMAX = """
import math
from grader.games import MAX, MIN

def max_value(game, state, depth=0):
    if game.is_cutoff(state, depth):
        return game.evaluate(state)
    v = -math.inf
    for action in game.actions(state):
        child = game.result(state, action)
        v = max(v, (max_value if game.to_move(child) == MAX else min_value)(game, child, depth + 1))
    return v

def min_value(game, state, depth=0):
    if game.is_cutoff(state, depth):
        return game.evaluate(state)
    v = math.inf
    for action in game.actions(state):
        child = game.result(state, action)
        v = min(v, (max_value if game.to_move(child) == MAX else min_value)(game, child, depth + 1))
    return v
"""


def submission(tmp_path: Path, body: str, name: str = "search.py") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(body))
    path.chmod(0o644)
    return path


@pytest.fixture
def worker_for(tmp_path):
    workers = []

    def make(body: str, limits: Limits = FAST) -> Worker:
        worker = Worker(submission(tmp_path, body), limits=limits,
                        calibration=machine_calibration())
        workers.append(worker)
        return worker

    yield make
    for worker in workers:
        worker.close()


def test_correct_submission_returns_value_and_trace(worker_for):
    worker = worker_for(MINIMAX + "\nprint('loaded')\n")
    reply = worker.run(CASE, "minimax", time_limit=1.0)
    assert reply.status == "ok", reply
    assert reply.value == 3 and reply.function == "max_value"
    assert reply.generated == ["B", "B1", "B2", "B3", "C", "C1", "C2", "C3", "D", "D1", "D2", "D3"]
    assert reply.evaluated == ["B1", "B2", "B3", "C1", "C2", "C3", "D1", "D2", "D3"]
    assert reply.stdout == "loaded\n"  # the import's output comes with the first reply
    again = worker.run(CASE, "minimax", time_limit=1.0)
    assert again.status == "ok" and again.stdout == "" and worker.starts == 1


def test_mcts_gets_the_settings_and_a_seeded_rng(worker_for):
    worker = worker_for("""
        def mcts(game, state, iterations, rng, c):
            print(iterations, c, rng.random())
            return game.actions(state)[-1]
    """)
    reply = worker.run(CASE, "mcts", mcts={"iterations": 7, "seed": 3, "c": 0.5})
    assert reply.status == "ok" and reply.value == "D"
    assert reply.stdout == f"7 0.5 {random.Random(3).random()}\n"


def test_infinite_loop_times_out_and_the_next_request_gets_a_fresh_worker(worker_for):
    from grader.run.tracing import Budget

    worker = worker_for(MINIMAX + "\ndef alpha_beta(*args):\n    while True:\n        pass\n")
    # a small budget: the call's whole-CPU limit is barely above the window
    reply = worker.run(CASE, "alpha_beta", time_limit=0.3, budget=Budget(result=10, evaluated=10))
    assert reply.status == "timeout" and reply.function == "alpha_beta"
    # the reason is the right one: stopped a window in, never "calling the game only slowly"
    assert "0.30 s of CPU time without calling the game" in reply.message
    after = worker.run(CASE, "minimax")
    assert after.status == "ok" and after.value == 3
    assert worker.starts == 2


def test_swallowing_every_exception_is_still_a_timeout(worker_for):
    worker = worker_for("""
        def max_value(game, state, depth=0):
            while True:
                try:
                    while True:
                        pass
                except BaseException:
                    pass
    """)
    reply = worker.run(CASE, "minimax", time_limit=0.3)
    assert reply.status == "killed_timeout"
    assert "killed" in reply.message and "0.30 s" in reply.message
    # ended by the guard's next tick (SIGXCPU), not by the parent's CPU limit a second later
    assert "did not stop at the time-out" in reply.message


def test_swallowing_the_time_out_with_sigxcpu_ignored_still_ends_at_the_next_tick(worker_for):
    worker = worker_for("""
        import signal
        def max_value(game, state, depth=0):
            signal.signal(signal.SIGXCPU, signal.SIG_IGN)
            while True:
                try:
                    while True:
                        pass
                except BaseException:
                    pass
    """)
    reply = worker.run(CASE, "minimax", time_limit=0.3)
    assert reply.status == "killed_timeout" and "did not stop at the time-out" in reply.message


def test_a_c_level_loop_is_killed(worker_for):
    worker = worker_for("""
        def max_value(game, state, depth=0):
            return sum(range(10 ** 12))
    """)
    reply = worker.run(CASE, "minimax", time_limit=0.3)
    assert reply.status == "killed_timeout"
    assert worker.run(CASE, "minimax", time_limit=0.3).status == "killed_timeout"  # and again


def test_catching_the_timeout_and_returning_late_is_a_timeout(worker_for):
    worker = worker_for("""
        def max_value(game, state, depth=0):
            try:
                while True:
                    pass
            except:
                return 3
    """)
    reply = worker.run(CASE, "minimax", time_limit=0.3)
    assert reply.status == "timeout" and reply.value is None
    assert "caught the time-out" in reply.message


def test_os_exit_is_a_crash(worker_for):
    worker = worker_for(
        MINIMAX + "\nimport os\ndef alpha_beta(*args, **kwargs):\n    os._exit(0)\n"
    )
    reply = worker.run(CASE, "alpha_beta")
    assert reply.status == "crashed" and reply.function == "alpha_beta"
    assert "exited with code 0" in reply.message and "os._exit" in reply.message
    assert worker.run(CASE, "minimax").status == "ok"


def test_sys_exit_is_an_error_with_a_clear_message(worker_for):
    worker = worker_for("import sys\ndef max_value(game, state, depth=0):\n    sys.exit(3)\n")
    reply = worker.run(CASE, "minimax")
    assert reply.status == "error"
    assert reply.error["type"] == "SystemExit"
    assert reply.error["message"] == "search.py called sys.exit(3)"


def test_an_exception_reports_only_the_submissions_frames_and_the_partial_trace(worker_for):
    worker = worker_for("""
        def helper(game, state):
            game.result(state, game.actions(state)[0])
            return game.utility(state)

        def max_value(game, state, depth=0):
            return helper(game, state)
    """)
    reply = worker.run(CASE, "minimax")
    assert reply.status == "error"
    assert reply.error["type"] == "NotTerminalError"
    assert "not terminal" in reply.error["message"]
    text = reply.error["traceback"]
    assert 'File "search.py", line 7, in max_value' in text
    assert 'File "search.py", line 4, in helper' in text
    assert "grader" not in text and "/tmp" not in text
    assert reply.generated == ["B"]


def test_printing_100_mb_is_capped_and_costs_the_parent_nothing(worker_for):
    worker = worker_for(
        """
        import os, sys

        def max_value(game, state, depth=0):
            chunk = "x" * 1_000_000
            for _ in range(50):
                print(chunk)
                sys.stderr.write(chunk)
            return 1

        def min_value(game, state, depth=0):
            os.write(1, b"y" * 100_000_000)  # past Python's sys.stdout, straight to the fd
            return 2
    """,
        limits=Limits(time=10, kill_margin=1, output=10_000, flood=200 * MIB),
    )
    peak_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    reply = worker.run(CASE, "minimax")
    assert reply.status == "ok" and reply.value == 1
    assert len(reply.stdout) < 10_200 and "more bytes not shown" in reply.stdout
    assert len(reply.stderr) < 10_200
    min_root = dict(CASE, tree=dict(CASE["tree"], player="min"))
    raw = worker.run(min_root, "minimax")
    assert raw.status == "ok" and raw.value == 2
    assert raw.stdout.startswith("yyyy") and len(raw.stdout) < 10_200
    growth_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - peak_before
    assert growth_kib < 50_000


def test_printing_past_the_flood_limit_fails_the_call_whichever_way_it_prints(worker_for):
    worker = worker_for(
        """
        import os

        def max_value(game, state, depth=0):
            print("x" * 3_000_000)
            return 3

        def min_value(game, state, depth=0):
            os.write(1, b"y" * 3_000_000)
            return 3
    """,
        limits=Limits(time=5, flood=2 * MIB),
    )
    reply = worker.run(CASE, "minimax")
    assert reply.status == "error" and reply.value is None
    assert reply.error["type"] == "OutputLimitExceeded"
    assert "printed 3,000,001 bytes in one call" in reply.message
    min_root = dict(CASE, tree=dict(CASE["tree"], player="min"))
    assert worker.run(min_root, "minimax").error["type"] == "OutputLimitExceeded"


def test_a_memory_bomb_is_a_memory_error(worker_for):
    worker = worker_for(
        MINIMAX.replace("def min_value", "def unused")
        + """
def min_value(game, state, depth=0):
    hoard = []
    while True:
        hoard.append(bytearray(10_000_000))
""",
        limits=Limits(time=5, memory=256 * 1024 * 1024),
    )
    min_root = dict(CASE, tree=dict(CASE["tree"], player="min"))
    reply = worker.run(min_root, "minimax")
    assert reply.status in ("error", "crashed"), reply
    if reply.status == "error":
        assert reply.error["type"] == "MemoryError"
        assert "memory" in reply.error["message"]
    assert worker.run(CASE, "minimax").status == "error"  # max_value calls min_value, which bombs
    assert worker.starts == 2  # a fresh worker after a memory error


def test_a_syntax_error_is_an_import_error_on_every_request(worker_for):
    worker = worker_for(MINIMAX + "\ndef alpha_beta(game, state:\n    pass\n")
    for algorithm in ("minimax", "alpha_beta"):
        reply = worker.run(CASE, algorithm)
        assert reply.status == "import_error"
        assert reply.error["type"] == "SyntaxError"
        assert 'File "search.py", line 23' in reply.error["traceback"]
    assert worker.starts == 1


def test_an_exception_or_an_endless_loop_at_import_is_an_import_error(worker_for):
    raising = worker_for("print('hi')\nraise RuntimeError('no config file')\n")
    reply = raising.run(CASE, "minimax")
    assert reply.status == "import_error" and reply.stdout == "hi\n"
    assert reply.error["message"] == "no config file"
    assert 'File "search.py", line 2, in <module>' in reply.error["traceback"]
    looping = worker_for("while True:\n    pass\n")
    reply = looping.run(CASE, "minimax")
    assert reply.status == "import_error" and "longer than 0.5 s" in reply.error["message"]
    assert looping.run(CASE, "minimax").status == "import_error" and looping.starts == 1


def test_a_missing_file_is_an_import_error(tmp_path):
    with Worker(tmp_path / "nowhere" / "search.py", limits=FAST) as worker:
        reply = worker.run(CASE, "minimax")
    assert reply.status == "import_error" and "no submission" in reply.message


def test_a_missing_function_fails_only_itself(worker_for):
    worker = worker_for(MINIMAX + "\nalpha_beta = 42\n")
    missing = worker.run(CASE, "expectimax")
    assert missing.status == "missing_function" and missing.function == "expectimax"
    assert "no function 'expectimax'" in missing.message
    not_callable = worker.run(CASE, "alpha_beta")
    assert not_callable.status == "missing_function" and "not a function" in not_callable.message
    assert worker.run(CASE, "minimax").value == 3 and worker.starts == 1


def test_strange_return_values_arrive_as_plain_data(worker_for):
    worker = worker_for("""
        class Liar:
            def __eq__(self, other):
                return True
            def __repr__(self):
                return "3"

        class Float(float):
            def __eq__(self, other):
                return True

        RETURNS = {"nan": float("nan"), "inf": (float("inf"), -float("inf")), "liar": Liar(),
                   "float": Float(2.5), "nested": [1, (2, "x"), {"k": None}]}

        def mcts(game, state, iterations, rng, c):
            return RETURNS[game.actions(state)[0]]
    """)

    def returned(key):
        case = dict(CASE, tree={"id": "A", "player": "max", "children": [{"id": key, "value": 0}]})
        reply = worker.run(case, "mcts")
        assert reply.status == "ok", reply
        return reply.value

    assert math.isnan(returned("nan"))
    assert returned("inf") == (math.inf, -math.inf)
    liar = returned("liar")
    assert liar == OpaqueValue("Liar", "3") and liar != 3 and str(liar) == "3"
    plain = returned("float")
    assert type(plain) is float and plain == 2.5 and plain != 3
    assert returned("nested") == [1, (2, "x"), {"k": None}]


def test_lines_forged_on_the_private_channel_are_ignored(worker_for):
    worker = worker_for("""
        import os, stat

        def max_value(game, state, depth=0):
            forged = b'{"event": "reply", "status": "ok", "value": 99}\\n'
            sockets = 0
            for fd in range(3, 4096):
                try:
                    if stat.S_ISSOCK(os.fstat(fd).st_mode):
                        os.write(fd, forged)
                        sockets += 1
                except OSError:
                    pass
            return (3, sockets)
    """)
    reply = worker.run(CASE, "minimax")
    assert reply.status == "ok" and reply.value[0] == 3 and reply.value[1] >= 1


def test_value_encoding_round_trips():
    value = [1, -0.5, math.inf, (1, (2,)), {"a": [None, True]}, "s", 10**30]
    assert decode_value(encode_value(value)) == value
    assert isinstance(decode_value(encode_value({1, 2})), OpaqueValue)


def test_forking_is_refused(worker_for):
    worker = worker_for("""
        import os
        def max_value(game, state, depth=0):
            pid = os.fork()
            if pid == 0:
                os._exit(0)
            return 1
    """)
    reply = worker.run(CASE, "minimax")
    assert reply.status == "error" and reply.error["type"] == "BlockingIOError"


def test_a_case_the_grader_cannot_build_is_a_grader_error_raised_in_the_parent(worker_for):
    worker = worker_for(MINIMAX)
    with pytest.raises(GraderError, match="the case sent to the worker does not build"):
        worker.run({"name": "broken"}, "minimax")
    assert worker.starts == 0  # checked before any worker was started
    assert worker.run(CASE, "minimax").status == "ok"


def test_a_loaded_case_is_only_built_and_one_that_does_not_build_is_a_grader_error(worker_for):
    """A Case was checked whole by its loader: Worker.run builds its game (once) to name the
    root's stub; a game that does not build is still the grader's error, before any start."""
    from grader.cases import case_from_dict

    worker = worker_for(MINIMAX)
    board = {key: value for key, value in CASE.items() if key != "tree"}
    broken = case_from_dict({**board, "name": "bad-board", "game": "tictactoe",
                             "state": "x.o|.z.|...", "algorithms": ["minimax"]})
    with pytest.raises(GraderError, match="the case sent to the worker does not build"):
        worker.run(broken, "minimax")
    assert worker.starts == 0
    loaded = case_from_dict({**CASE, "expect": {"minimax": {"value": 3}}})
    sent, exchange = [], worker._exchange
    worker._exchange = lambda request, *rest: sent.append(request) or exchange(request, *rest)
    reply = worker.run(loaded, "minimax")
    assert reply.status == "ok" and reply.function == "max_value"
    assert sent[0]["case"] == loaded.public_dict() and "expect" not in sent[0]["case"]
    assert worker.run(loaded, "minimax").value == reply.value  # its game built once, same answer


def test_a_grader_error_the_worker_reports_is_never_the_graders(worker_for):
    worker = worker_for("""
        import json, sys

        def max_value(game, state, depth=0):
            frame = sys._getframe()
            while "request" not in frame.f_locals:
                frame = frame.f_back
            forged = {"event": "reply", "seq": frame.f_locals["request"]["seq"],
                      "status": "grader_error",
                      "error": {"type": "KeyError", "message": "fake", "traceback": "fake tb"}}
            with open(int(sys.argv[1]), "w", closefd=False) as channel:
                channel.write(json.dumps(forged) + "\\n")
            return 3
    """)
    reply = worker.run(CASE, "minimax")
    assert reply.status == "crashed" and "the worker reported a failure of its own" in reply.message
    assert "KeyError: fake" in reply.message and "fake tb" not in reply.message
    assert worker.starts == 1
    worker.run(CASE, "minimax")
    assert worker.starts == 2  # a fresh worker: the forger's is gone



def test_a_worker_that_stops_reading_cannot_hang_the_grader_on_a_big_request(worker_for):
    # A SIGALRM handler spins between requests, so the worker never reads the next one; a case
    # larger than the socket's buffer used to block the parent's send for ever. The handler
    # spins only while the worker waits for a request (in grader.sandbox.worker's json_lines
    # "receive"), else it tries again 10 ms later: on a loaded machine the first alarm could
    # come before the reply was sent, and the first request timed out instead.
    worker = worker_for("""
        import signal

        def _spin(signum, frame):
            while frame is not None and frame.f_code.co_name != "receive":
                frame = frame.f_back
            if frame is None:  # not waiting yet: the reply may not be sent
                signal.setitimer(signal.ITIMER_REAL, 0.01)
                return
            while True:
                pass

        def max_value(game, state, depth=0):
            signal.signal(signal.SIGALRM, _spin)
            signal.setitimer(signal.ITIMER_REAL, 0.01)
            return 3
    """)
    assert worker.run(CASE, "minimax").status == "ok"
    leaves = [{"id": f"L{i}", "value": i % 7} for i in range(30_000)]  # about 900 kB of JSON
    big = {**CASE, "tree": {"id": "A", "player": "max", "children": [
        {"id": f"B{j}", "player": "min", "children": leaves[100 * j:100 * (j + 1)]}
        for j in range(300)]}}
    reply = worker.run(big, "minimax", time_limit=0.3, budget=Budget(result=1, evaluated=1))
    assert reply.status == "killed_timeout", reply  # (no wall-clock bound: a hang never returns)


def test_limits_are_checked():
    with pytest.raises(ValueError, match="expected limit 'time' to be positive, got: 0"):
        Limits(time=0)


def test_the_worker_never_loads_the_reference(worker_for):
    worker = worker_for("""
        import sys
        def max_value(game, state, depth=0):
            return sorted(name for name in sys.modules
                          if name.split(".")[0] in ("reference", "grader") and "solve" in name
                          or name.split(".")[0] == "reference")
    """)
    reply = worker.run(CASE, "minimax")
    assert reply.status == "ok" and reply.value == []


def test_the_worker_imports_nothing_after_the_submission(worker_for):
    """Everything a request needs was imported before search.py: a module imported later could
    be one the student planted in sys.modules, or a file the dropped user cannot read. Calls
    that raise (the traceback), return a value with a repr of its own (the timed repr), run a
    built-in game, MCTS and a batch of seeds, then one returns what came after its import."""
    worker = worker_for("""
        import sys

        _AT_IMPORT = set(sys.modules)

        class Odd:
            def __repr__(self):
                return "odd"

        _odd = [Odd()]

        def max_value(game, state, depth=0):
            return [_odd.pop()] if _odd else 0  # the first call's value has a repr of its own

        def min_value(game, state, depth=0):
            raise ValueError("a traceback to format")

        def alpha_beta(game, state, depth=0, alpha=0, beta=0):
            return sorted(set(sys.modules) - _AT_IMPORT)

        def mcts(game, state, iterations, rng, c):
            return game.actions(state)[0]

        def evaluate(game, state):
            return 0.5
    """)
    from grader.run.tracing import Budget

    board = {key: value for key, value in CASE.items() if key != "tree"}
    game = {**board, "name": "board", "game": "tictactoe", "state": "x..|...|...",
            "algorithms": ["minimax"]}
    settings = {"iterations": 3, "seed": 1, "c": 0.5}
    budget = Budget(result=1000, evaluated=1000)
    assert worker.run(CASE, "minimax").status == "ok"
    assert worker.run(game, "minimax").status == "error"
    assert worker.run(CASE, "mcts", mcts=settings).status == "ok"
    assert worker.run_seeds(CASE, "mcts", mcts=settings, seeds=[1, 2],
                            budget=budget).status == "ok"
    assert worker.search_positions("tictactoe", {}, ["...|...|...", "xo.|...|..."], "minimax",
                                   depth_limit=1, budgets=[budget, budget]).status == "ok"
    assert worker.evaluate("tictactoe", {}, ["...|...|..."], calls=5, seed=0).status == "ok"
    reply = worker.run(CASE, "alpha_beta")
    assert reply.status == "ok" and reply.value == [] and worker.starts == 1, reply


def test_an_unknown_worker_user_is_a_grader_error(tmp_path):
    if os.geteuid() != 0:
        with pytest.raises(GraderError, match="needs root"):
            Worker(tmp_path / "search.py", user="root")
    with pytest.raises(GraderError, match="no user 'no-such-user-here'"):
        Worker(tmp_path / "search.py", user="no-such-user-here")


@pytest.mark.skipif(os.geteuid() != 0, reason="the privilege drop needs root")
def test_as_root_the_worker_drops_to_an_unprivileged_user(tmp_path, monkeypatch):
    monkeypatch.setenv(LANDLOCK_ENV, "0")  # the file modes alone, without Landlock's fence
    monkeypatch.setenv(PRIVATE_ENV, "0")  # and /tmp, where the files are, left open
    shared = Path(tempfile.mkdtemp(prefix="sandbox-test-"))  # traversable by everyone
    try:
        shared.chmod(0o755)
        secret, public = shared / "secret.txt", shared / "public.txt"
        secret.write_text("answers")
        secret.chmod(0o600)  # owned by root
        public.write_text("handout")
        public.chmod(0o644)
        project = Path(__file__).resolve().parent.parent
        path = submission(
            tmp_path,
            f"""
            import os

            def attempt(action):
                try:
                    action()
                    return True
                except OSError:
                    return False

            def max_value(game, state, depth=0):
                public = attempt(lambda: open({str(public)!r}).read())
                secret = attempt(lambda: open({str(secret)!r}).read())
                wrote = attempt(lambda: open({str(project / "pwned.txt")!r}, "w").write("x"))
                scratch = attempt(lambda: open("notes.txt", "w").write("x"))
                return (os.getuid(), os.getgid(), os.getgroups(), public, secret, wrote, scratch)
        """,
        )
        with Worker(path, limits=FAST, calibration=machine_calibration()) as worker:
            reply = worker.run(CASE, "minimax")
        assert reply.status == "ok", reply
        uid, gid, groups, public_read, secret_read, wrote, scratch = reply.value
        assert uid != 0 and gid != 0 and groups == []
        assert public_read and not secret_read  # the file mode, not the path, stops it
        assert not wrote and scratch  # it writes only its own scratch folder
        assert not (project / "pwned.txt").exists()
    finally:
        shutil.rmtree(shared)


def _others_can_read(folder: Path) -> bool:
    """Can a dropped-privilege worker reach ``folder``? (A checkout under a 0700 folder, such as
    ``mktemp -d``, is closed to it, and a lazy import of the grader then fails for that reason.)"""
    ancestors_open = all(parent.stat().st_mode & 0o001 for parent in folder.parents)
    return ancestors_open and bool(folder.stat().st_mode & 0o004)


GRADER_FOLDER = Path(__file__).resolve().parent.parent / "grader"


@pytest.mark.skipif(landlock_abi() < 6, reason="needs Landlock ABI 6 (Linux 6.12) for signals")
@pytest.mark.skipif(os.geteuid() == 0 and not _others_can_read(GRADER_FOLDER),
                    reason="the checkout sits in a folder other users cannot enter (e.g. mktemp -d): "
                           "the worker's user could not import the grader lazily")
def test_landlock_fences_files_network_and_signals_whoever_runs_the_grader(tmp_path, monkeypatch):
    monkeypatch.setenv(PRIVATE_ENV, "0")  # Landlock alone: the files are under /tmp
    outside = tmp_path / "outside"
    outside.mkdir()
    outside.chmod(0o777)
    readable = outside / "readable.txt"
    readable.write_text("anyone may read this")
    readable.chmod(0o666)
    path = submission(
        tmp_path,
        f"""
        import os, signal, socket

        def attempt(action):
            try:
                action()
                return "done"
            except OSError as error:
                return type(error).__name__

        def max_value(game, state, depth=0):
            import grader.compare  # grader/ stays readable: a lazy import still works
            with socket.socket() as sock:
                connect = attempt(lambda: sock.connect(("127.0.0.1", 9)))
            return (
                attempt(lambda: open({str(readable)!r}).read()),
                attempt(lambda: open({str(outside / "new.txt")!r}, "w").write("x")),
                attempt(lambda: os.listdir({str(outside)!r})),
                attempt(lambda: os.kill(os.getppid(), 0)),
                connect,
                attempt(lambda: open("notes.txt", "w").write("x")),
            )
    """,
    )
    with Worker(path, limits=FAST, calibration=machine_calibration()) as worker:
        reply = worker.run(CASE, "minimax")
        assert worker.confinement["landlock"] == landlock_abi()
    assert reply.status == "ok", reply
    assert reply.value == ("PermissionError",) * 5 + ("done",)
    assert not (outside / "new.txt").exists()


def test_replacing_the_grader_inside_the_worker_fails_that_call_only(worker_for):
    worker = worker_for(MINIMAX + """
import grader.run.tracing

def alpha_beta(game, state, alpha=-1, beta=1, depth=0):
    grader.run.tracing.traced = lambda game: (game, None)
    return 3
""")
    reply = worker.run(CASE, "alpha_beta")
    assert reply.status == "error" and reply.error["type"] == "SandboxViolation"
    assert "grader.run.tracing.traced" in reply.message
    assert worker.run(CASE, "minimax").status == "ok"  # a fresh worker, untouched
    assert worker.starts == 2


def test_the_global_random_is_seeded_before_every_call(worker_for):
    worker = worker_for("""
        import random

        def max_value(game, state, depth=0):
            return random.random()
    """)
    first, second = worker.run(CASE, "minimax"), worker.run(CASE, "minimax")
    assert first.value == second.value == random.Random(0).random()


def test_a_forged_reply_of_the_wrong_shape_is_a_crash_never_data(worker_for):
    worker = worker_for("""
        import json, sys

        def max_value(game, state, depth=0):
            frame = sys._getframe()
            while "request" not in frame.f_locals:
                frame = frame.f_back
            seq = frame.f_locals["request"]["seq"]
            forged = {"event": "reply", "seq": seq, "status": "ok", "value": {"$object": [1]},
                      "generated": {"a": 1}, "evaluated": "B1", "error": [1], "elapsed": "soon",
                      "function": {"x": 1}, "message": [2], "cpu": "lots", "printed": None}
            with open(int(sys.argv[1]), "w", closefd=False) as channel:
                channel.write(json.dumps(forged) + "\\n")
            return 3
    """)
    reply = worker.run(CASE, "minimax")
    plain = (str, int, float, bool, type(None), OpaqueValue)

    def check(value):
        if isinstance(value, (list, tuple)):
            return all(check(item) for item in value)
        if isinstance(value, dict):
            return all(check(k) and check(v) for k, v in value.items())
        return type(value) in plain

    assert isinstance(reply, WorkerReply) and reply.status == "crashed"
    assert all(check(getattr(reply, name)) for name in vars(reply))
    assert reply.message.startswith("sent a malformed message (")
    assert reply.value is None and reply.generated == [] and reply.elapsed is None


def test_the_scratch_folder_is_bounded_and_removed_however_deep(worker_for, monkeypatch):
    monkeypatch.setenv(PRIVATE_ENV, "0")  # the parent's check: the scratch on the shared disk
    worker = worker_for("""
        import os

        def max_value(game, state, depth=0):
            for _ in range(3000):  # rmtree recurses: this defeated it
                os.mkdir("d")
                os.chdir("d")
            os.symlink("/etc", "link")
            os.mkdir("closed")
            os.chmod("closed", 0)
            return 1
    """)
    import grader.sandbox.lifecycle as lifecycle

    made = []
    prepare = lifecycle.prepare_scratch
    monkeypatch.setattr(lifecycle, "prepare_scratch",
                        lambda *a: made.append(prepare(*a)) or made[-1])
    reply = worker.run(CASE, "minimax", time_limit=20)
    assert reply.status == "error" and reply.error["type"] == "ScratchLimitExceeded", reply
    assert "more than 1,000 files and folders" in reply.message
    assert worker.pid is None  # the worker went, and its folder with it
    assert len(made) == 1 and not made[0][0].exists()


def test_remove_tree_never_follows_a_link_nor_raises(tmp_path):
    from grader.sandbox.process import remove_tree

    kept = tmp_path / "kept"
    kept.mkdir()
    (kept / "precious").write_text("x")
    doomed = tmp_path / "doomed"
    (doomed / "a" / "b").mkdir(parents=True)
    (doomed / "a" / "link").symlink_to(kept)
    (doomed / "file-link").symlink_to(kept / "precious")
    (doomed / "a" / "b").chmod(0)
    assert remove_tree(doomed) and not doomed.exists()
    assert (kept / "precious").read_text() == "x"
    assert remove_tree(tmp_path / "missing")


@pytest.mark.skipif(os.geteuid() != 0, reason="a mount namespace needs root")
def test_as_root_the_shared_folders_are_closed_and_the_scratch_is_a_small_disk(worker_for, monkeypatch):
    monkeypatch.setenv(LANDLOCK_ENV, "0")  # as on a kernel without Landlock
    for place in coverable():  # a run where no namespace could be made may have left one
        Path(place, "grader-test-x").unlink(missing_ok=True)
    worker = worker_for("""
        PLACES = @PLACES@  # /dev/shm, /var/tmp, /tmp, /run/lock...
        import os

        def attempt(action):
            try:
                action()
                return "ok"
            except OSError as error:
                return type(error).__name__

        def max_value(game, state, depth=0):
            shared = {place: attempt(lambda: open(place + "/grader-test-x", "w").close())
                      for place in PLACES}
            made = 0
            try:
                while True:
                    os.mkdir(f"d{made}")
                    made += 1
            except OSError:
                pass
            return shared, made
    """.replace("@PLACES@", repr(coverable())))
    reply = worker.run(CASE, "minimax", time_limit=20)
    if reply.status == "error" and reply.error["type"] == "ScratchLimitExceeded":
        pytest.skip("no mount namespace here (an unprivileged container?)")
    assert reply.status == "ok", reply
    shared, made = reply.value
    for place in coverable():
        assert shared[place] == "PermissionError", shared
        assert not Path(place, "grader-test-x").exists()
    assert made < 1000  # the scratch folder's own file system ran out of entries


def test_a_line_is_checked_before_it_is_decoded_and_against_the_schema():
    from grader.sandbox.protocol import (
        MAX_MESSAGE_ITEMS,
        Unreadable,
        finite_number,
        items_allowed,
        parse_message,
    )

    def parse(data: bytes, **options):
        return parse_message(bytearray(data), len(data), **options)

    many = b'{"event": "reply", "generated": [' + b'"a",' * MAX_MESSAGE_ITEMS + b'"a"]}'
    with pytest.raises(Unreadable, match="items or more, more than the"):
        parse(many)  # refused by counting: nothing was decoded
    small = b'{"event": "reply", "generated": [' + b'"a",' * 30 + b'"a"]}'
    assert len(parse(small)["generated"]) == 31
    with pytest.raises(Unreadable, match="more than the 50,062"):
        parse(b'{"event": "reply", "generated": [' + b'"a",' * 60_000 + b'"a"]}',
              max_items=items_allowed(31))  # this request's trace limit
    for bad, why in [(b'[1, 2]', "expected a JSON object"),
                     (b'{"event": "nonsense"}', "event"),
                     (b'{"event": "reply", "generated": [1, 2]}', "generated: expected at most"),
                     (b'{"event": "reply", "error": {"type": 3}}', "error/type"),
                     (b'{"event": "reply", "stdout": "' + b"x" * 200_000 + b'"}', "stdout"),
                     (b'{"event": "reply", "cpu": "lots"}', "cpu")]:
        with pytest.raises(Unreadable, match=why):
            parse(bad)
    with pytest.raises(Unreadable, match="unreadable"):
        parse(b'{"event": "reply", "value": ' + b"9" * 5000 + b"}")  # past int()'s digits
    assert finite_number(2**5000, None) is None and finite_number(-(2**60), 0.0) == -(2.0**60)
    assert finite_number(float("inf"), 1.5) == 1.5 and finite_number(True, 0.0) == 0.0


def test_the_worker_packs_a_trace_from_its_states_as_from_their_ids():
    """Issue 33: the worker packs a grid game's trace by the boards' cells, an id made for each
    distinct board only; the fields are pack_trace's of the ids, cut or not, and a game whose
    key would give two entries of the table one id is packed an id an entry."""
    from types import SimpleNamespace

    from grader.games import builtin_game
    from grader.run.tracing import Trace, traced
    from grader.sandbox.protocol import pack_trace
    from grader.sandbox.reply_parts import packed_trace, trace_ids
    from reference.minimax import max_value

    game = builtin_game("tictactoe", "x..|.o.|...")
    wrapper, trace = traced(game)
    max_value(wrapper, game.initial_state())
    assert game.trace_key is not None and len(set(trace.generated)) < len(trace.generated)
    for cap in (10**6, 100):
        generated, evaluated, cut = trace_ids(trace, cap)
        assert packed_trace(trace, cap) == (pack_trace(generated, evaluated), cut)
    assert packed_trace(trace, 100)[1] and not packed_trace(trace)[1]
    assert packed_trace(None) == (pack_trace([], []), False)
    # keys (the states themselves) that two ids do not tell apart: ids a state, as before
    pairs = SimpleNamespace(trace_key=lambda state: state, state_id=lambda state: state[0])
    shared = Trace(pairs, generated=[("a", 1), ("a", 2), ("b", 1)], evaluated=[("b", 2)])
    assert packed_trace(shared)[0] == pack_trace(["a", "a", "b"], ["b"])
    unhashable = Trace(pairs, generated=[["a"], ["b"]], evaluated=[])
    assert packed_trace(unhashable)[0] == pack_trace(["a", "b"], [])


def test_each_workers_memory_comes_from_the_environment(monkeypatch):
    """Issue 33: run_autograder gives two workers 256 MiB each through $GRADER_WORKER_MEMORY;
    a value that is not a whole number of MiB from 128 is a staff error naming the variable."""
    from grader.sandbox.limits import MiB, WORKER_MEMORY_ENV, worker_memory

    assert worker_memory({}) == 256 and worker_memory({WORKER_MEMORY_ENV: " 256 "}) == 256
    for bad in ("lots", "64", "-256", "1.5", "99999999"):
        with pytest.raises(GraderError,
                           match=rf"\$GRADER_WORKER_MEMORY: .*got: '{re.escape(bad)}'"):
            worker_memory({WORKER_MEMORY_ENV: bad})
    monkeypatch.setenv(WORKER_MEMORY_ENV, "256")
    assert Limits().memory == 256 * MiB


def test_a_packed_trace_is_read_back_exactly_and_checked_before_it_is_used():
    import base64
    import json
    import struct

    from grader.sandbox.protocol import Unreadable, items_allowed, pack_trace, parse_message

    def parse(message: dict, **options):
        data = json.dumps({"event": "reply", **message}).encode()
        return parse_message(bytearray(data), len(data), **options)

    generated = ["B", "B1", "B2", "B", "C", "é|x", "B1"] * 1000
    evaluated = ["B1", "Z", "B1"]
    packed = pack_trace(generated, evaluated)
    assert packed["ids"] == ["B", "B1", "B2", "C", "é|x", "Z"]  # each id once, first seen first
    read = parse(packed)
    assert read["generated"] == generated and read["evaluated"] == evaluated
    assert read["generated"][0] is read["generated"][3]  # shared strings, not one an entry

    def indexes(*numbers: int) -> str:
        return base64.b64encode(struct.pack(f"<{len(numbers)}I", *numbers)).decode()

    for bad in [indexes(0, 1, 2),  # past the table of two
                "not base64!", "QUJD",  # not base64; 3 bytes, not whole indexes
                "\u00e9AAA",  # not ASCII
                # two indexes (AAAAAAAAAAA=), not as pack() writes them
                "AAAA AAAAAAA=", "AAAAAAAAAAA=\n", "AAAAAAAAAAB=", "AAAAAAAA=AAA",
                indexes(*[0] * 40)]:  # more than this request's limit of 31
        with pytest.raises(Unreadable, match="generated: expected a packed trace"):
            parse({"ids": ["A", "B"], "generated": bad}, max_items=items_allowed(31))
    with pytest.raises(Unreadable, match="ids: expected"):
        parse({"ids": ["A", 3], "generated": indexes(0)})
    assert parse({"generated": indexes()})["generated"] == []  # no table: only an empty list


def test_the_message_schema_is_what_the_parent_checks(monkeypatch):
    from grader.sandbox import protocol

    assert protocol.message_problem({"event": "reply", "cpu": True}).startswith(
        "cpu: expected number, got: bool")  # a bool is no number, as in JSON Schema
    assert "status: a string longer than 100" in protocol.message_problem(
        {"event": "reply", "status": "x" * 101})
    assert "'event' is required" in protocol.message_problem({"status": "ok"})
    # a field added to the schema (a new request type's reply) is checked with no other change
    properties = {**protocol.MESSAGE_SCHEMA["properties"],
                  "moves": {"type": "array", "maxItems": 2}}
    monkeypatch.setitem(protocol.MESSAGE_SCHEMA, "properties", properties)
    assert protocol.message_problem({"event": "reply", "moves": [1, 2]}) == ""
    assert "moves: a list longer than 2" in protocol.message_problem(
        {"event": "reply", "moves": [1, 2, 3]})


def test_the_compiled_schema_check_passes_only_what_the_walk_passes():
    """rule_fits (the check every message gets first) passes no message schema_problem finds
    a problem in; what it refuses gets schema_problem's words (here, of 20,000 random
    messages of the schema's own keys, it and the walk agree on every one)."""
    from grader.sandbox import protocol

    chance = random.Random(7)
    keys = [*protocol.MESSAGE_SCHEMA["properties"], *protocol.ERROR_KEYS, "value", "unreadable"]
    lists = [[], list(range(129)), list(range(2 * protocol.MAX_TRACE + 1))]  # (only read)

    def item(depth: int = 0) -> Any:
        pick = chance.randrange(11)
        if pick < 6:
            return [None, True, 3, 0.5, "reply", "x" * chance.choice([99, 101, 1001, 100_001]),
                    "started"][chance.randrange(7)]
        if pick < 8 and depth < 3:
            return [item(depth + 1) for _ in range(chance.randrange(3))]
        if pick < 9:
            return chance.choice(lists)
        if depth < 3:
            return {chance.choice(keys): item(depth + 1) for _ in range(chance.randrange(4))}
        return 1

    fits = protocol.rule_fits(protocol.MESSAGE_SCHEMA)
    passed = 0
    for _ in range(20_000):
        message = {chance.choice(keys): item() for _ in range(chance.randrange(5))}
        if chance.random() < 0.8:
            message["event"] = chance.choice(["ready", "started", "reply", "other", 1])
        walked = protocol.schema_problem(message, protocol.MESSAGE_SCHEMA)
        assert fits(message) == (walked == ""), (message, walked)
        passed += walked == ""
    assert passed > 1_000
    assert protocol.rule_fits({"enum": [1, "a"]})(True) is False  # a bool is not 1 here either
    assert protocol.rule_fits({"enum": [1, "a"]})(1) is True


def test_every_string_of_a_forged_error_is_cut_at_its_cap():
    """Issue 34: an error's type name was the one string of a reply kept whole (a class named
    with 49,000 characters, 98 kB of results.json a test); a reply's message too."""
    from grader.sandbox.limits import Limits
    from grader.sandbox.protocol import ERROR_CAPS, reply_from_message

    forged = {"event": "reply", "status": "error", "message": "m" * 90_000,
              "error": {"type": "X" * 90_000, "message": "y" * 90_000, "traceback": "t" * 90_000,
                        "extra": "e" * 90_000}}
    reply = reply_from_message(forged, "alpha_beta", stdout="", stderr="", printed=0,
                               limits=Limits())
    assert set(reply.error) == {"type", "message", "traceback"}
    for key, cap in ERROR_CAPS.items():
        assert reply.error[key].startswith(("X", "y", "t")[list(ERROR_CAPS).index(key)] * cap)
        assert reply.error[key].endswith(f"({90_000 - cap:,} more characters)")
    assert len(reply.message) < 2_100


def test_a_forged_value_decodes_to_plain_data_within_its_caps():
    deep = 1
    for _ in range(100):
        deep = [deep]
    assert "too large" in str(decode_value(deep))
    assert decode_value([1] * 20_000).count(1) < 20_000
    # a list of plain floats (evaluate's values) is itself, within the same item budget
    assert decode_value([0.5] * 9_999) == [0.5] * 9_999
    cut = decode_value([0.5] * 10_000)
    assert cut[:-1] == [0.5] * 9_999 and cut[-1] == OpaqueValue("?", "<value too large to show>")
    assert decode_value([0.5, float("nan")])[0] == 0.5  # NaN comes back as itself (a float)
    assert decode_value({"$float": "1e400"}) == OpaqueValue("?", "<a malformed value>")
    assert decode_value(2**5000) == OpaqueValue("int", "<int of 5001 bits>")
    assert decode_value(["a3", ("x" * 999)]) == ["a3", "x" * 999]  # an action, an id: as is
    long = decode_value("y" * 1001)
    assert isinstance(long, OpaqueValue) and "1,001 characters" in long.repr
    many = decode_value(["z" * 900] * 9000 + [{"$dict": [["k" * 900, 1]] * 9000}])
    assert len(repr(many)) < 2 * 100_000  # the strings kept stop at MAX_TEXT
    assert many[-1] == OpaqueValue("?", "<value too large to show>")
    objects = decode_value([{"$object": "T" * 500, "repr": "r" * 500}] * 9000)
    assert len(objects) < 300 and objects[-1] == OpaqueValue("?", "<value too large to show>")


def test_the_tampering_check_names_each_place_changed_and_passes_once_restored(monkeypatch):
    import grader.games.tictactoe as tictactoe
    from grader.sandbox.failures import guarded_objects, tampered

    snapshot = guarded_objects()
    assert tampered(snapshot) == []
    monkeypatch.setattr(tictactoe.GridGame, "result", lambda self, state, action: None)
    assert tampered(snapshot) == ["grader.games.tictactoe.GridGame.result"]  # a member
    monkeypatch.undo()
    monkeypatch.delattr(tictactoe, "grid_lines")
    assert tampered(snapshot) == ["grader.games.tictactoe.grid_lines"]  # a name deleted
    monkeypatch.undo()
    monkeypatch.setattr(tictactoe, "parse_grid", print)
    assert tampered(snapshot) == ["grader.games.tictactoe.parse_grid"]  # a function
    monkeypatch.undo()
    assert tampered(snapshot) == []


def test_a_fresh_worker_serves_a_request_only_where_it_has_more_room_for_it(tmp_path):
    """A worker process may use ``cpu_time`` CPU seconds in all (RLIMIT_CPU, on a clock up to
    CLOCK_DRIFT ahead). A request one has room for and this one has not gets a fresh one. A
    request no process has room for (a batch of 128 positions each allowed a long window, on
    a slow machine) is served by the worker there is until it has used RESTART_GAIN of its
    life: a fresh one starts with the CPU its own start takes, as this one did (every such
    batch started a worker, 10 to 14 a grade, before)."""
    from dataclasses import replace

    from grader.run.tracing import Budget
    from grader.sandbox.client import RESTART_GAIN, Worker
    from grader.sandbox.guard import CLOCK_DRIFT

    path = submission(tmp_path, (Path(__file__).parent / "submissions" / "correct" /
                                 "search.py").read_text())
    huge = Budget(result=10**9, evaluated=10**9)  # past any worker's life, cut at the allowance

    def prepare(worker, budget, calls=1):
        assert worker._prepare(FAST.time, 0.0, budget, "minimax", "minimax", calls)[2] is None

    with Worker(path, limits=FAST, calibration=machine_calibration()) as worker:
        for _ in range(3):  # the allowance (270 s) and its drift fill a whole life (300 s)
            prepare(worker, huge, calls=128)
        assert worker.starts == 1
        small = Budget(result=1000, evaluated=1000)
        _, most = worker.cpu_limits(FAST.time, 0.0, small)
        need = most * (1 + CLOCK_DRIFT) + FAST.kill_margin + 2
        worker.limits = replace(FAST, cpu_time=math.ceil(worker._ready_cpu + need + 1))
        prepare(worker, small)
        assert worker.starts == 1  # room enough in this one
        worker._cpu = worker._ready_cpu + 2  # as if its calls had used that much
        prepare(worker, small)
        assert worker.starts == 2  # a fresh one has room for it, this one had not
        generous = replace(FAST, submission_cpu=1000.0)  # an allowance past a worker's life
        worker.limits, worker.account.total = generous, generous.submission_cpu
        gain = RESTART_GAIN * generous.cpu_time
        worker._cpu = worker._ready_cpu + gain - 1
        prepare(worker, huge, calls=128)
        assert worker.starts == 2  # too little to gain
        worker._cpu = worker._ready_cpu + gain + 1
        prepare(worker, huge, calls=128)
        assert worker.starts == 3  # a tenth of a life gained


def test_the_tampering_check_skips_what_python_code_cannot_replace_and_keeps_what_it_can(
        monkeypatch):
    import builtins

    from grader.sandbox.failures import guarded_objects, tampered

    snapshot = guarded_objects()
    # a built-in type's members: setattr raises, so they are not compared (half the places)
    with pytest.raises(TypeError):
        setattr(list, "append", lambda self, item: None)
    assert not [name for name in snapshot if name.startswith("builtins.list.")]
    assert "builtins.len" in snapshot and "builtins.list" in snapshot  # the names themselves
    monkeypatch.setattr(builtins, "len", lambda items: 0)
    assert tampered(snapshot) == ["builtins.len"]
    monkeypatch.undo()
    monkeypatch.setattr(builtins, "list", tuple)
    assert tampered(snapshot) == ["builtins.list"]
    monkeypatch.undo()
    assert tampered(snapshot) == []


def test_an_evaluate_reply_s_values_are_finite_numbers_one_a_position():
    from grader.sandbox.protocol import evaluation_values

    assert evaluation_values([0.5, -2.0, 3.25], 3) == ([0.5, -2.0, 3.25], "")
    assert evaluation_values([1, 2.5, 3], 3) == ([1.0, 2.5, 3.0], "")  # ints made floats
    for bad in (float("nan"), float("inf"), -float("inf")):  # floats only, one not finite
        assert evaluation_values([0.5, bad, 3.0], 3) == (
            [], f"expected finite numbers, got: '{bad}' at index 1")
    assert evaluation_values([0.5, 1.5], 3)[1] == "expected 3 numbers, got: 2"
    assert evaluation_values([0.5, True, 1.5], 3)[1].endswith("'True' at index 1")




# --- work budgets and the CPU-time backstop ---------------------------------------------------

ENDLESS_CALLER = """
def max_value(game, state, depth=0):
    caught = 0
    while True:  # calls the game for ever
        try:
            game.result(state, game.actions(state)[0])
        except BaseException:
            caught += 1
            if caught > 3:
                return 3  # catches the stop, and returns as if nothing happened
"""


def test_a_search_past_its_budget_is_stopped_at_the_same_call_every_time(worker_for):
    from grader.run.tracing import Budget

    worker = worker_for(ENDLESS_CALLER)
    for _ in range(2):
        reply = worker.run(CASE, "minimax", budget=Budget(result=250, evaluated=100))
        assert reply.status == "budget" and reply.value is None, reply
        assert reply.budget_stop == {"kind": "result", "calls": 250}
        assert reply.generated == ["B"] * 250 and reply.evaluated == []
        assert "stopped after 250 `result` calls" in reply.message


def test_swallowing_the_stop_and_the_time_out_is_still_a_budget_stop(worker_for):
    from grader.run.tracing import Budget

    worker = worker_for("""
        def max_value(game, state, depth=0):
            while True:
                try:
                    game.result(state, game.actions(state)[0])
                except BaseException:
                    pass
    """)
    reply = worker.run(CASE, "minimax", time_limit=0.3, budget=Budget(result=50, evaluated=50))
    assert reply.status == "budget" and reply.budget_stop == {"kind": "result", "calls": 50}
    assert reply.generated == ["B"] * 50 and reply.function == "max_value"
    again = worker.run(CASE, "minimax", time_limit=0.3, budget=Budget(result=50, evaluated=50))
    assert again.status == "budget" and again.generated == reply.generated  # a fresh worker
    assert worker.starts == 2


def test_a_search_still_calling_the_game_is_not_timed_out_before_its_budget(worker_for):
    from grader.run.tracing import Budget

    worker = worker_for(ENDLESS_CALLER)
    # 200,000 calls take far more CPU time than the 0.2 s window: calls are progress
    reply = worker.run(CASE, "minimax", time_limit=0.2, budget=Budget(200_000, 10))
    assert reply.status == "budget" and len(reply.generated) == 200_000, reply.message


def test_replacing_random_seed_at_import_runs_nothing_before_the_clock(worker_for):
    # issue 15, item 2: the worker's per-call seeding used to run a replaced random.seed
    # before any limit was armed; the captured seed never calls it.
    worker = worker_for(MINIMAX + """
import random, time
def _slow_seed(*args, **kwargs):
    time.sleep(30)
random.seed = _slow_seed
""")
    reply = worker.run(CASE, "minimax", time_limit=0.3)
    assert reply.status == "ok" and reply.value == 3, reply  # the 30 s sleep would time it out


def test_a_sleeping_search_is_killed_once_it_stops_using_the_cpu(worker_for):
    worker = worker_for("""
        import time
        def max_value(game, state, depth=0):
            time.sleep(3600)
    """)
    reply = worker.run(CASE, "minimax", time_limit=0.3)
    # killed by the idle rule (its message), not the last-resort wall clock: no time asserted
    assert reply.status == "killed_timeout" and "slept for 0.5 s" in reply.message


def test_the_parent_sees_a_sleeping_or_stopped_process_asleep_and_a_busy_one_never():
    """The parent's ``asleep`` limit reads the process state: a process in time.sleep or
    stopped (SIGSTOP) is asleep, and one that sleeps in bursts with a little CPU between them; one that computes is running or runnable, and stays awake
    even with every core busy twice over (load never makes computing look like sleeping)."""
    import os
    import subprocess
    import sys
    import time

    from grader.sandbox.process import Deadline
    from grader.sandbox.watch import Watch

    def watched(pid: int, seconds: float, talking: bool = False) -> str:
        watch = Watch(pid, cpu=1e9, idle=1e9, wall=1e9, asleep=True)
        end = time.monotonic() + seconds
        try:
            while time.monotonic() < end:
                watch.check()
                if talking:  # what the channel says when the worker writes or reads
                    watch.heard()
                time.sleep(0.05)
        except Deadline:
            return watch.reason
        return ""

    spin = [sys.executable, "-c", "while True: pass"]
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    # asleep in bursts, a little CPU between them (the CPU time moves at most checks' pairs)
    bursts = subprocess.Popen([sys.executable, "-c", (
        "import time\nwhile True:\n    time.sleep(0.3)\n    t = time.process_time()\n"
        "    while time.process_time() - t < 0.015: pass")])
    busy: list[subprocess.Popen] = []
    try:
        # a sleeping process's state is the same at any load: no busy processes yet (they
        # burn every core while they run, most of this test's CPU)
        assert watched(sleeper.pid, 2, talking=True) == ""  # blocked on the channel: awake
        assert watched(sleeper.pid, 5) == "asleep"
        busy += [subprocess.Popen(spin) for _ in range(2 * (os.cpu_count() or 1) + 1)]
        # every core busy twice over: the bursts' CPU takes longer, computing is runnable
        assert watched(bursts.pid, 5) == "asleep"  # 0.5 s asleep in all, not at a stretch
        assert watched(busy[0].pid, 2) == ""  # computing under load: never asleep
        for process in busy[1:]:  # a stopped process is stopped at any load
            process.kill()
        busy[0].send_signal(__import__("signal").SIGSTOP)
        assert watched(busy[0].pid, 5) == "asleep"
    finally:
        for process in [sleeper, bursts, *busy]:
            process.kill()
            process.wait()


def test_ignoring_the_cpu_signals_still_ends_at_the_parents_cpu_limit(worker_for):
    worker = worker_for("""
        import signal
        def max_value(game, state, depth=0):
            signal.signal(signal.SIGPROF, signal.SIG_IGN)
            signal.signal(signal.SIGXCPU, signal.SIG_IGN)
            while True:
                pass
    """)
    # the parent's limit: ten windows and the kill margin, 1.5 CPU s of spinning (3.5 at 0.3)
    reply = worker.run(CASE, "minimax", time_limit=0.1)
    assert reply.status == "killed_timeout", reply
    # ended by the parent's CPU limit (its message), not the wall clock: no time asserted
    assert "ignored the time-out" in reply.message and "killed" in reply.message


def test_a_recursion_error_shows_the_same_traceback_however_deep_the_stack_was():
    """How many frames fit under the recursion limit differs between Python versions (and
    with the grader's own frames below): the student sees the first frames and a fixed line,
    never a count of repeats that changes from 3.10 to 3.12."""
    import sys

    from grader.sandbox.failures import RECURSION_FRAMES, error_data

    source = "def down(n):\n    return down(n + 1)\n"
    namespace: dict = {}
    exec(compile(source, "search.py", "exec"), namespace)  # noqa: S102
    texts = []
    old_limit = sys.getrecursionlimit()
    for limit in (300, 450):  # two depths, as two Python versions would give
        sys.setrecursionlimit(limit)
        try:
            namespace["down"](0)
        except RecursionError as error:
            texts.append(error_data(error, "search.py")["traceback"])
        finally:
            sys.setrecursionlimit(old_limit)
    assert texts[0] == texts[1]
    assert texts[0].count('File "search.py", line 2, in down') == 3  # then Python's collapse
    assert f"[Previous line repeated {RECURSION_FRAMES - 3} more times]" in texts[0]
    assert "until Python's recursion limit" in texts[0]
    assert texts[0].endswith("RecursionError: maximum recursion depth exceeded\n")


def test_the_worker_preloads_what_seeding_with_a_string_needs():
    """``evaluate``'s calls are seeded with a string (run/evaluation.py), which random hashes
    with sha512; since Python 3.13 random imports it on the first such seed, which after the
    privilege drop cannot read the standard library. ``_preload`` must have made it."""
    import subprocess
    import sys

    script = textwrap.dedent("""
        import random, sys
        from grader.sandbox import worker
        worker._preload()

        class NoMoreImports:  # the confined worker: nothing more can be read
            def find_spec(self, name, path=None, target=None):
                raise ImportError(f"cannot read {name}")

        sys.meta_path.insert(0, NoMoreImports())
        random.seed("1000:some-state")
        print(random.random())
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=60, cwd=Path(__file__).resolve().parent.parent)
    assert done.returncode == 0, done.stderr
    assert float(done.stdout) == 0.5650165300994126  # seeded by sha512: any Python, any OS


def test_the_soft_cpu_limit_is_armed_on_the_clock_the_kernel_enforces():
    """Issue 34: the kernel holds RLIMIT_CPU against the profiling clock, which ran 1.5-7.7%
    ahead of getrusage's time; a limit set on the latter, window + margin ahead, was reached
    early by a correct search after ~250 s of CPU in one worker (killed by SIGXCPU). Armed on
    the profiling clock, the room is the window + margin whatever the drift; without that
    clock, 10% of getrusage's time is added as headroom."""
    from grader.sandbox.guard import CLOCK_DRIFT, Tools, prof_clock_reader

    class Usage:
        ru_utime, ru_stime = 240.0, 10.0  # getrusage: 250 s

    armed = []

    def tools(prof_clock):
        return Tools(seed=None, perf_counter=None, getrusage=lambda who: Usage(),
                     getrlimit=lambda kind: (300, 300), setrlimit=lambda kind, v: armed.append(v),
                     setitimer=None, set_handler=None, send=None, receive=None, exit=None,
                     prof_clock=prof_clock)

    tools(lambda: 269.0).allow_cpu(3.36)  # the kernel's clock, 7.6% ahead
    tools(None).allow_cpu(3.36)  # no such clock: headroom
    assert armed == [(273, 300), (int(250 * (1 + CLOCK_DRIFT) + 3.36) + 1, 300)]
    assert armed[0][0] - 269.0 >= 3.36 and armed[1][0] - 269.0 >= 3.36
    # this machine's clock, read as the worker reads it (ahead of getrusage's or behind it:
    # sampled at ticks, a process that mostly sleeps may be undercounted)
    reader = prof_clock_reader(time.clock_gettime)
    assert reader is not None and reader() > 0  # Linux
    assert prof_clock_reader(lambda clock: (_ for _ in ()).throw(OSError(22, "no clock"))) is None


def test_honest_slow_code_in_a_long_lived_worker_keeps_its_whole_window(worker_for):
    """Each call's soft CPU limit is armed from the kernel's own clock: after CPU spent in
    earlier calls of the same worker, a call still has its window + margin of room on that
    clock (read from inside the call, where a submission would meet it)."""
    worker = worker_for("""
        import resource, time

        def max_value(game, state, depth=0):
            started = time.process_time()
            while time.process_time() - started < 0.4:  # honest CPU, spent between game calls
                game.actions(state)
            soft, _ = resource.getrlimit(resource.RLIMIT_CPU)
            return soft - time.clock_gettime(-8)
    """)
    rooms = [worker.run(CASE, "minimax", time_limit=2) for _ in range(3)]
    assert all(reply.status == "ok" for reply in rooms), rooms
    assert all(reply.value >= FAST.kill_margin for reply in rooms), [r.value for r in rooms]


def test_worker_starts_are_bounded_per_submission(worker_for):
    """Issue 34: functions that call os._exit forced a worker start per test, each paying the
    import again (4.5 s for a spinning import; ~10 s for a 19 MB notebook): past
    ``restart_cpu`` seconds of starts, no worker is started again and the test says why."""
    worker = worker_for("""
        import os

        def max_value(game, state, depth=0):
            os._exit(0)
    """, Limits(time=0.5, kill_margin=0.5, import_time=0.5, restart_cpu=0.01))
    first = worker.run(CASE, "minimax", time_limit=1)
    assert first.status == "crashed" and "exited with code 0" in first.message
    second = worker.run(CASE, "minimax", time_limit=1)
    assert second.status == "error" and second.error["type"] == "RestartLimitExceeded"
    assert "was not started again: its 1 start took" in second.message
    assert worker.starts == 1


def test_worker_starts_are_bounded_per_submission_across_its_workers(worker_for):
    """``grade --jobs 2`` gives a submission two workers sharing one account: each had a
    ``restart_cpu`` bound of its own, so the submission's starts could take twice the bound."""
    body = """
        import os

        def max_value(game, state, depth=0):
            os._exit(0)
    """
    limits = Limits(time=0.5, kill_margin=0.5, import_time=0.5, restart_cpu=0.01)
    first, second = worker_for(body, limits), worker_for(body, limits)
    second.account = first.account
    assert first.run(CASE, "minimax", time_limit=1).status == "crashed"
    refused = second.run(CASE, "minimax", time_limit=1)
    assert refused.status == "error" and refused.error["type"] == "RestartLimitExceeded"
    assert "its 1 start took" in refused.message and second.starts == 0


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root")
def test_workers_grading_at_once_are_users_of_their_own():
    """``grade --jobs 2`` ran both workers as one user: where Landlock cannot scope signals one
    killed the other (tests/hostile: ``kills_sibling_worker``)."""
    assert worker_users(1) == [None]
    users = worker_users(2)
    assert len(set(users)) == 2 and all(user and user[0] > 0 for user in users), users
    # a process's later grades (a batch's) reuse its slots rather than claim two more each
    assert [worker_users(2) for _ in range(3)] == [users] * 3
    # but a forked child (a batch's pool process) claims its own: its siblings are others
    read, write = os.pipe()
    child = os.fork()
    if child == 0:
        os.write(write, repr(worker_users(2)).encode())
        os._exit(0)
    os.waitpid(child, 0)
    os.close(write)
    childs = eval(os.read(read, 4096).decode())  # noqa: S307 - our own child's repr of ints
    assert not set(childs) & set(users), (childs, users)


def test_a_stale_line_is_dropped_before_it_is_parsed(worker_for, monkeypatch):
    """Issue 34: valid-looking replies of 24 MiB for a request that does not exist were each
    parsed in full (0.73 grader CPU s) until the wall clock ended the call; now a line that
    does not begin as a message of the current request is dropped unparsed."""
    from grader.sandbox import channel

    parsed: list[int] = []
    real = channel.line_text
    monkeypatch.setattr(channel, "line_text",
                        lambda buffer, end, *rest: parsed.append(end) or real(buffer, end, *rest))
    worker = worker_for("""
        import json, os, sys

        def max_value(game, state, depth=0):
            line = json.dumps({"event": "reply", "seq": 7, "status": "ok", "value": 3,
                               "stdout": "x" * 2_000_000}).encode() + b"\\n"
            for _ in range(3):
                view = memoryview(line)
                while view:
                    view = view[os.write(int(sys.argv[1]), view):]
            return 3
    """)
    reply = worker.run(CASE, "minimax", time_limit=2)
    assert reply.status == "ok" and reply.value == 3
    assert parsed and max(parsed) < 100_000  # only the real messages were parsed


def test_a_line_is_of_the_request_exactly_where_the_seq_pattern_finds_it():
    # The filter's plain search for the worker's own `"seq": N` stands in for the regex
    # `"seq"\s*:\s*N(?![\d.eE])`, which decides every other line: the same answer everywhere.
    import re

    from grader.sandbox.channel import request_pattern

    rng = random.Random(6)
    pieces = [b'"seq"', b": ", b":", b" ", b"\t", b"1", b"12", b"123", b".", b"e", b"E", b"x",
              b",", b'"', b"seq", b"{", b"}", b"0"]
    found = 0
    for _ in range(5000):
        seq = rng.choice([1, 12, 123, 1230, 2**52 + 7])
        parts = [rng.choice(pieces) for _ in range(rng.randrange(12))]
        if rng.random() < 0.7:
            parts.insert(rng.randrange(len(parts) + 1), b'"seq": %d' % seq)
        line = b"".join(parts)
        end = len(line) - rng.randrange(3)
        expected = re.compile(rb'"seq"\s*:\s*%d(?![\d.eE])' % seq).search(line, 0, end)
        assert request_pattern(seq).search(bytearray(line), 0, end) == bool(expected), line
        found += bool(expected)
    assert 1000 < found < 4000  # both kinds met often
    assert request_pattern(None) is None


def test_a_worker_gone_with_unread_data_is_a_closed_channel_not_a_grader_crash():
    """A worker that dies before reading what the grader sent resets the connection
    (ECONNRESET on the next read): that is the channel closing, which the caller reports with
    the worker's stderr, never an uncaught ConnectionResetError (a wheel installed where the
    worker could not start showed only that)."""
    import socket

    from grader.sandbox.channel import Channel
    from grader.sandbox.process import Closed

    ours, theirs = socket.socketpair()
    channel = Channel(ours, {}, 1000)
    ours.sendall(b"never read\n")
    theirs.close()
    with pytest.raises(Closed):
        channel.receive(time.monotonic() + 5)
    channel.close()


def test_the_tampering_check_sees_a_member_added_to_a_class_but_not_pythons_own_caches():
    """A method set on a grader class over the one it inherits replaces nothing the snapshot
    recorded: the class's member names are compared too (tests/hostile's
    shadow_inherited_method does it to a real game). ``copy`` caching ``__slotnames__`` on the
    class, as the evaluate batches' sealed game does, is not the student's doing."""
    import copy
    import sys
    import types

    from grader.sandbox.failures import guarded_objects, tampered

    module = types.ModuleType("grader._tampering_probe")

    class Base:
        def result(self):
            return "the grader's"

    class Game(Base):
        __slots__ = ("board",)
        __module__ = module.__name__

    module.Game = Game
    sys.modules[module.__name__] = module
    try:
        snapshot = guarded_objects()
        copy.copy(Game())  # adds Game.__slotnames__
        assert "__slotnames__" in vars(Game)
        assert tampered(snapshot) == []
        Game.result = lambda self: "the student's"
        assert tampered(snapshot) == ["grader._tampering_probe.Game.result (added)"]
        del Game.result
        assert tampered(snapshot) == []
        del Game.__slots__
        assert tampered(snapshot) == ["grader._tampering_probe.Game.__slots__ (deleted)"]
    finally:
        del sys.modules[module.__name__]
