"""How often the named mistake is right, absent or wrong:
``python bench/diagnosis.py [--submissions] [OUT]``.

Plausible student mistakes written here, outside the catalogue (``reference/mistakes*.py``), as
exact text replacements on ``tests/submissions/correct/search.py``; each is graded on the public
and hidden cases (``grader grade --hidden``, less the two whole-board tic-tac-toe cases) and
each failing test counted: **right** (the mistake's catalogue name is among those named),
**silent** (nothing named), **wrong** (something named, the true mistake not among it). Prints a
table and the totals; ``OUT`` (default ``bench/diagnosis.json``) gets every test's names.
``--submissions``: the project's own known-wrong submissions (``tests/submissions/variants.py``,
each true name its own) instead.
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from grader.cases import find_cases, load_case  # noqa: E402
from grader.scoring.grade import grade  # noqa: E402

CORRECT = REPO / "tests" / "submissions" / "correct" / "search.py"
SLOW = {"tictactoe-empty-board", "tictactoe-corner-opening-minimax"}
NAMED = re.compile(r"\*\*Likely mistake: [^*]+\*\* \(`(\w+)`\)")

AB_MAX = "            v = max(v, alpha_beta(game, child, alpha, beta, depth + 1))\n            if v >= beta:\n                return v\n"
AB_MIN = "        v = min(v, alpha_beta(game, child, alpha, beta, depth + 1))\n"
# name -> (the catalogue names that describe it truly, [(old, new), ...])
MISTAKES: dict[str, tuple[set[str], list[tuple[str, str]]]] = {
    "ab_no_alpha": ({"forgets_alpha_update"}, [
        (AB_MAX + "            alpha = max(alpha, v)\n", AB_MAX)]),
    "ab_no_beta": ({"forgets_beta_update"}, [
        (AB_MIN + "        if v <= alpha:\n            return v\n        beta = min(beta, v)\n",
         AB_MIN + "        if v <= alpha:\n            return v\n")]),
    "ab_min_tests_beta": ({"min_cut_tests_beta"}, [
        (AB_MIN + "        if v <= alpha:\n", AB_MIN + "        if v >= beta:\n")]),
    "ab_no_window": ({"no_window_passing"}, [
        ("v = max(v, alpha_beta(game, child, alpha, beta, depth + 1))",
         "v = max(v, alpha_beta(game, child, depth=depth + 1))"),
        ("v = min(v, alpha_beta(game, child, alpha, beta, depth + 1))",
         "v = min(v, alpha_beta(game, child, depth=depth + 1))")]),
    "star1_ignored": ({"ignores_bounds"}, [
        ("    if game.value_bounds is not None:\n        return _star1(game, state, -math.inf, "
         "math.inf, depth)\n", "")]),
    "star1_r_late": ({"star1_r_after_test"}, [
        ("            r -= p\n            if i == len(outcomes) - 1:\n                break\n",
         "            if i == len(outcomes) - 1:\n                break\n"),
        ("                return s + low * r\n",
         "                return s + low * r\n            r -= p\n")]),
    "chance_max": ({"chance_as_max"}, [
        ("        v = 0\n        for action, p in game.chance_outcomes(state):\n"
         "            v += p * expectimax(game, game.result(state, action), depth + 1)\n",
         "        v = -math.inf\n        for action, p in game.chance_outcomes(state):\n"
         "            v = max(v, expectimax(game, game.result(state, action), depth + 1))\n")]),
    "maxn_ties_last": ({"maxn_ties_last"}, [
        ("value[p] > best[p]", "value[p] >= best[p]")]),
    "maxn_prune_own_mover": ({"maxn_prunes_same_mover"}, [
        ("parent is not None and parent[0] != p:", "parent is not None:")]),
    "mcts_expand_last": ({"mcts_expands_last"}, [
        ("action = node.untried.pop(0)", "action = node.untried.pop()")]),
    "mcts_reward_own": ({"mcts_reward_to_move"}, [
        ("node.w += _reward(u, node.mover)",
         "node.w += _reward(u, game.to_move(node.state))")]),
    "mcts_log_n1": ({"ucb_log_n_plus_1"}, [
        ("math.log(node.parent.n)", "math.log(node.parent.n + 1)")]),
    "mcts_ucb_ties_last": ({"ucb_ties_last"}, [
        ("if _ucb(child, c) > _ucb(best, c):", "if _ucb(child, c) >= _ucb(best, c):")]),
}


def source(replacements: list[tuple[str, str]]) -> str:
    text = CORRECT.read_text(encoding="utf-8")
    for old, new in replacements:
        if text.count(old) != 1:
            raise ValueError(f"expected the text once in {CORRECT}, got {text.count(old)}: {old!r}")
        text = text.replace(old, new)
    return text


def project_variants() -> dict[str, tuple[set[str], str]]:
    """The known-wrong submissions of tests/submissions: name -> ({name}, source)."""
    import importlib.util

    path = REPO / "tests" / "submissions" / "variants.py"
    spec = importlib.util.spec_from_file_location("submission_variants", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["submission_variants"] = module
    spec.loader.exec_module(module)
    return {name: ({name}, module.source(name)) for name in module.VARIANTS}


def main(argv: list[str]) -> int:
    own = "--submissions" in argv
    argv = [arg for arg in argv if arg != "--submissions"]
    out = Path(argv[0]) if argv else REPO / "bench" / "diagnosis.json"
    mistakes = (project_variants() if own else
                {name: (truth, source(reps)) for name, (truth, reps) in MISTAKES.items()})
    cases = [case.path for case in map(load_case, find_cases(
        [REPO / "trees" / "public", REPO / "trees" / "hidden"])) if case.name not in SLOW]
    totals = {"failing": 0, "right": 0, "silent": 0, "wrong": 0}
    rows = {}
    print(f"{'mistake':24} failing right silent wrong")
    with tempfile.TemporaryDirectory() as folder:
        for name, (truth, text) in mistakes.items():
            path = Path(folder) / name / "search.py"
            path.parent.mkdir()
            path.write_text(text, encoding="utf-8")
            results = grade(path, cases)
            counts = {"failing": 0, "right": 0, "silent": 0, "wrong": 0}
            rows[name] = []
            for test in results.tests:
                if test.passed:
                    continue
                named = NAMED.findall(test.output)
                verdict = "silent" if not named else "right" if truth & set(named) else "wrong"
                counts["failing"] += 1
                counts[verdict] += 1
                rows[name].append({"test": test.name, "named": named, "verdict": verdict})
            for key in totals:
                totals[key] += counts[key]
            print(f"{name:24} {counts['failing']:7} {counts['right']:5} {counts['silent']:6} "
                  f"{counts['wrong']:5}", flush=True)
    print(f"{'total':24} {totals['failing']:7} {totals['right']:5} {totals['silent']:6} "
          f"{totals['wrong']:5}")
    out.write_text(json.dumps({"totals": totals, "tests": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
