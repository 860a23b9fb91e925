"""A grade's worker requests served again in this process, beside the solution's own work.

``python bench/serve_replay.py record``: grades the correct solution (every public and hidden
case, in this process, as ``grader grade --hidden`` does) with each request the grader sends its
workers recorded (``Worker._exchange``), to ``serve-replay-requests.json`` in the temp folder.

``python bench/serve_replay.py serve [KIND]``: serves the recorded requests once more, in this
process, with the worker's own :func:`grader.sandbox.worker._serve` and tools (its CPU guard,
output capture, tracing, budget and tampering check, a grade's limits but each call's CPU
limits raised, :func:`unhurried`, so that valgrind's pace stops none; the submission imported
from its path, not under the worker's guard; no process, channel or sandbox); with ``KIND`` only
those of one kind: an algorithm, ``evaluate`` (the play cases' batches of positions),
``positions`` (the ``assumptions`` cases' searches) or ``none`` (no request: the imports and
set-up alone).

``python bench/serve_replay.py own KIND``: the correct solution's own work for the same tests,
with no grader around it, once, cold: :func:`bench.floor.own_work`'s calls of that algorithm
(``positions``: of ``assumptions``), or for ``evaluate`` the solution's ``evaluate`` on each
position the recorded requests asked, on the plain game (every kind's set-up is made, whichever
runs, the asked positions built included, so ``own none`` is the set-up alone).

Each prints its CPU seconds, which this machine's drift moves by a third; the figures to compare
are instructions, which it does not move: ``PYTHONHASHSEED=0 valgrind --tool=callgrind python
bench/serve_replay.py serve minimax`` less the same with ``none``, beside ``own minimax`` less
``own none`` (user-space instructions: the guard's system calls are not in them). The
sandboxed worker cannot run under valgrind (its limits and confinement), so this is how the
worker's own cost a request is counted; what the real worker spends outside
``_serve`` (reading and writing the channel) is a few hundredths of a CPU second a grade
(docs/benchmarks.md). Record again after a change to the cases, the rubric or the protocol.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench.floor import CASE_DIRS, CORRECT  # noqa: E402  (the floor's submission and cases)

RECORDED = Path(tempfile.gettempdir()) / "serve-replay-requests.json"


KINDS = ("evaluate", "positions", "none")  # and the algorithms


def kind(request: dict[str, Any]) -> str:
    """A request's kind: its algorithm, ``evaluate`` or ``positions`` (a batch of positions)."""
    from grader.sandbox.protocol import POSITIONS_REQUEST

    positions = request.get(POSITIONS_REQUEST)
    if isinstance(positions, dict):
        return "positions" if "algorithm" in positions else "evaluate"
    return str(request.get("algorithm"))


def record() -> list[dict[str, Any]]:
    """One grade's requests, in the order sent, written to :data:`RECORDED`."""
    from grader.cases.rubric import load_rubric
    from grader.sandbox.client import Worker
    from grader.scoring.grade import grade

    sent: list[dict[str, Any]] = []
    exchange = Worker._exchange

    def recording(self: Worker, request: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
        sent.append(request)
        return exchange(self, request, *args, **kwargs)

    Worker._exchange = recording  # type: ignore[method-assign]
    try:
        grade(CORRECT, CASE_DIRS, rubric=load_rubric())
    finally:
        Worker._exchange = exchange  # type: ignore[method-assign]
    RECORDED.write_text(json.dumps(sent))
    return sent


def checked_kind(wanted: str | None) -> str | None:
    """``wanted`` as a kind of request (``assumptions``: its requests' kind, ``positions``);
    SystemExit naming the kinds when it is none of them."""
    from grader.algorithms import names

    if wanted is not None and wanted not in KINDS and wanted not in names():
        raise SystemExit(f"no kind {wanted!r}: an algorithm ({', '.join(names())}) or "
                         f"{', '.join(KINDS)}")
    return "positions" if wanted == "assumptions" else wanted


def recorded(wanted: str | None) -> list[dict[str, Any]]:
    """The recorded requests (of kind ``wanted``; all with None)."""
    wanted = checked_kind(wanted)
    if not RECORDED.exists():
        raise SystemExit(f"no {RECORDED}: run `python bench/serve_replay.py record` first")
    return [request for request in json.loads(RECORDED.read_text())
            if wanted is None or kind(request) == wanted]


UNHURRIED = 3600.0  # CPU seconds a call may take here: valgrind runs code about 50 times slower


def unhurried(request: dict[str, Any]) -> dict[str, Any]:
    """``request`` with its CPU limits (the window, the most, a batch's each and left) raised to
    :data:`UNHURRIED`: the same work, never stopped by the clock (under valgrind a recorded
    limit stops a long call part way, and the count with it). The budget of game calls stays."""
    from grader.sandbox.protocol import POSITIONS_REQUEST, SEEDS_REQUEST

    raised = {**request, "time_limit": UNHURRIED, "cpu_most": UNHURRIED}
    for field in (POSITIONS_REQUEST, SEEDS_REQUEST):
        batch = request.get(field)
        if isinstance(batch, dict):
            raised[field] = {**batch, "left": UNHURRIED * len(batch.get("most") or [0]),
                             **({"most": [UNHURRIED] * len(batch["most"])}
                                if "most" in batch else {})}
    return raised


def serve(wanted: str | None) -> float:
    """The CPU seconds of serving the recorded requests (of kind ``wanted``) in this process
    (this thread's clock: the guard arms a CPU limit, under which the process's clock moves in
    ticks)."""
    from dataclasses import asdict

    from grader.sandbox import worker
    from grader.sandbox.failures import guarded_objects
    from grader.sandbox.guard import CpuGuard
    from grader.sandbox.limits import Limits

    requests = [unhurried(request) for request in recorded(wanted)]
    limits = asdict(Limits())  # a grade's, as the parent sends them
    with tempfile.TemporaryDirectory(prefix="serve-replay-") as scratch:
        tools = worker.worker_tools(worker.prepare_process({"scratch": scratch}),
                                    send=lambda message: None, receive=lambda: None)
        guard = CpuGuard(tools, float(limits["kill_margin"]))
        spec = importlib.util.spec_from_file_location("search", CORRECT)
        module = importlib.util.module_from_spec(spec)
        sys.modules["search"] = module
        spec.loader.exec_module(module)
        # taken once every name of this process's modules is bound (this module's too): a
        # name bound later is a change the check names, the long way, every request
        snapshot = guarded_objects()
        started = time.thread_time()
        statuses = [worker._serve(request, module, "search.py", limits, tools, guard,
                                  snapshot).get("status") for request in requests]
        spent = time.thread_time() - started
    wrong = [status for status in statuses if status != "ok"]
    if wrong:
        raise SystemExit(f"{len(wrong)} of {len(statuses)} requests not ok: {wrong[:5]}")
    return spent


def own(wanted: str) -> float:
    """The CPU seconds of the solution's own work for the tests of kind ``wanted``."""
    from bench.floor import own_work
    from bench.sections import import_student
    from grader.cases import find_cases, load_case
    from grader.cases.rubric import load_rubric
    from grader.games import builtin_game
    from grader.sandbox.protocol import POSITIONS_REQUEST

    wanted = checked_kind(wanted)
    requests = recorded("evaluate")
    student = import_student(CORRECT)
    # every kind's set-up, whichever is run (the assumptions cases' matches planned, each
    # case's game built, the asked positions built), so that ``own KIND`` less ``own none``
    # counts the calls alone
    work = own_work([load_case(path) for path in find_cases(CASE_DIRS)], load_rubric(), student)
    batches = []
    for request in requests:
        asked = request[POSITIONS_REQUEST]
        game = builtin_game(asked["game"], None, dict(asked.get("params") or {}))
        batches.append((game, [game.state_from_id(state) for state in asked["ids"]]))
    evaluate = student["evaluate"]
    work["evaluate"] = [lambda: [evaluate(game, state) for game, states in batches
                                 for state in states]]
    calls = work.get("assumptions" if wanted == "positions" else wanted, [])
    started = time.thread_time()
    for call in calls:
        call()
    return time.thread_time() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=["record", "serve", "own"])
    parser.add_argument("kind", nargs="?", help="an algorithm, evaluate, positions or none")
    args = parser.parse_args(argv)
    if args.what == "record":
        from collections import Counter

        sent = record()
        print(f"{len(sent)} requests to {RECORDED}: "
              f"{dict(Counter(kind(request) for request in sent).most_common())}")
    elif args.what == "serve":
        print(f"served in {serve(args.kind):.3f} CPU s")
    else:
        if not args.kind:
            parser.error("own needs a KIND")
        print(f"the solution's own work: {own(args.kind):.3f} CPU s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
