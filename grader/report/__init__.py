"""Report: graded results written for people and platforms. Reads :mod:`grader.scoring`'s
results model; nothing here decides a score.

Owns: the terminal report of ``grader check`` (:mod:`.terminal`), Gradescope's
``results.json`` (:mod:`.gradescope`) and the HTML replay report (:mod:`.html`).

May import: :mod:`grader.scoring` and everything below it.
"""
