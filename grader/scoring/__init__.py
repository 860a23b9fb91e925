"""Scoring: a submission graded. Every (case, algorithm) pair becomes a test with a score.

Owns: the one results model (:mod:`.results`: :class:`TestResult`, :class:`GradingResults`),
the grading loop (:mod:`.grade`: reference answers, the sandboxed run, comparison, score,
feedback), each test's work budget (:mod:`.budget`), the named mistakes written into the
tests once every test ran (:mod:`.named`) and the random-tree tests that shrink a failure
(:mod:`.random_trees`).

May import: :mod:`grader.feedback`, :mod:`grader.compare`, :mod:`grader.sandbox`,
:mod:`grader.answers`, :mod:`grader.run`, :mod:`grader.cases`, the shared modules.
"""
