"""Backed-up values: a node's exact value from its children's, by the reference's rules.

Staff-only: with a walk over the tree (:func:`grader.answers.sheet.walk` takes this rule from
here) it is a whole minimax / expectimax / max^n, so it is never shipped to students. The
answer key's node table, ``grader render``'s values and ``grader generate``'s tie test read it.

The rules (the same as :mod:`reference.minimax`, :mod:`reference.expectimax` and
:mod:`reference.maxn` without pruning, so every node's value is exact):

* MAX takes the largest child value, MIN the smallest (values are MAX's payoff);
* a chance node the probability-weighted sum, added up in outcome order (as the reference
  sums, so floats agree to the last bit);
* in max^n (vector values) the mover takes the child whose vector has the largest entry for
  that mover;
* ties keep the first child.
"""

from __future__ import annotations

from typing import Any

from grader.games.base import CHANCE, MAX


def back_up(player: Any, values: list[Any], probabilities: list[Any]) -> Any:
    """The value of a node where ``player`` moves, from its children's ``values`` in search
    order (``probabilities``: each outcome's, at a chance node; ignored elsewhere)."""
    if not values:
        raise ValueError(f"back_up: expected the values of one child or more, got none "
                         f"(player {player!r})")
    if player == CHANCE:
        total = 0
        for p, value in zip(probabilities, values):
            total += p * value
        return total
    if isinstance(values[0], tuple):
        return max(values, key=lambda v: v[player])  # max() keeps the first of equal keys
    return max(values) if player == MAX else min(values)


__all__ = ["back_up"]
