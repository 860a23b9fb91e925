"""``grader build``: the Gradescope autograder zip and the student handout, reproducibly.

A zip is built from a list of :class:`Entry` (path, bytes, executable?) and written sorted by
path, every entry dated 1980-01-01 (the zip format's first day) with mode 0644 or 0755, so the
same inputs give the same bytes. Nothing generated is collected: no ``__pycache__``, ``.venv``,
``.cache``, egg-info or dotfiles.

The handout is checked before it is written (:func:`find_leaks`), by path and by content: no
file from ``reference/`` or ``trees/hidden/``, no hidden case (by name, or by its game under
another name), and no file holding the body of a reference function: any ``WINDOW`` consecutive
code lines of one, compared with whitespace and comments ignored.
"""

from __future__ import annotations

import ast
import json
import os
import re
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from grader.answers.store import CACHE_KEY
from grader.errors import CaseError, GraderError
from grader.paths import REPO_ROOT

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ZIP_DATE = (1980, 1, 1, 0, 0, 0)
SKIPPED_DIRS = {"__pycache__", ".venv", "venv", ".cache", ".git", "node_modules"}
WINDOW = 3  # consecutive code lines of a reference function that count as its body
MIN_WINDOW_CHARS = 40  # shorter windows (`else:` / `return v` / ...) say nothing about a solution
IDENTITY_KEYS = ("$schema", "name", "description", "expect", "points", "visibility")


class BuildError(GraderError):
    """The build cannot go on (a leak into the handout, a missing file); nothing is written."""


@dataclass(frozen=True)
class Entry:
    """One file of a zip: its path inside it (``/``-separated), its bytes, its mode."""

    path: str
    data: bytes
    executable: bool = False


# --- collecting files -----------------------------------------------------------------------


def _collect(root: Path, folder: str) -> list[Entry]:
    """Every file below ``root/folder``, generated files and dotfiles left out."""
    base = root / folder
    if not base.is_dir():
        raise BuildError(f"expected a folder {folder}/ in {str(root)!r}, found none")
    entries = []
    for directory, subdirs, files in os.walk(base):
        subdirs[:] = sorted(d for d in subdirs if not _skipped(d) and not d.endswith(".egg-info"))
        for name in sorted(files):
            if _skipped(name) or name.endswith((".pyc", ".pyo")):
                continue
            path = Path(directory, name)
            inside = f"{folder}/{path.relative_to(base).as_posix()}"
            entries.append(Entry(inside, path.read_bytes(), bool(path.stat().st_mode & 0o100)))
    return entries


def _skipped(name: str) -> bool:
    return name.startswith(".") or name in SKIPPED_DIRS


def _file(root: Path, path: str, *, under: str | None = None,
          executable: bool | None = None) -> Entry:
    source = root / path
    if not source.is_file():
        raise BuildError(f"expected the file {path} in {str(root)!r}, found none")
    mode = bool(source.stat().st_mode & 0o100) if executable is None else executable
    return Entry(under or path, source.read_bytes(), mode)


def _check_cases(paths: list[Path]) -> None:
    from grader.answers.validate import validate_paths

    errors = validate_paths(paths)
    if errors:
        listed = "\n".join(f"  {error}" for error in errors[:20])
        raise BuildError(f"{len(errors)} case file error(s) (grader validate trees/):\n{listed}")


def autograder_entries(root: Path = REPO_ROOT, *, cache: Path | None = CACHE_KEY) -> list[Entry]:
    """What Gradescope unpacks to /autograder/source: setup.sh and run_autograder at the top,
    and every case's reference answers (``trees/.answer-key.json``, read by
    :meth:`AnswerKey.default`), so no submission waits for the reference to solve them."""
    from grader.cases import find_cases, load_case

    _check_cases([root / "trees"])
    cases = [load_case(path) for path in find_cases([root / "trees" / "public",
                                                     root / "trees" / "hidden"])]
    docker = [e for e in _collect(root, "docker") if not e.path.startswith("docker/handout/")]
    return [
        Entry("trees/.answer-key.json", answer_key(root, cases, cache)),
        _file(root, "docker/setup.sh", under="setup.sh", executable=True),
        _file(root, "docker/run_autograder", under="run_autograder", executable=True),
        *docker,
        _file(root, "pyproject.toml"),
        _file(root, "README.md"),  # pyproject's readme: the editable install reads it
        *_collect(root, "grader"),
        *_collect(root, "reference"),
        *_collect(root, "trees"),
    ]


def handout_entries(root: Path = REPO_ROOT, *, cache: Path | None = CACHE_KEY) -> list[Entry]:
    """What students get; :func:`find_leaks` must find nothing in it before it is written."""
    from grader.cases import find_cases, load_case

    public = root / "trees" / "public"
    _check_cases([public])
    cases = [load_case(path) for path in find_cases([public])]
    return [
        Entry("README.md", handout_readme((root / "docker/handout/README.md").read_text(),
                                          root / "trees" / "rubric.toml").encode()),
        Entry("pyproject.toml", handout_pyproject((root / "pyproject.toml").read_text()).encode()),
        _file(root, "bin/setup", executable=True),
        _file(root, "bin/grade", executable=True),
        _file(root, "docker/handout/bin/test", under="bin/test", executable=True),
        _file(root, "bin/setup.cmd"),  # the same three for Windows (cmd and PowerShell)
        _file(root, "bin/grade.cmd"),
        _file(root, "docker/handout/bin/test.cmd", under="bin/test.cmd"),
        *_collect(root, "student"),
        *_collect(root, "grader"),
        *_collect(root, "trees/public"),
        Entry("trees/public/.answer-key.json", answer_key(root, cases, cache)),
        _file(root, "trees/rubric.toml"),
    ]


PRUNING_MARKER = re.compile(r"<!-- pruning-rule:[^>]*-->")
PRUNING_TEXT = {
    "inclusive": (
        "Alpha-beta here prunes **on equality** (the inclusive rule, as in the lectures and "
        "AIMA): a MAX node stops at `v >= beta`, a MIN node at `v <= alpha`. This is the rule "
        "the docstrings in `search.py` describe."),
    "strict": (
        "Alpha-beta here prunes **only on a strict inequality** (CS188's rule): a MAX node stops "
        "at `v > beta`, a MIN node at `v < alpha`; a value equal to the bound does not prune. "
        "Where the docstrings in `search.py` show `>=` / `<=`, use `>` / `<`."),
}


def handout_readme(text: str, rubric_path: Path) -> str:
    """The handout's README with the course's pruning rule (``trees/rubric.toml``, alpha-beta's)
    written where its marker is; a README without the marker is left as the course wrote it."""
    from grader.cases.rubric import load_rubric

    rule = load_rubric(rubric_path).for_algorithm("alpha_beta").pruning
    return PRUNING_MARKER.sub(lambda _: PRUNING_TEXT[rule], text)


def handout_pyproject(text: str) -> str:
    """The repo's pyproject.toml without the ``reference`` package, testing ``student/``."""
    packages = tomllib.loads(text)["tool"]["setuptools"]["packages"]
    kept = [name for name in packages if name.split(".")[0] != "reference"]
    listed = "packages = " + json.dumps(kept)
    text = re.sub(r"(?m)^packages\s*=\s*\[[^\]]*\]", lambda _: listed, text)
    text = re.sub(r"(?m)^testpaths\s*=\s*\[[^\]]*\]", 'testpaths = ["student"]', text)
    # The import contracts name reference/ and check the staff tree: not the handout's business.
    text = re.sub(r"(?ms)^\[\[?tool\.importlinter[^\n]*\n.*?(?=^\[|\Z)", "", text).rstrip() + "\n"
    try:
        changed = tomllib.loads(text)["tool"]["setuptools"]["packages"] != kept
    except (tomllib.TOMLDecodeError, KeyError):
        changed = True
    if changed:
        raise BuildError(f"expected to drop 'reference' from pyproject.toml's packages "
                         f"{packages!r}; [tool.setuptools] has a form this build does not know")
    return text


def answer_key(root: Path, cases: list, cache: Path | None) -> bytes:
    """The reference answers of ``cases``, as a key file: the handout's (the public cases: what
    ``grader check`` reads instead of ``reference/``) or the autograder's (every case).

    Answers come through the staff answer cache (``cache``; None: computed afresh); the key
    keeps no timings, so any cache (or none) gives the same bytes.
    """
    from grader.answers.store import AnswerKey
    from grader.cases.rubric import load_rubric
    from grader.scoring.grade import prepare_answers

    key = AnswerKey(files=[], cache=cache)
    if key.version is None:
        raise BuildError("the handout's answer key needs reference/ (pip install -e . here)")
    prepare_answers(cases, load_rubric(root / "trees" / "rubric.toml"), key)
    key.save()  # new answers (and their times) join the staff cache
    with tempfile.TemporaryDirectory() as folder:
        target = Path(folder) / "key.json"
        key.save(target, used_only=True, shipped=True)  # these cases' answers, no timings
        return target.read_bytes()


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


def write_zip(entries: list[Entry], out: Path) -> None:
    """Write ``entries`` sorted, with fixed dates and modes; atomically (no half-written zip)."""
    paths = [entry.path for entry in entries]
    duplicates = sorted({path for path in paths if paths.count(path) > 1})
    if duplicates:
        raise BuildError(f"expected each path once in the zip, got twice: {duplicates}")
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    temporary = out.with_name(f".{out.name}.partial")
    with zipfile.ZipFile(temporary, "w") as archive:
        for entry in sorted(entries, key=lambda e: e.path):
            info = zipfile.ZipInfo(entry.path, date_time=ZIP_DATE)
            info.create_system = 3  # Unix, so unzip honours the mode below
            info.external_attr = (0o100755 if entry.executable else 0o100644) << 16
            archive.writestr(info, entry.data, zipfile.ZIP_DEFLATED, compresslevel=9)
    os.replace(temporary, out)


def _handout_checked(root: Path, cache: Path | None) -> list[Entry]:
    entries = handout_entries(root, cache=cache)
    leaks = find_leaks(entries, root)
    if leaks:
        listed = "\n".join(f"  {leak}" for leak in leaks)
        raise BuildError(f"the handout would give answers away:\n{listed}")
    return entries


# Each target: (root, answer cache) -> the entries of its zip. A new platform adds one line.
TARGETS: dict[str, Callable[[Path, Path | None], list[Entry]]] = {
    "autograder": lambda root, cache: autograder_entries(root, cache=cache),
    "handout": _handout_checked,
}


def build_main(target: str, out: Path, *, root: Path = REPO_ROOT,
               cache: Path | None = CACHE_KEY, ci: str | None = None,
               image: str | None = None) -> int:
    """``grader build autograder|handout --out FILE``: 0 when written; 1, nothing written, when not.

    ``root`` is the repository to build from; ``cache`` the answer cache the built answer keys
    go through (:func:`answer_key`). Other platforms' layouts are built by their own modules:
    ``prairielearn`` (a course folder, ``image`` its grading image) and the handout with ``ci``.
    """
    zip_out = Path(out)
    if target != "prairielearn" and (zip_out.is_dir() or any(
            parent.exists() and not parent.is_dir() for parent in zip_out.parents)):
        print(f"grader build {target}: {out}: cannot write a zip there (a folder, or under a "
              "file); --out names the zip to write\nnothing was written", file=sys.stderr)
        return 2  # bad input, said before any case is checked or solved
    if target == "prairielearn" or ci:  # grader/commands/build_prairielearn.py, build_ci.py
        from grader.commands import build_ci, build_prairielearn

        return (build_prairielearn.build_prairielearn_main(out, root=root, cache=cache, image=image)
                if target == "prairielearn" else
                build_ci.build_handout_ci_main(target, out, ci, root=root, cache=cache))
    try:
        if target not in TARGETS:
            raise BuildError(f"expected the target {' or '.join(map(repr, TARGETS))}, "
                             f"got: {target!r}")
        entries = TARGETS[target](root, cache)
        write_zip(entries, Path(out))
    except (BuildError, CaseError) as error:
        print(f"grader build {target}: error: {error}\nnothing was written to {out}",
              file=sys.stderr)
        return 1
    except OSError as error:  # where --out points cannot take the zip: bad input
        print(f"grader build {target}: {error.filename or out}: {error.strerror}\nnothing was "
              f"written to {out}", file=sys.stderr)
        return 2
    print(f"wrote {out}: {len(entries)} files, {Path(out).stat().st_size} bytes")
    return 0
