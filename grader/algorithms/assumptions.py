"""The lectures' modeling assumptions: the student's ``alpha_beta`` (or ``max_value`` /
``min_value``) and ``expectimax`` decide an agent's moves in matches of ``chase`` against an
adversarial and a random ghost, graded by exact decisions (every move the reference's), with the
lectures' 2 x 2 table as feedback (:mod:`grader.scoring.assumptions`).

Its case lists it alone, with ``assumptions`` settings (the agent, the ghosts, the seed) and the
game ``chase`` (:func:`grader.cases.rules.assumption_errors`). It calls no stub of its own:
each move asks the worker for the value of every child position with the agent's search, the
stub of the algorithm ``alpha_beta``, ``minimax`` or ``expectimax`` (so those stubs' call
conventions are theirs); no reference trace, no named mistake, no random trees.

The agents' names are their algorithms' (:data:`GHOST_TYPES`), and the lectures' table of their
matches as text (:func:`table_text`) is here: the grader's side and ``reference/`` read both,
and ``grader.games.chase_matches`` plays a match for an agent it is given by name.
"""

from __future__ import annotations

from typing import Any

from grader.algorithms import Algorithm, Authoring
from grader.algorithms.alpha_beta import ALGORITHM as ALPHA_BETA
from grader.algorithms.expectimax import ALGORITHM as EXPECTIMAX
from grader.algorithms.minimax import ALGORITHM as MINIMAX
from grader.games.chase_matches import GHOSTS

# One name for its settings (agent, opponents, seed, ...): the case file's field, the ``Case``
# attribute, the rubric's table, and the key of its test's ``extra_data``.
SETTINGS_FIELD = "assumptions"

# The agents, each named by the algorithm its moves are searched with, and its model of the
# ghost (the type of the ghost's nodes): the minimax agent assumes an adversary (MIN), the
# expectimax agent a ghost moving at random (CHANCE, uniform). In this order: the table's rows.
GHOST_TYPES = {MINIMAX.name: "min", EXPECTIMAX.name: "chance"}
AGENTS = tuple(GHOST_TYPES)
# The minimax agent's search: alpha_beta's (the default) or minimax's max_value / min_value.
SEARCHES = (ALPHA_BETA.name, MINIMAX.name)


def agent_algorithm(agent: str, search: str) -> str:
    """The algorithm whose student function decides ``agent``'s moves: expectimax's for the
    expectimax agent, ``search`` for the minimax agent: its settings' choice of alpha_beta's
    (the default) or minimax's (``max_value`` / ``min_value``)."""
    return EXPECTIMAX.name if agent == EXPECTIMAX.name else search


ALGORITHM = Algorithm(
    name="assumptions",
    order=10,
    summary="alone (graded by the moves of matches of chase: needs 'assumptions' settings)",
    stubs=(),  # none of its own: the agents call alpha_beta (or minimax) and expectimax
    graded_by="play",
    random_trees=False,
    settings=SETTINGS_FIELD,
    settings_values={"agent": AGENTS, "opponents[]": GHOSTS, "search": SEARCHES},
    case_checks="grader.cases.rules:assumption_errors",
    grade="grader.scoring.assumptions:grade_assumptions",
    grade_takes_key=True,  # the reference's table, searches and ghost moves: the answer key's
    sheet_lines="grader.answers.sheet:assumption_lines",
    # `grader new`'s case: chase on the shipped 5 x 5 board, the minimax agent against both
    # ghosts (the TA may change the agent to expectimax, the board, the seed, docs/cases.md)
    authoring=Authoring(fields={"game": "chase", "state": "o...o|.#.#.|..P..|.#.#.|o...G",
                                "params": {"turns": 30},
                                SETTINGS_FIELD: {"agent": MINIMAX.name,
                                                 "opponents": ["adversarial", "random"],
                                                 "seed": 0}}),
)


# --- the lectures' 2 x 2 table (rows: agents; columns: ghosts), as text ---------------------

AGENT_NAMES = {MINIMAX.name: "Minimax agent", EXPECTIMAX.name: "Expectimax agent"}
GHOST_NAMES = {"adversarial": "adversarial ghost", "random": "random ghost"}  # GHOSTS' words


def cell(stats: dict[str, Any] | None) -> str:
    """``won 3/4, avg 379.0`` (``-`` when the pairing was not played)."""
    if not stats:
        return "-"
    return f"won {stats['won']}/{stats['matches']}, avg {stats['average']:.1f}"


def table_text(reference: dict[str, dict[str, Any]],
               student: dict[str, dict[str, Any]] | None = None) -> str:
    """The 2 x 2 table as Markdown; ``reference[agent][ghost]`` and ``student[agent][ghost]``
    hold ``won``, ``matches``, ``average``. With ``student``, each ghost has two columns, the
    student's agent and the reference's (``-``: not played); then the sentence on what the
    table shows. Rows stay under 100 columns (a terminal prints them as they are)."""
    ghosts = [g for g in GHOST_NAMES if any(g in row for row in reference.values())]
    if student is None:
        head = [GHOST_NAMES[g] for g in ghosts]
    else:
        head = [words for g in ghosts for words in (f"{GHOST_NAMES[g]}: yours", "reference")]
    lines = ["| | " + " | ".join(head) + " |", "|---|" + "---|" * len(head)]
    for agent in AGENT_NAMES:
        if agent not in reference and not (student and agent in student):
            continue
        cells = []
        for ghost in ghosts:
            ref = reference.get(agent, {}).get(ghost)
            if student is not None:
                cells += [short_cell(student.get(agent, {}).get(ghost)), short_cell(ref)]
            else:
                cells.append(cell(ref))
        lines.append(f"| {AGENT_NAMES[agent]} | " + " | ".join(cells) + " |")
    if student is not None:
        lines.append("\nEach cell: matches won, average score.")
    sentence = lesson(reference)
    return "\n".join(lines) + ("\n\n" + sentence if sentence else "")


def short_cell(stats: dict[str, Any] | None) -> str:
    """``3/4, 379.0`` (``-`` when the pairing was not played)."""
    if not stats:
        return "-"
    return f"{stats['won']}/{stats['matches']}, {stats['average']:.1f}"


def lesson(table: dict[str, dict[str, Any]]) -> str:
    """One sentence or two on what ``table`` shows (optimism, pessimism), from its numbers."""
    parts = []
    minimax, expectimax = table.get(MINIMAX.name, {}), table.get(EXPECTIMAX.name, {})
    if "random" in minimax and "random" in expectimax:
        m, e = minimax["random"]["average"], expectimax["random"]["average"]
        if e > m:
            parts.append(f"Against the random ghost the expectimax agent scores more on average "
                         f"({e:.1f} against {m:.1f}): assuming the worst of a ghost that moves "
                         "at random is needlessly pessimistic.")
        else:
            parts.append(f"Against the random ghost the minimax agent scores as much or more on "
                         f"average ({m:.1f} against {e:.1f}) on these matches.")
    if "adversarial" in minimax and "adversarial" in expectimax:
        m, e = minimax["adversarial"]["won"], expectimax["adversarial"]["won"]
        n = minimax["adversarial"]["matches"]
        if m >= e:
            parts.append(f"Against the adversarial ghost the minimax agent wins at least as "
                         f"often ({m}/{n} against {e}/{n}): assuming chance of a ghost that "
                         "hunts you is dangerously optimistic.")
        else:
            parts.append(f"Against the adversarial ghost the expectimax agent won more often "
                         f"({e}/{n} against {m}/{n}) on these matches.")
    return " ".join(parts)
