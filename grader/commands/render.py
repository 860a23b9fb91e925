"""``grader render CASE``: a picture of a case's tree (text, DOT, SVG or PNG), the reference's
search over it, and with ``--trace SUBMISSION`` a student's search run over that, in the worker
``grader check`` uses (:func:`grader.sandbox.portable.open_worker`: the sandbox, or the portable
worker where the platform lacks it).

The scene itself is :mod:`grader.feedback.scene`; this module only finds the answers and the run.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from grader.answers.tree_walk import (
    ReferenceMissingError,
    TreeTooLargeError,
    staff,
)
from grader.errors import CaseError, GraderError
from grader.feedback.scene import (
    PNG_INCHES,
    GraphvizNotFoundError,
    build_scene,
    render_dot,
    render_text,
    run_dot,
)

WIDE_LEAVES = 60  # leaves past which a PNG is likely scaled down (about 0.6 inch a leaf)
TRACE_TIME_LIMIT = 10.0  # seconds for the student's call: this is a picture, not a grade


def student_run(case: Any, algorithm: str, submission: str | Path) -> Any:
    """The student's run of ``algorithm`` on ``case`` (a WorkerReply), in the worker
    ``grader check`` would use here: the sandbox, or the portable one off Linux."""
    from grader.sandbox.portable import open_worker

    with open_worker(submission) as worker:
        return worker.run(case.public_dict(), algorithm, mcts=case.mcts,
                          time_limit=max(TRACE_TIME_LIMIT, case.time_limit or 0.0))


def _handout_answers() -> Any:
    """The handout's answer key (the values it draws) where ``reference/`` is missing; else
    None: the reference computes them."""
    from grader.answers.store import AnswerKey, reference_available

    return None if reference_available() else AnswerKey.default()


def render_main(case_path: str | Path, format: str = "txt", *, algorithm: str | None = None,
                trace: str | Path | None = None, out: str | Path | None = None) -> int:
    """``grader render``: 0 when drawn, 2 for a bad case or option, or a missing ``dot``."""
    from grader.cases import load_case
    from grader.cases.rubric import RubricError, load_rubric

    try:
        case = load_case(case_path)
        chosen = algorithm or (case.algorithms[0] if trace is not None else None)
        if chosen is not None and chosen not in case.algorithms:
            raise ValueError(f"{chosen} is not among the case's algorithms {case.algorithms}")
        if trace is not None and not Path(trace).exists():
            raise ValueError(f"no such submission: {str(trace)!r}")
        if chosen is not None:
            staff(None, f"drawing the reference's {chosen} run")  # fail before the student's
        theirs = student_run(case, chosen, trace) if trace is not None else None
        if theirs is not None and not theirs.ok:
            print(f"grader render: your code did not finish cleanly ({theirs.message}); "
                  "drawing what it generated before that", file=sys.stderr)
        scene = build_scene(case, chosen, None, theirs, rubric=load_rubric(),
                            answers=_handout_answers())
        text = render_text(scene) if format == "txt" else render_dot(scene)
        data = text.encode("utf-8") if format in ("txt", "dot") else run_dot(text, format)
    except TreeTooLargeError as error:
        print(f"grader render: {case_path}: {error}; render draws explicit trees and small "
              "game positions", file=sys.stderr)
        return 2
    except (CaseError, RubricError, ValueError, OSError, GraderError,
            GraphvizNotFoundError, ReferenceMissingError) as error:
        where = "" if isinstance(error, CaseError) else f"{case_path}: "  # CaseError names it
        print(f"grader render: {where}{error}", file=sys.stderr)
        return 2
    if out is None and format == "png":
        out = Path(f"{case.name}.png")
    if out is None:
        sys.stdout.write(data.decode("utf-8"))
        return 0
    Path(out).write_bytes(data)
    print(f"wrote {out}")
    parents = {node.parent for node in scene.nodes}
    leaves = sum(1 for node in scene.nodes if node.id not in parents)
    if format == "png" and leaves > WIDE_LEAVES:
        print(f"note: {leaves} leaves: the PNG is scaled down to fit {PNG_INCHES[0] * 96} x "
              f"{PNG_INCHES[1] * 96} pixels; -f svg keeps every label readable when zoomed")
    return 0
