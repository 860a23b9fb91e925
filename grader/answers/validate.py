"""``grader validate PATH...``: every mistake of every case file, in one run.

For each file: the text (JSON syntax, empty file, keys given twice), the schema, the structure
(see :mod:`grader.cases`), built-in games built and explored; across the files: names unique,
among the files given and among every case of the collection a file belongs to (the nearest
folder above it holding a ``rubric.toml``, or named ``trees``: :func:`collection_of`), so a case
checked alone still meets the names of ``trees/public`` and ``trees/hidden``; then each case's
``expect`` against the reference (:func:`grader.answers.solve.solve`, skipped while it cannot be
imported). A ``rubric.toml`` in a folder given (or a ``.toml`` file given) is checked too. Every
error names the file, line:column, JSON path, what is wrong and how to fix it.

Warnings (given to the caller's ``warnings`` list; they do not fail validation): a description
still ``grader new``'s "TODO"; a node marked ``"quiet": false`` without a child marked
``"noisy": true`` (the quiescence search stands pat there: no horizon effect to show); and a
``$schema`` that does not lead to the case schema from the file's folder (editors then check
nothing; a case written elsewhere and moved keeps a wrong one).
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from grader.cases import (
    Case,
    ParsedText,
    case_error,
    case_from_checked,
    check_case,
    find_cases,
    locate,
    parse_case_text,
    read_case_text,
    sort_errors,
)
from grader.cases.algorithms import PAIR_ALGORITHMS
from grader.cases.fast import plain_tree_nodes
from grader.cases.load import collector_paused
from grader.cases.rubric import Rubric, RubricError, load_rubric, rubric_from_dict
from grader.errors import CaseError
from grader.paths import SCHEMA_PATH

VALUE_TOLERANCE = 1e-9
NAME_HEAD = 65536  # characters of another case file read to find its name
_NAME = re.compile(r'"name"\s*:\s*("(?:[^"\\]|\\.)*")')


def collection_of(file: Path) -> Path | None:
    """The folder of cases ``file`` belongs to: the nearest one above it holding a
    ``rubric.toml`` or named ``trees``; None when there is none."""
    for folder in file.resolve().parents:
        if (folder / "rubric.toml").is_file() or folder.name == "trees":
            return folder
    return None


def _name_in(file: Path) -> str | None:
    """A case file's ``name``, read cheaply (the first ``"name": "..."`` of its head: top-level
    fields come first in every case written by hand or by the tools)."""
    try:
        with file.open(encoding="utf-8-sig", errors="replace") as handle:
            match = _NAME.search(handle.read(NAME_HEAD))
        return json.loads(match[1]) if match else None
    except (OSError, ValueError):
        return None


def _other_names(files: list[Path]) -> dict[Path, dict[str, Path]]:
    """For each collection the files belong to: the names of its cases not among ``files``."""
    given = {f.resolve() for f in files}
    collections: dict[Path, dict[str, Path]] = {}
    for file in files:
        folder = collection_of(file)
        if folder is None or folder in collections:
            continue
        names = collections[folder] = {}
        for other in find_cases([folder]):
            if other.resolve() not in given:
                name = _name_in(other)
                if name is not None:
                    names.setdefault(name, other)
    return collections


def _shown(path: Path) -> str:
    try:
        return os.path.relpath(path)
    except ValueError:  # another drive (Windows)
        return str(path)


def validate_paths(paths: Iterable[str | Path], *, check_expect: bool = True,
                   warnings: list[CaseError] | None = None) -> list[CaseError]:
    """All errors of all case files under ``paths`` (files, or folders searched recursively);
    warnings go to ``warnings`` when given (see the module docstring)."""
    paths = [Path(p) for p in paths]
    errors: list[CaseError] = []
    files: list[Path] = []
    for path in paths:
        try:
            found = find_cases([path])
        except FileNotFoundError:
            errors.append(CaseError("no such file or folder", file=str(path)))
            continue
        files.extend(f for f in found if f not in files)
        errors.extend(_rubric_errors(path))
    names: dict[str, str] = {}
    elsewhere = _other_names(files)
    for file in files:
        checked = _check_file(file)
        name = checked.data.get("name") if isinstance(checked.data, dict) else None
        if isinstance(name, str):
            folder = collection_of(file)
            other = elsewhere.get(folder, {}).get(name) if folder else None
            if name in names or other is not None:
                used = names.get(name) or _shown(other)
                checked.errors.append(case_error(
                    f"the name {name!r} is already used by {used}; every case needs its "
                    "own name", ("name",), str(file)))
                locate(checked.errors, checked.positions)
            else:
                names[name] = str(file)
        if isinstance(checked.data, dict) and isinstance(checked.data.get("play"), dict):
            checked.errors.extend(_play_reach_errors(checked.data["play"], file))
            locate(checked.errors, checked.positions)
        if warnings is not None and isinstance(checked.data, dict):
            found = case_warnings(checked.data, file)
            locate(found, checked.positions)
            warnings.extend(sort_errors(found))
        if check_expect and not checked.errors and checked.data.get("expect"):
            case = case_from_checked(checked.data, file)
            checked.errors.extend(expect_errors(case, checked.positions))
        errors.extend(sort_errors(checked.errors))
    return errors


def case_warnings(data: dict, file: Path) -> list[CaseError]:
    """What is legal but surely not meant: a "TODO" description, a non-quiet node without a
    noisy child, a ``$schema`` that does not lead to the case schema from the file's folder."""
    found = []
    description = data.get("description")
    if isinstance(description, str) and description.lstrip().upper().startswith("TODO"):
        found.append(case_error("the description is still grader new's TODO; say in one line "
                                "what this case tests (students see it in the test's name)",
                                ("description",), str(file)))
    found += _quiet_without_noisy(data, file)
    ref = data.get("$schema")
    right = Path(os.path.relpath(SCHEMA_PATH, file.resolve().parent)).as_posix()
    if isinstance(ref, str) and not re.match(r"[a-z]+://", ref):
        target = (file.resolve().parent / ref).resolve()
        if target != SCHEMA_PATH.resolve():
            found.append(case_error(f"$schema {ref!r} does not lead to the case schema from "
                                    f"this file's folder, so editors check nothing; write "
                                    f"{right!r}", ("$schema",), str(file)))
    return found


def _quiet_without_noisy(data: dict, file: Path) -> list[CaseError]:
    """Each node marked ``"quiet": false`` none of whose children is ``"noisy": true``: the
    quiescence search follows only noisy moves past the cutoff, so there it stands pat as at a
    quiet node, and the case can never show the horizon effect it was marked for."""
    found = []
    stack = [(data.get("tree"), ("tree",))]
    while stack:
        node, parts = stack.pop()
        if not isinstance(node, dict):
            continue
        children = node.get("children")
        children = children if isinstance(children, list) else []
        if node.get("quiet") is False and not any(
                isinstance(child, dict) and child.get("noisy") is True for child in children):
            found.append(case_error(
                f"node {node.get('id')!r} is marked \"quiet\": false but none of its children "
                "is \"noisy\": true; the quiescence search follows only noisy moves past the "
                "depth limit, so it stands pat here as at a quiet node and this case cannot "
                "show the horizon effect: mark the child reached by the capture or threat "
                "\"noisy\": true (or drop \"quiet\": false)", parts + ("quiet",), str(file)))
        stack.extend((child, parts + ("children", index))
                     for index, child in reversed(list(enumerate(children))))
    return found


def _play_reach_errors(play: dict, file: Path) -> list[CaseError]:
    """An evaluate case whose matches cannot reach its rubric's win-count thresholds."""
    matches = play.get("matches")
    if not isinstance(matches, int) or isinstance(matches, bool):
        return []  # the rubric's own matches: checked with the rubric (_rubric_errors)
    problem = _rubric_for(file).play.unreachable(matches)
    if problem is None:
        return []
    return [case_error(f"play.matches: the rubric's [play] {problem}", ("play", "matches"),
                       str(file))]


def _rubric_errors(path: Path) -> list[CaseError]:
    rubric_file = path / "rubric.toml" if path.is_dir() else path
    if rubric_file.suffix != ".toml" or not rubric_file.is_file():
        return []
    try:
        load_rubric(rubric_file)
    except RubricError as error:
        return [error]
    return []


def _check_file(file: Path) -> ParsedText:
    """The file parsed, its ``errors`` holding every text, schema and structure error."""
    text, errors = read_case_text(file)
    if text is None:
        return ParsedText(errors=errors)
    with collector_paused():
        parsed = parse_case_text(text, str(file))
        # a big plain tree the fast path vouches for has nothing to report: skip the full walk
        if parsed.data is not None and plain_tree_nodes(parsed.data) is None:
            parsed.errors += check_case(parsed.data, str(file), build_builtin=True)
            locate(parsed.errors, parsed.positions)
    return parsed


# --- expect against the reference -------------------------------------------------------------


def _reference() -> Any:
    """:func:`grader.answers.solve.solve`, or None while it (or the reference) cannot be
    imported."""
    try:
        from grader.answers.solve import solve
    except ImportError:
        return None
    return solve


def reference_available() -> bool:
    return _reference() is not None


def _same(expected: Any, got: Any) -> bool:
    if isinstance(expected, list) or isinstance(got, (list, tuple)):
        if not isinstance(got, (list, tuple)) or not isinstance(expected, list):
            return False
        return len(expected) == len(got) and all(_same(e, g) for e, g in zip(expected, got))
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (expected, got)):
        return math.isclose(expected, got, rel_tol=0, abs_tol=VALUE_TOLERANCE)
    return expected == got or (not isinstance(got, (int, float, str)) and str(got) == expected)


def _show(value: Any) -> str:
    if isinstance(value, tuple):
        value = list(value)
    if isinstance(value, list) and len(value) > 12 and all(isinstance(v, str) for v in value):
        return "[" + ", ".join(map(repr, value[:12])) + f", ... ({len(value)} in all)]"
    return repr(value)


def expect_errors(
    case: Case, positions: dict | None = None, rubric: Rubric | None = None
) -> list[CaseError]:
    """Each ``expect`` answer the reference disagrees with; [] while the reference is missing."""
    solve = _reference()
    if solve is None:
        return []
    rubric = rubric or _rubric_for(case.path)
    errors: list[CaseError] = []
    for key, answers in case.expect.items():
        algorithm, _, rule = key.partition("/")
        if rule:
            rules = [rule]
        elif case.pruning == "either":
            rules = ["inclusive", "strict"]
        else:
            rules = [None]
        results = []
        try:
            for each in rules:
                results.append(solve(case, algorithm, pruning=each, rubric=rubric))
        except ImportError:
            return []  # the reference modules are not there yet
        except Exception as error:  # noqa: BLE001 - a reference bug must not stop validation
            errors.append(case_error(f"the reference failed on this case for {algorithm}: "
                                     f"{type(error).__name__}: {error}", ("expect", key),
                                     case.file))
            continue
        for field_name, expected in answers.items():
            got = [getattr(result, field_name) for result in results]
            if field_name == "value" and algorithm in PAIR_ALGORITHMS:
                got = [value[0] for value in got]  # the (value, action) pair's value
            if any(_same(expected, each) for each in got):
                continue
            under = f" (pruning: {rules[0]})" if rules[0] else ""
            other = _other_rule_match(case, algorithm, rules, rubric, field_name, expected,
                                      solve)
            errors.append(case_error(
                f"expected {_show(expected)} at expect.{key}.{field_name}, the reference "
                f"gives {_show(got[0])}{under}; "
                + (other or "fix the expected answer (or the reference)"),
                ("expect", key, field_name), case.file))
    locate(errors, positions or {})
    return errors


def _other_rule_match(case: Case, algorithm: str, rules: list, rubric: Rubric, field_name: str,
                      expected: Any, solve: Any) -> str | None:
    """When a wrong ``expect`` answer is exactly what the other pruning rule gives (worked by
    hand with ``>=`` where the course prunes on ``>``, or the reverse): that, in words; else
    None. Only when one rule is checked (a case of ``"pruning": "either"`` accepts both)."""
    if len(rules) != 1:
        return None
    from grader.answers.solve import RULES, resolve_pruning

    try:
        rule = resolve_pruning(case, algorithm, rules[0], rubric)
        other = next(each for each in RULES if each != rule)
        theirs = getattr(solve(case, algorithm, pruning=other, rubric=rubric), field_name)
        ours = getattr(solve(case, algorithm, pruning=rule, rubric=rubric), field_name)
    except Exception:  # noqa: BLE001 - the hint is a nicety; the error stands without it
        return None
    if field_name == "value" and algorithm in PAIR_ALGORITHMS:
        theirs, ours = theirs[0], ours[0]
    if not _same(expected, theirs) or _same(theirs, ours):
        return None
    if rules[0]:
        source = f"the key's /{rules[0]}"
    elif case.pruning in RULES:
        source = "the case's \"pruning\""
    else:
        source = "the rubric's pruning, rubric.toml"
    return (f"that is the {other} pruning rule's answer, but this case is graded by the "
            f"{rule} rule ({source}): work it again pruning "
            + ("on equality (v >= beta, v <= alpha)" if rule == "inclusive"
               else "only on a strict inequality (v > beta, v < alpha)")
            + f", or write the key as \"{algorithm}/{other}\" to check the {other} rule")


_RUBRICS: dict[Path, Rubric] = {}


def _rubric_for(path: Path | None) -> Rubric:
    """The rubric next to the cases: the nearest rubric.toml above the case, else the default."""
    folder = path.resolve().parent if path is not None else None
    while folder is not None:
        if (folder / "rubric.toml").is_file():
            break
        folder = folder.parent if folder.parent != folder else None
    key = folder or Path("<default>")
    if key not in _RUBRICS:
        try:
            _RUBRICS[key] = load_rubric(folder / "rubric.toml" if folder else None)
        except RubricError:  # reported on its own (see _rubric_errors); grade with defaults
            _RUBRICS[key] = rubric_from_dict({})
    return _RUBRICS[key]


# --- the command ----------------------------------------------------------------------------




__all__ = ["case_warnings", "collection_of", "expect_errors", "reference_available",
           "validate_paths"]
