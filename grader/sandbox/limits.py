"""What one worker may use (:class:`Limits`) and which user it runs as (:func:`resolve_user`).

The parent's side of the limits: the worker applies them (:mod:`grader.sandbox.confine`).

Users: one worker at a time (``grader grade``) runs as ``$GRADER_WORKER_USER`` (else
``nobody``). Several at once (``grader batch``, ``grader grade --jobs N``) must not share a
user, or one worker could signal (kill) another wherever Landlock cannot scope signals (kernels
before 6.12): each grading process claims a job slot (:func:`claim_worker_slot`; ``grade
--jobs N``: one a worker, :func:`worker_users`), and the worker of slot
``k`` runs as the user ``<base>-k`` (docker/setup.sh makes ``grader-worker-1`` ...), else as
the uid ``SLOT_UID_BASE + k``, a uid no account has (the kernel needs no account to run a
process as a uid).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING

from grader.errors import GraderError
from grader.sandbox.allowance import HIDING_CPU, platform_allowance

if TYPE_CHECKING:
    import pwd

MiB = 1024 * 1024
WORKER_USER_ENV = "GRADER_WORKER_USER"
LANDLOCK_ENV = "GRADER_LANDLOCK"  # "0": do not confine the worker with Landlock
SECCOMP_ENV = "GRADER_SECCOMP"  # "0": no seccomp filter (to test the IPC namespace's caps alone)
WORKER_SLOT_ENV = "GRADER_WORKER_SLOT"  # this process's job slot (1, 2, ...), set by batch
WORKER_MEMORY_ENV = "GRADER_WORKER_MEMORY"  # MiB of address space each worker may use
DEFAULT_WORKER_MEMORY = 256  # MiB: a grade's two workers and the grader fit 768 MB (Gradescope)
MIN_WORKER_MEMORY = 128  # MiB: below it the interpreter and a correct search do not fit
SLOT_UID_BASE = 62_000  # slot k without an account of its own runs as this uid + k
MAX_SLOTS = 512
_SLOT_LOCK: list[int] = []  # the claimed slots' locks, held for this process's life
_GRADE_SLOTS: dict[int, list[int]] = {}  # pid -> the slots its grades give their workers
# (both filled by worker_users, in the grade's own thread before its grading threads start)


@dataclass(frozen=True)
class Limits:
    """What one worker may use. Times in seconds, sizes in bytes."""

    time: float = 2.0  # per-call time limit when ``run`` is given none
    kill_margin: float = 1.0  # the process group is killed at time + kill_margin (wall clock)
    setup_time: float = 10.0  # the worker's own work: starting, building a game, replying
    import_time: float = 5.0  # importing search.py (its top-level code)
    # RLIMIT_AS: $GRADER_WORKER_MEMORY MiB, else 256: every grade has two workers (scoring's
    # SHARES), and both at their limit with the grader fit Gradescope's 768 MB container
    memory: int = field(default_factory=lambda: worker_memory() * MiB)
    cpu_time: int = 300  # RLIMIT_CPU over the worker's life (a fresh worker is started before
    #                      a request could cross it, where a fresh one has more room: client's
    #                      Worker._short_of_life); each call also gets a soft limit
    processes: int = 1  # RLIMIT_NPROC: 1 = no fork, no threads (unless the worker runs as root)
    file_size: int = 1 * MiB  # RLIMIT_FSIZE: a write past it fails with EFBIG
    open_files: int = 64  # RLIMIT_NOFILE
    output: int = 10_000  # bytes of stdout, and of stderr, kept per request
    flood: int = 10 * MiB  # a call printing more (stdout + stderr, all ways) fails
    scratch: int = 64 * MiB  # the scratch folder's size after a call (files of file_size each)
    scratch_entries: int = 1_000  # and its files and folders: more fails the call
    restart_cpu: float = 60.0  # CPU seconds all of a submission's worker starts may take (its
    #                            import each time): past it no worker is started again, and
    #                            the tests left fail (os._exit in every function, an import
    #                            spinning 4.5 s: paid again at each of 111 tests)
    # the submission's CPU seconds over all its calls and worker starts: half the platform's
    # time budget ($GRADER_TIME_BUDGET, run_autograder's 540 s by default; grader.sandbox.allowance)
    submission_cpu: float = field(default_factory=platform_allowance)
    hiding_cpu: float = HIDING_CPU  # CPU seconds its time-outs may cost in all (the same module)

    def __post_init__(self) -> None:
        for item in fields(self):
            value = getattr(self, item.name)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise TypeError(f"expected limit {item.name!r} to be a number, got: {value!r}")
            if not (value > 0 and math.isfinite(value)):
                raise ValueError(f"expected limit {item.name!r} to be positive, got: {value!r}")


def worker_memory(environ: dict[str, str] | None = None) -> int:
    """MiB of address space (RLIMIT_AS) each worker may use: ``$GRADER_WORKER_MEMORY``, else
    :data:`DEFAULT_WORKER_MEMORY`, the same on every platform, so that a submission's memory
    fails it everywhere or nowhere; both workers of a grade at their limit and the grader fit
    Gradescope's 768 MB container (docs/security.md). A value that is not a whole number of at least
    :data:`MIN_WORKER_MEMORY` is a staff error: :class:`GraderError` says which."""
    environ = os.environ if environ is None else environ
    given = environ.get(WORKER_MEMORY_ENV, "").strip()
    if not given:
        return DEFAULT_WORKER_MEMORY
    if not given.isdigit() or not MIN_WORKER_MEMORY <= int(given) <= 1 << 20:
        raise GraderError(
            f"${WORKER_MEMORY_ENV}: expected the MiB each worker may use, a whole number from "
            f"{MIN_WORKER_MEMORY} to {1 << 20}, got: {given!r}")
    return int(given)


def resolve_user(user: str | int | tuple[int, int] | None) -> tuple[int, int] | None:
    """(uid, gid) the worker drops to, or None (no drop: the grader is not root, or ``user``
    is root). As root the default is ``$GRADER_WORKER_USER``, else ``nobody``; a ``(uid,
    gid)`` pair (a job slot's, :func:`worker_users`) is taken as it is. Where there are no
    POSIX users (Windows), None."""
    if not hasattr(os, "geteuid"):
        return None
    if isinstance(user, tuple):
        return user
    if os.geteuid() != 0:
        if user is None or _lookup_user(user).pw_uid == os.geteuid():
            return None
        raise GraderError(
            f"running the worker as user {user!r} needs root; the grader runs as uid {os.geteuid()}"
        )
    if user is None:
        user = os.environ.get(WORKER_USER_ENV) or "nobody"
        slot = os.environ.get(WORKER_SLOT_ENV, "")
        if slot.isdigit() and 0 < int(slot) <= MAX_SLOTS:
            return slot_ids(str(user), int(slot))
    entry = _lookup_user(user)
    if entry.pw_uid == 0:
        return None
    return entry.pw_uid, entry.pw_gid


def slot_ids(base: str, slot: int) -> tuple[int, int]:
    """(uid, gid) of job slot ``slot``: the user ``<base>-<slot>`` if there is one, else the
    uid SLOT_UID_BASE + slot (no account may hold it) with ``base``'s group."""
    import pwd  # POSIX only, as is every job slot

    try:
        entry = pwd.getpwnam(f"{base}-{slot}")
        if entry.pw_uid != 0:
            return entry.pw_uid, entry.pw_gid
    except KeyError:
        pass
    uid = SLOT_UID_BASE + slot
    try:
        taken = pwd.getpwuid(uid).pw_name
    except KeyError:
        return uid, _lookup_user(base).pw_gid
    raise GraderError(
        f"uid {uid} (job slot {slot}'s worker) belongs to the account {taken!r}; make a user "
        f"{base}-{slot} for the slot (docker/setup.sh, GRADER_WORKER_SLOTS) instead"
    )


def claim_worker_slot(folder: str | None = None) -> int:
    """Claim the lowest free job slot on this machine and set ``$GRADER_WORKER_SLOT``: this
    process's workers then run as the slot's own user. A slot is a locked file, freed when its
    process ends. The slots are the machine's, not one batch's: a slot's user is a machine-wide
    uid, so two batches running at once must not share one (a submission of one could signal
    the other's workers). Returns the slot (0: none free)."""
    slot = _claim_slot(folder)
    if slot:
        os.environ[WORKER_SLOT_ENV] = str(slot)
    return slot


def worker_users(count: int) -> list[tuple[int, int] | None]:
    """The users of ``count`` workers grading one submission at once (``grader grade --jobs``):
    as root, a job slot's each (claimed as :func:`claim_worker_slot` claims one), so that none
    can signal another where Landlock cannot scope signals (one killed the other as it started:
    a staff error, and every test of the other's share failed as an import that died); else
    the default user for each (None: not root, or one worker), also where that many slots
    cannot be claimed (the slots' folder full or not writable): the same number of workers
    either way, since the number decides which tests each one sees."""
    base = os.environ.get(WORKER_USER_ENV) or "nobody"
    if count < 2 or resolve_user(None) is None:
        return [None] * count
    # claimed once a process and kept for its later grades, one after another (a batch process
    # grades hundreds: a claim a grade would use up the machine's slots); a forked child (a
    # batch's pool) claims its own, or its workers would be the same users as its siblings'
    claimed = _GRADE_SLOTS.setdefault(os.getpid(), [])
    while len(claimed) < count:
        slot = _claim_slot()
        if not slot:  # still ``count`` workers, so that the tests are shared out the same way
            return [None] * count
        claimed.append(slot)
    return [slot_ids(base, slot) for slot in claimed[:count]]


def _claim_slot(folder: str | None = None) -> int:
    """The lowest free job slot, its lock held for this process's life (0: none free)."""
    import fcntl  # POSIX only, as is every job slot
    import tempfile  # the parent's alone: the worker imports this module for its sizes

    folder = folder or os.path.join(tempfile.gettempdir(), f"grader-slots-{os.getuid()}")
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
    except OSError:
        return 0
    for slot in range(1, MAX_SLOTS + 1):
        try:
            handle = os.open(os.path.join(folder, str(slot)), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        except OSError:
            return 0
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(handle)
            continue
        _SLOT_LOCK.append(handle)
        return slot
    return 0


def _lookup_user(user: str | int) -> pwd.struct_passwd:
    import pwd  # POSIX only: imported here, so the local check imports on Windows

    try:
        return pwd.getpwuid(user) if isinstance(user, int) else pwd.getpwnam(user)
    except KeyError:
        raise GraderError(
            f"no user {user!r} to run student code as; create one (useradd --system) "
            f"or set {WORKER_USER_ENV}"
        ) from None
