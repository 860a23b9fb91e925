"""What students' own machines need of ``grader check`` (issue 22): Windows line endings and
folder names, consoles that cannot show box drawing, and the portable worker mode."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CORRECT = ROOT / "tests" / "submissions" / "correct" / "search.py"
STUBS = ROOT / "student" / "search.py"
AIMA = ROOT / "trees" / "public" / "aima-fig-5-2.json"
ODD_FOLDER = "my work — ünïcødé folder"  # spaces, a dash and letters outside ASCII

pytestmark = pytest.mark.local_check  # run again in the portable worker: tests/test_portable.py


def _check(*args: str, encoding: str = "utf-8") -> tuple[int, str]:
    """``python -m grader check ARGS`` as a student's console runs it: stdout in ``encoding``
    (in the worker ``GRADER_PORTABLE`` chooses: tests/test_portable.py runs this module again
    with it set)."""
    env = {**os.environ, "PYTHONIOENCODING": encoding}
    env.pop("GRADER_ASCII", None)
    done = subprocess.run([sys.executable, "-m", "grader", "check", *args], cwd=ROOT, env=env,
                          capture_output=True, timeout=300)
    assert b"Traceback" not in done.stderr, done.stderr.decode(encoding, "replace")
    return done.returncode, done.stdout.decode(encoding)  # strict: every byte is in the encoding


def _crlf_copy(source: Path, target: Path) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    text = source.read_bytes().replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
    target.write_bytes(text)
    assert b"\r\n" in target.read_bytes()
    return target


def test_a_crlf_submission_and_case_in_an_odd_folder_get_full_marks(tmp_path):
    folder = tmp_path / ODD_FOLDER
    submission = _crlf_copy(CORRECT, folder / "search.py")
    case = _crlf_copy(AIMA, folder / "cases" / AIMA.name)
    report = folder / "report — ü.html"
    code, out = _check("--submission", str(submission), "--cases", str(case.parent),
                       "-a", "alpha_beta", "--html", str(report))
    assert code == 0, out
    assert "Total: " in out and "FAIL" not in out
    assert report.is_file() and "<html" in report.read_text(encoding="utf-8").lower()


def test_check_output_and_errors_fit_a_cp1252_console(tmp_path):
    variants = _load_variants()
    wrong = variants.materialize("never_prunes", tmp_path / "never_prunes")
    code, out = _check("--submission", str(wrong), "--cases", str(AIMA), "-a", "alpha_beta",
                       encoding="cp1252")
    assert code == 1 and "`never_prunes`" in out
    assert "+-- B MIN" in out  # the tree is drawn in ASCII
    assert not any(char in out for char in "─│├└┌┐┘┼")
    # a folder name cp1252 cannot show, in a submission path and in a case path
    elsewhere = tmp_path / "папка"
    code, out = _check("--submission", str(elsewhere / "search.py"), "--cases", str(AIMA),
                       "-a", "alpha_beta", encoding="cp1252")
    assert code == 1 and "no submission at" in out and "\\u043f" in out
    code, out = _check("--submission", str(wrong), "--cases", str(elsewhere / "x.json"),
                       encoding="cp1252")
    assert code == 2


def _load_variants():
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "submission_variants_local", ROOT / "tests" / "submissions" / "variants.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


WITHOUT_POSIX = """
import sys
import os, signal
for name in ("resource", "pwd", "termios", "grp"):  # what Windows' Python does not have
    sys.modules[name] = None
for module, names in ((os, ("O_DIRECTORY", "O_NOFOLLOW", "O_CLOEXEC", "killpg", "setsid",
                            "waitid", "geteuid", "sysconf")),
                      (signal, ("SIGALRM", "SIGXCPU", "SIGXFSZ", "SIGPROF", "ITIMER_PROF",
                                "setitimer"))):
    for name in names:
        delattr(module, name)
{body}
"""


def test_the_local_check_imports_nothing_windows_lacks(tmp_path):
    """``grader check`` (the parent) and the portable worker's child import with ``resource``,
    ``pwd``, ``termios``, ``grp`` and POSIX-only parts of ``os`` and ``signal`` missing, and
    the check grades (in the portable worker, chosen since ``resource`` is missing)."""
    body = (
        "import grader.sandbox.portable_worker\n"
        "from grader.cli import main\n"
        f"sys.exit(main(['check', '--submission', {str(CORRECT)!r}, '--cases', {str(AIMA)!r},"
        " '-a', 'minimax']))\n"
    )
    env = {key: value for key, value in os.environ.items() if key != "GRADER_PORTABLE"}
    done = subprocess.run([sys.executable, "-c", WITHOUT_POSIX.format(body=body)], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Total: " in done.stdout
