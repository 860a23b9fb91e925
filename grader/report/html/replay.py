"""One failing test's replay: everything its section of the page shows, as a :class:`CaseReplay`.

:func:`build_replay` takes the test's ``extra_data["replay"]`` (both ``generated`` sequences, put
there by :func:`grader.scoring.grade.grade_pair`), finds the first difference, draws the picture
(:mod:`grader.report.html.picture`), builds both step-throughs (:mod:`grader.report.html.steps`,
:mod:`grader.report.html.mcts`), the step explanation at the first difference and the mistakes
named for the whole submission.
"""

from __future__ import annotations

import math
from dataclasses import astuple, dataclass, field
from typing import Any

import grader.algorithms as algorithm_specs
from grader.compare import diff_sequence
from grader.feedback.diagnosis import Hint
from grader.feedback.drawing import window_note
from grader.feedback.explain import cached_steps, step_note
from grader.report.html.mcts import mcts_iterations, mcts_side
from grader.report.html.picture import tree_svg
from grader.report.html.steps import (
    Side,
    TreeIndex,
    inferred_side,
    reference_moments,
    window_side,
    with_search_events,
)
from grader.run.runner import RunResult
from grader.scoring.results import TestResult


@dataclass
class CaseReplay:
    """Everything the page shows for one failing test with replay data."""

    test: TestResult
    case: Any
    rule: str
    expected: dict[str, Any]
    got: dict[str, Any]
    first: int | None  # 1-based step of the first difference of ``generated``
    ref: Side
    yours: Side
    svg: str = ""
    picture_note: str = ""
    window: str | None = None
    hints: list[Any] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    iterations: tuple[list[Any], list[Any]] | None = None  # MCTS: per-iteration stats, both


def _scene(case: Any, algorithm: str, rule: str, expected: list[str], got: list[str],
           answers: Any = None):
    """(scene, note): the tree data from grader.feedback.scene (its values and cuts from ``answers``
    where ``reference/`` is missing), or None and why not."""
    try:
        from grader.feedback.scene import (
            build_scene,  # needs grader.answers.solve, which may need reference/
        )
    except ImportError:
        return None, "The tree picture is not available in this installation."
    try:
        scene = build_scene(case, algorithm, RunResult(None, expected), RunResult(None, got),
                            pruning=rule, answers=answers)
    except Exception as error:  # noqa: BLE001 - TreeTooLargeError, a built-in game's shape
        return None, f"The tree is not drawn: {error}."
    return scene, ""


def build_replay(test: TestResult, case: Any, replay: dict[str, Any], answers: Any) -> CaseReplay:
    """The replay of one failing test; ``answers``: an :class:`~grader.answers.store.AnswerKey` (the
    hints and the reference's windows come from it)."""
    algorithm, rule = test.algorithm, replay.get("rule") or "inclusive"
    expected, got = replay["expected"], replay["got"]
    ref_ids, got_ids = list(expected["generated"]), list(got["generated"])
    diff = diff_sequence("generated", ref_ids, got_ids)
    first = None if diff.equal else diff.first_difference + 1
    scene, picture_note = _scene(case, algorithm, rule, ref_ids, got_ids, answers)
    index = TreeIndex.from_scene(scene) if scene is not None else None
    total = max(len(ref_ids), len(got_ids))
    iterations, moments = None, None
    view = algorithm_specs.get(algorithm).view
    if view == "window":
        ref, yours, notes, moments = _alpha_beta_sides(case, rule, ref_ids, got_ids, index, answers)
    elif view == "statistics":
        ref, yours, notes, iterations = _mcts_sides(case, ref_ids, got_ids)
    else:
        known = index is not None and None not in index.value.values()  # handout: in the key?
        ref = inferred_side(ref_ids, total, index, values=known)
        if view == "events":  # the table's hits and stores, the stand pats
            ref = with_search_events(ref, cached_steps(case, algorithm, rule, answers))
        yours = inferred_side(got_ids, total, index, values=False)
        notes = [_values_note(case)] if known else []
    result = CaseReplay(test, case, rule, expected, got, first, ref, yours,
                        picture_note=picture_note, notes=notes, iterations=iterations)
    if scene is not None:
        prefix = "t" + test.number.replace(".", "-")
        result.svg = tree_svg(scene, ref_ids, got_ids, first, prefix=prefix)
    if moments is not None and first is not None:
        result.window = window_note(case, rule, ref_ids, got_ids,
                                    moments=[astuple(m) for m in moments])
    elif view != "window" and first is not None:
        result.window = _step_note(case, algorithm, rule, expected, got, answers)
    result.hints = _hints(test)
    return result


def _alpha_beta_sides(case: Any, rule: str, ref_ids: list[str], got_ids: list[str],
                      index: TreeIndex | None, answers: Any):
    """(reference side, student side, notes, the reference's moments or None)."""
    total, notes = max(len(ref_ids), len(got_ids)), []
    moments = reference_moments(case, rule, ref_ids, answers)
    if moments is None:
        ref = inferred_side(ref_ids, total, index, values=False)
        notes.append("The reference's window is not available for this case.")
    else:
        ref = window_side(ref_ids, total, moments, rule == "strict")
    for each in (rule, "strict" if rule == "inclusive" else "inclusive"):
        theirs = reference_moments(case, each, got_ids, answers)
        if theirs is not None:
            notes.append(f"Your trace is exactly the {each} rule's alpha-beta, so the windows "
                         "shown for yours are that rule's.")
            return ref, window_side(got_ids, total, theirs, each == "strict"), notes, moments
    notes.append("Your alpha/beta window is not shown: a trace alone does not say what your "
                 "window was (yours matches neither rule's alpha-beta). Only the reference's "
                 "window is shown.")
    return ref, inferred_side(got_ids, total, index, values=False), notes, moments


def _mcts_sides(case: Any, ref_ids: list[str], got_ids: list[str]):
    """(reference side, student side, notes, per-iteration statistics of both)."""
    settings = getattr(case, "mcts", None)
    count, c = getattr(settings, "iterations", 100), getattr(settings, "c", math.sqrt(2))
    total = max(len(ref_ids), len(got_ids))
    rebuilt, notes = [], []
    for ids in (ref_ids, got_ids):
        try:
            rebuilt.append(mcts_iterations(case.build_game(), ids, count, c))
        except ImportError:  # the handout: no reference/, no statistics
            return (*(mcts_side(ids, total, [], []) for ids in (ref_ids, got_ids)),
                    ["The root's statistics after each iteration are not available here."],
                    ([], []))
        except Exception as error:  # noqa: BLE001 - e.g. a game MCTS cannot take
            rebuilt.append(([], [], f"the iterations could not be rebuilt: {error}"))
    if rebuilt[1][2]:
        notes.append(f"Your statistics are not shown: they cannot be rebuilt from your trace, "
                     f"which departs from UCT's convention ({rebuilt[1][2]}). Iterations that "
                     "generate nothing leave no mark in a trace.")
        rebuilt[1] = ([], [], "")
    else:
        notes.append("Your statistics are rebuilt from your trace by UCT's convention, which "
                     "your whole trace follows.")
    if rebuilt[0][2]:
        notes.append(f"The reference's statistics could be rebuilt only in part: {rebuilt[0][2]}.")
    ref, yours = (mcts_side(ids, total, *r[:2]) for ids, r in zip((ref_ids, got_ids), rebuilt))
    return ref, yours, notes, (rebuilt[0][1], rebuilt[1][1])


def _values_note(case: Any) -> str:
    pruned = getattr(case, "value_bounds", None) is not None or (
        getattr(case, "max_sum", None) is not None)
    cut = (" (where it pruned, a cut child's exact value stands in for the bound it returned)"
           if pruned else "")
    return (f"The reference's values so far: each child counts with its exact value once the "
            f"search has left it{cut}. Yours are not shown: a trace does not carry the values "
            "your code computed.")


def _hints(test: TestResult) -> list[Hint]:
    """The mistakes named for the whole submission (``extra_data["mistakes"]``, written by
    :mod:`grader.scoring.named`): never recomputed from this one case, which alone may fit a
    mistake the other cases rule out."""
    try:
        return [Hint(**hint) for hint in (test.extra_data or {}).get("mistakes") or []]
    except TypeError:  # a results.json from another version: no hint is better than a wrong one
        return []


def _step_note(case: Any, algorithm: str, rule: str, expected: dict[str, Any],
               got: dict[str, Any], answers: Any) -> str | None:
    """The step explanation at the first difference (from the answer key's moments)."""
    try:
        return step_note(case, algorithm, rule, RunResult(expected.get("value"),
                                                          list(expected["generated"])),
                         RunResult(got.get("value"), list(got["generated"])), answers)
    except Exception:  # noqa: BLE001 - no explanation is better than no report
        return None
