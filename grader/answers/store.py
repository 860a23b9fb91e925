"""Reference answers, computed once per case and kept in an answer key.

Every (case, algorithm, rule, seed) answer the grading loop needs comes through
:class:`AnswerKey`. Where ``reference/`` is importable (staff machines, Gradescope) a missing
answer is computed with :mod:`grader.answers.solve`, timed, and cached; the student handout has no
``reference/`` and reads the public cases' answers from the key file that
``grader build handout`` writes (``trees/public/.answer-key.json``). The autograder zip carries
every case's answers the same way (``trees/.answer-key.json``, written by ``grader build
autograder``), so the first submission in a fresh Gradescope container finds them all and grades
as fast as the hundredth; a case edited after the build misses its entry and is recomputed.

Entries are keyed by a hash of the case's content (not its path or name), the algorithm, the
rule and the seed, so editing a case invalidates exactly its answers. A key file holds each
entry as a JSON text of its own (``"entries": {key: text}``), decoded when a grade first asks
for it: a grade of one case does not decode the others' answers, nor a passing submission's
grade the answers only feedback needs (the step replays and the known mistakes' runs, three
quarters of the staff cache), and a cache saved after a new answer writes the entries it did
not decode back as they were read. A key file also records a
hash of the code that computed it (``reference/``, ``grader/games/``, ``grader/algorithms/``, the
grader's modules that compute answers (among them ``grader/scoring/assumptions.py``, whose staff
side of an ``assumptions`` case is kept here), and the files of any algorithm
``GRADER_ALGORITHMS`` registers: :func:`extra_algorithm_sources`):
when that code changes on a staff machine the file is ignored and answers are recomputed.

Times: ``seconds`` is the reference's own time on the machine that computed it, for information
only (reports may show it; no limit and no score depends on it: limits are counted in game
calls, :mod:`grader.run.tracing`). A cache file carries a calibration time
(:mod:`grader.run.calibration`); when answers come from another machine's file, their times are
scaled by this machine's calibration over the file's. The keys ``grader build`` ships keep
neither (``save(shipped=True)``): a zip's bytes depend on the cases and the code only.
"""

from __future__ import annotations

import importlib.util
import json
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import grader.algorithms as algorithm_specs
from grader.errors import GraderError
from grader.files import write_text_atomically
from grader.footprint import sha256
from grader.paths import PACKAGE_ROOT, REPO_ROOT
from grader.run.calibration import calibration_seconds
from grader.run.packing import PackedIds, decode_indexes, pack_ids
from grader.run.runner import RunResult

KEY_FORMAT = 3  # 2: long traces stored packed (grader.run.packing); 3: a JSON text an entry
HANDOUT_KEY = REPO_ROOT / "trees" / "public" / ".answer-key.json"
AUTOGRADER_KEY = REPO_ROOT / "trees" / ".answer-key.json"  # public and hidden; staff-only
CACHE_KEY = Path(os.environ.get("GRADER_CACHE", REPO_ROOT / ".cache")) / "answer-key.json"


@dataclass
class Reference:
    """The reference's run for one rule, and how long the reference took (seconds)."""

    rule: str
    run: RunResult
    seconds: float | None  # None when the answer came from a shipped key (no times kept)


def reference_available() -> bool:
    try:
        import reference  # noqa: F401

        return hasattr(reference, "reference_functions")
    except ImportError:
        return False


def code_version() -> str | None:
    """A hash of the code answers depend on; None where ``reference/`` is not shipped."""
    if not reference_available():
        return None
    import reference

    digest = sha256()
    folders = [Path(reference.__file__).parent, PACKAGE_ROOT / "games", PACKAGE_ROOT / "algorithms"]
    for folder in folders:
        for source in sorted(folder.glob("*.py")):
            digest.update(source.name.encode() + b"\0" + source.read_bytes())
    for name in ("run/runner.py", "run/tracing.py", "answers/solve.py", "feedback/diagnosis.py",
                 "feedback/explain.py", "scoring/assumptions.py"):
        digest.update((PACKAGE_ROOT / name).read_bytes())
    for source in extra_algorithm_sources():
        digest.update(source.name.encode() + b"\0" + source.read_bytes())
    return digest.hexdigest()[:16]


def extra_algorithm_sources() -> list[Path]:
    """The files of the algorithms ``GRADER_ALGORITHMS`` registers, which lie outside the folders
    :func:`code_version` hashes: each spec module and the modules its import strings name (its
    reference, decision, steps, mistakes), once each, in order. Editing a registered algorithm's
    reference then recomputes its answers, as editing a built-in one does."""
    if not algorithm_specs.extra_entries():
        return []
    modules = [entry for entry in algorithm_specs.extra_entries() if not entry.endswith(".py")]
    for spec in algorithm_specs.extras():
        modules += spec.modules()
    paths = [Path(entry) for entry in algorithm_specs.extra_entries() if entry.endswith(".py")]
    for module in modules:
        found = importlib.util.find_spec(module)
        if found is not None and found.origin and found.origin.endswith(".py"):
            paths.append(Path(found.origin))
    return list(dict.fromkeys(path.resolve() for path in paths))


def case_fingerprint(case: Any) -> str:
    """A hash of everything in a case that can change an answer (not its name or prose)."""
    data = {k: v for k, v in case.data.items() if k not in ("$schema", "description", "expect",
                                                             "points", "visibility", "name")}
    return sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:20]


def _plain(value: Any) -> Any:
    """JSON-safe: tuples become lists (compare accepts either)."""
    return json.loads(json.dumps(value))


def _compact(data: Any) -> str:
    """Compact JSON (a full tic-tac-toe trace is 800,000 ids: no indentation), sorted so the same
    key gives the same bytes. Unlike results.json, a key may hold infinities (a mistaken
    variant's value): Python's JSON reads back what it writes."""
    return json.dumps(data, separators=(",", ":"), sort_keys=True)


def _entry_text(entry: dict[str, Any]) -> str:
    """One entry as the JSON text a key file holds for it (long traces packed)."""
    return _compact(_pack_traces(entry))


def _case_of(key: str) -> str:
    """The case fingerprint an entry key starts with (``fingerprint:algorithm:...``)."""
    return key.partition(":")[0]


def key_entries(text: str) -> dict[str, Any]:
    """Every entry of a key file's ``text``, decoded (long traces unpacked): what a key holds,
    for tools and tests that read a key file without an :class:`AnswerKey`."""
    hook = _SharedIds()
    return {key: _unpacked(json.loads(entry, object_hook=hook))
            for key, entry in json.loads(text).get("entries", {}).items()}


PACK_OVER = 1000  # a trace list longer than this is stored packed (grader.run.packing)
PACKED = "$packed_ids"  # {PACKED: [ids...], "lists": [base64, ...]} in place of a list


class _SharedIds:
    """A ``json.loads`` object hook: a stored trace kept packed (:class:`PackedIds`: 4 bytes an
    entry, never a list of 549,945 pointers while the file is read or between lookups;
    :meth:`AnswerKey._lookup` unpacks what it returns), and the ids of every long trace kept
    once. A game's trace repeats its states (full tic-tac-toe: 549,945 ids, 5,478 boards)."""

    def __init__(self) -> None:
        self.seen: dict[str, str] = {}

    def __call__(self, data: dict[str, Any]) -> Any:
        if PACKED in data:  # a stored trace (the innermost dict: hooked before its parent's)
            table = data[PACKED]
            lists = data.get("lists")
            if type(table) is not list or type(lists) is not list or len(lists) != 1 \
                    or not all(type(i) is str for i in table):
                raise ValueError("a damaged packed trace")
            indexes = decode_indexes(lists[0], len(table), len(lists[0]))
            if indexes is None:
                raise ValueError("a damaged packed trace")  # the file is ignored (_load)
            shared = self.seen.setdefault
            return PackedIds([shared(i, i) for i in table], indexes)
        for name in ("generated", "evaluated"):
            ids = data.get(name)
            if type(ids) is list and len(ids) > PACK_OVER:
                shared = self.seen.setdefault
                data[name] = [shared(i, i) if type(i) is str else i for i in ids]
        return data


def _unpacked(value: Any) -> Any:
    """``value`` with every :class:`PackedIds` in it a list again (containers copied)."""
    if isinstance(value, PackedIds):
        return value.unpack()
    if isinstance(value, dict):
        return {key: _unpacked(item) for key, item in value.items()}
    if isinstance(value, list):
        if all(type(item) in _SCALARS for item in value):  # a trace: ids, copied at C speed
            return value[:]
        return [_unpacked(item) for item in value]
    return value


_SCALARS = frozenset({str, int, float, bool, type(None)})


def _pack_traces(value: Any) -> Any:
    """``value`` with every ``generated``/``evaluated`` list of more than :data:`PACK_OVER` ids
    stored packed: 12 MB of JSON strings for all of tic-tac-toe become 3 MB."""
    if isinstance(value, PackedIds):  # read packed: written back as it was read
        return {PACKED: value.table, "lists": [value.encode()]}
    if isinstance(value, dict):
        packed = {}
        for key, item in value.items():
            if (key in ("generated", "evaluated") and isinstance(item, list)
                    and len(item) > PACK_OVER and all(type(i) is str for i in item)):
                table, lists = pack_ids(item)
                packed[key] = {PACKED: table, "lists": lists}
            else:
                packed[key] = _pack_traces(item)
        return packed
    if isinstance(value, list):
        return [_pack_traces(item) for item in value]
    return value


class AnswerKey:
    """Cached reference answers. ``files`` are read; ``cache`` is read and written."""

    def __init__(
        self, files: list[Path] | None = None, cache: Path | None = None, *,
        calibration: float | None = None,
    ) -> None:
        """``calibration``: this machine's :func:`calibration_seconds`, when the caller knows it
        (``grader batch`` passes the parent's, so each grading process neither re-measures it
        nor rescales times that were measured on this very machine)."""
        self.version = code_version()
        self.cache = cache
        self._entries: dict[str, dict[str, Any]] = {}  # decoded entries (entries: all of them)
        # entry key -> its text not decoded yet (the first file's that holds the key), and the
        # calibration of the file when it is not the cache (its times are another machine's)
        self._pending: dict[str, tuple[str, float | None]] = {}
        self._hook = _SharedIds()  # ids shared across the entries decoded
        self._scale: dict[str, float] = {}  # entry key -> time scale for other machines' files
        self._dirty = False
        self._calibration: float | None = calibration
        self.used: set[str] = set()  # keys looked up so far (what ``save(used_only=True)`` keeps)
        self._read: set[str] = set()  # keys read from a file: their long traces kept packed
        self._recent: dict[str, dict[str, Any]] = {}  # one case's entries, unpacked (_lookup)
        # one lookup at a time: a grade's workers run in threads (grade --jobs 2) and share the
        # key; without it one thread's _recent.clear() for its case could drop the entry another
        # had just put there and was about to return (a KeyError: a grader error on that test)
        self._lock = threading.RLock()
        for path in [*(files or []), *([cache] if cache else [])]:
            self._load(Path(path))

    @property
    def entries(self) -> dict[str, dict[str, Any]]:
        """Every entry the key holds (any not decoded yet decoded now)."""
        with self._lock:
            for key in list(self._pending):
                self._decode(key)
        return self._entries

    def _decode(self, key: str) -> None:
        """The entry ``key`` read from its file's text, if it is still pending: a text that
        does not decode (a damaged file) is dropped, and the answer recomputed."""
        text, scale = self._pending.pop(key)
        try:
            entry = json.loads(text, object_hook=self._hook)
        except ValueError:
            return  # a damaged cache is recomputed, never trusted
        if type(entry) is dict:
            self._entries[key] = entry
            self._read.add(key)
            if scale:
                self._scale[key] = scale

    @classmethod
    def default(cls) -> AnswerKey:
        """The built keys present (the handout's, the autograder zip's), and the staff cache
        where the reference exists."""
        cache = CACHE_KEY if reference_available() else None
        files = [path for path in (HANDOUT_KEY, AUTOGRADER_KEY) if path.exists()]
        return cls(files, cache)

    # --- files ------------------------------------------------------------------------
    def _load(self, path: Path) -> None:
        if not path.exists():
            return
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return  # a damaged cache is recomputed, never trusted
        if type(data) is not dict or data.get("format") != KEY_FORMAT:
            return
        if self.version is not None and data.get("code_version") != self.version:
            return  # computed by other code: stale
        foreign = path != self.cache
        if not foreign and self._calibration is None and data.get("calibration"):
            self._calibration = data["calibration"]  # this machine's, measured before
        scale = data.get("calibration") if foreign else None
        entries = data.get("entries")
        for key, text in (entries.items() if type(entries) is dict else ()):
            if type(text) is str and key not in self._pending and key not in self._entries:
                self._pending[key] = (text, scale)

    def save(self, path: Path | None = None, *, used_only: bool = False,
             shipped: bool = False) -> None:
        """Write the key (to ``path``, or to the cache when answers were added).

        ``used_only``: only the answers looked up so far (a key for one set of cases, not the
        whole staff cache; ``grader batch`` ships such a key to its grading processes).
        ``shipped``: a key that goes into a zip (``grader build``): no calibration and no
        ``seconds``, so its bytes depend on the cases and the code only, and two staff members
        building the same commit with their own caches get the same zip.
        """
        target = Path(path) if path else self.cache
        if target is None or (path is None and not self._dirty):
            return
        texts: dict[str, str] = {}
        if used_only:  # the answers looked up, each decoded by its lookup
            entries = self._entries
        elif shipped:  # a key to ship: every entry decoded (its times dropped below)
            entries = self.entries
        else:  # the cache: an entry not decoded is written back as it was read
            for key, (text, scale) in list(self._pending.items()):
                if scale is None:
                    texts[key] = text
                else:  # another file's (a shipped key's): merged into the cache, as read
                    self._decode(key)
            entries = self._entries
        if used_only:
            entries = {k: v for k, v in entries.items() if k in self.used}
        if shipped:
            entries = {k: {name: item for name, item in v.items() if name != "seconds"}
                       for k, v in entries.items()}
        texts.update((key, _entry_text(entry)) for key, entry in entries.items())
        data: dict[str, Any] = {"format": KEY_FORMAT, "code_version": self.version,
                                "entries": texts}
        if not shipped:
            data["calibration"] = self.calibration()
        try:
            write_text_atomically(_compact(data), target)
        except OSError:
            if path is not None:
                raise  # asked for explicitly; a cache that cannot be written is only slower
        self._dirty = False

    def calibration(self) -> float:
        if self._calibration is None:
            self._calibration = calibration_seconds()
        return self._calibration

    # --- lookups ----------------------------------------------------------------------
    def _lookup(self, key: str, compute: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        """The entry ``key`` names, computed and kept when missing. An entry read from a file
        comes unpacked (its traces lists again), and stays so while the lookups are of its case:
        the grade asks for one case's answers at a time, so the key holds one case's traces
        unpacked at most (the full tic-tac-toe trace alone is 4 MB of pointers a list)."""
        with self._lock:
            self.used.add(key)
            case = _case_of(key)
            if key in self._pending:
                self._decode(key)
            if key in self._read:
                if _case_of(next(iter(self._recent), ":")) != case:
                    self._recent.clear()
                if key not in self._recent:
                    self._recent[key] = _unpacked(self._entries[key])
                return self._recent[key]
            entry = self._entries.get(key)
            if entry is None:
                if self.version is None:
                    raise GraderError(
                        "this answer is not in the handout's answer key (was the case added or "
                        "edited after the handout was built?); it is graded on Gradescope"
                    )
                entry = compute()
                self._entries[key] = entry
                self._dirty = True
            return entry

    def reference(self, case: Any, algorithm: str, rule: str, seed: int | None = None, *,
                  packed: bool = False) -> Reference:
        """The reference's run of ``algorithm`` on ``case`` under ``rule`` (and MCTS ``seed``).
        ``packed``: its long traces as the key holds them (:class:`PackedIds`: a length, and
        equality with a list), not unpacked; for a comparison that needs no more when it
        passes (:func:`grader.scoring.pair.grade_pair`)."""
        key = f"{case_fingerprint(case)}:{algorithm}:{rule}:{seed}"
        with self._lock:  # as _lookup's
            if key in self._pending:
                self._decode(key)
            packed_entry = self._entries[key] if (
                packed and key in self._read and key not in self._recent) else None
            if packed_entry is not None:
                self.used.add(key)
        if packed_entry is not None:
            entry = packed_entry
            run = RunResult(**{name: item if isinstance(item, PackedIds) else _unpacked(item)
                               for name, item in entry["run"].items()})
            return Reference(rule, run, self._seconds(key, entry))

        def compute() -> dict[str, Any]:
            from grader.answers.solve import solve

            start = time.perf_counter()
            run = solve(case, algorithm, pruning=rule, seed=seed)
            seconds = time.perf_counter() - start
            return {"run": _plain(run.to_dict()), "seconds": seconds}

        entry = self._lookup(key, compute)
        return Reference(rule, RunResult(**entry["run"]), self._seconds(key, entry))

    def _seconds(self, key: str, entry: dict[str, Any]) -> float | None:
        seconds = entry.get("seconds")  # None: from a shipped key, which keeps no times
        if seconds is not None and key in self._scale:  # another machine's: scale to this one
            seconds *= self.calibration() / self._scale[key]
        return seconds

    def optimal_actions(self, case: Any) -> list[Any]:
        """The minimax-optimal root actions (what MCTS outcome checks accept)."""

        def compute() -> dict[str, Any]:
            from grader.answers.solve import optimal_actions

            return {"actions": _plain(optimal_actions(case))}

        return self._lookup(f"{case_fingerprint(case)}:optimal", compute)["actions"]

    def extra(self, case: Any, name: str, compute: Callable[[], Any]) -> Any:
        """Any other per-case answer (for example the known-mistake variants' runs)."""
        return self._lookup(f"{case_fingerprint(case)}:{name}", lambda: {"value": compute()})["value"]
