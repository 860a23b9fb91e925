"""The named mistakes of a graded submission, written into its tests and its summary.

Called once by :func:`grader.scoring.grade.grade`, after every test ran: for each algorithm,
:func:`grader.feedback.verdict.diagnose_submission` weighs what the student's code did on the
graded cases of it seen with each test (below), and the one diagnosis (a mistake, or
alternatives, or nothing) goes

* into each failing test of the algorithm: its Markdown output (the hint paragraph), its summary
  line (``(likely mistake: ...)``) and ``extra_data["mistakes"]`` (the hints, for the HTML
  report);
* into the top-level output's summary (returned), and ``results.extra_data["diagnoses"]``
  (staff's, over every test).

What students see before the due date is decided on the tests they see (:func:`name_mistakes`).

Where several mistakes remain (no graded case tells them apart), the smallest random tree on
which their runs differ is shown, with what each would generate there: looked up in the table
of known sets shipped with the mistakes, searched for where the set is not there
(:mod:`grader.scoring.telling`; deterministic; staff machines and Gradescope only, where the
variants can run).

A bug here costs the student the hints only, never a score: staff get the traceback.
"""

from __future__ import annotations

import functools
import json
import traceback
from dataclasses import asdict
from typing import Any

from grader.feedback.failure import wrap
from grader.feedback.verdict import Diagnosis, Observation, diagnose_submission, summary_markdown
from grader.scoring.results import GradingResults, TestResult
from grader.scoring.telling import known_telling_tree


def name_mistakes(observed: list[tuple[TestResult, Observation]], answers: Any,
                  results: GradingResults) -> str:
    """Attach each algorithm's diagnosis to its failing tests; return the summary Markdown.

    A diagnosis is decided on the tests whose output is seen whenever its own is: for a visible
    test and the summary, the visible tests only (a hint weighed over hidden cases too told
    students a fact of them: an ``alpha_beta`` that fails like "never prunes" only when a
    hidden leaf is at least T read the largest hidden leaf off the visible hint, issue 34);
    for an ``after_due_date`` (``after_published``) test, the visible tests and those of its
    own visibility, all seen together after the due date (once published); for a ``hidden``
    test, seen by staff only, every test."""
    by_algorithm: dict[str, list[tuple[TestResult, Observation]]] = {}
    for test, observation in observed:
        by_algorithm.setdefault(test.algorithm, []).append((test, observation))
    diagnoses: dict[str, Diagnosis] = {}  # the summary's: on the visible tests
    for_staff: dict[str, Diagnosis] = {}  # on every test (extra_data, never shown to students)
    hints: dict[str, str] = {}  # the summary's paragraph, as its visible tests end with it
    for algorithm, pairs in by_algorithm.items():
        present = {test.visibility for test, _ in pairs}
        rule = pairs[0][1].rule  # the course's rule: the same on every case of the algorithm
        # scope (the visibilities seen together) -> its diagnosis, and its hint paragraph,
        # each worked out once
        found_in: dict[frozenset[str], Diagnosis | None] = {}
        hint_in: dict[frozenset[str], str] = {}

        def diagnosis_in(scope: frozenset[str]) -> Diagnosis | None:
            if scope not in found_in:
                seen = [pair for pair in pairs if pair[0].visibility in scope]
                found_in[scope] = _diagnosis(algorithm, seen, len(pairs), answers, results)
            return found_in[scope]

        def hint(scope: frozenset[str], found: Diagnosis) -> str:
            if scope not in hint_in:
                lines = found.markdown() + _apart_lines(algorithm, found, rule, results)
                hint_in[scope] = "\n".join(part for line in lines for part in wrap(line))
            return hint_in[scope]

        staff = diagnosis_in(frozenset(present))
        if staff is not None:
            for_staff[algorithm] = staff
        shown = _seen_with("visible", present)
        if diagnosis_in(shown) is not None:
            diagnoses[algorithm] = diagnosis_in(shown)
            hints[algorithm] = hint(shown, diagnoses[algorithm])
        for test, observation in pairs:
            scope = _seen_with(test.visibility, present)
            found = None if observation.passed else diagnosis_in(scope)
            if found is None:
                continue
            test.output = test.output.rstrip("\n") + "\n\n" + hint(scope, found)
            test.summary += f" (likely mistake: {found.title()})"
            test.extra_data["mistakes"] = [asdict(named) for named in found.hints]
    if for_staff:
        # "hint": the paragraph the visible failing tests end with (the terminal shows it once)
        results.extra_data["diagnoses"] = {
            name: {**found.to_dict(), **({"hint": hints[name]} if name in hints else {})}
            for name, found in for_staff.items()}
    return summary_markdown(diagnoses)


def _seen_with(visibility: str, present: set[str]) -> frozenset[str]:
    """The visibilities of the tests a student sees whenever a test of ``visibility`` is seen
    (``hidden``: staff only, who see them all)."""
    if visibility == "hidden":
        return frozenset(present)
    return frozenset({"visible", visibility})


def _diagnosis(algorithm: str, pairs: list[tuple[TestResult, Observation]], every: int,
               answers: Any, results: GradingResults) -> Diagnosis | None:
    """The diagnosis over ``pairs``, ``every`` being how many tests the algorithm has."""
    if not pairs:
        return None
    try:
        found = diagnose_submission(algorithm, [obs for _, obs in pairs], answers)
    except Exception:  # noqa: BLE001 - the grader's failure: no hint, staff told
        results.staff_notes.append(f"diagnosis of {algorithm} failed:\n"
                                   + traceback.format_exc())
        return None
    if found is not None:
        found.count_shown = not any(test.hidden for test, _ in pairs)  # hidden tests: no count
        seen = {test.visibility for test, _ in pairs}
        found.untraced = sum(  # MCTS's move checks: no trace to explain, so not in ``pairs``
            test.algorithm == algorithm and test.extra_data.get("check") == "outcome"
            and test.visibility in seen for test in results.tests)
        if found.count_shown and len(pairs) < every:
            found.seen = "visible"  # decided without the tests students cannot see yet
    return found


def _apart_lines(algorithm: str, found: Diagnosis, rule: str, results: GradingResults) -> list[str]:
    if len(found.hints) < 2:
        return []
    try:
        tree = _telling_tree(algorithm, tuple(hint.name for hint in found.hints), rule)
    except Exception:  # noqa: BLE001 - the grader's failure: no example, staff told
        results.staff_notes.append(f"telling_tree({algorithm}) failed:\n" + traceback.format_exc())
        return []
    if tree is None:
        return []
    data, runs = tree
    titles = {hint.name: hint.title for hint in found.hints}
    extras = [f"{key} {json.dumps(data[key])}" for key in ("depth_limit", "value_bounds",
                                                           "max_sum") if key in data]
    settings_ = f" ({', '.join(extras)})" if extras else ""
    lines = ["", f"A small tree that tells them apart{settings_}: {_compact(data['tree'])}. "
             "On it:"]
    lines += [f"- {titles[name]}: {outcome}" for name, outcome in runs.items()]
    return lines


def _compact(node: dict[str, Any]) -> str:
    """A tree of :func:`random_trees.case_dicts` in one line: ``A max (B = 3, C min (...))``."""
    weight = f" [p = {node['probability']:.3g}]" if "probability" in node else ""
    if "children" not in node:
        return f"{node['id']} = {json.dumps(node['value'])}{weight}"
    evaluation = f" eval {json.dumps(node['eval'])}" if "eval" in node else ""
    inner = ", ".join(_compact(child) for child in node["children"])
    return f"{node['id']} {node['player']}{evaluation}{weight} ({inner})"


@functools.lru_cache(maxsize=64)  # per set of mistakes, not per submission: computed once
def _telling_tree(algorithm: str, names: tuple[str, ...], rule: str):
    return known_telling_tree(algorithm, names, rule)


__all__ = ["name_mistakes"]
