"""Confining the worker process, called by the worker on itself before any student code runs.

Innermost first: ``resource`` limits (:func:`apply_limits`; a soft CPU limit per call,
:func:`allow_cpu`), a seccomp filter refusing System V IPC (:func:`refuse_sysv_ipc`), Landlock
where the kernel has it (:func:`confine`: read only the interpreter's libraries and
``grader/``, write only the scratch folder, no TCP, no signals outside the sandbox;
``no_new_privs`` in any case), the privilege drop as root (:func:`drop_privileges`, checked:
root cannot be regained), death with the parent (:func:`die_with_parent`) and the OOM
killer's first choice (:func:`most_killable`).
"""

from __future__ import annotations

import ctypes
import math
import os
try:
    import resource
except ImportError:  # Windows: only the portable worker (grader.sandbox.portable) runs there
    resource = None  # type: ignore[assignment]
import signal
import sys
from typing import Any

from grader.paths import REPO_ROOT


def drop_privileges(ids: list[int] | None) -> None:
    if not ids:
        return
    uid, gid = ids
    os.setgroups([])
    os.setgid(gid)
    os.setuid(uid)
    if os.getresuid() != (uid, uid, uid) or os.getresgid() != (gid, gid, gid):
        raise SystemExit(f"grader.sandbox.worker: could not drop to uid {uid}, gid {gid}")
    try:
        os.setuid(0)
    except PermissionError:
        return
    raise SystemExit("grader.sandbox.worker: could regain root after dropping privileges")


def die_with_parent() -> None:
    """Linux: SIGKILL the worker when the grader dies (setuid resets this, so set after it)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def most_killable() -> None:
    """Linux: make this process the OOM killer's first choice (``oom_score_adj`` 1000), so a
    memory attack ends the worker, never the grader (issue 40: in a 768 MiB cgroup the grader,
    the largest process, was killed, no results file). Any process may raise its own score;
    lowering it again needs ``CAP_SYS_RESOURCE``, which the dropped worker lacks."""
    try:
        with open("/proc/self/oom_score_adj", "w") as handle:
            handle.write("1000")
    except OSError:
        pass


GRADER_OOM_SCORE_ADJ = -500  # the grader as root: chosen only once it holds half the memory


def least_killable() -> bool:
    """The grader's side of :func:`most_killable`: as root with ``CAP_SYS_RESOURCE``, lower
    this process's ``oom_score_adj`` to :data:`GRADER_OOM_SCORE_ADJ` (not -1000: a grader that
    itself runs away may still be ended); without it (not root, or Docker's default
    capabilities) it cannot be lowered, and the workers' 1000 is what keeps the killer off the
    grader. True when lowered. Called once a process, before its
    first worker starts (:mod:`grader.sandbox.lifecycle`); the workers raise their own."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return False
    try:
        with open("/proc/self/oom_score_adj", "w") as handle:
            handle.write(str(GRADER_OOM_SCORE_ADJ))
        return True
    except OSError:
        return False


# seccomp (Linux >= 3.5): refuse the System V IPC system calls. <linux/seccomp.h>, <linux/filter.h>
_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 22, 2
_RET_ALLOW, _RET_ERRNO = 0x7FFF0000, 0x00050000
_LD_ABS_W, _JEQ_K, _JGE_K, _RET_K = 0x20, 0x15, 0x35, 0x06
# machine -> (AUDIT_ARCH_*, its System V IPC calls: shmget shmat shmctl shmdt semget semop
# semctl semtimedop msgget msgsnd msgrcv msgctl)
_SYSV_CALLS = {
    "x86_64": (0xC000003E, (29, 30, 31, 67, 64, 65, 66, 220, 68, 69, 70, 71)),
    "aarch64": (0xC00000B7, (194, 196, 195, 197, 190, 193, 191, 192, 186, 189, 188, 187)),
}


class _SockFilter(ctypes.Structure):
    _fields_ = (("code", ctypes.c_uint16), ("jt", ctypes.c_uint8), ("jf", ctypes.c_uint8),
                ("k", ctypes.c_uint32))


class _SockFprog(ctypes.Structure):
    _fields_ = (("len", ctypes.c_uint16), ("filter", ctypes.POINTER(_SockFilter)))


def sysv_filter(machine: str) -> list[tuple[int, int, int, int]] | None:
    """The seccomp program (BPF instructions) refusing System V IPC with EPERM on
    ``machine`` (``os.uname().machine``), every call of another architecture with ENOSYS (a
    32-bit ``ipc()`` through ``int 0x80`` is one), x32's calls too; None for a machine it
    does not know."""
    import errno

    if machine not in _SYSV_CALLS:
        return None
    arch, calls = _SYSV_CALLS[machine]
    program = [(_LD_ABS_W, 0, 0, 4), (_JEQ_K, 1, 0, arch),
               (_RET_K, 0, 0, _RET_ERRNO | errno.ENOSYS), (_LD_ABS_W, 0, 0, 0)]
    if machine == "x86_64":  # x32: the same numbers with bit 30 set
        program.append((_JGE_K, len(calls) + 1, 0, 0x40000000))
    for index, number in enumerate(calls):
        program.append((_JEQ_K, len(calls) - index, 0, number))
    program += [(_RET_K, 0, 0, _RET_ALLOW), (_RET_K, 0, 0, _RET_ERRNO | errno.EPERM)]
    return program


def refuse_sysv_ipc() -> int:
    """Install :func:`sysv_filter` on this process (after ``no_new_privs``, :func:`confine`):
    ``shmget``, ``msgget``, ``semget`` and the rest fail with EPERM, so no worker holds memory
    ``RLIMIT_AS`` never sees (a detached segment) on any path, with or without an IPC
    namespace of its own. 1 when installed, 0 where it cannot be (not Linux, an unknown
    machine, a kernel without seccomp filters)."""
    if not sys.platform.startswith("linux"):
        return 0
    program = sysv_filter(os.uname().machine)
    if program is None:
        return 0
    filters = (_SockFilter * len(program))(*[_SockFilter(*op) for op in program])
    prog = _SockFprog(len(program), filters)
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
        done = libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0)
    except (OSError, AttributeError):
        return 0
    return int(done == 0)


# Landlock (Linux >= 5.13; unprivileged): the kernel's own file-system, network and signal
# fence. <linux/landlock.h>: syscalls, rule type, access bits (by ABI version).
_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF, _CREATE_RULESET_VERSION = 444, 445, 446, 1
_PATH_BENEATH, _PR_SET_NO_NEW_PRIVS = 1, 38
_FS_EXECUTE, _FS_WRITE_FILE, _FS_READ_FILE, _FS_READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
_FS_TRUNCATE, _FS_IOCTL_DEV = 1 << 14, 1 << 15
_FILE_ACCESS = _FS_EXECUTE | _FS_WRITE_FILE | _FS_READ_FILE | _FS_TRUNCATE | _FS_IOCTL_DEV
_NET_TCP = 0b11  # bind, connect
_SCOPE = 0b11  # abstract unix sockets, signals


class _RulesetAttr(ctypes.Structure):
    _fields_ = (("fs", ctypes.c_uint64), ("net", ctypes.c_uint64), ("scoped", ctypes.c_uint64))


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = (("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32))


def readable_roots() -> list[str]:
    """The interpreter's libraries and the ``grader`` package; never the grader's own root
    (it holds ``reference/``, ``trees/``, the answer cache), nor anything above it."""
    repo = os.path.realpath(REPO_ROOT)
    roots = [os.path.join(repo, "grader")]
    for entry in sys.path:
        path = os.path.realpath(entry or ".")
        if os.path.isdir(path) and not (repo + os.sep).startswith(path.rstrip(os.sep) + os.sep):
            roots.append(path)
    return roots


def landlock_abi() -> int:
    """The kernel's Landlock ABI version; 0 where there is none (old kernel, not Linux)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.syscall.restype = ctypes.c_long
        version = libc.syscall(_CREATE_RULESET, None, ctypes.c_size_t(0), _CREATE_RULESET_VERSION)
        return max(0, version)
    except (OSError, AttributeError):
        return 0


def confine(scratch: str) -> int:
    """Landlock this process: read the roots of :func:`readable_roots`, read and write
    ``scratch``, nothing else; no TCP; no signals or abstract sockets outside the sandbox.
    Sets ``no_new_privs`` in any case. Returns the Landlock ABI applied, 0 where there is none.
    """
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)  # setuid programs cannot give back privileges
    abi = landlock_abi()
    if abi < 1:
        return 0
    handled = (1 << 13) - 1 | (abi >= 2) << 13 | (abi >= 3) << 14 | (abi >= 5) << 15
    attr = _RulesetAttr(handled, _NET_TCP if abi >= 4 else 0, _SCOPE if abi >= 6 else 0)
    size = 24 if abi >= 6 else 16 if abi >= 4 else 8
    ruleset = libc.syscall(_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), 0)
    if ruleset < 0:
        return 0
    read = _FS_EXECUTE | _FS_READ_FILE | _FS_READ_DIR
    rules = [(path, read) for path in readable_roots()]
    rules += [(scratch, handled), ("/dev/null", handled), ("/dev/urandom", read)]
    try:
        for path, access in rules:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue  # missing, or unreadable to this user anyway
            try:
                if not os.path.isdir(path):
                    access &= _FILE_ACCESS
                rule = _PathBeneathAttr(access & handled, fd)
                libc.syscall(_ADD_RULE, ruleset, _PATH_BENEATH, ctypes.byref(rule), 0)
            finally:
                os.close(fd)
        if libc.syscall(_RESTRICT_SELF, ruleset, 0) != 0:
            return 0
    finally:
        os.close(ruleset)
    return abi


def apply_limits(limits: dict[str, Any]) -> None:
    def cap(kind: int, value: int) -> None:
        _, hard = resource.getrlimit(kind)
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)
        resource.setrlimit(kind, (value, value))

    cap(resource.RLIMIT_CORE, 0)
    cap(resource.RLIMIT_AS, int(limits["memory"]))
    cap(resource.RLIMIT_FSIZE, int(limits["file_size"]))
    cap(resource.RLIMIT_NOFILE, int(limits["open_files"]))
    cap(resource.RLIMIT_NPROC, int(limits["processes"]))
    cap(resource.RLIMIT_CPU, math.ceil(limits["cpu_time"]))
    if hasattr(resource, "RLIMIT_MSGQUEUE"):  # POSIX message queues: kernel memory, none here
        cap(resource.RLIMIT_MSGQUEUE, 0)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the file limit fails (EFBIG)


def cpu_used() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def allow_cpu(seconds: float) -> None:
    """A soft CPU limit for the coming call: SIGXCPU if it spins past ``seconds`` of CPU."""
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    wanted = math.ceil(cpu_used() + seconds) + 1
    if hard != resource.RLIM_INFINITY:
        wanted = min(wanted, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (wanted, hard))
