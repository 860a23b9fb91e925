"""The worker protocol: what crosses between the grader and the sandbox worker.

JSON lines over a private socket (never stdout), in this order::

    parent -> {"submission", "scratch", "ids": [uid, gid] | null, "limits": {...},
               "calibration": CPU seconds | null (the parent's measure; null: time it here)}
    worker -> {"event": "importing", "confinement": {"uid", "landlock": ABI or 0,
                                                     "seccomp": 1 or 0, "unreadable": text},
               "calibration": CPU seconds of grader.run.calibration's workload}
                                                      (set up; about to run student code)
    worker -> {"event": "ready", "status": "ok" | "import_error", "error", "stdout", "stderr"}
    then, per request:
    parent -> {"seq", "case": {...}, "algorithm", MCTS_FIELD: {...} | null, "time_limit": seconds,
               "cpu_most": seconds, "budget": {"result", "evaluated"} | null}
               (MCTS_FIELD: grader.algorithms.mcts.SETTINGS_FIELD, the case's settings field)
           or {"seq", POSITIONS_REQUEST: {"game", "params", "ids": [state id, ...], "calls",
                                           "seed"},
               "time_limit", "cpu_most"}   (the evaluate assignment: a batch of positions;
               the reply's "value" is the list of numbers, one a position, checked by
               :func:`evaluation_values`; "generated"/"evaluated" are empty)
           or {"seq", POSITIONS_REQUEST: {"game", "params", "ids": [state id, ...],
                                           "algorithm", "depth_limit",
                                           "budgets": [{"result", "evaluated"}, ...],
                                           "most": [CPU seconds, ...], "left"},
               "time_limit", "cpu_most"}   (a search on each position in turn, each a call of
               its own: its budget, its CPU guard of "time_limit" and its "most", random seeded;
               the batch ends at the first position not answered with a finite number. The
               reply carries "answered": [[value, result calls, evaluated calls], ...], one a
               position answered; all answered: "status" "ok"; else the reply is position
               len(answered)'s, as a single call's, with "answered_cpu", the CPU seconds of the
               positions before it. Checked by :func:`batch_answers`, the numbers by the
               client)
           or {"seq", "case", "algorithm", MCTS_FIELD, "time_limit", "cpu_most", "budget",
               "trace_limit", SEEDS_REQUEST: {"seeds": [seed, ...],
                                              "budgets": [{"result", "evaluated"}, ...],
                                              "most": [CPU seconds, ...],
                                              "announce": "each", "left": CPU seconds,
                                             "pause": "half"}}
               (an MCTS outcome test's seeds: the request's search call once a seed, in order,
               each a call of its own as a single request would make it, MCTS_FIELD's seed
               that one; the batch ends at the first call that is not "ok"; the reply as a
               batch of searches', each answer's value any value the call returned, no trace
               sent for the calls answered. With "pause": "half", the batch also ends after a
               call, not the last, whose calls of a kind passed half its budget (the rounded
               one the worker is told): "status" "ok", "paused": true, the answers so far; the
               parent, which knows the exact budget, sends the rest in a new request only when
               that call was within it, as a request a seed ends the test at a call past it)
    worker -> {"event": "started", "seq", "function"}  (the student's function is being called)
    worker -> {"event": "reply", "seq", "status", "value", "ids", "generated", "evaluated", "error",
               "stdout", "stderr", "printed", "elapsed", "function", "message", "cpu",
               "trace_truncated", "budget_stop": {"kind", "calls"} (status "budget"),
               "calls": {"result", "evaluated"} (the game calls the search made, before the
               trace was cut: the parent applies the exact work budget to them),
               "table": {"entries", "exact", "lower", "upper", "other"} (alpha_beta_tt, status
               "ok": the student's transposition table summed up; the dict itself never
               crosses)}

(``missing_function`` and grader failures are answered with a reply and no ``started``, and
so is every batch: the parent knows the function already. A call of a batch of searches that
runs a tick of its CPU guard (a quarter window), and every call of a batch of seeds as it
begins (the batch's ``"announce": "each"``, with ``"answered"``: the answer of the call before
it, if any, as the reply's), sends ``{"event": "started", "seq", "position": index,
"answered_cpu": CPU seconds of the batch's calls before it}``: a kill of it is that call's (the
answers before it as the "started" said them), the CPU seconds before it are not its
time-out's, and the parent's limits restart there with that call's (each position once, in
order: a forged one never extends them past the batch's; in a batch of seeds, where every call
sends one, only the next position). A batch also gives ``"left"``, the
CPU seconds left of the submission's allowance: each call's most is cut at what is left of it
after the calls before, as a request of its own would be.)

A trace crosses packed (:func:`pack_trace`, the worker's way; :mod:`grader.run.packing`):
``"ids"`` lists each distinct id once, and ``"generated"`` / ``"evaluated"`` are base64 strings
of little-endian 4-byte unsigned indexes into ``ids``, in order. A plain JSON list of id
strings is read too (older workers, and a reply the student's code writes by hand); both forms
get the same checks and caps.

Everything the worker sends is untrusted: student code can write on the channel (its descriptor
is in ``sys.argv``). The parent therefore

* drops, unparsed, a line that nowhere says the current request's ``"seq": N``
  (:func:`grader.sandbox.channel.request_pattern`: stale or forged for no request);
* refuses a line longer than :data:`MAX_MESSAGE_BYTES` or holding more JSON items than
  :data:`MAX_MESSAGE_ITEMS` *before* decoding it (:func:`parse_message`: a count of the
  separators bounds what ``json.loads`` could build, so a forged trace of millions of ids never
  becomes millions of objects);
* checks each message against :data:`MESSAGE_SCHEMA` (types, lengths, list sizes), by hand
  (:func:`message_problem`; the ids of a trace by C loops, :func:`id_list`; a packed trace's
  length before it is decoded and every index against the table,
  :func:`~grader.run.packing.decode_indexes`), and reads
  numbers through :func:`finite_number`, which checks an int's size before any float
  operation, and cuts an error's fields and a reply's message at :data:`ERROR_CAPS`
  (:func:`error_fields`: a class name too);
* never takes a status the worker sends as the grader's failure: a ``grader_error`` reply is
  the worker's word, and the worker is the student's (:func:`reply_from_message` makes it a
  ``crashed`` reply; the parent checks a case builds before sending it, so a case the grader
  cannot build is its own :class:`~grader.errors.GraderError`, raised in the parent).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from grader.run.evaluation import MAX_POSITIONS
from grader.run.packing import PackedIds, decode_indexes, pack_ids
from grader.run.runner import TABLE_KINDS, function_name
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
POSITIONS_REQUEST = "evaluate"  # the key of a request for a batch of positions' values
SEEDS_REQUEST = "seeds"  # the key of a request for a search call once a seed (MCTS outcomes)
MAX_TRACE = 600_000  # ids of each trace list sent back (all of tic-tac-toe: 549,945)
MAX_ID_LENGTH = 1_000  # characters of one id (a connect-4 board is 48)
MAX_TEXT = 100_000  # characters of any other string of a message (output is capped lower)
# What is kept of an error's fields and a reply's message (the worker's own safe_str keeps 2,000
# characters of a message; a class name of 49,000 characters gave 98 kB of results.json a test)
ERROR_CAPS = {"type": 100, "message": 2_000, "traceback": 10_000}
# Bounds on one line, checked before it is decoded: two full traces of the longest ids seen in
# practice, the value's MAX_ITEMS and room for the rest. Decoding a line within them costs the
# parent at most about 150 MB however the line is made up.
MAX_MESSAGE_BYTES = 24 * MiB  # a longer line is a broken (or forged) one
MAX_MESSAGE_ITEMS = 2 * MAX_TRACE + 50_000


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
    calls: dict[str, int] | None = None  # {"result", "evaluated"}: the worker's word
    table: dict[str, int] | None = None  # alpha_beta_tt: its table's entries, by bound kind
    # a batch of calls (Worker.search_positions, Worker.run_seeds): each answered call's value
    # and game calls ({"result", "evaluated"}), and the index of the call the reply is about
    # (None: every call answered, or a failure at no call the parent knows)
    answered: list[tuple[Any, dict[str, int]]] | None = None
    position: int | None = None
    answered_cpu: float = 0.0  # CPU s of the answered calls (the worker's word, >= 0)
    # a batch of seeds the worker ended early, "ok" with the answers so far: its last seed's
    # calls passed half its rounded budget (the parent, which knows the exact one, decides
    # whether the rest are run: Worker.run_seeds)
    paused: bool = False

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


class Unreadable(ValueError):
    """A line from the worker that is not a message the protocol allows (says why)."""


def items_allowed(trace_limit: int) -> int:
    """The JSON items a reply may hold when each trace list has at most ``trace_limit`` ids."""
    return 2 * min(trace_limit, MAX_TRACE) + 50_000


def parse_message(buffer: bytes | bytearray, end: int, max_items: int = MAX_MESSAGE_ITEMS
                  ) -> dict[str, Any]:
    """The message in ``buffer[:end]`` (one line), checked against :data:`MESSAGE_SCHEMA`:
    :func:`line_text`, :func:`text_message`, then :func:`checked_message`. Raises
    :class:`Unreadable` saying what is wrong."""
    return checked_message(text_message(line_text(buffer, end, max_items)), max_items)


def line_text(buffer: bytes | bytearray, end: int, max_items: int = MAX_MESSAGE_ITEMS) -> str:
    """``buffer[:end]`` (one line) as text, for :func:`text_message` (a caller may free
    ``buffer`` between the two: 5 MB for a full tic-tac-toe reply).

    The line's size and its count of JSON separators (at most ``max_items``: see
    :func:`items_allowed`) are checked before anything is decoded (``bytearray.count`` copies
    nothing). Raises :class:`Unreadable` saying what is wrong.
    """
    if end > MAX_MESSAGE_BYTES:
        raise Unreadable(f"sent a message of {end:,} bytes, more than the {MAX_MESSAGE_BYTES:,} "
                         "the grader reads")
    items = sum(buffer.count(mark, 0, end) for mark in (b",", b"[", b"{"))
    if items > max_items:
        raise Unreadable(f"sent a message of {items:,} items or more, more than the "
                         f"{max_items:,} the grader reads (a forged trace?)")
    try:
        with memoryview(buffer) as view, view[:end] as line:
            return str(line, "utf-8")  # one copy, straight to text
    except ValueError:  # bad UTF-8
        raise Unreadable("wrote something unreadable to the grader's private channel") from None


def text_message(text: str) -> Any:
    """The JSON value of a line's ``text`` (:func:`line_text`); raises :class:`Unreadable`."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError):  # a huge int literal is a ValueError too
        raise Unreadable("wrote something unreadable to the grader's private channel") from None


def checked_message(message: Any, max_items: int = MAX_MESSAGE_ITEMS) -> dict[str, Any]:
    """``message`` (:func:`text_message`'s) checked by :func:`message_problem`, its packed
    traces unpacked; raises :class:`Unreadable` saying what is wrong."""
    problem = message_problem(message, max(0, (max_items - 50_000) // 2))
    if problem:
        raise Unreadable(f"sent a malformed message ({problem})")
    return message


def _text(limit: int = MAX_TEXT) -> dict[str, Any]:
    return {"type": "string", "maxLength": limit}


_NUMBER = {"type": "number"}
_ERROR = {"type": ["object", "null"], "additionalProperties": _text(),
          "properties": {key: _text() for key in ERROR_KEYS}}
# generated/evaluated: a list of ids, or a packed trace (a string); both checked by hand
_TRACE = {"type": ["array", "string"], "maxItems": MAX_TRACE}  # (a string: no maxLength)
MESSAGE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["event"],
    "properties": {
        "event": {"enum": ["importing", "ready", "started", "reply"]},
        "seq": {"type": ["integer", "null"]},
        "status": _text(100),
        "function": {"type": ["string", "null"], "maxLength": 100},
        "message": _text(),
        "stdout": _text(),
        "stderr": _text(),
        "error": _ERROR,
        "generated": _TRACE,
        "evaluated": _TRACE,
        "ids": {"type": "array", "maxItems": 2 * MAX_TRACE},
        "trace_truncated": {"type": "boolean"},
        "calls": {"type": "object", "additionalProperties": _NUMBER},
        "answered": {"type": "array", "maxItems": MAX_POSITIONS},  # items: batch_answers
        "answered_cpu": _NUMBER,
        "position": {"type": "integer"},  # a batch's "started": the index of the call
        "paused": {"type": "boolean"},  # a batch of seeds ended early (WorkerReply.paused)
        "table": {"type": "object", "additionalProperties": _NUMBER},
        "recycle": {"type": "boolean"},
        "printed": _NUMBER,
        "elapsed": _NUMBER,
        "cpu": _NUMBER,
        "confinement": {"type": "object", "additionalProperties": _NUMBER,
                        "properties": {"unreadable": _text(1000)}},
        # "value": anything JSON; decode_value bounds its size, depth and numbers
    },
}


_JSON_TYPES: dict[str, tuple[type, ...]] = {  # a JSON type's Python types (no bool for numbers)
    "integer": (int,), "number": (int, float), "string": (str,), "array": (list,),
    "object": (dict,), "boolean": (bool,), "null": (type(None),),
}


def schema_problem(item: Any, rule: dict[str, Any], where: str = "") -> str:
    """What is wrong with ``item`` under ``rule`` ("" when nothing is), for the part of JSON
    Schema :data:`MESSAGE_SCHEMA` uses: ``type``, ``enum``, ``required``, ``maxLength``,
    ``maxItems``, ``properties``, ``additionalProperties`` (list items are not walked)."""
    place = where or "the message"
    if "enum" in rule and not any(type(item) is type(allowed) and item == allowed
                                  for allowed in rule["enum"]):
        return f"{place}: {str(item)[:100]!r} is not one of {rule['enum']}"
    names = rule.get("type")
    if names is not None:
        names = [names] if isinstance(names, str) else names
        if not any(type(item) in _JSON_TYPES[name] for name in names):
            return f"{place}: expected {' or '.join(names)}, got: {type(item).__name__}"
    if type(item) is str and len(item) > rule.get("maxLength", math.inf):
        return f"{place}: a string longer than {rule['maxLength']:,} characters"
    if type(item) is list and len(item) > rule.get("maxItems", math.inf):
        return f"{place}: a list longer than {rule['maxItems']:,} items"
    if type(item) is dict:
        for key in rule.get("required", ()):
            if key not in item:
                return f"{place}: {key!r} is required"
        properties, others = rule.get("properties", {}), rule.get("additionalProperties")
        for key, value in item.items():
            inner = properties.get(key, others)
            if inner is not None:
                problem = schema_problem(value, inner, f"{where}/{key}" if where else str(key))
                if problem:
                    return problem
    return ""


def rule_fits(rule: dict[str, Any]) -> Callable[[Any], bool]:
    """A predicate true only of an item :func:`schema_problem` finds nothing wrong with under
    ``rule``: the same checks, the rule read once (each message then costs a few lookups a
    key, not a walk of the rule). An item it refuses goes to :func:`schema_problem`, which
    says what is wrong (or, where this predicate was stricter, finds nothing)."""
    allowed = list(rule["enum"]) if "enum" in rule else None
    names = rule.get("type")
    names = [names] if isinstance(names, str) else names
    types = (None if names is None
             else frozenset(kind for name in names for kind in _JSON_TYPES[name]))
    longest, most = rule.get("maxLength", math.inf), rule.get("maxItems", math.inf)
    if allowed is None and types == {str}:  # the common leaf: a string of a length
        return lambda item: type(item) is str and len(item) <= longest
    if allowed is None and types is not None and not types & {str, list, dict}:
        return lambda item: type(item) in types  # numbers, booleans, null
    words = (frozenset(allowed) if allowed is not None and all(type(word) is str
                                                               for word in allowed) else None)
    required = tuple(rule.get("required", ()))
    properties = {key: None if inner is None else rule_fits(inner)
                  for key, inner in rule.get("properties", {}).items()}
    others = rule.get("additionalProperties")
    other_fits = None if others is None else rule_fits(others)

    def fits(item: Any) -> bool:
        kind = type(item)
        if allowed is not None and not (
                kind is str and item in words if words is not None
                else any(kind is type(word) and item == word for word in allowed)):
            return False
        if types is not None and kind not in types:
            return False
        if kind is str:
            return len(item) <= longest
        if kind is list:
            return len(item) <= most
        if kind is dict:
            for key in required:
                if key not in item:
                    return False
            for key, value in item.items():
                check = properties.get(key, other_fits)
                if check is not None and not check(value):
                    return False
        return True

    return fits


# MESSAGE_SCHEMA's properties as compiled, and its predicate (compiled again for a new
# properties dict: a field added to the schema is checked with no other change)
_MESSAGE_FITS: tuple[Any, Callable[[Any], bool]] | None = None


def _message_fits(message: dict[str, Any]) -> bool:
    global _MESSAGE_FITS
    held = _MESSAGE_FITS
    if held is None or held[0] is not MESSAGE_SCHEMA.get("properties"):
        held = _MESSAGE_FITS = (MESSAGE_SCHEMA.get("properties"), rule_fits(MESSAGE_SCHEMA))
    return held[1](message)


def message_problem(message: Any, trace_cap: int = MAX_TRACE) -> str:
    """What is wrong with a decoded message ("" when nothing is): :data:`MESSAGE_SCHEMA`,
    checked by :func:`schema_problem` (a schema library costs the parent a validator a
    message, and its import; a message :func:`rule_fits` passes, as the worker's own do, is
    not walked again), then the ids by hand. A packed trace (module docstring) is
    unpacked in place, each list at most ``trace_cap`` ids."""
    if not isinstance(message, dict):
        return f"expected a JSON object, got: {type(message).__name__}"
    problem = "" if _message_fits(message) else schema_problem(message, MESSAGE_SCHEMA)
    if problem:
        return problem
    table = message.get("ids")
    if table is not None and (len(table) > 2 * MAX_TRACE or id_list(table) is None):
        return f"ids: expected at most {2 * MAX_TRACE:,} ids, strings of at most " \
               f"{MAX_ID_LENGTH} characters"
    for key in ("generated", "evaluated"):
        items = message.get(key)
        if type(items) is str:  # entries of the table checked above: nothing more to check
            indexes = decode_indexes(items, len(table or ()), trace_cap)
            if indexes is None:
                return f"{key}: expected a packed trace of at most {trace_cap:,} indexes into ids"
            message[key] = PackedIds(table or [], indexes)  # unpacked by reply_from_message
        elif isinstance(items, list) and (len(items) > MAX_TRACE or id_list(items) is None):
            return f"{key}: expected at most {MAX_TRACE:,} ids, strings of at most " \
                   f"{MAX_ID_LENGTH} characters"
    return ""


def pack_trace(generated: list[str], evaluated: list[str]) -> dict[str, Any]:
    """A reply's trace fields, packed (module docstring; :mod:`grader.run.packing`). Run in
    the worker: 3 MB of base64 instead of 12 MB of JSON strings for all of tic-tac-toe, and no
    string an entry for the parent to check and hold."""
    table, (generated_packed, evaluated_packed) = pack_ids(generated, evaluated)
    return {"ids": table, "generated": generated_packed, "evaluated": evaluated_packed}


def id_list(items: Any) -> list[str] | None:
    """``items`` if it is a list of ids (strings of at most MAX_ID_LENGTH characters), else None.
    (Checked with C loops: a trace may hold 600,000 ids.)"""
    if not isinstance(items, list):
        return None
    if not items:
        return items
    if set(map(type, items)) != {str} or max(map(len, items)) > MAX_ID_LENGTH:
        return None
    return items


def finite_number(value: Any, default: Any) -> Any:
    """``value`` as a finite float, else ``default`` (fields of a reply the worker forged).
    An int's size is checked before it is converted (``float(2**5000)`` raises)."""
    if type(value) is int and value.bit_length() <= 1000:
        return float(value)
    if type(value) is float and math.isfinite(value):
        return value
    return default


def evaluation_values(value: Any, count: int) -> tuple[list[float], str]:
    """(the numbers, "") of an ``evaluate`` reply's decoded ``value``, or ([], what is wrong):
    a list of exactly ``count`` finite numbers (ints of at most 1,000 bits, floats)."""
    if not isinstance(value, list):
        return [], f"expected a list of {count} numbers, got: {type(value).__name__}"
    if len(value) != count:
        return [], f"expected {count} numbers, got: {len(value)}"
    if set(map(type, value)) == {float} and all(map(math.isfinite, value)):
        return list(value), ""  # the worker's own reply: finite floats (checked in C loops)
    numbers = []
    for index, item in enumerate(value):
        number = finite_number(item, None) if type(item) in (int, float) else None
        if number is None:
            return [], f"expected finite numbers, got: {str(item)[:40]!r} at index {index}"
        numbers.append(number)
    return numbers, ""


def batch_answers(message: dict[str, Any]) -> list[tuple[Any, dict[str, int]]] | None:
    """A batch reply's ``answered``: each ``[value, result calls, evaluated calls]`` as
    ``(value, {"result", "evaluated"})``, the value decoded as a single reply's is
    (:func:`decode_value`: whether it must be a number is the request's, checked by the
    client), the counts whole numbers from 0 to 10^12; None when it sent none or any item is
    not a value and two numbers (the list's length is checked by :data:`MESSAGE_SCHEMA`)."""
    given = message.get("answered")
    if not isinstance(given, list):
        return None
    answers = []
    for item in given:
        if type(item) is not list or len(item) != 1 + len(BUDGET_KINDS):
            return None
        counts = [_call_count(number) for number in item[1:]]
        if None in counts:
            return None
        answers.append((decode_value(item[0]), dict(zip(BUDGET_KINDS, counts))))
    return answers


def _call_count(number: Any) -> int | None:
    """A count of game calls a batch's answer gives, as a whole number from 0 to 10^12; None
    when it is not a finite number."""
    if type(number) is int and 0 <= number <= 10**12:
        return number  # the common case (~1,300 a grade), as the general way below gives it
    number = finite_number(number, None) if type(number) in (int, float) else None
    return None if number is None else int(min(max(number, 0.0), 1e12))


def past_half(counts: dict[str, Any], budget: dict[str, Any] | None) -> bool:
    """Whether a call's game ``counts`` passed half its ``budget`` of a kind (the budget the
    worker is told: the exact one rounded up to a power of two, so above half of it; a call
    within half is within the exact budget whatever it is)."""
    if not isinstance(budget, dict):
        return False
    return any(2 * counts.get(kind, 0) > budget.get(kind, math.inf)
               for kind in BUDGET_KINDS)


def string_list(items: Any, packed: bool = False) -> list[str]:
    """The ids of a trace list, cut at MAX_TRACE (already checked by :func:`parse_message`).
    A packed trace (:class:`PackedIds`, checked) is unpacked, or with ``packed`` kept so."""
    if isinstance(items, PackedIds):
        items = items.head(MAX_TRACE)
        return items if packed else items.unpack()  # type: ignore[return-value]
    checked = id_list(items)
    if checked is None:
        return []
    return checked if len(checked) <= MAX_TRACE else checked[:MAX_TRACE]  # no copy of 800,000


FORGED = ("the worker reported a failure of its own ({what}); the grader built this case "
          "itself without error, so code in search.py (at import, or writing on the "
          "grader's private channel) is the likely cause")


def budget_stop(message: dict[str, Any]) -> dict[str, Any]:
    """A budget reply's ``{"kind", "calls"}``, checked (a forged one reads as 0 result calls)."""
    given = message.get("budget_stop")
    given = given if isinstance(given, dict) else {}
    kind = given.get("kind") if given.get("kind") in BUDGET_KINDS else "result"
    calls = finite_number(given.get("calls"), 0.0)
    return {"kind": kind, "calls": int(min(max(calls, 0), 1e12))}


def reported_calls(message: dict[str, Any]) -> dict[str, int] | None:
    """A reply's ``{"result", "evaluated"}`` counts, checked (None when it sent none)."""
    given = message.get("calls")
    if not isinstance(given, dict):
        return None
    return {kind: int(min(max(finite_number(given.get(kind), 0.0), 0.0), 1e12))
            for kind in BUDGET_KINDS}


def cut_text(text: str, limit: int) -> str:
    """``text``, or its first ``limit`` characters and how many more there were."""
    if len(text) <= limit:
        return text
    return text[:limit] + f"... ({len(text) - limit:,} more characters)"


def error_fields(error: dict[str, Any]) -> dict[str, str]:
    """A worker's ``error``: exactly :data:`ERROR_KEYS`, each a string cut at its cap in
    :data:`ERROR_CAPS` (the type name too: ``type("X" * 49000, (Exception,), {})`` is a class)."""
    return {key: cut_text(str(error.get(key, "")), ERROR_CAPS[key]) for key in ERROR_KEYS}


def reported_table(message: dict[str, Any]) -> dict[str, int] | None:
    """A reply's transposition-table summary (:func:`grader.run.runner.table_summary`),
    checked: the known kinds only, each a whole number from 0 to 10^12 (None when it sent
    none)."""
    given = message.get("table")
    if not isinstance(given, dict):
        return None
    return {kind: int(min(max(finite_number(given.get(kind), 0.0), 0.0), 1e12))
            for kind in TABLE_KINDS}


def reply_from_message(message: dict[str, Any], function: str | None, *, stdout: str, stderr: str,
                       printed: int, limits: Limits, packed: bool = False) -> WorkerReply:
    """A :class:`WorkerReply` from a worker's reply (checked by :func:`parse_message`); with
    ``packed``, a packed trace stays a :class:`PackedIds` (its ids all checked already).

    ``stdout`` / ``stderr`` are what the parent captured at the fd level, ``printed`` how many
    bytes it saw; a call that printed more than ``limits.flood`` becomes an error. A status the
    protocol does not know, ``grader_error`` among them, becomes ``crashed``: nothing the worker
    says is the grader's failure.
    """
    status = message.get("status")
    error = message.get("error")
    if status not in STATUSES:
        error = error if isinstance(error, dict) else {}
        what = (f"{str(error.get('type', ''))[:100]}: {str(error.get('message', ''))[:500]}"
                if status == "grader_error" else f"an unknown status {str(status)[:100]!r}")
        return WorkerReply("crashed", function=function, stdout=stdout, stderr=stderr,
                           message=FORGED.format(what=what))
    printed += int(min(max(finite_number(message.get("printed"), 0.0), 0.0), float(2**53)))
    # Every field is rebuilt as the plain type it should be: the message came from a
    # process the student controls, and nothing of it reaches the grader but data.
    reply = WorkerReply(
        status,
        value=decode_value(message.get("value")) if status == "ok" else None,
        generated=string_list(message.get("generated"), packed),
        evaluated=string_list(message.get("evaluated"), packed),
        error=error_fields(error) if isinstance(error, dict) else None,
        stdout=join_output(str(message.get("stdout", "")), stdout, limits.output),
        stderr=join_output(str(message.get("stderr", "")), stderr, limits.output),
        elapsed=finite_number(message.get("elapsed"), None),
        function=str(message.get("function") or function or "") or None,
        message=cut_text(str(message.get("message", "")), ERROR_CAPS["message"]),
        trace_truncated=bool(message.get("trace_truncated")),
        budget_stop=budget_stop(message) if status == "budget" else None,
        calls=reported_calls(message),
        table=reported_table(message) if status == "ok" else None,
        answered=batch_answers(message),
        answered_cpu=max(finite_number(message.get("answered_cpu"), 0.0), 0.0),
        paused=status == "ok" and message.get("paused") is True,
    )
    if printed > limits.flood and status in ("ok", "error"):
        text = (
            f"printed {printed:,} bytes in one call, more than the limit of "
            f"{limits.flood:,} (leftover debugging output?)"
        )
        reply.status, reply.value, reply.paused = "error", None, False
        reply.error = {"type": "OutputLimitExceeded", "message": text, "traceback": ""}
        reply.message = f"OutputLimitExceeded: {text}"
    return reply


# cases already checked in this process, by algorithm and JSON text: the stub called at the
# root. A case sent as a dict comes here, in a grade only the random-tree tests' (run in the
# grade's own thread, between its two rounds of grading threads), so no thread clears it
# between another's look and read
_BUILT: dict[str, str] = {}


def check_case_builds(case: Mapping[str, Any], algorithm: str) -> str:
    """Raise :class:`~grader.errors.GraderError` when the grader cannot build ``case`` itself;
    return the stub ``algorithm`` calls at its root (a MAX/MIN pair's by the root's mover: the
    CPU allowance counts each function's time-outs apart, from the grader's own game).

    Called before a case is sent, so that a case that does not build is the grader's failure,
    raised in the grader's own process; the worker building it is then only the student's.
    """
    from grader.cases import case_from_dict
    from grader.errors import GraderError

    key = algorithm + ":" + json.dumps(case, sort_keys=True, default=repr)
    if key in _BUILT:
        return _BUILT[key]
    try:
        game = case_from_dict(dict(case)).build_game()
    except Exception as error:  # noqa: BLE001 - any failure is the grader's, and said so
        raise GraderError(f"the case sent to the worker does not build: {error}") from error
    try:
        root = function_name(algorithm, game)
    except Exception:  # noqa: BLE001 - a root without a mover: the call itself says so
        root = algorithm
    if len(_BUILT) > 1000:
        _BUILT.clear()
    _BUILT[key] = root
    return root
