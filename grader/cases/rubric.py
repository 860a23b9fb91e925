"""The rubric: how a course grades, in one typed object loaded from ``trees/rubric.toml``.

Every key is declared once below, with its default, its meaning and its check. The file has
three tables, all optional (a missing file gives the defaults):

```toml
[defaults]              # every algorithm
points = 1
pruning = "inclusive"   # the course's rule

[algorithms.mcts]       # overrides for one algorithm
points = 2

[random_trees]          # the smallest-failing-tree tests
points = {alpha_beta = 2}
```

A case's own fields override the rubric (:meth:`Rubric.settings_for`): ``points``,
``visibility``, ``pruning``, ``time_limit`` (raises ``time_floor``) and ``mcts.seeds``.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grader.algorithms.assumptions import SETTINGS_FIELD as ASSUMPTIONS_FIELD
from grader.algorithms.mcts import SETTINGS_FIELD as MCTS_FIELD
from grader.cases.algorithms import (
    ALGORITHMS,
    OPPONENTS,
    PLAY_ALGORITHMS,
    RANDOM_TREE_ALGORITHMS,
)
from grader.errors import CaseError
from grader.paths import DEFAULT_RUBRIC

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

if TYPE_CHECKING:
    from grader.cases import Case

DEFAULT_PATH = DEFAULT_RUBRIC
VISIBILITIES = ("visible", "hidden", "after_due_date", "after_published")
RULES = ("inclusive", "strict")
# the [assumptions] table has its settings' name (grader.algorithms.assumptions.SETTINGS_FIELD)
TABLES = ("defaults", "algorithms", "random_trees", "play", ASSUMPTIONS_FIELD)
# [play] rates: measured to rank evaluations by strength (bench/strength.py, docs/staff.md)
DEFAULT_RATES = (("random", (1.0,)), ("greedy", (0.5, 0.6, 0.7, 0.8)),
                 ("baseline", (0.3, 0.4, 0.5)))

Check = Callable[[Any], "str | None"]  # a value -> what is wrong with it, or None


class RubricError(CaseError):
    """The rubric file is wrong: names the file, the key (``defaults.points``) and the line."""

    def location(self) -> str:
        where = self.file or "<rubric>"
        if self.line is not None:
            where += f":{self.line}" + (f":{self.column}" if self.column is not None else "")
        return f"{where}: at {self.path}" if self.path else where


def _number(low: float | None = None, high: float | None = None, *, low_open: bool = False,
            integer: bool = False) -> Check:
    what = "an integer" if integer else "a number"
    if low is not None:
        what += f" {'>' if low_open else '>='} {low:g}"
    if high is not None:
        what += f" and <= {high:g}" if low is not None else f" <= {high:g}"

    def check(value: Any) -> str | None:
        ok = isinstance(value, int if integer else (int, float)) and not isinstance(value, bool)
        if ok and low is not None:
            ok = value > low if low_open else value >= low
        if ok and high is not None:
            ok = value <= high
        return None if ok else f"expected {what}, got: {value!r}"

    return check


def _one_of(options: tuple[str, ...]) -> Check:
    def check(value: Any) -> str | None:
        if value in options:
            return None
        return f"expected one of {', '.join(map(repr, options))}, got: {value!r}"

    return check


def _boolean(value: Any) -> str | None:
    return None if isinstance(value, bool) else f"expected true or false, got: {value!r}"


def _points_table(value: Any) -> str | None:
    if isinstance(value, dict):
        for algorithm, points in value.items():
            if algorithm in ALGORITHMS and algorithm not in RANDOM_TREE_ALGORITHMS:
                return (f"{algorithm} has no random-tree test (random trees are drawn for "
                        f"{', '.join(RANDOM_TREE_ALGORITHMS)}); remove {algorithm}")
            if algorithm not in ALGORITHMS:
                return (f"expected algorithm names as keys ({', '.join(RANDOM_TREE_ALGORITHMS)}), "
                        f"got: {algorithm!r}")
            problem = _number(0)(points)
            if problem:
                return f"{algorithm}: {problem}"
        return None
    return _number(0)(value)


def _key(default: Any, doc: str, check: Check) -> Any:
    """A rubric key: its default, what it means (``doc``) and its validator."""
    return field(default=default, metadata={"doc": doc, "check": check})


@dataclass(frozen=True)
class AlgorithmRubric:
    """The settings of one algorithm's tests (``[defaults]`` and ``[algorithms.<name>]``)."""

    points: float = _key(1, "points of each (case, algorithm) test", _number(0))
    visibility: str = _key("visible", "when students see a test: " + ", ".join(VISIBILITIES),
                           _one_of(VISIBILITIES))
    hidden_visibility: str = _key("after_due_date", "visibility of the tests of cases in a "
                                  "hidden/ folder (unless the case sets its own)",
                                  _one_of(VISIBILITIES))
    pruning: str = _key("inclusive", "the course's pruning rule: inclusive (cut at v >= beta) "
                        "or strict (cut at v > beta, CS188's)", _one_of(RULES))
    partial_credit: float = _key(0.5, "fraction of the points for a right value with a wrong "
                                 "trace", _number(0, 1))
    work_multiple: float = _key(40, "the work budget: a test's search may make at most this "
                                "many times the reference's result calls on that case (plus "
                                "work_floor), and the same for utility/evaluate calls; past it "
                                "the search is stopped and graded on its trace so far",
                                _number(1))
    work_floor: int = _key(1000, "game calls every work budget allows on top of "
                           "work_multiple x the reference's", _number(0, integer=True))
    time_floor: float = _key(1.0, "CPU seconds a search may run without calling the game "
                             "(the time-out backstop for loops and sleeps; never below this)",
                             _number(0, low_open=True))
    time_multiple: float = _key(50, "the time-out backstop is also at least this multiple of a "
                                "fixed calibration workload timed by the worker (slow hardware "
                                "gets more seconds)", _number(0, low_open=True))
    outcome_seeds: int = _key(20, "mcts outcome checks: how many seeds a case runs",
                              _number(1, integer=True))
    outcome_share: float = _key(0.9, "mcts outcome checks: the share of seeds whose chosen move "
                                "must be minimax-optimal", _number(0, 1, low_open=True))
    outcome_needs_trace: bool = _key(
        True, "mcts outcome checks earn at most partial_credit unless the submission passes an "
        "mcts trace test (a search that is not MCTS finds the same moves)", _boolean)


@dataclass(frozen=True)
class RandomTreesRubric:
    """The random-tree tests: the smallest failing tree found is shown (``[random_trees]``)."""

    points: float | Mapping[str, float] = _key(
        0, "points of each algorithm's random-tree test: a number for all that have one (every "
        "algorithm but evaluate and iterative_deepening), or {algorithm = number} (missing "
        "algorithms: 0)", _points_table)
    count: int = _key(200, "random trees tried a test", _number(1, integer=True))
    seed: int = _key(0, "seed of the tree generator", _number(0, integer=True))

    def points_for(self, algorithm: str) -> float:
        if algorithm not in RANDOM_TREE_ALGORITHMS:
            return 0
        if isinstance(self.points, Mapping):
            return self.points.get(algorithm, 0)
        return self.points


def _threshold_list(value: Any, high: float | None = None) -> str | None:
    if not isinstance(value, list) or not value:
        return f"expected a non-empty list of numbers, got: {value!r}"
    for item in value:
        problem = _number(0, high, low_open=True)(item)
        if problem:
            return problem
    if value != sorted(value):
        return f"expected the thresholds in ascending order, got: {value!r}"
    return None


def _per_opponent(high: float | None) -> Check:
    def check(value: Any) -> str | None:
        if isinstance(value, dict):
            for opponent, given in value.items():
                if opponent not in OPPONENTS:
                    return (f"expected opponents as keys ({', '.join(OPPONENTS)}), "
                            f"got: {opponent!r}")
                problem = _threshold_list(given, high)
                if problem:
                    return f"{opponent}: {problem}"
            return None
        return _threshold_list(value, high)

    return check


def _by_opponent(given: Any, opponent: str, missing: tuple) -> list[float]:
    if isinstance(given, tuple):  # a default: (opponent, thresholds) pairs
        given = dict(given)
    if isinstance(given, Mapping):
        return list(given.get(opponent, missing))
    return list(given)


@dataclass(frozen=True)
class PlayRubric:
    """How ``evaluate`` cases play and score (``[play]``): a case's ``play`` overrides depth,
    matches and opening.

    A match scores 1 for a win and ``draw_weight`` for a draw; a side's *score rate* is its
    matches' scores over their number (the student plays ``x`` in half the matches and ``o`` in
    the other half). For each of the opponent's ``rates`` (steps), the test earns half of
    ``threshold_points`` when the score rate as ``x`` reaches it and half when the rate as ``o``
    does: a search right on one side only earns at most half, and steps against the baseline
    rank evaluations by strength (bench/strength.py measured them: docs/staff.md). A course
    may instead set ``thresholds``: counts of wins over all the matches, CS188's way (then
    ``rates`` are not used)."""

    depth: int = _key(2, "plies the search looks ahead before it calls evaluate",
                      _number(1, 4, integer=True))
    matches: int = _key(10, "matches a case plays, the student x in half of them and o in the "
                        "other half", _number(2, 100, integer=True))
    opening: int = _key(2, "random plies each match starts with (seeded), so matches differ",
                        _number(0, 10, integer=True))
    calls: int = _key(1000, "the work budget of one evaluation: result/utility calls",
                      _number(0, integer=True))
    draw_weight: float = _key(0.5, "what a draw counts for, a win counting 1", _number(0, 1))
    rates: Any = _key(
        DEFAULT_RATES,
        "score rates (wins + draw_weight x draws over the matches of one side) at which points "
        "are earned: half of threshold_points for each side (x, o) whose rate reaches one; a "
        "list for every opponent, or {opponent = list}, numbers in (0, 1]", _per_opponent(1))
    thresholds: Any = _key(
        (), "instead of rates: wins (draws counted draw_weight) over all the matches at which "
        "points are earned, CS188's way: a list for every opponent, or {opponent = list}; each "
        "at most the matches a case plays; empty (the default): scored by rates",
        lambda value: None if value == [] else _per_opponent(None)(value))
    threshold_points: float = _key(1, "points for each rate (or threshold) reached", _number(0))
    leaderboard: bool = _key(False, "write Gradescope leaderboard entries: each evaluate "
                             "case's score rate and its win-loss margin", _boolean)
    stop_when_decided: bool = _key(
        True, "end a case's matches once the ones left cannot change its points (each side's "
        "steps, or the thresholds, reached or out of reach whatever they give): the same "
        "points for fewer matches; false: every match is played (as with leaderboard = true, "
        "whose score rates are over all the matches)", _boolean)

    @property
    def by_wins(self) -> bool:
        """Scored by win counts (``thresholds`` set), not by score rates."""
        return bool(self.thresholds)

    def thresholds_for(self, opponent: str) -> list[float]:
        """The rates (or, with ``thresholds`` set, the win counts) for ``opponent``."""
        if self.by_wins:
            return _by_opponent(self.thresholds, opponent, (1, 5, 10))
        return _by_opponent(self.rates, opponent, (0.5,))

    def unreachable(self, matches: int) -> str | None:
        """What is wrong with ``thresholds`` for a case of ``matches`` matches, or None."""
        if not self.by_wins:
            return None
        given = self.thresholds
        lists = dict(given) if isinstance(given, (Mapping, tuple)) else {"every opponent": given}
        for opponent, values in lists.items():
            if values and max(values) > matches:
                return (f"threshold {max(values):g} ({opponent}) cannot be reached in "
                        f"{matches} matches: lower it or raise matches")
        return None


@dataclass(frozen=True)
class AssumptionsRubric:
    """How ``assumptions`` cases play (``[assumptions]``): the lectures' "modeling
    assumptions" matches in ``chase``; a case's ``assumptions`` overrides depth and matches."""

    depth: int = _key(4, "plies the agent looks ahead, its own move included (each action's "
                      "value: the student's search on the child, depth_limit depth - 1)",
                      _number(2, 8, integer=True))
    ghost_depth: int = _key(4, "plies the adversarial ghost's search (the staff's) looks ahead",
                            _number(2, 8, integer=True))
    matches: int = _key(4, "matches a case plays against each of its ghosts",
                        _number(1, 50, integer=True))


@dataclass(frozen=True)
class TestSettings:
    """Everything grading needs to know about one (case, algorithm) test."""

    __test__ = False  # not a pytest class

    points: float
    visibility: str
    pruning: str  # inclusive, strict or either (the case accepts both)
    partial_credit: float
    work_multiple: float
    work_floor: int
    time_floor: float
    time_multiple: float
    outcome_seeds: int
    outcome_share: float
    outcome_needs_trace: bool = True

    @property
    def accepted_pruning(self) -> tuple[str, ...]:
        """The rules whose trace passes: the course's first."""
        return RULES if self.pruning == "either" else (self.pruning,)


@dataclass(frozen=True)
class Rubric:
    """The whole rubric. ``algorithms`` holds every algorithm, overrides merged in."""

    defaults: AlgorithmRubric = field(default_factory=AlgorithmRubric)
    algorithms: Mapping[str, AlgorithmRubric] = field(default_factory=dict)
    random_trees: RandomTreesRubric = field(default_factory=RandomTreesRubric)
    play: PlayRubric = field(default_factory=PlayRubric)
    assumptions: AssumptionsRubric = field(default_factory=AssumptionsRubric)
    path: Path | None = None  # where it was read from (None: built-in defaults)

    def for_algorithm(self, algorithm: str) -> AlgorithmRubric:
        if algorithm not in ALGORITHMS:
            raise ValueError(f"expected an algorithm, one of {ALGORITHMS}, got: {algorithm!r}")
        return self.algorithms.get(algorithm, self.defaults)

    @property
    def pruning(self) -> str:
        """The course's pruning rule (``[defaults]``)."""
        return self.defaults.pruning

    def settings_for(self, case: Case, algorithm: str) -> TestSettings:
        """The settings of ``case``'s ``algorithm`` test: the case's fields override the rubric."""
        base = self.for_algorithm(algorithm)
        points = case.points_for(algorithm)
        time_floor = base.time_floor
        if case.time_limit is not None:
            time_floor = max(time_floor, case.time_limit)
        mcts = getattr(case, MCTS_FIELD, None)
        in_hidden_folder = case.path is not None and "hidden" in Path(case.path).parts
        play = getattr(case, "play", None)
        if points is None and algorithm in PLAY_ALGORITHMS and play is not None:
            points = len(self.play.thresholds_for(play.opponent)) * self.play.threshold_points
        return TestSettings(
            points=base.points if points is None else points,
            visibility=case.visibility or (base.hidden_visibility if in_hidden_folder
                                           else base.visibility),
            pruning=case.pruning or base.pruning,
            partial_credit=base.partial_credit,
            work_multiple=base.work_multiple,
            work_floor=base.work_floor,
            time_floor=time_floor,
            time_multiple=base.time_multiple,
            outcome_seeds=getattr(mcts, "seeds", None) or base.outcome_seeds,
            outcome_share=base.outcome_share,
            outcome_needs_trace=base.outcome_needs_trace,
        )


def describe_keys() -> str:
    """Every key with its default and meaning (for docs and ``--help`` text)."""
    lines = []
    for table, cls in (("defaults / algorithms.<name>", AlgorithmRubric),
                       ("random_trees", RandomTreesRubric), ("play", PlayRubric),
                       (ASSUMPTIONS_FIELD, AssumptionsRubric)):
        lines.append(f"[{table}]")
        for item in fields(cls):
            lines.append(f"  {item.name} = {item.default!r}: {item.metadata['doc']}")
    return "\n".join(lines)


# --- loading -------------------------------------------------------------------------------


def _key_lines(text: str) -> dict[tuple[str, str], int]:
    """(table, key) -> line, for error messages; good enough for hand-written TOML."""
    lines, table = {}, ""
    for number, line in enumerate(text.splitlines(), 1):
        header = re.match(r"\s*\[\s*([^\]]+?)\s*\]", line)
        if header:
            table = header.group(1).replace('"', "").replace(" ", "")
            lines.setdefault((table, ""), number)
            continue
        key = re.match(r"\s*[\"']?([A-Za-z0-9_\-]+)[\"']?\s*=", line)
        if key:
            lines.setdefault((table, key.group(1)), number)
    return lines


def _section(cls: type, values: Any, table: str, base: Any, error: Callable) -> Any:
    if not isinstance(values, dict):
        raise error(f"expected a table [{table}], got: {values!r}", table, "")
    known = {item.name: item for item in fields(cls)}
    changes = {}
    for key, value in values.items():
        if key not in known:
            import difflib  # here: only a mistake's message needs it

            close = difflib.get_close_matches(key, list(known), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise error(f"unknown key {key!r}{hint}; the keys of [{table}] are "
                        f"{', '.join(known)}", table, key)
        problem = known[key].metadata["check"](value)
        if problem:
            raise error(f"{key}: {problem} ({known[key].metadata['doc']})", table, key)
        changes[key] = value
    return replace(base, **changes)


def rubric_from_dict(data: Mapping[str, Any], path: Path | None = None, text: str = "") -> Rubric:
    """A :class:`Rubric` from parsed TOML; raises :class:`RubricError` for a bad key or value."""
    lines = _key_lines(text)

    def error(message: str, table: str, key: str) -> RubricError:
        where = f"{table}.{key}" if key else table
        return RubricError(message, file=str(path) if path else None, path=where,
                           line=lines.get((table, key)))

    for table in data:
        if table not in TABLES:
            import difflib  # here: only a mistake's message needs it

            close = difflib.get_close_matches(table, list(TABLES), n=1)
            hint = f" (did you mean [{close[0]}]?)" if close else ""
            raise error(f"unknown table [{table}]{hint}; the rubric has [defaults], "
                        "[algorithms.<name>], [random_trees], [play] and [assumptions]", table, "")
    defaults = _section(AlgorithmRubric, data.get("defaults", {}), "defaults",
                        AlgorithmRubric(), error)
    overrides = data.get("algorithms", {})
    if not isinstance(overrides, dict):
        raise error(f"expected [algorithms.<name>] tables, got: {overrides!r}", "algorithms", "")
    algorithms = {}
    for name in ALGORITHMS:
        algorithms[name] = defaults
    for name, values in overrides.items():
        if name not in ALGORITHMS:
            raise error(f"unknown algorithm {name!r}; expected one of {', '.join(ALGORITHMS)}",
                        f"algorithms.{name}", "")
        algorithms[name] = _section(AlgorithmRubric, values, f"algorithms.{name}", defaults, error)
    random_trees = _section(RandomTreesRubric, data.get("random_trees", {}), "random_trees",
                            RandomTreesRubric(), error)
    play_table = data.get("play", {})
    play = _section(PlayRubric, play_table, "play", PlayRubric(), error)
    if isinstance(play_table, dict) and play_table.get("thresholds") and "rates" in play_table:
        raise error("set either rates (score rates on both sides) or thresholds (win counts), "
                    "not both", "play", "thresholds")
    problem = play.unreachable(play.matches)
    if problem:
        raise error(problem, "play", "thresholds")
    assumptions = _section(AssumptionsRubric, data.get(ASSUMPTIONS_FIELD, {}), ASSUMPTIONS_FIELD,
                           AssumptionsRubric(), error)
    return Rubric(defaults=defaults, algorithms=algorithms, random_trees=random_trees, play=play,
                  assumptions=assumptions, path=path)


def load_rubric(path: str | Path | None = None) -> Rubric:
    """Read the rubric.

    ``path``: a TOML file, or a folder holding ``rubric.toml``; None: ``trees/rubric.toml``.
    A missing default file or a folder without one gives the defaults; a named file that does
    not exist is an error.
    """
    if path is None:
        path = DEFAULT_PATH
    path = Path(path)
    if path.is_dir():
        path = path / "rubric.toml"
    elif not path.exists() and path != DEFAULT_PATH:
        raise RubricError("no such rubric file; give an existing TOML file or a folder",
                          file=str(path), path="")
    if not path.exists():
        return rubric_from_dict({}, None)
    text = path.read_text(encoding="utf-8")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        where = re.search(r"\(at line (\d+), column (\d+)\)", str(error))
        message = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(error))
        raise RubricError(f"not valid TOML: {message}", file=str(path), path="",
                          line=int(where.group(1)) if where else None,
                          column=int(where.group(2)) if where else None) from error
    return rubric_from_dict(data, path, text)


__all__ = [
    "DEFAULT_PATH",
    "AlgorithmRubric",
    "AssumptionsRubric",
    "PlayRubric",
    "RandomTreesRubric",
    "Rubric",
    "RubricError",
    "TestSettings",
    "describe_keys",
    "load_rubric",
    "rubric_from_dict",
]
