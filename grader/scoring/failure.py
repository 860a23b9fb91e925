"""What the student sees when their code gave no answer: the failure's outcome and message,
and what it printed. Shared by the trace tests (:mod:`.pair`) and the play tests (:mod:`.play`).
"""

from __future__ import annotations

from typing import Any

from grader.feedback.markdown import code_name, fenced, inline_text
from grader.sandbox.protocol import WorkerReply
from grader.scoring.results import UPLOAD_ERROR, TestResult

NOT_IMPLEMENTED = "NotImplementedError"
# Import errors that mean the upload is not a Python program at all (SubmissionError: a notebook
# that cannot be read or converted): no line of it ran.
UNREADABLE_UPLOAD = ("SyntaxError", "IndentationError", "TabError", "SubmissionError")

# ``TestResult.extra_data`` key: ``{"status": the worker's reply status ("import_error",
# "timeout", "crashed", ...), "error": its exception's type ("MemoryError", ...)}`` for a test
# whose code gave no answer (:func:`note_failure`); staff data, read by the class report.
FAILURE = "failure"

SANDBOX_ERRORS = ("OutputLimitExceeded", "SandboxViolation", "ScratchLimitExceeded",
                  "RestartLimitExceeded")


def failure_outcome(reply: WorkerReply) -> tuple[str, str]:
    """(outcome, Markdown message) for a reply that carries no answer.

    The function's name and the worker's messages may be forged (code in search.py can write
    on the grader's channel): shown only as an identifier and as inert text (:func:`code_name`,
    :func:`inline_text`), never as Markdown of the student's making."""
    error = reply.error or {}
    function = code_name(reply.function)
    if reply.status == "error" and error.get("type") == NOT_IMPLEMENTED:
        return "not_implemented", f"{function} is not implemented yet (it raises NotImplementedError)."
    if reply.status == "missing_function":
        return "missing", f"`search.py` has no function {function}; the grader calls it by that name."
    if reply.status == "import_error":
        return "error", "`search.py` could not be imported, so nothing in it could be graded:\n" + _error_block(error)
    if reply.status in ("timeout", "killed_timeout"):
        # Never "does not prune": a search still calling the game meets its budget, not this.
        return "timeout", (
            f"{code_name(reply.function, '`search.py`')} was stopped by the time limit: "
            f"{inline_text(reply.message)}."
        )
    if reply.status == "crashed":
        return "crashed", f"The process running {function} died: {inline_text(reply.message)}."
    if error.get("type") in SANDBOX_ERRORS:  # the sandbox stopped it: its message says why
        return "error", f"{function} failed: {inline_text(error.get('message', ''))}."
    return "error", f"{function} raised an exception:\n" + _error_block(error)


def note_failure(result: TestResult, reply: WorkerReply) -> None:
    """Record in ``result.extra_data`` how the student's code failed (:data:`FAILURE`: the
    reply's status and its error's type, what the class report's run health counts) and, when
    ``reply`` says the upload is not a Python program, why (:data:`UPLOAD_ERROR`). The text is
    the worker's, so a submission may forge it (the worst it gets is a format error or another
    health row for itself): kept as plain text, cut short."""
    error = reply.error or {}
    result.extra_data[FAILURE] = {"status": str(reply.status)[:40],
                                  "error": str(error.get("type") or "")[:80]}
    if reply.status == "import_error" and error.get("type") in UNREADABLE_UPLOAD:
        kind = "" if error["type"] == "SubmissionError" else f"{error['type']}: "
        result.extra_data[UPLOAD_ERROR] = f"{kind}{error.get('message', '')}"[:500]


def _error_block(error: dict[str, Any]) -> str:
    text = error.get("traceback") or f"{error.get('type', 'Error')}: {error.get('message', '')}"
    return fenced(text.rstrip())


def printed_output(reply: WorkerReply) -> str:
    printed = (reply.stdout or "") + (reply.stderr or "")
    if not printed.strip():
        return ""
    return "\nYour code printed:\n" + fenced(printed.rstrip()[-2000:])
