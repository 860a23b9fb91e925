"""Shared test options and fixtures.

Golden files (tests/goldens/): rendered output pinned line by line. A change to a format is
deliberate: rewrite the goldens with ``pytest --update-goldens`` (or ``UPDATE_GOLDENS=1``), then
review the diff before committing it.
"""

from __future__ import annotations

import contextlib
import difflib
import io
import os
from collections.abc import Callable
from pathlib import Path

import pytest

GOLDENS = Path(__file__).resolve().parent / "goldens"

# The suite's reference answers go to a cache of its own, never the repository's default
# (.cache/answer-key.json): the suite solves every known-wrong variant and random tree, and a
# default cache that size is read whole by every later `grader grade` (issue 31: 8.6 MB, a
# grade's peak from 84 to 112 MB). Set before any grader module reads GRADER_CACHE; inherited by
# the commands the tests start.
os.environ.setdefault("GRADER_CACHE", str(GOLDENS.parent.parent / ".cache" / "test-suite"))


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "local_check: what students run on their own machines (grader check, the "
        "student/ pytest front end, grader render, the HTML report); "
        "tests/test_portable.py runs every such test again with GRADER_PORTABLE=1")


def pytest_collection_finish(session: pytest.Session) -> None:
    """Start tests/test_portable.py's portable run of the local-check tests now, when the
    session will run the test that checks it: it overlaps the rest of the suite. Not in a
    pytest-xdist worker (bin/test): every worker collects every test, so each would start it;
    there the test starts it and the other workers are the overlap."""
    if session.config.option.collectonly or os.environ.get("PYTEST_XDIST_WORKER"):
        return
    for item in session.items:
        if item.name == "test_every_local_check_test_passes_in_the_portable_worker":
            session.config.add_cleanup(item.module.stop_local_check_run)
            item.module.start_local_check_run()
            return


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-goldens", action="store_true", default=False,
                     help="rewrite tests/goldens/ from the current output instead of comparing")


@pytest.fixture(scope="session")
def shared_answers():
    """The suite's answer cache read once a process, for the fixtures that grade many
    submissions here (``grade(..., answers=shared_answers)``): the file is about 10 MB, and
    reading it is about 0.3 CPU s, half of a small grade. Not written while they use it
    (fixtures grade in two threads, and ``grade`` writes the cache as it ends): what they add
    is written once, when the session ends."""
    from grader.answers.store import AnswerKey

    answers = AnswerKey.default()
    cache, answers.cache = answers.cache, None
    yield answers
    answers.cache = cache
    answers.save()


@pytest.fixture(scope="session")
def autograder_build(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The autograder zip ``grader build autograder`` writes (the command line, the suite's
    cache), and what the command printed: built once a run of the suite, for every test that
    reads one (tests/test_build.py checks it, tests/test_run_autograder.py installs it). A
    build validates and solves every case (about 6 CPU s), and its bytes depend on the cases
    and the code only (test_build checks that against a build of another checkout), so the
    pytest-xdist workers of one run share one: the first to ask builds it under a lock in
    their common temporary folder, the others wait and read it."""
    import fcntl  # (POSIX: the suite runs on Linux; tests/test_local_platforms plays Windows)

    from grader.cli import main as cli_main

    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):  # each worker's is a folder of the run's
        base = base.parent
    out, said = base / "autograder-build" / "autograder.zip", base / "autograder-build" / "said"
    out.parent.mkdir(exist_ok=True)
    with open(base / "autograder-build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not said.exists():  # written last: a build that failed midway is built again
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed):
                code = cli_main(["build", "autograder", "--out", str(out)])
            assert code == 0, printed.getvalue()
            said.write_text(printed.getvalue())
    return out, said.read_text()


@pytest.fixture(scope="session")
def update_goldens(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-goldens") or os.environ.get("UPDATE_GOLDENS"))


@pytest.fixture(scope="session")
def golden(update_goldens: bool) -> Callable[[str, str], None]:
    """``golden(relative_path, text)``: compare ``text`` with tests/goldens/<relative_path>
    line by line (or rewrite the file under ``--update-goldens``)."""

    def check(name: str, text: str) -> None:
        path = GOLDENS / name
        if update_goldens:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            return
        if not path.exists():
            pytest.fail(f"no golden file {path}; create it with `pytest --update-goldens`")
        expected = path.read_text(encoding="utf-8")
        if expected != text:
            diff = difflib.unified_diff(expected.splitlines(), text.splitlines(),
                                        f"goldens/{name}", "now", lineterm="")
            pytest.fail("output differs from its golden file (if the change is deliberate, "
                        "run `pytest --update-goldens`):\n" + "\n".join(diff), pytrace=False)

    return check
