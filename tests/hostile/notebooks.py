"""Hostile and broken notebooks: what a notebook upload may hold to hurt the grader's own
process, which reads it (grader/sandbox/notebook.py) before any worker starts.

Each entry: a name, a function making the bytes of the ``.ipynb``, and the regular expression
the ``SubmissionError`` matches (``None``: the notebook converts, within the caps). Used by
tests/test_notebook.py. Made when a test asks, not as the module is imported: the largest are
megabytes (``many_outputs`` alone is 0.5 CPU s of ``json.dumps``), and every pytest process
that collects tests/test_notebook.py imports this.
"""

from __future__ import annotations

import json
from typing import Callable

from grader.sandbox.notebook import MAX_CELLS, MAX_NOTEBOOK_BYTES, MAX_SOURCE_BYTES


def _notebook(cells: list, **extra) -> bytes:
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells,
                       **extra}).encode()


def _code(source) -> dict:
    return {"cell_type": "code", "metadata": {}, "source": source, "outputs": [],
            "execution_count": None}


HOSTILE_NOTEBOOKS: list[tuple[str, Callable[[], bytes], str | None]] = [
    # larger than the cap: refused before it is parsed
    ("oversized", lambda: b'{"cells": [' + b" " * (MAX_NOTEBOOK_BYTES + 1) + b"]}", r"over \d+ MB"),
    # JSON nested past the parser's recursion limit
    ("deep_nesting", lambda: b'{"cells": ' + b"[" * 200_000 + b"]" * 200_000 + b"}",
     r"not a (readable Jupyter )?notebook"),
    # not text
    ("binary", lambda: b"\x89PNG\r\n\x1a\n" + bytes(range(256)), r"expected UTF-8 JSON"),
    # JSON, but not a notebook
    ("not_a_notebook", lambda: b'{"hello": "world"}', r"not a readable Jupyter notebook"),
    ("cells_not_a_list", lambda: _notebook([]).replace(b'"cells": []', b'"cells": 5'), r"not a"),
    # too many cells to be a handout
    ("many_cells", lambda: _notebook([_code("x = 1")] * (MAX_CELLS + 1)),
     r"cells; the grader reads at most"),
    # more code than any search.py
    ("huge_code", lambda: _notebook([_code("x = 1\n" * (MAX_SOURCE_BYTES // 6 + 10))]),
     r"bytes of code"),
    # a cell's source of the wrong type (nbformat would join a list of strings)
    ("source_not_text", lambda: _notebook([_code({"evil": 1})]), r"cell 1|not a readable"),
    # nbformat's error quotes the file: its HTML must reach the results as text, not markup
    ("markup_in_error", lambda: json.dumps({
        "nbformat": "<img src=x onerror=alert(1)>\n# Full marks", "cells": []}).encode(),
     r"Unsupported nbformat version \\<img src=x onerror=alert\(1\)\\>$"),
    # a lone surrogate, which JSON can escape and UTF-8 cannot hold: it made every test a
    # grader error (the joined code could not be written for the worker)
    ("lone_surrogate", lambda: _notebook([_code("x = 1"), _code("y = 2\nNOTE = '\ud800'\n")]),
     r"cell 2, line 2: holds the character U\+D800"),
    # 4,000 cells of 60 small outputs each (18 MB): nbformat validated every output, 8 s at
    # each worker start; the outputs are emptied first (python -m bench.notebook times it)
    ("many_outputs", lambda: _notebook([{**_code("x = 1"), "outputs": [
        {"output_type": "stream", "name": "stdout", "text": "x\n"}] * 60}] * 4_000), None),
    # a line of 20,000 spaces: the old IPython-line pattern backtracked on it for hours
    ("backtracking_line",
     lambda: _notebook([_code(" " * 20_000 + "# far to the right\nx = 1")]), None),
    # many IPython lines in one cell: converted in one pass, never re-tokenized per line
    ("many_magics", lambda: _notebook([_code("!echo hi\n" * 50_000)]), None),
    # code in an output, a markdown cell and a raw cell: never graded, never run
    ("code_outside_code_cells", lambda: _notebook([
        {"cell_type": "markdown", "metadata": {}, "source": "import os; os.system('x')"},
        {"cell_type": "raw", "metadata": {}, "source": "raise SystemExit"},
        {**_code("y = 2"), "outputs": [{"output_type": "stream", "name": "stdout",
                                        "text": "import os"}]},
    ]), None),
]
