"""The catalogue of known mistakes: what one is, and how a variant module registers one.

:mod:`reference.mistakes` says how to add a mistake; the variants themselves are in
:mod:`reference.mistakes_minimax` (minimax, alpha-beta), :mod:`reference.mistakes_other`
(expectimax, max^n, MCTS), :mod:`reference.mistakes_deepening` (iterative deepening),
:mod:`reference.mistakes_transposition` and :mod:`reference.mistakes_quiescence`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import grader.algorithms as algorithm_specs
from reference import reference_functions

RULES = ("inclusive", "strict")
# The stubs a variant replaces, for every algorithm graded by a trace (from grader.algorithms)
STUBS = {spec.name: spec.stubs for spec in algorithm_specs.registry().values()
         if not spec.by_play}


@dataclass(frozen=True)
class Mistake:
    """One known mistake of one algorithm: its variant function and its hint."""

    name: str  # snake_case, unique per algorithm
    algorithm: str
    title: str  # a few words: "prunes only on strict inequality"
    does: str  # what code with this mistake does
    departs: str  # the line of the lecture pseudo-code it departs from
    fix: str  # what to change
    function: Callable[..., Any]
    rules: tuple[str, ...] = RULES

    def functions(self, rule: str) -> dict[str, Callable[..., Any]]:
        """The reference's function table with this variant in place of the algorithm's stubs."""
        table = reference_functions(rule)
        function = self.function
        if algorithm_specs.get(self.algorithm).course_rule:
            function = functools.partial(function, strict=rule == "strict")
        for stub in STUBS[self.algorithm]:
            table[stub] = function
        return table


CATALOGUE: list[Mistake] = []


def mistake(name: str, algorithm: str, *, title: str, does: str, departs: str, fix: str,
            rules: tuple[str, ...] = RULES) -> Callable[[Callable], Callable]:
    """Register the decorated function as the variant ``name`` of ``algorithm``."""
    if algorithm not in STUBS:
        raise ValueError(f"expected an algorithm, one of {tuple(STUBS)}, got: {algorithm!r}")
    if any(m.name == name and m.algorithm == algorithm for m in CATALOGUE):
        raise ValueError(f"mistake {name!r} of {algorithm!r} is registered twice")

    def register(function: Callable) -> Callable:
        CATALOGUE.append(Mistake(name, algorithm, title, does, departs, fix, function, rules))
        return function

    return register


def mistakes_for(algorithm: str, rule: str) -> list[Mistake]:
    """The catalogue's mistakes of ``algorithm`` under the course rule ``rule``, in order
    (the whole catalogue once :mod:`reference.mistakes` has imported the variant modules)."""
    return [m for m in CATALOGUE if m.algorithm == algorithm and rule in m.rules]


__all__ = ["CATALOGUE", "RULES", "STUBS", "Mistake", "mistake", "mistakes_for"]
