"""Positions the staff's play search asks: ``python bench/search_order.py [--probes N ...]
[--evaluations NAME ...]``.

For each evaluation of :mod:`bench.evaluations` (default: all ten; the correct solution's values
are ``weighted``'s), grades it on the bundled ``evaluate`` cases in this process and a worker,
recording each decision of the player under test (game, position and depth: a spy on
:func:`reference.play.search`); then searches every decision again in this process with the
evaluation's values computed here, once with each ``PROBES`` value given (default 3, 4 and 5),
and counts the positions and the rounds each asks. Beside them: a search of the whole cutoff
(one round a move) and about the least a perfect order would ask (the best child searched in
full, every other child refuted by one probe). Every search's moves are checked equal to the
recorded ones (an order must never change a move: a difference ends the run).

Counts, not seconds: a change to the search's order (``reference/play_search.py``) is judged
here by positions and rounds, which the machine's load does not move, before
``bench/play.py --paired`` says what it saves in CPU. The matches played are the ones the
grade played (``[play] stop_when_decided`` as the rubric says), so every ``PROBES`` value is
counted on the same decisions.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench import evaluations  # noqa: E402
from grader.cases.rubric import load_rubric  # noqa: E402
from grader.scoring.grade import grade  # noqa: E402
from reference import play, play_search  # noqa: E402

CORRECT = REPO / "tests" / "submissions" / "correct" / "search.py"
Decision = tuple[Any, Any, int, Any]  # game, position, depth, the move the grade made


def recorded_decisions(name: str) -> list[Decision]:
    """The decisions of a grade of evaluation ``name`` on the bundled ``evaluate`` cases."""
    decisions: list[Decision] = []
    searching = play.search

    def spy(game: Any, state: Any, depth: int, probes: int | None = None) -> Any:
        decision = yield from searching(game, state, depth, probes)
        decisions.append((game, state, depth, decision.action))
        return decision

    paths = sorted((REPO / "trees").glob("*/evaluate-*.json"))
    with tempfile.TemporaryDirectory() as folder:
        submission = Path(folder) / "search.py"
        submission.write_text(evaluations.submission(name, CORRECT.read_text()))
        play.search = spy  # type: ignore[assignment]
        try:
            grade(submission, paths, rubric=load_rubric())
        finally:
            play.search = searching  # type: ignore[assignment]
    return decisions


def counted(decisions: list[Decision], evaluate: Callable[[Any, Any], float],
            search: Callable[..., Any]) -> tuple[int, int]:
    """(positions, rounds) ``search(game, state, depth)`` asks over ``decisions``, values from
    ``evaluate``; SystemExit where a move differs from the recorded one."""
    positions = rounds = 0
    for game, state, depth, action in decisions:
        running = search(game, state, depth)
        try:
            asked = next(running)
            while True:
                positions, rounds = positions + len(asked), rounds + 1
                asked = running.send([float(evaluate(game, position)) for position in asked])
        except StopIteration as stop:
            if stop.value.action != action:
                raise SystemExit(f"{game.state_id(state)}: moved {stop.value.action!r}, the "
                                 f"grade moved {action!r}: an order must never change a move")
    return positions, rounds


def whole_cutoff(game: Any, state: Any, depth: int) -> Any:
    """Every non-terminal position at the cutoff in one round, minimax's move."""
    searched = play_search.search_in_full(game, state, depth)
    found = list(searched.positions.values())
    by_action = searched.values(dict(zip(searched.positions, (yield found) if found else [])))
    return play_search.Decision(game.state_id(state), by_action,
                                play_search.best_action(game, state, by_action))


def least(decisions: list[Decision]) -> int | None:
    """About the positions a perfect order asks: at depth 2 the best child's non-terminal
    replies, and for each other child one position (the reply that refutes it) where it has
    a non-terminal reply (fewer where a win in one ply or a reply that ends the game settles
    it); at depth 1 every non-terminal child. None where a decision searches deeper (a
    course's ``[play] depth``): no estimate is made there."""
    total = 0
    for game, state, depth, action in decisions:
        if depth > 2:
            return None
        children = {a: game.result(state, a) for a in game.actions(state)}
        if depth < 2:
            total += sum(not game.is_terminal(child) for child in children.values())
            continue
        for a, child in children.items():
            if game.is_terminal(child):
                continue
            open_replies = sum(not game.is_terminal(game.result(child, reply))
                               for reply in game.actions(child))
            total += open_replies if a == action else min(open_replies, 1)
    return total


def _count(count: int | None) -> str:
    return "-" if count is None else f"{count:,}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--probes", type=int, nargs="+", default=[3, 4, 5])
    parser.add_argument("--evaluations", nargs="+", default=list(evaluations.NAMES),
                        choices=evaluations.NAMES, metavar="NAME")
    args = parser.parse_args(argv)
    shipped = play_search.PROBES
    columns = [f"PROBES {p}{' (shipped)' if p == shipped else ''}" for p in args.probes]
    print(f"{'evaluation':18} {'decisions':>9}  " + "  ".join(f"{c:>22}" for c in columns)
          + f"  {'whole cutoff':>13}  {'least, about':>13}")
    totals = [[0, 0] for _ in args.probes]
    cutoff_total, least_total = 0, 0  # least_total: None once a decision has no estimate
    for name in args.evaluations:
        decisions = recorded_decisions(name)
        evaluate, memo = evaluations.function(name), {}

        def remembered(game: Any, position: Any, evaluate: Any = evaluate,
                       memo: dict = memo) -> float:
            key = (id(game), game.state_id(position))
            if key not in memo:
                memo[key] = float(evaluate(game, position))
            return memo[key]

        cells = []
        for index, probes in enumerate(args.probes):
            positions, rounds = counted(decisions, remembered, lambda g, s, d, p=probes:
                                        play_search.search(g, s, d, p))
            totals[index][0] += positions
            totals[index][1] += rounds
            cells.append(f"{positions:>8,} in {rounds:>5,} rounds")
        cutoff = counted(decisions, remembered, whole_cutoff)[0]
        bound = least(decisions)
        cutoff_total += cutoff
        least_total = None if bound is None or least_total is None else least_total + bound
        print(f"{name:18} {len(decisions):>9}  " + "  ".join(f"{c:>22}" for c in cells)
              + f"  {cutoff:>13,}  {_count(bound):>13}")
    cells = [f"{p:>8,} in {r:>5,} rounds" for p, r in totals]
    print(f"{'all':18} {'':>9}  " + "  ".join(f"{c:>22}" for c in cells)
          + f"  {cutoff_total:>13,}  {_count(least_total):>13}")
    print("positions asked, each decision searched anew (a case's matches share no values "
          "here); every move equal to the grade's")
    return 0


if __name__ == "__main__":
    sys.exit(main())
