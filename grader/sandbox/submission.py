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

Only a regular file is ever graded: a symbolic link (to the reference, say: the parent copies
the file as root), a device, a FIFO or a zip member that is a link is refused, wherever it is
(the file given, a file or folder inside a submitted folder, a zip member).
:func:`read_submission` reads the file found without following any link below the
submission's folder and checks its type on the open descriptor, so nothing can be swapped in
between the check and the read.

A notebook stands in for ``search.py``: ``search.ipynb`` in a folder or zip when no ``search.py``
is there (``search.py`` preferred when both are), or any ``.ipynb`` given as the file
(converted by :mod:`.notebook`).

Names in messages (of files, folders, zip members, the upload) are the student's to choose and
end up in Markdown (the results' top-level output): each is shown through :func:`code` (a code
span no backtick inside can close, without control, line-breaking or bidi characters) or
:func:`quoted` (its ``repr`` with Markdown's and HTML's inline syntax escaped), so no name
writes Markdown or HTML into what students and staff read.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import struct
import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, Callable

from grader.errors import SubmissionError

FILENAME = "search.py"
NOTEBOOK = "search.ipynb"  # the same code as a Jupyter or Colab notebook
MAX_ZIP_BYTES = 20 * 1024 * 1024  # a handout's search.py is kilobytes; refuse zip bombs
MAX_SOURCE_BYTES = MAX_ZIP_BYTES  # the most read of a search.py, wherever it comes from
NOT_REGULAR = ("{what} is {kind}, not a regular file: upload the file itself (a link could point "
               "at anything, the course's own solution included)")
MAX_LISTED = 10  # files named in a "nothing to grade" message
# search.py files one upload may hold: identical copies are read and compared, and in a zip
# (before Python 3.12) many directory entries may name one member of 20 MB: 200 of them in a
# 30 kB zip cost 30 s of the grader's time each time the upload was read
MAX_CANDIDATES = 10
# Bytes of a zip's directory (the list of its files), read from its end record before zipfile
# reads the directory: each entry of it costs the grader about 11 times its size (a 15 MB zip
# of 300,000 empty files: 164 MB and 3 s a read); 8 MiB lists some 80,000 files
MAX_ZIP_DIRECTORY = 8 * 1024 * 1024
SKIPPED_PARTS = ("__MACOSX", "__pycache__")


_UNSHOWN = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ufeff]")
_INLINE_SYNTAX = re.compile(r"([\\`*\[\]<>&~|])")


def code(name: str) -> str:
    """``name`` as a Markdown code span: ``search.py`` gives `` `search.py` ``."""
    text = _UNSHOWN.sub("\ufffd", str(name))
    longest = max((len(run) for run in re.findall("`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def inert(text: str) -> str:
    """``text`` (a message quoting the upload) on one line, without control, line-breaking or
    bidi characters, Markdown's and HTML's inline syntax escaped."""
    return _INLINE_SYNTAX.sub(r"\\\1", _UNSHOWN.sub(" ", str(text)))


def quoted(name: str) -> str:
    """``repr(name)``, inert in Markdown: ``'hw.zip'`` stays ``'hw.zip'``."""
    return inert(repr(str(name)))


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
        return f"Graded {code(self.name)}: {self.reason}."


def _kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISDIR(mode):
        return "a folder"
    return "a device, FIFO or socket"


def _regular(path: Path) -> bool:
    """lstat: a regular file, not a link to one."""
    try:
        return stat.S_ISREG(path.lstat().st_mode)
    except OSError:
        return False


def _walk_files(root: Path):
    """Every entry under ``root`` (files, links, others; no folder reached through a link),
    folder by folder in sorted order. Iterative: an upload of 1,500 nested folders made
    ``os.walk`` (recursive before Python 3.12) raise RecursionError in the grader."""
    pending = [Path(root)]
    while pending:
        base = pending.pop()
        try:
            with os.scandir(base) as listing:
                entries = sorted(listing, key=lambda entry: entry.name)
        except OSError:  # unreadable, or a path too long: nothing there is graded
            continue
        folders = []
        for entry in entries:
            try:
                is_folder = entry.is_dir(follow_symlinks=False)
            except OSError:
                is_folder = False
            if is_folder:
                if entry.name != "__MACOSX":
                    folders.append(base / entry.name)
            else:
                yield base / entry.name
        pending.extend(reversed(folders))  # the first folder is walked first


def _skipped(parts: tuple[str, ...]) -> bool:
    folders = parts[:-1]
    return any(part in SKIPPED_PARTS or part.startswith(".") for part in folders)


def folder_candidates(folder: Path) -> list[Candidate]:
    """Every regular ``search.py`` below ``folder`` (else every ``search.ipynb``), skipped
    folders left out."""
    entries = list(_walk_files(folder))
    for name in (FILENAME, NOTEBOOK):
        found = []
        for match in sorted(entry for entry in entries if entry.name == name):
            inside = match.relative_to(folder)
            if _skipped(inside.parts):
                continue
            if not _regular(match):
                what = f"{quoted(inside.as_posix())} in the submission"
                raise SubmissionError(NOT_REGULAR.format(what=what, kind=_kind(match.lstat().st_mode)))
            found.append(Candidate(inside.as_posix(), match.lstat().st_size,
                                   lambda match=match: read_submission(match, folder), match))
        if found:
            return _few(found, "your upload")
    return []


def _few(candidates: list[Candidate], where: str) -> list[Candidate]:
    """``candidates``, when there are at most :data:`MAX_CANDIDATES` of them."""
    if len(candidates) > MAX_CANDIDATES:
        name = PurePosixPath(candidates[0].name).name
        raise SubmissionError(
            f"{where} holds {len(candidates):,} files named {name}, more than the "
            f"{MAX_CANDIDATES} the grader compares: upload only the one to grade")
    return candidates


def zip_candidates(archive: zipfile.ZipFile) -> list[Candidate]:
    """Every ``search.py`` member of ``archive`` (else every ``search.ipynb``), skipped folders
    left out."""
    for name in (FILENAME, NOTEBOOK):
        found = []
        for member in archive.infolist():
            parts = PurePosixPath(member.filename).parts
            if not parts or parts[-1] != name or _skipped(parts):
                continue
            kind = member.external_attr >> 16  # the Unix mode, where the zip recorded one
            if member.is_dir() or (stat.S_IFMT(kind) and not stat.S_ISREG(kind)):
                what = f"{quoted(member.filename)} in {quoted(Path(str(archive.filename)).name)}"
                raise SubmissionError(NOT_REGULAR.format(what=what, kind=_kind(kind)))
            found.append(Candidate(member.filename, member.file_size,
                                   lambda member=member: archive.read(member)))
        if found:
            where = f"the zip {quoted(Path(str(archive.filename)).name)}"
            return _few(sorted(found, key=lambda candidate: candidate.name), where)
    return []


def choose(candidates: list[Candidate], where: str) -> tuple[Candidate, str]:
    """The candidate to grade and why; :class:`AmbiguousSubmission` when several differ.

    ``where``: how to name the upload in messages (``"your upload"``, ``"the zip 'hw.zip'"``).
    """
    if not candidates:
        raise SubmissionError(f"no {FILENAME} in {where}")
    ordered = sorted(candidates, key=lambda candidate: (candidate.depth, candidate.name))
    kind = PurePosixPath(ordered[0].name).name  # search.py, or search.ipynb (never both)
    if len(ordered) == 1:
        return ordered[0], f"the only {kind} in {where}"
    first = ordered[0]
    if all(other.size == first.size for other in ordered[1:]):
        content = first.read()
        if all(other.read() == content for other in ordered[1:]):
            return first, (f"{len(ordered)} identical copies of {kind} in {where}; "
                           "graded the shallowest")
    listed = ", ".join(f"{code(candidate.name)} ({candidate.size:,} bytes)"
                       for candidate in ordered)
    raise AmbiguousSubmission(
        f"{where} holds {len(ordered)} different {FILENAME} files: {listed}. The grader cannot "
        f"tell which one you mean, so it graded none. Submit again with only the {FILENAME} "
        f"to grade (remove the other copies, or upload {FILENAME} on its own)."
    )


def choose_submission(path: Path, scratch: Path | None = None) -> Choice:
    """The ``search.py`` to grade and why. Zips are extracted into ``scratch`` (or a temp dir)."""
    path = Path(path)
    if not path.exists() and not path.is_symlink():
        raise SubmissionError(
            f"no submission at {quoted(str(path))}: expected {FILENAME}, a folder or a zip")
    if not path.is_dir() and not _regular(path):  # a link to a folder is that folder: staff's
        what = f"the submission {quoted(path.name)}"
        raise SubmissionError(NOT_REGULAR.format(what=what, kind=_kind(path.lstat().st_mode)))
    if path.is_file() and path.suffix == ".zip":
        return _from_zip(path, scratch)
    if path.is_file():
        if path.name != FILENAME and path.suffix not in (".py", ".ipynb"):
            raise SubmissionError(
                f"expected {FILENAME} or a notebook ({NOTEBOOK}), got {quoted(path.name)}")
        return Choice(path, path.name, "the file given to the grader")  # not where it sat
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
    files = sorted(p.relative_to(folder).as_posix() for p in _walk_files(folder) if _regular(p))
    shown = ", ".join(code(name) for name in files[:MAX_LISTED]) or "none"
    if len(files) > MAX_LISTED:
        shown += f" and {len(files) - MAX_LISTED} more"
    advice = f"Upload your {FILENAME} (the file with max_value, alpha_beta, ...)"
    zipped = [name for name in files if name.endswith(".zip")]
    misnamed = [name for name in files if name.endswith(".py") and PurePosixPath(name).name.lower()
                != FILENAME and "search" in PurePosixPath(name).name.lower()]
    if misnamed:
        advice += f"; {code(misnamed[0])} looks like it: rename it to {FILENAME}"
    elif zipped:
        advice += f" itself, not a zip holding it ({code(zipped[0])})"
    return f"no {FILENAME} in your upload; the files submitted were: {shown}. {advice}."


def zip_directory_size(path: Path) -> int | None:
    """The size in bytes of the directory of the zip at ``path``, as zipfile will read it (its
    end record, or the zip64 one that overrides it); None when it cannot be told (zipfile
    then says what is wrong). Uses zipfile's own reader of the end record, a private function
    (in every Python from 2.6 to 3.13): without it, None."""
    import zipfile  # here: a grade of a search.py never reads a zip (1.4 MB of imports)

    find = getattr(zipfile, "_EndRecData", None)
    if find is None:
        return None
    try:
        with open(path, "rb") as stream:
            record = find(stream)
    except (OSError, ValueError, struct.error, zipfile.BadZipFile):
        return None
    return int(record[zipfile._ECD_SIZE]) if record else None


def _from_zip(path: Path, scratch: Path | None) -> Choice:
    import zipfile  # (see zip_directory_size)

    target = Path(scratch or tempfile.mkdtemp(prefix="submission-"))
    target.mkdir(parents=True, exist_ok=True)
    directory = zip_directory_size(path)
    if directory is not None and directory > MAX_ZIP_DIRECTORY:
        raise SubmissionError(
            f"the zip {quoted(path.name)} lists too many files for the grader to read (a "
            f"directory of {directory:,} bytes, more than {MAX_ZIP_DIRECTORY:,}): upload "
            f"{FILENAME} itself")
    try:
        with zipfile.ZipFile(path) as archive:
            candidates = zip_candidates(archive)
            if not candidates:
                raise SubmissionError(f"the zip {quoted(path.name)} holds no {FILENAME}")
            oversized = [c for c in candidates if c.size > MAX_ZIP_BYTES]
            if oversized:
                big = oversized[0]
                raise SubmissionError(
                    f"{quoted(big.name)} in {quoted(path.name)} is {big.size} bytes; too large")
            candidate, reason = choose(candidates, f"the zip {quoted(path.name)}")
            data = candidate.read()
    except SubmissionError:
        raise
    except Exception as error:  # noqa: BLE001 - reading untrusted bytes: the upload's fault
        # BadZipFile, and what a member's stream raises: a corrupt one (zlib.error, EOFError,
        # OSError), a compression method this Python lacks (NotImplementedError), a password
        # (RuntimeError); never the grader's failure
        detail = str(error).splitlines()[0][:200] if str(error) else type(error).__name__
        raise SubmissionError(
            f"{quoted(path.name)} is not a readable zip file: {inert(detail)}; zip the folder "
            f"again (without a password), or upload {FILENAME} itself") from None
    destination = target / PurePosixPath(candidate.name).name  # search.py or .ipynb
    destination.write_bytes(data)
    return Choice(destination, f"{path.name}/{candidate.name}", reason)


def read_submission(path: Path, root: Path | None = None) -> bytes:
    """The bytes of ``path``, a regular file, reached from ``root`` (default: its folder)
    without following any link on the way; raises :class:`SubmissionError` otherwise."""
    path = Path(path)
    root = Path(root) if root is not None else path.parent
    parts = path.relative_to(root).parts
    if os.open not in os.supports_dir_fd or not hasattr(os, "O_NOFOLLOW"):
        return _read_plainly(path)
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC
    handles: list[int] = []
    try:
        handles.append(os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC))
        for part in parts[:-1]:
            handles.append(os.open(part, flags | os.O_DIRECTORY, dir_fd=handles[-1]))
        handle = os.open(parts[-1], flags | os.O_NONBLOCK, dir_fd=handles[-1])  # a FIFO: no wait
        handles.append(handle)
        info = os.fstat(handle)
        if not stat.S_ISREG(info.st_mode):
            raise SubmissionError(NOT_REGULAR.format(what=repr(path.name), kind=_kind(info.st_mode)))
        if info.st_size > MAX_SOURCE_BYTES:
            raise SubmissionError(f"{quoted(path.name)} is {info.st_size:,} bytes; too large "
                                  f"(at most {MAX_SOURCE_BYTES:,})")
        with os.fdopen(os.dup(handle), "rb") as stream:
            return _read_capped(stream, info.st_size)
    except OSError as error:
        if error.errno in (errno.ELOOP, errno.ENOTDIR):
            raise SubmissionError(NOT_REGULAR.format(
                what=f"{quoted(str(Path(*parts)))} (or a folder on its way)", kind="a symbolic link"
            )) from None
        raise SubmissionError(f"cannot read the submission {quoted(path.name)}: {error.strerror}") from None
    finally:
        for handle in handles:
            os.close(handle)


def _read_capped(stream: Any, size: int) -> bytes:
    """At most MAX_SOURCE_BYTES of ``stream``, a file of ``size`` bytes when it was measured:
    read at that size (``read(n)`` reserves ``n`` bytes first: 20 MB at every worker start for
    a file of a few kilobytes), then on, up to the cap, only if the file grew since."""
    data = stream.read(min(size, MAX_SOURCE_BYTES) + 1)
    if len(data) > size:  # it grew: what the cap allows of the rest
        data += stream.read(MAX_SOURCE_BYTES + 1 - len(data))
    return data[:MAX_SOURCE_BYTES]


def _read_plainly(path: Path) -> bytes:
    """:func:`read_submission` where ``os.open`` takes no folder handle (Windows: only the
    portable worker, on a student's own machine, runs there): a regular file, size-capped."""
    try:
        info = path.lstat()
        if not stat.S_ISREG(info.st_mode):
            raise SubmissionError(NOT_REGULAR.format(what=repr(path.name),
                                                     kind=_kind(info.st_mode)))
        if info.st_size > MAX_SOURCE_BYTES:
            raise SubmissionError(f"{quoted(path.name)} is {info.st_size:,} bytes; too large "
                                  f"(at most {MAX_SOURCE_BYTES:,})")
        with path.open("rb") as stream:
            return _read_capped(stream, info.st_size)
    except OSError as error:
        raise SubmissionError(f"cannot read the submission {quoted(path.name)}: {error.strerror}") from None
