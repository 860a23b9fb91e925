"""The grader's own memory (issue 33): grader/footprint.py, and what a one-off grade drops."""

import hashlib
from pathlib import Path

from grader.cases import load_case
from grader.footprint import fix_mmap_threshold, release_free_memory, sha256
from grader.scoring import play

REPO = Path(__file__).resolve().parent.parent


def test_sha256_without_openssl_gives_hashlibs_digests():
    for data in (b"", b"abc", bytes(range(256)) * 1000):
        assert sha256(data).hexdigest() == hashlib.sha256(data).hexdigest()
    digest = sha256()
    digest.update(b"a")
    digest.update(b"bc")
    assert digest.hexdigest() == hashlib.sha256(b"abc").hexdigest()


def test_the_allocator_calls_run_where_glibc_runs_and_never_raise():
    import platform

    glibc = platform.libc_ver()[0] == "glibc"
    assert fix_mmap_threshold() is glibc and release_free_memory() is glibc


def test_a_one_off_grade_drops_a_play_cases_game_and_the_baselines_positions():
    from reference import evaluations

    case = load_case(REPO / "trees" / "public" / "evaluate-connect4-greedy.json")
    game = play._game(case)
    assert play._game(case) is game  # kept for the next submission (a batch)
    evaluations.baseline_evaluation(game, game.initial_state())
    assert evaluations._BASELINE
    play.forget_game(case)
    assert play._game(case) is not game and not evaluations._BASELINE
    play.forget_game(case)
