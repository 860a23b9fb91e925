"""Compare a run with the reference's: the value, then ``generated`` and ``evaluated`` in order.

Values: numbers equal within 1e-9 (absolute or relative), vectors element by element, actions
(MCTS) by equality after a JSON round trip (so a tuple and a list of the same numbers agree),
``(value, action)`` pairs (``iterative_deepening``, :func:`check_decision`) both ways.
Anything else the student returns (None, NaN, a string where a number belongs, an object the
worker could only describe) is a wrong answer with a message saying what was expected and what
came back, never a crash: nothing the worker returns makes a comparison raise (an int too
large for a float is a wrong answer, its size checked before any float operation).

Sequences: equal means same ids, same order, same length. When they differ, the report gives
the first index where they part, the nodes the student generated that the reference pruned
(``extra``), the nodes the reference generated that the student pruned (``missing``) and the
nodes generated more often than the reference generated them (``duplicates``).
"""

from __future__ import annotations

import json
import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from grader.sandbox.values import OpaqueValue

TOLERANCE = 1e-9


@dataclass
class ValueCheck:
    ok: bool
    message: str = ""  # why not, in words a student understands


@dataclass
class SequenceDiff:
    """How the student's sequence of ids differs from the reference's."""

    label: str  # "generated" or "evaluated"
    expected: list[str]
    got: list[str]
    first_difference: int | None = None  # index where the lists part; None when equal
    extra: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    duplicates: dict[str, int] = field(default_factory=dict)  # id -> times generated

    @property
    def equal(self) -> bool:
        return self.first_difference is None


@dataclass
class Comparison:
    value: ValueCheck
    generated: SequenceDiff
    evaluated: SequenceDiff

    @property
    def trace_ok(self) -> bool:
        return self.generated.equal and self.evaluated.equal

    @property
    def passed(self) -> bool:
        return self.value.ok and self.trace_ok


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _as_float(value: Any) -> float | None:
    """A number as a float; None for an int too large for one (``float(2**5000)`` raises, and
    so do ``math.isnan`` and ``math.isclose`` on it). The size is checked before converting."""
    if isinstance(value, int) and int.bit_length(value) > 1000:
        return None
    try:
        return float(value)
    except (OverflowError, TypeError, ValueError):
        return None


def _numbers_close(expected: float, got: float) -> bool:
    want, have = _as_float(expected), _as_float(got)
    if want is None or have is None:
        return want is None and have is None and expected == got
    return math.isclose(want, have, rel_tol=TOLERANCE, abs_tol=TOLERANCE)


def _too_large(value: Any) -> bool:
    return _is_number(value) and _as_float(value) is None


def describe(value: Any) -> str:
    """A short, student-readable rendering of a returned value."""
    if isinstance(value, OpaqueValue):
        return f"{value.repr} (a {value.type})"
    if _too_large(value):
        return f"<an int of {int.bit_length(value)} bits>"
    if isinstance(value, float) and value.is_integer():
        return repr(int(value)) if abs(value) < 1e15 else repr(value)
    if isinstance(value, (list, tuple)):
        return "(" + ", ".join(describe(item) for item in value) + ")"
    return repr(value)


SHOWN_DIGITS = 6  # significant digits of a float shown at least (more only to tell two apart)


def _short(value: Any, digits: int) -> str:
    if isinstance(value, float) and math.isfinite(value) and not value.is_integer() \
            and len(repr(value)) > digits + 2:
        return f"{value:.{digits}g}"
    return describe(value)


def describe_pair(expected: Any, got: Any) -> tuple[str, str]:
    """``expected`` and ``got`` rendered with the digits that tell them apart: floats with
    six significant digits, or as many more as the first digit where they part needs
    (``0.289775`` and ``0.164609``, not ``0.28977499999999995``); vectors entry by entry."""
    if isinstance(expected, (list, tuple)) and isinstance(got, (list, tuple)) \
            and len(expected) == len(got):
        pairs = [describe_pair(want, have) for want, have in zip(expected, got)]
        return ("(" + ", ".join(p[0] for p in pairs) + ")",
                "(" + ", ".join(p[1] for p in pairs) + ")")
    if not (isinstance(expected, float) or isinstance(got, float)) \
            or not (_is_number(expected) and _is_number(got)) or _too_large(got):
        return describe(expected), describe(got)
    digits = SHOWN_DIGITS
    while digits < 17 and _short(expected, digits) == _short(got, digits) \
            and describe(expected) != describe(got):
        digits += 1
    return _short(expected, digits), _short(got, digits)


def check_value(expected: Any, got: Any) -> ValueCheck:
    """Does ``got`` equal the reference's ``expected`` value? Numbers, vectors or actions."""
    if _is_number(expected):
        return _check_number(expected, got)
    if isinstance(expected, (list, tuple)) and all(_is_number(item) for item in expected):
        return _check_vector(expected, got)
    return _check_action(expected, got)


def _check_number(expected: float, got: Any) -> ValueCheck:
    if got is None:
        return ValueCheck(False, f"expected the value {describe(expected)}, got None "
                                 "(did the function forget to return?)")
    if not _is_number(got):
        return ValueCheck(False, f"expected a number, {describe(expected)}; got {describe(got)}")
    if _too_large(got):
        return ValueCheck(False, f"expected the value {describe(expected)}, got a number too "
                                 f"large to compare (an int of {int.bit_length(got)} bits)")
    if math.isnan(_as_float(got)):
        return ValueCheck(False, f"expected {describe(expected)}, got NaN")
    if not _numbers_close(expected, got):
        want, have = describe_pair(expected, got)
        return ValueCheck(False, f"expected the value {want}, got {have}")
    return ValueCheck(True)


def _check_vector(expected: list | tuple, got: Any) -> ValueCheck:
    if not isinstance(got, (list, tuple)):
        return ValueCheck(False, f"expected a tuple, one entry a player, {describe(expected)}; "
                                 f"got {describe(got)}")
    if len(got) != len(expected):
        return ValueCheck(False, f"expected {len(expected)} entries {describe(expected)}; got "
                                 f"{len(got)}: {describe(got)}")
    for index, (want, have) in enumerate(zip(expected, got)):
        if not _is_number(have) or _too_large(have) or math.isnan(float(have)) \
                or not _numbers_close(want, have):
            want, have = describe_pair(expected, got)
            return ValueCheck(False, f"expected {want}, got {have} (entry {index} differs)")
    return ValueCheck(True)


def _normalise(value: Any) -> Any:
    try:
        return json.loads(json.dumps(value))
    except (TypeError, ValueError, RecursionError):  # an int past str()'s digit limit too
        return describe(value)


def _check_action(expected: Any, got: Any) -> ValueCheck:
    if _normalise(expected) == _normalise(got):
        return ValueCheck(True)
    return ValueCheck(False, f"expected the action {describe(expected)}, got {describe(got)}")


def check_decision(expected: Any, got: Any) -> ValueCheck:
    """Does ``got`` equal the reference's ``(value, action)`` pair? The value as a number,
    the action by equality after a JSON round trip."""
    if not isinstance(got, (list, tuple)) or len(got) != 2:
        return ValueCheck(False, f"expected a pair (value, action), {describe(expected)}; got "
                                 f"{describe(got)}")
    value = check_value(expected[0], got[0])
    if not value.ok:
        return value
    if _normalise(expected[1]) != _normalise(got[1]):
        return ValueCheck(False, f"right value {describe(expected[0])}, but expected the action "
                                 f"{describe(expected[1])}, got {describe(got[1])}")
    return ValueCheck(True)


def diff_sequence(label: str, expected: list[str], got: list[str]) -> SequenceDiff:
    """``expected`` and ``got`` kept as they are when lists (not copied: a full tic-tac-toe
    trace is 4 MB of pointers a copy, and nothing changes a run's lists)."""
    diff = SequenceDiff(label, expected if type(expected) is list else list(expected),
                        got if type(got) is list else list(got))
    if diff.expected == diff.got:
        return diff
    common = min(len(expected), len(got))
    diff.first_difference = next(
        (index for index in range(common) if expected[index] != got[index]), common
    )
    # A Counter keeps first-occurrence order: it stands in for dict.fromkeys (a trace may hold
    # hundreds of thousands of ids, so no more tables are built than needed)
    expected_counts, got_counts = Counter(expected), Counter(got)
    diff.extra = [node for node in got_counts if node not in expected_counts]
    diff.missing = [node for node in expected_counts if node not in got_counts]
    diff.duplicates = {
        node: count
        for node, count in got_counts.items()
        if count > 1 and count > expected_counts.get(node, 0)
    }
    return diff


def compare(expected: Any, got: Any, *, decision: bool = False) -> Comparison:
    """Compare two runs (objects with ``value``, ``generated`` and ``evaluated``); with
    ``decision``, values are ``(value, action)`` pairs (:func:`check_decision`)."""
    return Comparison(
        value=(check_decision if decision else check_value)(expected.value, got.value),
        generated=diff_sequence("generated", expected.generated, got.generated),
        evaluated=diff_sequence("evaluated", expected.evaluated, got.evaluated),
    )
