"""Private shared places: the worker's own ``/tmp``, ``/var/tmp``, ``/dev/shm``, ``/run/lock``,
System V IPC and scratch folder.

Without Landlock (kernels before 5.13, or ``$GRADER_LANDLOCK=0``) a worker dropped to an
unprivileged user could still write the machine's shared folders: memory written to
``/dev/shm`` escapes the memory limit and outlives the run, files in ``/tmp`` outlive it, and
nothing bounds the scratch folder but the parent's check between calls. As root, with the
right to make a mount namespace (``CAP_SYS_ADMIN``: a root grader on a machine or a
privileged container), :func:`isolate` runs in the worker's process between fork and exec and

* gives the process an IPC namespace of its own (System V shared memory, semaphores and
  message queues, POSIX message queues: five 256 MiB segments outlived the grader, 1.28 GB,
  where ``shmmax`` is unlimited; all go with the process), done on its own, whatever else
  fails or ``$GRADER_PRIVATE_TMP`` says, and caps it (:func:`ipc_caps`: the namespace's
  ``shmmax``/``shmall``/``shmmni`` and ``msgmax``/``msgmnb``/``msgmni``, a sixteenth of the
  worker's memory and 1 MiB: 32 segments of 64 MiB, made, filled and detached one at a time,
  none ever counted by ``RLIMIT_AS``, held 2 GiB a worker; issue 40). The worker's seccomp
  filter (:func:`grader.sandbox.confine.refuse_sysv_ipc`) refuses System V IPC outright where
  the kernel has one; these caps hold where it has not;
* gives the process a mount namespace of its own (private: nothing it mounts is seen outside,
  and every mount goes when the process does);
* makes the interpreter, its libraries and ``grader/`` reachable by the worker's user where a
  folder above them is closed to it (:func:`expose`: Python under ``/root``, mode 700, as
  pyenv installs it; honest imports of ``logging`` or ``queue`` failed after the privilege
  drop, issue 40), also where ``$GRADER_PRIVATE_TMP`` is 0;
* mounts a small file system of its own on the scratch folder (``tmpfs``: at most
  ``Limits.scratch`` bytes and ``Limits.scratch_entries`` files and folders, owned by the
  worker's user) and writes ``search.py`` into it;
* covers the world-writable folders of :data:`SHARED` (``/tmp``, ``/var/tmp``, ``/dev/shm``,
  ``/run/lock``: 20 MB of files there outlived the run...) with empty root-owned ``tmpfs``
  the worker's user cannot write to (the scratch folder, when it lies under one of them, is
  carried over).

Where the namespace cannot be made (no root, an unprivileged container) it does nothing: the
worker runs as before (its seccomp filter refuses System V IPC), Landlock fences it where the
kernel has it, and the parent's checks
(:func:`grader.sandbox.process.scratch_problem`) bound the scratch folder between calls.
docs/security.md says which layer holds on which kernel.
"""

from __future__ import annotations

import ctypes
import os
from pathlib import Path
from typing import Any, Callable

# The folders open to every user on common images (Debian, Ubuntu: /var/lock is a link to
# /run/lock; /dev/mqueue where mounted; /var/crash and /var/metrics on Ubuntu).
SHARED = ("/tmp", "/var/tmp", "/dev/shm", "/run/lock", "/dev/mqueue", "/var/crash",
          "/var/metrics")  # noqa: S108 - the folders being closed
PRIVATE_ENV = "GRADER_PRIVATE_TMP"  # "0": leave the shared folders as they are (tests of the rest)
_CLONE_NEWNS, _CLONE_NEWIPC = 0x00020000, 0x08000000
_MS_BIND, _MS_REC, _MS_PRIVATE = 0x1000, 0x4000, 1 << 18
_MS_NOSUID, _MS_NODEV = 0x2, 0x4


def _libc() -> Any:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mount.argtypes = (ctypes.c_char_p,) * 3 + (ctypes.c_ulong, ctypes.c_char_p)
    return libc


def _mount(libc: Any, source: str, target: str, kind: str | None, flags: int,
           options: str | None = None) -> bool:
    return libc.mount(source.encode(), target.encode(), kind.encode() if kind else None, flags,
                      options.encode() if options else None) == 0


def isolator(scratch: Path, source: bytes, ids: tuple[int, int] | None,
             limits: Any) -> Callable[[], None] | None:
    """A ``preexec_fn`` doing :func:`isolate`, or None where it cannot work (not root)."""
    if os.geteuid() != 0 or ids is None:
        return None
    libc = _libc()  # loaded here: the child, forked from a process that may have threads,
    #                 does no more than system calls
    caps = ipc_caps(int(limits.memory))
    hidden = hidden_roots(ids, [str(scratch)])
    if os.environ.get(PRIVATE_ENV, "1") == "0":
        def own_ipc() -> None:
            if libc.unshare(_CLONE_NEWIPC) == 0:
                _write_caps(caps)
            if hidden:  # the interpreter must still be reachable: a mount namespace for that
                try:
                    if libc.unshare(_CLONE_NEWNS) == 0 and _mount(libc, "none", "/", None,
                                                                  _MS_REC | _MS_PRIVATE):
                        expose(hidden, libc)
                except BaseException:  # noqa: BLE001, S110 - between fork and exec
                    pass

        return own_ipc
    options = (f"size={int(limits.scratch)},nr_inodes={int(limits.scratch_entries)},"
               f"mode=700,uid={ids[0]},gid={ids[1]}")
    covered = coverable()

    def run() -> None:
        # (where it fails: the worker's seccomp filter, and process.remove_ipc after it)
        if libc.unshare(_CLONE_NEWIPC) == 0:
            _write_caps(caps)
        try:
            isolate(str(scratch), source, ids, options, covered, libc, hidden)
        except BaseException:  # noqa: BLE001, S110 - between fork and exec: never raise here
            pass

    return run


def _searchable(path: str, ids: tuple[int, int]) -> bool:
    """Whether the user ``ids`` (uid, gid; no supplementary groups) may pass through folder
    ``path`` (its execute bit for that user)."""
    info = os.stat(path)
    if info.st_uid == ids[0]:
        return bool(info.st_mode & 0o100)
    if info.st_gid == ids[1]:
        return bool(info.st_mode & 0o010)
    return bool(info.st_mode & 0o001)


def needed_roots() -> list[str]:
    """What the worker reads after the privilege drop: the interpreter's installation (its
    ``bin``, standard library and extension modules), this environment's packages and the
    ``grader`` package (:func:`grader.sandbox.confine.readable_roots`), outermost only; never
    the grader's root or a folder above it (a venv holding the layout: ``reference/``,
    ``trees/`` and the answer cache stay hidden)."""
    import sys

    from grader.paths import REPO_ROOT
    from grader.sandbox.confine import readable_roots

    repo = os.path.realpath(REPO_ROOT)
    paths = [os.path.realpath(p) for p in (sys.base_prefix, sys.prefix) if p]
    paths = [p for p in paths if not (repo + os.sep).startswith(p.rstrip(os.sep) + os.sep)]
    # The interpreter the worker is started as, and the file that makes its folder a venv:
    # where the grader is installed in that venv (a wheel, not a checkout) the venv's root is
    # above the grader's and stays out, but its bin/ and pyvenv.cfg are needed to start.
    paths.append(os.path.dirname(os.path.abspath(sys.executable)))
    config = os.path.join(sys.prefix, "pyvenv.cfg")
    if os.path.isfile(config):
        paths.append(os.path.abspath(config))
    paths += [os.path.realpath(p) for p in readable_roots()]
    paths += installed_beside(repo)
    kept: list[str] = []
    for path in sorted(set(paths), key=len):
        if not any((path + os.sep).startswith(outer.rstrip(os.sep) + os.sep) for outer in kept):
            kept.append(path)
    return kept


def installed_beside(repo: str) -> list[str]:
    """Where the grader is an installed package (a wheel: its root is a ``site-packages``),
    what else of that folder the worker needs: its ``.pth`` files (read at start-up: they put
    the dependencies' folders on ``sys.path``) and the dependencies already imported from it
    (``timeout_decorator``...). Never ``reference/``, the one staff-only package beside it."""
    import sys

    if os.path.basename(repo) not in ("site-packages", "dist-packages"):
        return []
    kept = {os.path.join(repo, name) for name in os.listdir(repo) if name.endswith(".pth")}
    for module in list(sys.modules.values()):
        where = os.path.realpath(getattr(module, "__file__", None) or "")
        if not where.startswith(repo + os.sep):
            continue
        top = where[len(repo) + 1:].split(os.sep)[0]
        if top.split(".")[0] not in ("grader", "reference", "trees"):
            kept.add(os.path.join(repo, top))
    return sorted(kept)


def hidden_roots(ids: tuple[int, int], extra: list[str] = ()) -> dict[str, list[str]]:
    """{a folder the worker's user cannot pass through: the paths below it the worker needs}
    (:func:`needed_roots` and ``extra``): an interpreter under ``/root`` (mode 700, pyenv's
    home) left honest imports as the dropped user failing ("No module named 'logging'",
    issue 40). :func:`expose` makes each reachable in the worker's mount namespace; empty
    where every path is reachable already."""
    hidden: dict[str, list[str]] = {}
    for path in [*needed_roots(), *[os.path.realpath(p) for p in extra]]:
        folder = os.sep
        for part in path.strip(os.sep).split(os.sep)[:-1]:
            folder = os.path.join(folder, part)
            try:
                if _searchable(folder, ids):
                    continue
            except OSError:
                break
            hidden.setdefault(folder, []).append(path)
            break
    return hidden


def expose(hidden: dict[str, list[str]], libc: Any) -> None:
    """In a forked child, in its own mount namespace, as root: cover each folder of ``hidden``
    with an empty ``tmpfs`` of mode 755 and bind the paths the worker needs back at their
    places (the rest of that folder, ``/root``'s files say, stays out of sight)."""
    for folder, paths in hidden.items():
        handles = []
        try:
            for path in paths:
                try:
                    handles.append((path, os.open(path, os.O_PATH)))
                except OSError:
                    pass
            if not _mount(libc, "tmpfs", folder, "tmpfs", _MS_NOSUID | _MS_NODEV,
                          "size=64k,mode=755"):
                continue
            for path, handle in handles:
                if os.path.isdir(f"/proc/self/fd/{handle}"):
                    os.makedirs(path, mode=0o755, exist_ok=True)
                else:
                    os.makedirs(os.path.dirname(path), mode=0o755, exist_ok=True)
                    os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o644))
                _mount(libc, f"/proc/self/fd/{handle}", path, None, _MS_BIND | _MS_REC)
        finally:
            for _, handle in handles:
                os.close(handle)


def ipc_caps(memory: int) -> list[tuple[str, bytes]]:
    """The System V limits of a worker's own IPC namespace, for a worker of ``memory`` bytes:
    shared memory at most a sixteenth of it in all (``shmall``, in pages; one segment as big,
    ``shmmax``; 16 segments, ``shmmni``), message queues 1 MiB in all (16 queues of 64 KiB,
    messages of 8 KiB). Written to ``/proc/sys/kernel`` of the namespace by :func:`_write_caps`
    (each IPC namespace has its own copy; the machine's stay as they are)."""
    shared = max(1 << 20, memory // 16)
    page = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
    values = {"shmmax": shared, "shmall": shared // page, "shmmni": 16,
              "msgmax": 8 << 10, "msgmnb": 64 << 10, "msgmni": 16}
    return [(f"/proc/sys/kernel/{name}", str(value).encode()) for name, value in values.items()]


def _write_caps(caps: list[tuple[str, bytes]]) -> None:
    """In a forked child, in its new IPC namespace: write each cap (system calls only)."""
    for path, value in caps:
        try:
            handle = os.open(path, os.O_WRONLY)
        except OSError:
            continue
        try:
            os.write(handle, value)
        except OSError:
            pass
        finally:
            os.close(handle)


def coverable() -> list[str]:
    """The folders of SHARED that hold nothing the worker needs (the interpreter, its
    libraries, the grader: a grader installed under /tmp keeps /tmp open)."""
    import sys

    from grader.paths import REPO_ROOT

    needed = [os.path.realpath(p) for p in (sys.executable, sys.prefix, sys.base_prefix,
                                            str(REPO_ROOT), *sys.path) if p]
    return [shared for shared in SHARED if os.path.isdir(shared) and not os.path.islink(shared)
            and (shared in SHARED[:3] or os.stat(shared).st_mode & 0o002)
            and not any((path + os.sep).startswith(os.path.realpath(shared) + os.sep)
                        for path in needed)]


def isolate(scratch: str, source: bytes, ids: tuple[int, int], options: str,
            covered: list[str], libc: Any, hidden: dict[str, list[str]] | None = None) -> bool:
    """In a forked child, as root: the steps of the module docstring. True when done."""
    if libc.unshare(_CLONE_NEWNS) != 0:
        return False
    if not _mount(libc, "none", "/", None, _MS_REC | _MS_PRIVATE):
        return False
    if hidden:
        expose(hidden, libc)
    flags = _MS_NOSUID | _MS_NODEV
    if not _mount(libc, "tmpfs", scratch, "tmpfs", flags, options):
        return False
    _write_source(scratch, source, ids)
    keep = os.open(scratch, os.O_PATH | os.O_DIRECTORY)
    try:
        for shared in covered:
            if not _mount(libc, "tmpfs", shared, "tmpfs", flags, "size=64k,mode=755"):
                continue
            if (scratch + os.sep).startswith(shared.rstrip(os.sep) + os.sep):
                os.makedirs(scratch, exist_ok=True)  # the scratch folder, carried over
                _mount(libc, f"/proc/self/fd/{keep}", scratch, None, _MS_BIND)
    finally:
        os.close(keep)
    return True


# /proc/sysvipc/<kind>: the column of the object's id, and those of its owner's and creator's uid
_IPC_TABLES = {"shm": (1, 7, 9), "msg": (1, 7, 9), "sem": (1, 4, 6)}
_IPC_RMID = 0


def remove_ipc(uid: int | None, pid: int) -> int:
    """Remove the System V IPC objects (shared memory, message queues, semaphores) that a
    worker left in the grader's IPC namespace where it could not have one of its own (no
    ``CAP_SYS_ADMIN``): those its user ``uid`` owns or made, when it is not the grader's, and
    the shared memory its process ``pid`` made (a grader that is not root, whose worker runs as
    its own user: no other object records its maker). How many were removed; 0 where nothing
    can be read."""
    uid = None if uid == os.geteuid() else uid
    removed = 0
    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        return 0
    for kind, (ident, owner, creator) in _IPC_TABLES.items():
        try:
            with open(f"/proc/sysvipc/{kind}") as table:
                rows = [line.split() for line in table.readlines()[1:]]
        except OSError:
            continue
        for row in rows:
            try:
                mine = uid is not None and uid in (int(row[owner]), int(row[creator]))
                if not (mine or (kind == "shm" and int(row[4]) == pid)):  # column 4: cpid
                    continue
                number = int(row[ident])
            except (IndexError, ValueError):
                continue
            if kind == "shm":
                done = libc.shmctl(number, _IPC_RMID, None)
            elif kind == "msg":
                done = libc.msgctl(number, _IPC_RMID, None)
            else:
                done = libc.semctl(number, 0, _IPC_RMID)
            removed += done == 0
    return removed


def _write_source(scratch: str, source: bytes, ids: tuple[int, int]) -> None:
    target = os.path.join(scratch, "search.py")
    handle = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        view = memoryview(source)
        while view:
            view = view[os.write(handle, view):]
        os.fchown(handle, *ids)
    finally:
        os.close(handle)
