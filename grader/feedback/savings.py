"""What an ``alpha_beta_tt`` test adds to its feedback: the nodes the transposition table saves.

The reference's alpha-beta with the table (:mod:`reference.transposition`) and plain
alpha-beta (the same search with no table: the inclusive rule, as the table's search prunes)
are counted in generated nodes on the case; the report shows both, the nodes saved, and how
many the student's search generated. The counts go through :meth:`AnswerKey.extra`
(``table``), so the handout's key carries them and ``grader check`` shows them without
``reference/``.
"""

from __future__ import annotations

from typing import Any

from grader.errors import GraderError
from grader.run.runner import table_summary
from grader.run.tracing import traced


def table_counts(case: Any, answers: Any) -> dict[str, Any] | None:
    """``{"table": n, "plain": m, "entries": {...}}``: nodes the reference generates with the
    table and without, and its final table summed up (:func:`table_summary`); cached in
    ``answers``; None without the key's entry."""

    def compute() -> dict[str, Any]:
        from reference.alpha_beta import alpha_beta
        from reference.transposition import alpha_beta_tt

        counts: dict[str, Any] = {}
        table: dict = {}
        for name, search in (("table", lambda g, s: alpha_beta_tt(g, s, table)),
                             ("plain", alpha_beta)):
            game = case.build_game()
            wrapper, trace = traced(game)
            search(wrapper, game.initial_state())
            counts[name] = len(trace.generated)
        counts["entries"] = table_summary(table)
        return counts

    try:
        return answers.extra(case, "table", compute)
    except GraderError:
        return None


def _entries(summary: dict[str, int]) -> str:
    kinds = [f"{summary[kind]} {kind}" for kind in ("exact", "lower", "upper", "other")
             if summary.get(kind) or kind != "other"]
    return f"{summary['entries']} entries ({', '.join(kinds)})"


def table_report(case: Any, answers: Any, generated: int | None,
                 truncated: bool = False, entries: dict[str, int] | None = None) -> list[str]:
    """Markdown lines: the nodes the table saves; ``generated`` is the student's count (None
    when their run gave none; ``truncated``: cut there by the sandbox's cap); ``entries``
    the student's table summed up, as the worker reported it (None: not known)."""
    counts = table_counts(case, answers)
    if not counts:
        return []
    table, plain = counts["table"], counts["plain"]
    saved = plain - table
    share = f" ({100 * saved / plain:.0f}%)" if plain else ""
    yours = ("" if generated is None else
             f" Your search generated {'at least ' if truncated else ''}{generated}"
             + (" (as many as plain alpha-beta: does your table ever answer?)"
                if generated == plain and saved else "") + ".")
    held = ""
    if entries is not None and counts.get("entries"):
        held = (f" At the end your table held {_entries(entries)}; the reference's "
                f"{_entries(counts['entries'])}.")
    return [f"**Transposition table.** The reference generates {table} nodes with the table "
            f"and {plain} without it (plain alpha-beta): the table saves {saved}{share}." + yours
            + held]


__all__ = ["table_counts", "table_report"]
