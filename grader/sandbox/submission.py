"""Find the student's ``search.py`` in what was submitted: the file, a folder, or a zip.

Three steps, each its own function so a new kind of candidate or a new check fits in one place:

1. the candidates: every ``search.py`` in a folder (:func:`folder_candidates`, at any depth:
   Gradescope keeps the uploaded folder structure) or a zip (:func:`zip_candidates`), leaving
   out macOS resource forks, ``__pycache__`` and hidden folders (``.git``, ``.ipynb_checkpoints``);
2. the choice among them (:func:`choose`): one candidate, or several with identical bytes (the
   shallowest is graded); several that differ are refused (:class:`AmbiguousSubmission`, the
   candidates listed), because grading the wrong one (an untouched stub beside the real file)
   gives a silent zero;
3. the file itself: a path on disk, or the zip member written to ``scratch``.

:func:`choose_submission` returns the file and a sentence saying which one was graded and why
(the grading loop puts it in the top-level output); :func:`locate_submission` only the path.
Every refusal is a :class:`~grader.errors.SubmissionError` whose message a student can act on.

A notebook stands in for ``search.py``: ``search.ipynb`` in a folder or zip when no ``search.py``
is there (``search.py`` preferred when both are), or any ``.ipynb`` given as the file
(converted by :mod:`.notebook`).
"""

from __future__ import annotations

import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Callable

from grader.errors import SubmissionError

FILENAME = "search.py"
NOTEBOOK = "search.ipynb"  # the same code as a Jupyter or Colab notebook
MAX_ZIP_BYTES = 20 * 1024 * 1024  # a handout's search.py is kilobytes; refuse zip bombs
MAX_LISTED = 10  # files named in a "nothing to grade" message
SKIPPED_PARTS = ("__MACOSX", "__pycache__")


class AmbiguousSubmission(SubmissionError):
    """Several different ``search.py`` files were uploaded; grading any one of them could be
    the wrong guess."""


@dataclass(frozen=True)
class Candidate:
    """One file that could be the submission.

    ``name``: its path inside the upload, ``/``-separated (what the student recognises);
    ``size``: its size in bytes; ``read``: its bytes; ``path``: the file on disk, or None
    inside a zip (:func:`choose_submission` writes it out)."""

    name: str
    size: int
    read: Callable[[], bytes]
    path: Path | None = None

    @property
    def depth(self) -> int:
        return len(PurePosixPath(self.name).parts)


@dataclass(frozen=True)
class Choice:
    """The file to grade, its name inside the upload, and why it was chosen (a sentence)."""

    path: Path
    name: str
    reason: str

    def message(self) -> str:
        """The top-level line: ``Graded `student/search.py`: the only search.py in your upload.``"""
        return f"Graded `{self.name}`: {self.reason}."


def _skipped(parts: tuple[str, ...]) -> bool:
    folders = parts[:-1]
    return any(part in SKIPPED_PARTS or part.startswith(".") for part in folders)


def folder_candidates(folder: Path) -> list[Candidate]:
    """Every regular ``search.py`` below ``folder`` (else every ``search.ipynb``), skipped
    folders left out."""
    for name in (FILENAME, NOTEBOOK):
        found = []
        for match in sorted(folder.rglob(name)):
            inside = match.relative_to(folder)
            if not match.is_file() or _skipped(inside.parts):
                continue
            found.append(Candidate(inside.as_posix(), match.stat().st_size, match.read_bytes,
                                   match))
        if found:
            return found
    return []


def zip_candidates(archive: zipfile.ZipFile) -> list[Candidate]:
    """Every ``search.py`` member of ``archive`` (else every ``search.ipynb``), skipped folders
    left out."""
    for name in (FILENAME, NOTEBOOK):
        found = []
        for member in archive.infolist():
            parts = PurePosixPath(member.filename).parts
            if member.is_dir() or not parts or parts[-1] != name or _skipped(parts):
                continue
            found.append(Candidate(member.filename, member.file_size,
                                   lambda member=member: archive.read(member)))
        if found:
            return sorted(found, key=lambda candidate: candidate.name)
    return []


def choose(candidates: list[Candidate], where: str) -> tuple[Candidate, str]:
    """The candidate to grade and why; :class:`AmbiguousSubmission` when several differ.

    ``where``: how to name the upload in messages (``"your upload"``, ``"the zip 'hw.zip'"``).
    """
    if not candidates:
        raise SubmissionError(f"no {FILENAME} in {where}")
    ordered = sorted(candidates, key=lambda candidate: (candidate.depth, candidate.name))
    if len(ordered) == 1:
        return ordered[0], f"the only {FILENAME} in {where}"
    first = ordered[0]
    if all(other.size == first.size for other in ordered[1:]):
        content = first.read()
        if all(other.read() == content for other in ordered[1:]):
            return first, (f"{len(ordered)} identical copies of {FILENAME} in {where}; "
                           "graded the shallowest")
    listed = ", ".join(f"`{candidate.name}` ({candidate.size:,} bytes)" for candidate in ordered)
    raise AmbiguousSubmission(
        f"{where} holds {len(ordered)} different {FILENAME} files: {listed}. The grader cannot "
        f"tell which one you mean, so it graded none. Submit again with only the {FILENAME} "
        f"to grade (remove the other copies, or upload {FILENAME} on its own)."
    )


def choose_submission(path: Path, scratch: Path | None = None) -> Choice:
    """The ``search.py`` to grade and why. Zips are extracted into ``scratch`` (or a temp dir)."""
    path = Path(path)
    if not path.exists():
        raise SubmissionError(
            f"no submission at {str(path)!r}: expected {FILENAME}, a folder or a zip")
    if path.is_file() and path.suffix == ".zip":
        return _from_zip(path, scratch)
    if path.is_file():
        if path.name != FILENAME and path.suffix not in (".py", ".ipynb"):
            raise SubmissionError(
                f"expected {FILENAME} or a notebook ({NOTEBOOK}), got {path.name!r}")
        return Choice(path, str(path), "the file given to the grader")
    candidates = folder_candidates(path)
    if not candidates:
        raise SubmissionError(_nothing_found(path))
    candidate, reason = choose(candidates, "your upload")
    assert candidate.path is not None  # a folder's candidates are files on disk
    return Choice(candidate.path, candidate.name, reason)


def locate_submission(path: Path, scratch: Path | None = None) -> Path:
    """The path of the ``search.py`` to grade (:func:`choose_submission` without the why)."""
    return choose_submission(path, scratch).path


def _nothing_found(folder: Path) -> str:
    files = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
    shown = ", ".join(f"`{name}`" for name in files[:MAX_LISTED]) or "none"
    if len(files) > MAX_LISTED:
        shown += f" and {len(files) - MAX_LISTED} more"
    advice = f"Upload your {FILENAME} (the file with max_value, alpha_beta, ...)"
    zipped = [name for name in files if name.endswith(".zip")]
    misnamed = [name for name in files if name.endswith(".py") and PurePosixPath(name).name.lower()
                != FILENAME and "search" in PurePosixPath(name).name.lower()]
    if misnamed:
        advice += f"; `{misnamed[0]}` looks like it: rename it to {FILENAME}"
    elif zipped:
        advice += f" itself, not a zip holding it (`{zipped[0]}`)"
    return f"no {FILENAME} in your upload; the files submitted were: {shown}. {advice}."


def _from_zip(path: Path, scratch: Path | None) -> Choice:
    target = Path(scratch or tempfile.mkdtemp(prefix="submission-"))
    target.mkdir(parents=True, exist_ok=True)
    try:
        with zipfile.ZipFile(path) as archive:
            candidates = zip_candidates(archive)
            if not candidates:
                raise SubmissionError(f"the zip {path.name!r} holds no {FILENAME}")
            oversized = [c for c in candidates if c.size > MAX_ZIP_BYTES]
            if oversized:
                big = oversized[0]
                raise SubmissionError(
                    f"{big.name!r} in {path.name!r} is {big.size} bytes; too large")
            candidate, reason = choose(candidates, f"the zip {path.name!r}")
            destination = target / PurePosixPath(candidate.name).name  # search.py or .ipynb
            destination.write_bytes(candidate.read())
            return Choice(destination, f"{path.name}/{candidate.name}", reason)
    except zipfile.BadZipFile as error:
        raise SubmissionError(f"{path.name!r} is not a readable zip file: {error}") from None
