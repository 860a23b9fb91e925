"""The evaluate assignment's matches for one submission: ``python bench/play.py [SUBMISSION]``.

Grades ``SUBMISSION`` (default: the correct solution, tests/submissions/correct) on every
``evaluate-*`` case of trees/public and trees/hidden under the default rubric (trees/rubric.toml:
2 to 20 matches a case at depth 2), in this process and one sandbox worker, as ``grader grade``
does. Prints the wall time, the CPU seconds of the grader and of the worker, the positions
the worker evaluated and the requests it took, per case and in all. Run it once: the machine
may be shared, so the CPU seconds are the fair figure.

``python bench/play.py --paired TREE [--runs N]``: this checkout against another one (``TREE``:
a checkout of the code before a change, e.g. ``git worktree add /tmp/before main``), paired:
``N`` runs each (default 5), alternating, each a fresh process grading the correct solution on
the five cases with that tree's code and worker; prints each run's and the medians' CPU of the
play tests alone (the grader's in them and their worker's, as ``bench/profile_grade.py`` splits
it: no interpreter, imports, case loading or worker start-up; the matches a worker's cases
play together before their tests, ``grade.play_ahead``, counted too), and the ratio of the
medians.
The machine's load changes both alike, as they alternate. ``--whole``: instead, each run is a
``grader grade --hidden`` of the correct solution (every case), its CPU that of the process and
its workers, interpreter and start-up included, each checkout's answer cache warmed by a run
not measured; ``--whole --play``: of the five cases alone.

``python bench/play.py --overhead``: the worker's own cost, beyond the student's: a worker of a
submission whose ``evaluate`` returns 0 asked for 5,000 distinct positions of each play game
(seeded random play) in requests of 1,000, then for one position 200 times; prints its CPU
(``/proc``, 10 ms ticks) a position and a request, and the grader's a request.

``python bench/play.py --replay N``: the grader's side of the matches alone, no worker: the
correct solution's values of every position the `evaluate` cases ask, taken from one grade (once,
kept in the system's temporary folder), then the cases' matches and their losing choices
played ``N`` times in this process from that table (each time with fresh games and an empty
baseline memo, as a one-off grade has); prints the least CPU of the ``N``. Deterministic work,
so ``valgrind --tool=callgrind python bench/play.py --replay 1`` minus the same with
``--replay 0`` counts its instructions (``PYTHONHASHSEED=0``): a figure the machine's load does
not move.
"""

from __future__ import annotations

import os
import resource
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from grader.cases.rubric import load_rubric  # noqa: E402
from grader.sandbox.client import Worker  # noqa: E402
from grader.scoring.grade import grade  # noqa: E402


def overhead() -> int:
    """The worker's cost a position and a request with an ``evaluate`` that returns 0."""
    import random
    import tempfile

    from bench.evaluations import submission as with_evaluation
    from grader.cases import load_case
    from grader.sandbox.watch import process_cpu

    correct = (REPO / "tests" / "submissions" / "correct" / "search.py").read_text()
    games = {}
    for path in sorted((REPO / "trees").glob("*/evaluate-*.json")):
        case = load_case(path)
        games.setdefault(case.game, case)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "search.py"
        path.write_text(with_evaluation("constant", correct))
        worker = Worker(path)
        try:
            worker.start()
            for name, case in games.items():
                game, rng, ids = case.build_game(), random.Random(0), {}
                while len(ids) < 5_000:
                    state = game.initial_state()
                    while not game.is_terminal(state):
                        ids.setdefault(game.state_id(state))
                        state = game.result(state, rng.choice(list(game.actions(state))))
                batch = list(ids)[:5_000]
                before = process_cpu(worker.pid) or 0.0
                for start in range(0, len(batch), 1_000):
                    worker.evaluate(case.game, case.params, batch[start:start + 1_000],
                                    calls=1000, seed=0)
                per_position = ((process_cpu(worker.pid) or 0.0) - before) / len(batch)
                before, grader_before = process_cpu(worker.pid) or 0.0, time.process_time()
                for state_id in batch[:200]:
                    worker.evaluate(case.game, case.params, [state_id], calls=1000, seed=0)
                per_request = ((process_cpu(worker.pid) or 0.0) - before) / 200
                grader = (time.process_time() - grader_before) / 200
                print(f"{name:10} worker CPU: {per_position * 1e6:.1f} us a position (requests "
                      f"of 1,000), {per_request * 1e3:.2f} ms a one-position request; grader "
                      f"CPU {grader * 1e3:.2f} ms a request")
        finally:
            worker.close()
    print(f"load average {os.getloadavg()[0]:.2f}")
    return 0


def replay(runs: int) -> int:
    """The matches' grader side from a table of values (module docstring)."""
    import hashlib
    import pickle
    import tempfile

    from grader.cases import load_case
    from grader.scoring import play as scoring_play
    from reference.evaluations import forget_positions

    paths = sorted((REPO / "trees").glob("*/evaluate-*.json"))
    rubric = load_rubric()
    correct = REPO / "tests" / "submissions" / "correct" / "search.py"
    # the positions asked depend on the staff's side too (its search, baseline and opponents,
    # the games, the rubric): a table made under older code lacks some
    searching = [*sorted((REPO / "reference").glob("*.py")),
                 *sorted((REPO / "grader" / "games").glob("*.py")), REPO / "trees" / "rubric.toml"]
    digest = hashlib.sha256(b"".join(p.read_bytes() for p in [correct, *paths, *searching])
                            ).hexdigest()
    table = Path(tempfile.gettempdir()) / f"play-replay-{digest[:16]}.pickle"
    if not table.exists():  # one grade with a worker, its answers kept
        values: dict[str, float] = {}
        asked = scoring_play.evaluate_ids

        def keeping(worker: Any, case: Any, ids: list[str], rubric: Any) -> dict[str, float]:
            got = asked(worker, case, ids, rubric)
            values.update(got)
            return got

        scoring_play.evaluate_ids = keeping  # type: ignore[assignment]
        grade(correct, paths, rubric=rubric)
        scoring_play.evaluate_ids = asked  # type: ignore[assignment]
        table.write_bytes(pickle.dumps(values))
    values = pickle.loads(table.read_bytes())
    cases = [load_case(path) for path in paths]
    least = None
    for _ in range(runs):
        scoring_play._GAMES.clear()
        forget_positions()
        start = time.process_time()
        for case in cases:
            records = scoring_play.play_case(case, rubric, lambda ids: {i: values[i] for i in ids})
            scoring_play._losing_choices(scoring_play._game(case), records,
                                         case.play.depth or rubric.play.depth)
        used = time.process_time() - start
        least = used if least is None else min(least, used)
    if least is not None:
        print(f"the matches' grader side, values from a table of {len(values):,}: "
              f"{least:.3f} CPU s (least of {runs}); load average {os.getloadavg()[0]:.2f}")
    return 0


# One grade of the five evaluate cases, in a fresh process in a checkout's folder (its own code
# and its worker's): the CPU of the play tests alone, as bench/profile_grade.py splits it.
PLAY_TESTS_CPU = """
import json, sys, time
from pathlib import Path
sys.path.insert(0, ".")
from grader.cases.rubric import load_rubric
from grader.sandbox import client
from grader.sandbox.watch import process_cpu
from grader.scoring import grade as grading
used = {"grader": 0.0, "worker": 0.0, "requests": 0, "positions": 0}
real_pair, real_evaluate = grading.grade_pair, client.Worker.evaluate
def counting(self, game, params, ids, **kwargs):
    used["requests"] += 1
    used["positions"] += len(ids)
    return real_evaluate(self, game, params, ids, **kwargs)
def counted(case, algorithm, number, rubric, worker, *args, **kwargs):
    worker.start()  # a start is not the test's
    pid = worker.pid
    before, own = process_cpu(pid) or 0.0, time.process_time()
    test = real_pair(case, algorithm, number, rubric, worker, *args, **kwargs)
    used["grader"] += time.process_time() - own
    used["worker"] += (process_cpu(worker.pid) or 0.0) - before if worker.pid == pid else 0.0
    return test
client.Worker.evaluate, grading.grade_pair = counting, counted
if hasattr(grading, "play_ahead"):  # the cases' matches played together, before their tests
    real_ahead = grading.play_ahead
    def ahead(worker, cases, rubric):
        worker.start()
        pid = worker.pid
        before, own = process_cpu(pid) or 0.0, time.process_time()
        real_ahead(worker, cases, rubric)
        used["grader"] += time.process_time() - own
        used["worker"] += (process_cpu(worker.pid) or 0.0) - before if worker.pid == pid else 0.0
    grading.play_ahead = ahead
results = grading.grade(Path("tests/submissions/correct/search.py"),
                        sorted(Path("trees").glob("*/evaluate-*.json")), rubric=load_rubric())
used["score"] = results.score
print(json.dumps(used))
"""


def paired(other: Path, runs: int, whole: bool = False, play_only: bool = False) -> int:
    """This checkout against ``other``, alternating (module docstring)."""
    import json
    import statistics
    import subprocess
    import tempfile

    trees = {"this": REPO, "other": other.resolve()}
    got: dict[str, list[dict]] = {name: [] for name in trees}
    if whole:  # each checkout's answer cache (and calibration) filled first, not measured
        for tree in trees.values():
            _whole_grade(tree, play_only, tempfile, subprocess, json)
    for run in range(runs):
        for name in (list(trees) if run % 2 == 0 else list(trees)[::-1]):
            if whole:
                figures = _whole_grade(trees[name], play_only, tempfile, subprocess, json)
            else:
                out = subprocess.run([sys.executable, "-c", PLAY_TESTS_CPU], cwd=trees[name],
                                     capture_output=True, text=True, check=True).stdout
                figures = json.loads(out.strip().splitlines()[-1])
                figures["cpu"] = figures["grader"] + figures["worker"]
            got[name].append(figures)
            detail = ("" if whole else
                      f"grader {figures['grader']:.2f} + worker {figures['worker']:.2f} = ")
            counts = ("" if whole else f"{figures['positions']:,} positions in "
                      f"{figures['requests']} requests; ")
            print(f"{name:5} run {run + 1}: {detail}{figures['cpu']:.2f} CPU s; {counts}"
                  f"score {figures['score']:g}; load {os.getloadavg()[0]:.1f}", flush=True)
    for name, rows in got.items():
        keys = ("cpu",) if whole else ("grader", "worker", "cpu")
        m = {key: statistics.median(f[key] for f in rows) for key in keys}
        detail = "" if whole else f"grader {m['grader']:.2f} + worker {m['worker']:.2f} = "
        print(f"{name:5} medians: {detail}{m['cpu']:.2f} CPU s ({trees[name]})")
    ratio = (statistics.median(f["cpu"] for f in got["this"])
             / statistics.median(f["cpu"] for f in got["other"]))
    print(f"this / other: {ratio:.2f}")
    return 0


def _whole_grade(tree: Path, play_only: bool, tempfile: Any, subprocess: Any, json: Any
                 ) -> dict:
    """A ``grader grade`` in ``tree`` (its code, its worker, its own answer cache), as a
    process: its CPU and its workers', and the score."""
    cases = (["--cases", *map(str, sorted((tree / "trees").glob("*/evaluate-*.json")))]
             if play_only else ["--hidden"])
    with tempfile.TemporaryDirectory() as folder:
        results = Path(folder) / "results.json"
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([sys.executable, "-m", "grader", "grade", "--submission",
                        str(tree / "tests" / "submissions" / "correct" / "search.py"), *cases,
                        "--results", str(results)], cwd=tree, check=True,
                       stdout=subprocess.DEVNULL,
                       env={**os.environ, "GRADER_CACHE": str(Path(tempfile.gettempdir())
                                                              / f"grader-paired-{tree.name}")})
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        score = json.loads(results.read_text())["score"]
    return {"cpu": after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime,
            "score": score}


def main(argv: list[str]) -> int:
    if argv == ["--overhead"]:
        return overhead()
    if argv[:1] == ["--replay"]:
        return replay(int(argv[1]) if len(argv) > 1 else 5)
    if argv[:1] == ["--paired"]:
        runs = int(argv[argv.index("--runs") + 1]) if "--runs" in argv else 5
        return paired(Path(argv[1]), runs, "--whole" in argv, "--play" in argv)
    submission = Path(argv[0]) if argv else REPO / "tests" / "submissions" / "correct"
    cases = sorted((REPO / "trees").glob("*/evaluate-*.json"))
    counts = {"requests": 0, "positions": 0}
    original = Worker.evaluate

    def counting(self, game, params, ids, **kwargs):
        counts["requests"] += 1
        counts["positions"] += len(ids)
        return original(self, game, params, ids, **kwargs)

    Worker.evaluate = counting  # type: ignore[method-assign]
    rubric = load_rubric()
    before_self = resource.getrusage(resource.RUSAGE_SELF)
    before_children = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    results = grade(submission, cases, rubric=rubric)
    wall = time.perf_counter() - start
    after_self = resource.getrusage(resource.RUSAGE_SELF)
    after_children = resource.getrusage(resource.RUSAGE_CHILDREN)
    grader_cpu = (after_self.ru_utime + after_self.ru_stime
                  - before_self.ru_utime - before_self.ru_stime)
    worker_cpu = (after_children.ru_utime + after_children.ru_stime
                  - before_children.ru_utime - before_children.ru_stime)
    for test in results.tests:
        print(f"{test.case_name:32} {test.score:g}/{test.max_score:g}  {test.summary}")
    played = sum(len(test.extra_data.get("play", [])) for test in results.tests)
    print(f"\n{len(cases)} cases, {played} matches in all at depth "
          f"{rubric.play.depth}: score {results.score:g}/{results.max_score:g}")
    print(f"wall {wall:.2f} s; CPU: grader {grader_cpu:.2f} s, worker {worker_cpu:.2f} s; "
          f"{counts['positions']:,} positions evaluated in {counts['requests']} requests; "
          f"load average {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
