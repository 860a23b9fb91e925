"""Answers: what the reference says about a case. Staff-side: ``reference/`` is imported here
and only here (lazily), so the handout, which has no ``reference/``, reads the same answers from
the key file instead.

Owns: solving a case with the reference (:mod:`.solve`), the cached answers and the handout's
key (:mod:`.store`: :class:`AnswerKey`), the tree walked with its backed-up values
(:mod:`.tree_walk`), the Markdown answer sheet (:mod:`.sheet`) and checking case files whole,
a TA's pinned ``expect`` against the reference included (:mod:`.validate`).

May import: :mod:`grader.run`, :mod:`grader.cases`, :mod:`grader.games`, the shared modules,
and ``reference/``.
"""
