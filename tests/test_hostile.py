"""Hostile and broken submissions (tests/hostile/attacks.py) through ``grader grade``.

Each corpus entry is graded by the real command, in a layout like Gradescope's ``/autograder``
(``source/`` with ``grader/``, ``reference/``, ``trees/``; ``results/``; ``submission/``) whose
secrets carry the permissions docker/setup.sh gives them (``reference/``, ``trees/hidden/``,
the answer cache and ``results/`` closed to others). Three ways of running it:

* ``root``: as root, as on Gradescope: the worker drops to ``nobody``, and Landlock fences it;
* ``root-modes``: as root with Landlock off (``GRADER_LANDLOCK=0``), as on a kernel without it:
  file modes and the privilege drop alone must hold (for the entries where they are what
  stops the attack: theft of files, and the ``fenced`` ones);
* ``user``: the whole grader as ``nobody`` owning the layout (a staff laptop, ``grader batch``):
  no drop is possible, so Landlock is the only fence; skipped where the kernel has none. As
  root, only for the entries whose defence depends on who runs the grader (all but
  ``attacks.SAME_FOR_ANY_USER``: the time guards, the worker's own limits and exits, the
  parent's reading of replies and uploads, thefts from the worker's own memory; those are not
  graded with Landlock off either); run as a normal user, the suite has no other way and
  grades every entry so.

For every run: the grader exits 0 in time, ``results.json`` is valid, every test is there, the
attacked tests score nothing and say why, the others keep their points, nothing in the layout
changed but ``results.json``, no scratch folder is left, and nothing secret (a hidden case's
name, a line of the reference, an answer-cache entry, the grader's environment) reaches what a
student sees. The runs go in parallel, once per session, for only the selected tests
(``HOSTILE_TIMES=FILE`` writes each run's wall time there, slowest first).
"""

from __future__ import annotations

import concurrent.futures
import functools
import hashlib
import json
import os
import pwd
import re
import secrets
import shutil
import site
import stat
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import jsonschema
import pytest
import suite_modules

from grader.sandbox.confine import landlock_abi
from grader.sandbox.limits import LANDLOCK_ENV, Limits
from grader.sandbox.watch import MIN_IDLE
from grader.scoring.results import NEUTRAL_GRADER_ERROR

REPO = Path(__file__).resolve().parent.parent
SCHEMA = json.loads((REPO / "tests" / "gradescope_results.schema.json").read_text())
# made once (jsonschema.validate checks the schema itself at each call: 13 ms a run)
VALIDATOR = jsonschema.validators.validator_for(SCHEMA)(SCHEMA)
attacks = suite_modules.load("hostile/attacks.py")

PUBLIC = ("aima-fig-5-2.json",)  # minimax, alpha_beta
HIDDEN = ("three-player-takeaway-shallow.json",)  # maxn, hidden: graded first (sorted paths)
# The test rubric's time-out backstop: TIME_FLOOR CPU seconds without a game call, whatever the
# worker's calibration (time_multiple near 0; the shipped rubric's 1.0 s and 50 calibrations
# made every CPU-burning attack burn about 1.5 CPU s more: a third of the corpus's CPU). The
# defence is the same at any window; these cases' correct searches call the game within
# microseconds, and burns_the_allowance spends 0.3 s between its calls, under the window.
TIME_FLOOR = 0.5
RUBRIC = (f"[defaults]\ntime_floor = {TIME_FLOOR}\ntime_multiple = 0.001\n\n"
          "[random_trees]\npoints = 0\n")
TESTS = 3  # (case, algorithm) pairs the cases above make
LIMITS = Limits()
# The bound on one run: start-up, then each test's last-resort wall-clock limit (the parent's
# Watch: three times the call's CPU limit and kill margin, plus the idle time twice). The limits
# are CPU time, so on a loaded machine a runaway test takes longer than its CPU seconds; for
# these small cases a call's CPU limit is under two windows of TIME_FLOOR.
TIME_BOUND = 10.0 + TESTS * (3 * (2 * TIME_FLOOR + LIMITS.kill_margin) + 2 * MIN_IDLE)
# Bytes of results.json for these few tests, whatever the submission sends: outputs are cut at
# 10 kB, values, traces and their replay are bounded (the Gradescope file must stay small).
RESULTS_BOUND = 500_000
CANARY = f"canary-{secrets.token_hex(8)}"  # in the grader's environment; must never leak
PARALLEL = 4

try:
    NOBODY: pwd.struct_passwd | None = pwd.getpwnam("nobody")
except KeyError:
    NOBODY = None
WRONG = "\n".join(f"def {name}(*args, **kwargs):\n    return 0\n" for name in ("max_value",
                  "min_value", "alpha_beta", "maxn"))


# --- the layout -------------------------------------------------------------------------------


def _tree(root: Path) -> list[Path]:
    """``root`` and everything below it, links not followed, in sorted order. Iterative:
    ``rglob`` recurses once a level, and an upload may hold 1,500 nested folders."""
    found, pending = [], [root]
    while pending:
        path = pending.pop()
        found.append(path)
        if path.is_dir() and not path.is_symlink():
            pending.extend(sorted(path.iterdir(), reverse=True))
    return sorted(found)


def _walk(root: Path, visit: Callable[[str, str, int, os.stat_result], None]) -> None:
    """``visit(relative path, name, folder handle, lstat)`` for ``root`` ("." its relative path)
    and everything below it, links not followed, parents before children. Each entry is
    reached by its name in its open folder (``dir_fd``), not by its path: a path 1,500
    folders deep (an upload may hold them) costs the kernel 1,500 lookups a call, and a walk by
    paths was seconds a run. Iterative; a folder's handle is closed once its entries are
    visited and its subfolders opened."""
    top = os.open(root.parent, os.O_RDONLY | os.O_DIRECTORY)
    pending = [(top, root.name, ".")]  # (parent's handle, name, relative path); shared handles
    handles = {top: 1}  # handle -> entries of pending still to visit in it

    def release(handle: int) -> None:
        handles[handle] -= 1
        if not handles[handle]:
            del handles[handle]
            os.close(handle)

    try:
        while pending:
            parent, name, relative = pending.pop()
            try:
                info = os.lstat(name, dir_fd=parent)
                visit(relative, name, parent, info)
                if not stat.S_ISDIR(info.st_mode):
                    continue
                handle = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW,
                                 dir_fd=parent)
            finally:
                release(parent)
            names = sorted(os.listdir(handle), reverse=True)
            if not names:
                os.close(handle)
                continue
            handles[handle] = len(names)
            prefix = "" if relative == "." else relative + "/"
            pending.extend((handle, child, prefix + child) for child in names)
    finally:
        for handle in handles:
            os.close(handle)


def _remove(root: Path) -> None:
    """Delete ``root`` and all below it: ``rm -rf`` (iterative, in C: the 210 layouts' 200,000
    files took minutes of the suite in Python), else deepest first here (``shutil.rmtree``
    recurses, and an upload may hold 1,500 nested folders)."""
    if shutil.which("rm"):
        subprocess.run(["rm", "-rf", "--", str(root)], capture_output=True, check=False)
        if not os.path.lexists(root):
            return
    for path in reversed(_tree(root)):
        try:
            path.rmdir() if path.is_dir() and not path.is_symlink() else path.unlink()
        except OSError:
            pass


def _copy_source(target: Path) -> None:
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".answer-key.json")
    for name in ("grader", "reference"):
        shutil.copytree(REPO / name, target / name, ignore=ignore)
    # trees/: its top-level files and the cases graded, not the other hundred: each run makes
    # the layout again (a link a file, _layout), and each file is walked and hashed by the
    # run's snapshots. A hidden case is there to steal, and trees/hidden is closed as on
    # Gradescope.
    (target / "trees").mkdir()
    for path in (REPO / "trees").iterdir():
        if path.is_file():
            shutil.copy2(path, target / "trees" / path.name)
    for folder, names in (("public", PUBLIC), ("hidden", HIDDEN)):
        (target / "trees" / folder).mkdir()
        for name in names:
            shutil.copy2(REPO / "trees" / folder / name, target / "trees" / folder / name)
    (target / "rubric.toml").write_text(RUBRIC)
    # Byte code compiled once here (runs do not write it): every run starts faster.
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(target)], check=True)


SECRETS = ("source/reference", "source/trees/hidden", "source/.cache", "results")


def _secure(root: Path) -> None:
    """The permissions docker/setup.sh gives /autograder: secrets closed to others. Each mode
    set only where it differs, straight to its final value: a run's layout shares its files
    with the template's (:func:`_layout`), and a secret must never be open, even for a moment,
    while other runs' workers look for it."""
    for secret in SECRETS:
        (root / secret).mkdir(parents=True, exist_ok=True)

    def visit(relative: str, name: str, folder: int, info: os.stat_result) -> None:
        if stat.S_ISLNK(info.st_mode):  # (an upload may hold a link to nothing)
            return
        mode = 0o755 if stat.S_ISDIR(info.st_mode) else 0o644
        if any(relative == secret or relative.startswith(secret + "/") for secret in SECRETS):
            mode &= ~0o007
        if info.st_mode & 0o7777 != mode:
            os.chmod(name, mode, dir_fd=folder)

    _walk(root, visit)


def _own(root: Path, user: pwd.struct_passwd) -> None:
    """Everything under ``root``, ``root`` too, given to ``user`` (links themselves)."""
    _walk(root, lambda _, name, folder, __: os.chown(
        name, user.pw_uid, user.pw_gid, dir_fd=folder, follow_symlinks=False))


def _command(python: str, root: Path, submission: Path, jobs: int = 0) -> list[str]:
    cases = [root / "source/trees/public" / name for name in PUBLIC]
    cases += [root / "source/trees/hidden" / name for name in HIDDEN]
    return [
        python, "-m", "grader", "grade", "--submission", str(submission),
        "--cases", *map(str, cases), "--results", str(root / "results/results.json"),
        "--rubric", str(root / "source/rubric.toml"), *(["--jobs", str(jobs)] if jobs else []),
    ]  # fmt: skip


def _environment(root: Path) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(root),
        "TMPDIR": str(root / "tmp"),  # the worker's scratch folders: must be gone afterwards
        "PYTHONDONTWRITEBYTECODE": "1",
        "GRADESCOPE_SECRET_TOKEN": CANARY,
        # three small tests share two workers, as a whole assignment's do (the sibling and
        # two-worker attacks need both; grader.scoring.grade.SHARED_FROM)
        "GRADER_SHARE_FROM": "0",
    }


def _budget(attack: Any) -> dict[str, str]:
    """The platform's time budget and worker memory the attack is graded under, as
    run_autograder exports them."""
    environment = {"GRADER_TIME_BUDGET": str(attack.budget)} if attack.budget else {}
    if attack.worker_memory:  # each worker's memory, as run_autograder sets it for two workers
        environment["GRADER_WORKER_MEMORY"] = str(attack.worker_memory)
    return environment


def _snapshot(root: Path, known: dict[tuple[int, ...], str] | None = None) -> dict[str, tuple]:
    """Every file and folder under ``root``: mode, owner, and content hash or listing.

    ``known``: content hashes already worked out, by (device, inode, size, mtime), kept up to
    date here. A run's snapshot before grading passes the runs' shared one: its layout's files
    are the template's (:func:`_layout`), hashed once for all runs instead of once a run. The
    snapshot after grading passes none and reads every file again, so whatever the run
    changes is seen in that run, even a write that kept a file's size and time."""
    found: dict[str, tuple[os.stat_result, Any]] = {}
    listings: dict[str, list[str]] = {}

    def visit(relative: str, name: str, folder: int, info: os.stat_result) -> None:
        if relative != ".":
            listings.setdefault(relative.rpartition("/")[0] or ".", []).append(name)
        if stat.S_ISLNK(info.st_mode):
            found[relative] = (info, os.readlink(name, dir_fd=folder))
        elif stat.S_ISDIR(info.st_mode):
            found[relative] = (info, None)  # its listing: filled in below
        else:
            key = (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)
            digest = known.get(key) if known is not None else None
            if digest is None:
                handle = os.open(name, os.O_RDONLY | os.O_NOFOLLOW, dir_fd=folder)
                with os.fdopen(handle, "rb") as file:
                    digest = hashlib.sha256(file.read()).hexdigest()
                if known is not None:
                    known[key] = digest
            found[relative] = (info, (info.st_mtime_ns, digest))

    _walk(root, visit)
    return {
        relative: (info.st_mode, info.st_uid,
                   tuple(sorted(listings.get(relative, ()))) if detail is None else detail)
        for relative, (info, detail) in found.items()
    }


_HASHED: dict[tuple[int, ...], str] = {}  # the layouts' shared files' hashes (_snapshot)


@dataclass
class Variant:
    name: str
    python: str
    user: pwd.struct_passwd | None = None  # run the grader as this user
    env: dict[str, str] = field(default_factory=dict)
    skip: str = ""  # why the variant cannot run here


def _interpreter(base: str, venv: Path, user: pwd.struct_passwd | None) -> str:
    """A venv of ``base`` seeing this venv's packages, as ``user`` can run it; "" if it cannot.

    Not this venv itself: its editable install maps ``reference`` to the repository checkout,
    which is world-readable here (on Gradescope the install points into source/, closed to
    others). A path file adds the packages without running the path files among them.
    """
    made = subprocess.run([base, "-m", "venv", "--without-pip", str(venv)], capture_output=True)
    if made.returncode != 0:
        return ""
    lib = next((venv / "lib").glob("python3*")) / "site-packages"
    packages = [p for p in site.getsitepackages() if Path(p).is_dir()]
    (lib / "hostile-tests.pth").write_text("\n".join(packages) + "\n")
    python = str(venv / "bin" / "python")
    ids = {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": []} if user else {}
    probe = "import gradescope_utils, timeout_decorator, jsonschema, networkx, nbformat"
    for attempt in ("path file", "copies"):
        for path in [venv, *venv.rglob("*")]:
            if not path.is_symlink():
                path.chmod(path.stat().st_mode | (0o755 if path.is_dir() else 0o444))
        try:
            run = subprocess.run([python, "-c", probe], capture_output=True, cwd="/", timeout=60,
                                 **ids)
        except OSError:  # the interpreter itself is out of reach
            return ""
        if run.returncode == 0:
            return python
        if user is None or attempt == "copies":
            return ""
        # this venv's packages are where the user cannot go (a fresh clone in a folder of mode
        # 700, as CI's may be): copies of the grader's own dependencies, beside its interpreter
        (lib / "hostile-tests.pth").unlink()
        _copy_runtime_packages(lib)
    return ""


def _copy_runtime_packages(lib: Path) -> None:
    """The installed distributions the grader needs at run time (its ``dependencies`` and
    theirs, no extras) copied into ``lib``."""
    from importlib import metadata
    from packaging.requirements import Requirement

    wanted, seen = ["adversarial-grader"], set()
    while wanted:
        name = wanted.pop().lower().replace("_", "-")
        if name in seen:
            continue
        seen.add(name)
        try:
            distribution = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        for text in distribution.requires or []:
            requirement = Requirement(text)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                wanted.append(requirement.name)
        if name == "adversarial-grader":
            continue  # the grader itself runs from the layout's source/
        for file in distribution.files or []:
            source = Path(distribution.locate_file(file))
            if source.is_file() and ".." not in file.parts and file.parts[0] != "bin":
                target = lib / file
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, target)


NO_LANDLOCK = (
    "Landlock ABI {abi} < 6: a grader running as a normal user cannot keep a submission from "
    "that user's files and processes without it"
)


def _variants(workdir: Path) -> dict[str, Variant]:
    python = _interpreter(os.path.realpath(sys.executable), workdir / "venv-root", None)
    if os.geteuid() != 0:  # the tests' own user is the normal user
        reason = "needs root: the grader drops privileges only when it runs as root"
        variants = {name: Variant(name, "", skip=reason) for name in ("root", "root-modes")}
        variants["user"] = Variant("user", python)
        if landlock_abi() < 6:
            variants["user"].skip = NO_LANDLOCK.format(abi=landlock_abi())
        elif not python:
            variants["user"].skip = "could not make a venv of this interpreter"
        return variants
    variants = {
        "root": Variant("root", python),
        "root-modes": Variant("root-modes", python, env={LANDLOCK_ENV: "0"}),
        "user": Variant("user", "", user=NOBODY),  # skipped below when NOBODY is None
    }
    if not python:
        for variant in variants.values():
            variant.skip = "could not make a venv of this interpreter"
    if NOBODY is None:
        variants["user"].skip = "no user nobody to run the grader as"
        return variants
    if landlock_abi() < 6:
        variants["user"].skip = NO_LANDLOCK.format(abi=landlock_abi())
        return variants
    # The venv's interpreter may live where nobody cannot go (here: under /root): then a
    # system interpreter of the same version.
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    candidates = [sys.executable, shutil.which(version), f"/usr/bin/{version}"]
    real = dict.fromkeys(os.path.realpath(c) for c in candidates if c and os.path.exists(c))
    for index, base in enumerate(real):
        variants["user"].python = _interpreter(base, workdir / f"venv-user-{index}", NOBODY)
        if variants["user"].python:
            break
    else:
        variants["user"].skip = f"no {version} that user nobody can run with this venv's packages"
    return variants


# --- running ----------------------------------------------------------------------------------


@dataclass
class Run:
    returncode: int | None
    elapsed: float
    stdout: str
    stderr: str
    results: dict[str, Any] | None
    results_error: str
    changed: list[str]
    leftovers: list[str]
    shmem_rise: int = 0  # MiB the machine's Shmem rose above its level before the run (sampled)


def _shmem() -> int:
    """The machine's ``Shmem`` (/proc/meminfo) in MiB; 0 where it cannot be read."""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("Shmem:"):
                return int(line.split()[1]) // 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


class _ShmemPeak(threading.Thread):
    """Samples ``Shmem`` every 20 ms until stopped: its highest rise above the first reading."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.base, self.peak, self.done = _shmem(), 0, threading.Event()

    def run(self) -> None:
        while not self.done.wait(0.02):
            self.peak = max(self.peak, _shmem() - self.base)


def _layout(template: Path, root: Path) -> None:
    """A run's layout: ``template``'s folders made anew, its files hard links to the
    template's (about 10 ms a run; copying grader/ and reference/, 400 files, took 0.17 CPU s
    a run, a fifth of the corpus's CPU). A file is then one inode in every run's layout,
    already given the modes and owner each run gives it. Nothing may write one (each run's
    snapshot checks its own layout, so a write is still caught in the run that made it), but
    the answer cache may be replaced by the grader (written anew and renamed: a new inode): it
    is each run's own copy all the same."""
    shutil.copytree(template, root, symlinks=True, copy_function=os.link)
    cache = root / "source" / ".cache"
    if cache.is_dir():
        for path in cache.iterdir():
            if path.is_file() and not path.is_symlink():
                path.unlink()
                shutil.copy2(template / "source" / ".cache" / path.name, path)


def _run(variant: Variant, attack: Any, template: Path, workdir: Path) -> Run:
    root = workdir / f"{variant.name}-{attack.name}"
    _layout(template, root)
    written = attacks.write_submission(attack, root / "submission")
    if attack.link:  # the upload is a link to one of the layout's files
        written.unlink()
        written.symlink_to(root / attack.link)
    # the upload as Gradescope gives it (a folder), or what the attack's maker wrote (a zip)
    submission = written if attack.upload and written.is_file() else root / "submission"
    (root / "tmp").mkdir()
    _secure(root)
    if variant.user is not None:
        _own(root, variant.user)
    before = _snapshot(root, _HASHED)
    started = time.monotonic()
    ids = {}
    if variant.user is not None:
        ids = {"user": variant.user.pw_uid, "group": variant.user.pw_gid, "extra_groups": []}
    sampler = _ShmemPeak() if attack.shmem_rise else None
    if sampler is not None:
        sampler.start()
    try:
        done = subprocess.run(
            _command(variant.python, root, submission, attack.jobs), cwd=root / "source",
            capture_output=True, text=True,
            env={**_environment(root), **variant.env, **_budget(attack)}, timeout=2 * TIME_BOUND,
            **ids,
            start_new_session=True,  # as on Gradescope: no other run shares its process group
        )  # fmt: skip
        returncode, stdout, stderr = done.returncode, done.stdout, done.stderr
    except subprocess.TimeoutExpired as expired:
        returncode, stdout, stderr = None, str(expired.stdout), str(expired.stderr)
    elapsed = time.monotonic() - started
    if sampler is not None:
        sampler.done.set()
        sampler.join()
    results, error = None, ""
    try:
        results = json.loads((root / "results/results.json").read_text())
        VALIDATOR.validate(results)
    except (OSError, ValueError, jsonschema.ValidationError) as problem:
        error = f"{type(problem).__name__}: {problem}"
    after = _snapshot(root)
    # The parent writes results.json, and may add to its answer cache (the diagnosis caches
    # the known-mistake runs it makes for failing tests): nothing else may change.
    allowed = {"results", "results/results.json", "source/.cache/answer-key.json"}
    # as root: the job slots' lock files the grader claims for its two workers
    # (limits.worker_users)
    slots = "tmp/grader-slots-"
    changed = sorted(
        path for path in set(before) | set(after)
        if before.get(path) != after.get(path) and path not in allowed
        and not (path == "tmp" or path.startswith(slots))
    )  # fmt: skip
    if sorted(p for p in after if p.startswith("results/")) != ["results/results.json"]:
        changed.append("results/ holds more than results.json")
    leftovers = sorted(p.name for p in (root / "tmp").iterdir()
                       if not p.name.startswith("grader-slots-"))
    return Run(returncode, elapsed, stdout, stderr, results, error, changed, leftovers,
               sampler.peak if sampler is not None else 0)


# Tests that read one run besides their own parameters.
NEEDS = {
    "test_the_worker_environment_holds_none_of_the_graders": ("root", "environment"),
    "test_attacks_are_audited_for_staff_and_never_shown_to_students": ("root", "read_reference"),
}


def _selected(session: pytest.Session) -> set[tuple[str, str]]:
    wanted = set()
    for item in session.items:
        if item.module.__name__ != __name__:
            continue
        spec = getattr(item, "callspec", None)
        if spec and "variant" in spec.params:
            wanted.add((spec.params["variant"], spec.params["attack"]))
        if item.originalname in NEEDS:
            wanted.add(NEEDS[item.originalname])
    return wanted


@pytest.fixture(scope="session")
def hostile_runs(request):
    """{(variant, attack name): Run} for the selected tests, graded in parallel."""
    workdir = Path(tempfile.mkdtemp(prefix="hostile-"))
    workdir.chmod(0o755)  # nobody must reach the layouts inside
    try:
        variants = _variants(workdir)
        template = workdir / "template"
        _copy_source(template / "source")
        (template / "results").mkdir()
        # Two warm-up runs fill the template's answer cache (the reference's answers, and the
        # diagnosis of wrong answers), so each run of the corpus starts from a warm cache.
        warm = attacks.Attack("correct", "accident", "the correct solution", "", scope="none")
        wrong = attacks.Attack("wrong", "accident", "every function wrong", WRONG, scope="module")
        warm_run = _run(Variant("warm", sys.executable), warm, template, workdir)
        assert warm_run.returncode == 0, warm_run.stderr
        shutil.move(workdir / "warm-correct/source/.cache", template / "source/.cache")
        _run(Variant("warm", sys.executable), wrong, template, workdir)
        shutil.rmtree(template / "source/.cache")
        shutil.move(workdir / "warm-wrong/source/.cache", template / "source/.cache")
        # Secured once here, as each run secures its layout: the runs' files are links to these.
        # The grader as nobody ("user") needs a layout it owns: a template of its own.
        _secure(template)
        templates = {"root": template}
        user = variants["user"].user
        if user is not None and not variants["user"].skip:
            templates["user"] = workdir / "template-user"
            shutil.copytree(template, templates["user"], symlinks=True)
            _own(templates["user"], user)
        jobs = sorted(
            (pair for pair in _selected(request.session) if not variants[pair[0]].skip),
            key=lambda pair: not attacks.BY_NAME[pair[1]].slow,
        )
        runs: dict[tuple[str, str], Run] = {}
        with concurrent.futures.ThreadPoolExecutor(PARALLEL) as pool:
            futures = {
                pool.submit(_run, variants[v], attacks.BY_NAME[a],
                            templates["user" if variants[v].user else "root"], workdir): (v, a)
                for v, a in jobs
            }
            for future in concurrent.futures.as_completed(futures):
                runs[futures[future]] = future.result()
        if os.environ.get("HOSTILE_TIMES"):
            with open(os.environ["HOSTILE_TIMES"], "w") as out:
                for (v, a), run in sorted(runs.items(), key=lambda item: -item[1].elapsed):
                    print(f"{run.elapsed:6.2f} {v} {a}", file=out)
        cache = json.loads((template / "source/.cache/answer-key.json").read_text())
        keys = sorted(cache["entries"])  # "<case hash>:<algorithm>:<rule>:<seed>": secret too
        yield variants, runs, warm_run, keys
    finally:
        _remove(workdir)


# --- what must hold ---------------------------------------------------------------------------


@functools.cache
def _secrets() -> list[str]:
    """Strings no student may see: hidden case names, lines only the reference has, the canary.
    Worked out when a corpus test first needs them, not as the module is collected (about a
    CPU second, in every pytest-xdist worker, most of which run none of these tests)."""
    found = [CANARY]
    for case in sorted((REPO / "trees/hidden").glob("*.json")):
        data = json.loads(case.read_text())
        found += [case.stem] + [data[key] for key in ("name", "description") if key in data]
    visible = "\n".join(
        path.read_text()
        for path in [*(REPO / "grader").rglob("*.py"), *(REPO / "student").rglob("*.py"),
                     attacks.CORRECT, Path(attacks.__file__)]
    )  # fmt: skip
    for source in sorted((REPO / "reference").glob("*.py")):
        for line in source.read_text().splitlines():
            line = line.strip()
            if len(line) >= 30 and line not in visible and not line.startswith(("#", '"""')):
                found.append(line)
    return sorted(set(found))



def _student_view(results: dict[str, Any]) -> str:
    """All a student sees before the due date: the top-level output and the visible tests."""
    shown = [str(results.get("output", ""))]
    for test in results.get("tests", []):
        if test.get("visibility", "visible") == "visible":
            shown += [str(test.get("name", "")), str(test.get("output", ""))]
    return "\n".join(shown)


def _algorithm(test: dict[str, Any]) -> str:
    return str(test["name"]).split(":")[0]


def _params() -> list[Any]:
    params = []
    for variant in ("root", "root-modes", "user"):
        for attack in attacks.ATTACKS:
            if variant == "root-modes" and (attack.name in attacks.SAME_FOR_ANY_USER or not (
                    attack.fenced or attack.category == "theft")):
                continue
            # as root, the entries whose defence is the same for any user are graded as root
            # only; as a normal user, "user" is the one variant that runs: every entry
            if (variant == "user" and os.geteuid() == 0
                    and attack.name in attacks.SAME_FOR_ANY_USER):
                continue
            params.append(pytest.param(variant, attack.name,
                                       id=f"{variant}-{attack.category}-{attack.name}"))
    return params


@pytest.mark.parametrize(("variant", "attack"), _params())
def test_hostile_submission_is_graded_and_contained(hostile_runs, variant, attack):
    variants, runs, _, cache_keys = hostile_runs
    if variants[variant].skip:
        pytest.skip(variants[variant].skip)
    entry, run = attacks.BY_NAME[attack], runs[(variant, attack)]
    context = f"stdout:\n{run.stdout}\nstderr:\n{run.stderr[-3000:]}"
    assert run.returncode == 0, f"the grader did not exit cleanly ({run.returncode}); {context}"
    # (no wall-clock assert: a run past 2 x TIME_BOUND is ended by _run's timeout, a hang
    # guard, and fails above with no return code)
    assert not run.results_error, run.results_error
    size = len(json.dumps(run.results))
    assert size < RESULTS_BOUND, f"results.json of {size:,} bytes for {TESTS} tests"
    assert size < (entry.results_bytes or RESULTS_BOUND), f"results.json of {size:,} bytes"
    tests = run.results["tests"]
    if entry.scope == "module" and len(tests) == 1 and "could be graded" in tests[0]["name"]:
        # nothing in the upload can be graded (a link, not a file): one test, one message
        assert tests[0]["score"] == 0 and tests[0]["max_score"] > 0, tests[0]
        assert re.search(entry.message, run.results["output"]), run.results["output"][:2000]
        tests = []
    else:
        assert len(tests) == TESTS, [t["name"] for t in tests]
    for test in tests:
        attacked = entry.scope == "module" or (
            entry.scope == "function" and _algorithm(test) == entry.target)
        if attacked:
            assert test["score"] == pytest.approx(entry.score * test["max_score"]), test
            assert re.search(entry.message, test["output"]), test["output"][:2000]
        else:
            assert test["score"] == test["max_score"], (test, test["output"][:1500])
    if entry.output:
        assert re.search(entry.output, run.results["output"]), run.results["output"][:2000]
    if entry.shmem_rise:  # memory no process's RSS or RLIMIT_AS counts (issue 40)
        assert run.shmem_rise < entry.shmem_rise, f"Shmem rose {run.shmem_rise} MiB"
    assert run.changed == [], f"files changed outside the worker's scratch folder: {run.changed}"
    assert NEUTRAL_GRADER_ERROR not in run.results.get("output", ""), "a staff-side error"
    assert not any(test["name"].startswith("grader error") for test in tests)
    assert list(Path("/dev/shm").glob("grader-hostile-*")) == [], "files left in /dev/shm"
    assert list(Path("/run/lock").glob("grader-hostile-*")) == [], "files left in /run/lock"
    assert _sysv_left() == [], "System V shared memory left behind"
    assert run.leftovers == [], f"scratch folders left behind: {run.leftovers}"
    view = _student_view(run.results)
    leaked = [secret for secret in _secrets() + cache_keys if secret in view]
    assert leaked == [], f"students would see: {leaked}"
    # the scratch folder's random name differs each run: no traceback, crash or warning names
    # it (printing its own environment or working directory, the code shows it itself)
    if attack != "environment":
        assert "grader-worker-" not in view, "students would see the scratch folder's path"
    if attack == "syntax_error":  # a file that does not parse is not audited
        assert "audit" not in run.results.get("extra_data", {})


def _sysv_left() -> list[str]:
    """The corpus's System V shared-memory segments still in this IPC namespace."""
    try:
        rows = Path("/proc/sysvipc/shm").read_text().splitlines()[1:]
    except OSError:
        return []
    keys = range(attacks.SYSV_KEY, attacks.SYSV_KEY + 5)
    return [row for row in rows if int(row.split()[0]) in keys]


def test_the_correct_submission_scores_everything_and_is_not_audited(hostile_runs):
    _, _, warm, _ = hostile_runs
    assert warm.returncode == 0 and not warm.results_error
    assert warm.results["score"] == sum(t["max_score"] for t in warm.results["tests"]) > 0
    assert "audit" not in warm.results.get("extra_data", {})


def test_the_worker_environment_holds_none_of_the_graders(hostile_runs):
    variants, runs, *_ = hostile_runs
    if variants["root"].skip:
        pytest.skip(variants["root"].skip)
    run = runs[NEEDS["test_the_worker_environment_holds_none_of_the_graders"]]
    output = next(t["output"] for t in run.results["tests"] if _algorithm(t) == "alpha_beta")
    assert "'PYTHONHASHSEED': '0'" in output  # the worker's own, printed before the refusal
    assert "GRADESCOPE_SECRET_TOKEN" not in output and CANARY not in output


def test_attacks_are_audited_for_staff_and_never_shown_to_students(hostile_runs):
    variants, runs, *_ = hostile_runs
    if variants["root"].skip:
        pytest.skip(variants["root"].skip)
    run = runs[NEEDS["test_attacks_are_audited_for_staff_and_never_shown_to_students"]]
    findings = run.results["extra_data"]["audit"]
    assert {"import", "call"} <= {finding["kind"] for finding in findings}
    assert any(finding["name"] == "open" for finding in findings)
    assert any(note.startswith("audit (not a deduction)") for note in
               run.results["extra_data"]["staff_notes"])
    assert "audit" not in _student_view(run.results)


def test_the_corpus_writes_one_submission_per_attack(tmp_path):
    paths = attacks.write_all(tmp_path)
    written = {a.name for a in attacks.ATTACKS if a.upload not in attacks.NOT_WRITTEN_BY_WRITE_ALL}
    assert len(paths) == len(written) >= 35
    assert {path.relative_to(tmp_path).parts[0] for path in paths} == written
    text = (tmp_path / "infinite_loop" / "search.py").read_text()
    assert text.startswith(attacks.CORRECT.read_text().rstrip())
    assert text.rstrip().endswith("pass")
    assert set(attacks.CATEGORIES) == {attack.category for attack in attacks.ATTACKS}


# --- defences outside the worker --------------------------------------------------------------


def test_results_are_written_by_the_parent_after_every_worker_process_is_gone(
    tmp_path, monkeypatch
):
    from grader import files
    from grader.answers import store as answers
    from grader.commands.grade import grade_main
    from grader.sandbox import client as sandbox

    monkeypatch.setattr(answers, "CACHE_KEY", tmp_path / "answer-key.json")
    groups: list[int] = []
    start = sandbox.Worker.start

    def recording_start(self):
        start(self)
        if self.pid is not None and self.pid not in groups:
            groups.append(self.pid)

    def alive(group: int) -> bool:
        try:
            os.killpg(group, 0)  # any process left in the worker's group, forked ones too
            return True
        except ProcessLookupError:
            return False

    checks: list[tuple[str, list[int]]] = []
    write = files.write_json_atomically  # where every results writer writes its file

    def checking_write(data, path):
        checks.append((Path(path).name, [group for group in groups if alive(group)]))
        write(data, path)

    monkeypatch.setattr(sandbox.Worker, "start", recording_start)
    monkeypatch.setattr(files, "write_json_atomically", checking_write)
    submission = attacks.write_submission(attacks.BY_NAME["os_exit"], tmp_path / "submission")
    cases = [REPO / "trees/public" / name for name in (PUBLIC[0], "aima-fig-5-4-three-player.json")]
    code = grade_main(submission, cases, results_path=tmp_path / "results.json")
    assert code == 0 and len(groups) == 2  # one worker died in alpha_beta, a fresh one went on
    assert ("results.json", []) in checks  # written once no worker process was left
    assert all(alive_then == [] for _, alive_then in checks)  # the answer cache too
    data = json.loads((tmp_path / "results.json").read_text())
    assert [test["score"] for test in data["tests"]] == [1.0, 0.0, 1.0]


def test_the_audit_reports_what_reaches_past_the_game():
    from grader.sandbox.audit import audit

    source = (
        "import math, os\n"                                    # 1
        "from grader.games import MAX\n"                       # 2
        "import grader.run.tracing\n"                          # 3
        "import importlib.util as iu\n"                        # 4
        "def alpha_beta(game, state):\n"                       # 5
        "    open('/autograder/results/results.json', 'w')\n"  # 6
        "    eval('1'); exec('x = 1')\n"                       # 7
        "    getattr(game, '__class__')\n"                     # 8
        "    getattr(game, 'actions')\n"                       # 9
        "    return ().__class__.__bases__[0].__subclasses__()\n"  # 10
    )
    found = {(finding.line, finding.kind, finding.name) for finding in audit(source)}
    assert found == {
        (1, "import", "os"), (3, "import", "grader.run.tracing"), (4, "import", "importlib.util"),
        (6, "call", "open"), (7, "call", "eval"), (7, "call", "exec"),
        (8, "call", "getattr:__class__"), (10, "attribute", "__class__"),
        (10, "attribute", "__bases__"), (10, "attribute", "__subclasses__"),
    }  # fmt: skip


def test_the_audit_is_silent_on_correct_code_and_on_code_that_does_not_parse():
    from grader.sandbox.audit import audit

    assert audit(attacks.CORRECT.read_text()) == []
    assert audit(attacks.submission_text(attacks.BY_NAME["syntax_error"])) == []
    assert audit("x = " + "(" * 100_000 + ")" * 100_000) == []  # too deep for the parser
    assert audit("\0") == []


def test_the_audit_of_a_submission_never_raises(tmp_path):
    from grader.sandbox.audit import audit_submission

    assert audit_submission(tmp_path / "missing.py") == {"findings": [], "note": ""}
    broken = tmp_path / "broken.zip"
    broken.write_bytes(b"not a zip")
    assert audit_submission(broken) == {"findings": [], "note": ""}
    attack = attacks.write_submission(attacks.BY_NAME["read_reference"], tmp_path / "theft")
    report = audit_submission(attack.parent)
    assert report["note"].startswith("audit (not a deduction): search.py line ")
    assert {"import", "call"} <= {finding["kind"] for finding in report["findings"]}
    # a large file is not parsed (about 400 times its size in the grader's memory): said so
    big = tmp_path / "big"
    big.mkdir()
    (big / "search.py").write_text("import os\n" + "x = 1\n" * 40_000)
    assert audit_submission(big) == {
        "findings": [], "note": "audit: search.py is over 200,000 bytes; not audited"}
