"""What one worker may use (:class:`Limits`) and which user it runs as (:func:`resolve_user`).

The parent's side of the limits: the worker applies them (:mod:`grader.sandbox.confine`).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING

from grader.errors import GraderError

if TYPE_CHECKING:
    import pwd

MiB = 1024 * 1024
WORKER_USER_ENV = "GRADER_WORKER_USER"
LANDLOCK_ENV = "GRADER_LANDLOCK"  # "0": do not confine the worker with Landlock


@dataclass(frozen=True)
class Limits:
    """What one worker may use. Times in seconds, sizes in bytes."""

    time: float = 2.0  # per-call time limit when ``run`` is given none
    kill_margin: float = 1.0  # the process group is killed at time + kill_margin (wall clock)
    setup_time: float = 10.0  # the worker's own work: starting, building a game, replying
    import_time: float = 5.0  # importing search.py (its top-level code)
    memory: int = 512 * MiB  # RLIMIT_AS (Gradescope's container has 768 MB in all)
    cpu_time: int = 300  # RLIMIT_CPU over the worker's life (a fresh worker is started before
    #                      a request could cross it); each call also gets a soft limit
    processes: int = 1  # RLIMIT_NPROC: 1 = no fork, no threads (unless the worker runs as root)
    file_size: int = 1 * MiB  # RLIMIT_FSIZE: a write past it fails with EFBIG
    open_files: int = 64  # RLIMIT_NOFILE
    output: int = 10_000  # bytes of stdout, and of stderr, kept per request
    flood: int = 10 * MiB  # a call printing more (stdout + stderr, all ways) fails

    def __post_init__(self) -> None:
        for item in fields(self):
            value = getattr(self, item.name)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise TypeError(f"expected limit {item.name!r} to be a number, got: {value!r}")
            if not (value > 0 and math.isfinite(value)):
                raise ValueError(f"expected limit {item.name!r} to be positive, got: {value!r}")


def resolve_user(user: str | int | None) -> tuple[int, int] | None:
    """(uid, gid) the worker drops to, or None (no drop: the grader is not root, or ``user``
    is root). As root the default is ``$GRADER_WORKER_USER``, else ``nobody``. Where there
    are no POSIX users (Windows), None."""
    if not hasattr(os, "geteuid"):
        return None
    if os.geteuid() != 0:
        if user is None or _lookup_user(user).pw_uid == os.geteuid():
            return None
        raise GraderError(
            f"running the worker as user {user!r} needs root; the grader runs as uid {os.geteuid()}"
        )
    if user is None:
        user = os.environ.get(WORKER_USER_ENV) or "nobody"
    entry = _lookup_user(user)
    if entry.pw_uid == 0:
        return None
    return entry.pw_uid, entry.pw_gid


def _lookup_user(user: str | int) -> pwd.struct_passwd:
    import pwd  # POSIX only: imported here, so the local check imports on Windows

    try:
        return pwd.getpwuid(user) if isinstance(user, int) else pwd.getpwnam(user)
    except KeyError:
        raise GraderError(
            f"no user {user!r} to run student code as; create one (useradd --system) "
            f"or set {WORKER_USER_ENV}"
        ) from None
