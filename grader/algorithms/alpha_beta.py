"""Alpha-beta: ``alpha_beta(game, state)``, two players, no chance, the course's pruning rule.

Its feedback explains a step by the alpha-beta window (:func:`grader.feedback.drawing.window_note`),
the report shows the rule a student's search follows, and the HTML replay draws the window.
"""

from __future__ import annotations

from grader.algorithms import Algorithm

ALGORITHM = Algorithm(
    name="alpha_beta",
    order=2,
    stubs=("alpha_beta",),
    window=True,
    course_rule=True,
    reference={"alpha_beta": "reference.alpha_beta:alpha_beta"},
    decision="reference.alpha_beta:alpha_beta_decision",
    mistakes="reference.mistakes_minimax",
    view="window",
)
