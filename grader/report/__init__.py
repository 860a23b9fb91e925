"""Report: graded results written for people and platforms. Reads :mod:`grader.scoring`'s
results model; nothing here decides a score.

Owns: the terminal report of ``grader check`` (:mod:`.terminal`), the platforms' result files
(:mod:`.formats` chooses among Gradescope's ``results.json`` (:mod:`.gradescope`),
PrairieLearn's (:mod:`.prairielearn`), JUnit XML (:mod:`.junit`) and GitHub Classroom's
(:mod:`.classroom`)) and the HTML replay report (:mod:`.html`).

May import: :mod:`grader.scoring` and everything below it.
"""
