"""The evaluation function: ``evaluate(game, state)``, graded by play, not by a trace.

The grader's search plays matches and calls the student's function at its depth cutoff
(:mod:`grader.scoring.play`): no reference answer, no trace, no named mistake; its case lists it
alone, with ``play`` settings and a built-in game with a board.
"""

from __future__ import annotations

from grader.algorithms import Algorithm

ALGORITHM = Algorithm(
    name="evaluate",
    order=7,
    summary="alone (graded by play: needs 'play' and game connect4 or mnk)",
    stubs=("evaluate",),
    call="positions",
    graded_by="play",
    random_trees=False,
    points_note=" (default: the rubric's [play] thresholds x threshold_points)",
)
