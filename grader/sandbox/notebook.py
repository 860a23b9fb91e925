"""A Jupyter or Colab notebook turned into the ``search.py`` the worker imports, in the parent.

The notebook is untrusted input read by the grader's own process, so nothing in it runs here:
it is read as JSON by nbformat (no validation by execution, no kernel), its size and its number
of cells are capped before and after parsing, and only the text of code cells is kept.

Conventions (:func:`convert_notebook`):

* code cells are joined in notebook order, each followed by one blank line; markdown and raw
  cells, outputs and execution counts are ignored;
* cells are numbered as a student counts them in Jupyter or Colab: every cell, from 1 at the
  top, markdown cells included;
* IPython syntax that is not Python is dropped, with a note naming its cell and line: line
  magics (``%matplotlib inline``), shell lines (``!pip install ...``), both of them assigned
  (``files = !ls``), and help lines (``max_value?``). A dropped line becomes ``pass`` at its own
  indentation, so a block whose only line was dropped still parses and every later line keeps
  its number. A cell magic (``%%time``) drops its first line when its body is Python
  (``%%time``, ``%%timeit``, ``%%capture``) and the whole cell otherwise (``%%bash``,
  ``%%writefile``, ...). Lines inside a multi-line string are left alone.
* :meth:`ConvertedNotebook.relabel` turns the worker's ``search.py, line N`` into
  ``search.ipynb, cell C, line L`` in error messages and tracebacks.
* What a refusal quotes (the file's name, nbformat's error, which may quote the file) is made
  inert in Markdown (:func:`~grader.sandbox.submission.quoted`, ``inert``), and the note's file
  name and dropped lines are code spans no backtick inside can close
  (:func:`~grader.sandbox.submission.code`): they reach the results' top-level output as text,
  never as HTML.
"""

from __future__ import annotations

import bisect
import json
import re
import tokenize
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from grader.errors import SubmissionError
from grader.footprint import sha256
from grader.sandbox.submission import code, inert, quoted

MAX_NOTEBOOK_BYTES = 20 * 1024 * 1024  # outputs (plots) make notebooks large; the code is small
MAX_CELLS = 5_000
MAX_SOURCE_BYTES = 1024 * 1024  # the joined code: a handout's search.py is kilobytes
MAX_NOTES = 20  # dropped lines listed one by one; the rest counted
PYTHON_CELL_MAGICS = ("time", "timeit", "capture", "prun")  # %%name whose body is Python

# `x = !cmd`, `x, y = %magic`: what stands before the `=` (stripped); `name?`, `name??`
_ASSIGNED_TO = re.compile(r"[\w.\[\]'\", ]+")
_HELP = re.compile(r"[\w.]+\s*\?{1,2}")


def _ipython_line(text: str) -> bool:
    """Whether ``text`` is a line of IPython syntax: ``%magic``, ``!cmd``, ``?name``,
    ``x = !cmd``, ``x, y = %magic``, ``name?``, ``name??``. In linear time: the one regular
    expression this replaced backtracked cubically on a line of spaces (4,000 of them took
    75 s of the grader's own time, each time the notebook was read)."""
    stripped = text.strip()
    if stripped[:1] in ("%", "!", "?") and stripped:
        return True
    before, equals, after = text.partition("=")
    if equals and after.lstrip()[:1] in ("%", "!"):
        target = before.strip()
        if _ASSIGNED_TO.fullmatch(target) if target else " " in before:
            return True
    return _HELP.fullmatch(stripped) is not None
# The tokens after which the next line starts a new statement (COMMENT: only at bracket depth 0).
_CLOSING = (tokenize.NEWLINE, tokenize.NL, tokenize.COMMENT)
_LINE_REFERENCES = (
    re.compile(r'File "search\.py", line (\d{1,9})\b'),
    re.compile(r"\(search\.py, line (\d{1,9})\)"),
    re.compile(r"search\.py, line (\d{1,9})\b"),
    re.compile(r"search\.py:(\d{1,9})\b"),
)  # (at most 9 digits: int() of 5,000 digits raises, and no notebook has that many lines)


@dataclass(frozen=True)
class CellSpan:
    """One code cell in the joined source: its lines are ``first`` .. ``first + count - 1``."""

    cell: int  # 1-based, every cell counted
    first: int  # 1-based line of the joined source
    count: int


@dataclass
class ConvertedNotebook:
    """The joined source, where each of its lines came from, and what was dropped."""

    name: str  # the notebook's file name, as the student knows it
    source: str
    spans: list[CellSpan] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)  # "cell 3, line 1: `%matplotlib inline`"

    def where(self, line: int) -> str | None:
        """``"cell C, line L"`` for a line of the joined source; None between cells. A binary
        search of the spans (in order of ``first``): a walk of 5,000 cells for each of the
        many line numbers an error text may hold made relabelling quadratic (~8 grader CPU s
        a test)."""
        firsts = self.__dict__.get("_firsts")
        if firsts is None or len(firsts) != len(self.spans):
            firsts = self.__dict__["_firsts"] = [span.first for span in self.spans]
        index = bisect.bisect_right(firsts, line) - 1
        if index < 0:
            return None
        span = self.spans[index]
        if span.first <= line < span.first + span.count:
            return f"cell {span.cell}, line {line - span.first + 1}"
        return None

    def relabel(self, text: str) -> str:
        """``text`` with each ``search.py, line N`` of the joined source named by cell and line."""
        if not text or "search.py" not in text:
            return text

        def named(match: re.Match, pattern: re.Pattern) -> str:
            where = self.where(int(match.group(1)))
            if where is None:
                return match.group(0)
            if pattern is _LINE_REFERENCES[0]:
                return f'File "{self.name}", {where}'
            if pattern is _LINE_REFERENCES[1]:
                return f"({self.name}, {where})"
            return f"{self.name}, {where}"

        for pattern in _LINE_REFERENCES:
            text = pattern.sub(lambda match, p=pattern: named(match, p), text)
        return text

    @property
    def note(self) -> str:
        """Markdown for the student: what was graded, and which lines were left out."""
        cells = len(self.spans)
        graded = (f"{code(self.name)} was graded as the Python of its {cells} code "
                  f"cell{'s' if cells != 1 else ''}, joined in order into `search.py`; errors "
                  "name the cell (counting every cell from the top) and the line in it.")
        if not self.dropped:
            return graded
        shown = "\n".join(f"- {line}" for line in self.dropped[:MAX_NOTES])
        more = len(self.dropped) - MAX_NOTES
        more_line = f"\n- and {more} more" if more > 0 else ""
        return (f"{graded} These lines are IPython or shell commands, not Python, and were "
                f"left out:\n{shown}{more_line}")


def read_notebook(path: Path) -> ConvertedNotebook:
    """The notebook at ``path`` converted; :class:`SubmissionError` naming what is wrong."""
    path = Path(path)
    try:
        with open(path, "rb") as stream:
            data = stream.read(MAX_NOTEBOOK_BYTES + 1)
    except OSError as error:
        raise SubmissionError(f"{quoted(path.name)} could not be read: {error.strerror}") from None
    if len(data) > MAX_NOTEBOOK_BYTES:
        raise SubmissionError(
            f"{quoted(path.name)} is over {MAX_NOTEBOOK_BYTES // (1024 * 1024)} MB; clear its "
            "outputs (Edit > Clear all outputs) and submit it again"
        )
    return convert_notebook(data, path.name)


# The last notebook converted (or the error it gave), by its bytes' digest and name: a worker
# starts afresh after each crash or time-out, and a 19 MB notebook cost ~10 CPU s a start.
# Two grading threads restarting their workers at once may each convert it (the same result):
# one get, then clear() and one set, never iterated.
_CONVERTED: dict[tuple[bytes, str], ConvertedNotebook | SubmissionError] = {}


def convert_notebook(data: bytes, name: str = "search.ipynb") -> ConvertedNotebook:
    """The code cells of the notebook text ``data`` joined into one Python source (see the module
    docstring for the conventions). Raises :class:`SubmissionError` for what is not a notebook.
    Converted once however often it is asked (the last notebook's result is kept)."""
    key = (sha256(data).digest(), name)
    found = _CONVERTED.get(key)
    if found is None:
        try:
            found = _convert_notebook(data, name)
        except SubmissionError as error:
            found = error
        _CONVERTED.clear()
        _CONVERTED[key] = found
    if isinstance(found, SubmissionError):
        raise SubmissionError(str(found)) from None
    return found


def _convert_notebook(data: bytes, name: str) -> ConvertedNotebook:
    import nbformat  # here: only a notebook submission needs it

    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise SubmissionError(
            f"{quoted(name)} is not a notebook: expected UTF-8 JSON text, "
            f"got a byte {data[error.start]:#x} at offset {error.start}"
        ) from None
    text = _without_outputs(text, name)
    try:
        with warnings.catch_warnings():  # a missing cell id and the like: not the student's concern
            warnings.simplefilter("ignore")
            notebook = nbformat.reads(text, as_version=4)
    except RecursionError:
        raise SubmissionError(f"{quoted(name)} is not a notebook: its JSON nests too deeply") from None
    except Exception as error:  # noqa: BLE001 - nbformat raises many kinds for bad input
        detail = str(error).splitlines()[0] if str(error) else type(error).__name__
        detail = inert(detail[:300])  # it may quote the file: "Unsupported nbformat version <img>"
        raise SubmissionError(
            f"{quoted(name)} is not a readable Jupyter notebook: {detail}"
        ) from None
    cells = notebook.get("cells") if isinstance(notebook, dict) else None
    if not isinstance(cells, list):
        raise SubmissionError(
            f"{quoted(name)} is not a notebook: expected a list of cells, found none")
    if len(cells) > MAX_CELLS:
        raise SubmissionError(
            f"{quoted(name)} has {len(cells)} cells; the grader reads at most {MAX_CELLS}")
    converted = ConvertedNotebook(name=name, source="")
    parts: list[str] = []
    line = 1
    for number, cell in enumerate(cells, start=1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        if isinstance(source, list):  # nbformat joins these; a hand-made file may not
            source = "".join(part for part in source if isinstance(part, str))
        if not isinstance(source, str):
            raise SubmissionError(
                f"{quoted(name)}, cell {number}: expected the cell's source as text, "
                f"got: {type(source).__name__}"
            )
        try:  # JSON may escape what no text holds: a lone surrogate ("\\ud800") made the grader fail
            source.encode("utf-8")
        except UnicodeEncodeError as error:
            line_number = source.count("\n", 0, error.start) + 1
            raise SubmissionError(
                f"{quoted(name)}, cell {number}, line {line_number}: holds the character "
                f"U+{ord(source[error.start]):04X}, half of a UTF-16 pair, which is not text; "
                "delete it and submit again"
            ) from None
        lines = _python_lines(source.replace("\r\n", "\n").replace("\r", "\n"), number, converted)
        if not lines:
            continue
        parts.append("\n".join(lines) + "\n\n")
        converted.spans.append(CellSpan(number, line, len(lines)))
        line += len(lines) + 1
    converted.source = "".join(parts)
    if len(converted.source.encode()) > MAX_SOURCE_BYTES:
        raise SubmissionError(
            f"{quoted(name)} holds {len(converted.source.encode()):,} bytes of code; the grader reads at "
            f"most {MAX_SOURCE_BYTES:,}"
        )
    return converted


def _without_outputs(text: str, name: str) -> str:
    """``text`` with the cells' outputs and attachments emptied, and its cells counted, before
    nbformat reads it: nbformat validates every output it is given (a notebook of 5,000 cells
    of small outputs took 8 s of the grader's time, at each worker start), and none is ever
    used. Text that is not a JSON notebook of version 4 is left for nbformat to refuse."""
    try:
        data = json.loads(text)
    except RecursionError:
        raise SubmissionError(f"{quoted(name)} is not a notebook: its JSON nests too deeply") from None
    except ValueError:
        return text  # nbformat says what is wrong
    cells = data.get("cells") if isinstance(data, dict) else None
    if not isinstance(cells, list):
        return text
    if len(cells) > MAX_CELLS:
        raise SubmissionError(
            f"{quoted(name)} has {len(cells)} cells; the grader reads at most {MAX_CELLS}")
    for cell in cells:
        if isinstance(cell, dict):
            if "outputs" in cell:
                cell["outputs"] = []
            cell.pop("attachments", None)
    return json.dumps(data)


def _python_lines(source: str, cell: int, converted: ConvertedNotebook) -> list[str]:
    """The cell's lines with IPython syntax dropped (each one noted in ``converted.dropped``)."""
    lines = source.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not lines:
        return []

    def drop(index: int, whole: str = "") -> None:
        shown = lines[index].strip()
        shown = shown if len(shown) <= 80 else shown[:77] + "..."
        converted.dropped.append(f"cell {cell}, line {index + 1}: {code(shown)}{whole}")

    first = lines[0].strip()
    if first.startswith("%%"):
        magic = first[2:].split(maxsplit=1)[0] if first[2:].strip() else ""
        if magic not in PYTHON_CELL_MAGICS:
            drop(0, " (the whole cell: its body is not Python)")
            return ["pass"] + ["" for _ in lines[1:]]
        drop(0)
        lines[0] = "pass"
    candidates = {i for i, text in enumerate(lines) if _ipython_line(text) and not
                  text.strip().startswith("%%")}
    if not candidates:
        return lines
    for index in sorted(_statement_starts(lines, candidates)):
        drop(index)
        text = lines[index]
        lines[index] = text[: len(text) - len(text.lstrip())] + "pass"
    return lines


def _statement_starts(lines: list[str], candidates: set[int]) -> set[int]:
    """The candidates that start a statement: not inside a string, brackets or a ``\\`` line.

    The lines are fed to the tokenizer one at a time; when it asks for a candidate line, the
    tokens so far say whether a statement is still open. A candidate found to start one is fed
    as ``pass``, so what follows tokenizes as the worker will compile it. Nothing is executed.
    """
    starts: set[int] = set()
    fed: list[str] = []
    state = {"last": None, "depth": 0}

    def readline() -> str:
        index = len(fed)
        if index >= len(lines):
            return ""
        text = lines[index]
        last = state["last"]
        opened = last is not None and (state["depth"] > 0 or last not in _CLOSING)
        if index in candidates and not opened:
            starts.add(index)
            text = text[: len(text) - len(text.lstrip())] + "pass"
        fed.append(text)
        return text + "\n"

    try:
        for token in tokenize.generate_tokens(readline):
            if token.type == tokenize.OP and token.string in "([{":
                state["depth"] += 1
            elif token.type == tokenize.OP and token.string in ")]}":
                state["depth"] = max(0, state["depth"] - 1)
            if token.type not in (tokenize.INDENT, tokenize.DEDENT):
                state["last"] = token.type
    except (tokenize.TokenError, IndentationError, SyntaxError):
        # The worker reports the syntax error by cell and line; lines past it are judged alone.
        starts.update(index for index in candidates if index >= len(fed))
    return starts


def relabel_reply(reply, notebook: ConvertedNotebook | None):
    """``reply`` (a WorkerReply) with its messages' lines named by cell; as is without a
    notebook."""
    if notebook is None:
        return reply
    if reply.error:
        reply.error = {key: notebook.relabel(value) if isinstance(value, str) else value
                       for key, value in reply.error.items()}
    if reply.message:
        reply.message = notebook.relabel(reply.message)
    return reply


__all__ = [
    "MAX_NOTEBOOK_BYTES", "ConvertedNotebook", "convert_notebook", "read_notebook",
    "relabel_reply",
]
