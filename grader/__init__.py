"""Autograder for adversarial search.

Data flows one way through the package:

    cases (JSON) -> games (model) -> tracing / sandbox (runs) -> compare -> scoring -> report

Students only ever import :mod:`grader.games` (for ``MAX``, ``MIN`` and ``CHANCE``).
"""

from grader.games.base import CHANCE, MAX, MIN

__all__ = ["MAX", "MIN", "CHANCE"]
