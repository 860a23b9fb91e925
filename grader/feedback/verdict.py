"""One diagnosis per algorithm: the known mistakes that explain a whole submission.

A mistake is named only when its variant (:mod:`grader.feedback.diagnosis`; one coding of it,
the same on every case) reproduces what the student's code did on *every* graded case of that
algorithm, the passing cases included: the same value, traces and observed state (a
transposition table's summary) where the student's code returned (on a passing case, the
reference's), or the same kind of failure where it did not (an exception: a variant that
raised; a time-out or a stopped search: a variant past the node budget). A search that never
prunes cannot pass the cases where pruning matters, so "never prunes" is not named for a
student who passed them.

Several consistent variants are named together, as alternatives (no graded case tells them
apart: each gives the student's run on every one); none consistent names nothing, and the
step explanation at the first difference (:mod:`grader.feedback.explain`) is all the student
gets. Cases without a trace to compare (MCTS ``outcome`` checks) are no evidence either way.
A submission where some test of the algorithm is not implemented, missing or failed to import
gets no diagnosis for it.

The variants' runs come from the answer key (:func:`grader.feedback.diagnosis.cached_runs`),
under the course's rule for the algorithm on every case (a student's code has one rule, which
the case cannot change); a key without them (a handout built before this) means no diagnosis.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from grader.errors import GraderError
from grader.feedback.diagnosis import Hint, cached_runs, diagnosable, hint_of, reproduces
from grader.run.runner import RunResult

# A student's outcome without a run, and the variant status that is the same kind of failure.
FAILURE_KINDS = {"error": "raised", "timeout": "budget", "budget": "budget"}


@dataclass(frozen=True)
class Observation:
    """One graded test: the case, the course's rule, and what the student's code did there
    (``got``: its run; None with ``outcome`` naming the failure)."""

    case: Any
    rule: str
    passed: bool
    got: RunResult | None = None
    outcome: str = "passed"


@dataclass
class Diagnosis:
    """The known mistakes consistent with every graded case of ``algorithm``."""

    algorithm: str
    hints: list[Hint] = field(default_factory=list)
    cases: int = 0  # the graded cases it rests on
    count_shown: bool = True  # False where hidden tests are among them: their number is not told
    seen: str = "graded"  # "visible" when decided on the visible tests alone (hidden ones exist)
    untraced: int = 0  # graded cases with no trace to explain (MCTS's move checks over seeds)

    def title(self) -> str:
        """The titles, as alternatives: ``"never prunes"``, ``"a, or b"``."""
        return ", or ".join(hint.title for hint in self.hints)

    def markdown(self) -> list[str]:
        """The hints as Markdown lines (one paragraph a hint)."""
        lines: list[str] = []
        every = (f"every {self.seen} {self.algorithm} case" if not self.count_shown
                 else f"the one {self.seen} {self.algorithm} case" if self.cases == 1
                 else f"all {self.cases} {self.seen} {self.algorithm} cases")
        if self.untraced:  # the student sees more tests than the diagnosis rests on: say why
            every += (f" whose trace is compared (not the {self.untraced} that check only the "
                      "move chosen)" if self.count_shown else " whose trace is compared")
        if len(self.hints) > 1:
            lines += [f"Your code behaves like each of {len(self.hints)} known mistakes on "
                      f"{every} (value and traces); no graded case tells them apart, so check "
                      "for each:", ""]
        for index, hint in enumerate(self.hints):
            if index:
                lines.append("")
            lines += hint.markdown()
        if len(self.hints) == 1:
            lines.append(f"- Why this one: it gives exactly your run on {every}, the passing "
                         "ones included.")
        return lines

    def to_dict(self) -> dict[str, Any]:
        return {"algorithm": self.algorithm, "cases": self.cases,
                "mistakes": [hint.name for hint in self.hints], "title": self.title()}


def consistent(run: dict[str, Any], observation: Observation) -> bool:
    """Whether the stored variant ``run`` did on the case what the student's code did."""
    if observation.got is None:
        return run.get("status", "ran") == FAILURE_KINDS.get(observation.outcome)
    return reproduces(run, observation.got)


def diagnose_submission(algorithm: str, observations: list[Observation],
                        answers: Any) -> Diagnosis | None:
    """The mistakes of ``algorithm`` whose variants reproduce every observation; None when
    nothing failed, when some failure is of a kind no variant models, or when no variant fits."""
    evidence = [item for item in observations if diagnosable(item.case, algorithm)]
    if not evidence or all(item.passed for item in evidence):
        return None
    if any(item.got is None and item.outcome not in FAILURE_KINDS for item in evidence):
        return None
    # (name, coding): a student's code is one coding of a mistake, the same on every case
    codings: list[tuple[str, int]] | None = None
    runs_by_name: dict[str, dict[str, Any]] = {}
    for item in evidence:
        try:
            runs = cached_runs(item.case, algorithm, item.rule, answers)
        except GraderError:  # a handout key without the variants: no whole picture
            return None
        fits = [(run["name"], run.get("form", 0)) for run in runs if consistent(run, item)]
        codings = fits if codings is None else [pair for pair in codings if pair in fits]
        runs_by_name.update({run["name"]: run for run in runs})
        if not codings:
            return None
    names = list(dict.fromkeys(name for name, _ in codings or []))
    hints = [hint_of(runs_by_name[name]) for name in names]
    return Diagnosis(algorithm, hints, len(evidence)) if hints else None


def summary_markdown(diagnoses: dict[str, Diagnosis]) -> str:
    """The submission's summary: one line per algorithm with a named mistake."""
    if not diagnoses:
        return ""
    seen = "visible" if any(found.seen == "visible" for found in diagnoses.values()) else "graded"
    lines = [f"**Likely mistakes** (each explains every {seen} case of its algorithm):"]
    for algorithm, found in diagnoses.items():
        names = ", ".join(f"`{hint.name}`" for hint in found.hints)
        lines.append(f"- {algorithm}: {found.title()} ({names})")
    return "\n".join(lines)


__all__ = ["FAILURE_KINDS", "Diagnosis", "Observation", "consistent", "diagnose_submission",
           "summary_markdown"]
