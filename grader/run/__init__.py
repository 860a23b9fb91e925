"""Run: one search on one game, traced. The same code serves the reference (in the grader's
process), the student (inside the sandbox worker) and the known-mistake variants.

Owns: the tracing wrapper that records ``generated`` and ``evaluated`` and enforces a work
budget (:mod:`.tracing`), calling a function table's algorithm at a game's root
(:mod:`.runner`: :func:`run_algorithm`, :class:`RunResult`), the calibration workload that
times a machine (:mod:`.calibration`) and a trace's ids packed for the wire and the answer key
(:mod:`.packing`).

May import: :mod:`grader.cases` (algorithm names only), :mod:`grader.games`, :mod:`grader.errors`.
"""
