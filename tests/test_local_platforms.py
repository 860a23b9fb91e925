"""What students' own machines need of ``grader check`` (issue 22): Windows line endings and
folder names, consoles that cannot show box drawing, and the portable worker mode."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import suite_modules

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
    assert code == 1 and "(never_prunes)" in out  # plain terminal text: no `code` marks
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
    return suite_modules.load("submissions/variants.py")


WITHOUT_POSIX = """
import sys
import os, signal
for name in ("resource", "pwd", "termios", "grp", "fcntl"):  # what Windows' Python lacks
    sys.modules[name] = None
os.supports_dir_fd.clear()  # Windows' os.open, unlink, rmdir, stat take no folder handle
for module, names in ((os, ("O_DIRECTORY", "O_NOFOLLOW", "O_CLOEXEC", "killpg", "setsid",
                            "waitid", "geteuid", "getuid", "getgid", "setuid", "setgid",
                            "fork", "chown", "fchmod", "getpgid", "sysconf")),
                      (signal, ("SIGALRM", "SIGXCPU", "SIGXFSZ", "SIGPROF", "ITIMER_PROF",
                                "setitimer"))):
    for name in names:
        delattr(module, name)
{body}
"""


def test_the_local_check_imports_nothing_windows_lacks(tmp_path):
    """``grader check`` (the parent) and the portable worker's child import with ``resource``,
    ``pwd``, ``termios``, ``grp``, ``fcntl``, folder handles and POSIX-only parts of ``os`` and
    ``signal`` missing, and the check grades and writes its HTML report (in the portable worker,
    chosen since ``resource`` is missing)."""
    body = (
        "from grader.cli import main\n"
        f"code = main(['check', '--submission', {str(CORRECT)!r}, '--cases', {str(AIMA)!r},"
        f" '-a', 'minimax', '--html', {str(tmp_path / 'report.html')!r}])\n"
        "print('multiprocessing loaded:', 'multiprocessing' in sys.modules, file=sys.stderr)\n"
        "import grader.sandbox.portable_worker\n"  # the child's modules import here too
        "sys.exit(code)\n"
    )
    env = {key: value for key, value in os.environ.items() if key != "GRADER_PORTABLE"}
    done = subprocess.run([sys.executable, "-c", WITHOUT_POSIX.format(body=body)], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Total: " in done.stdout and (tmp_path / "report.html").is_file()
    # no multiprocessing start method to differ between Linux (fork), macOS and Windows (spawn):
    # the check starts its one child with subprocess, a fresh interpreter everywhere (the
    # child imports multiprocessing only through timeout_decorator, and starts nothing with it)
    assert "multiprocessing loaded: False" in done.stderr


# --- what a Windows or macOS Python lacks, met where the local check meets it -------------------


def test_the_scratch_folder_is_removed_where_folders_cannot_be_opened(tmp_path, monkeypatch):
    """Windows' ``os.open`` opens no folder and takes no ``dir_fd``: the portable worker's
    scratch is removed with :func:`shutil.rmtree` there (links removed, never followed)."""
    from grader.sandbox import process

    monkeypatch.setattr(process, "_FOLDER_HANDLES", False)  # as computed on Windows
    kept = tmp_path / "kept.txt"
    kept.write_text("mine", encoding="utf-8")
    scratch = tmp_path / "scratch"
    (scratch / "a" / "b").mkdir(parents=True)
    (scratch / "a" / "b" / "file.txt").write_text("x", encoding="utf-8")
    (scratch / "link").symlink_to(kept)
    assert process.remove_tree(scratch) and not scratch.exists()
    assert kept.read_text(encoding="utf-8") == "mine"
    assert process.remove_tree(tmp_path / "absent")


def test_a_windows_crash_status_is_named():
    from grader.sandbox.process import describe_exit

    assert "recursion too deep" in describe_exit(0xC00000FD)
    assert "0xC0000005" in describe_exit(3221225477)
    assert describe_exit(3) == "exited with code 3 before replying"


class _Console:
    def __init__(self) -> None:
        self.encoding = "utf-8"

    def isatty(self) -> bool:
        return True

    def fileno(self) -> int:
        return 1


def test_colour_on_windows_only_where_the_console_shows_escapes(monkeypatch):
    """A Windows console prints ANSI codes as text unless virtual terminal processing is on:
    the report asks for it and goes without colour where it is refused or not there."""
    import ctypes

    from grader.report import terminal

    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setattr(sys, "platform", "win32")
    assert terminal.use_colour(_Console()) is False  # no msvcrt, no windll: no colour

    class Kernel32:
        def __init__(self, mode: int, accepts: bool) -> None:
            self.mode, self.accepts, self.set_to = mode, accepts, None

        def GetConsoleMode(self, handle, pointer) -> int:  # noqa: N802 - the Win32 name
            ctypes.cast(pointer, ctypes.POINTER(ctypes.c_uint32)).contents.value = self.mode
            return 1

        def SetConsoleMode(self, handle, mode) -> int:  # noqa: N802
            self.set_to = mode
            return int(self.accepts)

    monkeypatch.setitem(sys.modules, "msvcrt", type(sys)("msvcrt"))
    sys.modules["msvcrt"].get_osfhandle = lambda fd: 7
    for mode, accepts, colour in ((0x3, True, True), (0x3, False, False), (0x7, False, True)):
        kernel32 = Kernel32(mode, accepts)
        monkeypatch.setattr(ctypes, "windll", type("windll", (), {"kernel32": kernel32}),
                            raising=False)
        assert terminal.use_colour(_Console()) is colour
        assert kernel32.set_to in (None, mode | 0x4)  # only ever adds the one flag
    monkeypatch.setenv("NO_COLOR", "1")
    assert terminal.use_colour(_Console()) is False


def test_the_windows_commands_the_readmes_give_exist_with_crlf():
    """Every ``bin\\NAME.cmd`` the READMEs name is there (the handout's ``test.cmd`` is
    docker/handout/bin's), beside the bash script it mirrors, in CRLF and ASCII as cmd needs."""
    import re

    named = {
        ROOT / "README.md": ROOT / "bin",
        ROOT / "docker" / "handout" / "README.md": ROOT / "docker" / "handout" / "bin",
    }
    seen = set()
    for readme, handout_bin in named.items():
        for name in re.findall(r"bin\\(\w+)\.cmd", readme.read_text(encoding="utf-8")):
            script = handout_bin / f"{name}.cmd"
            script = script if script.exists() else ROOT / "bin" / f"{name}.cmd"
            seen.add(script)
            assert script.with_suffix("").exists(), f"{script} mirrors no bash script"
    assert {path.name for path in seen} == {"grade.cmd", "test.cmd"}
    for script in [*seen, ROOT / "bin" / "setup.cmd"]:
        data = script.read_bytes()
        assert data.count(b"\n") == data.count(b"\r\n") > 0 and data.isascii(), script
