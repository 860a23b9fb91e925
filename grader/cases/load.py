"""Cases: one JSON file a case, loaded into a :class:`Case` and checked.

The format is docs/cases.md; ``grader/schema/case.schema.json`` is its machine-readable half.
Checking has three layers, each reporting *every* mistake it finds as a
:class:`~grader.errors.CaseError` with the JSON path (``$.tree.children[1].value``), the
line:column of that place in the file, what is wrong and how to fix it:

1. the text: JSON syntax, an empty file, a key given twice, ``NaN``/``Infinity``
   (:func:`parse_case_text`, :mod:`grader.cases.text`);
2. the schema: types, required and unknown fields (:func:`schema_errors`,
   :mod:`grader.cases.schema`);
3. the structure, once the schema holds: one root, no cycles, every successor defined, ids
   unique, leaf values of the right arity, chance probabilities summing to 1, ``eval`` at the
   depth limit, the listed algorithms able to run on the game (:func:`structure_errors`: the
   fields, :mod:`grader.cases.rules`; an explicit game read by :mod:`grader.cases.specs` and
   checked by :mod:`grader.cases.structure`; a built-in game, :mod:`grader.cases.builtin`).

This module owns the :class:`Case` and the entry points: :func:`load_case` and
:func:`case_from_dict` raise the first error (the exception's ``errors`` attribute holds them
all); ``grader validate`` (:mod:`grader.answers.validate`) reports them all, for many files, and
checks ``expect`` against the reference. It re-exports the layers' public names, so
``from grader.cases import ...`` reaches all of them.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import gc
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grader.algorithms.assumptions import SETTINGS_FIELD as ASSUMPTIONS_FIELD
from grader.algorithms.mcts import SETTINGS_FIELD as MCTS_FIELD
from grader.cases import checked
from grader.cases.algorithms import AssumptionSettings, MctsSettings, PlaySettings
from grader.cases.builtin import BUILTIN_EXPLORE_LIMIT, build_builtin, builtin_errors
from grader.cases.fast import plain_tree_nodes
from grader.cases.rules import (
    NO_CHANCE_ALGORITHMS,
    PRUNING_ALGORITHMS,
    TWO_PLAYER_ALGORITHMS,
    field_errors,
    vector_values,
)
from grader.cases.schema import FORMS, SCHEMA_PATH, case_schema, schema_errors
from grader.cases.specs import (
    PLAYER_NAMES,
    EdgeSpec,
    NodeSpec,
    explicit_nodes,
    shorthand_id,
    shorthand_turns,
    to_nodes,
)
from grader.cases.structure import PROBABILITY_TOLERANCE, explicit_errors
from grader.cases.text import (
    JsonPath,
    ParsedText,
    case_error,
    first_error,
    format_path,
    locate,
    parse_case_text,
    place,
    read_case_text,
    sort_errors,
)
from grader.errors import CaseError
from grader.games.base import Game
from grader.games.tree import Node, TreeGame

OPAQUE_NAME = "case"  # the name and description every case has in the worker
GRADING_FIELDS = ("expect", "points", "visibility", "time_limit", "pruning")


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
    play: PlaySettings | None = None  # evaluate cases: the matches
    assumptions: AssumptionSettings | None = None  # assumptions cases: the agent, the matches
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
        """The case as a worker gets it: only what builds the game.

        Student code can read whatever the worker holds, so the case's name and description
        (a hidden case's may state its answer) become the fixed :data:`OPAQUE_NAME`, and the
        grading fields (``expect``, ``points``, ``visibility``, ``time_limit``, ``pruning``,
        how an mcts case is checked) are left out. ``algorithms`` stays: it decides whether
        leaf values are vectors.
        """
        public = {key: copy.deepcopy(value) for key, value in self.data.items()
                  if key not in GRADING_FIELDS}
        public.update(name=OPAQUE_NAME, description=OPAQUE_NAME)
        if isinstance(public.get(MCTS_FIELD), dict):
            public[MCTS_FIELD] = {key: value for key, value in public[MCTS_FIELD].items()
                                  if key in ("iterations", "seed", "c")}
        return public

    def request_case(self) -> dict[str, Any]:
        """:meth:`public_dict`, made once and kept: the same dict at every call, for a worker
        request, which only JSON-encodes it (its deep copy was a tenth of the grader's CPU a
        request), so never to be changed. Like the case's game (:attr:`_tree_nodes`), made
        from ``data`` as it was at the first call."""
        return self._request_case

    @functools.cached_property
    def _request_case(self) -> dict[str, Any]:
        return self.public_dict()

    def build_game(self) -> Game:
        """A fresh game for this case (a :class:`TreeGame`, or the built-in game)."""
        if self.game is not None:
            return build_builtin(self.data, self.file)
        nodes, root = self._tree_nodes
        with collector_paused():
            game = TreeGame(nodes, root, players=self.players, depth_limit=self.depth_limit,
                            value_bounds=self.value_bounds, max_sum=self.max_sum)
        if self.data.get("quiescence_limit") is not None:
            game.quiescence_limit = self.data["quiescence_limit"]
        return game

    @functools.cached_property
    def _tree_nodes(self) -> tuple[list[Node], str]:
        errors: list[CaseError] = []
        with collector_paused():
            specs, root = explicit_nodes(self.data, errors, self.file)
            if errors:
                raise errors[0]
            return to_nodes(specs, root, self.players, self.vector_values), root


def structure_errors(
    data: dict, file: str | None = None, *, build_builtin: bool = False,
    read: list | None = None,
) -> list[CaseError]:
    """Every structural mistake of a schema-valid case (see the module docstring).

    ``build_builtin``: also build a built-in game and explore it (what ``grader validate`` does).
    ``read``: receives an explicit game's ``(nodes, root)`` as read (see
    :func:`~grader.cases.structure.explicit_errors`).
    """
    errors = field_errors(data, file)
    if "game" in data:
        if build_builtin:
            errors.extend(builtin_errors(data, file))
        return errors
    return errors + explicit_errors(data, file, read)


def check_case(
    data: Any, file: str | None = None, *, build_builtin: bool = False,
    read: list | None = None,
) -> list[CaseError]:
    """Schema errors, else structural errors (see :func:`structure_errors`)."""
    errors = schema_errors(data, file)
    if errors:
        return errors
    return structure_errors(data, file, build_builtin=build_builtin, read=read)


def case_from_dict(data: Any, file: str | Path | None = None,
                   positions: dict[JsonPath, tuple[int, int]] | None = None) -> Case:
    """Check ``data`` and make a :class:`Case`; raise the first :class:`CaseError` otherwise."""
    file_name = str(file) if file is not None else None
    read: list = []
    with collector_paused():
        plain = plain_tree_nodes(data)
        if plain is not None:  # a big generated tree: vouched for and built in one pass
            case = case_from_checked(data, Path(file) if file is not None else None)
            case.__dict__["_tree_nodes"] = plain
            return case
        errors = check_case(data, file_name, read=read)
        if errors:
            locate(errors, positions or {})  # only now: positions may be computed on demand
            raise first_error(errors)
        case = case_from_checked(data, Path(file) if file is not None else None)
        if read:  # the game as the checks read it: converted now, not read a second time
            specs, root = read[0]
            case.__dict__["_tree_nodes"] = (
                to_nodes(specs, root, case.players, case.vector_values), root)
    return case


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic garbage collector off for a while: loading a big case makes millions of
    objects and frees almost none, so every full collection meanwhile is wasted work (most of
    the time at 10^6 nodes). Nothing but the grader's own code runs meanwhile."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def case_from_checked(data: dict, path: Path | None) -> Case:
    """A :class:`Case` from data :func:`check_case` found no error in (no checking here)."""
    settings = data.get(MCTS_FIELD, {})
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
        play=PlaySettings(**data["play"]) if isinstance(data.get("play"), dict) else None,
        assumptions=(AssumptionSettings(**data[ASSUMPTIONS_FIELD])
                     if isinstance(data.get(ASSUMPTIONS_FIELD), dict) else None),
        expect=copy.deepcopy(data.get("expect", {})),
        game=data.get("game"),
        state=copy.deepcopy(data.get("state")),
        params=copy.deepcopy(data.get("params", {})),
        data=data,
    )


def load_case(path: str | Path) -> Case:
    """Read and check one case file; raise the first :class:`CaseError` (line:column included)."""
    path = Path(path)
    text, errors = read_case_text(path)
    if text is None:
        raise first_error(errors)
    if checked.vouched(text):  # these exact bytes passed every check before, under this code
        with collector_paused():
            return case_from_checked(json.loads(text), path)
    with collector_paused():
        parsed = parse_case_text(text, str(path))
    if parsed.errors:
        raise first_error(parsed.errors)
    case = case_from_dict(parsed.data, path, parsed.positions)
    checked.remember(text)
    return case


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
            raise FileNotFoundError(f"{path}: no such case file or folder")
    return sorted(found)


def iter_cases(paths: Iterable[str | Path]) -> Iterator[Case]:
    """Load every case under ``paths`` (raising the first broken one's error)."""
    for path in find_cases(paths):
        yield load_case(path)


__all__ = [
    # this module
    "Case", "CaseMctsSettings", "case_from_checked", "case_from_dict", "check_case", "find_cases", "is_case_file",
    "iter_cases", "load_case", "structure_errors",
    # re-exported from the layers, for `from grader.cases import ...`
    "JsonPath", "ParsedText", "case_error", "first_error", "format_path", "locate",
    "parse_case_text", "place", "read_case_text", "sort_errors",  # case_text
    "FORMS", "SCHEMA_PATH", "case_schema", "schema_errors",  # case_schema
    "NO_CHANCE_ALGORITHMS", "PRUNING_ALGORITHMS", "TWO_PLAYER_ALGORITHMS", "field_errors",
    "vector_values",  # case_rules
    "PLAYER_NAMES", "EdgeSpec", "NodeSpec", "explicit_nodes", "shorthand_id", "shorthand_turns",
    "to_nodes",  # case_specs
    "PROBABILITY_TOLERANCE", "explicit_errors",  # case_structure
    "BUILTIN_EXPLORE_LIMIT", "build_builtin", "builtin_errors",  # case_builtin
]
