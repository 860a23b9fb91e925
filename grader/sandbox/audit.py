"""A static audit of a submission, for staff only: what in ``search.py`` reaches past the game.

The sandbox is what stops an attack; the audit tells staff where to look. It never changes a
score: findings go to ``GradingResults.extra_data["audit"]`` and one staff note, both out of
students' sight. It reads the source with :mod:`ast` (nothing is run), and reports:

* imports of modules a search has no use for (processes, files, the interpreter's internals,
  the network, the test framework, the grader's own modules other than ``grader.games``);
* calls of ``open``, ``exec``, ``eval``, ``compile``, ``__import__``, ``breakpoint``;
* ``getattr`` / ``setattr`` / ``delattr`` / ``hasattr`` with a dunder name, and attributes such
  as ``__globals__`` or ``__subclasses__`` that lead from any object to everything else.

A file that does not parse gets no findings: its import error is already every test's message.
"""

from __future__ import annotations

import ast
import shutil
import tempfile
import threading
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

SUSPICIOUS_MODULES = frozenset({
    "os", "subprocess", "ctypes", "socket", "gc", "inspect", "importlib", "signal", "_signal",
    "threading", "multiprocessing", "sys", "builtins", "atexit", "shutil", "pathlib", "io",
    "tempfile", "pty", "resource", "pickle", "marshal", "code", "runpy", "unittest",
    "gradescope_utils",
    "timeout_decorator", "urllib", "http", "requests", "asyncio", "concurrent", "faulthandler",
    "reference",
})  # fmt: skip
ALLOWED_GRADER_MODULES = ("grader", "grader.games")  # what the stubs themselves import
SUSPICIOUS_CALLS = frozenset({"open", "exec", "eval", "compile", "__import__", "breakpoint"})
ATTRIBUTE_CALLS = frozenset({"getattr", "setattr", "delattr", "hasattr"})
SUSPICIOUS_ATTRIBUTES = frozenset({
    "__globals__", "__subclasses__", "__builtins__", "__code__", "__closure__", "__bases__",
    "__mro__", "__dict__", "__class__", "f_back", "f_locals", "f_globals", "gi_frame", "tb_frame",
})  # fmt: skip
# Larger files are not audited (the note says so): parsing and walking a file costs the grader
# about 400 times its size in memory (2 MB: 8 s and 0.8 GB); a handout's search.py is kilobytes
MAX_SOURCE_BYTES = 200_000


@dataclass(frozen=True)
class Finding:
    """One thing the audit saw: where, what kind (``import``, ``call``, ``attribute``), the name."""

    line: int
    kind: str
    name: str
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


def _module_finding(node: ast.AST, module: str) -> Finding | None:
    if module in ALLOWED_GRADER_MODULES or module.startswith("grader.games."):
        return None
    top = module.split(".")[0]
    if top in SUSPICIOUS_MODULES or top == "grader":
        return Finding(node.lineno, "import", module, f"imports {module}")
    return None


def _findings(node: ast.AST) -> list[Finding]:
    found: list[Finding] = []
    if isinstance(node, ast.Import):
        found += [_module_finding(node, alias.name) for alias in node.names]
    elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
        found.append(_module_finding(node, node.module))
        if node.module == "grader":  # from grader import tracing
            found += [_module_finding(node, f"grader.{alias.name}") for alias in node.names]
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        name = node.func.id
        if name in SUSPICIOUS_CALLS:
            found.append(Finding(node.lineno, "call", name, f"calls {name}()"))
        elif name in ATTRIBUTE_CALLS and len(node.args) >= 2:
            attribute = node.args[1]
            if isinstance(attribute, ast.Constant) and isinstance(attribute.value, str):
                if attribute.value.startswith("__") and attribute.value.endswith("__"):
                    message = f"calls {name}(..., {attribute.value!r})"
                    found.append(Finding(node.lineno, "call", f"{name}:{attribute.value}", message))
            else:
                message = f"calls {name}() with a computed attribute name"
                found.append(Finding(node.lineno, "call", name, message))
    elif isinstance(node, ast.Attribute) and node.attr in SUSPICIOUS_ATTRIBUTES:
        found.append(Finding(node.lineno, "attribute", node.attr, f"uses .{node.attr}"))
    elif isinstance(node, ast.Name) and node.id == "__builtins__":
        found.append(Finding(node.lineno, "attribute", node.id, "uses __builtins__"))
    return [finding for finding in found if finding is not None]


# ast.parse in two threads at once trips CPython 3.11.7's process-wide recursion counter of the
# AST constructor ("SystemError: AST constructor recursion depth mismatch", python/cpython#106905):
# grades run in threads of one process (a test's pool) must parse one at a time
_PARSING = threading.Lock()


def audit(source_text: str) -> list[Finding]:
    """The findings for ``source_text``, in line order; [] when it does not parse."""
    try:
        with _PARSING:
            tree = ast.parse(source_text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    findings: list[Finding] = []
    for node in ast.walk(tree):  # iterative: no recursion, however deep the source nests
        findings += _findings(node)
    return sorted(set(findings), key=lambda f: (f.line, f.kind, f.name))


def audit_submission(submission: Path) -> dict[str, Any]:
    """``{"findings": [...], "note": str}`` for a ``search.py``, folder or zip; never raises.

    ``note`` is one line for staff ("" when there is nothing to say).
    """
    from grader.errors import SubmissionError
    from grader.sandbox.submission import locate_submission, read_submission

    scratch = Path(tempfile.mkdtemp(prefix="grader-audit-"))
    try:
        path = locate_submission(Path(submission), scratch)
        if path.suffix == ".ipynb":  # its code cells (size capped), as the worker imports them
            from grader.sandbox.notebook import read_notebook

            text: str | None = read_notebook(path).source
        elif path.stat().st_size > MAX_SOURCE_BYTES:
            text = None  # not read: too large to audit
        else:
            text = read_submission(path).decode("utf-8", "replace")  # no link followed
        if text is None or len(text) > MAX_SOURCE_BYTES:
            note = f"audit: search.py is over {MAX_SOURCE_BYTES:,} bytes; not audited"
            return {"findings": [], "note": note}
        findings = audit(text)
    except SubmissionError:  # nothing to audit: every test already says what is missing
        return {"findings": [], "note": ""}
    except Exception as error:  # noqa: BLE001 - the audit only informs; grading goes on
        return {"findings": [], "note": f"audit: could not read the submission ({error})"}
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if not findings:
        return {"findings": [], "note": ""}
    shown = "; ".join(str(finding) for finding in findings[:12])
    more = f"; and {len(findings) - 12} more" if len(findings) > 12 else ""
    return {
        "findings": [asdict(finding) for finding in findings],
        "note": f"audit (not a deduction): search.py {shown}{more}",
    }


def record_audit(submission: Path, results: Any) -> None:
    """Add the audit of ``submission`` to ``results`` (a GradingResults): staff only."""
    report = audit_submission(submission)
    if report["findings"]:
        results.extra_data["audit"] = report["findings"]
    if report["note"]:
        results.staff_notes.append(report["note"])


__all__ = ["Finding", "audit", "audit_submission", "record_audit"]
