"""Find the student's ``search.py`` in what was submitted: the file, a folder, or a zip.

Only a regular file is ever graded: a symbolic link (to the reference, say: the parent copies
the file as root), a device, a FIFO or a zip member that is a link is refused with a
:class:`~grader.errors.SubmissionError`, wherever it is (the file given, a file or folder inside
a submitted folder, a zip member). :func:`read_submission` reads the file found without
following any link below the submission's folder and checks its type on the open descriptor,
so nothing can be swapped in between the check and the read.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
import zipfile
from pathlib import Path

from grader.errors import SubmissionError

FILENAME = "search.py"
MAX_ZIP_BYTES = 20 * 1024 * 1024  # a handout's search.py is kilobytes; refuse zip bombs
MAX_SOURCE_BYTES = MAX_ZIP_BYTES  # the most read of a search.py, wherever it comes from
NOT_REGULAR = ("{what} is {kind}, not a regular file: upload the file itself (a link could point "
               "at anything, the course's own solution included)")


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
    """Every entry under ``root`` (files, links, others; no folder reached through a link)."""
    for folder, folders, files in os.walk(root, followlinks=False):
        base = Path(folder)
        folders[:] = sorted(name for name in folders if name != "__MACOSX")
        links = [name for name in folders if (base / name).is_symlink()]
        yield from (base / name for name in sorted(files) + links)


def locate_submission(path: Path, scratch: Path | None = None) -> Path:
    """The path of the ``search.py`` to grade. Zips are extracted into ``scratch`` (or a temp dir).

    A folder may hold it anywhere (Gradescope keeps the uploaded folder structure); the
    shallowest match wins, and ``student/search.py`` is preferred over other copies.
    """
    path = Path(path)
    if not path.exists() and not path.is_symlink():
        raise SubmissionError(f"no submission at {str(path)!r}: expected {FILENAME}, a folder or a zip")
    if not path.is_dir():  # a link to a folder is that folder: staff named it, not the student
        if not _regular(path):
            what = f"the submission {path.name!r}"
            raise SubmissionError(NOT_REGULAR.format(what=what, kind=_kind(path.lstat().st_mode)))
        if path.suffix == ".zip":
            return _from_zip(path, scratch)
        if path.name != FILENAME and path.suffix != ".py":
            raise SubmissionError(f"expected a Python file named {FILENAME}, got {path.name!r}")
        return path
    entries = list(_walk_files(path))
    named = sorted((entry for entry in entries if entry.name == FILENAME),
                   key=lambda match: (len(match.parts), "student" not in match.parts, str(match)))
    if named and not _regular(named[0]):
        what = f"{str(named[0].relative_to(path))!r} in the submission"
        raise SubmissionError(NOT_REGULAR.format(what=what, kind=_kind(named[0].lstat().st_mode)))
    matches = [match for match in named if _regular(match)]
    if not matches:
        found = sorted(str(p.relative_to(path)) for p in entries if _regular(p))[:10]
        raise SubmissionError(
            f"no {FILENAME} in {str(path)!r}; the files submitted were: {found or 'none'}. "
            f"Upload your {FILENAME} (the file with max_value, alpha_beta, ...)."
        )
    return matches[0]


def read_submission(path: Path, root: Path | None = None) -> bytes:
    """The bytes of ``path``, a regular file, reached from ``root`` (default: its folder)
    without following any link on the way; raises :class:`SubmissionError` otherwise."""
    path = Path(path)
    root = Path(root) if root is not None else path.parent
    parts = path.relative_to(root).parts
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
            raise SubmissionError(f"{path.name!r} is {info.st_size:,} bytes; too large "
                                  f"(at most {MAX_SOURCE_BYTES:,})")
        with os.fdopen(os.dup(handle), "rb") as stream:
            return stream.read(MAX_SOURCE_BYTES + 1)[:MAX_SOURCE_BYTES]
    except OSError as error:
        if error.errno in (errno.ELOOP, errno.ENOTDIR):
            raise SubmissionError(NOT_REGULAR.format(
                what=f"{str(Path(*parts))!r} (or a folder on its way)", kind="a symbolic link"
            )) from None
        raise SubmissionError(f"cannot read the submission {path.name!r}: {error.strerror}") from None
    finally:
        for handle in handles:
            os.close(handle)


def _from_zip(path: Path, scratch: Path | None) -> Path:
    target = Path(scratch or tempfile.mkdtemp(prefix="submission-"))
    target.mkdir(parents=True, exist_ok=True)
    try:
        with zipfile.ZipFile(path) as archive:
            members = [m for m in archive.infolist() if Path(m.filename).name == FILENAME]
            members = [m for m in members if "__MACOSX" not in m.filename]
            if not members:
                raise SubmissionError(f"the zip {path.name!r} holds no {FILENAME}")
            member = min(members, key=lambda m: (m.filename.count("/"), m.filename))
            kind = member.external_attr >> 16  # the Unix mode, where the zip recorded one
            if member.is_dir() or (stat.S_IFMT(kind) and not stat.S_ISREG(kind)):
                what = f"{member.filename!r} in {path.name!r}"
                raise SubmissionError(NOT_REGULAR.format(what=what, kind=_kind(kind)))
            if member.file_size > MAX_ZIP_BYTES:
                raise SubmissionError(f"{member.filename!r} in {path.name!r} is {member.file_size} bytes; too large")
            destination = target / FILENAME
            destination.write_bytes(archive.read(member))
            return destination
    except zipfile.BadZipFile as error:
        raise SubmissionError(f"{path.name!r} is not a readable zip file: {error}") from None
