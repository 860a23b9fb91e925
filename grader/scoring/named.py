"""The named mistakes of a graded submission, written into its tests and its summary.

Called once by :func:`grader.scoring.grade.grade`, after every test ran: for each algorithm,
:func:`grader.feedback.verdict.diagnose_submission` weighs what the student's code did on every
graded case of it, and the one diagnosis (a mistake, or alternatives, or nothing) goes

* into each failing test of the algorithm: its Markdown output (the hint paragraph), its summary
  line (``(likely mistake: ...)``) and ``extra_data["mistakes"]`` (the hints, for the HTML
  report);
* into ``results.extra_data["diagnoses"]`` and the top-level output's summary (returned).

A bug here costs the student the hints only, never a score: staff get the traceback.
"""

from __future__ import annotations

import traceback
from dataclasses import asdict
from typing import Any

from grader.feedback.failure import wrap
from grader.feedback.verdict import Diagnosis, Observation, diagnose_submission, summary_markdown
from grader.scoring.results import GradingResults, TestResult


def name_mistakes(observed: list[tuple[TestResult, Observation]], answers: Any,
                  results: GradingResults) -> str:
    """Attach each algorithm's diagnosis to its failing tests; return the summary Markdown."""
    by_algorithm: dict[str, list[tuple[TestResult, Observation]]] = {}
    for test, observation in observed:
        by_algorithm.setdefault(test.algorithm, []).append((test, observation))
    diagnoses: dict[str, Diagnosis] = {}
    for algorithm, pairs in by_algorithm.items():
        try:
            found = diagnose_submission(algorithm, [obs for _, obs in pairs], answers)
        except Exception:  # noqa: BLE001 - the grader's failure: no hint, staff told
            results.staff_notes.append(f"diagnosis of {algorithm} failed:\n"
                                       + traceback.format_exc())
            continue
        if found is None:
            continue
        found.count_shown = not any(test.hidden for test, _ in pairs)  # hidden tests: no count
        diagnoses[algorithm] = found
        for test, observation in pairs:
            if observation.passed:
                continue
            hint = [part for line in found.markdown() for part in wrap(line)]
            test.output = test.output.rstrip("\n") + "\n\n" + "\n".join(hint)
            test.summary += f" (likely mistake: {found.title()})"
            test.extra_data["mistakes"] = [asdict(hint) for hint in found.hints]
    if diagnoses:
        results.extra_data["diagnoses"] = {name: found.to_dict()
                                           for name, found in diagnoses.items()}
    return summary_markdown(diagnoses)


__all__ = ["name_mistakes"]
