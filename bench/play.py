"""The evaluate assignment's matches for one submission: ``python bench/play.py [SUBMISSION]``.

Grades ``SUBMISSION`` (default: the correct solution, tests/submissions/correct) on every
``evaluate-*`` case of trees/public and trees/hidden under the default rubric (trees/rubric.toml:
2 to 20 matches a case at depth 2), in this process and one sandbox worker, as ``grader grade``
does. Prints the wall time, the CPU seconds of the grader and of the worker, the positions
the worker evaluated and the requests it took, per case and in all. Run it once: the machine
may be shared, so the CPU seconds are the fair figure.

``python bench/play.py --overhead``: the worker's own cost, beyond the student's: a worker of a
submission whose ``evaluate`` returns 0 asked for 5,000 distinct positions of each play game
(seeded random play) in requests of 1,000, then for one position 200 times; prints its CPU
(``/proc``, 10 ms ticks) a position and a request, and the grader's a request.
"""

from __future__ import annotations

import os
import resource
import sys
import time
from pathlib import Path

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


def main(argv: list[str]) -> int:
    if argv == ["--overhead"]:
        return overhead()
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
