"""A Gradescope export as submissions: where each one is and who sent it.

Input: the folder of a Gradescope "Export Submissions" download (a folder per submission,
``submission_<id>``, and ``submission_metadata.yml`` naming the submitters), or any folder of
submission folders and zips.
"""

from __future__ import annotations

import math
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

METADATA = "submission_metadata.yml"
PEOPLE_KEYS = ("name", "email", "sid")


@dataclass
class Submission:
    """One submission of the export: its id (folder or zip name), where it is, who sent it."""

    id: str
    path: Path
    submitters: list[dict[str, str]] = field(default_factory=list)


def _scalar(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] == "'":
        return text[1:-1].replace("''", "'")
    if len(text) >= 2 and text[0] == text[-1] == '"':
        return text[1:-1].replace('\\"', '"').replace("\\\\", "\\")
    return "" if text in ("~", "null") else text


def read_metadata(text: str) -> dict[str, list[dict[str, str]]]:
    """Submitters by submission id, from the text of an export's ``submission_metadata.yml``.

    Gradescope writes the file from Ruby, so its keys carry a leading colon::

        submission_12345678:
          :submitters:
          - :name: Ada Lovelace
            :sid: '100'
            :email: ada@example.edu
          :created_at: 2024-03-01 10:00:00.000000000 -08:00
          :score: 10.0

    A tolerant line reader rather than a YAML dependency: top-level keys are submissions; the
    items of each one's first ``:submitters:`` list give ``name``, ``email`` and ``sid``;
    everything else (scores, history, Ruby tags) is ignored.
    """
    found: dict[str, list[dict[str, str]]] = {}
    people: list[dict[str, str]] | None = None  # the current submission's list, while open
    list_indent = item_indent = -1  # of its :submitters: key, of the list's "-" items
    person: dict[str, str] | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#") or line.startswith("---"):
            continue
        indent = len(raw) - len(raw.lstrip())
        if indent == 0:  # a new submission
            key = _scalar(line.rstrip(":").rstrip()) if line.endswith(":") else None
            people = found.setdefault(key, []) if key and not found.get(key) else None
            person = None
            list_indent = item_indent = -1
            continue
        if people is None:
            continue
        if list_indent < 0:  # looking for the submission's :submitters: key
            if line.rstrip(":").lstrip(":") == "submitters" and line.endswith(":"):
                list_indent = indent
            continue
        if line.startswith("-") and indent >= list_indent and item_indent in (-1, indent):
            item_indent = indent
            person = {}
            people.append(person)
            line = line[1:].strip()
        elif indent <= list_indent or indent <= item_indent:  # the list ended: keep only this one
            people, person = None, None
            continue
        name, colon, value = line.partition(": ")
        name = name.strip().lstrip(":")
        if person is not None and colon and name in PEOPLE_KEYS:
            person[name] = _scalar(value)
    return found


def find_submissions(folder: Path, exclude: Path | None = None) -> list[Submission]:
    """The submissions in ``folder`` (sorted by id), with their submitters when the metadata
    names them. An export unzipped into a single folder of its own is looked into."""
    folder = Path(folder)
    if not folder.is_dir():
        raise FileNotFoundError(f"no submissions folder at {str(folder)!r}: expected a "
                                "Gradescope export folder (or a folder of submissions)")
    entries = [p for p in sorted(folder.iterdir()) if not p.name.startswith((".", "__MACOSX"))]
    if not (folder / METADATA).exists():
        inner = [p for p in entries if p.is_dir() and (p / METADATA).exists()]
        if len(inner) == 1 and len([p for p in entries if p.is_dir()]) == 1:
            return find_submissions(inner[0], exclude)
    metadata = {}
    if (folder / METADATA).exists():
        metadata = read_metadata((folder / METADATA).read_text(encoding="utf-8", errors="replace"))
    excluded = exclude.resolve() if exclude is not None else None
    submissions = []
    for path in entries:
        if path.resolve() == excluded or not (path.is_dir() or path.suffix.lower() == ".zip"):
            continue
        name = path.stem if path.suffix.lower() == ".zip" else path.name
        submissions.append(Submission(name, path, metadata.get(name, [])))
    return submissions


def newest_change(path: Path) -> float:
    """The latest modification time of ``path`` and, for a folder, of anything inside it; links
    not followed. An upload is the student's: a folder walked without recursion (1,500 nested
    folders raised ``RecursionError`` in ``rglob``), and an entry that cannot be read (a dangling
    link, a folder of mode 000) skipped, never an error that stops the batch. ``inf`` when
    ``path`` itself cannot be read: the submission is graded again, and its grading says why."""
    try:
        top = os.lstat(path)
    except OSError:
        return math.inf
    newest, pending = top.st_mtime, [str(path)] if stat.S_ISDIR(top.st_mode) else []
    while pending:
        try:
            with os.scandir(pending.pop()) as entries:
                for entry in entries:
                    try:
                        info = entry.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    newest = max(newest, info.st_mtime)
                    if stat.S_ISDIR(info.st_mode):
                        pending.append(entry.path)
        except OSError:
            continue
    return newest
