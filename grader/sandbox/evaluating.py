"""The worker's side of an ``evaluate`` request: the student's evaluation on a batch of positions.

The request (:mod:`grader.sandbox.protocol`) names a built-in game, its params, the positions'
ids, the seed and the budget of game calls each evaluation may make; the reply's ``value`` is
the list of numbers, one a position, in order (:mod:`grader.run.evaluation` makes the calls).
A failure names the position it happened at. Runs in the worker, after the CPU guard is armed;
the parent checks the reply as it checks every other (:func:`grader.sandbox.client.Worker.evaluate`).
"""

from __future__ import annotations

from typing import Any

from grader.algorithms.evaluate import ALGORITHM as EVALUATE
from grader.games import builtin_game
from grader.run.evaluation import Counter, EvaluationError, evaluate_positions
from grader.sandbox.capture import Captured
from grader.sandbox.failures import SandboxViolation, error_data, grader_error_reply, tampered
from grader.sandbox.guard import WorkerTimeout
from grader.sandbox.protocol import POSITIONS_REQUEST
from grader.sandbox.reply_parts import timeout_message

FUNCTION = EVALUATE.stubs[0]  # the student's function it calls


def serve_evaluate_request(request: dict[str, Any], module: Any, path: str,
                           limits: dict[str, Any], tools: Any, guard: Any,
                           snapshot: dict[str, Any]) -> dict[str, Any]:
    """An ``evaluate`` request served whole: the CPU guard armed first (its progress: the
    batch's game calls and positions done), the batch evaluated, the guard disarmed. Past its
    budget and still running (it swallows the stop and the time-out), the call is answered
    from the guard as a budget stop and the process ends, as the search requests are."""
    window, most = float(request["time_limit"]), float(request["cpu_most"])
    counter = Counter()

    def settled(reason: str) -> None:
        if counter.stopped_at is None:
            return
        guard.disarm()
        ids = request[POSITIONS_REQUEST].get("ids") or []
        where = position_at([str(i) for i in ids], counter, None)
        tools.send({"event": "reply", "seq": request.get("seq"), "status": "budget",
                    "recycle": True, "function": FUNCTION,
                    "budget_stop": {"kind": "result", "calls": 0},
                    "message": f"evaluate passed its budget of game calls at position {where!r} "
                               "and went on", "cpu": tools.enforced_cpu()})
        tools.exit(0)

    guard.arm(window, most, lambda: counter.total, settled)
    try:
        return serve_evaluate(request, module, path, limits, tools, guard, snapshot, counter)
    except WorkerTimeout:
        return {"event": "reply", "status": "timeout",
                "message": timeout_message(guard.reason, window, most)}
    finally:
        guard.disarm()


def serve_evaluate(request: dict[str, Any], module: Any, path: str, limits: dict[str, Any],
                   tools: Any, guard: Any, snapshot: dict[str, Any], counter: Counter
                   ) -> dict[str, Any]:
    """The reply (without ``seq``) to an ``evaluate`` request. The caller armed the CPU guard
    with ``counter.total`` as its progress (game calls and positions done: an evaluation that
    reads only the board still makes progress, one position at a time)."""
    spec = request[POSITIONS_REQUEST]
    window, most = float(request["time_limit"]), float(request["cpu_most"])
    try:
        game = builtin_game(str(spec["game"]), None, dict(spec.get("params") or {}))
        ids = [str(item) for item in spec["ids"]]
        calls, seed = int(spec["calls"]), int(spec["seed"])
    except WorkerTimeout:
        return {"event": "reply", "status": "timeout",
                "message": timeout_message("most", window, most) + " (building the game)"}
    except Exception as exc:  # noqa: BLE001 - the grader's failure, not the student's
        return grader_error_reply(exc)
    reply: dict[str, Any] = {"event": "reply", "function": FUNCTION}
    function = module.__dict__.get(FUNCTION)  # no module __getattr__: no student code runs here
    if not callable(function):
        message = (f"search.py has no function {FUNCTION!r}" if function is None else
                   f"search.py's {FUNCTION!r} is not a function but a {type(function).__name__}")
        reply.update(status="missing_function", message=message,
                     error={"type": "MissingFunction", "message": message, "traceback": ""})
        return reply
    # no "started" message: an evaluate request always calls evaluate, so the parent knows the
    # function already, and a message fewer is a send here and a wake-up, a read and a check
    # there, each request (a play case makes dozens)
    caught: Any = None
    values: list[float] = []
    with Captured(int(limits["output"])) as output:
        start = tools.perf_counter()
        try:
            # the game built for this request is sealed in place: no frame, closure or
            # gc walk from evaluate finds an uncounted instance of it (grader.run.evaluation)
            values = evaluate_positions(function, game, ids, calls, seed, tools.seed, counter,
                                        own_game=True)
        except WorkerTimeout:
            caught = "interrupted"
        except BaseException as exc:  # noqa: BLE001 - SystemExit too: all reported
            caught = exc
        guard.disarm()
        reply["elapsed"] = tools.perf_counter() - start
        if caught is None and guard.reason:
            caught = "late"
        if counter.stopped_at is not None:  # passed the budget, whatever it did after
            caught = "budget"
        changed = tampered(snapshot)
        if changed:
            caught = SandboxViolation(f"search.py replaced part of the grader ({', '.join(changed)}); "
                                      "a result computed that way does not count")
        where = position_at(ids, counter, caught)
        if caught is None:
            reply.update(status="ok", value=values)
        elif caught == "budget":
            reply.update(status="budget", budget_stop={"kind": "result", "calls": calls},
                         message=f"evaluate made more than {calls} `result`/`utility` calls "
                                 f"at position {where!r}")
        elif isinstance(caught, BaseException):
            reply.update(status="error", error=error_data(caught, path))
            if not isinstance(caught, EvaluationError):
                reply["error"]["message"] += f" (at position {where!r})"
            reply["message"] = f"{reply['error']['type']}: {reply['error']['message']}"
            reply["recycle"] = isinstance(caught, (MemoryError, RecursionError, SandboxViolation))
        else:
            reply["status"] = "timeout"
            reply["message"] = timeout_message(guard.reason, window, most) + (
                f" (evaluating position {where!r})") + (
                "" if caught == "interrupted" else "; the code caught the time-out and went on")
    reply.update(stdout=output.out.text(), stderr=output.err.text(),
                 printed=output.out.total + output.err.total, cpu=tools.enforced_cpu())
    return reply


def position_at(ids: list[str], counter: Counter, caught: Any) -> str:
    """The id of the position the batch stopped at."""
    if not ids:
        return ""
    index = caught.index if isinstance(caught, EvaluationError) else None
    if index is None:
        index = counter.stopped_at if counter.stopped_at is not None else counter.position
    return ids[max(0, min(int(index), len(ids) - 1))]


__all__ = ["position_at", "serve_evaluate", "serve_evaluate_request"]
