"""Built-in games in cases: building the game a case names, and exploring it to check it.

Owns :func:`build_builtin` (the game's own complaint about its state or params becomes a
:class:`~grader.errors.CaseError`) and :func:`builtin_errors`, the structural check of a
``game`` case that ``grader validate`` runs: the players agree, the position is not over, and
up to :data:`BUILTIN_EXPLORE_LIMIT` states the search would score have values that fit the
case and its algorithms.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from grader.cases.rules import NO_CHANCE_ALGORITHMS, arity_problem, vector_values
from grader.cases.schema import shorten
from grader.cases.text import case_error
from grader.errors import CaseError
from grader.games.base import CHANCE, Game

BUILTIN_EXPLORE_LIMIT = 2000  # states a validation looks at in a built-in game


def build_builtin(data: dict, file: str | None = None) -> Game:
    """The built-in game of a case; the game's own complaint becomes a :class:`CaseError`."""
    from grader.games import BUILTIN_GAMES, builtin_game

    name = data["game"]
    bounds = data.get("value_bounds")
    try:
        game = builtin_game(
            name, data.get("state"), data.get("params"),
            depth_limit=data.get("depth_limit"),
            value_bounds=tuple(bounds) if bounds is not None else None,
            max_sum=data.get("max_sum"),
        )
        if data.get("quiescence_limit") is not None:
            game.quiescence_limit = data["quiescence_limit"]
        return game
    except ModuleNotFoundError as error:
        module = BUILTIN_GAMES.get(name, ("?",))[0]
        if error.name and module.startswith(error.name):
            raise case_error(f"the built-in game {name!r} is not available: module {module} is "
                             "missing", ("game",), file) from error
        raise case_error(f"the built-in game {name!r} failed to load: {error}", ("game",),
                         file) from error
    except Exception as error:
        if isinstance(error, TypeError) and "keyword argument" in str(error):
            raise case_error(f"the built-in game {name!r} rejected these params: {error}; see "
                             "docs/cases.md for its params", ("params",), file) from error
        raise case_error(f"the built-in game {name!r} rejected the state "
                         f"{shorten(data.get('state'))}: {error}", ("state",), file) from error


def _explore(game: Game, limit: int | None) -> tuple[list[Any], str | None]:
    """States the search would score (breadth first, then down the first and the last moves),
    and the id of a chance node met on the way (or None)."""
    scored, chance = [], None

    def is_cut(state: Any, depth: int) -> bool:
        return game.is_terminal(state) or (limit is not None and depth >= limit)

    def moves(state: Any) -> list[Any]:
        nonlocal chance
        if game.to_move(state) == CHANCE:
            chance = chance or game.state_id(state)
            return [action for action, _ in game.chance_outcomes(state)]
        return list(game.actions(state))

    root = game.initial_state()
    frontier, seen = deque([(root, 0)]), {game.state_id(root)}
    while frontier and len(seen) < BUILTIN_EXPLORE_LIMIT:
        state, depth = frontier.popleft()
        if is_cut(state, depth):
            scored.append(state)
            continue
        for action in moves(state):
            child = game.result(state, action)
            if game.state_id(child) not in seen:
                seen.add(game.state_id(child))
                frontier.append((child, depth + 1))
    for pick in (0, -1):  # a full game tree is too big to search: play two lines to the end
        state, depth = root, 0
        while not is_cut(state, depth):
            state, depth = game.result(state, moves(state)[pick]), depth + 1
        scored.append(state)
    return scored, chance


def builtin_errors(data: dict, file: str | None = None) -> list[CaseError]:
    """Build the built-in game and look at up to BUILTIN_EXPLORE_LIMIT states of it."""
    try:
        game = build_builtin(data, file)
    except CaseError as error:
        return [error]
    name, players = data["game"], data.get("players", 2)
    if game.players != players:
        return [case_error(f"the built-in game {name!r} has {game.players} players but this "
                           f"case says {players}; set \"players\": {game.players}",
                           ("players",) if "players" in data else (), file)]
    errors: list[CaseError] = []
    try:
        if game.is_terminal(game.initial_state()):
            return [case_error(f"this {name} position is already over: there is nothing to "
                               "search; give a position with moves left", ("state",), file)]
        scored, chance = _explore(game, data.get("depth_limit"))
        for state in scored:
            value = game.evaluate(state)
            value = list(value) if isinstance(value, tuple) else value
            problem = arity_problem(value, vector_values(data), players)
            if problem:
                errors.append(case_error(f"{name} scores {game.state_id(state)!r} {value!r}: "
                                         f"{problem}", ("algorithms",), file))
                break
            bounds = data.get("value_bounds")
            if bounds and not isinstance(value, list) and not bounds[0] <= value <= bounds[1]:
                errors.append(case_error(f"{name} scores {game.state_id(state)!r} {value!r}, "
                                         f"outside value_bounds {bounds}; Star1 pruning would "
                                         "be wrong: widen the bounds", ("value_bounds",), file))
                break
    except Exception as error:  # noqa: BLE001 - the game's own failure is the message
        return [case_error(f"the built-in game {name!r} failed while exploring this position: "
                           f"{type(error).__name__}: {error}", ("state",), file)]
    if chance is not None:
        for i, algorithm in enumerate(data["algorithms"]):
            if algorithm in NO_CHANCE_ALGORITHMS:
                errors.append(case_error(
                    f"{algorithm} cannot search chance nodes and {name} has them (at "
                    f"{chance!r}); use expectimax, or remove {algorithm}", ("algorithms", i), file))
    return errors
