"""The code runs on Python 3.10, Gradescope's (``requires-python`` in pyproject.toml), though the
suite runs on whatever Python the machine has: vermin reads every module and names each
feature newer than 3.10 it uses, a keyword argument included. ``binascii.a2b_base64``'s
``strict_mode`` (3.11) once made every packed trace a grader error on Gradescope while the
suite, on 3.11, passed.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
pytest.importorskip("vermin", reason="pip install -e '.[dev]'")
OLDEST = "3.10"
FOLDERS = ("grader", "reference", "student", "tests", "bench", "docker")
# vermin reads ``some_bytes.decode(...)`` as Python 2's ``str.decode``
NOT_FEATURES = ("str.decode",)


def vermin(*paths: Path) -> subprocess.CompletedProcess:
    excluded = [argument for name in NOT_FEATURES for argument in ("--exclude", name)]
    return subprocess.run([sys.executable, "-c", "import sys, vermin; sys.exit(vermin.main())",
                           f"--target={OLDEST}-", "--violations",
                           "--no-tips", "--eval-annotations", *excluded, *map(str, paths)],
                          capture_output=True, text=True, timeout=300)


def test_nothing_needs_a_python_newer_than_gradescopes():
    done = vermin(*(REPO / folder for folder in FOLDERS))
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_keyword_argument_newer_than_3_10_is_named(tmp_path):
    module = tmp_path / "packing.py"
    module.write_text("import binascii\n\n\ndef unpack(text):\n"
                      "    return binascii.a2b_base64(text, strict_mode=True)\n")
    done = vermin(module)
    assert done.returncode != 0
    assert "a2b_base64(strict_mode)" in done.stdout and "3.11" in done.stdout
