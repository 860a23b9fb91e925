"""Known mistakes: small variants of the reference, each with the hint a student can act on.

Staff-only, like the rest of ``reference/``. The feedback (:mod:`grader.feedback.diagnosis`) runs every
variant of an algorithm on every graded case, in the grader's process; a variant's hint is shown
only when it reproduces what the student's code did on every case of that algorithm, the passing
ones included (:mod:`grader.feedback.verdict`). A hint says what the code does, which line of
the lecture pseudo-code it departs from (in words), and what to change.

The catalogue is :mod:`reference.mistake_registry`'s; the variants are in
:mod:`reference.mistakes_minimax` (minimax, alpha-beta), :mod:`reference.mistakes_other`
(expectimax, max^n, MCTS), :mod:`reference.mistakes_deepening` (iterative deepening),
:mod:`reference.mistakes_transposition` (the transposition table) and
:mod:`reference.mistakes_quiescence` (quiescence search), registered when this module imports them. Adding a mistake is one
decorated function in one of those, with the signature of the stub it replaces
(``alpha_beta`` variants also take ``strict``, the course's rule; a ``minimax`` variant
replaces both ``max_value`` and ``min_value`` and dispatches on the player itself), the
algorithm named by its spec (``from grader.algorithms.alpha_beta import ALGORITHM as
ALPHA_BETA``)::

    @mistake("never_prunes", ALPHA_BETA.name, title="never prunes",
             does="...", departs="...", fix="...")
    def _never_prunes(game, state, alpha=-math.inf, beta=math.inf, depth=0, *, strict=False):
        return _ab(game, state, alpha, beta, depth, strict, cut=False)

``rules`` limits a variant to the courses whose rule makes it a mistake (pruning on strict
inequality is the right answer where the course teaches it). ``forms`` adds other codings of
the same mistake, the ones its hint's "What to change" fixes too (a table keyed on the path, or
on the key and the depth); the mistake is named when one coding gives the student's run on
every graded case, its value, traces and observable state (a transposition table's summary),
so a coding is added for a class a hint already describes, never for one student's code.
Variants that share a core (``_mm``, ``_ab``, ``_mcts_variant``, ...) switch one mistake on
with a flag, so each registration stays a few lines.
"""

from __future__ import annotations

import grader.algorithms as algorithm_specs
from reference.mistake_registry import CATALOGUE, RULES, STUBS, Mistake, mistake, mistakes_for

# Importing the variant modules registers their mistakes in the catalogue: each algorithm's spec
# names its module (grader.algorithms), so a registered algorithm's mistakes come in too.
for _module in dict.fromkeys(spec.mistakes for spec in algorithm_specs.registry().values()
                             if spec.mistakes):
    algorithm_specs.resolve(_module)

__all__ = ["CATALOGUE", "RULES", "STUBS", "Mistake", "mistake",
           "mistakes_for"]
