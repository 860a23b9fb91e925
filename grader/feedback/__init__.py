"""Feedback: what a failing test tells the student.

Owns: the tree drawn as text with both searches (:mod:`.drawing`), the failure report of one
test (:mod:`.failure`), named mistakes from the catalogue's variants (:mod:`.diagnosis`; for searches stopped by
their work budget, :mod:`.budget_hints`) and
the tree as a scene for Graphviz and the HTML report (:mod:`.scene`).

May import: :mod:`grader.compare`, :mod:`grader.answers`, :mod:`grader.run`,
:mod:`grader.cases`, :mod:`grader.games`, the shared modules, and ``reference/`` (the
catalogue of mistakes, lazily).
"""
