"""The sandbox worker: ``python -m grader.sandbox.worker FD``, started by
:class:`grader.sandbox.client.Worker`.

It talks to the parent over the socket ``FD`` (never stdout) as :mod:`grader.sandbox.protocol`
says.

Set-up, before any student code runs: import everything the worker will need (once the
privileges are dropped the interpreter's own files may be unreadable), move into the scratch
folder, drop to ``ids`` (as root), confine the process with Landlock where the kernel has it
(:func:`grader.sandbox.confine.confine`: read only the interpreter's libraries and ``grader/``,
write only the scratch folder, no TCP, no signals to processes outside the sandbox), apply the
``resource`` limits, time the calibration workload (:mod:`grader.run.calibration`, reported to
the parent) and capture every function used from then on (:class:`Tools`). Then import
``search.py`` once, under the fixed module name ``search``, and serve requests until the channel
closes. Each request arms its CPU guard (:class:`CpuGuard`) before anything else, so no code the
submission could have reached runs outside the request's limits; the work budget is counted by
the traced game (:mod:`grader.run.tracing`).

Everything in this process is the student's to change; the parent trusts none of it (it
reads plain JSON and keeps its own deadlines). The checks made here (the time limit, the
late return, :func:`tampered`) are there to give honest mistakes a clear message.
"""

from __future__ import annotations

import _signal
import faulthandler
import importlib
import importlib.machinery
import importlib.util
import json
import math
import os
import random
try:
    import resource
except ImportError:  # Windows: only the portable worker (grader.sandbox.portable) runs there
    resource = None  # type: ignore[assignment]
import signal
import socket
import sys
import time
from collections.abc import Callable
from typing import Any

from grader.algorithms import get as get_algorithm
from grader.algorithms import registry as algorithm_registry
from grader.algorithms.mcts import SETTINGS_FIELD as MCTS_FIELD
from grader.games import BUILTIN_GAMES, builtin_game
from grader.paths import SCHEMA_REF
from grader.run import runner, tracing
from grader.run.calibration import calibration_seconds
from grader.run.runner import MctsSettings, function_name, run_algorithm, table_summary
from grader.run.tracing import Budget
from grader.sandbox.capture import Captured
from grader.sandbox.evaluating import serve_evaluate_request
from grader.sandbox.confine import (
    apply_limits,
    confine,
    die_with_parent,
    drop_privileges,
    most_killable,
    refuse_sysv_ipc,
)
from grader.sandbox.failures import (
    SandboxViolation,
    error_data,
    grader_error_reply,
    guarded_objects,
    tampered,
)
from grader.sandbox.guard import CpuGuard, Tools, WorkerTimeout, prof_clock_reader
from grader.sandbox.protocol import (
    MAX_TRACE,
    POSITIONS_REQUEST,
    SEEDS_REQUEST,
    finite_number,
    past_half,
)
from grader.sandbox.reply_parts import (
    budget_fields,
    call_counts,
    packed_trace,
    safe_repr_factory,
    timeout_message,
)
from grader.sandbox.seeding import install_deferred_random
from grader.sandbox.values import encode_value

# Imported for the student's code before the privilege drop (quicker than from the disk after
# it). The rest of the standard library stays importable: an interpreter under a folder closed
# to the worker's user (/root) is exposed in its mount namespace (private.expose), or the
# worker reports it unreadable and the grader refuses to grade (unreadable_stdlib).
PRELOADED = (
    "bisect", "collections", "copy", "dataclasses", "enum", "functools", "heapq", "itertools",
    "operator", "random", "re", "statistics", "string", "typing",
)  # fmt: skip
WARM_UP = {"$schema": SCHEMA_REF, "name": "warm-up", "description": "worker start-up"}
# loaded at start, so the case path's lazy imports happen before the drop: each spec's games
WARM_UP_CASES = tuple({**WARM_UP, "algorithms": [spec.name], **game}
                      for spec in algorithm_registry().values() for game in spec.warm_up)


# --- set-up ---------------------------------------------------------------------------------


def _preload() -> None:
    """Import what requests will need while the files are still readable."""
    for module_name in PRELOADED:
        importlib.import_module(module_name)
    # a str seed (evaluate's, run/evaluation.py) hashes with sha512, which random imports on
    # its first such seed since Python 3.13: after the drop that import would fail
    random.Random("warm-up")
    for module_name, _ in BUILTIN_GAMES.values():
        try:
            importlib.import_module(module_name)
        except ImportError:
            pass  # a game not written yet: a case using it fails as a grader error
    for data in WARM_UP_CASES:
        try:
            _, game = _build_game({"case": data})
            game.is_terminal(game.initial_state())
        except Exception:  # noqa: BLE001, S110 - best effort: requests report errors
            pass


# --- the student's module -------------------------------------------------------------------


def _import_submission(path: str, limits: dict[str, Any], guard: CpuGuard) -> tuple[Any, dict[str, Any]]:
    reply: dict[str, Any] = {"event": "ready", "status": "ok"}
    module = None
    seconds = float(limits["import_time"])
    with Captured(int(limits["output"])) as output:
        try:
            # a spec made by hand: spec_from_file_location would make ``path`` absolute
            spec = importlib.machinery.ModuleSpec(
                "search", importlib.machinery.SourceFileLoader("search", path), origin=path)
            spec.has_location = True  # __file__ is set
            module = importlib.util.module_from_spec(spec)
            sys.modules["search"] = module
            guard.arm(seconds, seconds, lambda: 0)
            try:
                spec.loader.exec_module(module)
            finally:
                guard.disarm()
        except WorkerTimeout:
            module = None
            message = (
                f"importing search.py took longer than {seconds:g} s of CPU time "
                "(a loop at the top level of the file?)"
            )
            reply.update(
                status="import_error",
                error={"type": "ImportTimeout", "message": message, "traceback": ""},
            )
        except BaseException as exc:  # noqa: BLE001 - whatever the import does is reported
            module = None
            reply.update(status="import_error", error=error_data(exc, path))
    reply.update(stdout=output.out.text(), stderr=output.err.text(),
                 cpu=guard.tools.enforced_cpu())
    return module, reply


def _trace_cap(request: dict[str, Any]) -> int:
    """Ids kept of each trace list: the request's ``trace_limit``, at most ``MAX_TRACE``."""
    return min(int(request.get("trace_limit") or MAX_TRACE), MAX_TRACE)


def _build_game(request: dict[str, Any]) -> tuple[Any, Any]:
    """(case, game) for a request: the case's public dict, which the grader checked before
    sending it (checking it again here would cost seconds on a big case, and networkx)."""
    from grader.cases import case_from_checked

    case = case_from_checked(request["case"], None)
    return case, case.build_game()


def _mcts_settings(request: dict[str, Any], case: Any) -> MctsSettings:
    """The request's settings, else the case's, else the defaults."""
    given = request.get(MCTS_FIELD) or {}
    from_case = getattr(case, MCTS_FIELD, None)
    default = MctsSettings()

    def pick(name: str) -> Any:
        if given.get(name) is not None:
            return given[name]
        value = getattr(from_case, name, None)
        return getattr(default, name) if value is None else value

    return MctsSettings(
        iterations=int(pick("iterations")), seed=int(pick("seed")), c=float(pick("c"))
    )


class _Stash:
    """Keeps the last trace the runner made, so a failed call still reports what it generated."""

    trace: Any = None

    @classmethod
    def traced(cls, game: Any, budget: Budget | None = None) -> Any:
        wrapper, cls.trace = tracing.traced(game, budget)
        return wrapper, cls.trace

    @classmethod
    def progress(cls) -> int:
        """Game calls recorded so far in this call (-1 before the student's function runs)."""
        trace = cls.trace
        return -1 if trace is None else len(trace.generated) + len(trace.evaluated)


def _budget(request: dict[str, Any]) -> Budget | None:
    given = request.get("budget")
    if not isinstance(given, dict):
        return None
    return Budget(result=int(given["result"]), evaluated=int(given["evaluated"]))


def _serve(request: dict[str, Any], module: Any, path: str, limits: dict[str, Any],
           tools: Tools, guard: CpuGuard, snapshot: dict[str, Any]) -> dict[str, Any]:
    """Run one request; the reply (without ``seq``): a batch of positions (the evaluation's,
    or a search's on each, :func:`_serve_positions`), a batch of seeds (an MCTS outcome
    test's, :func:`_serve_seeds`) or one search call (:func:`_serve_call`)."""
    positions = request.get(POSITIONS_REQUEST)
    if isinstance(positions, dict):
        if "algorithm" in positions:  # a search on each position (assumptions' decisions)
            return _serve_positions(request, module, path, limits, tools, guard, snapshot)
        # the evaluate assignment: a batch of positions
        return serve_evaluate_request(request, module, path, limits, tools, guard, snapshot)
    if isinstance(request.get(SEEDS_REQUEST), dict):
        return _serve_seeds(request, module, path, limits, tools, guard, snapshot)
    return _serve_call(request, module, path, limits, tools, guard, snapshot)


# One call of a batch: the request :func:`_serve_call` serves, and what builds its game.
BatchCall = tuple[dict[str, Any], Callable[[], tuple[Any, Any]]]


def _serve_positions(request: dict[str, Any], module: Any, path: str, limits: dict[str, Any],
                     tools: Tools, guard: CpuGuard, snapshot: dict[str, Any]) -> dict[str, Any]:
    """A search on each position of a batch, in order, each a call of its own
    (:func:`_serve_batch`), its game the built-in game at that position; the batch also ends
    at a call that returned anything but a finite number (the value of a position)."""
    spec = request[POSITIONS_REQUEST]
    try:
        ids = [str(item) for item in spec["ids"]]
        budgets, mosts = list(spec["budgets"]), [float(most) for most in spec["most"]]
        algorithm, name = str(spec["algorithm"]), str(spec["game"])
        params, depth_limit = dict(spec.get("params") or {}), spec.get("depth_limit")
        if not len(ids) == len(budgets) == len(mosts):
            raise ValueError("a batch's ids, budgets and most differ in length")
    except Exception as exc:  # noqa: BLE001 - the grader's failure, not the student's
        return grader_error_reply(exc)
    calls: list[BatchCall] = []
    for index, state in enumerate(ids):
        call = {"seq": request.get("seq"), "algorithm": algorithm, "trace_limit": 1,
                "time_limit": request["time_limit"], "cpu_most": mosts[index],
                "budget": budgets[index], "position": index}

        def build(state: str = state) -> tuple[Any, Any]:
            return None, builtin_game(name, state, params, depth_limit=depth_limit)

        calls.append((call, build))
    return _serve_batch(calls, spec, True, module, path, limits, tools, guard, snapshot)


def _serve_seeds(request: dict[str, Any], module: Any, path: str, limits: dict[str, Any],
                 tools: Tools, guard: CpuGuard, snapshot: dict[str, Any]) -> dict[str, Any]:
    """The request's search call once a seed of its batch, in order, each a call of its own
    (:func:`_serve_batch`): the request as a single call's, its MCTS settings' seed that one,
    its game built from the request's case as a single call's is, its trace not sent."""
    spec = request[SEEDS_REQUEST]
    try:
        seeds = [int(seed) for seed in spec["seeds"]]
        budgets, mosts = list(spec["budgets"]), [float(most) for most in spec["most"]]
        settings = dict(request.get(MCTS_FIELD) or {})
        if not len(seeds) == len(budgets) == len(mosts):
            raise ValueError("a batch's seeds, budgets and most differ in length")
    except Exception as exc:  # noqa: BLE001 - the grader's failure, not the student's
        return grader_error_reply(exc)
    single = {key: value for key, value in request.items() if key != SEEDS_REQUEST}
    calls: list[BatchCall] = []
    for index, seed in enumerate(seeds):
        call = {**single, MCTS_FIELD: {**settings, "seed": seed}, "trace_limit": 1,
                "cpu_most": mosts[index], "budget": budgets[index], "position": index}
        calls.append((call, lambda call=call: _build_game(call)))
    return _serve_batch(calls, spec, False, module, path, limits, tools, guard, snapshot)


def _serve_batch(calls: list[BatchCall], spec: dict[str, Any], numbers: bool, module: Any,
                 path: str, limits: dict[str, Any], tools: Tools, guard: CpuGuard,
                 snapshot: dict[str, Any]) -> dict[str, Any]:
    """Each call of a batch in order, each a call of its own (:func:`_serve_call`: its own
    game, budget, CPU guard and captured output, the global ``random`` seeded before it). The
    batch ends at the first call that is not ``ok``, printed more than the flood limit, or
    (with ``numbers``) returned anything but a finite number: the reply is then that call's,
    with ``answered`` (``[value, result calls, evaluated calls]`` of each call answered
    before it; so the call it is about is ``len(answered)``). When every call is answered:
    status ``ok``, ``answered`` one a call.

    A call says which it is (``started``, with its position and the CPU time of the calls
    before it) when it runs a tick of its CPU guard, or, where ``spec`` asks it
    (``"announce": "each"``), as it begins, with the answer of the call before it (the
    protocol's module docstring). Each call's CPU most is ``spec``'s, cut at what is left of
    ``spec``'s ``"left"`` (the submission's CPU allowance) after the calls before it, as a
    request of its own would be. Where ``spec`` asks it (``"pause": "half"``, a batch of
    seeds), the batch also ends after a call, not the last, whose game calls passed half its
    budget (:func:`~grader.sandbox.protocol.past_half`): status ``ok``, ``paused``, the answers
    so far."""
    answered: list[list[Any]] = []
    function = None
    each, pause = spec.get("announce") == "each", spec.get("pause") == "half"
    left = finite_number(spec.get("left"), math.inf)
    start = tools.cpu()
    for index, (call, build) in enumerate(calls):
        # the answered calls' CPU time: a time-out of this one is charged to the allowance
        # without it (client)
        before = call["answered_cpu"] = tools.cpu() - start
        call["cpu_most"] = max(min(call["cpu_most"], left - before), 0.01)
        if each:  # with the answer of the call before (a kill loses the batch's reply)
            tools.send({"event": "started", "seq": call.get("seq"), "function": None,
                        "position": index, "answered_cpu": before,
                        "answered": answered[-1:]})
        reply = _serve_call(call, module, path, limits, tools, guard, snapshot, build, answered,
                            announce=not each)
        value, function = reply.get("value"), reply.get("function") or function
        if reply.get("status") != "ok":
            return {**reply, "answered": answered, "answered_cpu": before}
        if reply.get("printed", 0) > limits["flood"] or (
                numbers and finite_number(value, None) is None):
            return _untampered(snapshot, path, function, {**reply, "answered": answered})
        counts = reply.get("calls") or {}
        answered.append([value, counts.get("result", 0), counts.get("evaluated", 0)])
        if pause and index + 1 < len(calls) and past_half(counts, call.get("budget")):
            # the exact budget, which this process is not told, may be below these calls: the
            # parent decides whether the seeds after it run (a request a seed stopped there)
            return _untampered(snapshot, path, function, {
                "event": "reply", "status": "ok", "function": function, "paused": True,
                "answered": answered, "cpu": tools.enforced_cpu()})
    return _untampered(snapshot, path, function, {
        "event": "reply", "status": "ok", "function": function, "answered": answered,
        "cpu": tools.enforced_cpu()})


def _untampered(snapshot: dict[str, Any], path: str, function: str | None,
                reply: dict[str, Any]) -> dict[str, Any]:
    """``reply`` to a batch whose calls returned, or, when search.py replaced
    part of the grader (:func:`tampered`, checked once a batch: 1,700 places, 0.1-0.2 ms), a
    violation at the batch's first call: none of its values counts."""
    changed = tampered(snapshot)
    if not changed:
        return reply
    error = error_data(SandboxViolation(
        f"search.py replaced part of the grader ({', '.join(changed)}); a result computed that "
        "way does not count"), path)
    return {"event": "reply", "status": "error", "function": function, "error": error,
            "message": f"{error['type']}: {error['message']}", "recycle": True,
            "answered": [], "cpu": reply.get("cpu")}


def _serve_call(request: dict[str, Any], module: Any, path: str, limits: dict[str, Any],
                tools: Tools, guard: CpuGuard, snapshot: dict[str, Any],
                build: Callable[[], tuple[Any, Any]] | None = None,
                answered: list[list[Any]] | None = None, announce: bool = True
                ) -> dict[str, Any]:
    """One search call; the reply (without ``seq``). ``build`` makes (case, game) instead of
    the request's case (a batch's call: ``started``, with the position, is sent only if the
    call runs a tick of the CPU guard, and a reply sent from here carries the batch's
    ``answered`` so far; without ``announce``, the batch said it as the call began).

    The CPU guard is armed first, with captured functions: everything after it, the game's
    building included, runs under the request's limits, whatever the submission replaced.
    """
    window, most = float(request["time_limit"]), float(request["cpu_most"])
    _Stash.trace = None

    def settled(reason: str) -> None:
        """Past its budget and still running (it swallows the stop and the time-out): the
        outcome is decided, so answer now and end the process."""
        trace = _Stash.trace
        stop = getattr(trace, "budget_stop", None)
        if stop is None:
            return
        guard.disarm()  # the ids of a long trace take time: no SIGXCPU while they are made
        packed, truncated = packed_trace(trace, _trace_cap(request))
        batch = {} if answered is None else {"answered": answered}
        tools.send({"event": "reply", "seq": request.get("seq"), "status": "budget",
                    "recycle": True, **budget_fields(trace, stop),
                    **packed, "trace_truncated": truncated,
                    "calls": call_counts(trace), "cpu": tools.enforced_cpu(), **batch})
        tools.exit(0)

    said = None
    if "position" in request and announce:  # a batch's call that runs a while says which it
        # is: a kill or a crash is then its own (a message every call would wake the parent
        # each time)
        started = {"event": "started", "seq": request.get("seq"), "function": None,
                   "position": request["position"],
                   "answered_cpu": request.get("answered_cpu", 0.0)}
        said = lambda: tools.send(started)  # noqa: E731
    guard.arm(window, most, _Stash.progress, settled, said)
    try:
        return _call(request, module, path, limits, tools, guard, snapshot, build)
    except WorkerTimeout:  # between the calls _call guards (printing, replying)
        return {"event": "reply", "status": "timeout",
                "message": timeout_message(guard.reason, window, most)}
    finally:
        guard.disarm()


def _call(request: dict[str, Any], module: Any, path: str, limits: dict[str, Any],
          tools: Tools, guard: CpuGuard, snapshot: dict[str, Any],
          build: Callable[[], tuple[Any, Any]] | None = None) -> dict[str, Any]:
    algorithm = request["algorithm"]
    window, most = float(request["time_limit"]), float(request["cpu_most"])
    try:
        case, game = _build_game(request) if build is None else build()
        name = function_name(algorithm, game)
        settings = _mcts_settings(request, case) if get_algorithm(algorithm).iterations else None
        budget = _budget(request)
    except WorkerTimeout:  # the game's building ran out of time: code the student replaced?
        changed = tampered(snapshot)
        return {"event": "reply", "status": "timeout", "message": (
            "search.py replaced part of the grader, which then ran out of time"
            if changed else timeout_message("most", window, most) + " (building the game)")}
    except Exception as exc:  # noqa: BLE001 - the grader's failure, not the student's
        return grader_error_reply(exc)
    reply: dict[str, Any] = {"event": "reply", "function": name}
    function = module.__dict__.get(name)  # no module __getattr__: no student code runs here
    if not callable(function):
        message = (
            f"search.py has no function {name!r}"
            if function is None
            else f"search.py's {name!r} is not a function but a {type(function).__name__}"
        )
        reply.update(
            status="missing_function",
            message=message,
            error={"type": "MissingFunction", "message": message, "traceback": ""},
        )
        return reply
    tools.seed(0)  # code that uses the global RNG gets the same answer in every run
    if build is None:  # a batch's call: its progress is written (_serve_batch)
        tools.send({"event": "started", "seq": request.get("seq"), "function": name})
    result: Any = None
    caught: Any = None
    with Captured(int(limits["output"])) as output:
        start = tools.perf_counter()
        packed: Any = None
        try:
            result = run_algorithm({name: function}, game, algorithm, settings, budget,
                                   ids=False)  # the trace is packed from its states
            # each distinct id once (the protocol's packed trace), under the call's guard; a
            # batch's call sends none (its counts are the batch's answer)
            packed = packed_trace(_Stash.trace, _trace_cap(request)) if build is None else \
                ({}, False)
        except WorkerTimeout:
            caught = "interrupted"
        except BaseException as exc:  # noqa: BLE001 - SystemExit too: all reported
            caught = exc
        guard.disarm()
        elapsed = tools.perf_counter() - start
        trace, _Stash.trace = _Stash.trace, None
        reply["elapsed"] = elapsed
        if caught is None and guard.reason:
            caught = "late"  # the code caught the time-out and went on
        stop = getattr(trace, "budget_stop", None)
        if stop is not None:  # passed the budget, whatever it did after (caught it, looped)
            caught = "budget"
        # a batch's call that returned is checked with the batch (_serve_batch)
        changed = tampered(snapshot) if build is None or caught is not None else []
        if changed:  # whatever it returned, it ran under code that was not the grader's
            caught = SandboxViolation(
                f"search.py replaced part of the grader ({', '.join(changed)}); "
                "a result computed that way does not count"
            )
        if caught is None:
            repr_seconds = max(0.05, min(1.0, limits["kill_margin"] / 4))
            reply.update(
                status="ok", value=encode_value(result.value, safe_repr_factory(repr_seconds))
            )
            if result.table is not None:  # alpha_beta_tt: the student's own dict, summed up
                reply["table"] = table_summary(result.table)
        else:
            if caught == "budget":
                reply.update(status="budget", **budget_fields(trace, stop))
            elif isinstance(caught, BaseException):
                reply.update(status="error", error=error_data(caught, path))
                reply["message"] = f"{reply['error']['type']}: {reply['error']['message']}"
                reply["recycle"] = isinstance(
                    caught, (MemoryError, RecursionError, SandboxViolation)
                )
            else:
                reply["status"] = "timeout"
                reply["message"] = timeout_message(guard.reason, window, most) + (
                    "" if caught == "interrupted"
                    else "; the code caught the time-out and went on")
        if packed is None:  # the call did not return: what it generated so far
            packed = packed_trace(trace, _trace_cap(request))
        packed, truncated = packed
        calls = call_counts(trace)
        del result, caught, trace
    reply.update(
        packed,
        trace_truncated=truncated,
        calls=calls,
        stdout=output.out.text(),
        stderr=output.err.text(),
        printed=output.out.total + output.err.total,
        cpu=tools.enforced_cpu(),
    )
    return reply


# --- main -----------------------------------------------------------------------------------


def json_lines(write: Callable[[bytes], Any], readline: Callable[[], bytes]
               ) -> tuple[Callable[[dict[str, Any]], None], Callable[[], dict[str, Any] | None]]:
    """(send, receive) of JSON lines over ``write`` and ``readline`` (receive: None at the end)."""
    dumps, loads = json.dumps, json.loads

    def send(message: dict[str, Any]) -> None:
        write(dumps(message, allow_nan=False).encode() + b"\n")

    def receive() -> dict[str, Any] | None:
        line = readline()
        return loads(line) if line else None

    return send, receive


def prepare_process(config: dict[str, Any]) -> Callable[[Any], None]:
    """What both workers do before any limit that needs the OS: tracebacks of a crash on
    stderr, the trace kept for failed calls, the grader's modules imported, ``random``'s
    generator seeded on first use (:mod:`grader.sandbox.seeding`), the scratch folder as the
    working directory. Returns the seeding function each call uses (``Tools.seed``)."""
    faulthandler.enable(sys.__stderr__)  # a segfault leaves a traceback on the worker's stderr
    # Keep a handle on each run's trace, so a failed call still reports what it generated;
    # run_algorithm stays the one calling convention. (In the worker process only.)
    runner.traced = _Stash.traced
    _preload()
    seed = install_deferred_random().defer_seed
    os.chdir(config["scratch"])
    return seed


def worker_tools(seed: Callable[[Any], None], send: Callable[[dict[str, Any]], None],
                 receive: Callable[[], Any]) -> Tools:
    """The functions the worker calls once the submission is imported (:class:`Tools`), taken
    from their modules now: call it before the import. (``bench/serve_replay.py`` serves
    requests in process with the same ones.)"""
    return Tools(
        seed=seed, perf_counter=time.perf_counter, getrusage=resource.getrusage,
        getrlimit=resource.getrlimit, setrlimit=resource.setrlimit, setitimer=signal.setitimer,
        # _signal.signal: signal.signal wraps it in enum conversions both ways, 7 us of the
        # ~80 each call of a batch costs here (CpuGuard.arm sets its handler anew every call)
        set_handler=_signal.signal, send=send, receive=receive, exit=os._exit,
        raise_signal=signal.raise_signal, prof_clock=prof_clock_reader(time.clock_gettime),
    )


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1 or not argv[0].isdigit():
        print(
            "usage: python -m grader.sandbox.worker FD  (started by grader.sandbox.client.Worker)",
            file=sys.stderr,
        )
        return 2
    if sys.path and sys.path[0] in ("", os.getcwd()):
        del sys.path[0]  # never import from the working directory
    channel = socket.socket(fileno=int(argv[0]))
    send, receive = json_lines(channel.sendall, channel.makefile("rb").readline)
    config = receive()
    if config is None:
        return 0
    limits = config["limits"]
    most_killable()  # the OOM killer's first choice, before anything could fill memory
    seed = prepare_process(config)
    drop_privileges(config["ids"])
    die_with_parent()
    landlock = confine(config["scratch"]) if config.get("landlock", True) else 0
    seccomp = refuse_sysv_ipc() if config.get("seccomp", True) else 0  # after no_new_privs
    apply_limits(limits)
    tools = worker_tools(seed, send, receive)
    guard = CpuGuard(tools, float(limits["kill_margin"]))
    return serve(config, tools, guard, {"uid": os.getuid(), "landlock": landlock,
                                        "seccomp": seccomp, "unreadable": unreadable_stdlib()})


def unreadable_stdlib() -> str:
    """What of the standard library this process cannot read, as it now is (dropped,
    confined): "" when it can. A student's ``import logging`` would fail there as "No module
    named 'logging'", so the parent refuses to grade with a staff message instead
    (:mod:`grader.sandbox.lifecycle`; issue 40). Before any student code runs."""
    stdlib = os.path.dirname(os.__file__)
    folders = [stdlib, *[path for path in sys.path if path.endswith("lib-dynload")]]
    try:
        for folder in folders:
            os.listdir(folder)
        with open(os.path.join(stdlib, "pprint.py"), "rb"):  # one a student may import
            pass
    except OSError as error:
        return f"{error.strerror}: {error.filename}"[:500]
    return ""


def serve(config: dict[str, Any], tools: Tools, guard: Any, confinement: dict[str, int]) -> int:
    """Import the submission under ``guard`` and answer requests until the channel closes
    (both workers: this one and :mod:`grader.sandbox.portable_worker`)."""
    limits = config["limits"]
    # Imported by its name in the working directory (the scratch folder, prepare_process), so
    # the file name Python records, and tracebacks, faulthandler and warnings print, is
    # "search.py" in every run, not the scratch folder's random name.
    path = os.path.relpath(config["submission"], config["scratch"])
    # this machine's speed: the parent's measure when it sent one, else timed here; either
    # way before any student code
    calibration = config.get("calibration") or calibration_seconds()
    snapshot = guarded_objects()
    tools.send({"event": "importing", "confinement": confinement, "calibration": calibration})
    module, ready = _import_submission(path, limits, guard)
    tools.send(ready)
    while True:
        request = tools.receive()
        if request is None:
            return 0
        if module is None:  # the parent answers these itself; a stray request is answered too
            reply = {**ready, "event": "reply"}
        else:
            try:
                reply = _serve(request, module, path, limits, tools, guard, snapshot)
            except Exception as exc:  # noqa: BLE001 - a worker bug: the grader's failure
                reply = grader_error_reply(exc)
        tools.send({**reply, "seq": request.get("seq")})


if __name__ == "__main__":
    raise SystemExit(main())
