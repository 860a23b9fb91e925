"""The grader's own memory: SHA-256 without OpenSSL, and glibc's mmap threshold held fixed.

:data:`sha256`: ``import hashlib`` loads OpenSSL's libcrypto (3.6 MB of the grader's resident memory, a
fifteenth of its peak) for what the grader hashes: case contents, traces and notebooks, a few
kilobytes a grade. CPython's built-in ``_sha256`` (3.10, 3.11; ``_sha2`` from 3.12) gives the
same digests; where neither exists, hashlib's.
"""

from __future__ import annotations

try:
    from _sha256 import sha256  # type: ignore[import-not-found]  (CPython 3.10, 3.11)
except ImportError:  # pragma: no cover - the Python of the day decides
    try:
        from _sha2 import sha256  # type: ignore[import-not-found,no-redef]  (CPython 3.12+)
    except ImportError:
        from hashlib import sha256  # type: ignore[assignment,no-redef]

M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter (malloc.h)
MMAP_THRESHOLD = 128 * 1024  # glibc's default: a block this large or more is its own mapping


def fix_mmap_threshold() -> bool:
    """Hold glibc's mmap threshold at its default, 128 KiB (where it applies; True when it
    was set). glibc raises the threshold to the size of any mapped block freed, up to 32 MiB:
    after the first few-megabyte list a grade frees (the answer key's packed trace, a play
    case's position memo), later traces of that size come from the heap, where a few small
    objects left above them keep the heap from shrinking, and each long trace grows the
    process anew. Held fixed, every long list is mapped and given back when freed: with the
    play cases' games dropped, ``grader grade --hidden`` peaked at 71 MB with it and 125 MB
    without (docs/benchmarks.md, Peak memory). Setting it turns off that adjustment only;
    small blocks are served as before."""
    try:
        import ctypes

        return bool(ctypes.CDLL(None).mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD))
    except (AttributeError, OSError, TypeError):  # not glibc (macOS, musl...): nothing to do
        return False


def release_free_memory() -> bool:
    """Give the free pages inside glibc's heap back to the system (``malloc_trim(0)``; True
    where it ran). After a play case's game is dropped (:func:`grader.scoring.play.forget_game`)
    its memos' memory is free but scattered among what the grade keeps; the next long trace
    then starts from 2.5 MB less resident (bench/memory.py). A few milliseconds."""
    try:
        import ctypes

        ctypes.CDLL(None).malloc_trim(0)
        return True
    except (AttributeError, OSError, TypeError):  # not glibc: nothing to do
        return False


__all__ = ["fix_mmap_threshold", "release_free_memory", "sha256"]
