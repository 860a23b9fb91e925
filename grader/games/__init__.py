"""The game model: the interface (:mod:`.base`), explicit trees (:mod:`.tree`) and built-in games.

Built-in games are imported lazily by name through :func:`builtin_game`, so loading a tree case
never imports Connect Four.
"""

from __future__ import annotations

import importlib
from typing import Any

from grader.games.base import CHANCE, MAX, MIN, Game

# case-file name -> (module, factory). Each factory takes (state=None, **params).
BUILTIN_GAMES: dict[str, tuple[str, str]] = {
    "tictactoe": ("grader.games.tictactoe", "TicTacToe"),
    "nim": ("grader.games.nim", "Nim"),
    "connect4": ("grader.games.connect4", "ConnectFour"),
    "dice": ("grader.games.dice", "DiceRace"),
    "three_player": ("grader.games.three_player", "ThreePlayerTakeaway"),
    "mnk": ("grader.games.mnk", "MNKGame"),
    "chase": ("grader.games.chase", "Chase"),
}


def builtin_game(name: str, state: Any = None, params: dict | None = None, **options: Any) -> Game:
    """Build a built-in game at a position. ``options`` are depth_limit and friends."""
    module_name, class_name = BUILTIN_GAMES[name]
    factory = getattr(importlib.import_module(module_name), class_name)
    return factory(state=state, **(params or {}), **options)


__all__ = ["MAX", "MIN", "CHANCE", "Game", "builtin_game", "BUILTIN_GAMES"]
