"""What an ``iterative_deepening`` test adds to its feedback: the nodes move ordering saves.

For each iteration ``limit = 1 .. max_depth`` the reference's iterative deepening (root
ordering, :mod:`reference.deepening`) and the same iterations without ordering (every
iteration in ``game.actions`` order) are counted in generated nodes; the report shows both
per iteration, the total saved, and how many the student's search generated. The counts go
through :meth:`AnswerKey.extra` (``deepening:<rule>``), so the handout's key carries them
and ``grader check`` shows them without ``reference/``.
"""

from __future__ import annotations

from typing import Any

from grader.errors import GraderError
from grader.feedback.failure import wrap
from grader.run.tracing import traced


def _count(search: Any, game: Any, max_depth: int, strict: bool) -> int:
    wrapper, trace = traced(game)
    search(wrapper, game.initial_state(), max_depth, strict=strict)
    return len(trace.generated)


def ordering_counts(case: Any, rule: str, answers: Any) -> dict[str, list[int]] | None:
    """``{"ordered": [...], "unordered": [...]}``: nodes generated in each iteration with and
    without root ordering (cached in ``answers``); None without the key's entry."""

    def compute() -> dict[str, list[int]]:
        from reference.deepening import iterative_deepening, unordered

        game = case.build_game()
        strict = rule == "strict"
        counts: dict[str, list[int]] = {"ordered": [], "unordered": []}
        for name, search in (("ordered", iterative_deepening), ("unordered", unordered)):
            # The iterations up to d are the same whatever max_depth follows: count the runs
            # with max_depth 1, 2, ... and take differences.
            totals = [_count(search, game, depth, strict)
                      for depth in range(1, game.depth_limit + 1)]
            counts[name] = [b - a for a, b in zip([0] + totals, totals)]
        return counts

    try:
        return answers.extra(case, f"deepening:{rule}", compute)
    except GraderError:
        return None


def ordering_report(case: Any, rule: str, answers: Any, generated: int | None,
                    truncated: bool = False) -> list[str]:
    """Markdown lines: the nodes root ordering saves, per iteration; ``generated`` is the
    student's total (None when their run gave none; ``truncated``: their trace was cut there
    by the sandbox's cap, so they generated at least that many)."""
    counts = ordering_counts(case, rule, answers)
    if not counts:
        return []
    ordered, unordered = counts["ordered"], counts["unordered"]
    saved = sum(unordered) - sum(ordered)
    share = f" ({100 * saved / sum(unordered):.0f}%)" if sum(unordered) else ""
    lines = wrap(
        f"**Move ordering.** Over {len(ordered)} iterations the reference generates "
        f"{sum(ordered)} nodes with root ordering and {sum(unordered)} without: ordering "
        f"saves {saved}{share}."
        + ("" if generated is None else
           f" Your search generated {'at least ' if truncated else ''}{generated}."))
    lines += [
        "",
        "| iteration (depth limit) | with root ordering | without ordering | saved |",
        "| --- | --- | --- | --- |",
    ]
    for depth, (good, plain) in enumerate(zip(ordered, unordered), 1):
        lines.append(f"| {depth} | {good} | {plain} | {plain - good} |")
    return lines


__all__ = ["ordering_counts", "ordering_report"]
