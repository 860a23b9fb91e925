"""The rules a case follows whatever its game form: fields against fields and algorithms.

Owns which algorithms fit which games (two players, chance nodes, pruning rules), whether leaf
values are numbers or lists (:func:`vector_values`), the checks of the top-level fields
(:func:`field_errors`) and the wording of a value or player that does not fit the case
(:func:`arity_problem`, :func:`player_problem`). The explicit and the built-in checks both use
them.
"""

from __future__ import annotations

from typing import Any

import grader.algorithms as algorithm_specs
from grader.cases.algorithms import ALGORITHMS, PAIR_ALGORITHMS
from grader.cases.schema import kind_of, plural, shorten
from grader.cases.text import case_error
from grader.errors import CaseError

# Which algorithms fit which games, from the specs (grader.algorithms). The inclusive/strict
# rule changes only the searches that follow the course's rule (alpha-beta, and iterative
# deepening, which runs it): Star1 and shallow pruning cut the same way under either, so
# maxn/strict would be a second name for maxn.
PRUNING_ALGORITHMS = tuple(n for n in ALGORITHMS if algorithm_specs.get(n).course_rule)
TWO_PLAYER_ALGORITHMS = tuple(n for n in ALGORITHMS if algorithm_specs.get(n).games.two_player
                              and not algorithm_specs.get(n).by_play)
NO_CHANCE_ALGORITHMS = tuple(n for n in ALGORITHMS if not algorithm_specs.get(n).games.chance
                             and not algorithm_specs.get(n).by_play)
DEEPENING_ALGORITHMS = PAIR_ALGORITHMS  # cut at every depth 1 .. depth_limit
NOISY_ALGORITHMS = tuple(n for n in ALGORITHMS if algorithm_specs.get(n).games.noisy_moves)
VECTOR_ALGORITHMS = tuple(n for n in ALGORITHMS if algorithm_specs.get(n).games.vector_leaves)


def vector_values(data: dict) -> bool:
    """Whether leaf values are lists (n players, or a max^n case) rather than numbers."""
    return data.get("players", 2) > 2 or any(a in VECTOR_ALGORITHMS
                                              for a in data.get("algorithms", ()))


def field_errors(data: dict, file: str | None) -> list[CaseError]:
    """Top-level fields that contradict each other or the algorithms."""
    errors = []
    algorithms = data["algorithms"]
    players = data.get("players", 2)

    def add(message: str, *parts: Any) -> None:
        errors.append(case_error(message, parts, file))

    listed = [algorithm_specs.get(a) for a in algorithms if a in ALGORITHMS]  # the case's order
    specs = [algorithm_specs.get(a) for a in ALGORITHMS if a in algorithms]  # the registry's
    vector = next((spec.name for spec in specs if spec.games.vector_leaves), None)
    for spec in listed:
        algorithm = spec.name
        at = ("algorithms", algorithms.index(algorithm))
        if players > 2 and algorithm in TWO_PLAYER_ALGORITHMS:
            add(f"{algorithm} is a two-player algorithm but this case has {players} players; "
                "use maxn (or mcts), or set players to 2", *at)
        if (players == 2 and vector is not None and not spec.games.vector_leaves
                and not spec.by_play):
            add(f"{vector} needs a list of payoffs at each leaf but {algorithm} needs one number "
                f"for MAX: put {vector} and {algorithm} in separate cases", *at)
    for spec in specs:
        if spec.games.depth_limit == "forbidden" and data.get("depth_limit") is not None:
            add(f"{spec.name} {spec.depth_limit_why}; set depth_limit to null or remove "
                f"{spec.name} from algorithms", "depth_limit")
    for spec in specs:
        if spec.games.depth_limit == "required" and data.get("depth_limit") is None:
            add(f"{spec.name} {spec.depth_limit_why}; set depth_limit, or remove {spec.name}",
                "algorithms", algorithms.index(spec.name))
    noisy = NOISY_ALGORITHMS
    if (data.get("quiescence_limit") is not None and noisy
            and not any(a in algorithms for a in noisy)):
        add(f"quiescence_limit is given but {noisy[0]} is not in algorithms; add {noisy[0]} to "
            "algorithms or remove quiescence_limit", "quiescence_limit")
    for spec in specs:  # an algorithm's own checks of its case (its settings, its game)
        if spec.case_checks:
            errors.extend(algorithm_specs.resolve(spec.case_checks)(data, file))
    for spec in algorithm_specs.registry().values():  # an algorithm's own settings object
        if spec.settings and spec.settings in data and spec.name not in algorithms:
            add(f"'{spec.settings}' settings are given but {spec.name} is not in algorithms; add "
                f"{spec.name} to algorithms or remove the settings", spec.settings)
    points = data.get("points")
    if isinstance(points, dict):
        for algorithm in points:
            if algorithm not in algorithms:
                add(f"points are given for {algorithm}, which is not in algorithms; add it to "
                    "algorithms or remove these points", "points", algorithm)
    for key in data.get("expect", {}):
        algorithm, _, rule = key.partition("/")
        if algorithm not in algorithms:
            add(f"expect gives answers for {algorithm}, which is not in algorithms; add it to "
                "algorithms or remove this entry", "expect", key)
        elif rule and algorithm not in PRUNING_ALGORITHMS:
            add(f"the pruning rule changes only alpha_beta's search ({algorithm}'s is the same "
                f"under inclusive and strict); write {algorithm!r} instead of {key!r}",
                "expect", key)
    bounds = data.get("value_bounds")
    if bounds is not None:
        if bounds[0] >= bounds[1]:
            add(f"value_bounds [{bounds[0]}, {bounds[1]}] is empty; give [L, U] with L < U",
                "value_bounds")
        if vector_values(data):
            add("value_bounds is for two-player expectimax (Star1 pruning) and needs numbers "
                "for leaf values; remove it", "value_bounds")
    if data.get("max_sum") is not None and not vector_values(data):
        add("max_sum is for maxn shallow pruning, over lists of payoffs; remove it, or make "
            "this a maxn case", "max_sum")
    return errors


def play_errors(data: dict, file: str | None) -> list[CaseError]:
    """An ``evaluate`` case: graded by play, on a grid game, alone in its case."""
    from grader.cases.algorithms import PLAY_ALGORITHMS, PLAY_GAMES

    errors = []
    algorithms = data["algorithms"]
    name = next(a for a in algorithms if a in PLAY_ALGORITHMS)
    at = ("algorithms", algorithms.index(name))
    if len(algorithms) > 1:
        errors.append(case_error("evaluate is graded by playing matches, not by a trace: give it "
                                 "a case of its own (algorithms: [\"evaluate\"])", at, file))
    if data.get("game") not in PLAY_GAMES:
        errors.append(case_error(f"evaluate plays a built-in game with a board: set game to one "
                                 f"of {', '.join(PLAY_GAMES)}", ("game",) if "game" in data
                                 else at, file))
    if "play" not in data:
        errors.append(case_error("an evaluate case needs 'play' settings: at least "
                                 "{\"opponent\": \"random\" | \"greedy\" | \"baseline\"}", at, file))
    if data.get("depth_limit") is not None:
        errors.append(case_error("an evaluate case's search depth is play.depth (default: the "
                                 "rubric's [play] depth); remove depth_limit", ("depth_limit",),
                                 file))
    return errors


def assumption_errors(data: dict, file: str | None) -> list[CaseError]:
    """An ``assumptions`` case: matches of ``chase``, alone in its case, its depth its own."""
    from grader.algorithms.assumptions import ALGORITHM as ASSUMPTIONS
    from grader.algorithms.assumptions import SETTINGS_FIELD
    from grader.algorithms.expectimax import ALGORITHM as EXPECTIMAX
    from grader.cases.algorithms import ASSUMPTION_GAME

    errors = []
    algorithms = data["algorithms"]
    at = ("algorithms", algorithms.index(ASSUMPTIONS.name))
    if len(algorithms) > 1:
        errors.append(case_error("assumptions is graded by the moves of matches, not by a trace: "
                                 "give it a case of its own (algorithms: [\"assumptions\"])", at,
                                 file))
    if data.get("game") != ASSUMPTION_GAME:
        errors.append(case_error(f"assumptions plays the built-in game {ASSUMPTION_GAME}: set "
                                 f"game to \"{ASSUMPTION_GAME}\"", ("game",) if "game" in data
                                 else at, file))
    if SETTINGS_FIELD not in data:
        errors.append(case_error(f"an assumptions case needs '{SETTINGS_FIELD}' settings: at "
                                 "least {\"agent\": \"minimax\" | \"expectimax\"}", at, file))
    elif (data[SETTINGS_FIELD].get("agent") == EXPECTIMAX.name
          and "search" in data[SETTINGS_FIELD]):
        errors.append(case_error("search chooses the minimax agent's function (alpha_beta or "
                                 "minimax); the expectimax agent searches with expectimax: "
                                 "remove search", (SETTINGS_FIELD, "search"), file))
    if data.get("depth_limit") is not None:
        errors.append(case_error("an assumptions case's search depth is assumptions.depth "
                                 "(default: the rubric's [assumptions] depth); remove "
                                 "depth_limit", ("depth_limit",), file))
    if "ghost" in (data.get("params") or {}):
        errors.append(case_error("the ghost's node is typed by the agent's assumption (minimax: "
                                 "min, expectimax: chance); remove params.ghost",
                                 ("params", "ghost"), file))
    return errors


def arity_problem(value: Any, vectors: bool, players: int) -> str | None:
    """Why ``value`` (a leaf's value or an eval) has the wrong shape for the case, or None."""
    if vectors:
        if not isinstance(value, list):
            return (f"expected a list of {players} numbers (one a player), got {shorten(value)} "
                    f"({kind_of(value)})")
        if len(value) != players:
            return (f"expected a list of {players} numbers (one a player), got "
                    f"{plural(len(value), 'number')} {shorten(value)}")
        return None
    if isinstance(value, list):
        hint = ("; a list of payoffs needs players > 2 or a maxn case" if all(
            isinstance(v, (int, float)) for v in value) else "")
        return f"expected one number (MAX's payoff), got the list {shorten(value)}{hint}"
    return None


def player_problem(player: Any, players: int) -> str | None:
    """Why ``player`` (as written) is not a player of a ``players``-player case, or None."""
    if isinstance(player, int) and player >= players:
        return (f"player {player} does not exist: this case has {players} players "
                f"(0..{players - 1}); fix the index or set players")
    return None
