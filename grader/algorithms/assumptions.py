"""The lectures' modeling assumptions: the student's ``alpha_beta`` (or ``max_value`` /
``min_value``) and ``expectimax`` decide an agent's moves in matches of ``chase`` against an
adversarial and a random ghost, graded by exact decisions (every move the reference's), with the
lectures' 2 x 2 table as feedback (:mod:`grader.scoring.assumptions`).

Its case lists it alone, with ``assumptions`` settings (the agent, the ghosts, the seed) and the
game ``chase`` (:func:`grader.cases.rules.assumption_errors`). It calls no stub of its own:
each move asks the worker for the value of every child position with the agent's search, the
stub of the algorithm ``alpha_beta``, ``minimax`` or ``expectimax`` (so those stubs' call
conventions are theirs); no reference trace, no named mistake, no random trees.
"""

from __future__ import annotations

from grader.algorithms import Algorithm, Authoring

ALGORITHM = Algorithm(
    name="assumptions",
    order=10,
    summary="alone (graded by the moves of matches of chase: needs 'assumptions' settings)",
    stubs=(),  # none of its own: the agents call alpha_beta (or minimax) and expectimax
    graded_by="play",
    random_trees=False,
    settings="assumptions",
    case_checks="grader.cases.rules:assumption_errors",
    grade="grader.scoring.assumptions:grade_assumptions",
    sheet_lines="grader.answers.sheet:assumption_lines",
    # `grader new`'s case: chase on the shipped 5 x 5 board, the minimax agent against both
    # ghosts (the TA may change the agent to expectimax, the board, the seed, docs/cases.md)
    authoring=Authoring(fields={"game": "chase", "state": "o...o|.#.#.|..P..|.#.#.|o...G",
                                "params": {"turns": 30},
                                "assumptions": {"agent": "minimax",
                                                "opponents": ["adversarial", "random"],
                                                "seed": 0}}),
)
