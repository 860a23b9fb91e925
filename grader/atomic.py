"""Write a file so that readers never see half of it: a temporary file beside it, then a rename.

The one writer behind ``results.json`` (:mod:`grader.gradescope`), the answer key
(:mod:`grader.answers`) and ``grader batch``'s ``scores.csv``. The temporary name is unique, so
two processes writing the same file never share it.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


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
