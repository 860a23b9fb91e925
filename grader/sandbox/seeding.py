"""The worker's global ``random``: seeded before every call, the seeding done on first use.

Every call the worker makes seeds the global generator first (a search with ``0``, an
evaluation with ``"<seed>:<state id>"``: :mod:`grader.run.evaluation`), so code that uses
``random`` gives the same answer in every run and the grader may cache values by position.
Seeding is most of a position's cost in the worker (``random.seed`` of a string hashes it and
fills the generator's 624-word state: about 40k of the 75k instructions the worker spends on a
position of the correct solution), and most evaluations never draw a number.

So the worker replaces the ``random`` module's generator, before the submission is imported,
with a :class:`DeferredRandom`: :meth:`DeferredRandom.defer_seed` only records the seed, and
the first draw, ``getstate`` or ``seed`` after it seeds first. What any code sees is exactly
what an eager ``random.seed`` would have given: the same numbers, the same state, ``gauss``'s
cached value dropped as ``seed`` drops it.

Every function of the module bound to its generator (``random.random``, ``random.choice``, ...,
all bound to one instance, as ``random.py`` binds them) is rebound to the replacement, so
``from random import choice`` in the submission gets the deferred one too. Instances a
submission makes itself (``random.Random(7)``) are untouched. Only code that calls the base
class on the module's generator itself (``random.Random.random(random._inst)``) reads it
before a waiting seed is applied: no search needs that, and what it reads is its own.
"""

from __future__ import annotations

import random as random_module
from typing import Any

_UNSET = object()  # no seed waiting


class DeferredRandom(random_module.Random):
    """``random.Random`` whose :meth:`defer_seed` takes effect at the next use.

    Every way to the generator's state goes through :meth:`random`, :meth:`getrandbits`,
    :meth:`getstate`, :meth:`setstate` or :meth:`seed` (``Random``'s other methods are written
    on the first two; overriding ``getrandbits`` keeps ``Random``'s own ``_randbelow``, so the
    numbers are the same), and each settles a waiting seed first."""

    _waiting: Any = _UNSET

    def defer_seed(self, seed: Any) -> None:
        """``seed(seed)`` as of the next use. ``gauss``'s cached second value goes now, as
        ``seed`` would drop it."""
        self._waiting = seed
        self.gauss_next = None

    def _settle(self) -> None:
        waiting, self._waiting = self._waiting, _UNSET
        super().seed(waiting)

    def seed(self, a: Any = None, version: int = 2) -> None:
        super().seed(a, version)
        self._waiting = _UNSET  # only once seeded: a seed that raises leaves the one waiting

    def random(self) -> float:
        if self._waiting is not _UNSET:
            self._settle()
        return super().random()

    def getrandbits(self, k: int) -> int:
        if self._waiting is not _UNSET:
            self._settle()
        return super().getrandbits(k)

    def getstate(self) -> Any:
        if self._waiting is not _UNSET:
            self._settle()
        return super().getstate()

    def setstate(self, state: Any) -> None:
        super().setstate(state)
        self._waiting = _UNSET  # as seed


def install_deferred_random() -> DeferredRandom:
    """Replace the ``random`` module's generator with a :class:`DeferredRandom` (its state
    carried over) and rebind the module's functions to it; returns it. Call before the
    submission is imported."""
    old = random_module._inst  # noqa: SLF001 - the module's own generator, replaced whole
    deferred = DeferredRandom()
    deferred.setstate(old.getstate())
    for name in dir(random_module):
        function = getattr(random_module, name)
        if getattr(function, "__self__", None) is old:
            setattr(random_module, name, getattr(deferred, name))
    random_module._inst = deferred  # noqa: SLF001
    return deferred


__all__ = ["DeferredRandom", "install_deferred_random"]
