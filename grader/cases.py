"""Cases: one JSON file a case, loaded into a :class:`Case` and checked.

The format is docs/cases.md; ``grader/schema/case.schema.json`` is its machine-readable half.
Checking has three layers, each reporting *every* mistake it finds as a
:class:`~grader.errors.CaseError` with the JSON path (``$.tree.children[1].value``), the
line:column of that place in the file, what is wrong and how to fix it:

1. the text: JSON syntax, an empty file, a key given twice, ``NaN``/``Infinity``
   (:func:`parse_case_text`);
2. the schema: types, required and unknown fields (:func:`schema_errors`);
3. the structure, once the schema holds: one root, no cycles, every successor defined, ids
   unique, leaf values of the right arity, chance probabilities summing to 1, ``eval`` at the
   depth limit, the listed algorithms able to run on the game (:func:`structure_errors`).

:func:`load_case` and :func:`case_from_dict` raise the first error (the exception's ``errors``
attribute holds them all); ``grader validate`` (:mod:`grader.validate`) reports them all, for
many files, and checks ``expect`` against the reference.

Explicit games (the full tree, the shorthand lists, ``start`` + ``states``) become the
:class:`~grader.games.tree.Node` list of a :class:`~grader.games.tree.TreeGame`; a leaf, which
the file gives no player, gets the player who would move there (the next player after its
parent's mover), so ``to_move`` is defined everywhere.
"""

from __future__ import annotations

import bisect
import copy
import difflib
import functools
import json
import math
import re
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import networkx as nx

from grader.errors import CaseError
from grader.games.base import CHANCE, MAX, MIN, Game
from grader.games.tree import Node, TreeGame
from grader.runner import MctsSettings

SCHEMA_PATH = Path(__file__).parent / "schema" / "case.schema.json"
PLAYER_NAMES = {"max": MAX, "min": MIN, "chance": CHANCE}
PRUNING_ALGORITHMS = ("alpha_beta", "expectimax", "maxn")  # the rule matters to these only
TWO_PLAYER_ALGORITHMS = ("minimax", "alpha_beta", "expectimax")
NO_CHANCE_ALGORITHMS = ("minimax", "alpha_beta", "maxn", "mcts")
PROBABILITY_TOLERANCE = 1e-9
BUILTIN_EXPLORE_LIMIT = 2000  # states a validation looks at in a built-in game

JsonPath = tuple  # ("tree", "children", 1, "value"): str keys, int indexes


# --- errors with JSON paths ---------------------------------------------------------------


def format_path(parts: Iterable[Any]) -> str:
    """``("tree", "children", 1)`` -> ``$.tree.children[1]``; odd keys are quoted."""
    text = "$"
    for part in parts:
        if isinstance(part, int):
            text += f"[{part}]"
        elif re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", part):
            text += f".{part}"
        else:
            text += f"[{json.dumps(part)}]"
    return text


def place(error: CaseError, line: int | None, column: int | None) -> CaseError:
    """Set where ``error`` is in its file (the message text follows)."""
    error.line, error.column = line, column
    error.args = (f"{error.location()}: {error.message}",)
    return error


def case_error(message: str, parts: Iterable[Any] = (), file: str | None = None) -> CaseError:
    """A :class:`CaseError` that remembers its JSON path as parts, for :func:`locate`."""
    parts = tuple(parts)
    error = CaseError(message, file=file, path=format_path(parts))
    error.json_path = parts  # type: ignore[attr-defined]
    return error


# --- the text: JSON with positions ----------------------------------------------------------


@dataclass
class ParsedText:
    """A case file's text parsed: the data, where each JSON path starts, and text errors."""

    data: Any = None
    positions: dict[JsonPath, tuple[int, int]] = field(default_factory=dict)
    errors: list[CaseError] = field(default_factory=list)


_NUMBER_OR_WORD = re.compile(
    r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?|true|false|null|NaN|-?Infinity"
)
_WHITESPACE = re.compile(r"[ \t\n\r]*")


def parse_case_text(text: str, file: str | None = None) -> ParsedText:
    """Parse a case file's text; positions map JSON paths to (line, column), both 1-based.

    A member's position is its key's (where the TA looks: ``"value": 3``); an array item's is
    its first character.
    """
    parsed = ParsedText()
    if not text.strip():
        parsed.errors.append(case_error(
            "the file is empty; a case is one JSON object: copy a case from trees/public/ "
            "and edit it (see docs/cases.md)", (), file))
        return parsed
    try:
        parsed.data = json.loads(text)
    except json.JSONDecodeError as error:
        hint = _json_hint(error)
        parsed.errors.append(CaseError(f"not valid JSON: {error.msg}{hint}", file=file,
                                       path="$", line=error.lineno, column=error.colno))
        return parsed
    line_starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def where(offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(line_starts, offset)
        return line, offset - line_starts[line - 1] + 1

    offsets: dict[JsonPath, int] = {}
    problems: list[tuple[JsonPath, int, str]] = []
    _scan(text, offsets, problems)
    parsed.positions = {parts: where(offset) for parts, offset in offsets.items()}
    for parts, offset, message in problems:
        parsed.errors.append(place(case_error(message, parts, file), *where(offset)))
    return parsed


def _json_hint(error: json.JSONDecodeError) -> str:
    before = error.doc[: error.pos].rstrip()
    here = error.doc[error.pos : error.pos + 1]
    if before.endswith(",") and here in ("}", "]"):
        return f"; remove the trailing comma before this '{here}'"
    if error.msg.startswith("Expecting property name enclosed in double quotes"):
        return "; JSON keys need double quotes"
    if error.msg.startswith("Expecting ',' delimiter"):
        return "; a ',' is missing between two items (or a quote is not closed)"
    if error.msg.startswith("Extra data"):
        return "; the file must hold one JSON object: remove what follows it"
    if error.msg.startswith("Expecting value") and here == "'":
        return "; JSON strings need double quotes"
    return ""


def _scan(text: str, offsets: dict[JsonPath, int], problems: list) -> None:
    """Record where each value starts (text already known to be JSON), duplicate keys, NaN."""

    def skip(i: int) -> int:
        return _WHITESPACE.match(text, i).end()

    def value(i: int, parts: JsonPath) -> int:
        i = skip(i)
        offsets.setdefault(parts, i)
        char = text[i]
        if char == "{":
            i = skip(i + 1)
            if text[i] == "}":
                return i + 1
            seen: set[str] = set()
            while True:
                i = skip(i)
                key_start = i
                key, i = json.decoder.scanstring(text, i + 1)
                member = parts + (key,)
                if key in seen:
                    message = (f"the key {key!r} is given twice in this object; JSON keeps "
                               "only the last one: remove one")
                    problems.append((member, key_start, message))
                seen.add(key)
                offsets[member] = key_start
                i = value(skip(i) + 1, member)
                i = skip(i)
                if text[i] == "}":
                    return i + 1
                i += 1  # ","
        if char == "[":
            i = skip(i + 1)
            if text[i] == "]":
                return i + 1
            index = 0
            while True:
                i = skip(value(i, parts + (index,)))
                index += 1
                if text[i] == "]":
                    return i + 1
                i += 1  # ","
        if char == '"':
            return json.decoder.scanstring(text, i + 1)[1]
        match = _NUMBER_OR_WORD.match(text, i)
        word = match.group()
        if word in ("NaN", "Infinity", "-Infinity"):
            problems.append((parts, i, f"{word} is not a JSON number; write a finite number"))
        return match.end()

    value(0, ())


def locate(errors: Iterable[CaseError], positions: dict[JsonPath, tuple[int, int]]) -> None:
    """Fill in line:column of each error from its JSON path (the deepest known prefix)."""
    for error in errors:
        if error.line is not None:
            continue
        parts = getattr(error, "json_path", ())
        for end in range(len(parts), -1, -1):
            if parts[:end] in positions:
                place(error, *positions[parts[:end]])
                break


# --- the schema -----------------------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def case_schema() -> dict:
    """The case schema (``grader/schema/case.schema.json``), parsed."""
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


@functools.lru_cache(maxsize=1)
def _validator() -> Any:
    import jsonschema

    return jsonschema.Draft202012Validator(case_schema())


_TYPE_NAMES = {
    "number": "a number", "integer": "an integer", "string": "a string", "array": "a list",
    "object": "an object", "null": "null", "boolean": "true or false",
}


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if value is None:
        return "null"
    return _TYPE_NAMES[{str: "string", list: "array", dict: "object"}[type(value)]]


def _short(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def _did_you_mean(word: Any, choices: Iterable[str]) -> str:
    if not isinstance(word, str):
        return ""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def schema_errors(data: Any, file: str | None = None) -> list[CaseError]:
    """Every schema violation, each with a message that says what to change."""
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
    return errors


def _translate(error: Any, parts: JsonPath, data: Any, file: str | None) -> list[CaseError]:
    kind, schema, instance = error.validator, error.schema, error.instance
    about = schema.get("description") if isinstance(schema, dict) else None
    hint = f" ({about})" if about else ""
    if kind == "additionalProperties":
        allowed = sorted(schema.get("properties", {}))
        known = set(allowed)
        return [
            case_error(
                f"unknown field {key!r}{_did_you_mean(key, allowed)}; "
                + (f"allowed here: {', '.join(allowed)}" if allowed else "remove it"),
                parts + (key,), file)
            for key in instance if key not in known
        ]
    if kind == "required":
        missing = error.validator_value
        name = next((key for key in missing if key not in instance), missing[0])
        field_about = schema.get("properties", {}).get(name, {}).get("description", "")
        extra = ""
        if name == "value" and isinstance(instance, dict):
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
        return [case_error(f"expected {names}, got {_short(instance)} ({_kind(instance)}){hint}",
                           parts, file)]
    if kind == "enum":
        options = ", ".join(json.dumps(o) for o in error.validator_value)
        return [case_error(f"expected one of {options}, got {_short(instance)}"
                           f"{_did_you_mean(instance, error.validator_value)}", parts, file)]
    if kind == "oneOf" and not parts:
        return [_form_error(data, file)]
    if kind == "dependentRequired":
        return [_dependent_error(error, instance, parts, file)]
    if kind in ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"):
        sign = {"minimum": ">=", "exclusiveMinimum": ">", "maximum": "<=", "exclusiveMaximum": "<"}
        return [case_error(f"expected a number {sign[kind]} {error.validator_value}, "
                           f"got {_short(instance)}{hint}", parts, file)]
    if kind == "minItems":
        count = error.validator_value
        got = "an empty list" if not instance else _count(len(instance), "item")
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
        return [case_error(f"{_short(twice)} is listed twice; list each once", parts, file)]
    if kind == "pattern":
        return [case_error(f"{_short(instance)} does not match {error.validator_value}{hint}",
                           parts, file)]
    if kind in ("minLength", "minProperties"):
        return [case_error(f"expected something here, got {_short(instance)} (empty){hint}",
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


# --- the explicit game, as written ------------------------------------------------------------


@dataclass
class EdgeSpec:
    """One move as written: the action, the child's id and where the move is in the file."""

    action: str
    child: str
    path: JsonPath
    probability: float | None = None
    probability_path: JsonPath | None = None


@dataclass
class NodeSpec:
    """One node or state as written, before players are filled in for leaves."""

    id: str
    path: JsonPath
    player: Any = None  # as written: "max", "min", "chance", an index, or None
    edges: list[EdgeSpec] = field(default_factory=list)
    value: Any = None
    eval: Any = None
    has_probabilities: bool = False  # a states-form 'probabilities' list was given

    @property
    def is_leaf(self) -> bool:
        return not self.edges


def vector_values(data: dict) -> bool:
    """Whether leaf values are lists (n players, or a max^n case) rather than numbers."""
    return data.get("players", 2) > 2 or "maxn" in data.get("algorithms", ())


def _full_tree(root: dict, errors: list, file: str | None) -> list[NodeSpec]:
    nodes: list[NodeSpec] = []
    first_path: dict[str, JsonPath] = {}
    stack: list[tuple[dict, JsonPath]] = [(root, ("tree",))]
    while stack:
        obj, path = stack.pop()
        node = NodeSpec(obj["id"], path, obj.get("player"), value=obj.get("value"),
                        eval=obj.get("eval"))
        if node.id in first_path:
            errors.append(case_error(
                f"id {node.id!r} is used twice (first at {format_path(first_path[node.id])}); "
                "every node needs its own id", path + ("id",), file))
        first_path.setdefault(node.id, path)
        chance = obj.get("player") == "chance"
        for i, child in enumerate(obj.get("children", ())):
            child_path = path + ("children", i)
            edge = EdgeSpec(child.get("action", child["id"]), child["id"], child_path)
            if "probability" in child:
                if chance:
                    edge.probability = child["probability"]
                    edge.probability_path = child_path + ("probability",)
                else:
                    errors.append(case_error(
                        f"node {child['id']!r} has a probability but its parent {node.id!r} is "
                        "not a chance node; remove it, or make the parent \"chance\"",
                        child_path + ("probability",), file))
            node.edges.append(edge)
        nodes.append(node)
        stack.extend((child, path + ("children", i))
                     for i, child in reversed(list(enumerate(obj.get("children", ())))))
    return nodes


def shorthand_id(position: tuple[int, ...]) -> str:
    """The id of a shorthand node from its 1-based child positions (the root is ``()``)."""
    if not position:
        return "A"
    number, letters = position[0] + 1, ""  # B is the 2nd letter: bijective base 26
    while number:
        number, rest = divmod(number - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return letters + ".".join(str(p) for p in position[1:])


def shorthand_turns(data: dict) -> list[Any]:
    """Who moves at each depth of a shorthand tree (cycling)."""
    if "turns" in data:
        return list(data["turns"])
    players = data.get("players", 2)
    root = data.get("root_player", "max" if players == 2 else 0)
    first = PLAYER_NAMES.get(root, root)
    if players == 2 and first in (MAX, MIN):
        if isinstance(root, str):
            return [root, "min" if first == MAX else "max"]
        return [first, 1 - first]
    return [(first + i) % players for i in range(players)]


def _shorthand(data: dict, errors: list, file: str | None) -> list[NodeSpec]:
    vectors = vector_values(data)
    if "turns" in data and "root_player" in data:
        errors.append(case_error("give 'root_player' or 'turns', not both: 'turns' already says "
                                 "who moves at the root", ("root_player",), file))
    if data.get("root_player") == "chance":
        errors.append(case_error("a shorthand root_player cannot be \"chance\"; to put chance "
                                 "nodes in a shorthand tree give 'turns', e.g. [\"chance\", "
                                 "\"max\", \"chance\", \"min\"]", ("root_player",), file))
        return []
    players = data.get("players", 2)
    given = [("turns", i) for i in range(len(data.get("turns", ())))] or [("root_player",)]
    for where in given:
        player = data["turns"][where[1]] if len(where) == 2 else data.get("root_player")
        if isinstance(player, int) and player >= players:
            errors.append(case_error(
                f"player {player} does not exist: this case has {players} players "
                f"(0..{players - 1}); fix the index or set players", where, file))
    turns = shorthand_turns(data)
    nodes: list[NodeSpec] = []

    def is_leaf(item: Any) -> bool:
        if not isinstance(item, list):
            return True
        return vectors and all(not isinstance(x, list) for x in item)

    def visit(item: list, position: tuple[int, ...], path: JsonPath) -> None:
        player = turns[len(position) % len(turns)]
        node = NodeSpec(shorthand_id(position), path, player)
        nodes.append(node)
        chance = player == "chance"
        for i, child in enumerate(item):
            child_position = position + (i + 1,)
            edge = EdgeSpec(shorthand_id(child_position), shorthand_id(child_position), path + (i,))
            if chance:
                edge.probability = 1 / len(item)
            node.edges.append(edge)
            if is_leaf(child):
                nodes.append(NodeSpec(edge.child, path + (i,), None, value=child))
            else:
                visit(child, child_position, path + (i,))

    if is_leaf(data["tree"]):
        errors.append(case_error("the shorthand tree is a single leaf; give the root's children "
                                 "as a list of values or lists", ("tree",), file))
        return []
    visit(data["tree"], (), ("tree",))
    return nodes


def _states(data: dict, errors: list, file: str | None) -> list[NodeSpec]:
    nodes = []
    for state_id, state in data["states"].items():
        path = ("states", state_id)
        node = NodeSpec(state_id, path, state.get("player"), value=state.get("value"),
                        eval=state.get("eval"), has_probabilities="probabilities" in state)
        probabilities = state.get("probabilities")
        successors = state.get("successors", ())
        chance = state.get("player") == "chance"
        if probabilities is not None and not chance:
            errors.append(case_error(
                f"state {state_id!r} has probabilities but is not a chance state; remove them, "
                "or set \"player\": \"chance\"", path + ("probabilities",), file))
            probabilities = None
        elif probabilities is not None and len(probabilities) != len(successors):
            errors.append(case_error(
                f"chance state {state_id!r} has {len(successors)} successors but "
                f"{len(probabilities)} probabilities; give one probability a successor",
                path + ("probabilities",), file))
            probabilities = None
        for i, (action, child) in enumerate(successors):
            edge = EdgeSpec(action, child, path + ("successors", i))
            if probabilities is not None:
                edge.probability = probabilities[i]
                edge.probability_path = path + ("probabilities", i)
            node.edges.append(edge)
        nodes.append(node)
    return nodes


def explicit_nodes(data: dict, errors: list, file: str | None = None) -> tuple[list[NodeSpec], str]:
    """The nodes of an explicit game as written, and the root id; problems go to ``errors``."""
    if "states" in data:
        return _states(data, errors, file), data["start"]
    if isinstance(data["tree"], list):
        return _shorthand(data, errors, file), "A"
    if "root_player" in data or "turns" in data:
        key = "root_player" if "root_player" in data else "turns"
        errors.append(case_error(f"{key!r} belongs to shorthand trees (lists); a full tree gives "
                                 "each node's 'player': remove it", (key,), file))
    if "probability" in data["tree"]:
        errors.append(case_error("the root has a probability, but only the children of a chance "
                                 "node do; remove it", ("tree", "probability"), file))
    return _full_tree(data["tree"], errors, file), data["tree"]["id"]


# --- the structure ----------------------------------------------------------------------------


def structure_errors(
    data: dict, file: str | None = None, *, build_builtin: bool = False
) -> list[CaseError]:
    """Every structural mistake of a schema-valid case (see the module docstring).

    ``build_builtin``: also build a built-in game and explore it (what ``grader validate`` does).
    """
    errors = _field_errors(data, file)
    if "game" in data:
        if build_builtin:
            errors.extend(builtin_errors(data, file))
        return errors
    nodes, root = explicit_nodes(data, errors, file)
    if errors and not nodes:
        return errors
    if len({node.id for node in nodes}) < len(nodes):
        return errors  # duplicate ids (reported): the graph would be wrong in confusing ways
    errors.extend(_graph_errors(data, nodes, root, file))
    return errors


def _field_errors(data: dict, file: str | None) -> list[CaseError]:
    """Top-level fields that contradict each other or the algorithms."""
    errors = []
    algorithms = data["algorithms"]
    players = data.get("players", 2)

    def add(message: str, *parts: Any) -> None:
        errors.append(case_error(message, parts, file))

    for algorithm in algorithms:
        at = ("algorithms", algorithms.index(algorithm))
        if players > 2 and algorithm in TWO_PLAYER_ALGORITHMS:
            add(f"{algorithm} is a two-player algorithm but this case has {players} players; "
                "use maxn (or mcts), or set players to 2", *at)
        if players == 2 and "maxn" in algorithms and algorithm in ("minimax", "alpha_beta",
                                                                  "expectimax", "mcts"):
            add(f"maxn needs a list of payoffs at each leaf but {algorithm} needs one number for "
                f"MAX: put maxn and {algorithm} in separate cases", *at)
    if "mcts" in algorithms and data.get("depth_limit") is not None:
        add("mcts plays out to the end of the game, so an mcts case cannot have a depth limit; "
            "set depth_limit to null or remove mcts from algorithms", "depth_limit")
    if "mcts" in data and "mcts" not in algorithms:
        add("'mcts' settings are given but mcts is not in algorithms; add mcts to algorithms or "
            "remove the settings", "mcts")
    points = data.get("points")
    if isinstance(points, dict):
        for algorithm in points:
            if algorithm not in algorithms:
                add(f"points are given for {algorithm}, which is not in algorithms; add it to "
                    "algorithms or remove these points", "points", algorithm)
    for key in data.get("expect", {}):
        algorithm, _, rule = key.partition("/")
        if algorithm not in algorithms:
            add(f"expect gives answers for {algorithm}, which is not in algorithms; add it to "
                "algorithms or remove this entry", "expect", key)
        elif rule and algorithm not in PRUNING_ALGORITHMS:
            add(f"{algorithm} does not prune, so a pruning rule means nothing for it; write "
                f"{algorithm!r} instead of {key!r}", "expect", key)
    bounds = data.get("value_bounds")
    if bounds is not None:
        if bounds[0] >= bounds[1]:
            add(f"value_bounds [{bounds[0]}, {bounds[1]}] is empty; give [L, U] with L < U",
                "value_bounds")
        if vector_values(data):
            add("value_bounds is for two-player expectimax (Star1 pruning) and needs numbers "
                "for leaf values; remove it", "value_bounds")
    if data.get("max_sum") is not None and not vector_values(data):
        add("max_sum is for maxn shallow pruning, over lists of payoffs; remove it, or make "
            "this a maxn case", "max_sum")
    return errors


def _arity_problem(value: Any, vectors: bool, players: int) -> str | None:
    if vectors:
        if not isinstance(value, list):
            return (f"expected a list of {players} numbers (one a player), got {_short(value)} "
                    f"({_kind(value)})")
        if len(value) != players:
            return (f"expected a list of {players} numbers (one a player), got "
                    f"{_count(len(value), 'number')} {_short(value)}")
        return None
    if isinstance(value, list):
        hint = ("; a list of payoffs needs players > 2 or a maxn case" if all(
            isinstance(v, (int, float)) for v in value) else "")
        return f"expected one number (MAX's payoff), got the list {_short(value)}{hint}"
    return None


def _graph_errors(
    data: dict, nodes: list[NodeSpec], root: str, file: str | None
) -> list[CaseError]:
    errors: list[CaseError] = []
    players = data.get("players", 2)
    vectors = vector_values(data)
    depth_limit = data.get("depth_limit")
    by_id = {node.id: node for node in nodes}
    states_form = "states" in data
    shorthand = isinstance(data.get("tree"), list)

    def add(message: str, parts: JsonPath) -> None:
        errors.append(case_error(message, parts, file))

    graph = nx.DiGraph()
    graph.add_nodes_from(by_id)
    undefined = False
    for node in nodes:
        for edge in node.edges:
            if edge.child not in by_id:
                undefined = True
                close = _did_you_mean(edge.child, by_id)
                add(f"successor {edge.child!r} of state {node.id!r} is not defined{close}; add "
                    f"{edge.child!r} to states or fix the name", edge.path + (1,))
            else:
                graph.add_edge(node.id, edge.child)
    if root not in by_id:
        add(f"the start state {root!r} is not defined{_did_you_mean(root, by_id)}; "
            "name a key of states", ("start",))
        return errors
    cyclic = False
    for component in nx.strongly_connected_components(graph):
        member = next(iter(component))
        if len(component) > 1 or graph.has_edge(member, member):
            cyclic = True
            cycle = [a for a, _ in nx.find_cycle(graph.subgraph(component))]
            names = " -> ".join(cycle + [cycle[0]])
            first = min(component, key=list(by_id).index)
            add(f"the states form a cycle {names}; a game tree cannot come back to a state: "
                "break the cycle", by_id[first].path)
    if states_form and not cyclic and graph.in_degree(root) > 0:
        parents = ", ".join(repr(p) for p in graph.predecessors(root))
        add(f"the start state {root!r} is a successor of {parents}; the start must be the root "
            "(one root a game)", ("start",))
    reachable = nx.descendants(graph, root) | {root}
    for node in nodes:
        if node.id not in reachable:
            add(f"state {node.id!r} cannot be reached from the start {root!r}; link it from a "
                "state or remove it", node.path)

    for node in nodes:
        player = node.player
        if isinstance(player, int) and player >= players and not shorthand:
            add(f"player {player} does not exist: this case has {players} players "
                f"(0..{players - 1}); fix the index or set players", node.path + ("player",))
        if node.is_leaf:
            if player == "chance":
                add(f"leaf {node.id!r} is a chance node without outcomes; remove its player or "
                    "give it children", node.path + ("player",))
            if node.eval is not None:
                add(f"leaf {node.id!r} has eval; a leaf is scored by its value: remove eval",
                    node.path + ("eval",))
        else:
            if node.value is not None:
                add(f"node {node.id!r} has children and a value; an internal node cut by the "
                    "depth limit takes 'eval': rename value to eval, or remove it",
                    node.path + ("value",))
            actions = [edge.action for edge in node.edges]
            for i, action in enumerate(actions):
                if action in actions[:i]:
                    add(f"action {action!r} appears twice at {node.id!r}; the actions of a node "
                        "must differ", node.edges[i].path)
            if player == "chance":
                errors.extend(_probability_errors(node, file))
        for key in ("value", "eval"):
            value = getattr(node, key)
            if value is None:
                continue
            problem = _arity_problem(value, vectors, players)
            if problem:
                where = node.path if shorthand else node.path + (key,)
                add(f"{'leaf' if key == 'value' else 'eval of'} {node.id!r}: {problem}", where)
    if cyclic or undefined:
        return errors  # the depths below need a finite graph with every node defined

    # Depths the search reaches each node at: it stops at leaves and at the depth limit.
    depths: dict[str, set[int]] = {root: {0}}
    for state in nx.topological_sort(graph.subgraph(reachable)):
        node = by_id[state]
        for depth in depths.get(state, ()):
            if node.is_leaf or (depth_limit is not None and depth >= depth_limit):
                continue
            for edge in node.edges:
                depths.setdefault(edge.child, set()).add(depth + 1)
    errors.extend(_depth_errors(data, by_id, depths, file))
    errors.extend(_searched_errors(data, by_id, depths, root, file))
    return errors


def _probability_errors(node: NodeSpec, file: str | None) -> list[CaseError]:
    missing = [edge for edge in node.edges if edge.probability is None]
    if missing:
        if node.has_probabilities:
            return []  # the list's length was wrong: reported while reading the states
        where = missing[0].path if node.path[0] != "states" else node.path
        what = ("each child needs 'probability'" if node.path[0] == "tree"
                else "give 'probabilities', one a successor")
        return [case_error(f"chance node {node.id!r} has children without a probability: "
                           f"{what}", where, file)]
    total = math.fsum(edge.probability for edge in node.edges)
    if abs(total - 1) > PROBABILITY_TOLERANCE:
        where = node.edges[0].probability_path[:-1] if node.path[0] == "states" else node.path
        return [case_error(f"probabilities of the children of {node.id!r} sum to {total:.12g}; "
                           "they must sum to 1", where, file)]
    return []


def _depth_errors(data: dict, by_id: dict, depths: dict, file: str | None) -> list[CaseError]:
    limit = data.get("depth_limit")
    if limit is None:
        return []
    errors = []
    shorthand = isinstance(data.get("tree"), list)
    for state, reached in depths.items():
        node = by_id[state]
        if node.is_leaf or limit not in reached:
            continue
        if shorthand:
            return [case_error(
                f"node {state!r} is cut by the depth limit {limit} but shorthand trees have no "
                "eval values; write this case as a full tree with eval, or remove depth_limit",
                ("depth_limit",), file)]
        if node.eval is None:
            errors.append(case_error(
                f"{'state' if node.path[0] == 'states' else 'node'} {state!r} is at the depth "
                f"limit {limit} and has children, so the search evaluates it: give it 'eval' "
                "(its heuristic value)", node.path, file))
        if len(reached) > 1:
            other = ", ".join(str(d) for d in sorted(reached) if d != limit)
            errors.append(case_error(
                f"state {state!r} is reached at depth {other} and at the depth limit {limit}; a "
                "shared state must be at one depth when a depth limit cuts it: give each parent "
                "its own copy", node.path, file))
    return errors


def _searched_errors(
    data: dict, by_id: dict, depths: dict, root: str, file: str | None
) -> list[CaseError]:
    """The algorithms against what the search meets: chance nodes, bounds, the root."""
    errors = []
    algorithms = data["algorithms"]
    limit = data.get("depth_limit")
    if by_id[root].is_leaf:
        errors.append(case_error(f"the root {root!r} has no children: there is nothing to "
                                 "search; give it children", by_id[root].path, file))
    chance = next((s for s, d in depths.items() if by_id[s].player == "chance"
                   and not by_id[s].is_leaf and (limit is None or min(d) < limit)), None)
    if chance is not None:
        for i, algorithm in enumerate(algorithms):
            if algorithm in NO_CHANCE_ALGORITHMS:
                errors.append(case_error(
                    f"{algorithm} cannot search chance nodes and {chance!r} is one; use "
                    f"expectimax, or remove {algorithm} from algorithms", ("algorithms", i), file))
    bounds = data.get("value_bounds")
    max_sum = data.get("max_sum")
    for state, reached in depths.items():
        node = by_id[state]
        for key in ("value", "eval"):
            value = getattr(node, key)
            if value is None or (key == "eval" and (limit is None or limit not in reached)):
                continue
            where = node.path if isinstance(data.get("tree"), list) else node.path + (key,)
            scalar = isinstance(value, (int, float))
            if (bounds is not None and scalar and bounds[0] < bounds[1]
                    and not bounds[0] <= value <= bounds[1]):
                errors.append(case_error(
                    f"{key} {value} of {state!r} is outside value_bounds {bounds}; Star1 "
                    "pruning would be wrong: widen the bounds or fix the value", where, file))
            if max_sum is not None and isinstance(value, list) and (
                    any(v < 0 for v in value) or math.fsum(value) > max_sum + 1e-9):
                errors.append(case_error(
                    f"{key} {value} of {state!r} breaks max_sum {max_sum}: shallow pruning "
                    "needs payoffs >= 0 that sum to at most max_sum", where, file))
    return errors


# --- built-in games -------------------------------------------------------------------------


def build_builtin(data: dict, file: str | None = None) -> Game:
    """The built-in game of a case; the game's own complaint becomes a :class:`CaseError`."""
    from grader.games import BUILTIN_GAMES, builtin_game

    name = data["game"]
    bounds = data.get("value_bounds")
    try:
        return builtin_game(
            name, data.get("state"), data.get("params"),
            depth_limit=data.get("depth_limit"),
            value_bounds=tuple(bounds) if bounds is not None else None,
            max_sum=data.get("max_sum"),
        )
    except ModuleNotFoundError as error:
        module = BUILTIN_GAMES.get(name, ("?",))[0]
        if error.name and module.startswith(error.name):
            raise case_error(f"the built-in game {name!r} is not available: module {module} is "
                             "missing", ("game",), file) from error
        raise case_error(f"the built-in game {name!r} failed to load: {error}", ("game",),
                         file) from error
    except TypeError as error:
        if "keyword argument" in str(error):
            raise case_error(f"the built-in game {name!r} rejected these params: {error}; see "
                             "docs/cases.md for its params", ("params",), file) from error
        raise case_error(f"the built-in game {name!r} rejected the state "
                         f"{_short(data.get('state'))}: {error}", ("state",), file) from error
    except Exception as error:
        raise case_error(f"the built-in game {name!r} rejected the state "
                         f"{_short(data.get('state'))}: {error}", ("state",), file) from error


def _explore(game: Game, limit: int | None) -> tuple[list[Any], str | None]:
    """States the search would score (breadth first, then down the first and the last moves),
    and the id of a chance node met on the way (or None)."""
    scored, chance = [], None

    def is_cut(state: Any, depth: int) -> bool:
        return game.is_terminal(state) or (limit is not None and depth >= limit)

    def moves(state: Any) -> list[Any]:
        nonlocal chance
        if game.to_move(state) == CHANCE:
            chance = chance or game.state_id(state)
            return [action for action, _ in game.chance_outcomes(state)]
        return list(game.actions(state))

    root = game.initial_state()
    frontier, seen = deque([(root, 0)]), {game.state_id(root)}
    while frontier and len(seen) < BUILTIN_EXPLORE_LIMIT:
        state, depth = frontier.popleft()
        if is_cut(state, depth):
            scored.append(state)
            continue
        for action in moves(state):
            child = game.result(state, action)
            if game.state_id(child) not in seen:
                seen.add(game.state_id(child))
                frontier.append((child, depth + 1))
    for pick in (0, -1):  # a full game tree is too big to search: play two lines to the end
        state, depth = root, 0
        while not is_cut(state, depth):
            state, depth = game.result(state, moves(state)[pick]), depth + 1
        scored.append(state)
    return scored, chance


def builtin_errors(data: dict, file: str | None = None) -> list[CaseError]:
    """Build the built-in game and look at up to BUILTIN_EXPLORE_LIMIT states of it."""
    try:
        game = build_builtin(data, file)
    except CaseError as error:
        return [error]
    name, players = data["game"], data.get("players", 2)
    if game.players != players:
        return [case_error(f"the built-in game {name!r} has {game.players} players but this "
                           f"case says {players}; set \"players\": {game.players}",
                           ("players",) if "players" in data else (), file)]
    errors: list[CaseError] = []
    try:
        if game.is_terminal(game.initial_state()):
            return [case_error(f"this {name} position is already over: there is nothing to "
                               "search; give a position with moves left", ("state",), file)]
        scored, chance = _explore(game, data.get("depth_limit"))
        for state in scored:
            value = game.evaluate(state)
            value = list(value) if isinstance(value, tuple) else value
            problem = _arity_problem(value, vector_values(data), players)
            if problem:
                errors.append(case_error(f"{name} scores {game.state_id(state)!r} {value!r}: "
                                         f"{problem}", ("algorithms",), file))
                break
            bounds = data.get("value_bounds")
            if bounds and not isinstance(value, list) and not bounds[0] <= value <= bounds[1]:
                errors.append(case_error(f"{name} scores {game.state_id(state)!r} {value!r}, "
                                         f"outside value_bounds {bounds}; Star1 pruning would "
                                         "be wrong: widen the bounds", ("value_bounds",), file))
                break
    except Exception as error:  # noqa: BLE001 - the game's own failure is the message
        return [case_error(f"the built-in game {name!r} failed while exploring this position: "
                           f"{type(error).__name__}: {error}", ("state",), file)]
    if chance is not None:
        for i, algorithm in enumerate(data["algorithms"]):
            if algorithm in NO_CHANCE_ALGORITHMS:
                errors.append(case_error(
                    f"{algorithm} cannot search chance nodes and {name} has them (at "
                    f"{chance!r}); use expectimax, or remove {algorithm}", ("algorithms", i), file))
    return errors


# --- the case ---------------------------------------------------------------------------------


@dataclass
class CaseMctsSettings(MctsSettings):
    """An mcts case's settings: how the search is called, plus how it is checked."""

    check: str = "trace"  # "trace": the exact trace under seed; "outcome": optimal moves
    seeds: int | None = None  # outcome checks: how many seeds; None = the rubric's outcome_seeds


@dataclass
class Case:
    """One case, checked. Fields the file leaves out are None (the rubric decides) or defaults."""

    path: Path | None
    name: str
    description: str
    algorithms: list[str]
    players: int = 2
    depth_limit: int | None = None
    pruning: str | None = None  # inclusive / strict / either; None: the rubric's rule
    points: float | dict[str, float] | None = None  # None: the rubric's
    visibility: str | None = None  # None: the rubric's
    time_limit: float | None = None  # seconds: raises the calibrated limit's floor
    value_bounds: tuple[float, float] | None = None  # expectimax Star1 pruning
    max_sum: float | None = None  # maxn shallow pruning
    mcts: CaseMctsSettings = field(default_factory=CaseMctsSettings)
    expect: dict[str, dict[str, Any]] = field(default_factory=dict)
    game: str | None = None  # a built-in game's name
    state: Any = None  # the built-in game's position
    params: dict[str, Any] = field(default_factory=dict)
    data: dict[str, Any] = field(default_factory=dict, repr=False)  # the file, as parsed

    @property
    def form(self) -> str:
        """``tree``, ``shorthand``, ``states`` or ``game``."""
        if self.game is not None:
            return "game"
        if "states" in self.data:
            return "states"
        return "shorthand" if isinstance(self.data["tree"], list) else "tree"

    @property
    def file(self) -> str | None:
        return str(self.path) if self.path is not None else None

    @property
    def vector_values(self) -> bool:
        """Leaf values are lists, one entry a player (n players, or a maxn case)."""
        return vector_values(self.data)

    def points_for(self, algorithm: str) -> float | None:
        """The points the case gives ``algorithm`` (None: the rubric decides)."""
        if isinstance(self.points, dict):
            return self.points.get(algorithm)
        return self.points

    def expectations(self) -> list[tuple[str, str | None, dict[str, Any]]]:
        """``expect`` as (algorithm, pruning rule or None, answers)."""
        result = []
        for key, answers in self.expect.items():
            algorithm, _, rule = key.partition("/")
            result.append((algorithm, rule or None, answers))
        return result

    def public_dict(self) -> dict[str, Any]:
        """The case as a worker gets it: everything but ``expect``."""
        return {key: copy.deepcopy(value) for key, value in self.data.items() if key != "expect"}

    def build_game(self) -> Game:
        """A fresh game for this case (a :class:`TreeGame`, or the built-in game)."""
        if self.game is not None:
            return build_builtin(self.data, self.file)
        nodes, root = self._tree_nodes()
        return TreeGame(nodes, root, players=self.players, depth_limit=self.depth_limit,
                        value_bounds=self.value_bounds, max_sum=self.max_sum)

    @functools.cached_property
    def _tree_parts(self) -> tuple[list[Node], str]:
        errors: list[CaseError] = []
        specs, root = explicit_nodes(self.data, errors, self.file)
        if errors:
            raise errors[0]
        return _to_nodes(specs, root, self.players, self.vector_values), root

    def _tree_nodes(self) -> tuple[list[Node], str]:
        return self._tree_parts


def _player_index(player: Any) -> int | str:
    return PLAYER_NAMES.get(player, player) if isinstance(player, str) else player


def _next_player(mover: int | None, players: int) -> int:
    """Who moves after ``mover`` (None: nobody has moved yet, so MAX)."""
    if mover is None:
        return MAX
    return (mover + 1) % players


def _to_nodes(specs: list[NodeSpec], root: str, players: int, vectors: bool) -> list[Node]:
    """NodeSpecs -> Nodes: players as indexes, leaves given their player, values as tuples."""
    by_id = {spec.id: spec for spec in specs}
    # The last player (not chance) to move on the way to each node, for leaves' players.
    last_mover: dict[str, int | None] = {}
    order = [root]
    seen = {root}
    last_mover[root] = None
    for state in order:  # breadth first: a shared leaf takes its first parent's next player
        spec = by_id[state]
        mover = _player_index(spec.player) if spec.player is not None else None
        passed = last_mover[state] if mover in (None, CHANCE) else mover
        for edge in spec.edges:
            if edge.child not in seen:
                seen.add(edge.child)
                last_mover[edge.child] = passed
                order.append(edge.child)

    def convert(value: Any) -> Any:
        if value is None:
            return None
        return tuple(value) if vectors and isinstance(value, list) else value

    nodes = []
    for state in order:
        spec = by_id[state]
        player = _player_index(spec.player) if spec.player is not None else None
        if spec.is_leaf and player in (None, CHANCE):
            player = _next_player(last_mover[state], players)
        elif player is None:  # cannot happen in a checked case
            player = MAX
        probabilities = ([edge.probability for edge in spec.edges]
                         if player == CHANCE else None)
        nodes.append(Node(spec.id, player, [(edge.action, edge.child) for edge in spec.edges],
                          probabilities, convert(spec.value), convert(spec.eval)))
    return nodes


def check_case(
    data: Any, file: str | None = None, *, build_builtin: bool = False
) -> list[CaseError]:
    """Schema errors, else structural errors (see :func:`structure_errors`)."""
    errors = schema_errors(data, file)
    if errors:
        return errors
    return structure_errors(data, file, build_builtin=build_builtin)


def sort_errors(errors: list[CaseError]) -> list[CaseError]:
    """Errors in file order (those without a line last), stable."""
    return sorted(errors, key=lambda e: (e.line is None, e.line or 0, e.column or 0))


def _first(errors: list[CaseError]) -> CaseError:
    errors = sort_errors(errors)
    first = errors[0]
    if len(errors) == 1:
        raised = first
    else:
        more = len(errors) - 1
        raised = CaseError(f"{first.message} (and {more} more error{'s' if more > 1 else ''}: "
                           "run `grader validate` on this file)", file=first.file,
                           path=first.path, line=first.line, column=first.column)
    raised.errors = errors  # type: ignore[attr-defined]
    return raised


def case_from_dict(data: Any, file: str | Path | None = None,
                   positions: dict[JsonPath, tuple[int, int]] | None = None) -> Case:
    """Check ``data`` and make a :class:`Case`; raise the first :class:`CaseError` otherwise."""
    file_name = str(file) if file is not None else None
    errors = check_case(data, file_name)
    if errors:
        locate(errors, positions or {})
        raise _first(errors)
    return _make_case(data, Path(file) if file is not None else None)


def _make_case(data: dict, path: Path | None) -> Case:
    settings = data.get("mcts", {})
    bounds = data.get("value_bounds")
    return Case(
        path=path,
        name=data["name"],
        description=data["description"],
        algorithms=list(data["algorithms"]),
        players=data.get("players", 2),
        depth_limit=data.get("depth_limit"),
        pruning=data.get("pruning"),
        points=data.get("points"),
        visibility=data.get("visibility"),
        time_limit=data.get("time_limit"),
        value_bounds=tuple(bounds) if bounds is not None else None,
        max_sum=data.get("max_sum"),
        mcts=CaseMctsSettings(**settings),
        expect=copy.deepcopy(data.get("expect", {})),
        game=data.get("game"),
        state=copy.deepcopy(data.get("state")),
        params=copy.deepcopy(data.get("params", {})),
        data=data,
    )


def read_case_text(path: Path) -> tuple[str | None, list[CaseError]]:
    """The file's text, or the error that it cannot be read as UTF-8."""
    try:
        return path.read_text(encoding="utf-8-sig"), []
    except UnicodeDecodeError as error:
        return None, [CaseError(f"the file is not UTF-8 text ({error.reason} at byte "
                                f"{error.start}); save it as UTF-8", file=str(path))]
    except OSError as error:
        return None, [CaseError(f"cannot read the file: {error.strerror}", file=str(path))]


def load_case(path: str | Path) -> Case:
    """Read and check one case file; raise the first :class:`CaseError` (line:column included)."""
    path = Path(path)
    text, errors = read_case_text(path)
    if text is None:
        raise _first(errors)
    parsed = parse_case_text(text, str(path))
    if parsed.errors:
        raise _first(parsed.errors)
    return case_from_dict(parsed.data, path, parsed.positions)


def is_case_file(path: Path) -> bool:
    """``*.json``, not a schema, not a rubric, not hidden."""
    return (path.suffix == ".json" and not path.name.endswith(".schema.json")
            and path.stem != "rubric" and not path.name.startswith("."))


def find_cases(paths: Iterable[str | Path]) -> list[Path]:
    """Case files in ``paths`` (files as given, folders searched recursively), sorted, unique.

    Raises FileNotFoundError for a path that does not exist.
    """
    found: set[Path] = set()
    for path in map(Path, paths):
        if path.is_dir():
            found.update(p for p in path.rglob("*.json") if p.is_file() and is_case_file(p)
                         and not any(part.startswith(".") for part in p.relative_to(path).parts))
        elif path.is_file():
            found.add(path)
        else:
            raise FileNotFoundError(f"no such case file or folder: {str(path)!r}")
    return sorted(found)


def iter_cases(paths: Iterable[str | Path]) -> Iterator[Case]:
    """Load every case under ``paths`` (raising the first broken one's error)."""
    for path in find_cases(paths):
        yield load_case(path)


__all__ = [
    "SCHEMA_PATH",
    "Case",
    "CaseMctsSettings",
    "builtin_errors",
    "case_from_dict",
    "case_schema",
    "check_case",
    "find_cases",
    "format_path",
    "iter_cases",
    "load_case",
    "locate",
    "parse_case_text",
    "schema_errors",
    "shorthand_id",
    "structure_errors",
]
