"""``grader import-cs188``: a Berkeley CS188 ``GraphGameTreeTest`` as a ``start`` + ``states`` case.

The ``.test`` format (CS188's ``testParser.py``): ``key: "value"`` lines, and blocks opened by
``key:`` and three double quotes and closed by three double quotes; ``#`` starts a comment.
The fields used: ``alg`` (``MinimaxAgent``,
``AlphaBetaAgent``, ``ExpectimaxAgent``), ``depth``, ``num_agents``, ``start_state``,
``win_states`` / ``lose_states`` (space-separated), ``successors`` (``state action next``
lines, in search order) and ``evaluation`` (``state value`` lines).

How CS188's semantics map onto ours:

* Agent ``i`` moves at the states ``i`` plies below a multiple of ``num_agents`` from the start:
  agent 0 (Pacman) is MAX, the ghosts are MIN (chance, with equal probabilities, for
  ``ExpectimaxAgent``). A state reached at two depths that give different agents cannot be
  converted.
* CS188's ``depth`` counts rounds (every agent moves once); our ``depth_limit`` counts edges:
  ``depth * num_agents``.
* Win and lose states are terminal (successors listed for them are never searched, so they are
  dropped); the search scores terminals and states at the depth limit with ``evaluation``.
* CS188 prunes only on strict inequality, so an alpha-beta case gets ``"pruning": "strict"``
  by default; ``pruning`` (``grader import-cs188 --pruning``) may set ``inclusive`` or
  ``either`` instead (the case's rule overrides the course rubric's).
* The case's name is ``cs188-`` followed by the question folder (``q2``, ``q3``, ... when the file
  sits in one) and the file's stem, so the same file name in two questions gives two names.

Files are read as UTF-8 (:func:`read_cs188_text`); a UTF-8 byte-order mark is skipped; a UTF-16
or UTF-32 one, or bytes that are not UTF-8, are a :class:`Cs188FormatError` naming the line and
column. Only ``GraphGameTreeTest`` converts; any other ``class`` is named in the error.

With a ``.solution`` file (``action`` and ``generated``: CS188's sorted *set* of generated
states, the start included), the reference's root action and generated set are checked
against it, and every difference is reported.
"""

from __future__ import annotations

import math
import re
from collections import deque
from pathlib import Path
from typing import Any

import grader.algorithms as algorithm_specs
from grader.cases.authoring import case_name, schema_ref

SUPPORTED_CLASS = "GraphGameTreeTest"
PRUNING_CHOICES = ("strict", "inclusive", "either")
# CS188's agent classes and the algorithms they are (each spec's cs188_agent)
AGENTS = {spec.cs188_agent: spec.name for spec in algorithm_specs.registry().values()
          if spec.cs188_agent}
PRUNING_ALGORITHM = AGENTS["AlphaBetaAgent"]  # CS188's alpha-beta: the one a rule applies to
FIELDS = ("alg", "depth", "num_agents", "start_state", "win_states", "lose_states", "successors",
          "evaluation")


class Cs188FormatError(ValueError):
    """A CS188 file that cannot be read or converted: names the file, the line and the fix."""

    def __init__(self, message: str, file: str | Path | None = None, line: int | None = None):
        where = f"{file}:{line}" if file and line else str(file or "<cs188>")
        super().__init__(f"{where}: {message}")


_WIDE_BOMS = {b"\xff\xfe\x00\x00": "UTF-32", b"\x00\x00\xfe\xff": "UTF-32",
               b"\xff\xfe": "UTF-16", b"\xfe\xff": "UTF-16"}


def decode_cs188(raw: bytes, file: str | Path | None = None) -> str:
    """The text of a CS188 file's bytes: UTF-8, a UTF-8 byte-order mark skipped.

    Raises :class:`Cs188FormatError` for a UTF-16/UTF-32 byte-order mark or bytes that are not
    UTF-8, naming the line and column of the first bad byte.
    """
    for mark, encoding in _WIDE_BOMS.items():
        if raw.startswith(mark):
            raise Cs188FormatError(f"the file is {encoding} text (it starts with a {encoding} "
                                   "byte-order mark); save it as UTF-8", file, 1)
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        before = raw[:error.start]
        line = before.count(b"\n") + 1
        column = len(before) - (before.rfind(b"\n") + 1) + 1
        raise Cs188FormatError(f"the file is not UTF-8 text: byte 0x{raw[error.start]:02x} at "
                               f"column {column} ({error.reason}); save it as UTF-8 (it is "
                               "probably Latin-1 or Windows-1252)", file, line) from None


def read_cs188_text(path: str | Path) -> str:
    """A CS188 ``.test`` / ``.solution`` file's text (see :func:`decode_cs188`); OSError when it
    cannot be read."""
    return decode_cs188(Path(path).read_bytes(), path)


def cs188_name(file: str | Path | None) -> str:
    """The case name for a CS188 file: ``cs188-[<question>-]<stem>`` (see the module docstring)."""
    if file is None:
        return "cs188-test"
    path = Path(file)
    question = path.parent.name if re.fullmatch(r"q\d+\w*", path.parent.name) else ""
    return case_name("-".join(["cs188", question, path.stem] if question else
                              ["cs188", path.stem]))


def parse_test_text(text: str, file: str | Path | None = None) -> dict[str, str]:
    """The fields of a CS188 ``.test`` / ``.solution`` file, as its ``testParser`` reads them."""
    raw = text.split("\n")
    lines = [line.split("#", 1)[0] for line in raw]
    fields: dict[str, str] = {}
    i = 0
    while i < len(lines):
        line = lines[i]
        one = re.fullmatch(r'([^"]*?):\s*"([^"]*)"\s*', line)
        block = re.fullmatch(r'([^"]*?):\s*"""\s*', line)
        if not line.strip():
            i += 1
        elif one:
            fields[one[1].strip()] = one[2]
            i += 1
        elif block:
            end = next((j for j in range(i + 1, len(lines))
                        if re.fullmatch(r'\s*"""\s*', lines[j])), None)
            if end is None:
                raise Cs188FormatError(f'the block {block[1]!r} opened here has no closing """',
                                       file, i + 1)
            fields[block[1].strip()] = "\n".join(raw[i + 1:end])
            i = end + 1
        else:
            raise Cs188FormatError(f'expected `key: "value"` or `key: """`, got: {line.strip()!r}',
                                   file, i + 1)
    return fields


def _number(text: str) -> int | float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text!r} is not a finite number")
    return int(value) if value.is_integer() else value


def _table(fields: dict[str, str], key: str, width: int, file: Any) -> list[list[str]]:
    rows = []
    for line in fields[key].split("\n"):
        tokens = line.split()
        if not tokens:
            continue
        if len(tokens) != width:
            shape = "state action next" if width == 3 else "state value"
            raise Cs188FormatError(f"expected `{shape}` lines in {key!r}, got: {line.strip()!r}",
                                   file)
        rows.append(tokens)
    return rows


class UnsupportedTestError(Cs188FormatError):
    """A CS188 test of a class the importer does not convert (``PacmanGameTreeTest``, ...)."""


def convert(fields: dict[str, str], file: str | Path | None = None,
            out: str | Path | None = None, *, name: str | None = None,
            pruning: str = "strict") -> tuple[dict, list[str]]:
    """The case dict for a parsed ``.test``, and notes on what the conversion dropped.

    ``name`` defaults to :func:`cs188_name` of ``file``; ``pruning`` is the alpha-beta case's
    rule (one of :data:`PRUNING_CHOICES`; CS188's own is ``strict``).
    """
    if pruning not in PRUNING_CHOICES:
        raise ValueError(f"expected pruning to be one of {PRUNING_CHOICES}, got: {pruning!r}")
    kind = fields.get("class", SUPPORTED_CLASS)
    if kind != SUPPORTED_CLASS:
        raise UnsupportedTestError(f"class {kind!r} is not supported: only {SUPPORTED_CLASS} "
                                   "(an explicit game tree) converts to a case", file)
    missing = [key for key in FIELDS if key not in fields]
    if missing:
        raise Cs188FormatError(f"missing field(s) {', '.join(missing)}: is this a "
                               f"{SUPPORTED_CLASS}?", file)
    algorithm = AGENTS.get(fields["alg"])
    if algorithm is None:
        raise Cs188FormatError(f"expected alg to be one of {', '.join(AGENTS)}, got "
                               f"{fields['alg']!r}", file)
    spec = algorithm_specs.get(algorithm)
    try:
        depth, agents = int(fields["depth"]), int(fields["num_agents"])
        values = {state: _number(value) for state, value in _table(fields, "evaluation", 2, file)}
    except ValueError as error:
        raise Cs188FormatError(f"expected numbers for depth, num_agents and evaluation values "
                               f"({error})", file) from None
    if depth < 1 or agents < 1:
        raise Cs188FormatError(f"expected depth and num_agents >= 1, got {depth} and {agents}",
                               file)
    terminal = set(fields["win_states"].split()) | set(fields["lose_states"].split())
    successors: dict[str, list[list[str]]] = {}
    for state, action, child in _table(fields, "successors", 3, file):
        if any(a == action for a, _ in successors.get(state, [])):
            raise Cs188FormatError(f"state {state!r} has the action {action!r} twice", file)
        successors.setdefault(state, []).append([action, child])
    start, notes = fields["start_state"], []
    states: dict[str, dict[str, Any]] = {}
    agent_of: dict[str, int] = {start: 0}
    queue = deque([(start, 0)])
    while queue:  # breadth first: each state's agent from its depth, checked for agreement
        state, ply = queue.popleft()
        if state in states:
            continue
        moves = [] if state in terminal else successors.get(state, [])
        if state in terminal and successors.get(state):
            notes.append(f"{state!r} is a win/lose state, so its successors are never searched: "
                         "dropped")
        if not moves:
            if state not in values:
                raise Cs188FormatError(f"state {state!r} is terminal but has no evaluation: add "
                                       f"`{state} <value>` to evaluation", file)
            states[state] = {"value": values[state]}
            continue
        agent = agent_of[state]
        player = "max" if agent == 0 else ("chance" if spec.games.chance else "min")
        states[state] = {"player": player, "successors": moves}
        if player == "chance":
            states[state]["probabilities"] = [1 / len(moves)] * len(moves)
        if state in values:
            states[state]["eval"] = values[state]
        for _, child in moves:
            following = (agent + 1) % agents
            if agent_of.setdefault(child, following) != following:
                raise Cs188FormatError(f"state {child!r} is reached as agent {agent_of[child]}'s "
                                       f"and as agent {following}'s move; our cases give each "
                                       "state one player", file)
            queue.append((child, ply + 1))
    unused = sorted(set(successors) - set(states))
    if unused:
        notes.append(f"states not reachable from {start!r} are dropped: {', '.join(unused)}")
    source = Path(file) if file else Path("test.test")
    in_question = re.fullmatch(r"q\d+\w*", source.parent.name)
    shown = f"{source.parent.name}/{source.name}" if in_question else source.name
    rule = {"strict": "; strict pruning, as CS188", "inclusive": "; inclusive pruning (CS188 "
            "prunes on strict inequality)", "either": "; either pruning rule accepted"}[pruning]
    data = {"$schema": schema_ref(out), "name": name or cs188_name(file),
            "description": f"Imported from CS188 {shown} ({fields['alg']}, depth {depth}, "
            f"{agents} agents)" + (rule if spec.course_rule else ""),
            "algorithms": [algorithm], "depth_limit": depth * agents}
    if spec.course_rule:
        data["pruning"] = pruning
    data.update({"start": start, "states": states})
    return data, notes


__all__ = ["PRUNING_ALGORITHM", "PRUNING_CHOICES", "SUPPORTED_CLASS", "Cs188FormatError",
           "UnsupportedTestError", "convert", "cs188_name", "decode_cs188", "parse_test_text",
           "read_cs188_text"]
