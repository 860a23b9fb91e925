"""The step explanation of alpha_beta_tt and quiescence: the replays
(``reference/steps_search.py``) generate exactly the reference's trace on every case, and the
note at the first difference names the table look-up or the stand pat the reference did."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.answers.store import AnswerKey
from grader.cases import find_cases, load_case
from grader.feedback.explain import step_note
from grader.run.runner import run_algorithm
from reference import reference_functions
from reference.mistakes import mistakes_for
from reference.steps_search import QuiescenceSteps, TableSteps, table_steps

ROOT = Path(__file__).resolve().parent.parent
PUBLIC = ROOT / "trees" / "public"
CASES = [(algorithm, case)
         for case in map(load_case, find_cases([PUBLIC, ROOT / "trees" / "hidden"]))
         for algorithm in ("alpha_beta_tt", "quiescence") if algorithm in case.algorithms]


@pytest.mark.parametrize("algorithm, case", CASES, ids=lambda item: getattr(item, "name", item))
def test_the_replay_generates_the_references_trace(algorithm, case) -> None:
    """(Up to the replay's limit: full tic-tac-toe's 4,780 nodes pass it.)"""
    replay = (TableSteps if algorithm == "alpha_beta_tt" else QuiescenceSteps)(case.build_game())
    stopped = replay.run()[-1][0] == "stopped"
    expected = run_algorithm(reference_functions(), case.build_game(), algorithm).generated
    assert replay.generated == (expected[:replay.until + 1] if stopped else expected)


def test_a_replay_past_its_limit_says_where_it_stopped() -> None:
    game = load_case(PUBLIC / "tt-tictactoe-midgame.json").build_game()
    moments = table_steps(game, until=20)
    assert moments[-1] == ["stopped", 20]


def _note(case_file: str, algorithm: str, mistake: str, tmp_path) -> str:
    case = load_case(PUBLIC / case_file)
    variant = next(m for m in mistakes_for(algorithm, "inclusive") if m.name == mistake)
    expected = run_algorithm(reference_functions(), case.build_game(), algorithm)
    got = run_algorithm(variant.functions("inclusive"), case.build_game(), algorithm)
    return step_note(case, algorithm, "inclusive", expected, got,
                     AnswerKey(cache=tmp_path / "key.json"))


def test_the_note_tells_the_table_look_up_that_kept_the_window_open(tmp_path) -> None:
    note = _note("tt-graph-intro.json", "alpha_beta_tt", "bound_stored_as_exact", tmp_path)
    assert note.startswith("Before its step 9 the reference looked E up and found (5, lower, "
                           "searched +∞)")
    assert "raises α to 5, the window (5, +∞) stays open, so it searches E" in note
    # the variant returned (no work-budget stop): "stopped" is kept for a real stop
    assert note.endswith("It generates G next. Yours had made no more `result` calls: it "
                         "returned after 8.")


def test_the_note_tells_the_stand_pat_cut(tmp_path) -> None:
    note = _note("quiescence-horizon-intro.json", "quiescence", "no_stand_pat", tmp_path)
    assert note.startswith("Before its step 6 the reference stood pat at D (not quiet): its "
                           "evaluation 2 ≤ α = 3, so it returns 2 without a noisy move.")
    assert note.endswith("Yours generated D1.")


def test_the_note_tells_a_noisy_move(tmp_path) -> None:
    note = _note("quiescence-horizon-intro.json", "quiescence", "no_quiescence", tmp_path)
    assert "found B not quiet (depth 1): stand pat 5 sets β = 5, and only its noisy moves are " \
           "searched: B1" in note
    assert "It generates B1 (past the depth limit: a noisy move" in note


def test_the_html_replay_shows_the_tables_hits_and_stores_at_their_steps() -> None:
    from grader.files import json_safe
    from grader.report.html.steps import inferred_side, with_search_events

    case = load_case(PUBLIC / "tt-graph-intro.json")
    ids = run_algorithm(reference_functions(), case.build_game(), "alpha_beta_tt").generated
    side = with_search_events(inferred_side(ids, len(ids), None, values=False),
                              json_safe(table_steps(case.build_game())))
    at = [[side.lines[i][1] for i in row] for row in side.rows]
    assert "then it stored E = 5 as `lower` (v ≥ β = 5 as its loop started): (5, lower, " \
           "searched +∞)" in at[6]
    assert any(line.startswith("then it looked D up and found (5, exact, searched +∞)")
               and line.endswith("no child generated") for line in at[11])
    assert all(kind == "window" for kind, text in side.lines if text.startswith("then it"))
