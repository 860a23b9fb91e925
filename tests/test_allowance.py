"""A submission's CPU allowance (grader/sandbox/allowance.py): all its calls together stay under
the platform's budget, and code that hides from the work budget costs a bounded sum, while code
that keeps calling the game is never refused."""

from __future__ import annotations

from dataclasses import replace

import pytest
from racing import race
from test_sandbox import CASE, FAST, MINIMAX, submission

from grader.run.tracing import Budget
from grader.sandbox.allowance import CpuAccount, platform_allowance
from grader.sandbox.client import Worker
from grader.sandbox.limits import Limits

WHOLE = "whole CPU allowance"
HIDDEN = "time-outs may cost"
# minimax that spins 0.15 CPU s at every call before searching: never a whole window without a
# game call (the window is 0.5 s), but each call costs its 0.15 s.
BURNING = MINIMAX.replace("def max_value(game, state, depth=0):\n", """def max_value(game, state, depth=0):
    if depth == 0:
        import time
        started = time.process_time()
        while time.process_time() - started < 0.15:
            pass
""")
HIDING = MINIMAX + """
def alpha_beta(game, state, alpha=-math.inf, beta=math.inf, depth=0):
    while True:
        pass
"""

# min_value loops at the root; max_value (and min_value below the root) is right
LOOPING_MIN = MINIMAX + """
_min_value = min_value

def min_value(game, state, depth=0):
    while depth == 0:
        pass
    return _min_value(game, state, depth)
"""
MIN_ROOT = {**CASE, "tree": {**CASE["tree"], "player": "min"}}


@pytest.mark.parametrize("given, allowance", [
    ({"GRADER_TIME_BUDGET": "540"}, 270.0), ({"GRADER_TIME_BUDGET": "270"}, 135.0),
    ({}, 270.0), ({"GRADER_TIME_BUDGET": "soon"}, 270.0), ({"GRADER_TIME_BUDGET": "-5"}, 270.0),
])
def test_the_allowance_is_half_the_platforms_budget(given, allowance):
    assert platform_allowance(given) == allowance


def test_only_a_function_stopped_by_the_time_limit_before_is_refused():
    account = CpuAccount(total=100.0, hiding=2.4, functions=2)
    assert account.refusal("alpha_beta", 1.0) == ""
    account.charge(0.2, "alpha_beta", window=1.0)  # a time-out costs at least its window
    assert account.hidden == 1.0 and account.spent == pytest.approx(0.2)
    # 1 + 1 + a window kept for minimax passes 2.4, but one time-out may be the machine's load
    assert account.refusal("alpha_beta", 1.0) == ""
    account.charge(0.5, "alpha_beta", window=0.5)
    assert HIDDEN in account.refusal("alpha_beta", 0.5)  # 1.5 + 0.5 + 2 x 0.5 kept > 2.4
    assert account.refusal("minimax", 1.0) == ""  # never stopped that way: always called
    account.charge(99.3)
    assert WHOLE in account.refusal("minimax", 1.0)  # the whole allowance holds for every call


def test_time_outs_of_every_function_cost_at_most_the_hiding_allowance():
    """Each function may be stopped twice before it can be refused: the reserve kept one window
    a function never stopped, so ten looping functions at 1 s windows cost 28 s, not 20."""
    account = CpuAccount(total=1000.0)
    for function in ("max_value", "min_value", "alpha_beta", "expectimax", "maxn", "mcts",
                     "iterative_deepening", "evaluate", "alpha_beta_tt", "quiescence"):
        for _ in range(12):
            if not account.refusal(function, 1.0):
                account.charge(1.0, function, window=1.0)
    assert account.timed_out == dict.fromkeys(account.timed_out, 2) and len(account.timed_out) == 10
    assert account.hidden <= account.hiding == 20.0, account.hidden
def test_a_search_burning_cpu_in_every_call_stops_at_the_submissions_allowance(tmp_path):
    limits = replace(FAST, submission_cpu=0.9)
    with Worker(submission(tmp_path, BURNING), limits=limits) as worker:
        worker.start()
        first_start = worker.account.start_cpu
        replies = [worker.run(CASE, "minimax", time_limit=0.5, budget=Budget(1000, 1000))
                   for _ in range(8)]
        spent, starts = worker.account.spent, worker.account.starts
        restarts = worker.account.start_cpu - first_start
    statuses = [reply.status for reply in replies]
    assert statuses[0] == "ok" and replies[0].value == 3, replies[0]
    first_stop = statuses.index("timeout")
    assert all(status == "ok" for status in statuses[:first_stop])
    assert all(status == "timeout" and WHOLE in reply.message
               for status, reply in zip(statuses[first_stop:], replies[first_stop:])), replies
    # the last call is cut at what was left (the worker's guard ticks each quarter window);
    # at most one window over, whatever the load (a loaded run overshot a quarter window by
    # 0.03 s): eight uncut calls would spend about 8 windows. The fresh worker started after
    # that time-out is charged too, on top (0.15 CPU s idle, 0.5 on a loaded machine)
    assert 0.9 <= spent and spent - restarts <= 0.9 + FAST.time, (spent, restarts)
    assert starts <= 2, starts  # the first, and one after the time-out (refusals start none)


def test_hiding_code_costs_a_bounded_sum_and_code_calling_the_game_still_runs(tmp_path):
    limits = replace(FAST, hiding_cpu=1.2)
    with Worker(submission(tmp_path, HIDING), limits=limits) as worker:
        worker.start()
        first_start = worker.account.start_cpu  # the only start not after a time-out
        first = worker.run(CASE, "alpha_beta", time_limit=0.1)
        later = [worker.run(CASE, "alpha_beta", time_limit=0.1) for _ in range(5)]
        searched = worker.run(CASE, "minimax", time_limit=0.1)
        account = worker.account
    assert first.status in ("timeout", "killed_timeout") and HIDDEN not in first.message
    assert HIDDEN not in later[0].message  # twice stopped, before any refusal
    refused = [reply for reply in later if HIDDEN in reply.message]
    assert refused and all(reply.status == "timeout" for reply in later)
    assert later.index(refused[0]) + len(refused) == len(later)  # once refused, always
    # time-outs charged at least a window each, within 1.2 s; the fresh worker's start after
    # each is charged too, on top (allowance.py: a loaded machine's starts took 0.5 CPU s each,
    # and the starts' 1.0 s with the time-outs' passed 1.2)
    restarts = account.start_cpu - first_start
    assert 0 < account.hidden - restarts <= 1.2
    assert account.timeouts == len(later) - len(refused) + 1
    assert searched.status == "ok" and searched.value == 3, searched


def test_limits_carry_the_allowance_from_the_environment(monkeypatch):
    monkeypatch.setenv("GRADER_TIME_BUDGET", "60")
    assert Limits().submission_cpu == 30.0


def test_a_looping_min_value_does_not_get_a_correct_max_value_refused(tmp_path):
    """Both are minimax: time-outs were counted by algorithm, so a min_value stopped twice got
    every later max_value test refused ("this function was stopped that way before")."""
    limits = replace(FAST, hiding_cpu=1.0)
    with Worker(submission(tmp_path, LOOPING_MIN), limits=limits) as worker:
        stopped = [worker.run(MIN_ROOT, "minimax", time_limit=0.1) for _ in range(3)]
        searched = worker.run(CASE, "minimax", time_limit=0.1)
        account = worker.account
    assert account.timed_out == {"min_value": 2}, account.timed_out
    assert HIDDEN in stopped[2].message, stopped[2]  # 0.2 + 0.1 + 9 windows kept > 1.0
    assert searched.status == "ok" and searched.value == 3, searched


def test_an_account_shared_by_two_threads_is_read_whole_while_the_other_charges():
    """`grader grade --jobs 2`: a grade's two workers share one account, each charged from its
    own thread. A refusal reads every function's time-outs while the other thread may charge a
    function's first one (a new entry): without the lock the read raised "dictionary changed
    size during iteration" in most runs, a grader error on the refused call's test."""
    account = CpuAccount(total=1e9, hiding=1e9)
    account.timed_out["max_value"] = 2  # stopped twice: its refusal reads the others' time-outs
    errors: list[str] = []

    def refuse() -> None:
        for _ in range(20_000):
            try:
                account.refusal("max_value", 0.0)
            except Exception as error:  # noqa: BLE001 - any is the race
                errors.append(f"{type(error).__name__}: {error}")

    def charge() -> None:
        for round_ in range(20_000):
            if round_ % 40 == 0:  # start over: each charge below is some function's first
                with account.lock:
                    account.timed_out.clear()
                    account.timed_out["max_value"] = 2
            account.charge(0.0, f"function_{round_ % 40}")

    race(refuse, charge)
    assert errors == []
    assert account.timeouts == 20_000  # and no charge was lost
