"""Values across the worker's channel: what a student's function returned, as JSON data.

Numbers, strings, ``None`` and lists cross as themselves; NaN and infinities, tuples, dicts and
every other object are tagged (:func:`encode_value`, :func:`decode_value`). Objects the grader
does not know arrive as an :class:`OpaqueValue` (type name and ``repr``), which equals nothing
but an identical :class:`OpaqueValue`. Encoding reads subclasses through their base type, so a
student's ``__eq__`` or ``__iter__`` never runs in the grader, and sizes are bounded.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class OpaqueValue:
    """A value the grader cannot carry as data: its type's name and its (truncated) ``repr``."""

    type: str
    repr: str

    def __str__(self) -> str:
        return self.repr


FLOAT_TAG, TUPLE_TAG, DICT_TAG, OBJECT_TAG = "$float", "$tuple", "$dict", "$object"
MAX_ITEMS = 10_000  # elements of one value
MAX_DEPTH = 32
MAX_REPR = 200
MAX_INT_BITS = 10_000
MAX_FLOAT_INT_BITS = 1_000  # the parent decodes a larger int as opaque: float() of it raises
# Characters of one string, and of all a value's strings, the parent keeps: no answer (a number,
# an action, a vector) comes near, and a reply of 9,000 strings of 2,000 characters (18 MB,
# within the channel's caps) was kept whole, in memory and in results.json, once a test
MAX_STRING = 1_000
MAX_TEXT = 100_000
TOO_LARGE = OpaqueValue("?", "<value too large to show>")


def _float(value: float) -> Any:
    if math.isfinite(value):
        return value
    return {FLOAT_TAG: "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")}


def _opaque(kind: type, text: str) -> dict[str, str]:
    name = getattr(kind, "__qualname__", None)
    module = getattr(kind, "__module__", None)
    name = name if isinstance(name, str) else "?"
    if isinstance(module, str) and module not in ("builtins", "search"):
        name = f"{module}.{name}"
    return {OBJECT_TAG: name, "repr": text}


def encode_value(value: Any, safe_repr: Any = None) -> Any:
    """``value`` as JSON-safe data.

    Subclasses of ``int``, ``float``, ``str``, ``tuple``, ``list`` and ``dict`` are read through
    the base type (an overridden ``__eq__`` or ``__iter__`` is never called); anything else
    becomes ``{"$object": type name, "repr": ...}``, its ``repr`` taken by ``safe_repr`` (the
    worker passes a time-limited one). Sizes are bounded (MAX_ITEMS, MAX_DEPTH).
    """
    budget = [MAX_ITEMS]
    safe_repr = safe_repr or _plain_repr

    def encode(item: Any, depth: int) -> Any:
        budget[0] -= 1
        kind = type(item)  # type(), unlike isinstance, cannot be fooled by a __class__ property
        if budget[0] < 0 or depth > MAX_DEPTH:
            return _opaque(kind, "<value too large to show>")
        try:
            if item is None or kind is bool:
                return item
            if issubclass(kind, int):
                number = int.__int__(item)
                if number.bit_length() > MAX_INT_BITS:
                    return _opaque(kind, f"<int of {number.bit_length()} bits>")
                return number
            if issubclass(kind, float):
                return _float(float.__float__(item))
            if issubclass(kind, str):
                return str.__str__(item)
            if issubclass(kind, tuple):
                return {TUPLE_TAG: [encode(x, depth + 1) for x in tuple.__iter__(item)]}
            if issubclass(kind, list):
                return [encode(x, depth + 1) for x in list.__iter__(item)]
            if issubclass(kind, dict):
                pairs = dict.items(item)
                return {DICT_TAG: [[encode(k, depth + 1), encode(v, depth + 1)] for k, v in pairs]}
        except (TypeError, ValueError, RuntimeError):
            pass
        return _opaque(kind, safe_repr(item))

    return encode(value, 0)


def _plain_repr(item: Any) -> str:
    try:
        text = repr(item)
        text = str.__str__(text) if isinstance(text, str) else object.__repr__(item)
    except Exception as error:  # noqa: BLE001 - a broken __repr__: the value's problem
        text = f"<{type(item).__name__} object; repr() raised {type(error).__name__}>"
    return text if len(text) <= MAX_REPR else text[: MAX_REPR - 3] + "..."


def decode_value(data: Any) -> Any:
    """The inverse of :func:`encode_value`: tuples, NaN and infinities come back as
    themselves; unknown objects as :class:`OpaqueValue`.

    ``data`` came from the worker, so it is read as untrusted: past MAX_ITEMS elements or
    MAX_DEPTH levels, or at a malformed tag, what is left becomes an :class:`OpaqueValue`
    saying so; so does an int of more than MAX_FLOAT_INT_BITS bits (no float holds it: the
    comparison, the drawing and the report could not use it), and a string of more than
    MAX_STRING characters (only its start is kept). Past MAX_TEXT characters of strings and
    opaque objects in all, a list, tuple or dict ends with one :class:`OpaqueValue` saying so.
    Never raises for JSON data.
    """
    if type(data) is float:
        return data  # a plain float (a position's value, one a batch's answer): itself
    if type(data) is list and len(data) < MAX_ITEMS and set(map(type, data)) == {float}:
        return list(data)  # plain floats (evaluate's values): each is itself, in the budgets
    budget = [MAX_ITEMS]
    text = [MAX_TEXT]

    def decode(item: Any, depth: int) -> Any:
        budget[0] -= 1
        if budget[0] < 0 or depth > MAX_DEPTH:
            return TOO_LARGE
        if type(item) is int and item.bit_length() > MAX_FLOAT_INT_BITS:
            return OpaqueValue("int", f"<int of {item.bit_length()} bits>")
        if type(item) is str:
            text[0] -= len(item)
            if len(item) > MAX_STRING:
                return OpaqueValue("str", f"<a string of {len(item):,} characters: "
                                          f"{item[:60]!r}...>")
            return item
        if isinstance(item, list):
            return list(items(item, depth))
        if not isinstance(item, dict):
            return item if item is None or type(item) in (bool, int, float, str) else \
                OpaqueValue("?", "<not a value>")
        if len(item) == 1 and item.get(FLOAT_TAG) in ("nan", "inf", "-inf"):
            return float(item[FLOAT_TAG])
        if len(item) == 1 and isinstance(item.get(TUPLE_TAG), list):
            return tuple(items(item[TUPLE_TAG], depth))
        if len(item) == 1 and isinstance(item.get(DICT_TAG), list):
            pairs = item[DICT_TAG]
            if all(isinstance(pair, list) and len(pair) == 2 for pair in pairs):
                decoded = []
                for key, value in pairs:
                    if budget[0] <= 0 or text[0] <= 0:
                        decoded.append((TOO_LARGE, TOO_LARGE))
                        break
                    decoded.append((decode(key, depth + 1), decode(value, depth + 1)))
                try:
                    return dict(decoded)
                except TypeError:  # an unhashable key (a list): keep the pairs
                    return OpaqueValue("dict", repr(decoded)[:MAX_REPR])
        if isinstance(item.get(OBJECT_TAG), str) and isinstance(item.get("repr", ""), str):
            kind, shown = item[OBJECT_TAG][:MAX_REPR], str(item.get("repr", ""))[:MAX_REPR]
            text[0] -= len(kind) + len(shown)
            return OpaqueValue(kind, shown)
        return OpaqueValue("?", "<a malformed value>")

    def items(sequence: list[Any], depth: int) -> Any:
        """The decoded items of ``sequence``; once the budgets are spent, one TOO_LARGE."""
        for item in sequence:
            if budget[0] <= 0 or text[0] <= 0:
                yield TOO_LARGE
                return
            yield decode(item, depth + 1)

    return decode(data, 0)
