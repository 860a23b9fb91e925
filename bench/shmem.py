"""The machine's ``Shmem`` during one grade of a System V shared-memory attack (issue 40).

``python bench/shmem.py [ATTACK]`` grades the hostile corpus's ``ATTACK`` (default
``sysv_shared_memory_hoard``: 32 segments of 64 MiB a worker, made, filled and detached at
import) with ``grader grade --jobs 2`` on one public case, samples ``Shmem`` from
/proc/meminfo every 20 ms, and prints its highest rise above the level before the run and each
test's score. Set ``GRADER_SECCOMP=0`` to see the worker's IPC namespace caps alone. Memory in
no process's RSS and never counted by ``RLIMIT_AS``: before issue 40 this attack reached
4.1 GB (2 GiB a worker) and a full score. Other work on the machine moves ``Shmem`` too.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))


def shmem_mib() -> int:
    with open("/proc/meminfo") as meminfo:
        for line in meminfo:
            if line.startswith("Shmem:"):
                return int(line.split()[1]) // 1024
    return 0


def main(argv: list[str]) -> int:
    import suite_modules

    attacks = suite_modules.load("hostile/attacks.py")
    name = argv[0] if argv else "sysv_shared_memory_hoard"
    folder = Path(tempfile.mkdtemp(prefix="bench-shmem-"))
    folder.chmod(0o755)
    submission = attacks.write_submission(attacks.BY_NAME[name], folder / "upload")
    base, peak, done = shmem_mib(), [0], threading.Event()

    def sample() -> None:
        while not done.wait(0.02):
            peak[0] = max(peak[0], shmem_mib() - base)

    sampler = threading.Thread(target=sample)
    sampler.start()
    graded = subprocess.run(
        [sys.executable, "-m", "grader", "grade", "--submission", str(submission), "--cases",
         str(REPO / "trees/public/aima-fig-5-2.json"), "--results", str(folder / "results.json"),
         "--jobs", "2"], cwd=REPO, capture_output=True, text=True,
        env={**os.environ, "TMPDIR": str(folder)})
    done.set()
    sampler.join()
    tests = json.loads((folder / "results.json").read_text())["tests"]
    seccomp = os.environ.get("GRADER_SECCOMP", "1")
    print(f"{name} (GRADER_SECCOMP={seccomp}): exit {graded.returncode}, Shmem rose at most "
          f"{peak[0]} MiB; " + ", ".join(f"{t['name'].split(':')[0]} {t['score']:g}/"
                                         f"{t['max_score']:g}" for t in tests))
    subprocess.run(["rm", "-rf", str(folder)], check=False)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
