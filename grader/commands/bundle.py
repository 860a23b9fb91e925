"""What every ``grader build`` target shares: a file list (:class:`Entry`), collecting files
from the repository, checking the cases, the reference answers' key, and writing a zip.

A zip is built from a list of :class:`Entry` (path, bytes, executable?) and written sorted by
path, every entry dated 1980-01-01 (the zip format's first day) with mode 0644 or 0755, so the
same inputs give the same bytes. Nothing generated is collected: no ``__pycache__``, ``.venv``,
``.cache``, egg-info or dotfiles.

The targets' modules (:mod:`.build`: the Gradescope autograder; :mod:`.handout`: the student
handout; :mod:`.build_ci`: the handout with a CI workflow; :mod:`.build_prairielearn`: a
PrairieLearn course folder) import from here and never from one another's privates.
"""

from __future__ import annotations

import os
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from grader.errors import GraderError

ZIP_DATE = (1980, 1, 1, 0, 0, 0)
SKIPPED_DIRS = {"__pycache__", ".venv", "venv", ".cache", ".git", "node_modules"}


class BuildError(GraderError):
    """The build cannot go on (a leak into the handout, a missing file); nothing is written."""


@dataclass(frozen=True)
class Entry:
    """One file of a zip: its path inside it (``/``-separated), its bytes, its mode."""

    path: str
    data: bytes
    executable: bool = False


# --- collecting files -----------------------------------------------------------------------


def collect(root: Path, folder: str) -> list[Entry]:
    """Every file below ``root/folder``, generated files and dotfiles left out."""
    base = root / folder
    if not base.is_dir():
        raise BuildError(f"expected a folder {folder}/ in {str(root)!r}, found none")
    entries = []
    for directory, subdirs, files in os.walk(base):
        subdirs[:] = sorted(d for d in subdirs if not skipped(d) and not d.endswith(".egg-info"))
        for name in sorted(files):
            if skipped(name) or name.endswith((".pyc", ".pyo")):
                continue
            path = Path(directory, name)
            inside = f"{folder}/{path.relative_to(base).as_posix()}"
            entries.append(Entry(inside, path.read_bytes(), bool(path.stat().st_mode & 0o100)))
    return entries


def skipped(name: str) -> bool:
    return name.startswith(".") or name in SKIPPED_DIRS


def file_entry(root: Path, path: str, *, under: str | None = None,
               executable: bool | None = None) -> Entry:
    """The file ``root/path`` as an entry at ``under`` (default: the same path); its mode kept
    unless ``executable`` says."""
    source = root / path
    if not source.is_file():
        raise BuildError(f"expected the file {path} in {str(root)!r}, found none")
    mode = bool(source.stat().st_mode & 0o100) if executable is None else executable
    return Entry(under or path, source.read_bytes(), mode)


def check_cases(paths: list[Path]) -> None:
    from grader.answers.validate import validate_paths

    errors = validate_paths(paths)
    if errors:
        listed = "\n".join(f"  {error}" for error in errors[:20])
        raise BuildError(f"{len(errors)} case file error(s) (grader validate trees/):\n{listed}")


def answer_key(root: Path, cases: list, cache: Path | None, *,
               staff_matches: bool = True) -> bytes:
    """The reference answers of ``cases``, as a key file: the handout's (the public cases: what
    ``grader check`` reads instead of ``reference/``; ``staff_matches=False``: no reference
    moves of the ``assumptions`` matches, which the handout does not check) or the
    autograder's (every case).

    Answers come through the staff answer cache (``cache``; None: computed afresh); the key
    keeps no timings, so any cache (or none) gives the same bytes.
    """
    from grader.answers.store import AnswerKey
    from grader.cases.rubric import load_rubric
    from grader.scoring.grade import prepare_answers

    key = AnswerKey(files=[], cache=cache)
    if key.version is None:
        raise BuildError("the answer key needs reference/ (pip install -e . here)")
    prepare_answers(cases, load_rubric(root / "trees" / "rubric.toml"), key,
                    staff_matches=staff_matches)
    key.save()  # new answers (and their times) join the staff cache
    with tempfile.TemporaryDirectory() as folder:
        target = Path(folder) / "key.json"
        key.save(target, used_only=True, shipped=True)  # these cases' answers, no timings
        return target.read_bytes()


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
