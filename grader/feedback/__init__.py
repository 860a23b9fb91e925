"""Feedback: what a failing test tells the student.

Owns: the tree drawn as text with both searches (:mod:`.drawing`), the failure report of one
test (:mod:`.failure`), the catalogue's variants run and matched on one case
(:mod:`.diagnosis`), the one diagnosis of a whole submission's algorithm (:mod:`.verdict`), the
step explanation at the first difference (:mod:`.explain`), the tree as a scene for Graphviz
and the HTML report (:mod:`.scene`), student text made safe for Markdown and results.json
(:mod:`.markdown`: fences, NUL and surrogate cleaning), the nodes move ordering saves
(:mod:`.deepening`) and the nodes a transposition table saves (:mod:`.savings`).

May import: :mod:`grader.compare`, :mod:`grader.answers`, :mod:`grader.run`,
:mod:`grader.cases`, :mod:`grader.games`, the shared modules, and ``reference/`` (the
catalogue of mistakes and the step replays of ``reference/steps.py``, lazily).
"""
