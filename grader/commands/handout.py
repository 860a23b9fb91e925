"""The student handout (``grader build handout``): the stubs, the grader, the public cases and
their answer key, the course's README and pyproject; checked before it is written.

The handout is checked (:func:`find_leaks`), by path and by content: no file from ``reference/``
or ``trees/hidden/``, no hidden case (by name, or by its game under another name), and no file
holding the body of a reference function: any ``WINDOW`` consecutive code lines of one, compared
with whitespace and comments ignored.
"""

from __future__ import annotations

import ast
import json
import re
import sys
from pathlib import Path

from grader.algorithms.alpha_beta import ALGORITHM as ALPHA_BETA
from grader.answers.store import CACHE_KEY
from grader.commands.bundle import BuildError, Entry, answer_key, check_cases, collect, file_entry
from grader.paths import REPO_ROOT

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

WINDOW = 3  # consecutive code lines of a reference function that count as its body
MIN_WINDOW_CHARS = 40  # shorter windows (`else:` / `return v` / ...) say nothing about a solution
IDENTITY_KEYS = ("$schema", "name", "description", "expect", "points", "visibility")


def handout_entries(root: Path = REPO_ROOT, *, cache: Path | None = CACHE_KEY) -> list[Entry]:
    """What students get; :func:`find_leaks` must find nothing in it before it is written."""
    from grader.cases import find_cases, load_case

    public = root / "trees" / "public"
    check_cases([public])
    cases = [load_case(path) for path in find_cases([public])]
    return [
        Entry("README.md", handout_readme((root / "docker/handout/README.md").read_text(),
                                          root / "trees" / "rubric.toml").encode()),
        Entry("pyproject.toml", handout_pyproject((root / "pyproject.toml").read_text()).encode()),
        file_entry(root, "bin/setup", executable=True),
        file_entry(root, "bin/grade", executable=True),
        file_entry(root, "docker/handout/bin/test", under="bin/test", executable=True),
        file_entry(root, "bin/setup.cmd"),  # the same three for Windows (cmd and PowerShell)
        file_entry(root, "bin/grade.cmd"),
        file_entry(root, "docker/handout/bin/test.cmd", under="bin/test.cmd"),
        *collect(root, "student"),
        *collect(root, "grader"),
        *collect(root, "trees/public"),
        Entry("trees/public/.answer-key.json",
              answer_key(root, cases, cache, staff_matches=False)),
        file_entry(root, "trees/rubric.toml"),
    ]


PRUNING_MARKER = re.compile(r"<!-- pruning-rule:[^>]*-->")
PRUNING_TEXT = {  # lines within 100 columns, as the rest of the README
    "inclusive": (
        "Alpha-beta here prunes **on equality** (the inclusive rule, as in the lectures and\n"
        "AIMA): a MAX node stops at `v >= beta`, a MIN node at `v <= alpha`. This is the rule\n"
        "the docstrings in `search.py` describe."),
    "strict": (
        "Alpha-beta here prunes **only on a strict inequality** (CS188's rule): a MAX node\n"
        "stops at `v > beta`, a MIN node at `v < alpha`; a value equal to the bound does not\n"
        "prune. Where the docstrings in `search.py` show `>=` / `<=`, use `>` / `<`."),
}


def handout_readme(text: str, rubric_path: Path) -> str:
    """The handout's README with the course's pruning rule (``trees/rubric.toml``, alpha-beta's)
    written where its marker is; a README without the marker is left as the course wrote it."""
    from grader.cases.rubric import load_rubric

    rule = load_rubric(rubric_path).for_algorithm(ALPHA_BETA.name).pruning
    return PRUNING_MARKER.sub(lambda _: PRUNING_TEXT[rule], text)


def handout_pyproject(text: str) -> str:
    """The repo's pyproject.toml without the ``reference`` package, testing ``student/``."""
    try:
        found = tomllib.loads(text)["tool"]["setuptools"]["packages"]["find"]["include"]
    except (KeyError, TypeError) as error:
        raise BuildError("expected pyproject.toml's [tool.setuptools.packages.find] include "
                         f"list (missing: {error}); [tool.setuptools] has a form this build "
                         "does not know") from None
    kept = [name for name in found if name.split(".")[0] != "reference"]
    listed = "include = " + json.dumps(kept)
    text = re.sub(r"(?m)^include\s*=\s*\[[^\]]*\]", lambda _: listed, text)
    text = re.sub(r"(?m)^testpaths\s*=\s*\[[^\]]*\]", 'testpaths = ["student"]', text)
    # reference/'s package data (the table of telling trees) goes with the package
    text = re.sub(r"(?m)^reference\s*=\s*\[[^\]]*\][^\n]*\n", "", text)
    # The import contracts name reference/ and check the staff tree: not the handout's business.
    text = re.sub(r"(?ms)^\[\[?tool\.importlinter[^\n]*\n.*?(?=^\[|\Z)", "", text).rstrip() + "\n"
    try:
        changed = tomllib.loads(text)["tool"]["setuptools"]["packages"]["find"]["include"] != kept
    except (tomllib.TOMLDecodeError, KeyError, TypeError):
        changed = True
    if changed:
        raise BuildError(f"expected to drop 'reference' from pyproject.toml's "
                         f"[tool.setuptools.packages.find] include {found!r}; "
                         "[tool.setuptools] has a form this build does not know")
    return text


# --- leak checks ----------------------------------------------------------------------------


def code_lines(text: str) -> list[str]:
    """The lines that carry code: stripped, inner whitespace collapsed, no blanks or comments."""
    lines = (" ".join(line.split()) for line in text.splitlines())
    return [line for line in lines if line and not line.startswith("#")]


def reference_bodies(root: Path = REPO_ROOT) -> dict[str, list[str]]:
    """``"minimax.py:_max_value"`` -> the code lines of that function's body, docstring left out."""
    bodies = {}
    for path in sorted((root / "reference").rglob("*.py")):
        text = path.read_text()
        lines = text.splitlines()
        for node in ast.walk(ast.parse(text, filename=str(path))):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            body = node.body
            if isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                body = body[1:]  # the docstring: conventions students are told anyway
            if body:
                source = "\n".join(lines[body[0].lineno - 1 : body[-1].end_lineno])
                name = f"{path.relative_to(root / 'reference').as_posix()}:{node.name}"
                bodies[name] = code_lines(source)
    return bodies


def _windows(root: Path) -> dict[tuple[str, ...], str]:
    windows = {}
    for function, lines in reference_bodies(root).items():
        size = min(WINDOW, len(lines))
        for start in range(len(lines) - size + 1):
            window = tuple(lines[start : start + size])
            if sum(map(len, window)) >= MIN_WINDOW_CHARS:
                windows.setdefault(window, function)
    return windows


def _hidden_cases(root: Path) -> tuple[set[str], dict[str, str]]:
    """Hidden cases' names (file stems and ``name`` fields), and their games' fingerprints."""
    names, games = set(), {}
    for path in sorted((root / "trees" / "hidden").rglob("*.json")):
        names.add(path.stem)
        try:
            data = json.loads(path.read_text())
        except ValueError:
            continue
        if isinstance(data, dict):
            names.add(str(data.get("name", path.stem)))
            games[_game_fingerprint(data)] = path.stem
    return names, games


def _game_fingerprint(data: dict) -> str:
    return json.dumps({k: v for k, v in data.items() if k not in IDENTITY_KEYS}, sort_keys=True)


def find_leaks(entries: list[Entry], root: Path = REPO_ROOT) -> list[str]:
    """Every way ``entries`` would show students a reference function or a hidden case."""
    problems = []
    names, games = _hidden_cases(root)
    words = "|".join(re.escape(name) for name in sorted(names, key=len, reverse=True))
    name_pattern = re.compile(rf"(?<![\w-])(?:{words})(?![\w-])" if words else "(?!)")
    windows = _windows(root)
    sizes = sorted({len(window) for window in windows})
    for entry in entries:
        if entry.path.startswith(("reference/", "trees/hidden/")):
            problems.append(f"{entry.path}: files from reference/ and trees/hidden/ never ship")
        text = entry.data.decode("utf-8", errors="replace")
        found = name_pattern.search(text)
        if found:
            problems.append(f"{entry.path}: names the hidden case {found.group(0)!r}")
        if entry.path.endswith(".json"):
            try:
                data = json.loads(text)
            except ValueError:
                data = None
            game = _game_fingerprint(data) if isinstance(data, dict) else None
            if game in games:
                problems.append(f"{entry.path}: is the hidden case {games[game]!r}, renamed")
        lines = code_lines(text)
        for size in sizes:
            hits = [tuple(lines[i : i + size]) for i in range(len(lines) - size + 1)]
            hit = next((window for window in hits if window in windows), None)
            if hit:
                function = windows[hit]
                problems.append(f"{entry.path}: holds the body of reference/{function}: {hit[0]!r}")
                break
    return problems


# --- writing --------------------------------------------------------------------------------


def refuse_leaks(entries: list[Entry], root: Path = REPO_ROOT) -> list[Entry]:
    """``entries``, or :class:`BuildError` listing every leak :func:`find_leaks` finds."""
    leaks = find_leaks(entries, root)
    if leaks:
        listed = "\n".join(f"  {leak}" for leak in leaks)
        raise BuildError(f"the handout would give answers away:\n{listed}")
    return entries


def checked_handout(root: Path, cache: Path | None) -> list[Entry]:
    """The handout's entries, checked for leaks (the ``handout`` target)."""
    return refuse_leaks(handout_entries(root, cache=cache), root)
