"""Random-tree tests: find a tree where the student disagrees with the reference, then shrink it.

One test per algorithm whose rubric ``[random_trees] points`` are not 0. Hypothesis draws small
explicit trees shaped like the corpus's (case dicts in the full-tree form of docs/cases.md:
two-player numbers for ``minimax`` / ``alpha_beta`` / ``mcts``, chance nodes for
``expectimax``, vectors for ``maxn``; sometimes a depth limit, Star1 bounds or ``max_sum``).
Each tree runs through the sandbox worker and, in this process, through the reference
(:func:`grader.answers.solve.solve`) under the course's rule. On the first disagreement hypothesis
shrinks the tree (fewer nodes, smaller numbers), and the test shows the smallest one it found,
drawn, with the diff and the hint of any known mistake that explains it.

Reproducible and bounded: the rubric's ``seed``; ``count`` trees at most; at most
``2 * count + 100`` sandboxed calls and :data:`TIME_BUDGET` seconds, after which unseen trees
count as agreeing (seen ones keep their answer, so hypothesis sees a consistent function).
Without ``reference/`` (the handout) the tests are not run: :func:`handout_note` says so.
"""

from __future__ import annotations

import json
import time
import traceback
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, Phase, Verbosity, given, seed, settings
from hypothesis import strategies as st

import grader.algorithms as algorithm_specs
from grader.answers.store import reference_available
from grader.compare import Comparison, compare
from grader.feedback import diagnosis
from grader.feedback import failure as feedback
from grader.feedback.markdown import code_name, fenced_lines, inline_text
from grader.run.runner import RunResult
from grader.scoring.pair import note_failure
from grader.scoring.results import ALGORITHM_NUMBERS, GRADER_ERROR, PASSED, TestResult

TIME_BUDGET = 30.0  # seconds of searching and shrinking a test
MAX_DEPTH = 3  # leaves at depth 3 at most
HINT_TREES = 30  # failing trees a hint must explain besides the smallest
SCHEMA = "../../grader/schema/case.schema.json"


def random_test_name(algorithm: str) -> str:
    return f"{algorithm}: random trees (the smallest failing tree is shown)"


# --- the trees ------------------------------------------------------------------------------


def _node_id(position: tuple[int, ...]) -> str:
    """The shorthand scheme of docs/cases.md: A; B, C, ...; B1, B2; B1.1, ..."""
    if not position:
        return "A"
    return chr(ord("A") + position[0]) + ".".join(str(p) for p in position[1:])


@st.composite
def case_dicts(draw: Any, algorithm: str) -> dict[str, Any]:
    """A small case for ``algorithm``; every choice shrinks toward a smaller, plainer tree."""
    games = algorithm_specs.get(algorithm).games  # what its trees may hold
    vectors = games.vector_leaves  # three players, a payoff list at each leaf
    players = 3 if vectors else 2
    chance = games.chance
    # Each rarer feature is the larger draw, so shrinking drops it: a depth limit one tree in
    # four (2 or 1), Star1 bounds / max_sum one in four.
    limit = 0 if games.depth_limit == "forbidden" else draw(st.integers(0, 7))
    depth_limit = {6: 2, 7: 1}.get(limit)
    quiescence = games.noisy_moves  # always a limit; past it, quiet and noisy marks
    if quiescence:
        depth_limit = 1 if limit < 4 else 2
    bounded = (chance or vectors) and draw(st.integers(0, 3)) == 3
    total = 6  # max^n with max_sum: entries >= 0 summing to at most this

    def value() -> Any:
        if not vectors:
            return draw(st.integers(0, 9))
        entries, left = [], total
        for _ in range(players):
            entry = draw(st.integers(0, left if bounded else 5))
            entries.append(entry)
            left -= entry if bounded else 0
        return entries

    def player(parent: Any) -> Any:
        if parent is None:
            return draw(st.sampled_from([0, 1])) if not vectors else 0
        options = ["next", "same"] + (["chance"] if chance else [])
        kind = draw(st.sampled_from(options))
        if kind == "chance":
            return "chance"
        if parent == "chance":
            return draw(st.sampled_from([0, 1]))
        return parent if kind == "same" else (parent + 1) % players

    def node(position: tuple[int, ...], depth: int, parent: Any) -> dict[str, Any]:
        internal = depth == 0 or (depth < MAX_DEPTH and draw(st.integers(0, 3)) > 0)
        if not internal:
            return {"id": _node_id(position), "value": value()}
        mover = player(parent)
        count = draw(st.integers(2 if depth == 0 else 1, 3))
        children = [node(position + (i + 1,), depth + 1, mover) for i in range(count)]
        if mover == "chance":
            weights = [draw(st.integers(1, 3)) for _ in children]
            for child, weight in zip(children, weights):
                child["probability"] = weight / sum(weights)
        name = mover if vectors else _player_name(mover)
        data = {"id": _node_id(position), "player": name, "children": children}
        if depth_limit is not None and depth == depth_limit:
            data["eval"] = value()
        if quiescence and depth > depth_limit:  # reached along noisy moves: a stand pat
            data["eval"] = value()
        if quiescence and depth >= depth_limit and draw(st.integers(0, 1)):
            data["quiet"] = False
            for index, child in enumerate(children):
                if index == 0 or draw(st.integers(0, 1)):
                    child["noisy"] = True
        return data

    case = {"$schema": SCHEMA, "name": "random-tree", "description": "a random tree",
            "algorithms": [algorithm], "players": players, "tree": node((), 0, None)}
    if depth_limit is not None:
        case["depth_limit"] = depth_limit
    if bounded and chance:
        case["value_bounds"] = [0, 9]
    if bounded and vectors:
        case["max_sum"] = total
    if algorithm_specs.get(algorithm).iterations:  # its settings, under its name
        case[algorithm] = {"iterations": 30, "seed": 0}
    return case


def _player_name(player: Any) -> Any:
    return {0: "max", 1: "min"}.get(player, player) if isinstance(player, int) else player


def tree_size(case: dict[str, Any]) -> tuple[int, int, int]:
    """(leaves, nodes, sum of |numbers|): what "smallest" means among failing trees."""
    leaves = nodes = magnitude = 0
    stack = [case["tree"]]
    while stack:
        node = stack.pop()
        nodes += 1
        children = node.get("children", [])
        leaves += not children
        stack.extend(children)
        for key in ("value", "eval"):
            numbers = node.get(key, [])
            magnitude += sum(map(abs, numbers if isinstance(numbers, list) else [numbers]))
    return leaves, nodes, magnitude


# --- the search -----------------------------------------------------------------------------


@dataclass
class Disagreement:
    """One tree where the student's run differs from the reference's."""

    data: dict[str, Any]
    case: Any
    expected: RunResult
    got: RunResult | None  # None: the student's code did not return (``problem`` says why)
    comparison: Comparison | None
    problem: str = ""


class _Found(AssertionError):
    """Raised inside the hypothesis test on a disagreement (always the same type)."""


class Finder:
    """Runs hypothesis over random trees for one algorithm; remembers the smallest failure."""

    def __init__(self, worker: Any, algorithm: str, rule: str, *, count: int, seed_value: int,
                 time_limit: float = 1.0, budget: float = TIME_BUDGET) -> None:
        self.worker, self.algorithm, self.rule = worker, algorithm, rule
        self.count, self.seed, self.time_limit = count, seed_value, time_limit
        self.calls_left = 2 * count + 100
        self.deadline = time.monotonic() + budget
        self.tried = 0
        self.memo: dict[str, Disagreement | None] = {}
        self.smallest: Disagreement | None = None
        self.failures: list[Disagreement] = []  # every distinct failing tree, in order found

    def check(self, data: dict[str, Any]) -> Disagreement | None:
        """The disagreement on this tree, or None (also once the budget is spent)."""
        key = json.dumps(data, sort_keys=True)
        if key not in self.memo:
            spent = self.calls_left <= 0 or time.monotonic() > self.deadline
            self.memo[key] = None if spent else self._run(data)
        found = self.memo[key]
        if found is not None and all(found is not seen for seen in self.failures):
            self.failures.append(found)
        if found is not None and (self.smallest is None
                                  or tree_size(found.data) < tree_size(self.smallest.data)):
            self.smallest = found
        return found

    def _run(self, data: dict[str, Any]) -> Disagreement | None:
        from grader.answers.solve import solve
        from grader.cases import case_from_dict

        self.calls_left -= 1
        self.tried += 1
        case = case_from_dict(data)
        expected = solve(case, self.algorithm, pruning=self.rule)
        reply = self.worker.run(data, self.algorithm, time_limit=self.time_limit)
        if reply.status != "ok":
            problem = reply.message or reply.status
            if reply.error:
                problem = f"{reply.error.get('type', 'Error')}: {reply.error.get('message', '')}"
            return Disagreement(data, case, expected, None, None, problem)
        got = RunResult(value=reply.value, generated=reply.generated, evaluated=reply.evaluated)
        comparison = compare(expected, got)
        return None if comparison.passed else Disagreement(data, case, expected, got, comparison)

    def search(self) -> Disagreement | None:
        @seed(self.seed)
        @settings(max_examples=self.count, database=None, deadline=None, derandomize=False,
                  phases=(Phase.generate, Phase.shrink), verbosity=Verbosity.quiet,
                  suppress_health_check=list(HealthCheck), report_multiple_bugs=False)
        @given(case_dicts(self.algorithm))
        def agrees(data: dict[str, Any]) -> None:
            if self.check(data) is not None:
                raise _Found

        try:
            agrees()
        except _Found:
            pass
        except Exception:
            if self.smallest is None:
                raise
        return self.smallest


# --- the test -------------------------------------------------------------------------------


def _probe(worker: Any, algorithm: str) -> Any:
    """One call on a fixed two-leaf tree: is the function there at all?"""
    games = algorithm_specs.get(algorithm).games
    vectors = games.vector_leaves
    data = {"$schema": SCHEMA, "name": "probe", "description": "probe", "algorithms": [algorithm],
            "players": 3 if vectors else 2,
            "tree": {"id": "A", "player": "max" if not vectors else 0, "children": [
                {"id": "B", "value": [1, 0, 0] if vectors else 1},
                {"id": "C", "value": [0, 1, 0] if vectors else 0}]}}
    if games.depth_limit == "required":  # e.g. a quiescence case needs a depth limit
        data["depth_limit"] = 1
    return worker.run(data, algorithm, time_limit=5.0)


def _unusable(probe: Any) -> tuple[str, str] | None:
    """(outcome, message) when the function cannot be tried at all; None when it can."""
    function = code_name(probe.function)  # a forged reply's name is no Markdown
    if probe.status == "error" and (probe.error or {}).get("type") == "NotImplementedError":
        return "not_implemented", f"{function} is not implemented yet (it raises NotImplementedError)."
    if probe.status == "missing_function":
        return "missing", f"`search.py` has no function {function}; the grader calls it by that name."
    if probe.status == "import_error":
        return "error", "`search.py` could not be imported, so nothing in it could be graded."
    return None


def random_tree_test(algorithm: str, number: str, rubric: Any, worker: Any, *,
                     budget: float = TIME_BUDGET) -> TestResult:
    """Grade ``algorithm`` on random trees: full points when no disagreement is found."""
    settings_ = rubric.for_algorithm(algorithm)
    result = TestResult(name=random_test_name(algorithm), number=number, algorithm=algorithm,
                        case_name="random-trees", max_score=float(rubric.random_trees.points_for(algorithm)),
                        score=0.0, outcome=GRADER_ERROR, visibility=settings_.visibility)
    probe = _probe(worker, algorithm)
    unusable = _unusable(probe)
    if unusable:
        result.outcome, result.summary = unusable
        result.output = result.summary
        note_failure(result, probe)
        return result
    finder = Finder(worker, algorithm, settings_.pruning, count=rubric.random_trees.count,
                    seed_value=rubric.random_trees.seed, time_limit=max(1.0, settings_.time_floor),
                    budget=budget)
    found = finder.search()
    result.extra_data = {"trees_run": finder.tried}
    if found is None:
        result.outcome, result.score = PASSED, result.max_score
        result.summary = f"agrees with the reference on {finder.tried} random trees"
        return result
    result.outcome = "wrong_value" if found.comparison is None or not found.comparison.value.ok \
        else "wrong_trace"
    leaves = tree_size(found.data)[0]
    result.summary = f"disagrees with the reference on a random tree ({leaves} leaves shown)"
    result.output = "\n".join(report(found, algorithm, settings_.pruning, finder.tried,
                                      finder.failures))
    return result


def consistent_hints(found: Disagreement, others: list[Disagreement], algorithm: str,
                     rule: str) -> list[diagnosis.Hint]:
    """The hints that explain the smallest tree and every other failing tree seen (at most
    :data:`HINT_TREES`): a tiny tree often fits several mistakes, the others tell them apart.
    When none fits them all (two mistakes at once?), none: a wrong hint is worse than none."""
    hints = diagnosis.matching_hints(diagnosis.variant_runs(found.case, algorithm, rule),
                                     found.got)
    names = {hint.name for hint in hints}
    for other in [o for o in others if o is not found and o.got is not None][:HINT_TREES]:
        runs = diagnosis.variant_runs(other.case, algorithm, rule)
        names &= {hint.name for hint in diagnosis.matching_hints(runs, other.got)}
    return [hint for hint in hints if hint.name in names]


def report(found: Disagreement, algorithm: str, rule: str, tried: int,
           others: list[Disagreement] = ()) -> list[str]:
    """The smallest failing tree, drawn, with the diff and any known mistake's hint."""
    leaves = tree_size(found.data)[0]
    lines = feedback.wrap(
        f"Your `{algorithm}` disagrees with the reference on random trees ({tried} tried). "
        f"The smallest tree found where it does ({leaves} leaves"
        + (f", depth limit {found.case.depth_limit}" if found.case.depth_limit else "")
        + (f", pruning rule {rule}" if algorithm_specs.get(algorithm).window else "") + "):")
    if found.comparison is None:
        from grader.feedback.drawing import draw_tree

        empty = RunResult(value=None)
        problem = inline_text(found.problem)  # a worker's message: forgeable, shown inert
        lines += ["", *feedback.wrap(f"On it your code did not return: {problem}"),
                  *fenced_lines(draw_tree(found.case, found.expected, empty))]
        return lines
    try:
        hints = consistent_hints(found, others, algorithm, rule)
    except Exception:  # noqa: BLE001 - no hint is better than no report
        hints = []
    lines += ["", *feedback.comparison_report(found.comparison)]
    lines += feedback.tree_report(found.case, algorithm, rule, found.expected, found.got,
                                  found.comparison)
    lines += feedback.hints_report(hints)
    return lines


def random_tree_tests(rubric: Any, worker: Any, counters: dict[str, int],
                      wanted: set[str] | None = None,
                      name_filter: str | None = None) -> Iterator[TestResult]:
    """The random-tree test of each algorithm with points, numbered after its cases
    (``counters``: tests numbered so far per algorithm). Nothing without ``reference/``."""
    if not reference_available():
        return
    for algorithm in ALGORITHM_NUMBERS:
        if not random_test_selected(rubric, algorithm, wanted, name_filter):
            continue
        counters[algorithm] += 1
        number = f"{ALGORITHM_NUMBERS[algorithm]}.{counters[algorithm]}"
        try:
            yield random_tree_test(algorithm, number, rubric, worker)
        except Exception:  # noqa: BLE001 - a grader bug: staff see it, the student loses nothing
            yield TestResult(name=random_test_name(algorithm), number=number, algorithm=algorithm,
                             case_name="random-trees", max_score=0.0, score=0.0,
                             outcome=GRADER_ERROR, visibility="hidden",
                             output="This test could not be run; staff have been told.",
                             staff_output=traceback.format_exc(), summary="grader error")


def random_test_selected(rubric: Any, algorithm: str, wanted: set[str] | None,
                         name_filter: str | None) -> bool:
    """Whether ``algorithm``'s random-tree test runs: it has points, and the command's
    algorithms (``wanted``) and name filter take it."""
    if not rubric.random_trees.points_for(algorithm):
        return False
    if wanted and algorithm not in wanted:
        return False
    return not name_filter or name_filter in random_test_name(algorithm)


def handout_note(rubric: Any, wanted: set[str] | None = None, name_filter: str | None = None) -> str:
    """Where the reference is missing: which random-tree tests run on Gradescope only."""
    if reference_available():
        return ""
    skipped = [a for a in ALGORITHM_NUMBERS if random_test_selected(rubric, a, wanted, name_filter)]
    if not skipped:
        return ""
    points = sum(rubric.random_trees.points_for(a) for a in skipped)
    return (f"Random-tree tests for {', '.join(skipped)} ({points:g} points) are not run here: "
            "they need the reference, so they run on Gradescope.")


__all__ = [
    "Disagreement",
    "Finder",
    "case_dicts",
    "handout_note",
    "random_test_name",
    "random_tree_test",
    "random_tree_tests",
    "report",
    "tree_size",
]
