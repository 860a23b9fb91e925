"""The worker process seen from outside: its scratch folder and environment, how it ended, and
killing its whole process group (forked children included) and cleaning up after it."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

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
    hint = " (did the code call os._exit()?)" if code == 0 else ""
    return f"exited with code {code} before replying{hint}"


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


def kill_and_clean(proc: subprocess.Popen, scratch: Path) -> None:
    """Finalizer: kill the worker's process group, reap it, close its pipes, remove scratch."""
    kill_group(proc)
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass
    for stream in (proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()
    shutil.rmtree(scratch, ignore_errors=True)


def prepare_scratch(
    submission: Path, ids: tuple[int, int] | None
) -> tuple[Path, Path, ConvertedNotebook | None]:
    """A fresh scratch folder holding only the submission's ``search.py`` (a notebook's code
    cells, converted here), owned by the worker's user where there is one. Returns (the folder,
    the file, the converted notebook or None)."""
    from grader.sandbox.notebook import read_notebook
    from grader.sandbox.submission import locate_submission

    scratch = Path(tempfile.mkdtemp(prefix="grader-worker-"))
    notebook = None
    try:
        source = locate_submission(submission, scratch / "unzipped")
        target = scratch / "search.py"
        if source.suffix == ".ipynb":
            notebook = read_notebook(source)
            target.write_text(notebook.source, encoding="utf-8")
        else:
            shutil.copyfile(source, target)
        shutil.rmtree(scratch / "unzipped", ignore_errors=True)
        os.chmod(target, 0o600)
        os.chmod(scratch, 0o700)
        if ids is not None:  # the worker's user owns its scratch folder, and no more
            os.chown(target, *ids)
            os.chown(scratch, *ids)
    except BaseException:
        shutil.rmtree(scratch, ignore_errors=True)
        raise
    return scratch, target, notebook


def worker_environment(scratch: Path) -> dict[str, str]:
    """The worker's whole environment: nothing of the grader's (no tokens, no paths to answers)."""
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PYTHONPATH": str(REPO_ROOT),  # where grader/ is
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONHASHSEED": "0",  # set and dict-of-str orders are the same in every run
        "PYTHONNOUSERSITE": "1",
        "PYTHONIOENCODING": "utf-8",
        "HOME": str(scratch),
        "TMPDIR": str(scratch),
    }
