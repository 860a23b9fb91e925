"""The worker process seen from outside: its scratch folder and environment, how it ended, and
killing its whole process group (forked children included) and cleaning up after it.

The scratch folder is the student's to fill: :func:`remove_tree` removes it without recursion
and without following a link (3,000 nested folders, links to the grader's files, folders closed
with mode 000: none stops it, none makes it raise), and :func:`scratch_usage` measures it for the
size limit (``Limits.scratch``) the same way.

Scratch folders live in the grading process's *run folder* (:func:`run_folder`:
``$TMPDIR/grader-run-*``, locked with ``flock`` for the process's life and removed at its exit),
so that a grader killed outright (SIGKILL, the OOM killer) leaves nothing for long: the next
grading process on the machine sweeps every run folder whose lock no process holds
(:func:`sweep_run_folders`). A killed grader once left both workers' folders, with the
submission's ``search.py`` (issue 40).
"""

from __future__ import annotations

import atexit
import errno
import os
import shutil
import signal
import stat
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grader.algorithms import ENVIRONMENT as ALGORITHMS_VARIABLE
from grader.paths import REPO_ROOT

if TYPE_CHECKING:
    from grader.sandbox.notebook import ConvertedNotebook


class Deadline(Exception):
    """The worker did not answer in time."""


class Closed(Exception):
    """The channel closed (no args: EOF) or carried something that is not a message."""


def describe_exit(code: int) -> str:
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        why = {
            "SIGKILL": " (the memory or CPU limit, or the system ran out of memory?)",
            "SIGSEGV": " (a crash in C code: recursion too deep?)",
            "SIGXCPU": " (the CPU time limit)",
            "SIGXFSZ": " (the file size limit)",
            "SIGABRT": " (aborted: out of memory?)",
        }.get(name, "")
        return f"was killed by {name}{why}"
    if code in _WINDOWS_CRASHES:  # the portable worker on Windows: a crash is a status code
        return f"crashed ({_WINDOWS_CRASHES[code]}; Windows status 0x{code:08X})"
    hint = " (did the code call os._exit()?)" if code == 0 else ""
    return f"exited with code {code} before replying{hint}"


_WINDOWS_CRASHES = {
    0xC00000FD: "a stack overflow: recursion too deep?",
    0xC0000005: "an access violation: a crash in C code",
    0xC0000017: "out of memory",
    0xC0000409: "a fatal error in C code",
}


def has_exited(proc: subprocess.Popen) -> bool:
    """True once the worker has exited, without reaping it."""
    if proc.returncode is not None:
        return True
    try:
        return os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True


def kill_group(proc: subprocess.Popen) -> None:
    if proc.returncode is None:  # not reaped yet, so the group id is still the worker's
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def kill_and_clean(proc: subprocess.Popen, scratch: Path, uid: int | None = None) -> None:
    """Finalizer: kill the worker's process group, reap it, close its pipes, remove scratch
    and the System V IPC objects of the worker's user ``uid`` (where it has one)."""
    kill_group(proc)
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass
    for stream in (proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()
    remove_tree(scratch)
    if os.name == "posix":
        from grader.sandbox.private import remove_ipc

        remove_ipc(uid, proc.pid)


# POSIX flags, looked up: Windows has none of them and imports this module (the portable worker)
_DIRECTORY = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY |= getattr(os, "O_CLOEXEC", 0)
# Folders opened as descriptors, entries removed relative to them: not on Windows, whose os.open
# opens no folder and takes no dir_fd.
_FOLDER_HANDLES = {os.open, os.unlink, os.rmdir} <= os.supports_dir_fd and hasattr(os, "fchmod")


def _open_folder(name: str, parent: int) -> int:
    """A folder's descriptor, opened without following a link; a folder the student closed
    (mode 000: only a root grader reads it anyway) is opened up first."""
    try:
        return os.open(name, _DIRECTORY, dir_fd=parent)
    except PermissionError:
        os.chmod(name, 0o700, dir_fd=parent)  # a folder, not a link: open said so
        return os.open(name, _DIRECTORY, dir_fd=parent)


def remove_tree(root: Path) -> bool:
    """Remove ``root`` and everything under it; True when it is gone. Never raises.

    One folder descriptor open at a time and a list of names for the way back (up through
    ``..``): no recursion, no path longer than a name, so depth cannot defeat it; links are
    removed, never followed. Call it once the processes that wrote there are dead.
    """
    root = Path(root)
    if not _FOLDER_HANDLES:  # Windows: only the portable worker's scratch, the student's own
        shutil.rmtree(root, ignore_errors=True)  # machine; its rmtree removes links unfollowed
        return not os.path.lexists(root)
    try:
        fd = os.open(root, _DIRECTORY)
    except FileNotFoundError:
        return True
    except OSError:
        try:
            os.unlink(root)  # a file or a link where the folder was
            return True
        except OSError:
            return False
    names: list[str] = []  # the folders entered below root, in order
    stuck: list[set[str]] = [set()]  # entries that could not be removed, per level
    try:
        while True:
            try:
                os.fchmod(fd, 0o700)  # entries of a folder closed to writing can be removed
            except OSError:
                pass
            entered = False
            with os.scandir(fd) as entries:
                listed = [(entry.name, entry.is_dir(follow_symlinks=False)) for entry in entries]
            for name, is_folder in listed:
                if name in stuck[-1]:
                    continue
                try:
                    if not is_folder:
                        os.unlink(name, dir_fd=fd)
                        continue
                    os.rmdir(name, dir_fd=fd)
                    continue
                except OSError as error:
                    if not is_folder or error.errno not in (errno.ENOTEMPTY, errno.EEXIST):
                        stuck[-1].add(name)
                        continue
                try:
                    child = _open_folder(name, fd)
                except OSError:
                    stuck[-1].add(name)
                    continue
                os.close(fd)
                fd, entered = child, True
                names.append(name)
                stuck.append(set())
                break
            if entered:
                continue
            if not names:  # root is as empty as it can be made
                break
            parent = os.open("..", _DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd, name = parent, names.pop()
            stuck.pop()
            try:
                os.rmdir(name, dir_fd=fd)
            except OSError:
                stuck[-1].add(name)
    except OSError:
        pass
    finally:
        os.close(fd)
    try:
        os.rmdir(root)
        return True
    except OSError:
        return False


RUN_PREFIX = "grader-run-"
_RUN_FOLDER_LOCK = threading.Lock()
_RUN_FOLDER: list[tuple[Path, int]] = []  # this process's run folder and its locked handle
#                                           (kept by a forked child: its parent's lock is its own)


def run_folder() -> Path:
    """This process's run folder, made (and every dead one swept) at the first call: a folder
    in the temporary folder, mode 711 (the workers' users reach their scratch folders inside
    by path, and can list nothing), ``flock``-ed shared until the process and its forked
    children are gone, and removed at exit when empty."""
    with _RUN_FOLDER_LOCK:  # a grade's two workers start in threads of one process
        if not _RUN_FOLDER:
            _make_run_folder()
        return _RUN_FOLDER[0][0]


def _make_run_folder() -> None:
    import fcntl  # POSIX only: the portable worker's Windows uses the temporary folder itself

    sweep_run_folders()
    while True:
        folder = Path(tempfile.mkdtemp(prefix=RUN_PREFIX))
        handle = os.open(folder, _DIRECTORY)
        try:
            fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:  # another process's sweep took it between mkdtemp and here
            os.close(handle)
            continue
        if os.fstat(handle).st_nlink:  # (0: that sweep removed it first)
            break
        os.close(handle)
    os.chmod(folder, 0o711)
    _RUN_FOLDER.append((folder, handle))
    atexit.register(_leave_run_folder, os.getpid())


def _leave_run_folder(pid: int) -> None:
    """At exit: remove the run folder if empty (its workers' folders are removed as each
    worker ends; anything left is swept by the next run once the lock is free)."""
    if os.getpid() != pid or not _RUN_FOLDER:
        return
    folder, handle = _RUN_FOLDER.pop()
    try:
        os.rmdir(folder)
    except OSError:
        pass
    os.close(handle)


def sweep_run_folders(parent: str | None = None) -> list[str]:
    """Remove the run folders under ``parent`` (the temporary folder) that this user owns and
    no process holds: those of graders that died without cleaning up. Returns their names.
    Never raises."""
    if not _FOLDER_HANDLES:
        return []
    import fcntl

    parent = parent or tempfile.gettempdir()
    swept = []
    try:
        names = [name for name in os.listdir(parent) if name.startswith(RUN_PREFIX)]
    except OSError:
        return []
    for name in names:
        path = os.path.join(parent, name)
        try:
            handle = os.open(path, _DIRECTORY)
        except OSError:
            continue
        try:
            if os.fstat(handle).st_uid != os.geteuid():
                continue  # another user's grader: not ours to judge
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)  # held: a live grader's
            if remove_tree(Path(path)):
                swept.append(name)
        except OSError:
            continue
        finally:
            os.close(handle)
    return swept


def scratch_usage(root: Path, *, max_entries: int = 100_000, max_depth: int = 64) -> tuple[int, int]:
    """(bytes, entries) under ``root``, links not followed; the walk stops once past
    ``max_entries`` or ``max_depth`` levels (the counts then exceed any sensible limit)."""
    total, count = 0, 0
    try:
        stack = [os.open(root, _DIRECTORY)]
    except OSError:
        return 0, 0
    pending: list[list[str]] = []
    try:
        with os.scandir(stack[-1]) as entries:
            pending.append([entry.name for entry in entries])
        while stack:
            if not pending[-1]:
                os.close(stack.pop())
                pending.pop()
                continue
            name = pending[-1].pop()
            count += 1
            if count > max_entries:
                return total, count
            try:
                info = os.stat(name, dir_fd=stack[-1], follow_symlinks=False)
            except OSError:
                continue
            total += info.st_blocks * 512
            if stat.S_ISDIR(info.st_mode):
                if len(stack) >= max_depth:
                    return total, max_entries + 1
                try:
                    stack.append(_open_folder(name, stack[-1]))
                except OSError:
                    continue
                with os.scandir(stack[-1]) as entries:
                    pending.append([entry.name for entry in entries])
    except OSError:
        pass
    finally:
        for fd in stack:
            os.close(fd)
    return total, count


def scratch_problem(scratch: Path, limits: Any) -> str:
    """What is wrong with the scratch folder's size ("" when nothing is): past
    ``limits.scratch`` bytes or ``limits.scratch_entries`` files and folders."""
    used, entries = scratch_usage(scratch, max_entries=limits.scratch_entries)
    if entries > limits.scratch_entries:
        return (f"search.py made more than {limits.scratch_entries:,} files and folders in its "
                "scratch folder (the limit)")
    if used > limits.scratch:
        return (f"search.py wrote {used:,} bytes to its scratch folder, more than the limit of "
                f"{limits.scratch:,}")
    return ""


def prepare_scratch(
    submission: Path, ids: tuple[int, int] | None
) -> tuple[Path, Path, ConvertedNotebook | None]:
    """A fresh scratch folder holding only the submission's ``search.py`` (a notebook's code
    cells, converted here), owned by the worker's user where there is one. Returns (the folder,
    the file, the converted notebook or None)."""
    from grader.sandbox.notebook import convert_notebook
    from grader.sandbox.submission import locate_submission, read_submission

    scratch = Path(tempfile.mkdtemp(prefix="grader-worker-",
                                    dir=run_folder() if _FOLDER_HANDLES else None))
    notebook = None
    try:
        source = locate_submission(submission, scratch / "unzipped")
        inside = submission.is_dir() and source.is_relative_to(submission)
        text = read_submission(source, submission if inside else source.parent)  # no link followed
        remove_tree(scratch / "unzipped")
        target = scratch / "search.py"
        if source.suffix == ".ipynb":
            notebook = convert_notebook(text, source.name)
            text = notebook.source.encode("utf-8")
        # A new file in a folder only root can write to yet: nothing else can be there.
        handle = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0),
                         0o600)  # (Windows has no O_NOFOLLOW: the portable worker's machine)
        with os.fdopen(handle, "wb") as stream:
            stream.write(text)
        os.chmod(scratch, 0o700)
        if ids is not None:  # the worker's user owns its scratch folder, and no more
            os.chown(target, *ids)
            os.chown(scratch, *ids)
    except BaseException:
        remove_tree(scratch)
        raise
    return scratch, target, notebook


def worker_environment(scratch: Path) -> dict[str, str]:
    """The worker's whole environment: nothing of the grader's (no tokens, no paths to answers)."""
    extra = os.environ.get(ALGORITHMS_VARIABLE)  # registered algorithms: the worker runs them too
    return {
        **({ALGORITHMS_VARIABLE: extra} if extra else {}),
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PYTHONPATH": str(REPO_ROOT),  # where grader/ is
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONHASHSEED": "0",  # a set of str: one order every run (of one Python: 3.10 differs)
        "PYTHONNOUSERSITE": "1",
        "PYTHONIOENCODING": "utf-8",
        "HOME": str(scratch),
        "TMPDIR": str(scratch),
    }
