"""Case files that passed every check before, remembered so that a grade does not check them again.

A grade loads every case file it is given, and checking one (the schema by ``jsonschema``, the
structure, networkx for a graph) costs more than reading it: 0.1 CPU s for the bundled cases,
and importing ``jsonschema`` about 0.05 more, in every grade, for files that rarely change.
:func:`vouched` says whether a file's exact text passed every check before under the same
checking code; :func:`remember` records one that just did.

What is remembered is a hash: of the file's text, and of the code that checks (the modules of
``grader/cases/``, the schema, ``grader/algorithms/`` and ``grader/games/``, whose specs and
rules the checks read). Any edit of either gives another hash, so a changed case, or a case
under changed checks, is checked again; nothing else about a case is kept, and a case loaded
either way is the same :class:`~grader.cases.load.Case` (:func:`~grader.cases.load.case_from_checked`
of the same data). An algorithm registered by ``GRADER_ALGORITHMS`` changes the checks from
outside those folders: with one, nothing is vouched for.

The memo is ``checked-cases.json`` in the grader's cache folder (``$GRADER_CACHE``, else
``.cache/`` of the checkout, where the answer cache lives), used only where that folder exists
(staff machines, the Gradescope image; never the student's handout, which has no cache),
written once, when the process ends, if it learnt a case. A memo that cannot be read is empty;
one that cannot be written only makes the next grade check again.
"""

from __future__ import annotations

import atexit
import functools
import json
import os
from pathlib import Path

import grader.algorithms as algorithm_specs
from grader.files import write_text_atomically
from grader.footprint import sha256
from grader.paths import PACKAGE_ROOT, REPO_ROOT

MEMO_NAME = "checked-cases.json"
MEMO_CAP = 10_000  # hashes kept at most (a memo past it starts afresh)
# the code a case's checks depend on, by folder and file pattern
CHECKING_CODE = (("cases", "*.py"), ("schema", "*.json"), ("algorithms", "*.py"), ("games", "*.py"))


def memo_path() -> Path | None:
    """Where the memo is, or None where there is no cache folder (read at each call: a bench or
    test may set ``$GRADER_CACHE`` after the import)."""
    folder = Path(os.environ.get("GRADER_CACHE", REPO_ROOT / ".cache"))
    return folder / MEMO_NAME if folder.is_dir() else None


def checking_version() -> str | None:
    """A hash of the checking code (see the module docstring); None while an algorithm is
    registered from outside it (nothing is vouched for then)."""
    return None if algorithm_specs.extra_entries() else _code_hash()


@functools.lru_cache(maxsize=1)
def _code_hash() -> str:
    digest = sha256()
    for folder, pattern in CHECKING_CODE:
        for source in sorted((PACKAGE_ROOT / folder).glob(pattern)):
            digest.update(f"{folder}/{source.name}".encode() + b"\0" + source.read_bytes())
    return digest.hexdigest()


def _text_hash(text: str, version: str) -> str:
    return sha256(version.encode() + b"\0" + text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


class _Memo:
    """The hashes read from the memo file (once a process), and those added since."""

    def __init__(self) -> None:
        self.path: Path | None = None
        self.hashes: set[str] | None = None
        self.learnt = False  # hashes added since the file was read or written
        self.at_exit = False  # flush registered to run when the process ends

    def load(self) -> set[str]:
        path = memo_path()
        if self.hashes is None or path != self.path:
            self.flush()  # what was learnt under another cache folder goes there
            self.path, self.hashes = path, set()
            try:
                data = json.loads(path.read_text(encoding="utf-8")) if path else None
            except (OSError, ValueError):
                data = None
            if isinstance(data, dict) and data.get("checking") == checking_version():
                self.hashes = {h for h in data.get("passed", []) if isinstance(h, str)}
        return self.hashes

    def add(self, entry: str) -> None:
        hashes = self.load()
        if entry in hashes or self.path is None:
            return
        if len(hashes) >= MEMO_CAP:
            hashes.clear()
        hashes.add(entry)
        self.learnt = True
        if not self.at_exit:  # one write a process, not one a case
            self.at_exit = True
            atexit.register(self.flush)

    def flush(self) -> None:
        """Write what was learnt (the hashes, under the checking code's hash)."""
        if not self.learnt or self.path is None or self.hashes is None:
            return
        self.learnt = False
        data = {"checking": checking_version(), "passed": sorted(self.hashes)}
        try:
            write_text_atomically(json.dumps(data, separators=(",", ":")), self.path)
        except OSError:
            pass  # the next grade checks again


_MEMO = _Memo()


def vouched(text: str) -> bool:
    """Whether a case file of exactly ``text`` passed every check before, under this code."""
    version = checking_version()
    if version is None or memo_path() is None:
        return False
    return _text_hash(text, version) in _MEMO.load()


def remember(text: str) -> None:
    """Record that a case file of ``text`` just passed every check (where there is a memo;
    written when the process ends, or by :func:`flush`)."""
    version = checking_version()
    if version is not None and memo_path() is not None:
        _MEMO.add(_text_hash(text, version))


def flush() -> None:
    """Write what this process learnt now (a long-lived process: a batch's pool)."""
    _MEMO.flush()
