"""Notebook conversion in the grader's process: ``python bench/notebook.py``.

Prints the median time and the peak memory of :func:`grader.sandbox.notebook.read_notebook` on
the correct solution as a notebook (one cell a function, a setup cell of IPython lines), the
same with 15 MB of outputs (plots) in it, and the largest notebooks the caps let through (1 MB
of code; 50,000 shell lines in one cell; 4,000 cells of 60 small outputs each, 18 MB; a line of
20,000 spaces). Figures only; nothing is asserted.
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from grader.sandbox.notebook import MAX_SOURCE_BYTES, read_notebook  # noqa: E402


def _cell(source: str, outputs: list | None = None) -> dict:
    return {"cell_type": "code", "metadata": {}, "source": source, "outputs": outputs or [],
            "execution_count": None}


def notebooks() -> dict[str, dict]:
    correct = (REPO / "tests" / "submissions" / "correct" / "search.py").read_text()
    head, *functions = correct.split("\n\n\ndef ")
    cells = [_cell("%matplotlib inline\n!pip install numpy"), _cell(head)]
    cells += [_cell("def " + body) for body in functions]
    plot = {"output_type": "display_data", "metadata": {},
            "data": {"image/png": "iVBORw0KGgo" * 100_000}}  # about 1.1 MB of base64 each
    stream = {"output_type": "stream", "name": "stdout", "text": "x\n"}
    base = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}}
    return {
        "correct solution": {**base, "cells": cells},
        "with 15 MB of outputs": {**base, "cells": cells + [_cell("show()", [plot] * 14)]},
        "1 MB of code": {**base, "cells": [_cell("x = 1\n" * (MAX_SOURCE_BYTES // 6 - 10))]},
        "50,000 shell lines": {**base, "cells": [_cell("!echo hi\n" * 50_000)]},
        "4,000 cells of outputs": {**base, "cells": [_cell("x = 1", [stream] * 60)] * 4_000},
        "20,000 spaces a line": {**base, "cells": [_cell(" " * 20_000 + "# far\nx = 1")]},
    }


def main() -> int:
    with tempfile.TemporaryDirectory() as folder:
        print(f"{'notebook':<24} {'size':>9} {'median':>9} {'peak memory':>12}")
        for name, notebook in notebooks().items():
            path = Path(folder) / "search.ipynb"
            path.write_text(json.dumps(notebook))
            times = []
            for _ in range(5):
                started = time.perf_counter()
                read_notebook(path)
                times.append(time.perf_counter() - started)
            tracemalloc.start()
            read_notebook(path)
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            print(f"{name:<24} {path.stat().st_size / 1e6:>7.2f}MB "
                  f"{statistics.median(times) * 1000:>7.1f}ms {peak / 1e6:>10.1f}MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
