"""``grader build``: the Gradescope autograder zip and the student handout, reproducibly; the
other platforms' layouts through their own modules (:mod:`.build_prairielearn`, :mod:`.build_ci`).

What the targets share (entries, collecting files, the answer key, writing a zip) lives in
:mod:`.bundle`; the handout and its leak checks in :mod:`.handout`.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Callable

from grader.answers.store import CACHE_KEY
from grader.commands import build_ci, build_prairielearn
from grader.commands.bundle import (
    BuildError,
    Entry,
    answer_key,
    check_cases,
    collect,
    file_entry,
    write_zip,
)
from grader.commands.handout import checked_handout
from grader.errors import CaseError
from grader.paths import REPO_ROOT


def autograder_entries(root: Path = REPO_ROOT, *, cache: Path | None = CACHE_KEY) -> list[Entry]:
    """What Gradescope unpacks to /autograder/source: setup.sh and run_autograder at the top,
    and every case's reference answers (``trees/.answer-key.json``, read by
    :meth:`AnswerKey.default`), so no submission waits for the reference to solve them."""
    from grader.cases import find_cases, load_case

    check_cases([root / "trees"])
    cases = [load_case(path) for path in find_cases([root / "trees" / "public",
                                                     root / "trees" / "hidden"])]
    docker = [e for e in collect(root, "docker") if not e.path.startswith("docker/handout/")]
    return [
        Entry("trees/.answer-key.json", answer_key(root, cases, cache)),
        file_entry(root, "docker/setup.sh", under="setup.sh", executable=True),
        file_entry(root, "docker/run_autograder", under="run_autograder", executable=True),
        *docker,
        file_entry(root, "pyproject.toml"),
        file_entry(root, "README.md"),  # pyproject's readme: the editable install reads it
        *collect(root, "grader"),
        *collect(root, "reference"),
        *collect(root, "trees"),
    ]


# Each target: (root, answer cache) -> the entries of its zip. A new platform adds one line.
TARGETS: dict[str, Callable[[Path, Path | None], list[Entry]]] = {
    "autograder": lambda root, cache: autograder_entries(root, cache=cache),
    "handout": checked_handout,
}


def build_main(target: str, out: Path, *, root: Path = REPO_ROOT,
               cache: Path | None = CACHE_KEY, ci: str | None = None,
               image: str | None = None) -> int:
    """``grader build autograder|handout --out FILE``: 0 when written; else nothing is written
    and 1 (a case, a file or the target is wrong) or 2 (``--out`` cannot take the zip).

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
