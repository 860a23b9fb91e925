"""The play part of the HTML report (grader/report/html/board.py, play.py) and the match
records it reads (grader/feedback/records.py's records_data), from hand-made matches: no grading.

The report of matches really played is checked in tests/test_play.py, and in a browser in
tests/test_html_browser.py.
"""

from __future__ import annotations

import dataclasses

import xml.etree.ElementTree as ET

import pytest

from grader.answers.store import AnswerKey
from grader.cases.rubric import load_rubric
from grader.feedback import records as match_records
from grader.files import json_text
from grader.games import builtin_game
from grader.report.html import report_html
from grader.report.html.board import MatchError, board_svg, replay_match
from grader.report.html.play import play_section
from grader.scoring.results import GradingResults, TestResult
from reference.play import Decision, MatchRecord

C4 = {"rows": 6, "columns": 7, "connect": 4}
MNK = {"rows": 5, "columns": 5, "connect": 4}
X_WINS_ON_THE_BOTTOM_ROW = [3, 3, 4, 4, 5, 5, 6]  # x: 3, 4, 5, 6; o stacks on 3, 4, 5


def played(name: str, params: dict, actions: list[int], *, index: int = 0, side: str = "x",
           opening: int = 0) -> tuple[object, MatchRecord]:
    """The game and the record of a match that made ``actions`` (the game model's rules)."""
    game = builtin_game(name, None, params)
    state = game.initial_state()
    record = MatchRecord(index, 1000 + index, side, "greedy", "", opening=opening)
    for action in actions:
        record.positions.append(game.state_id(state))
        record.moves.append(("x" if game.to_move(state) == 0 else "o", action))
        state = game.result(state, action)
    record.final = game.state_id(state)
    payoff = game.utility(state) * (1 if side == "x" else -1) if game.is_terminal(state) else 0
    record.outcome = "win" if payoff > 0 else "loss" if payoff < 0 else "draw"
    return game, record


def losing(record: MatchRecord, move: int, yours: int, staff: int, actions: list[int]) -> tuple:
    """A losing choice before ``move`` (from 1): the student's values 0 everywhere, the
    staff's 0 but for ``staff``, the mover's best (1 when x is to move, -1 when o is)."""
    position = record.positions[move - 1]
    best = 1.0 if position.count("x") == position.count("o") else -1.0
    decision = Decision(position, {a: (0, 0.0) for a in actions}, yours)
    return decision, {a: (0, best if a == staff else 0.0) for a in actions}


def test_a_match_replayed_from_its_moves_is_the_game_model_s_and_its_winning_line_is_marked():
    game, record = played("connect4", C4, X_WINS_ON_THE_BOTTOM_ROW)
    data = match_records.records_data([record], game)[0]
    assert (data["game"], data["connect"], data["initial"]) == ("connect4", 4, record.positions[0])
    assert "positions" not in data  # moves only
    match = replay_match(data)
    assert [match.position(step) for step in range(len(record.moves))] == record.positions
    assert match.position(len(record.moves)) == record.final
    assert match.win == [38, 39, 40, 41]  # the bottom row's last four cells
    svg = board_svg(match, len(match.moves))
    assert svg.count('data-won="1"') == 4 and 'class="winline on"' in svg


def test_a_record_of_the_first_version_positions_only_is_replayed_alike():
    game, record = played("connect4", C4, X_WINS_ON_THE_BOTTOM_ROW)
    new = match_records.records_data([record], game)[0]
    old = {k: v for k, v in new.items() if k not in ("game", "connect", "initial")}
    old["positions"] = record.positions + [record.final]
    first, again = replay_match(new), replay_match(old)
    assert (again.drop, again.initial, again.moves, again.win) == (
        first.drop, first.initial, first.moves, first.win)
    _, placed = played("mnk", MNK, [0, 5, 1, 6, 2, 7, 3])
    old = {k: v for k, v in match_records.records_data([placed])[0].items()}
    assert "initial" not in old  # no game given: the first version's record
    match = replay_match(old)
    assert not match.drop and match.win == [0, 1, 2, 3]


@pytest.mark.parametrize("change, message", [
    ({"moves": "3,3,4"}, "expected 'moves' as a list of [mark, action]"),
    ({"moves": [["x", 3]] * 7}, "move 7 (x plays 3) is not legal"),
    ({"moves": [["x", "3"]]}, "move 1 (x plays '3') is not legal"),
    ({"game": "chess"}, "cannot draw the game 'chess'"),
    ({"initial": "xo|x"}, "expected rows of one length"),
    ({"initial": "<script>"}, "expected a board of rows of x, o and ."),
])
def test_a_malformed_record_is_refused_naming_the_match_and_the_fault(change, message):
    game, record = played("connect4", C4, X_WINS_ON_THE_BOTTOM_ROW, index=4)
    data = {**match_records.records_data([record], game)[0], **change}
    with pytest.raises(MatchError, match="match 5: ") as raised:
        replay_match(data)
    assert message in str(raised.value)
    test = TestResult(name="evaluate: c4", number="7.1", algorithm="evaluate", case_name="c4",
                      max_score=3, score=0, outcome="wrong_value", extra_data={"play": [data]})
    section = "\n".join(play_section(test))
    assert "This match cannot be drawn: match 5: " in section
    ET.fromstring(section)  # escaped: still XML whatever the record held


def test_positions_that_are_not_one_mark_apart_are_refused():
    old = {"index": 0, "outcome": "loss", "moves": [["x", 0]], "positions": ["..|..", "xo|.."]}
    with pytest.raises(MatchError, match="position 2 is not one mark more than position 1"):
        replay_match(old)


def test_the_records_stay_under_their_cap_as_written_dropping_won_matches_moves_first(
        monkeypatch):
    game, won = played("connect4", C4, X_WINS_ON_THE_BOTTOM_ROW)
    _, lost = played("connect4", C4, X_WINS_ON_THE_BOTTOM_ROW, side="o")
    records = [won, lost] * 400
    data = match_records.records_data(records, game)
    assert len(data) == match_records.MAX_RECORDS and all("moves" in d for d in data)
    small = match_records.records_data(records[:6], game)
    assert all("moves" in d and "positions" not in d for d in small)
    cap = len(json_text(data).encode()) * 3 // 4
    monkeypatch.setattr(match_records, "PLAY_DATA_BYTES", cap)
    data = match_records.records_data(records, game)
    assert len(json_text(data).encode()) <= cap  # as results.json is written: indented
    assert len(data) == match_records.MAX_RECORDS  # every match still listed
    assert all("moves" in d for d in data if d["outcome"] == "loss")
    assert not all("moves" in d for d in data)
    monkeypatch.setattr(match_records, "PLAY_DATA_BYTES", 2000)
    data = match_records.records_data(records, game)
    assert len(json_text(data).encode()) <= 2000 and 0 < len(data) < 10


def section_of(page: str, number: str) -> ET.Element:
    root = ET.fromstring(page.encode())
    return next(s for s in root.iter("section") if s.get("id") == "test-" + number.replace(".", "-"))


def results_of(*tests: TestResult) -> GradingResults:
    results = GradingResults()
    results.tests.extend(tests)
    return results


def play_test(records: list[dict], *, score: float = 2, summary: bool = True,
              matches: list | None = None) -> TestResult:
    """A played test of 3 points with ``records`` (its ``matches``, for the summary: a rubric
    scoring by win counts, CS188's way, with thresholds 1, 5 and 10 wins)."""
    extra = {"play": records}
    if summary:
        by_wins = dataclasses.replace(load_rubric(None).play, thresholds=[1, 5, 10])
        extra["play_summary"] = match_records.summary_data(
            "greedy", matches or [], by_wins, score / 3)
    return TestResult(name="evaluate: c4-greedy (Connect Four)", number="7.1",
                      algorithm="evaluate", case_name="c4-greedy", max_score=3, score=score,
                      outcome="wrong_value", extra_data=extra)


def test_a_page_of_played_tests_needs_no_answer_key_and_explains_only_boards(monkeypatch):
    game, won = played("connect4", C4, X_WINS_ON_THE_BOTTOM_ROW)
    _, lost = played("connect4", C4, X_WINS_ON_THE_BOTTOM_ROW, index=1, side="o")
    choice = losing(lost, 6, 5, 0, [0, 1, 2, 3, 4, 5, 6])  # o's move: o played 5
    records = match_records.records_data([won, lost], game, {1: choice})

    def no_key():
        raise AssertionError("a page of played tests read the answer key")

    monkeypatch.setattr(AnswerKey, "default", classmethod(lambda cls: no_key()))
    page = report_html(results_of(play_test(records, matches=[won, lost])))
    assert "◐ 2 of 3 thresholds" in page and "wrong value" not in page
    assert "the line that ended the match" in page and "MAX" not in page  # no trees' legend
    section = section_of(page, "7.1")
    text = " ".join(" ".join(section.itertext()).split())
    assert "x (moves first) 1 1 0 0" in text and "both 2 1 0 1" in text
    assert "2 of 3 reached" in text
    details = [d for d in section.iter("details") if "play-details" in (d.get("class") or "")]
    assert [d.get("open") for d in details] == [None, "open"]  # the won match folded
    rings = {g.get("class"): g.get("data-cell") for g in details[1].iterfind(".//{*}g")
             if "cand" in (g.get("class") or "")}
    assert rings == {"cand yours on": "33", "cand staff on": "35"}  # where 5 and 0 land
    assert "your move 6 next: where your choice lost" in text
    assert "column 5 ◀ you 0 0 " in text and "column 0 ◀ staff 0 -1 " in text


def test_results_written_before_the_summary_and_the_initial_position_still_draw():
    game, lost = played("connect4", C4, X_WINS_ON_THE_BOTTOM_ROW, side="o")
    old = {k: v for k, v in match_records.records_data([lost], game)[0].items()
           if k in ("index", "seed", "side", "outcome", "opening", "moves")}
    old["positions"] = lost.positions + [lost.final]  # the first version's
    page = report_html(results_of(play_test([old], score=0, summary=False)))
    assert "0 of 1 matches won" in page
    section = section_of(page, "7.1")
    assert sum(1 for g in section.iterfind(".//{*}g") if g.get("data-won")) == 4
    assert "was not analysed for its losing move" in "".join(section.itertext())


def test_a_trace_failure_without_a_picture_adds_no_legend_of_trees():
    game, won = played("connect4", C4, X_WINS_ON_THE_BOTTOM_ROW)
    trace = TestResult(name="minimax: t", number="1.1", algorithm="minimax", case_name="t",
                       max_score=1, score=0, outcome="wrong_value", output="wrong",
                       extra_data={})  # no replay data: a section without a picture
    page = report_html(results_of(trace, play_test(match_records.records_data([won], game))))
    assert "No step-through" in page
    assert "the line that ended the match" in page and "MAX" not in page


def test_a_page_short_of_room_draws_the_lost_matches_only_then_none(monkeypatch):
    from grader.report.html import report as report_module

    game, won = played("connect4", C4, X_WINS_ON_THE_BOTTOM_ROW)
    _, lost = played("connect4", C4, X_WINS_ON_THE_BOTTOM_ROW, index=1, side="o")
    _, third = played("connect4", C4, X_WINS_ON_THE_BOTTOM_ROW, index=2)
    results = results_of(play_test(match_records.records_data([won, lost, third], game)))
    whole = report_html(results)
    base = len(report_html(results_of()).encode())
    monkeypatch.setattr(report_module, "PAGE_BUDGET", len(whole.encode()) - 2000)
    text = " ".join(" ".join(section_of(report_html(results), "7.1").itertext()).split())
    assert text.count("Match ") == 1 and "Not drawn, to keep the page small: matches 1 (won), " \
        "3 (won)" in text
    monkeypatch.setattr(report_module, "PAGE_BUDGET", base + 3000)
    assert "grader check -k c4-greedy --html FILE" in report_html(results)


def test_a_rubric_scoring_by_rates_gets_its_rates_and_percent_thresholds():
    """A rubric may score by each side's score rate (both must reach a threshold) instead of
    win counts: the summary reads how many thresholds were reached off the points, whatever
    the rule, and the page words the rates."""
    from types import SimpleNamespace

    game, won = played("connect4", C4, X_WINS_ON_THE_BOTTOM_ROW)
    _, lost = played("connect4", C4, X_WINS_ON_THE_BOTTOM_ROW, index=1, side="o")
    rates = SimpleNamespace(draw_weight=0.5, by_wins=False,
                            thresholds_for=lambda opponent: [0.25, 0.5])
    summary = match_records.summary_data("baseline", [won, lost], rates, 0.0)
    assert (summary["rates"], summary["reached"], summary["by_wins"]) == (
        {"x": 1.0, "o": 0.0}, 0, False)
    test = play_test(match_records.records_data([won, lost], game), score=0)
    test.extra_data["play_summary"] = summary
    text = " ".join(" ".join(section_of(report_html(results_of(test)), "7.1").itertext()).split())
    assert "Score rate 100% as x and 0% as o against baseline" in text
    assert "25% ✗ 50% ✗ : 0 of 2 reached" in text
    test.extra_data["play_summary"] = match_records.summary_data("baseline", [won, lost], rates,
                                                                 0.75)  # half steps
    page = report_html(results_of(test))
    text = " ".join(" ".join(section_of(page, "7.1").itertext()).split())
    assert "25% ✓ 50% ◐ : 1.5 of 2 reached" in text and "◐ 1.5 of 2 steps" in page
    assert "could not change the points" not in text
    test.extra_data["play_summary"] = match_records.summary_data("baseline", [won, lost], rates,
                                                                 0.75, planned=6)  # stopped
    text = " ".join(" ".join(section_of(report_html(results_of(test)), "7.1").itertext()).split())
    assert ("in 2 of 6 matches: the other 4 could not change the points, so they were not "
            "played") in text


def test_a_forged_choice_and_summary_in_a_results_file_are_drawn_as_inert_text():
    """``grader report`` reads a results file it did not write: fields of the wrong type or
    with markup are shown as text or left out, and the page stays one XML document."""
    game, lost = played("connect4", C4, X_WINS_ON_THE_BOTTOM_ROW, side="o")
    record = match_records.records_data([lost], game)[0]
    record["choice"] = {"move": 6, "yours": 5, "staff": "<b>x</b>",
                        "values": [{"action": 5, "yours": ["a", "b"], "staff": [0, "1e999"]},
                                   "not a row", {"action": "<i>", "bound": 3}]}
    test = play_test([record], score=0)
    test.extra_data["play_summary"] = {"thresholds": ["<s>", None], "reached": 1,
                                       "rates": "none", "by_wins": False, "opponent": "<u>"}
    page = report_html(results_of(test))
    section = section_of(page, "7.1")  # parsed: nothing the record held made it markup
    text = " ".join(" ".join(section.itertext()).split())
    assert "column <b>x</b>" in text and "column <i>" in text and "? ?" in text
    assert "Score rate ? as x and ? as o against <u>" in text


def test_tic_tac_toe_is_drawn_as_a_grid_its_diagonal_struck_and_squares_numbered_by_row():
    game, record = played("tictactoe", {}, [0, 1, 4, 2, 8])  # x: 0, 4, 8
    match = replay_match(match_records.records_data([record], game)[0])
    assert (match.drop, match.win, match.unit) == (False, [0, 4, 8], "square")
    svg = ET.fromstring(board_svg(match, len(match.moves)))
    coords = [t.text for t in svg.iterfind(".//{*}text")]
    assert coords == ["0", "1", "2", "0", "3", "6"]  # columns above, each row's first square
    cells = [g.get("class") for g in svg.iterfind(".//{*}g") if g.get("data-cell")]
    assert cells == ["cell x won", "cell o", "cell o", "cell", "cell x won", "cell", "cell",
                     "cell", "cell x won"]
