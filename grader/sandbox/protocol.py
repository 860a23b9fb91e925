"""The worker protocol: what crosses between the grader and the sandbox worker.

JSON lines over a private socket (never stdout), in this order::

    parent -> {"submission", "scratch", "ids": [uid, gid] | null, "limits": {...}}
    worker -> {"event": "importing", "confinement": {"uid", "landlock": ABI or 0},
               "calibration": CPU seconds of grader.run.calibration's workload}
                                                      (set up; about to run student code)
    worker -> {"event": "ready", "status": "ok" | "import_error", "error", "stdout", "stderr"}
    then, per request:
    parent -> {"seq", "case": {...}, "algorithm", "mcts": {...} | null, "time_limit": seconds,
               "cpu_most": seconds, "budget": {"result", "evaluated"} | null}
    worker -> {"event": "started", "seq", "function"}  (the student's function is being called)
    worker -> {"event": "reply", "seq", "status", "value", "generated", "evaluated", "error",
               "stdout", "stderr", "printed", "elapsed", "function", "message", "cpu",
               "trace_truncated", "budget_stop": {"kind", "calls"} (status "budget")}

(``missing_function`` and grader failures are answered with a reply and no ``started``.)

The parent reads every reply as untrusted input: :class:`WorkerReply` is rebuilt field by field
as the plain type it should be (:func:`finite_number`, :func:`string_list`), and a line longer
than :data:`MAX_MESSAGE_BYTES` is a broken or forged reply.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from grader.sandbox.capture import join_output
from grader.sandbox.limits import Limits, MiB
from grader.sandbox.values import decode_value, encode_value

STATUSES = (
    "ok",  # the function returned in time: value + trace
    "error",  # it raised (error: type, message, traceback of the submission's frames)
    "timeout",  # it passed the time limit (interrupted, or caught the time-out and returned late)
    "killed_timeout",  # it ignored the time-out: the process group was killed at time + margin
    "crashed",  # the worker died (os._exit, a signal, the memory or CPU limit, ...)
    "missing_function",  # search.py has no function of the name the algorithm calls
    "import_error",  # search.py could not be imported (reported on every request)
    "budget",  # it passed its work budget of game calls: the trace so far, no value
)
BUDGET_KINDS = ("result", "evaluated")  # the calls a budget counts (grader.run.tracing)


ERROR_KEYS = ("type", "message", "traceback")
MAX_MESSAGE_BYTES = 64 * MiB  # a longer reply is a broken (or forged) one
MAX_TRACE = 1_000_000  # ids of each trace list sent back (all of tic-tac-toe: 549,945)


@dataclass
class WorkerReply:
    """What one :meth:`Worker.run` produced. Only plain data: no student object ever gets here.

    ``status`` is one of :data:`STATUSES`. ``value`` is decoded (:func:`decode_value`) and set
    only for ``ok``. ``generated`` / ``evaluated`` are the trace's ids (for ``error`` and
    ``timeout``: what was recorded before the failure). ``error`` is ``{"type", "message",
    "traceback"}`` (the traceback keeps only the submission's frames) or None. ``message`` is one
    lowercase line saying what happened, for every status but ``ok``.
    """

    status: str
    value: Any = None
    generated: list[str] = field(default_factory=list)
    evaluated: list[str] = field(default_factory=list)
    error: dict[str, str] | None = None
    stdout: str = ""
    stderr: str = ""
    elapsed: float | None = None  # seconds in the student's function (None: not called)
    function: str | None = None  # the stub the algorithm called (``max_value``, ...)
    algorithm: str = ""
    time_limit: float = 0.0
    message: str = ""
    trace_truncated: bool = False  # a list passed MAX_TRACE ids and was cut
    budget_stop: dict[str, Any] | None = None  # status "budget": {"kind", "calls"}

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe: the value encoded as :func:`encode_value` does."""
        data = asdict(self)
        data["value"] = encode_value(self.value)
        return data


def mcts_dict(mcts: Any) -> dict[str, Any] | None:
    names = ("iterations", "seed", "c")
    if mcts is None:
        return None
    if isinstance(mcts, Mapping):
        source = dict(mcts)
    else:
        source = {name: getattr(mcts, name) for name in names if hasattr(mcts, name)}
    return {name: source[name] for name in names if source.get(name) is not None}


def finite_number(value: Any, default: Any) -> Any:
    """``value`` as a finite float, else ``default`` (fields of a reply the worker forged)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    return default


def string_list(items: Any) -> list[str]:
    return [str(item) for item in items] if isinstance(items, list) else []


def budget_stop(message: dict[str, Any]) -> dict[str, Any]:
    """A budget reply's ``{"kind", "calls"}``, checked (a forged one reads as 0 result calls)."""
    given = message.get("budget_stop")
    given = given if isinstance(given, dict) else {}
    kind = given.get("kind") if given.get("kind") in BUDGET_KINDS else "result"
    calls = finite_number(given.get("calls"), 0.0)
    return {"kind": kind, "calls": int(min(max(calls, 0), 1e12))}


def reply_from_message(message: dict[str, Any], function: str | None, *, stdout: str, stderr: str,
                       printed: int, limits: Limits) -> WorkerReply:
    """A :class:`WorkerReply` from a worker's reply of a known status other than a grader error.

    ``stdout`` / ``stderr`` are what the parent captured at the fd level, ``printed`` how many
    bytes it saw; a call that printed more than ``limits.flood`` becomes an error.
    """
    status = message.get("status")
    printed += int(finite_number(message.get("printed"), 0))
    error = message.get("error")
    # Every field is rebuilt as the plain type it should be: the message came from a
    # process the student controls, and nothing of it reaches the grader but data.
    reply = WorkerReply(
        status,
        value=decode_value(message.get("value")) if status == "ok" else None,
        generated=string_list(message.get("generated")),
        evaluated=string_list(message.get("evaluated")),
        error={k: str(error.get(k, "")) for k in ERROR_KEYS}
        if isinstance(error, dict)
        else None,
        stdout=join_output(str(message.get("stdout", "")), stdout, limits.output),
        stderr=join_output(str(message.get("stderr", "")), stderr, limits.output),
        elapsed=finite_number(message.get("elapsed"), None),
        function=str(message.get("function") or function or "") or None,
        message=str(message.get("message", "")),
        trace_truncated=bool(message.get("trace_truncated")),
        budget_stop=budget_stop(message) if status == "budget" else None,
    )
    if printed > limits.flood and status in ("ok", "error"):
        text = (
            f"printed {printed:,} bytes in one call, more than the limit of "
            f"{limits.flood:,} (leftover debugging output?)"
        )
        reply.status, reply.value = "error", None
        reply.error = {"type": "OutputLimitExceeded", "message": text, "traceback": ""}
        reply.message = f"OutputLimitExceeded: {text}"
    return reply
