"""What went wrong in the worker, as data for the parent: an exception as type, message and the
traceback of the submission's own frames (with a word on what the sandbox refused), and the
check that student code left the grader's own functions alone (:func:`tampered`).

Everything here runs in the worker, next to student code; the messages are for honest mistakes.
The parent trusts none of it.
"""

from __future__ import annotations

import sys
import traceback
from itertools import chain
from operator import attrgetter, is_, itemgetter
from types import FunctionType, ModuleType
from typing import Any


RECURSION_FRAMES = 12  # a RecursionError's traceback: its first frames of search.py only


class SandboxViolation(Exception):
    """Student code changed the grader's code inside the worker (reported, never raised)."""


def safe_str(value: Any, limit: int = 2000) -> str:
    try:
        text = str(value)
        text = str.__str__(text) if isinstance(text, str) else ""
    except BaseException:  # noqa: BLE001 - a student's __str__ may do anything
        text = "<the message could not be shown>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def error_data(exc: BaseException, path: str) -> dict[str, str]:
    """type, message and a traceback of the submission's own frames only."""
    kind = safe_str(type(exc).__name__, 100)  # a class may be named with 49,000 characters
    if isinstance(exc, SystemExit):
        code = "" if exc.code is None else safe_str(exc.code, 200)
        message = f"search.py called sys.exit({code})"
    elif isinstance(exc, MemoryError):
        message = safe_str(exc) or "out of memory (the worker's memory limit was reached)"
    else:
        message = safe_str(exc) or f"search.py raised {kind}"
        message += sandbox_hint(exc)
    tb = exc.__traceback__
    traceback.clear_frames(tb)  # drop the locals (a memory bomb's list) before formatting
    frames = [
        traceback.FrameSummary("search.py", frame.lineno, frame.name, line=frame.line)
        for frame in traceback.extract_tb(tb)
        if frame.filename == path
    ]
    if isinstance(exc, RecursionError) and len(frames) > RECURSION_FRAMES:
        # how many frames fit under the limit differs between Python versions (3.12 counts
        # them differently), so a fixed number is shown: the same text on every version
        frames = frames[:RECURSION_FRAMES]
        cut = "  ... (the calls went on like this until Python's recursion limit)\n"
    else:
        cut = ""
    if isinstance(exc, SyntaxError) and exc.filename == path:
        exc.filename = "search.py"
        text = "".join(traceback.format_exception_only(type(exc), exc))
    else:
        text = "".join(traceback.format_list(frames)) + cut
        text = (
            "Traceback (most recent call last):\n" + text if text else ""
        ) + f"{kind}: {message}\n"
    return {"type": kind, "message": message, "traceback": text}


def sandbox_hint(exc: BaseException) -> str:
    """What the sandbox refused, for the errors its limits cause."""
    if isinstance(exc, PermissionError):
        return (" (search.py tried to reach something outside the sandbox: it may read and write "
                "only its own scratch folder, use no network and signal no other process)")
    if isinstance(exc, BlockingIOError) or (
        isinstance(exc, RuntimeError) and "thread" in safe_str(exc)
    ):
        return " (search.py tried to start a process or a thread: the sandbox allows neither)"
    return ""


def grader_error_reply(exc: BaseException) -> dict[str, Any]:
    return {
        "event": "reply",
        "status": "grader_error",
        "error": {
            "type": type(exc).__name__,
            "message": safe_str(exc),
            "traceback": traceback.format_exc(),
        },
    }


# Names whose replacement by student code makes a result meaningless: the worker itself, the
# grader's modules it loaded (the tracing game), and what the worker's checks rely on.
GUARDED_MODULES = ("__main__", "builtins", "time", "signal", "json", "socket", "timeout_decorator",
                   "timeout_decorator.timeout_decorator")  # fmt: skip


# Names Python itself adds to a class or module the first time it is asked (copy's
# ``__slotnames__`` when an instance is copied, ``__annotations__`` when read, the warnings
# module's ``__warningregistry__``; and a submodule, once imported, on its package): none
# changes what the grader's code does.
PYTHON_CACHES = frozenset({"__slotnames__", "__annotations__", "__warningregistry__"})


# A type with this flag (Py_TPFLAGS_IMMUTABLETYPE, Python 3.10+: the built-in types, ``int``,
# ``list``, ``dict``...) refuses ``setattr``: Python code cannot replace its members, so they
# are not compared (800 of the worker's 1,800 places, each compared after every request)
_IMMUTABLE_TYPE = 1 << 8


class Snapshot(dict):
    """:func:`guarded_objects`' names and objects, and where each was found (the live module,
    class or ``sys.modules`` mapping, and its key), so :func:`tampered` looks each up once
    instead of walking every module again (a walk a request cost about 1 ms)."""

    places: list[tuple[Any, str, Any, str]]
    # each guarded module's and class's namespace (its live ``vars``), its names then, a getter
    # of them all (a KeyError once one is deleted) and its qualified name: a name *added*
    # shadows what it inherits (``ConnectFour.recording_result`` over GridGame's, a module's
    # ``len`` over the builtin) without replacing any place above; the same number of names,
    # none deleted, is the same names (a check of about 200 namespaces in C loops, 10 us)
    namespaces: list[tuple[Any, frozenset[str], Any, str]]
    # the guarded classes, their ``__bases__`` then and their names (a class given other bases
    # inherits other methods); the guarded functions, their code, defaults and keyword
    # defaults then, and their names (a function whose ``__code__`` is swapped is another
    # function by the same object)
    lineage: tuple[tuple[type, ...], tuple[Any, ...], tuple[str, ...]]
    # parts: the codes, then the defaults, then the keyword defaults, each in functions' order
    functions: tuple[tuple[Any, ...], tuple[tuple[Any, ...], ...], tuple[str, ...]]
    # the places by mapping, for a check in C loops (:func:`tampered`: every call of a batch of
    # positions makes one; ``mappingproxy.get`` looks its method up each call, a subscript
    # does not): the mappings, a getter of each one's keys' objects as a tuple, and the
    # objects found there, all the mappings' one after another
    groups: tuple[tuple[Any, ...], tuple[Any, ...], tuple[Any, ...]]


def guarded_objects() -> Snapshot:
    """Every function and class (and class member) of the guarded modules, by qualified name."""
    seen = Snapshot()
    places = seen.places = []
    namespaces = seen.namespaces = []
    kinds: list[tuple[type, str]] = []
    modules = sys.modules
    for name, module in list(modules.items()):
        if name not in GUARDED_MODULES and name.split(".")[0] != "grader":
            continue
        seen[f"sys.modules[{name!r}]"] = module
        places.append((modules, name, module, f"sys.modules[{name!r}]"))
        names = vars(module)
        if name != "builtins":  # a student's new builtin shadows nothing of the grader's
            namespaces.append((names, frozenset(names), _getter_of(names), name))
        for key, value in list(names.items()):
            if not (callable(value) and not key.startswith("__")):
                continue
            seen[f"{name}.{key}"] = value
            places.append((names, key, value, f"{name}.{key}"))
            if isinstance(value, type) and value.__module__ == name:
                members = vars(value)  # a live view: a member replaced later shows in it
                if name != "builtins":  # built-in classes cannot gain or lose members
                    namespaces.append((members, frozenset(members), _getter_of(members),
                                       f"{name}.{key}"))
                    kinds.append((value, f"{name}.{key}"))
                if value.__flags__ & _IMMUTABLE_TYPE:
                    continue  # its members stay its own (_IMMUTABLE_TYPE)
                for member, item in list(members.items()):
                    if callable(item) or isinstance(item, (staticmethod, classmethod, property)):
                        seen[f"{name}.{key}.{member}"] = item
                        places.append((members, member, item, f"{name}.{key}.{member}"))
    functions = [(value, name) for _, _, value, name in places if type(value) is FunctionType]
    # a function's keyword defaults are a dict, changed in place without replacing it (json.dumps'
    # ``cls``, the worker's encoder, given the submission's): each entry a place of its own
    keyword_defaults: dict[int, tuple[dict[str, Any], str]] = {}  # by id: one a dict, first name
    for function, name in functions:
        defaults = function.__kwdefaults__
        if defaults:
            keyword_defaults.setdefault(id(defaults), (defaults, name))
    for defaults, name in keyword_defaults.values():
        places += [(defaults, key, value, f"{name}.__kwdefaults__[{key!r}]")
                   for key, value in defaults.items()]
    by_mapping: dict[int, tuple[Any, list[str], list[Any]]] = {}
    for mapping, key, value, _ in places:
        _, keys, values = by_mapping.setdefault(id(mapping), (mapping, [], []))
        keys.append(key)
        values.append(value)
    groups = [(mapping, itemgetter(*keys, keys[0]), (*values, values[0]))  # a tuple, one
              for mapping, keys, values in by_mapping.values()]  # key or more
    seen.lineage = (tuple(kind for kind, _ in kinds), tuple(kind.__bases__ for kind, _ in kinds),
                    tuple(name for _, name in kinds))
    seen.functions = (tuple(f for f, _ in functions),
                      tuple(tuple(map(get, (f for f, _ in functions))) for get in _PART_GETTERS),
                      tuple(name for _, name in functions))
    seen.groups = (tuple(mapping for mapping, _, _ in groups),
                   tuple(getter for _, getter, _ in groups),
                   tuple(value for _, _, values in groups for value in values))
    return seen


def _getter_of(names: Any) -> Any:
    """A getter of the ``names`` of a mapping, as a tuple (the first twice: a tuple even of one
    name); a KeyError when one is missing."""
    return itemgetter(*names, next(iter(names)))


_GET = itemgetter.__call__  # a getter applied to its mapping, as map() calls it
_MISSING = object()  # what a deleted place holds
_BASES = attrgetter("__bases__")
_PART_NAMES = ("__code__", "__defaults__", "__kwdefaults__")
# a getter a part: each part compared over every function in one C loop (a tuple of the three
# parts a function, chained, took 1.5 times as long: a check a request, 300 requests a grade)
_PART_GETTERS = tuple(map(attrgetter, _PART_NAMES))


def _same_code(snapshot: Any) -> bool:
    """Whether every guarded class has its bases and every guarded function its code and
    defaults (:attr:`Snapshot.lineage`, :attr:`Snapshot.functions`), in C loops. By identity,
    never ``==``: an equality test would call the ``__eq__`` of whatever the submission put in
    a function's defaults, its own code run here, outside the call's guard, free to answer
    "equal" (tests/hostile: ``defaults_equal_to_anything``)."""
    kinds, bases, _ = snapshot.lineage
    functions, parts, _ = snapshot.functions
    return all(map(is_, map(_BASES, kinds), bases)) and all(
        all(map(is_, map(get, functions), then)) for get, then in zip(_PART_GETTERS, parts))


def _unmoved(groups: tuple[tuple[Any, ...], tuple[Any, ...], tuple[Any, ...]]) -> bool:
    """Whether every place of :attr:`Snapshot.groups` holds the object it held: every
    mapping's objects read and compared by identity in one pass of C loops (no Python frame
    a mapping: 12% fewer instructions than a generator over the mappings)."""
    mappings, getters, values = groups
    try:
        return all(map(is_, chain.from_iterable(map(_GET, getters, mappings)), values))
    except (KeyError, TypeError):  # a name deleted, a mapping replaced: the long way says
        return False


def _same_names(namespaces: list[tuple[Any, frozenset[str], Any, str]]) -> bool:
    """Whether every namespace of :attr:`Snapshot.namespaces` has the names it had."""
    try:
        return all(len(members) == len(names) and get(members)
                   for members, names, get, _ in namespaces)
    except KeyError:  # a name deleted
        return False


def tampered(snapshot: dict[str, Any]) -> list[str]:
    """The names of ``snapshot`` now bound to something else (first few).

    Each object is looked up where it was found; any change along a name's path (a module in
    ``sys.modules``, a name in a module, a member of a class) is a change of some place; a
    guarded module or class must have the same names (one added would shadow what it
    inherits: ``ConnectFour.recording_result`` over ``GridGame``'s), a class the same bases
    and a function the same code and defaults (:class:`Snapshot`)."""
    places = getattr(snapshot, "places", None)
    groups = getattr(snapshot, "groups", None)
    namespaces = getattr(snapshot, "namespaces", [])
    lineage = getattr(snapshot, "lineage", None)
    if groups is not None and _unmoved(groups) and _same_names(namespaces) and \
            (lineage is None or _same_code(snapshot)):
        return []  # nothing moved (about 10 times quicker than the loops below, which name)
    if places is None:  # a plain mapping of names: walk the modules again
        current = guarded_objects()
        changed = [name for name, value in snapshot.items() if current.get(name) is not value]
    else:
        changed = [name for mapping, key, value, name in places
                   if mapping.get(key, _MISSING) is not value]  # a None default deleted too
    for place, (members, names, _, name) in enumerate(namespaces):
        now = set(members)
        cached = {member for member in now - names if member in PYTHON_CACHES
                  or isinstance(members[member], ModuleType)}  # a submodule imported since
        if cached:  # Python's own, not the student's: kept from now on, so the fast path holds
            names = names | cached
            namespaces[place] = (members, names, _getter_of(names), name)
        changed += [f"{name}.{member} (added)" for member in sorted(now - names)]
        changed += [f"{name}.{member} (deleted)" for member in sorted(names - now)
                    if f"{name}.{member}" not in changed]  # a place deleted is named already
    if lineage is not None:
        changed += [f"{name}.__bases__" for kind, bases, name in zip(*lineage)
                    if kind.__bases__ is not bases]
        functions, parts, names = snapshot.functions
        for index, (function, name) in enumerate(zip(functions, names)):  # as _same_code does
            changed += [f"{name}.{part}" for part, get, then
                        in zip(_PART_NAMES, _PART_GETTERS, parts)
                        if get(function) is not then[index]]
    return [name.replace("__main__", "grader.sandbox.worker") for name in changed[:5]]
