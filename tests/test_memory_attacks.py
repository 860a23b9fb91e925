"""Memory no limit saw, the grader chosen by the OOM killer, a killed grader's leftovers and the
interpreter out of the worker's reach (issue 40).

* System V IPC: the worker's seccomp filter refuses it; its own IPC namespace (root) is capped
  besides (``GRADER_SECCOMP=0`` tests the caps alone).
* The OOM killer: each worker's ``oom_score_adj`` is 1000, the root grader's -500; in a memory
  cgroup (made here where the machine lets root make one), a memory attack ends a worker and
  the grader writes the results.
* Scratch folders: a grader killed outright leaves its run folder; the next run sweeps it.
* The interpreter under a folder closed to others (here: /root, mode 700, pyenv's): honest
  imports work as root; where the worker still cannot read the standard library the grader
  refuses with a staff message (the corpus's ``honest_stdlib_imports`` grades one as root).
"""

from __future__ import annotations

import fcntl
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
import suite_modules

from grader.errors import GraderError
from grader.sandbox import private
from grader.sandbox.client import Worker
from grader.sandbox.confine import GRADER_OOM_SCORE_ADJ, sysv_filter
from grader.sandbox.limits import SECCOMP_ENV, Limits
from grader.sandbox.process import RUN_PREFIX, sweep_run_folders

attacks = suite_modules.load("hostile/attacks.py")
REPO = Path(__file__).resolve().parent.parent
CASE = json.loads((REPO / "trees/public/aima-fig-5-2.json").read_text())
ROOT = os.geteuid() == 0
needs_root = pytest.mark.skipif(not ROOT, reason="the privilege drop and namespaces need root")


def _submission(tmp_path: Path, name: str) -> Path:
    return attacks.write_submission(attacks.BY_NAME[name], tmp_path / name)


# --- System V IPC ---------------------------------------------------------------------------


def test_the_seccomp_program_refuses_every_sysv_call_and_foreign_architectures():
    assert sysv_filter("sparc") is None  # unknown: no filter rather than a wrong one
    for machine, calls in (("x86_64", 12), ("aarch64", 12)):
        program = sysv_filter(machine)
        deny, allow = len(program) - 1, len(program) - 2
        assert program[deny][3] & 0xFFFF == 1 and program[allow][3] == 0x7FFF0000  # EPERM, allow
        jumps = [(index, op) for index, op in enumerate(program) if op[0] == 0x15][1:]
        assert len(jumps) == calls  # one test a call number, each landing on the refusal
        assert all(index + 1 + op[1] == deny for index, op in jumps)
        assert program[2][3] & 0xFFFF == 38  # another architecture's call: ENOSYS


def test_system_v_shared_memory_is_refused_to_every_worker(tmp_path):
    with Worker(_submission(tmp_path, "sysv_shared_memory_hoard"), limits=Limits()) as worker:
        reply = worker.run(CASE, "alpha_beta")
        minimax = worker.run(CASE, "minimax")
        if worker.confinement.get("seccomp") != 1:
            pytest.skip("no seccomp filter on this machine")
    assert reply.status == "error" and "got 0 of 2048 MiB (shmget: " in reply.message, reply
    assert minimax.status == "ok" and minimax.value == 3


@needs_root
def test_the_workers_ipc_namespace_caps_shared_memory_where_seccomp_is_off(tmp_path, monkeypatch):
    monkeypatch.setenv(SECCOMP_ENV, "0")
    with Worker(_submission(tmp_path, "sysv_shared_memory_hoard_small")) as worker:
        reply = worker.run(CASE, "alpha_beta")
        assert worker.confinement.get("seccomp") == 0
    # a sixteenth of the worker's 256 MiB: two segments of 8 MiB, then ENOSPC (shmall)
    assert "got 16 of 368 MiB (shmget: No space left on device)" in reply.message, reply
    names = {path.rsplit("/", 1)[1]: value for path, value in private.ipc_caps(256 << 20)}
    assert names["shmmax"] == str(16 << 20).encode() and names["shmmni"] == b"16"


# --- the OOM killer -------------------------------------------------------------------------


def test_the_worker_is_the_oom_killers_first_choice_and_a_root_grader_its_last(tmp_path):
    with Worker(_submission(tmp_path, "honest_stdlib_imports")) as worker:
        assert worker.run(CASE, "minimax").status == "ok"
        adjusted = Path(f"/proc/{worker.pid}/oom_score_adj").read_text().strip()
    assert adjusted == "1000"
    # lowering one's own score needs CAP_SYS_RESOURCE (root on a machine; Docker's default
    # capabilities lack it): without it the workers' 1000 is what keeps the killer off
    own = int(Path("/proc/self/oom_score_adj").read_text())
    assert own == (GRADER_OOM_SCORE_ADJ if _has_capability(24) else 0)


def _has_capability(bit: int) -> bool:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("CapEff:"):
            return bool(int(line.split()[1], 16) >> bit & 1)
    return False


def _memory_cgroup(name: str, limit: int) -> Path | None:
    """A memory cgroup below this process's (v1 or v2) limited to ``limit`` bytes; None where
    it cannot be made (not root, no memory controller, a read-only cgroup file system)."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        number, controllers, path = line.split(":", 2)
        if "memory" in controllers.split(","):
            base = Path("/sys/fs/cgroup/memory") / path.lstrip("/")
            limit_file = "memory.limit_in_bytes"
        elif number == "0" and "memory" in _read(Path("/sys/fs/cgroup/cgroup.controllers")):
            base, limit_file = Path("/sys/fs/cgroup") / path.lstrip("/"), "memory.max"
        else:
            continue
        group = base / name
        try:
            group.mkdir(exist_ok=True)
            (group / limit_file).write_text(str(limit))
        except OSError:
            return None
        return group
    return None


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def _grade_in_cgroup(tmp_path: Path, attack: str, limit_mib: int) -> tuple[int, dict, str]:
    group = _memory_cgroup(f"grader-test-{os.getpid()}-{attack}", limit_mib << 20)
    if group is None:
        pytest.skip("no memory cgroup can be made here (root and a writable cgroup fs needed)")
    results = tmp_path / "results.json"
    command = [sys.executable, "-m", "grader", "grade", "--submission",
               str(_submission(tmp_path, attack)), "--cases",
               str(REPO / "trees/public/aima-fig-5-2.json"), "--results", str(results),
               "--jobs", "2"]
    env = {**os.environ, "GRADER_WORKER_MEMORY": "256", "TMPDIR": str(tmp_path),
           "GRADER_SHARE_FROM": "0"}  # one small case's tests on two workers, as a whole grade's
    try:
        done = subprocess.run(["sh", "-c", f'echo $$ > "{group}/cgroup.procs" && exec "$@"',
                               "sh", *command], cwd=REPO, env=env, capture_output=True,
                              text=True, timeout=300)
    finally:
        for _ in range(50):  # its processes are gone once the grader has exited
            try:
                group.rmdir()
                break
            except OSError:
                time.sleep(0.1)
    data = json.loads(results.read_text()) if results.exists() else {}
    return done.returncode, data, done.stdout + done.stderr


@needs_root
def test_in_a_768_mib_cgroup_the_8_mib_segment_attack_fails_its_tests_not_the_grade(tmp_path):
    code, data, log = _grade_in_cgroup(tmp_path, "sysv_shared_memory_hoard_small", 768)
    assert code == 0 and data, log[-2000:]
    attacked = [test for test in data["tests"] if test["name"].startswith("alpha_beta")]
    assert attacked and all(test["score"] == 0 for test in attacked)
    assert all("MemoryError: System V shared memory" in test["output"] for test in attacked)
    assert "course staff" not in data.get("output", "")


@needs_root
def test_in_a_cgroup_too_small_for_two_full_workers_the_oom_killer_ends_a_worker(tmp_path):
    # two workers filling 240 MB each and the grader do not fit 384 MiB: the kernel must
    # kill, and it must be a worker (oom_score_adj 1000), never the grader (-500)
    code, data, log = _grade_in_cgroup(tmp_path, "memory_bomb_two_workers", 384)
    assert code == 0 and data, log[-2000:]
    assert data["tests"] and all(test["score"] == 0 for test in data["tests"])
    memory = ("out of memory after", "SIGKILL (the memory or CPU limit, or the system ran out "
              "of memory?)")
    assert all(any(text in test["output"] for text in memory) for test in data["tests"])
    assert "course staff" not in data.get("output", "")


# --- a killed grader's scratch folders ------------------------------------------------------


def _run_folders(parent: Path) -> list[Path]:
    return sorted(parent.glob(f"{RUN_PREFIX}*"))


def _worker_folders(parent: Path) -> list[Path]:
    return [folder for run in _run_folders(parent) for folder in run.glob("grader-worker-*")]


def _killed_holding_a_worker_folder(grader: subprocess.Popen, parent: Path) -> bool:
    """SIGKILL ``grader`` at a moment its run folder holds a worker's scratch folder; False if
    its grade ended first. A folder seen, then a kill, is not enough: the grader removes a
    worker's folder when the worker ends (a time-out, the grade's end), and under load it may
    do so between the look and the kill (the run folder then held no worker folder). So the
    grader is stopped (SIGSTOP, waited for: it changes nothing while stopped), looked at, and
    killed stopped, or let go on and looked at again."""
    for _ in range(2_400):  # a generous bound on the looks (the grade takes a few seconds)
        if _worker_folders(parent):
            grader.send_signal(signal.SIGSTOP)  # (nothing sent if poll() reaped it just now)
            if grader.returncode is not None:
                return False
            _, status = os.waitpid(grader.pid, os.WUNTRACED)
            if not os.WIFSTOPPED(status):  # it ended before it could be stopped: reaped here
                grader.returncode = os.waitstatus_to_exitcode(status)
                return False
            if _worker_folders(parent):
                grader.send_signal(signal.SIGKILL)  # (a stopped process dies of it at once)
                grader.wait()
                return True
            grader.send_signal(signal.SIGCONT)
        elif grader.poll() is not None:
            return False
        time.sleep(0.05)
    return False


def test_a_killed_graders_scratch_folders_are_swept_by_the_next_run(tmp_path):
    scratch_parent = tmp_path / "tmp"
    scratch_parent.mkdir()
    scratch_parent.chmod(0o755)
    submission = attacks.write_submission(attacks.BY_NAME["infinite_loop"], tmp_path / "upload")
    command = [sys.executable, "-m", "grader", "grade", "--submission", str(submission),
               "--cases", str(REPO / "trees/public/aima-fig-5-2.json"),
               "--results", str(tmp_path / "results.json")]
    grader = subprocess.Popen(command, cwd=REPO, env={**os.environ, "TMPDIR": str(scratch_parent)},
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:  # a worker's scratch folder, search.py in it: the grade is under way
        killed = _killed_holding_a_worker_folder(grader, scratch_parent)
    finally:
        if grader.returncode is None:
            grader.kill()
            grader.wait()
    assert killed, "the grade ended before a worker's scratch folder was seen"
    left = _run_folders(scratch_parent)
    assert len(left) == 1 and list(left[0].glob("grader-worker-*")), left  # what it left
    for _ in range(400):  # its workers die with it (PR_SET_PDEATHSIG) and release nothing else
        swept = sweep_run_folders(str(scratch_parent))
        if swept:
            break
        time.sleep(0.05)
    assert swept == [left[0].name] and _run_folders(scratch_parent) == []


def test_a_live_graders_run_folder_is_never_swept(tmp_path):
    live = Path(tempfile.mkdtemp(prefix=RUN_PREFIX, dir=tmp_path))
    (live / "grader-worker-x").mkdir()
    handle = os.open(live, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(handle, fcntl.LOCK_SH)  # as run_folder holds it for its process's life
        assert sweep_run_folders(str(tmp_path)) == [] and live.is_dir()
    finally:
        os.close(handle)
    assert sweep_run_folders(str(tmp_path)) == [live.name] and not live.exists()


# --- the interpreter out of the worker's reach ----------------------------------------------


def _closed_interpreter() -> bool:
    """Whether a folder above this interpreter is closed to the worker's user (nobody)."""
    import pwd

    try:
        nobody = pwd.getpwnam("nobody")
    except KeyError:
        return False
    return bool(private.hidden_roots((nobody.pw_uid, nobody.pw_gid)))


@needs_root
def test_honest_standard_library_imports_work_as_root_with_the_interpreter_closed_to_others(
        tmp_path):
    if not _closed_interpreter():
        pytest.skip("this interpreter is readable by every user: nothing to expose")
    with Worker(_submission(tmp_path, "honest_stdlib_imports")) as worker:
        reply = worker.run(CASE, "alpha_beta")
    assert reply.status == "ok" and reply.value == 3, (reply.status, reply.message)


@needs_root
def test_where_the_interpreter_cannot_be_exposed_the_grader_refuses_with_a_staff_message(
        tmp_path, monkeypatch):
    if not _closed_interpreter():
        pytest.skip("this interpreter is readable by every user: nothing to refuse")
    # as in a container without CAP_SYS_ADMIN: no mount namespace, so nothing exposed
    monkeypatch.setattr(private, "hidden_roots", lambda ids, extra=(): {})
    with pytest.raises(GraderError, match=r"cannot read the interpreter's standard library"
                                          r" \(Permission denied: .*nothing was graded"):
        with Worker(_submission(tmp_path, "honest_stdlib_imports")) as worker:
            worker.run(CASE, "alpha_beta")
