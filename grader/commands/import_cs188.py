"""``grader import-cs188``: CS188 ``GraphGameTreeTest`` files as case files, each checked
against its ``.solution`` file when there is one. The conversion is :mod:`grader.cases.cs188`.

One ``.test`` file, or a whole ``test_cases/`` folder: every ``*.test`` below it is converted
into the same relative place under ``--out`` (``q3/6-tied-root.test`` ->
``OUT/q3/6-tied-root.json``), named from its question folder and stem
(``cs188-q3-6-tied-root``; a name still taken gets the rest of its relative path, then
``-2``, ``-3``, ...). An existing file is never overwritten without ``force``. A test of another
class (``PacmanGameTreeTest``, ``EvalAgentTest``, ...) is named and skipped. Every file's outcome
is printed and the run goes on; the exit status is the worst: 2 a file that cannot be read,
converted or written, 1 a conversion that differs from its solution, else 0.

The pruning rule: CS188 prunes on strict inequality, so alpha-beta cases are written
``"pruning": "strict"`` unless ``pruning`` says otherwise. A case's rule overrides the course's
(the rubric's ``pruning``): when they differ, and the two rules search a case differently, the
importer says so, because a student following the course's rule then fails that case's trace.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from grader.cases import case_from_dict
from grader.cases.authoring import case_json, case_name
from grader.cases.cs188 import (
    PRUNING_ALGORITHM,
    Cs188FormatError,
    UnsupportedTestError,
    convert,
    cs188_name,
    parse_test_text,
    read_cs188_text,
)
from grader.cases.rubric import RubricError, load_rubric
from grader.errors import CaseError
from grader.files import write_text_atomically
from grader.paths import REPO_ROOT


def check_solution(case: Any, solution: dict[str, str], file: Any = None) -> list[str]:
    """Each way the reference, under CS188's strict rule, differs from CS188's ``.solution``
    (empty when they agree)."""
    from grader.answers.solve import solve

    algorithm = case.algorithms[0]
    if "action" not in solution or "generated" not in solution:
        raise Cs188FormatError("expected a solution with `action` and `generated`", file)

    def differences(rule: str | None) -> list[str]:
        ours = solve(case, algorithm, pruning=rule)
        found = []
        if str(ours.action) != solution["action"]:
            found.append(f"action: the solution says {solution['action']!r}, our reference "
                         f"says {str(ours.action)!r}")
        mine = sorted(set(ours.generated) | {case.data["start"]})
        theirs = solution["generated"].split()
        if mine != theirs:
            only_theirs = sorted(set(theirs) - set(mine))
            only_ours = sorted(set(mine) - set(theirs))
            found.append(f"generated: the solution has {' '.join(theirs)!r}, our reference "
                         f"{' '.join(mine)!r} (only in the solution: {only_theirs or 'none'}; "
                         f"only ours: {only_ours or 'none'})")
        return found

    rule = "strict" if algorithm == PRUNING_ALGORITHM else None
    found = differences(rule)
    if found and rule and not differences("inclusive"):
        found.append("the inclusive rule matches the solution: it was made with v >= beta cuts")
    return found


def rules_differ(case: Any) -> bool:
    """Whether inclusive and strict alpha-beta generate different nodes on ``case``."""
    from grader.answers.solve import solve

    runs = [solve(case, PRUNING_ALGORITHM, pruning=rule) for rule in ("inclusive", "strict")]
    return runs[0].generated != runs[1].generated


def _course_rule(target: Path | None) -> tuple[str, str]:
    """The course's alpha-beta rule for a case written to ``target`` and the rubric it comes
    from: the nearest rubric.toml above it, else trees/rubric.toml."""
    folder = target.resolve().parent if target is not None else None
    while folder is not None and not (folder / "rubric.toml").is_file():
        folder = folder.parent if folder.parent != folder else None
    rubric_file = folder / "rubric.toml" if folder else REPO_ROOT / "trees" / "rubric.toml"
    try:
        rubric = load_rubric(rubric_file if rubric_file.is_file() else None)
    except RubricError:
        return "inclusive", "the default rubric"
    try:
        shown = rubric_file.resolve().relative_to(Path.cwd().resolve())
    except ValueError:
        shown = rubric_file
    return rubric.for_algorithm(PRUNING_ALGORITHM).pruning, str(shown)


@dataclass
class Outcome:
    """One file's import: ``status`` 0 written (and matching), 1 differs, 2 failed, or
    ``"skipped"`` (a class that does not convert); lines for stdout and for stderr."""

    status: int | str = 0
    said: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def import_one(test_file: Path, *, solution: Path | None = None, target: Path | None = None,
               name: str | None = None, force: bool = False, pruning: str = "strict",
               shown: str | None = None) -> tuple[Outcome, str | None]:
    """Convert one ``.test`` file (to ``target``; None: the JSON is returned, not written)."""
    shown = shown or str(test_file)
    outcome = Outcome()
    if solution is None and test_file.with_suffix(".solution").is_file():
        solution = test_file.with_suffix(".solution")
    try:
        if target is not None and target.exists() and not force:
            raise Cs188FormatError(f"{target} exists; pass --force to overwrite it", test_file)
        fields = parse_test_text(read_cs188_text(test_file), test_file)
        data, notes = convert(fields, test_file, target, name=name, pruning=pruning)
        try:
            case = case_from_dict(data, target or test_file)
        except CaseError as error:
            raise Cs188FormatError(f"the converted case does not validate: {error.message} "
                                   f"(at {error.path})", test_file) from None
        answer = (parse_test_text(read_cs188_text(solution), solution)
                  if solution is not None else None)
        differences = check_solution(case, answer, solution) if answer is not None else []
        text = case_json(data)
        if target is not None:
            write_text_atomically(text, target)
    except UnsupportedTestError as error:
        outcome.status = "skipped"
        outcome.said.append(f"{shown}: skipped: {str(error).split(': ', 1)[1]}")
        return outcome, None
    except Cs188FormatError as error:
        outcome.status = 2
        outcome.errors.append(str(error))
        return outcome, None
    except OSError as error:  # no such file, a folder, no permission
        outcome.status = 2
        outcome.errors.append(f"{error.filename or test_file}: cannot read or write it: "
                              f"{error.strerror}")
        return outcome, None
    where = f" -> {target}" if target is not None else ""
    if answer is None:
        verdict = "no .solution to check against"
    elif differences:
        verdict = f"DIFFERS from {solution.name}"
        outcome.status = 1
        outcome.errors += [f"{shown} differs from {solution}:"] + [f"  - {d}" for d in differences]
    else:
        rule = " (strict rule, as CS188)" if "pruning" in data else ""
        verdict = (f"matches {solution.name}: action {json.dumps(answer['action'])} and the "
                   f"generated set{rule}")
    outcome.said.append(f"{shown}{where}: {data['name']}, {verdict}")
    outcome.said += [f"  note: {note}" for note in notes]
    if data.get("pruning") in ("strict", "inclusive"):
        course, rubric = _course_rule(target)
        if course != data["pruning"] and rules_differ(case):
            outcome.said.append(
                f"  note: graded with the {data['pruning']} rule (the case's \"pruning\"), but "
                f"the course rule in {rubric} is {course}, and the two rules generate different "
                f"nodes here: a student following the {course} rule fails this trace; "
                "re-import with --pruning either to accept both")
    return outcome, text


def _targets(folder: Path, tests: list[Path], out: Path) -> list[tuple[Path, Path, str]]:
    """Each test's output file and a case name no other test of the import has."""
    taken: set[str] = set()
    planned = []
    for test in tests:
        relative = test.relative_to(folder)
        name = cs188_name(test)
        if name in taken:
            name = case_name("-".join(["cs188", *relative.with_suffix("").parts]))
        base, number = name, 2
        while name in taken:
            name, number = f"{base}-{number}", number + 1
        taken.add(name)
        planned.append((test, out / relative.with_suffix(".json"), name))
    return planned


def _print(outcome: Outcome, say: TextIO) -> None:
    for line in outcome.said:
        print(line, file=say)
    for line in outcome.errors:
        print(f"grader import-cs188: {line}", file=sys.stderr)


def import_folder(folder: Path, out: Path, *, force: bool = False,
                  pruning: str = "strict") -> int:
    """Every ``*.test`` under ``folder`` into the same places under ``out`` (module docstring)."""
    tests = sorted(p for p in folder.rglob("*.test") if p.is_file())
    if not tests:
        print(f"grader import-cs188: {folder}: no .test files in this folder", file=sys.stderr)
        return 2
    counts = {0: 0, 1: 0, 2: 0, "skipped": 0}
    for test, target, name in _targets(folder, tests, out):
        outcome, _ = import_one(test, target=target, name=name, force=force, pruning=pruning,
                                shown=test.relative_to(folder).as_posix())
        _print(outcome, sys.stdout)
        counts[outcome.status] += 1
    written = counts[0] + counts[1]
    print(f"{written} of {len(tests)} .test files imported into {out}"
          + (f" ({counts[1]} differ from their solution)" if counts[1] else "")
          + (f"; {counts['skipped']} not supported" if counts["skipped"] else "")
          + (f"; {counts[2]} failed" if counts[2] else ""))
    course, rubric = _course_rule(out / "case.json")
    if written and pruning != "either" and pruning != course:
        print(f"note: alpha-beta cases are written with \"pruning\": \"{pruning}\""
              + (" (CS188's rule)" if pruning == "strict" else "")
              + f", which overrides the course rule ({course}, {rubric}); --pruning either "
              "accepts both")
    return 2 if counts[2] else (1 if counts[1] else 0)


def import_main(test_file: str | Path, *, solution: str | Path | None = None,
                out: str | Path | None = None, force: bool = False,
                pruning: str = "strict") -> int:
    """``grader import-cs188``: 0 converted (and matching the solution), 1 a mismatch, 2 a
    file that cannot be read, converted or written (see the module docstring)."""
    source = Path(test_file)
    out = Path(out) if out is not None else None
    if source.is_dir():
        if out is None or solution is not None:
            print(f"grader import-cs188: {source} is a folder: give --out FOLDER (where the "
                  "cases go); --solution is for one file (a folder's are found beside each "
                  ".test)", file=sys.stderr)
            return 2
        if (out.exists() and not out.is_dir()) or (not out.exists() and out.suffix == ".json"):
            print(f"grader import-cs188: {out}: a folder import writes one case for each .test "
                  "file, so --out names a folder, not a file", file=sys.stderr)
            return 2
        return import_folder(source, out, force=force, pruning=pruning)
    if out is not None and out.is_dir():
        out = out / f"{source.stem}.json"
    say = sys.stderr if out is None else sys.stdout  # stdout holds the JSON when no --out
    outcome, text = import_one(source, solution=Path(solution) if solution else None,
                               target=out, force=force, pruning=pruning)
    if outcome.status == "skipped":  # asked for by name: a failure
        outcome.status = 2
        outcome.errors = [f"{source}: {line.split(': skipped: ', 1)[1]}" for line in outcome.said]
        outcome.said = []
    if out is None and text is not None:
        print(text, end="")
    _print(outcome, say)
    return outcome.status  # type: ignore[return-value]
