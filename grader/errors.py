"""The grader's named errors, in two families that are never mixed.

* :class:`GameError` and its children are raised *to the student's code* when it misuses the
  game (an illegal action, ``utility`` on a non-terminal state, ...). They end up in the
  student's feedback.
* :class:`CaseError` (a TA's case file is wrong) and :class:`GraderError` (a bug or a broken
  installation) are the grader's own failures. Staff see them in full; a student sees a neutral
  message and never silently loses points.

Messages are lowercase, say what was expected, what was given (``!r``) and where.
"""

from __future__ import annotations


class GameError(Exception):
    """The searching code used the game in a way the rules do not allow."""


class IllegalActionError(GameError, ValueError):
    """``result(state, action)`` with an action that ``actions(state)`` does not list."""


class NotTerminalError(GameError):
    """``utility(state)`` on a state that is not terminal."""


class AboveCutoffError(GameError):
    """``evaluate(state)`` on a state that is neither terminal nor at the depth limit."""


class NotChanceNodeError(GameError):
    """``chance_outcomes(state)`` on a state where a player, not chance, moves."""


class CaseError(Exception):
    """A case file is invalid. Carries the file, the JSON path and, when known, line:column."""

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        path: str = "$",
        line: int | None = None,
        column: int | None = None,
    ) -> None:
        self.message = message
        self.file = file
        self.path = path
        self.line = line
        self.column = column
        super().__init__(self.location() + ": " + message)

    def location(self) -> str:
        where = self.file or "<case>"
        if self.line is not None:
            where += f":{self.line}" + (f":{self.column}" if self.column is not None else "")
        return f"{where}: at {self.path}"


class GraderError(Exception):
    """The grader itself failed (a bug, a broken install): staff must look, students must not lose
    points."""


class SubmissionError(Exception):
    """The submission cannot be loaded at all (no ``search.py``, unreadable zip, ...)."""
