"""Regrading a Gradescope export: many submissions, in parallel, across machines.

Owns reading an export (:mod:`.export`: the submissions and who sent them), the summary of a
results.json and ``scores.csv`` (:mod:`.scores`), the process pool that grades submissions
(:mod:`.pool`: the one place a submission is graded, :func:`.pool.grade_submission`), and the
shares of a sharded run and their merging (:mod:`.shards`), and the class report of a batch's
output (:mod:`.classreport`). ``grader batch`` (:mod:`grader.commands.batch`) puts them
together.

Sits between :mod:`grader.commands` and :mod:`grader.report`: imports report, scoring and
everything below them; nothing below imports it.
"""
