"""Files the grader writes for others to read: whole or not at all, and strict JSON.

:func:`write_text_atomically` writes a temporary file beside the target, then renames it. It is the
one writer behind ``results.json`` (:mod:`grader.report.gradescope`), the answer key
(:mod:`grader.answers.store`) and ``grader batch``'s ``scores.csv``. The temporary name is unique,
so two processes writing the same file never share it.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from pathlib import Path
from typing import Any


def write_text_atomically(text: str, path: Path) -> None:
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


def write_json_atomically(data: Any, path: Path) -> None:
    """Strict JSON (no NaN: Gradescope rejects it), written so readers never see half a file."""
    write_text_atomically(json.dumps(data, indent=2, allow_nan=False, default=str) + "\n", path)


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
