"""The schema layer: ``grader/schema/case.schema.json`` checked, its errors made friendly.

Owns the second checking layer (types, required and unknown fields, the one game form:
:func:`schema_errors`), which turns each ``jsonschema`` error into a message that says what
is expected, what was given and how to fix it; and the few wording helpers the later layers'
messages share (:func:`shorten`, :func:`kind_of`, :func:`plural`, :func:`did_you_mean`).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable
from typing import Any

import grader.algorithms as algorithm_specs
from grader.cases.text import JsonPath, case_error
from grader.errors import CaseError
from grader.paths import SCHEMA_PATH


@functools.lru_cache(maxsize=1)
def case_schema() -> dict:
    """The case schema (``grader/schema/case.schema.json``), parsed, with its algorithm parts
    made from the registered specs (:func:`with_algorithms`): an algorithm registered by
    ``GRADER_ALGORITHMS`` is a valid name without an edit of the file."""
    return with_algorithms(json.loads(SCHEMA_PATH.read_text(encoding="utf-8")))


def with_algorithms(schema: dict) -> dict:
    """``schema`` with the parts that list algorithms generated from the specs
    (:mod:`grader.algorithms`): the ``algorithms`` enum and description, ``points``' and
    ``expect``'s per-algorithm keys, the enums of a spec's settings (``settings_values``). The committed file is this for the built-in algorithms
    (``tests/test_algorithms.py`` checks it), so editors that read it see the same."""
    specs = list(algorithm_specs.registry().values())
    ordered = [s for s in specs if not s.by_play] + [s for s in specs if s.by_play]
    properties = schema["properties"]

    def named(spec: Any) -> str:
        return f"{spec.name} {spec.summary}" if spec.summary else spec.name

    listed = properties["algorithms"]
    listed["description"] = (
        "the algorithms to grade on this case: some of "
        + ", ".join(named(s) for s in ordered if not s.by_play)
        + "".join(f"; or {named(s)}" for s in ordered if s.by_play))
    listed["items"]["enum"] = [s.name for s in ordered]
    properties["points"]["properties"] = {
        s.name: {"description": f"points of the {s.name} test{s.points_note}",
                 "type": "number", "minimum": 0} for s in ordered}
    expect: dict[str, Any] = {}
    for spec in ordered:
        if spec.by_play:
            continue
        if spec.fixed_rule_note:
            expect[spec.name] = {"$ref": "#/$defs/expectation", "description":
                                 f"expected answers of {spec.name} ({spec.fixed_rule_note})"}
            continue
        expect[spec.name] = {"$ref": "#/$defs/expectation", "description":
                             f"expected answers of {spec.name} under the rule the case is "
                             "graded with"}
        for rule in ("inclusive", "strict"):
            expect[f"{spec.name}/{rule}"] = {
                "$ref": "#/$defs/expectation",
                "description": f"expected answers of {spec.name} when pruning is {rule}"}
    properties["expect"]["properties"] = expect
    for spec in ordered:  # the enums of its settings' fields
        for name, values in spec.settings_values.items():
            node = properties[spec.settings]["properties"][name.removesuffix("[]")]
            (node["items"] if name.endswith("[]") else node)["enum"] = list(values)
    return schema


@functools.lru_cache(maxsize=1)
def _validator() -> Any:
    import jsonschema

    return jsonschema.Draft202012Validator(case_schema())


_TYPE_NAMES = {
    "number": "a number", "integer": "an integer", "string": "a string", "array": "a list",
    "object": "an object", "null": "null", "boolean": "true or false",
}


def kind_of(value: Any) -> str:
    """What JSON kind ``value`` is, in words: ``an integer``, ``a list``..."""
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if value is None:
        return "null"
    return _TYPE_NAMES[{str: "string", list: "array", dict: "object"}[type(value)]]


def shorten(value: Any) -> str:
    """``value`` as JSON, cut to 40 characters for a message."""
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."


def plural(number: float, noun: str) -> str:
    """``3 items``, ``1 item``, ``0 losses``, ``2 matches`` (``-es`` after s, x, ch and sh),
    ``0.5 steps``."""
    if number == 1:
        return f"{number:g} {noun}"
    return f"{number:g} {noun}{'es' if noun.endswith(('s', 'x', 'ch', 'sh')) else 's'}"


def did_you_mean(word: Any, choices: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the closest of ``choices``, or nothing."""
    if not isinstance(word, str):
        return ""
    import difflib  # here: only a mistake's message needs it

    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def schema_errors(data: Any, file: str | None = None) -> list[CaseError]:
    """Every schema violation, each with a message that says what to change."""
    if plain_tree_case(data):
        return []
    errors: list[CaseError] = []
    raw = sorted(_validator().iter_errors(data),
                 key=lambda e: [(isinstance(p, str), p) for p in e.absolute_path])
    # A value of the wrong type: report that alone, not what the other branches want of it.
    wrong_type = {tuple(e.absolute_path) for e in raw if e.validator == "type"}
    reported: set[JsonPath] = set()
    for error in raw:
        parts = tuple(error.absolute_path)
        if any(parts[:n] in wrong_type for n in range(len(parts) + 1)):
            if error.validator != "type" or parts in reported:
                continue
            reported.add(parts)
        errors.extend(_translate(error, parts, data, file))
    _follow_typos(errors)
    return errors


def _follow_typos(errors: list[CaseError]) -> None:
    """A misspelled field (``childern``: "did you mean 'children'?") leaves its object short of
    what the right name gave it, so the schema also says "missing required field 'value'". That
    is a side effect: it is said to be one, and :func:`~grader.cases.text.sort_errors` puts it
    right after the misspelling, whatever their places in the file."""
    typos = {error.json_path[:-1]: error for error in errors
             if "(did you mean" in error.message and error.message.startswith("unknown field")}
    for error in errors:
        cause = typos.get(getattr(error, "json_path", None))
        if cause is not None and error.message.startswith("missing required field"):
            error.message += (f"; likely a side effect of the misspelled "
                              f"{cause.json_path[-1]!r} above")
            error.args = (error.location() + ": " + error.message,)
            error.follows = cause  # type: ignore[attr-defined]


# --- the fast path: a full tree checked node by node without jsonschema -----------------------

_NODE_KEYS = frozenset({"id", "player", "children", "value", "eval", "probability", "action"})
_PLAYER_WORDS = frozenset({"max", "min", "chance"})
_STUB_LEAF = {"id": "stub", "value": 0}


def _number(value: Any) -> bool:
    return type(value) is int or type(value) is float


def _payoff(value: Any) -> bool:
    return _number(value) or (type(value) is list and len(value) > 0
                              and all(_number(v) for v in value))


def plain_tree_case(data: Any) -> bool:
    """True when ``data`` is a full-tree case the schema accepts, shown without jsonschema
    walking the tree: the top-level fields are checked by jsonschema with the tree replaced by
    one leaf, and each node by a loop that accepts a subset of what ``$defs/node`` accepts.
    False means "not shown": jsonschema then checks the whole case and words every error.
    (jsonschema spends about 45 s on a 10^5-node tree; this loop a fraction of a second.)"""
    if type(data) is not dict or type(data.get("tree")) is not dict:
        return False
    if not _validator().is_valid({**data, "tree": _STUB_LEAF}):
        return False
    stack = [data["tree"]]
    pop, push = stack.pop, stack.extend
    keys, words = _NODE_KEYS, _PLAYER_WORDS
    while stack:
        node = pop()
        if type(node) is not dict or not node.keys() <= keys:
            return False
        node_id = node.get("id")
        if type(node_id) is not str or not node_id:
            return False
        if "player" in node:
            player = node["player"]
            if not (player in words if type(player) is str
                    else type(player) is int and player >= 0):
                return False
        if "children" in node:
            children = node["children"]
            if type(children) is not list or not children or "player" not in node:
                return False
            push(children)
        elif "value" not in node:
            return False
        if ("value" in node and not _payoff(node["value"])) or (
                "eval" in node and not _payoff(node["eval"])):
            return False
        if "probability" in node:
            probability = node["probability"]
            if not (_number(probability) and 0 < probability <= 1):
                return False
        if "action" in node:
            action = node["action"]
            if type(action) is not str or not action:
                return False
    return True


def _translate(error: Any, parts: JsonPath, data: Any, file: str | None) -> list[CaseError]:
    kind, schema, instance = error.validator, error.schema, error.instance
    about = schema.get("description") if isinstance(schema, dict) else None
    hint = f" ({about})" if about else ""
    if kind == "additionalProperties":
        allowed = sorted(schema.get("properties", {}))
        known = set(allowed)
        return [
            case_error(
                f"unknown field {key!r}{did_you_mean(key, allowed)}; "
                + (f"allowed here: {', '.join(allowed)}" if allowed else "remove it"),
                parts + (key,), file)
            for key in instance if key not in known
        ]
    if kind == "required":
        missing = error.validator_value
        name = next((key for key in missing if key not in instance), missing[0])
        field_about = schema.get("properties", {}).get(name, {}).get("description", "")
        extra = ""
        if name == "value" and isinstance(instance, dict) and parts[:1] == ("states",):
            typo = next((f"; {key!r} looks like a misspelled 'successors'" for key in instance
                         if key != "successors" and did_you_mean(key, ["successors"])), "")
            return [case_error(
                f"state {parts[-1]!r} has neither 'successors' nor 'value': a state is a leaf, "
                "{\"value\": ...}, or a move, {\"player\": ..., \"successors\": [[action, "
                "state], ...]} (with \"probabilities\" at a chance state, \"eval\" at the "
                "depth limit)" + typo, parts, file)]
        elif name == "value" and isinstance(instance, dict):
            extra = "; a node without children is a leaf and needs a value (or give it children)"
        elif name == "player":
            extra = "; a node with children needs the player who moves there"
        return [case_error(f"missing required field {name!r}"
                           + (f" ({field_about})" if field_about and not extra else "") + extra,
                           parts, file)]
    if kind == "type":
        wanted = error.validator_value
        wanted = [wanted] if isinstance(wanted, str) else wanted
        names = " or ".join(_TYPE_NAMES[w] for w in wanted)
        return [case_error(f"expected {names}, got {shorten(instance)} "
                           f"({kind_of(instance)}){hint}", parts, file)]
    if kind == "enum":
        options = ", ".join(json.dumps(o) for o in error.validator_value)
        return [case_error(f"expected one of {options}, got {shorten(instance)}"
                           f"{did_you_mean(instance, error.validator_value)}", parts, file)]
    if kind == "oneOf" and not parts:
        return [_form_error(data, file)]
    if kind == "dependentRequired":
        return [_dependent_error(error, instance, parts, file)]
    if kind in ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"):
        sign = {"minimum": ">=", "exclusiveMinimum": ">", "maximum": "<=", "exclusiveMaximum": "<"}
        return [case_error(f"expected a number {sign[kind]} {error.validator_value}, "
                           f"got {shorten(instance)}{hint}", parts, file)]
    if kind == "minItems":
        count = error.validator_value
        got = "an empty list" if not instance else plural(len(instance), "item")
        what = "item" if count == 1 else "items"
        extra = "; a leaf has no children field but a value" if parts[-1:] == ("children",) else ""
        return [case_error(f"expected at least {count} {what}, got {got}{extra}{hint}",
                           parts, file)]
    if kind == "items" and error.validator_value is False:
        count = len(schema.get("prefixItems", []))
        return [case_error(f"expected exactly {count} items, got {len(instance)}{hint}",
                           parts, file)]
    if kind == "uniqueItems":
        seen, twice = set(), None
        for item in instance:
            key = json.dumps(item, sort_keys=True)
            if key in seen:
                twice = item
                break
            seen.add(key)
        return [case_error(f"{shorten(twice)} is listed twice; list each once", parts, file)]
    if kind == "pattern":
        return [case_error(f"{shorten(instance)} does not match {error.validator_value}{hint}",
                           parts, file)]
    if kind in ("minLength", "minProperties"):
        return [case_error(f"expected something here, got {shorten(instance)} (empty){hint}",
                           parts, file)]
    return [case_error(f"{error.message}{hint}", parts, file)]


FORMS = ("'tree' (a full tree or shorthand lists), 'start' + 'states', "
         "or 'game' (+ 'state', 'params')")


def _form_error(data: dict, file: str | None) -> CaseError:
    given = [key for key in ("tree", "states", "game") if key in data]
    if not given:
        return case_error(f"no game given: add exactly one of {FORMS}", (), file)
    return case_error(
        f"this case gives {' and '.join(repr(k) for k in given)}; give exactly one game form: "
        f"{FORMS}", (given[1],), file)


def _dependent_error(error: Any, instance: dict, parts: JsonPath, file: str | None) -> CaseError:
    for key, needs in error.validator_value.items():
        if key in instance:
            for need in needs:
                if need not in instance:
                    if key in ("root_player", "turns"):
                        return case_error(f"{key!r} belongs to shorthand trees (a 'tree' given as "
                                          "lists); remove it", parts + (key,), file)
                    return case_error(f"{key!r} needs {need!r} too: add {need!r} or remove "
                                      f"{key!r}", parts + (key,), file)
    return case_error(error.message, parts, file)
