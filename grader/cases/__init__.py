"""Cases: what is graded. A JSON case file read and checked, the course's rubric, the algorithm
names.

Owns: the case text with positions (:mod:`.text`; what to say about a JSON syntax error:
:mod:`.json_hints`), the schema (:mod:`.schema`), field rules
(:mod:`.rules`), explicit game specs (:mod:`.specs`), graph structure (:mod:`.structure`),
built-in game positions (:mod:`.builtin`), the fast path for big plain trees (:mod:`.fast`),
loading (:mod:`.load`: :class:`Case`,
:func:`load_case`), the rubric (:mod:`.rubric`), the algorithm names and MCTS call settings
(:mod:`.algorithms`), writing case files (:mod:`.authoring`) and reading CS188's ``.test``
files (:mod:`.cs188`).

May import: :mod:`grader.games`, :mod:`grader.errors`, :mod:`grader.paths`, :mod:`grader.files`.

``from grader.cases import load_case`` (and every name :mod:`.load` exports) works; the names
are looked up on first use, so code that needs only :mod:`.algorithms` (the sandbox worker, the
reference) does not load the JSON Schema machinery.
"""

from __future__ import annotations

import importlib
from typing import Any


def __getattr__(name: str) -> Any:
    load = importlib.import_module("grader.cases.load")
    if name in load.__all__:
        return getattr(load, name)
    raise AttributeError(f"module 'grader.cases' has no attribute {name!r}")
