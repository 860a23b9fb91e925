"""``grader play [SUBMISSION]``: watch your own search play with your ``evaluate``.

Plays the ``evaluate`` cases' matches against the random and greedy players with the
student's own ``alpha_beta`` at the rubric's depth calling their ``evaluate``
(:mod:`grader.scoring.local_play`); prints, as terminal text, a win/draw/loss table by side for
each case, what it would score and is worth, and each lost match's moves, final board and the
move that let the opponent win (:func:`grader.feedback.records.move_that_let_them_win`: there is
no staff search here); ``--html FILE`` writes the same matches to the HTML report (the records
the graded play tests keep in ``extra_data["play"]``). Cases against the baseline
are skipped: its search and evaluation are the autograder's, not in the handout.

``assumptions`` cases: the lectures' 2 x 2 table (the minimax and the expectimax agent against
the adversarial and the random ghost) played with the student's own ``alpha_beta`` and
``expectimax`` (:mod:`grader.scoring.local_assumptions`), once for each board and seed.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TextIO

from grader.algorithms.evaluate import ALGORITHM as EVALUATE
from grader.cases import find_cases, load_case
from grader.cases.rubric import load_rubric
from grader.errors import GraderError
from grader.feedback import play as play_feedback
from grader.feedback import records as match_records
from grader.games.players import SIMPLE_OPPONENTS
from grader.algorithms.assumptions import table_text
from grader.scoring.local_assumptions import local_table
from grader.report.terminal import markdown_for_terminal
from grader.scoring.local_play import PlayFailed, load_search, play_local_match
from grader.scoring.play import play_score
from grader.scoring.results import PASSED, GradingResults, TestResult


def play_main(submission: Path, cases: list[Path], *, matches: int | None = None,
              rubric_path: Path | None = None, html: Path | None = None,
              out: TextIO | None = None) -> int:
    """Exit 0 when every match was played, 1 when the student's code failed in one, 2 when
    the cases or the rubric cannot be read."""
    out = out or sys.stdout
    try:
        rubric = load_rubric(rubric_path)
        loaded = list(map(load_case, find_cases([Path(c) for c in cases])))
    except (FileNotFoundError, GraderError) as error:
        print(f"grader play: {error}", file=sys.stderr)
        return 2
    played = [case for case in loaded if case.play is not None]
    assumed = [case for case in loaded if case.assumptions is not None]
    skipped = [case.name for case in played if case.play.opponent not in SIMPLE_OPPONENTS]
    played = [case for case in played if case.play.opponent in SIMPLE_OPPONENTS]
    if not played and not assumed:
        print("grader play: no evaluate case against the random or greedy player here, and "
              "no assumptions case", file=sys.stderr)
        return 2
    search = Path(submission)
    if not (search / "search.py" if search.is_dir() else search).is_file():
        print(f"grader play: {search}: no search.py there", file=sys.stderr)
        return 2  # bad input: nothing to play
    try:
        module = load_search(search)
    except PlayFailed as failed:
        print(f"grader play: {failed}", file=out)
        return 1
    results = GradingResults()
    status = 0
    for number, case in enumerate(played, 1):
        depth = case.play.depth or rubric.play.depth
        count = matches or case.play.matches or rubric.play.matches
        opening = rubric.play.opening if case.play.opening is None else case.play.opening
        game = case.build_game()
        test = TestResult(name=f"play: {case.name} (your alpha_beta, depth {depth}, your "
                          f"evaluate; against {case.play.opponent})", number=str(number),
                          algorithm=EVALUATE.name, case_name=case.name, max_score=0.0, score=0.0,
                          outcome="error", visibility="visible")
        try:
            records = [play_local_match(module, game, i, case.play.seed, case.play.opponent,
                                        depth, opening, rubric.play.calls) for i in range(count)]
        except PlayFailed as failed:
            test.summary = str(failed)
            test.output = f"{case.name}: your code failed: {failed}"
            print(test.output + "\n", file=out)
            results.tests.append(test)
            status = 1
            continue
        score = play_score(records, rubric, case.play.opponent)
        test.outcome = PASSED if all(r.outcome != "loss" for r in records) else "wrong_value"
        points = rubric.settings_for(case, EVALUATE.name).points
        test.summary, text = play_feedback.report(game, case.play.opponent, records, score,
                                                  rubric.play.draw_weight, points=points)
        test.output = f"## {case.name}: {text}"  # Markdown, as the HTML report shows it
        # no staff search here: each of the first lost matches analysed for the move of yours
        # that let them win (the HTML report marks it)
        data = match_records.records_data(records, game)
        lost = [item for item in data if item["outcome"] == "loss"]
        for item in lost[:match_records.MAX_LOST_ANALYSED]:
            record = next(r for r in records if r.index == item["index"])
            item["choice"] = match_records.move_that_let_them_win(game, record)
        test.extra_data = {"play": data}
        print(markdown_for_terminal(test.output, out) + "\n", file=out)
        results.tests.append(test)
    if assumed:
        status = max(status, _assumption_tables(module, assumed, rubric, matches, out))
    if skipped:
        print(f"Not played here: {', '.join(skipped)} (against the staff's baseline search, "
              "which only the autograder has).", file=out)
    if html:
        from grader.report.html import write_html_report

        write_html_report(results, Path(html))
        print(f"HTML report written to {html}", file=out)
    return status


def _assumption_tables(module: object, cases: list, rubric: object, matches: int | None,
                       out: TextIO) -> int:
    """The lectures' 2 x 2 table with the student's own searches, once for each board and seed
    (the minimax and the expectimax agent's cases of one board share their matches)."""
    status, seen = 0, set()
    for case in cases:
        settings = case.assumptions
        key = (json.dumps(case.data.get("state")), json.dumps(case.params, sort_keys=True),
               settings.seed, settings.matches, settings.depth, settings.search)
        if key in seen:
            continue
        seen.add(key)
        try:
            table, ghost = local_table(module, case, rubric, matches)
        except PlayFailed as failed:
            print(f"{case.name}: your code failed: {failed}\n", file=out)
            status = 1
            continue
        text = (f"## {case.name}: modeling assumptions with your own searches (the adversarial "
                f"ghost: {ghost})\n\n{table_text(table)}")
        print(markdown_for_terminal(text, out) + "\n", file=out)
    return status


__all__ = ["play_main"]
