"""The evaluation function: ``evaluate(game, state)``, graded by play, not by a trace.

The grader's search plays matches and calls the student's function at its depth cutoff
(:mod:`grader.scoring.play`): no reference answer, no trace, no named mistake; its case lists it
alone, with ``play`` settings and a built-in game with a board.
"""

from __future__ import annotations

from grader.algorithms import Algorithm, Authoring

ALGORITHM = Algorithm(
    name="evaluate",
    order=7,
    summary="alone (graded by play: needs 'play' and game connect4 or mnk)",
    stubs=("evaluate",),
    call="positions",
    graded_by="play",
    random_trees=False,
    points_note=" (default: the rubric's [play] thresholds x threshold_points)",
    settings="play",
    case_checks="grader.cases.rules:play_errors",
    grade="grader.scoring.play:grade_play",
    sheet_lines="grader.answers.sheet:play_lines",
    # `grader new`'s case: Connect Four 6 x 7 against the greedy opponent
    authoring=Authoring(fields={"game": "connect4",
                                "params": {"rows": 6, "columns": 7, "connect": 4},
                                "play": {"opponent": "greedy", "seed": 0}}),
)
