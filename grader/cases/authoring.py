"""``grader new``: a schema-valid case skeleton for a TA to fill in.

``--shape BxD`` gives a full tree (every node written out, so the TA can rename, re-value or
add ``eval`` in place) with branching ``B`` and depth ``D`` edges; ids follow the shorthand
scheme (``A``; ``B``, ``C``, ...; ``B1``; ``B1.1``, docs/cases.md). Players alternate MAX/MIN
from a MAX root; ``--chance`` cycles MAX, chance, MIN, chance (equal probabilities, for
``expectimax``); ``--players N`` (or ``maxn``) gives player indexes and vector leaves. The leaf
values are placeholders chosen to be worth searching: the best root move is not the first, and
alpha-beta prunes something when it can. Points, visibility and the pruning rule are left to
``trees/rubric.toml``.

The module also holds what :mod:`grader.commands.generate` and :mod:`grader.cases.cs188` share: the
``$schema`` path seen from the output file, random shorthand trees, and :func:`case_json`, the
compact formatting every case file written here gets.
"""

from __future__ import annotations

import json
import os
import random
import re
from pathlib import Path
from typing import Any

import grader.algorithms as algorithm_specs
from grader.cases import SCHEMA_PATH, shorthand_id
from grader.cases.algorithms import ALGORITHMS
from grader.paths import SCHEMA_REF

MAX_LEAVES = 1000  # a skeleton a person edits: past this, generate or write a built-in game
WIDTH = 100  # columns of a case file line
DESCRIPTION = "TODO: one line saying what this case tests (it is shown in the test's name)"


class AuthoringError(ValueError):
    """An option of ``grader new`` / ``grader generate`` that cannot make a case."""


def parse_shape(shape: str) -> tuple[int, int]:
    """``"3x2"`` -> (branching 3, depth 2)."""
    match = re.fullmatch(r"\s*(\d+)\s*[xX]\s*(\d+)\s*", shape or "")
    if not match:
        raise AuthoringError(f"expected --shape as BRANCHINGxDEPTH, e.g. 3x2, got: {shape!r}")
    branching, depth = int(match[1]), int(match[2])
    check_size(branching, depth)
    return branching, depth


def check_size(branching: int, depth: int) -> None:
    if branching < 1 or depth < 1:
        raise AuthoringError(f"expected branching and depth of at least 1, got {branching} "
                             f"and {depth}")
    if branching ** depth > MAX_LEAVES:
        raise AuthoringError(f"a {branching}x{depth} tree has {branching ** depth} leaves, more "
                             f"than {MAX_LEAVES}; use a smaller shape")


def schema_ref(out: str | Path | None) -> str:
    """The ``$schema`` path as seen from ``out``'s folder (trees/public/ when None)."""
    if out is None:
        return SCHEMA_REF
    return Path(os.path.relpath(SCHEMA_PATH, Path(out).resolve().parent)).as_posix()


def case_name(text: str, default: str = "new-case") -> str:
    """A valid case name (``[a-z0-9-]+``) made from a file stem."""
    name = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return name or default


def turns_for(algorithm: str, players: int, chance: bool) -> list[Any]:
    """Who moves at each depth, cycling; checks the options against each other."""
    if algorithm not in ALGORITHMS:
        raise AuthoringError(f"expected an algorithm, one of {ALGORITHMS}, got: {algorithm!r}")
    if players < 2:
        raise AuthoringError(f"expected --players of at least 2, got {players}")
    games = algorithm_specs.get(algorithm).games
    if chance and not games.chance:
        takes = " or ".join(a for a in ALGORITHMS if algorithm_specs.get(a).games.chance)
        raise AuthoringError(f"chance nodes need --algorithm {takes}; {algorithm} cannot "
                             "search them")
    if players > 2 and games.two_player:
        raise AuthoringError(f"{algorithm} is a two-player algorithm; with --players {players} "
                             "use maxn (or mcts)")
    if chance:
        return ["max", "chance", "min", "chance"]
    if players > 2 or games.vector_leaves:
        return list(range(players))
    return ["max", "min"]


def random_leaves(rng: random.Random, branching: int, depth: int, low: int, high: int,
                  width: int | None = None) -> list:
    """A full shorthand tree of random integer leaves (lists of ``width`` when given)."""
    def leaf() -> Any:
        if width is None:
            return rng.randint(low, high)
        return [rng.randint(low, high) for _ in range(width)]

    def level(remaining: int) -> list:
        if remaining == 1:
            return [leaf() for _ in range(branching)]
        return [level(remaining - 1) for _ in range(branching)]

    return level(depth)


def full_tree(leaves: list, turns: list[Any], vectors: bool) -> dict:
    """Shorthand lists -> the full-tree form, ids as the shorthand scheme gives them."""
    def node(item: Any, position: tuple[int, ...]) -> dict:
        if not isinstance(item, list) or (vectors and not isinstance(item[0], list)):
            return {"id": shorthand_id(position), "value": item}
        player = turns[len(position) % len(turns)]
        children = [node(child, position + (i + 1,)) for i, child in enumerate(item)]
        if player == "chance":  # equal chances, written right after each child's id
            share = 1 / len(children)
            children = [{"id": c["id"], "probability": share, **c} for c in children]
        return {"id": shorthand_id(position), "player": player, "children": children}

    return node(leaves, ())


def with_evals(tree: dict, rng: random.Random, low: int, high: int) -> dict:
    """``tree`` (full form) with a random ``eval`` on every inner node but the root: what an
    ``iterative_deepening`` case needs, since its iterations cut at every depth."""
    def node(item: dict, root: bool) -> dict:
        if "children" not in item:
            return item
        result = {key: value for key, value in item.items() if key != "children"}
        if not root:
            result["eval"] = rng.randint(low, high)
        result["children"] = [node(child, False) for child in item["children"]]
        return result

    return node(tree, True)






def _dump(value: Any, indent: int, used: int) -> str:
    """``value`` at ``indent``, its first line starting at column ``used``."""
    flat = json.dumps(value, ensure_ascii=False)
    if not isinstance(value, (dict, list)) or not value or used + len(flat) + 1 <= WIDTH:
        return flat
    pad = " " * (indent + 2)
    if isinstance(value, list):
        items = [pad + _dump(item, indent + 2, indent + 2) for item in value]
        return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"
    items = []
    for key, item in value.items():
        head = pad + json.dumps(key, ensure_ascii=False) + ": "
        items.append(head + _dump(item, indent + 2, len(head)))
    return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"


def case_json(data: dict) -> str:
    """A case as a file: one top-level field a line, short lists and objects kept on one line."""
    return _dump(data, 0, 0) + "\n"




__all__ = ["AuthoringError", "case_json", "case_name", "full_tree", "parse_shape",
           "random_leaves", "schema_ref", "turns_for", "with_evals"]


def transposition_graph(rng: random.Random, branching: int, depth: int, low: int,
                        high: int) -> tuple[str, dict]:
    """``(start, states)``: a layered graph with transpositions, for ``alpha_beta_tt``.

    Level ``d`` has ``branching + 1`` states at most (fewer near the root), so most states are
    reached from several parents; each state's children are ``branching`` distinct states of
    the next level, taken in turn. MAX and MIN alternate from a MAX start; the last level's
    states are leaves with random values."""
    levels = [["A"]]
    letters = iter("BCDEFGHIJKLMNOPQRSTUVWXYZ")
    for d in range(1, depth + 1):
        width = min(branching ** d, branching + 1)
        levels.append([next(letters) + (str(d) if d > 1 else "") for _ in range(width)]
                      if d <= 25 else [f"S{d}.{i}" for i in range(width)])
    states: dict[str, Any] = {}
    for d, level in enumerate(levels[:-1]):
        below = levels[d + 1]
        for i, state in enumerate(level):
            children = [below[(i + k) % len(below)] for k in range(min(branching, len(below)))]
            states[state] = {"player": "max" if d % 2 == 0 else "min",
                             "successors": [[f"{state}-{child}".lower(), child]
                                            for child in children]}
    for state in levels[-1]:
        states[state] = {"value": rng.randint(low, high)}
    return "A", states


def quiescence_marks(tree: dict, rng: random.Random, depth_limit: int, low: int,
                     high: int) -> dict:
    """``tree`` (full form) with what a ``quiescence`` case needs: an ``eval`` on every inner
    node at or past ``depth_limit``, and about half of them ``"quiet": false`` with their
    first child (and maybe others) ``"noisy": true``."""
    def node(item: dict, depth: int) -> dict:
        if "children" not in item:
            return item
        result = {key: value for key, value in item.items() if key != "children"}
        children = [node(child, depth + 1) for child in item["children"]]
        if depth >= depth_limit:
            result["eval"] = rng.randint(low, high)
            if rng.random() < 0.5:
                result["quiet"] = False
                children = [dict(child, noisy=True) if i == 0 or rng.random() < 0.4 else child
                            for i, child in enumerate(children)]
        result["children"] = children
        return result

    return node(tree, 0)

