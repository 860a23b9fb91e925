"""The docs' examples as tests: the fenced blocks of README.md and docs/*.md marked ``test``.

The convention (docs/testing-docs.md): a block runs when its info string has the word ``test``
after the language, e.g. ```` ```console test ````. GitHub and editors read only the first
word, so the mark does not show. What a marked block must do, by its language:

* ``console``: lines ``$ COMMAND`` are run in order (bash, in a scratch copy of the
  repository, ``grader`` on PATH); the lines after each command, up to the next ``$``, are
  what it must print (stdout and stderr together, line by line, trailing spaces ignored); a
  line ``...`` stands for any number of lines.
* ``sh`` / ``bash`` (or no language): every command (a line, with ``\\`` continuations) must
  exit 0. ``$EDITOR`` is ``true``.
* ``json``: must parse (a fragment of members, ``"tree": ...``, is read inside ``{}``); one that
  gives a game (``tree``, ``start``, ``game``) must load as a case, the fields it leaves out
  filled in (``name``, ``description``, ``algorithms``: minimax, or mcts for ``"mcts"``
  settings).
* ``toml``: must load as a rubric (every key known, every value allowed).

The blocks of one file run in order in one scratch copy, so a walk-through's later commands
see what earlier ones wrote. :func:`check_doc` returns the problems, each naming the file and
line of the doc; an empty list is a doc that holds.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
FENCE = re.compile(r"^(?P<indent> *)(?P<fence>`{3,}|~{3,})\s*(?P<info>[^`]*)$")
MARK = "test"
# What a scratch copy holds: enough for every marked command (the grader runs from the copy,
# so its paths, the rubric and the schema are the copy's).
COPIED = ["grader", "reference", "trees", "student", "tests/cs188", "tests/submissions/correct",
          "pyproject.toml"]
COMMAND_TIMEOUT = 120


@dataclass
class Block:
    """One fenced block: where its first line is (1-based), its language, options and text."""

    path: Path
    line: int
    language: str
    options: list[str]
    text: str

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(REPO) if self.path.is_relative_to(REPO) else self.path}:{self.line}"


def blocks(path: Path, text: str | None = None) -> list[Block]:
    """Every fenced block of a Markdown file (indented ones, in list items, included)."""
    lines = (path.read_text(encoding="utf-8") if text is None else text).splitlines()
    found: list[Block] = []
    i = 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        indent, fence = len(opening["indent"]), opening["fence"]
        words = opening["info"].split()
        body: list[str] = []
        j = i + 1
        while j < len(lines) and not re.match(rf"^ *{re.escape(fence[0])}{{{len(fence)},}}\s*$",
                                              lines[j]):
            body.append(lines[j][indent:] if lines[j][:indent].strip() == "" else lines[j])
            j += 1
        found.append(Block(path, i + 2, words[0] if words else "", words[1:], "\n".join(body)))
        i = j + 1
    return found


def marked(path: Path, text: str | None = None) -> list[Block]:
    return [block for block in blocks(path, text) if MARK in block.options]


# --- a scratch copy of the repository ----------------------------------------------------------

def scratch_repo(where: Path) -> Path:
    """A copy of what the marked commands need, with ``grader`` (and ``.venv/bin/grader``,
    ``.venv/bin/python``) running this Python on the copy's package."""
    root = where / "repo"
    for name in COPIED:
        source, target = REPO / name, root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():  # __pycache__ too: copied times keep the compiled files valid
            shutil.copytree(source, target, ignore=shutil.ignore_patterns(".answer-key.json"))
        else:
            shutil.copy2(source, target)
    bin_dir = root / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    for name, run in (("grader", f'"{sys.executable}" -m grader'), ("python", f'"{sys.executable}"')):
        script = bin_dir / name
        script.write_text(f'#!/bin/sh\nPYTHONPATH="{root}" exec {run} "$@"\n')
        script.chmod(0o755)
    return root


def environment(root: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(PATH=f"{root / '.venv' / 'bin'}{os.pathsep}{env.get('PATH', '')}",
               NO_COLOR="1", EDITOR="true", COLUMNS="100", PYTHONPATH=str(root))
    return env


# --- checking blocks ---------------------------------------------------------------------------

def _matches(expected: list[str], actual: list[str]) -> bool:
    pattern = "".join("(?:.*\n)*?" if line.strip() == "..." else re.escape(line) + "\n"
                      for line in expected)
    return re.fullmatch(pattern, "".join(line + "\n" for line in actual)) is not None


def _trim(lines: list[str]) -> list[str]:
    lines = [line.rstrip() for line in lines]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def _run(command: str, root: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-c", command], cwd=root, env=environment(root), check=False,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          timeout=COMMAND_TIMEOUT)


def check_console(block: Block, root: Path) -> list[str]:
    problems = []
    steps: list[tuple[int, str, list[str]]] = []
    for offset, line in enumerate(block.text.splitlines()):
        if line.startswith("$ "):
            steps.append((block.line + offset, line[2:], []))
        elif steps:
            steps[-1][2].append(line)
        elif line.strip():
            problems.append(f"{block.where}: a console block starts with `$ COMMAND`, "
                            f"got: {line!r}")
    for line, command, expected in steps:
        done = _run(command, root)
        actual, expected = _trim(done.stdout.splitlines()), _trim(expected)
        if not _matches(expected, actual):
            problems.append(f"{block.path.name}:{line}: `{command}` printed\n"
                            + "\n".join(f"    {a}" for a in actual)
                            + "\n  where the doc shows\n"
                            + "\n".join(f"    {e}" for e in expected))
    return problems


def _commands(block: Block) -> list[tuple[int, str]]:
    commands: list[tuple[int, str]] = []
    pending, start = "", 0
    for offset, line in enumerate(block.text.splitlines()):
        if not pending:
            start = block.line + offset
        pending += line
        if line.endswith("\\"):
            pending = pending[:-1] + " "
            continue
        if pending.strip() and not pending.lstrip().startswith("#"):
            commands.append((start, pending))
        pending = ""
    return commands


def check_shell(block: Block, root: Path) -> list[str]:
    problems = []
    for line, command in _commands(block):
        done = _run(command, root)
        if done.returncode != 0:
            problems.append(f"{block.path.name}:{line}: `{command.strip()}` exited "
                            f"{done.returncode}:\n" + "\n".join(
                                f"    {out}" for out in done.stdout.splitlines()[-15:]))
    return problems


GAME_FORMS = ("tree", "start", "game")


def check_json(block: Block) -> list[str]:
    from grader.cases import case_from_dict
    from grader.errors import CaseError
    from grader.paths import SCHEMA_REF

    text = block.text.strip()
    try:
        data = json.loads("{" + text + "}" if text.startswith('"') else text)
    except ValueError as error:
        return [f"{block.where}: not valid JSON: {error}"]
    if not isinstance(data, dict) or not (set(GAME_FORMS) & set(data) or "mcts" in data):
        return []
    case = {"name": "doc-example", "description": "an example of the docs",
            "algorithms": ["mcts"] if "mcts" in data else ["minimax"], **data}
    if not set(GAME_FORMS) & set(data):
        case["tree"] = [[1, -1], [0, 1]]
    case["$schema"] = SCHEMA_REF
    try:
        case_from_dict(case)
    except CaseError as error:
        return [f"{block.where}: the example does not load as a case: {error.message} (at "
                + f"{error.path})"]
    return []


def check_toml(block: Block) -> list[str]:
    import tempfile

    from grader.cases.rubric import RubricError, load_rubric

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "rubric.toml"
        path.write_text(block.text, encoding="utf-8")
        try:
            load_rubric(path)
        except RubricError as error:
            return [f"{block.where}: the example does not load as a rubric: {error}"]
    return []


def check_doc(path: Path, root: Path, text: str | None = None) -> list[str]:
    """Run every marked block of ``path`` (or of ``text``, a doc's content) in ``root``."""
    problems = []
    for block in marked(path, text):
        if block.language == "console":
            problems += check_console(block, root)
        elif block.language in ("sh", "bash", "shell", ""):
            problems += check_shell(block, root)
        elif block.language == "json":
            problems += check_json(block)
        elif block.language == "toml":
            problems += check_toml(block)
        else:
            problems.append(f"{block.where}: a `{block.language} test` block: only console, "
                            "sh, json and toml blocks can be run")
    return problems
