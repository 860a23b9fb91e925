"""Find the student's ``search.py`` in what was submitted: the file, a folder, or a zip.

A notebook stands in for it: ``search.ipynb`` in a folder or zip (``search.py`` preferred when
both are there), or any ``.ipynb`` given as the file (converted by :mod:`.notebook`)."""

from __future__ import annotations

import tempfile
import zipfile
from pathlib import Path

from grader.errors import SubmissionError

FILENAME = "search.py"
NOTEBOOK = "search.ipynb"  # the same code as a Jupyter or Colab notebook
MAX_ZIP_BYTES = 20 * 1024 * 1024  # a handout's search.py is kilobytes; refuse zip bombs


def locate_submission(path: Path, scratch: Path | None = None) -> Path:
    """The path of the ``search.py`` to grade. Zips are extracted into ``scratch`` (or a temp dir).

    A folder may hold it anywhere (Gradescope keeps the uploaded folder structure); the
    shallowest match wins, and ``student/search.py`` is preferred over other copies.
    """
    path = Path(path)
    if not path.exists():
        raise SubmissionError(f"no submission at {str(path)!r}: expected {FILENAME}, a folder or a zip")
    if path.is_file() and path.suffix == ".zip":
        return _from_zip(path, scratch)
    if path.is_file():
        if path.name != FILENAME and path.suffix not in (".py", ".ipynb"):
            raise SubmissionError(
                f"expected {FILENAME} or a notebook ({NOTEBOOK}), got {path.name!r}")
        return path
    matches = sorted(path.rglob(FILENAME), key=lambda match: (len(match.parts), "student" not in match.parts, str(match)))
    matches = [match for match in matches if match.is_file() and "__MACOSX" not in match.parts]
    if not matches:
        notebooks = sorted(path.rglob(NOTEBOOK), key=lambda match: (len(match.parts), str(match)))
        matches = [match for match in notebooks if match.is_file()
                   and not {"__MACOSX", ".ipynb_checkpoints"} & set(match.parts)]
    if not matches:
        found = sorted(str(p.relative_to(path)) for p in path.rglob("*") if p.is_file())[:10]
        raise SubmissionError(
            f"no {FILENAME} in {str(path)!r}; the files submitted were: {found or 'none'}. "
            f"Upload your {FILENAME} (the file with max_value, alpha_beta, ...)."
        )
    return matches[0]


def _from_zip(path: Path, scratch: Path | None) -> Path:
    target = Path(scratch or tempfile.mkdtemp(prefix="submission-"))
    target.mkdir(parents=True, exist_ok=True)
    try:
        with zipfile.ZipFile(path) as archive:
            names = (FILENAME, NOTEBOOK)
            members = [m for m in archive.infolist() if Path(m.filename).name in names]
            members = [m for m in members if "__MACOSX" not in m.filename
                       and ".ipynb_checkpoints" not in m.filename]
            if not members:
                raise SubmissionError(f"the zip {path.name!r} holds no {FILENAME}")
            member = min(members, key=lambda m: (not m.filename.endswith(FILENAME),
                                                 m.filename.count("/"), m.filename))
            if member.file_size > MAX_ZIP_BYTES:
                raise SubmissionError(f"{member.filename!r} in {path.name!r} is {member.file_size} bytes; too large")
            destination = target / Path(member.filename).name
            destination.write_bytes(archive.read(member))
            return destination
    except zipfile.BadZipFile as error:
        raise SubmissionError(f"{path.name!r} is not a readable zip file: {error}") from None
