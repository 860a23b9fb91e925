"""The portable worker (issue 22): local checks without the sandbox's POSIX pieces give the
sandbox's verdicts, and ``grader grade`` refuses to run with it. Forced here with
``GRADER_PORTABLE=1`` (this machine has the full sandbox)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import suite_modules
from test_sandbox import machine_calibration

from grader.cases import load_case
from grader.cli import main
from grader.sandbox import portable
from grader.sandbox.client import Worker
from grader.sandbox.limits import Limits
from grader.sandbox.portable import (
    PORTABLE_ENV,
    PortableChannel,
    PortableWorker,
    open_worker,
    portable_reason,
)
from grader.scoring.grade import grade

ROOT = Path(__file__).resolve().parent.parent
PUBLIC = ROOT / "trees" / "public"
EMPTY_BOARD = "tictactoe-empty-board.json"
AIMA = PUBLIC / "aima-fig-5-2.json"
CORRECT = ROOT / "tests" / "submissions" / "correct" / "search.py"


def _variants():
    return suite_modules.load("submissions/variants.py")


VARIANTS = _variants()


def test_the_mode_is_chosen_by_the_platform_and_forced_by_the_variable(monkeypatch):
    monkeypatch.delenv(PORTABLE_ENV, raising=False)
    assert portable_reason() is None  # this Linux machine has the whole sandbox
    assert type(open_worker(CORRECT)) is Worker
    monkeypatch.setattr(sys, "platform", "darwin")  # python.org's or Homebrew's: no Landlock
    assert "needs Linux, and this is darwin" in portable_reason()
    monkeypatch.setattr(sys, "platform", "win32")
    assert "needs Linux" in portable_reason()
    monkeypatch.setenv(PORTABLE_ENV, "0")
    assert portable_reason() is None
    monkeypatch.setenv(PORTABLE_ENV, "1")
    assert f"{PORTABLE_ENV}=1" in portable_reason()
    assert type(open_worker(CORRECT)) is PortableWorker


def test_portable_replies_match_the_sandboxes_and_its_failures_are_reported(tmp_path):
    case = load_case(AIMA)
    calibration = machine_calibration()
    with Worker(CORRECT, calibration=calibration) as sandboxed, \
            PortableWorker(CORRECT, calibration=calibration) as portable:
        ours, theirs = sandboxed.run(case, "alpha_beta"), portable.run(case, "alpha_beta")
    assert theirs.status == ours.status == "ok"
    assert (theirs.value, theirs.generated, theirs.evaluated) == (
        ours.value, ours.generated, ours.evaluated)
    broken = tmp_path / "search.py"
    broken.write_text(
        "import os, sys\nprint('hello')\nos.write(1, b'fd-level\\n')\n"
        "def max_value(game, state, depth=0):\n    raise ValueError('mine')\n"
        "def alpha_beta(game, state, *args):\n    os._exit(3)\n"
        "def expectimax(game, state, *args):\n    while True:\n        pass\n")
    # the loop below is killed at its CPU limit: ten windows of 0.1 s and the kill margin,
    # 0.25 s here (the default 1 s and windows of 0.2 s made it 3 CPU s of spinning)
    with PortableWorker(broken, limits=Limits(kill_margin=0.25),
                        calibration=calibration) as portable:
        error = portable.run(case, "minimax")
        assert error.status == "error" and "mine" in error.message
        assert "hello" in error.stdout and "fd-level" in error.stderr
        crashed = portable.run(case, "alpha_beta")
        assert crashed.status == "crashed" and "exited with code 3" in crashed.message
        looping = portable.run(load_case(PUBLIC / "expectimax-exp-value-10.json"),
                               "expectimax", time_limit=0.1)
        assert looping.status == "killed_timeout"  # the parent's kill: no timer in the child
        assert portable.starts >= 2  # a fresh child after the crash


class _GatedOutput:
    """A stderr pipe whose reader gets nothing until ``gate`` is set, then ``step`` bytes a
    read: the output reader thread as late as a loaded machine can make it, and marks split
    between reads."""

    def __init__(self, fd: int, gate: threading.Event, step: int = 1 << 16) -> None:
        self.stream, self.gate, self.step = os.fdopen(fd, "rb"), gate, step

    def read1(self, size: int) -> bytes:
        self.gate.wait()
        return self.stream.read1(min(size, self.step))


def _channel(tmp_path, gate: threading.Event, step: int = 1 << 16):
    """A PortableChannel over pipes the test writes: (channel, output fd, channel fd)."""
    out_read, out_write = os.pipe()
    line_read, line_write = os.pipe()
    proc = SimpleNamespace(stdin=open(tmp_path / "requests", "wb"),
                           stdout=os.fdopen(line_read, "rb"),
                           stderr=_GatedOutput(out_read, gate, step))
    return PortableChannel(proc, 10_000, MARK), out_write, line_write


MARK = b"\0grader-output-mark-0123456789abcdef\0"


def test_a_portable_reply_waits_for_the_output_written_before_it(tmp_path, monkeypatch):
    # The flaky failure made certain: the output reader gets the bytes written before the reply
    # only 0.2 s after the reply is in the channel. Without the mark, take_output came back
    # empty at once; with it, receive waits for the mark (the child writes it after the output,
    # before the reply), so the output is complete whatever the threads' timing (the wait's
    # bound raised, so not even a starved timer thread can end it first).
    monkeypatch.setattr(portable, "MARK_WAIT", 600.0)
    gate = threading.Event()
    channel, output, lines = _channel(tmp_path, gate)
    os.write(output, b"fd-level before the reply\n" + MARK)
    os.write(lines, b'{"event": "ready", "status": "ok"}\n')
    timer = threading.Timer(0.2, gate.set)
    timer.start()
    try:
        message = channel.receive(time.monotonic() + 30)
        assert message["event"] == "ready"
        assert channel.take_output() == ("", "fd-level before the reply\n")
    finally:
        timer.cancel()
        gate.set()
        for fd in (output, lines):
            os.close(fd)


def test_portable_output_marks_split_between_reads_are_cut_out(tmp_path):
    gate = threading.Event()
    gate.set()
    channel, output, lines = _channel(tmp_path, gate, step=3)  # every mark split up
    text = b"one\0two\n" + MARK + b"three \0grader-output" + MARK + b"\0grader-out"
    os.write(output, text)
    os.write(lines, b'{"event": "ready"}\n{"event": "importing"}\n')
    assert channel.receive(time.monotonic() + 30)["event"] == "ready"
    assert channel.receive(time.monotonic() + 30)["event"] == "importing"
    assert channel.take_output()[1] == "one\0two\nthree \0grader-output"
    os.close(output)  # the end: a tail held back as a possible mark's start is output after all
    channel.drain(30)
    assert channel.take_output()[1] == "\0grader-out"
    os.close(lines)


def test_every_portable_reply_has_the_output_written_before_it(tmp_path):
    # The real child, many calls: each reply's stderr holds what the call wrote at fd level
    # just before returning (the test above makes the race certain; this one runs the child's
    # side of it).
    submission = tmp_path / "search.py"
    submission.write_text(CORRECT.read_text() + (
        "\nimport os\n_kept = alpha_beta\n_calls = [0]\n"
        "def alpha_beta(game, state, *args):\n"
        "    if args:  # a recursive call (the root search gets no bounds)\n"
        "        return _kept(game, state, *args)\n"
        "    _calls[0] += 1\n"
        "    value = _kept(game, state)\n"
        "    os.write(2, b'call %d\\n' % _calls[0])\n"
        "    return value\n"))
    case = load_case(AIMA)
    with PortableWorker(submission, calibration=machine_calibration()) as portable:
        replies = [portable.run(case, "alpha_beta") for _ in range(25)]
    assert [reply.status for reply in replies] == ["ok"] * 25
    assert [reply.stderr for reply in replies] == [f"call {n}\n" for n in range(1, 26)]


def _comparable(results) -> list:
    """What a student sees of a grading: scores, the feedback text, each test's verdict."""
    return [results.score, results.max_score, results.output] + [
        (t.number, t.name, t.max_score, t.score, t.outcome, t.output, t.summary)
        for t in results.tests]


@pytest.fixture(scope="module")
def graded_both_ways(tmp_path_factory, shared_answers) -> dict[str, dict]:
    """Every known-wrong variant graded on the public cases of the algorithms it touches, once
    sandboxed and once in the portable worker: mode -> name -> GradingResults. Two at a time,
    one mode after the other (the mode is read from the environment when a worker opens).
    Without the empty tic-tac-toe board: its full searches were two thirds of this fixture's
    time and show nothing the other cases do not (a budget stop in the portable worker has its
    own test below)."""
    folder = tmp_path_factory.mktemp("variants")
    cases = [path for path in sorted(PUBLIC.glob("*.json")) if path.name != EMPTY_BOARD]
    submissions = {name: VARIANTS.materialize(name, folder / name) for name in VARIANTS.VARIANTS}

    def run(name: str):
        algorithms = list(VARIANTS.VARIANTS[name].algorithms)
        return name, grade(submissions[name], cases, algorithms=algorithms,
                           answers=shared_answers)

    graded = {}
    for mode in ("0", "1"):
        with pytest.MonkeyPatch.context() as patch, ThreadPoolExecutor(max_workers=2) as pool:
            patch.setenv(PORTABLE_ENV, mode)
            graded[mode] = dict(pool.map(run, submissions))
    return graded


@pytest.mark.parametrize("name", sorted(VARIANTS.VARIANTS))
def test_portable_mode_gives_the_sandboxes_scores_and_feedback(name, graded_both_ways):
    sandboxed, portable = graded_both_ways["0"][name], graded_both_ways["1"][name]
    assert portable.tests and all(t.outcome != "grader_error" for t in portable.tests)
    assert _comparable(portable) == _comparable(sandboxed)


def test_the_comparison_covers_every_known_wrong_variant_and_their_mistakes_show(
        graded_both_ways):
    assert set(graded_both_ways["1"]) == set(VARIANTS.VARIANTS) == set(graded_both_ways["0"])
    partial = [name for name, results in graded_both_ways["1"].items()
               if 0 < results.score < results.max_score]
    assert len(partial) >= len(VARIANTS.VARIANTS) - 2  # (an MCTS mistake may pass the public
    # cases: seen only on hidden ones)


def test_grader_grade_refuses_the_portable_mode(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(PORTABLE_ENV, "1")
    results = tmp_path / "results.json"
    code = main(["grade", "--submission", str(CORRECT), "--cases", str(AIMA),
                 "--results", str(results)])
    assert code == 2
    written = json.loads(results.read_text())  # still a valid results file, saying why
    assert written["score"] == 0
    assert "full sandbox" in json.dumps(written) and "full sandbox" in capsys.readouterr().out


def test_grader_batch_refuses_the_portable_mode(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(PORTABLE_ENV, "1")
    (tmp_path / "export" / "submission_1").mkdir(parents=True)
    (tmp_path / "export" / "submission_1" / "search.py").write_text(CORRECT.read_text())
    code = main(["batch", str(tmp_path / "export"), "--out", str(tmp_path / "out"),
                 "--cases", str(AIMA)])
    assert code == 2 and "grader batch runs student code only in the full sandbox" in (
        capsys.readouterr().err)
    assert not (tmp_path / "out" / "submission_1").exists()  # nothing graded


LOCAL_CHECK_MARK = "pytest.mark." + "local_check"  # (spelt so this file is not among them)


def local_check_files() -> list[Path]:
    """The test files holding tests marked ``local_check`` (tests/conftest.py): grader check,
    the student/ pytest front end, grader render, the HTML report."""
    return sorted(path for path in (ROOT / "tests").glob("test_*.py")
                  if LOCAL_CHECK_MARK in path.read_text(encoding="utf-8"))


_LOCAL_CHECK_RUN: dict[str, Any] = {}


def start_local_check_run() -> None:
    """Start the portable run of the local-check tests (once): ``pytest -m local_check`` over
    :func:`local_check_files` with ``GRADER_PORTABLE=1``, output to a temporary file.

    tests/conftest.py calls this as soon as a session has collected the test below, so the run
    overlaps the rest of the suite (the suite mostly keeps one core busy) instead of adding its
    time; the test then waits for it. :func:`stop_local_check_run` ends it with the session."""
    if "proc" in _LOCAL_CHECK_RUN:
        return
    output = tempfile.TemporaryFile()
    env = {**os.environ, PORTABLE_ENV: "1"}
    _LOCAL_CHECK_RUN["output"] = output
    _LOCAL_CHECK_RUN["proc"] = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "local_check",
         "-rfE", *map(str, local_check_files())],
        cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=output, stderr=subprocess.STDOUT)


def stop_local_check_run() -> None:
    proc = _LOCAL_CHECK_RUN.get("proc")
    if proc is not None and proc.poll() is None:
        proc.kill()
        proc.wait()


def test_every_local_check_test_passes_in_the_portable_worker():
    """The local-check part of the suite, run again with the portable worker forced (what a
    Windows or macOS student's ``grader check`` runs), each test as it is in the main run;
    module fixtures and the subprocesses the tests start (the front end's pytest, ``python -m
    grader check``) inherit the mode."""
    files = local_check_files()
    assert {"test_html.py", "test_render.py", "test_local_platforms.py", "test_feedback.py",
            "test_cli.py", "test_html_browser.py"} <= {path.name for path in files}
    start_local_check_run()  # already running when the session started it
    proc, output = _LOCAL_CHECK_RUN["proc"], _LOCAL_CHECK_RUN["output"]
    proc.wait(timeout=900)
    output.seek(0)
    text = output.read().decode("utf-8", "replace")
    summary = text.strip().splitlines()[-1] if text.strip() else ""
    assert proc.returncode == 0, text[-8000:]
    passed = int(re.search(r"(\d+) passed", summary).group(1))
    assert passed >= 40 and "failed" not in summary and "error" not in summary, summary


def test_a_budget_stop_the_code_swallows_is_still_a_budget_stop(tmp_path):
    from grader.run.tracing import Budget

    swallower = tmp_path / "search.py"
    swallower.write_text(
        "def max_value(game, state, depth=0):\n"
        "    while True:\n"
        "        try:\n"
        "            game.result(state, game.actions(state)[0])\n"
        "        except BaseException:\n"
        "            pass\n")
    with PortableWorker(swallower, calibration=machine_calibration()) as portable:
        reply = portable.run(load_case(AIMA), "minimax", time_limit=0.3,
                             budget=Budget(result=50, evaluated=50))
    assert reply.status == "budget" and reply.budget_stop == {"kind": "result", "calls": 50}
    assert reply.generated == ["B"] * 50
