"""What an algorithm is, in one place: one spec a module, and the registry that finds them.

Every algorithm the grader can grade is one :class:`Algorithm`, the ``ALGORITHM`` of one module
of this package (``grader/algorithms/minimax.py`` ...). Nothing else in ``grader/`` lists the
algorithms or tests an algorithm's name: the lists (``grader.cases.algorithms.ALGORITHMS`` and
its friends, the case schema's enum and per-algorithm keys, the results' test numbers, the
mistake registry's stubs, the reference's function table and decision) are derived from the
specs, and every branch asks a spec a question ("does it have a window?", "does it return a
pair?", "does it take a table?"), never a comparison of names. An algorithm a branch has
no answer for gets nothing: no step notes, no answer-sheet words, never another algorithm's.

Conventions:

* This package sits just above ``grader.games`` in the layers: the student's side (cases, run,
  sandbox) reads the specs, so a spec holds no code of ``reference/``. What only the grader's
  side needs (the reference's functions, its decision, the step replay, the mistake module) is
  an *import string*, ``"module:attribute"`` (or ``"module"``), resolved lazily by
  :func:`resolve` in ``answers``/``feedback``/``report``, which may import ``reference/``.
  ``reference/`` may read the specs (data, no answers).
* Registration: every module of this package is a built-in algorithm (found by
  :func:`built_in_modules`, nothing lists them), ordered by their specs' ``order`` (the first
  part of their tests' numbers: 1.x minimax, 2.x alpha-beta, ...). One more algorithm is
  registered without editing a file of the project: name its module in the environment
  variable ``GRADER_ALGORITHMS`` (comma-separated module names on ``sys.path``, or paths to
  ``.py`` files), each defining ``ALGORITHM``; it comes after the built-in ones, in that order.
  The sandbox worker gets the variable too (:func:`grader.sandbox.process.worker_environment`).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import pkgutil
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Literal

ENVIRONMENT = "GRADER_ALGORITHMS"  # extra spec modules, comma-separated names or .py paths

# How a case calls the algorithm's stub at its root (grader.run.runner):
#   plain       f(game, root)
#   max_depth   f(game, root, max_depth)          max_depth: the case's depth_limit
#   table       f(game, root, table)              a fresh dict, the transposition table
#   iterations  f(game, root, iterations, rng, c) the case's MCTS settings
#   positions   evaluate(game, state) on a batch of positions (graded by play)
Call = Literal["plain", "max_depth", "table", "iterations", "positions"]
# What the stub returns: a value; a (value, action) pair; the chosen action (MCTS).
Returns = Literal["value", "pair", "action"]
# Its depth limit: a case may give one, must give one (max_depth, the quiescence cutoff) or must
# not (a playout goes to the end of the game).
DepthLimit = Literal["optional", "required", "forbidden"]
# How `grader new` and `grader generate` draw a case for it (grader.cases.authoring):
#   tree            a full tree, values at the leaves
#   evals_inside    a full tree with an evaluation at every inner node, the depth limit its depth
#                   (iterative deepening cuts at every depth)
#   transpositions  a graph whose states are reached by several move orders (the table's hits)
#   noisy_last_ply  the depth limit one ply above the leaves, some moves of that ply noisy
CaseShape = Literal["tree", "evals_inside", "transpositions", "noisy_last_ply"]


@dataclass(frozen=True)
class Games:
    """The games an algorithm accepts."""

    two_player: bool = True  # False: any number of players (max^n, MCTS)
    chance: bool = False  # chance nodes allowed
    depth_limit: DepthLimit = "optional"
    vector_leaves: bool = False  # leaves hold a payoff list (max^n), even with two players
    noisy_moves: bool = False  # follows game.noisy_actions past the cutoff (quiescence_limit)


@dataclass(frozen=True)
class Authoring:
    """How a TA's new case for it is drawn (``grader new``, ``grader generate``)."""

    shape: CaseShape = "tree"
    fields: dict[str, Any] = field(default_factory=dict)  # a skeleton's fields of its own
    # A drawn case is kept when it shows the algorithm off against another one: it generates
    # fewer nodes ("generated") or answers otherwise ("answer") than ``compared_with``.
    compared_with: str | None = None
    shows: Literal["generated", "answer"] | None = None
    # an exercise asked for alpha-beta's properties (--require) lists these algorithms too, so
    # its key shows what its description claims
    listed_with: tuple[str, ...] = ()


@dataclass(frozen=True)
class Algorithm:
    """One algorithm: how it is called, what it accepts and can do, and where its parts are.

    Import strings (``reference``, ``decision``, ``steps``, ``mistakes``) are resolved by
    :func:`resolve` on the grader's side only; None means the algorithm has none, and whoever
    asks gives nothing for it (no default borrowed from another algorithm).
    """

    name: str
    order: int  # its place among the built-in ones: the first part of its tests' numbers
    stubs: tuple[str, ...]  # the student's functions it grades; a MAX/MIN pair: (max, min)
    summary: str = ""  # the case schema's words for it, after its name
    call: Call = "plain"
    returns: Returns = "value"
    games: Games = field(default_factory=Games)
    graded_by: Literal["trace", "play"] = "trace"
    window: bool = False  # feedback explains its steps by the alpha-beta window
    course_rule: bool = False  # prunes by the course's rule (inclusive or strict), else fixed
    depth_limit_why: str = ""  # why a depth limit is required or forbidden (case errors)
    fixed_rule_note: str = ""  # the schema's words when its rule is fixed ("always inclusive")
    random_trees: bool = True  # the random-tree tests can draw trees for it
    # the grader's side, by import string (None: it has none)
    reference: dict[str, str] = field(default_factory=dict)  # stub -> "module:function"
    decision: str | None = None  # "module:function"(game, state[, strict=]) -> root action
    steps: str | None = None  # "module:function"(game, mcts settings) -> the reference's moments
    step_notes: str | None = None  # how feedback words those moments: tree, playouts, search
    mistakes: str | None = None  # the module registering its catalogue's mistakes
    # the answer sheet's words: (case, its result, solve, fmt) -> (whether it prunes, lines);
    # None: no words (never another algorithm's)
    sheet_note: Callable[..., tuple[bool, list[str]]] | None = None
    view: str | None = None  # the HTML replay's extra panel: window, statistics (MCTS's), events
    points_note: str = ""  # the schema's words on its points default, when not the rubric's
    # a case's own fields: the top-level field holding its settings (play, mcts), given only
    # when it is listed; and "module:function"(data, file) -> [CaseError], the checks of a case
    # listing it beyond the generic ones (its settings, its game)
    settings: str | None = None
    case_checks: str | None = None
    # the values its settings' fields allow ("field", or "field[]" for a list's items): the
    # case schema's enums there are made from these (grader.cases.schema.with_algorithms)
    settings_values: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # graded by play: "module:function"(case, result, rubric, worker) -> TestResult, the whole
    # test (no reference trace to compare); "module:function"(case, algorithm, rubric) -> the
    # answer sheet's lines on how it plays (None: no words)
    grade: str | None = None
    # its grade function takes the answer key as a fifth argument (the staff's side of its
    # matches kept there: grader.scoring.assumptions.staff_side)
    grade_takes_key: bool = False
    sheet_lines: str | None = None
    authoring: Authoring = field(default_factory=Authoring)  # how a TA's new case is drawn
    # games (case fields) the sandbox worker loads a case of at its start, so that the case
    # path's lazy imports happen before it drops its privileges (grader.sandbox.worker)
    warm_up: tuple[dict[str, Any], ...] = ()
    cs188_agent: str | None = None  # the CS188 agent class whose .test files become its cases

    def modules(self) -> list[str]:
        """The modules its import strings name (reference, decision, steps, mistakes, case checks,
        grade, sheet lines), once each."""
        targets = [*self.reference.values(), self.decision, self.steps, self.mistakes,
                   self.case_checks, self.grade, self.sheet_lines]
        return list(dict.fromkeys(t.partition(":")[0] for t in targets if t))

    def stub_at(self, minimizing: bool) -> str:
        """The stub called at a root whose mover minimizes (``minimizing``) or not."""
        return self.stubs[1] if minimizing and len(self.stubs) > 1 else self.stubs[0]

    @property
    def returns_pair(self) -> bool:
        return self.returns == "pair"

    @property
    def takes_table(self) -> bool:
        return self.call == "table"

    @property
    def iterations(self) -> bool:
        """Called with MCTS settings (iterations, rng, c), answering with an action."""
        return self.call == "iterations"

    @property
    def by_play(self) -> bool:
        return self.graded_by == "play"


def _load(entry: str) -> Any:
    if entry.endswith(".py"):
        path = Path(entry)
        name = f"grader_algorithm_{path.stem}"
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise ValueError(f"{ENVIRONMENT}: cannot load {entry!r}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        return module
    return importlib.import_module(entry)


def built_in_modules() -> list[str]:
    """The modules of this package, each one algorithm's spec."""
    return [f"{__name__}.{info.name}" for info in pkgutil.iter_modules(__path__)
            if not info.name.startswith("_")]


def _specs(modules: list[str]) -> list[Algorithm]:
    specs = []
    for entry in modules:
        spec = getattr(_load(entry), "ALGORITHM", None)
        if not isinstance(spec, Algorithm):
            raise ValueError(f"{entry} defines no ALGORITHM (a grader.algorithms.Algorithm)")
        specs.append(spec)
    return specs


@lru_cache(maxsize=None)
def _registry(extra: str) -> dict[str, Algorithm]:
    built_in = sorted(_specs(built_in_modules()), key=lambda spec: spec.order)
    added = _specs([entry.strip() for entry in extra.split(",") if entry.strip()])
    found: dict[str, Algorithm] = {}
    for spec in built_in + added:
        if spec.name in found:
            raise ValueError(f"algorithm {spec.name!r} is registered twice")
        found[spec.name] = spec
    return found


def extra_entries() -> list[str]:
    """``GRADER_ALGORITHMS``'s entries (module names or ``.py`` paths), in order."""
    return [entry.strip() for entry in os.environ.get(ENVIRONMENT, "").split(",")
            if entry.strip()]


def extras() -> list[Algorithm]:
    """The algorithms ``GRADER_ALGORITHMS`` registers (after the built-in ones), in order."""
    return list(registry().values())[len(built_in_modules()):]


def registry() -> dict[str, Algorithm]:
    """Every registered algorithm by name: the built-in ones, then ``GRADER_ALGORITHMS``'s."""
    return _registry(os.environ.get(ENVIRONMENT, ""))


def names() -> tuple[str, ...]:
    return tuple(registry())


def get(name: str) -> Algorithm:
    """The spec of ``name``; a ValueError naming the known ones for any other."""
    try:
        return registry()[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown algorithm {name!r}; expected one of {names()}") from None


def find(name: str) -> Algorithm | None:
    """The spec of ``name``, or None (a test of no algorithm: a case that did not load)."""
    return registry().get(name) if isinstance(name, str) else None


def number(name: str) -> int:
    """The algorithm's place in the registry, from 1: the first part of its tests' numbers."""
    return names().index(name) + 1


def resolve(target: str) -> Any:
    """``"module:attribute"`` imported (``"module"``: the module)."""
    module, _, attribute = target.partition(":")
    loaded = importlib.import_module(module)
    return getattr(loaded, attribute) if attribute else loaded


__all__ = ["ENVIRONMENT", "Algorithm", "Authoring", "Games", "built_in_modules",
           "extra_entries", "extras", "find", "get", "names", "number", "registry", "resolve"]
