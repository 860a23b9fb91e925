"""Files the grader writes for others to read: whole or not at all, and strict JSON.

:func:`write_text_atomically` writes a temporary file beside the target, then renames it. It is the
one writer behind ``results.json`` (:mod:`grader.report.gradescope`), the answer key
(:mod:`grader.answers.store`) and ``grader batch``'s ``scores.csv``. The temporary name is unique,
so two processes writing the same file never share it.

A full disk (student code can fill one: the worker's scratch folder is checked only between
calls) must not cost a submission its ``results.json``: :func:`reserve_space` sets space aside
beside a file before grading starts, and :func:`write_text_atomically` gives that space back and
tries again when a write fails for want of room.
"""

from __future__ import annotations

import errno
import json
import math
import os
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

RESERVE_BYTES = 12 * 1024 * 1024  # above any results.json (grader.scoring.results.RESULTS_BOUND)
_NO_ROOM = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)


def reserved_path(path: Path) -> Path:
    return Path(path).with_name(f".{Path(path).name}.reserved")


def reserve_space(path: Path, size: int = RESERVE_BYTES) -> bool:
    """Set ``size`` bytes aside beside ``path`` (a hidden ``.NAME.reserved`` file, allocated,
    not sparse) for :func:`write_text_atomically` to write ``path`` into when the disk is full.
    False when there is no room even now (the write will then try its luck)."""
    reserve = reserved_path(path)
    try:
        reserve.parent.mkdir(parents=True, exist_ok=True)
        handle = os.open(reserve, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0),
                         0o600)
    except OSError:
        return False
    try:
        os.posix_fallocate(handle, 0, size)
        return True
    except OSError:
        os.close(handle)
        handle = -1
        reserve.unlink(missing_ok=True)
        return False
    finally:
        if handle >= 0:
            os.close(handle)


def release_space(path: Path) -> bool:
    """Free what :func:`reserve_space` set aside for ``path``; True if there was something."""
    try:
        reserved_path(path).unlink()
        return True
    except OSError:
        return False


def write_text_atomically(text: str, path: Path) -> None:
    """Write ``text`` to ``path`` whole or not at all; a write that fails for want of room is
    tried once more after the space reserved for ``path`` is freed (the reservation is freed
    after a successful write too)."""
    try:
        _write_text_atomically(text, path)
    except OSError as error:
        if error.errno not in _NO_ROOM or not release_space(path):
            raise
        _write_text_atomically(text, path)
    release_space(path)


def _write_text_atomically(text: str, path: Path) -> None:
    # imported here: the sandbox worker imports this module (grader.cases.checked) and never
    # writes a file with it, and tempfile brings shutil, bz2 and lzma (3 ms of each start)
    import tempfile

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}-", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def json_text(data: Any) -> str:
    """``data`` as every results file is written: indented strict JSON (no NaN: platforms reject
    it; an object the writer did not expect becomes its ``str``)."""
    return json.dumps(data, indent=2, allow_nan=False, default=str) + "\n"


def write_json_atomically(data: Any, path: Path) -> None:
    """:func:`json_text`, written so readers never see half a file."""
    write_text_atomically(json_text(data), path)


def write_data_atomically(data: Any, path: Path) -> None:
    """A results format's data written atomically: text as it is (JUnit's XML), anything else as
    JSON."""
    if isinstance(data, str):
        write_text_atomically(data, Path(path))
    else:
        write_json_atomically(data, Path(path))


def write_results_file(path: Path, render: Callable[[], Any],
                       fallback: Callable[[str, str], Any]) -> Any:
    """Write what ``render()`` gives (a dict as JSON, a str as text) to ``path`` atomically, and
    return it. When ``render`` raises, the grader failed, never the student: write
    ``fallback(message, traceback)`` instead, so the file is always there and valid."""
    try:
        data = render()
    except Exception as error:  # noqa: BLE001 - any failure of ours still leaves a valid file
        data = fallback(f"writing results failed: {error!r}", traceback.format_exc())
    write_data_atomically(data, path)
    return data


def json_safe(value: Any) -> Any:
    """``value`` as strict JSON data: tuples as lists, infinities and NaN as the strings
    ``"+inf"``, ``"-inf"``, ``"nan"`` (the key file is strict JSON), objects as their repr."""
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("+inf" if value > 0 else "-inf")
    if isinstance(value, (list, tuple)):
        return [json_safe(item) for item in value]
    if isinstance(value, dict):
        return {str(key): json_safe(item) for key, item in value.items()}
    if value is None or isinstance(value, (str, int, float)):
        return value
    return repr(value)
