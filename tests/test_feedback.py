"""Feedback: sequence diffs, named mistakes (grader/diagnosis.py, reference/mistakes.py), the
rendered failure report (goldens), the terminal report and the students' pytest front end.

Every known-wrong submission of tests/submissions/ must get its own hint on at least one case;
the reference must get none. The submissions run here, in-process (their functions through
``grader.run.runner.run_algorithm``); one test takes a variant through the sandboxed pipeline.
"""

from __future__ import annotations

import subprocess
import sys
import types
from pathlib import Path

import pytest
import suite_modules

from grader.answers.solve import mcts_settings, solve
from grader.answers.store import AnswerKey
from grader.cases import find_cases, load_case
from grader.cases.algorithms import PLAY_ALGORITHMS
from grader.cases.rubric import load_rubric
from grader.compare import compare, diff_sequence
from grader.feedback import failure as feedback
from grader.feedback.diagnosis import cached_runs, diagnose, matching_hints, variant_runs
from grader.feedback.drawing import asciify
from grader.feedback.explain import step_note
from grader.report.terminal import print_report, score_table
from grader.run.runner import run_algorithm
from grader.scoring.grade import grade
from grader.scoring.pair import accepted_rules
from grader.scoring.results import GradingResults, TestResult
from reference.mistakes import CATALOGUE, mistakes_for

ROOT = Path(__file__).resolve().parent.parent
SUBMISSIONS = ROOT / "tests" / "submissions"
PUBLIC = ROOT / "trees" / "public"
CASE_FOLDERS = [p for p in (PUBLIC, ROOT / "trees" / "hidden", SUBMISSIONS / "cases") if p.exists()]
SLOW_CASES = {"tictactoe-empty-board", "tictactoe-corner-opening-minimax"}
STUBS = ("max_value", "min_value", "alpha_beta", "expectimax", "maxn", "mcts",
         "iterative_deepening")
RUBRIC = load_rubric()
CASES = [case for case in map(load_case, find_cases(CASE_FOLDERS)) if case.name not in SLOW_CASES]

variants = suite_modules.load("submissions/variants.py")

# Each known-wrong submission: the title of the hint it must get, and words of its advice.
EXPECTED_HINTS = {
    "strict_pruning": ("prunes only on strict inequality", "use `>=` in the MAX test"),
    "never_prunes": ("never prunes", "return `v` when it reaches the bound"),
    "no_window_passing": ("does not pass alpha and beta down", "pass the current `alpha, beta`"),
    "eager_generation": ("generates all children first", "inside the loop"),
    "forgets_alpha_update": ("never raises alpha", "add `alpha = max(alpha, v)`"),
    "depth_off_by_one": ("stops one ply too late", "`game.is_cutoff(state, depth)`"),
    "chance_as_min": ("treats chance nodes as MIN", "add `p * value`"),
    "chance_unweighted": ("averages chance outcomes without probabilities",
                          "weight each child by its probability"),
    "maxn_player0": ("maximizes player 0's entry everywhere", "`p = game.to_move(state)`"),
    "maxn_wrong_component": ("uses another player's entry", "`p = game.to_move(state)` itself"),
    "returns_action": ("returns the action, not the value", "return `v` at every depth"),
    "recomputes_child": ("makes each child twice", "store the child once"),
    "mcts_by_mean": ("answers by mean reward instead of visits", "the largest `n`"),
    "mcts_max_reward": ("backs up MAX's reward at every node", "`-u` when it is MIN"),
    "ucb_log10": ("UCB1 with log10", "`math.log(N)` (natural log)"),
    "mcts_expand_all": ("expands all children at once", "pop only the first untried action"),
    "simulate_from_parent": ("simulates from the parent", "from the new child's state"),
    "no_ordering": ("never reorders the root", "sort the actions by it"),
    "worst_first": ("orders the root worst first", "the best child for the mover first"),
    "descending_at_min": ("orders a MIN root highest first", "sort ascending (lowest first)"),
    "ties_in_previous_order": ("breaks ties in the previous iteration's order",
                               "sort `list(game.actions(state))` itself"),
    "window_not_reset": ("keeps the window between iterations",
                         "`alpha, beta = -math.inf, math.inf`"),
    "best_not_reset": ("keeps the best value between iterations",
                       "reset `v` and the best action"),
    "only_max_depth": ("searches only at max_depth", "`range(1, max_depth + 1)`"),
    "orders_every_node": ("reorders every node, not only the root",
                          "search each root child with your plain `alpha_beta`"),
}
# Hints that always show together: never_prunes and no_window_passing search the same nodes on
# every tree (no child can cut without the window); at a MIN root, sorting highest first is
# sorting worst first (and at a MAX root descending_at_min is right), so its hint always comes
# with worst_first's.
SAME_TRACE = {"never_prunes": {"never_prunes", "no_window_passing"},
              "no_window_passing": {"never_prunes", "no_window_passing"},
              "descending_at_min": {"descending_at_min", "worst_first"}}


def submission_table(name: str) -> dict:
    module = types.ModuleType(f"submission_{name}")
    exec(compile(variants.source(name), f"<{name}>", "exec"), module.__dict__)  # noqa: S102
    return {stub: getattr(module, stub) for stub in STUBS}


@pytest.fixture(scope="module")
def answers(shared_answers) -> AnswerKey:
    """The suite's answer cache (tests/conftest.py), as tests/test_verdict.py reads it: the
    known mistakes' runs on every case (what :func:`diagnose` compares with) were computed
    here at every run, about 7 CPU s. Its entries are kept under a hash of the code that
    computes them (grader.answers.store.code_version: reference/, the diagnosis, the runner),
    so an edit there recomputes them as before."""
    return shared_answers


def hints_per_case(name: str, answers: AnswerKey) -> list[tuple[str, str, list]]:
    """(case, algorithm, hints) for each case the submission fails, as grading would see it."""
    table = submission_table(name)
    seen = []
    for case in CASES:
        for algorithm in case.algorithms:
            if algorithm not in variants.VARIANTS[name].algorithms:
                continue
            if algorithm == "mcts" and case.mcts.check != "trace":
                continue
            settings = mcts_settings(case) if algorithm == "mcts" else None
            try:
                got = run_algorithm(table, case.build_game(), algorithm, mcts=settings)
            except Exception:  # noqa: BLE001, S112 - the sandbox reports it: no diagnosis then
                continue
            rules = accepted_rules(case.pruning, RUBRIC.settings_for(case, algorithm).pruning)
            comparisons = [(rule, compare(answers.reference(case, algorithm, rule).run, got,
                                          decision=algorithm == "iterative_deepening"))
                           for rule in rules]
            if any(comparison.passed for _, comparison in comparisons):
                continue
            rule = next((r for r, c in comparisons if c.value.ok), rules[0])
            seen.append((case.name, algorithm, diagnose(case, algorithm, rule, got, answers)))
    return seen


def test_the_catalogue_covers_every_known_submission():
    names = {(m.algorithm, m.name) for m in CATALOGUE}
    for name, variant in variants.VARIANTS.items():
        assert any((algorithm, name) in names for algorithm in variant.algorithms), name
    assert set(EXPECTED_HINTS) == set(variants.VARIANTS)


@pytest.mark.parametrize("name", sorted(variants.VARIANTS))
def test_each_wrong_submission_gets_its_own_hint(name, answers):
    seen = hints_per_case(name, answers)
    assert seen, f"{name} fails no case"
    own = [(case, algorithm, hints) for case, algorithm, hints in seen
           if name in [hint.name for hint in hints]]
    assert own, f"{name} never gets its hint: {[(c, a, [h.name for h in hs]) for c, a, hs in seen]}"
    alone = SAME_TRACE.get(name, {name})
    assert any({hint.name for hint in hints} == alone for _, _, hints in own)
    hint = next(h for _, _, hints in own for h in hints if h.name == name)
    title, advice = EXPECTED_HINTS[name]
    assert hint.title == title
    assert advice in hint.fix
    assert hint.does and hint.departs


def test_the_reference_gets_no_hint(answers):
    for case in CASES:
        for algorithm in case.algorithms:
            if (algorithm == "mcts" and case.mcts.check != "trace") or algorithm in PLAY_ALGORITHMS:
                continue  # (evaluate is graded by play: tests/test_play.py)
            for rule in ("inclusive", "strict"):
                run = answers.reference(case, algorithm, rule).run
                assert diagnose(case, algorithm, rule, run, answers) == [], (case.name, algorithm)


def test_every_variant_is_stored_saying_whether_it_differs_from_the_reference():
    case = load_case(PUBLIC / "aima-fig-5-2.json")
    runs = {run["name"]: run for run in variant_runs(case, "alpha_beta", "inclusive")}
    assert list(runs) == [m.name for m in mistakes_for("alpha_beta", "inclusive")]
    assert runs["strict_pruning"]["same"]  # no tie with a bound in this tree
    assert not runs["never_prunes"]["same"] and runs["never_prunes"]["status"] == "ran"
    assert all("generated_hash" in run and "generated" not in run for run in runs.values())
    # the reference's own run is no mistake, even where a variant equals it
    got = solve(case, "alpha_beta")
    assert diagnose(case, "alpha_beta", "inclusive", got, AnswerKey(cache=None)) == []


def test_a_variant_that_raises_or_runs_away_is_kept_as_that_kind_of_failure(monkeypatch):
    from reference import mistake_registry
    from reference import mistakes as catalogue

    def raises(game, state, depth=0):
        raise ZeroDivisionError("a variant's bug")

    def runs_away(game, state, depth=0):
        while True:
            game.result(state, game.actions(state)[0])

    made = [mistake_registry.Mistake(name, "minimax", name, "d", "p", "f", function)
            for name, function in (("raises", raises), ("runs_away", runs_away))]
    monkeypatch.setattr(catalogue, "mistakes_for", lambda algorithm, rule: made)
    case = load_case(PUBLIC / "aima-fig-5-2.json")
    runs = {run["name"]: run for run in variant_runs(case, "minimax", "inclusive")}
    assert runs["raises"]["status"] == "raised" and runs["runs_away"]["status"] == "budget"
    assert runs["raises"]["generated_hash"] is None


def test_without_the_variants_in_the_key_there_is_no_hint(tmp_path):
    case = load_case(PUBLIC / "aima-fig-5-2.json")
    table = submission_table("never_prunes")
    got = run_algorithm(table, case.build_game(), "alpha_beta")
    handout = AnswerKey(cache=None)
    handout.version = None  # as in the handout: no reference/, only the key file's entries
    assert diagnose(case, "alpha_beta", "inclusive", got, handout) == []


def test_prepare_answers_stores_the_variants_runs_for_the_handout():
    from grader.scoring.grade import prepare_answers

    key = AnswerKey(cache=None)
    prepare_answers([load_case(PUBLIC / "aima-fig-5-2.json")], RUBRIC, key)
    assert any(":variants:alpha_beta:inclusive" in entry for entry in key.entries)
    # both rules' windows: the report tells a student whose trace is the other rule's
    assert any(":window:alpha_beta:strict" in entry for entry in key.entries)
    assert any(":window:alpha_beta:inclusive" in entry for entry in key.entries)
    assert any(":steps:minimax" in entry for entry in key.entries)


# --- the sequence diff ---------------------------------------------------------------------


def test_the_caret_points_at_the_first_difference_with_its_step():
    diff = diff_sequence("generated", ["B", "B1", "B2", "C", "C1", "D"],
                         ["B", "B1", "B2", "C", "C1", "C2", "D"])
    lines = feedback.sequence_report(diff)
    assert lines[0] == "`generated` differs at step 6 (expected 6 ids, yours has 7):"
    top, bottom, caret = lines[2], lines[3], lines[4]
    assert caret.index("^") == top.index(" D") + 1 == bottom.index("C2")
    assert caret.endswith("^ step 6")
    assert lines[-1] == "- searched, but the reference pruned them: C2"


def test_long_ids_are_windowed_to_100_columns():
    expected = [f"{'x' * 11}|{i:03d}" for i in range(300)]
    got = expected[:150] + ["extra"] + expected[150:]
    lines = feedback.sequence_report(diff_sequence("generated", expected, got))
    assert max(map(len, lines)) <= 100
    assert "^ step 151" in lines[4] and lines[2].startswith("expected: ... ")


def test_a_cut_trace_states_neither_its_length_nor_what_it_lacks():
    diff = diff_sequence("generated", ["B", "C", "D"], ["B", "B", "C"])
    lines = feedback.sequence_report(diff, cut=True)
    text = "\n".join(lines)
    assert "yours has" not in text and "not searched" not in text  # D may come past the cut
    assert "yours was cut after 3" in lines[0]
    assert "- generated more often than the reference did: B (2x)" in lines


def test_duplicates_and_missing_are_listed():
    diff = diff_sequence("generated", ["B", "C", "D"], ["B", "B", "C"])
    lines = feedback.sequence_report(diff)
    assert "- not searched, but the reference searched them: D" in lines
    assert "- generated more often than the reference did: B (2x)" in lines


# --- the rendered report: goldens and widths -------------------------------------------------

GOLDEN_CASES = [
    ("aima-fig-5-2", "alpha_beta", "never_prunes", "inclusive"),
    ("prune-either-rule", "alpha_beta", "inclusive_pruning", "strict"),
    ("deep-narrow", "alpha_beta", "strict_pruning", "inclusive"),
    ("aima-fig-5-12-expectiminimax", "expectimax", "chance_unweighted", "inclusive"),
    ("aima-fig-5-4-three-player", "maxn", "maxn_player0", "inclusive"),
    ("depth-limit-1", "minimax", "recomputes_child", "inclusive"),
    # the step explanation at the first difference: Star1's bounds, max^n's shallow-pruning
    # bound, an MCTS iteration (selection statistics, expansion, playout rewards)
    ("star1-bounded-expectimax", "expectimax", "ignores_bounds", "inclusive"),
    ("maxn-shallow-pruning", "maxn", "maxn_wrong_component", "inclusive"),
    ("mcts-tiny-tree", "mcts", "mcts_reward_to_move", "inclusive"),
]


def _report(case, algorithm: str, mistake_name: str, rule: str) -> list[str]:
    mistake = next(m for m in mistakes_for(algorithm, rule) if m.name == mistake_name)
    got = run_algorithm(mistake.functions(rule), case.build_game(), algorithm,
                        mcts=mcts_settings(case) if algorithm == "mcts" else None)
    expected = solve(case, algorithm, pruning=rule)
    key = AnswerKey(cache=None)
    hints = diagnose(case, algorithm, rule, got, key)
    note = step_note(case, algorithm, rule, expected, got, key)
    return feedback.failure_report(case, algorithm, rule, expected, got, compare(expected, got),
                                   hints, note=note)


@pytest.mark.parametrize("name, algorithm, mistake, rule", GOLDEN_CASES,
                         ids=[f"{g[0]}-{g[2]}" for g in GOLDEN_CASES])
def test_rendered_failure_matches_its_golden(name, algorithm, mistake, rule, golden):
    lines = _report(load_case(PUBLIC / f"{name}.json"), algorithm, mistake, rule)
    golden(f"feedback/{name}-{mistake}.md", "\n".join(lines) + "\n")


def test_ascii_rendering_matches_its_golden(golden):
    lines = _report(load_case(PUBLIC / "aima-fig-5-2.json"), "alpha_beta", "never_prunes",
                    "inclusive")
    text = asciify("\n".join(lines) + "\n")
    assert text.isascii()
    golden("feedback/aima-fig-5-2-never_prunes.ascii.md", text)


def test_no_feedback_line_exceeds_100_columns(answers):
    """Every known mistake on every case it breaks, Unicode and ASCII."""
    for case in CASES:
        if case.name == "connect4-depth-limited":
            continue  # seconds of heuristic evaluations; connect4-small-board has its long ids
        for algorithm in case.algorithms:
            if (algorithm == "mcts" and case.mcts.check != "trace") or algorithm in PLAY_ALGORITHMS:
                continue  # (evaluate is graded by play: tests/test_play.py)
            settings = mcts_settings(case) if algorithm == "mcts" else None
            for rule in dict.fromkeys([*accepted_rules(case.pruning, "inclusive"), "strict"]):
                expected = answers.reference(case, algorithm, rule).run
                runs = cached_runs(case, algorithm, rule, answers)
                for mistake in mistakes_for(algorithm, rule):
                    try:
                        got = run_algorithm(mistake.functions(rule), case.build_game(),
                                            algorithm, mcts=settings)
                    except Exception:  # noqa: BLE001, S112 - a variant that raises: no report
                        continue
                    lines = feedback.failure_report(case, algorithm, rule, expected, got,
                                                    compare(expected, got),
                                                    matching_hints(runs, got))
                    text = "\n".join(lines)
                    for line in text.splitlines() + asciify(text).splitlines():
                        assert len(line) <= 100, (case.name, mistake.name, line)


# --- through the pipeline, the terminal report and the pytest front end --------------------


@pytest.fixture(scope="module")
def graded_never_prunes(tmp_path_factory, shared_answers):
    path = variants.materialize("never_prunes", tmp_path_factory.mktemp("never_prunes"))
    return grade(path, [PUBLIC / "aima-fig-5-2.json"], algorithms=["alpha_beta"],
                 answers=shared_answers)


@pytest.mark.local_check
def test_the_pipeline_shows_tree_diff_and_hint(graded_never_prunes):
    (test,) = graded_never_prunes.tests
    assert test.outcome == "wrong_trace"
    # one case alone fits three mistakes: all three are named, as alternatives
    assert test.summary == ("right value, wrong expansion order (likely mistake: never prunes, "
                            "or does not pass alpha and beta down, or never raises alpha)")
    assert "├── C2 = 4" in test.output and "^ step 7" in test.output
    assert "**Likely mistake: never prunes** (`never_prunes`)" in test.output
    assert "no graded case tells them apart" in test.output
    assert "A small tree that tells them apart: A max (" in test.output
    assert graded_never_prunes.extra_data["diagnoses"]["alpha_beta"]["mistakes"] == [
        "never_prunes", "no_window_passing", "forgets_alpha_update"]
    assert "- alpha_beta: never prunes, or" in graded_never_prunes.output


@pytest.mark.local_check
def test_more_cases_rule_alternatives_out(tmp_path, shared_answers):
    path = variants.materialize("never_prunes", tmp_path / "never_prunes")
    cases = [PUBLIC / f"{name}.json" for name in ("aima-fig-5-2", "prune-equal-deep-cutoff",
                                                  "prune-equal-depth-2", "deep-narrow")]
    results = grade(path, cases, algorithms=["alpha_beta"], answers=shared_answers)
    named = results.extra_data["diagnoses"]["alpha_beta"]["mistakes"]
    assert "forgets_alpha_update" not in named and "never_prunes" in named
    for test in results.tests:
        assert test.passed or "(likely mistake: never prunes" in test.summary
    # grader check's table: one line for the algorithm, under its header
    table = score_table(results).splitlines()
    assert table[1].startswith("  likely mistake: never prunes")


# An alpha_beta that fails like "never prunes" everywhere but on the one case of four root
# moves, a hidden one, where it returns 0 when WORLD is "apart": whether the visible test's
# hint names a mistake told, before issue 34, a fact of the hidden case (one bit a submission).
TELLING = """
_never = alpha_beta
WORLD = {world!r}


def alpha_beta(game, state, alpha=-math.inf, beta=math.inf, depth=0):
    if depth == 0 and WORLD == "apart" and len(game.actions(state)) == 4:
        return 0
    return _never(game, state, alpha, beta, depth)
"""


@pytest.mark.local_check
def test_the_hint_shown_before_the_due_date_is_decided_on_the_visible_tests(tmp_path,
                                                                           shared_answers):
    import json

    case = json.loads((PUBLIC / "aima-fig-5-2.json").read_text())
    case.update(name="seventy", visibility="after_due_date", algorithms=["alpha_beta"],
                tree=[*case["tree"], [70]])
    case.pop("expect")
    (tmp_path / "seventy.json").write_text(json.dumps(case))
    cases = [PUBLIC / "aima-fig-5-2.json", tmp_path / "seventy.json"]
    seen = {}
    for world in ("alike", "apart"):
        path = variants.materialize("never_prunes", tmp_path / world)
        path.write_text(path.read_text() + TELLING.format(world=world))
        results = grade(path, cases, algorithms=["alpha_beta"], answers=shared_answers)
        visible, later = results.tests
        assert (visible.visibility, later.visibility) == ("visible", "after_due_date")
        seen[world] = (visible.output, visible.summary, results.output)
        assert "(likely mistake: never prunes" in visible.summary
        assert "the one visible alpha_beta case" in visible.output
        # after the due date both are seen: the later test's hint weighs both
        assert ("likely mistake" in later.summary) == (world == "alike")
    assert seen["alike"] == seen["apart"]  # nothing of the hidden case in what is seen now


@pytest.mark.local_check
def test_terminal_report_matches_its_golden(graded_never_prunes, golden, monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    stub = [TestResult(name=f"maxn: case-{i} (a case)", number=f"4.{i}", algorithm="maxn",
                       case_name=f"case-{i}", max_score=1.0, score=0.0, outcome="not_implemented",
                       summary="`maxn` is not implemented yet (it raises NotImplementedError).",
                       output="`maxn` is not implemented yet (it raises NotImplementedError).")
            for i in (1, 2, 3)]
    results = GradingResults(tests=[*graded_never_prunes.tests, *stub],
                             extra_data=graded_never_prunes.extra_data)
    stream = _Stream("utf-8")
    print_report(results, stream)
    text = stream.getvalue()
    assert text.count("is not implemented yet") == 1  # one line for the function, not 3 blocks
    assert "```" not in text and "\033[" not in text  # not a terminal: no colour
    assert max(map(len, text.splitlines())) <= 100
    golden("feedback/terminal-report.txt", text)
    latin = _Stream("latin-1")
    print_report(results, latin)
    assert latin.getvalue().isascii() and "+-- C2 = 4" in latin.getvalue()


@pytest.mark.local_check
def test_the_table_comes_first_and_names_the_mistake_once_within_the_terminal_width(
        graded_never_prunes, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    stream = _Stream("utf-8")
    print_report(graded_never_prunes, stream)
    lines = stream.getvalue().splitlines()
    assert lines[0].startswith("alpha_beta: ")  # the score table first
    title = graded_never_prunes.extra_data["diagnoses"]["alpha_beta"]["title"]
    table = " ".join(line.strip() for line in lines[1:4])  # wrapped between words, never cut
    assert table.startswith(f"likely mistake: {title} (explained below)")
    assert all(len(line) <= 80 for line in lines[1:4])
    hint = graded_never_prunes.extra_data["diagnoses"]["alpha_beta"]["hint"]
    assert sum("Likely mistake: never prunes" in line for line in lines) == 1
    assert "Likely mistake: never prunes" in hint  # what each failing test's output ends with
    assert max(map(len, lines)) <= 100
    prose = [line for line in lines if not line.startswith(("│", "├", "└", " ", "expected:",
                                                            "yours:", "A MAX", "✓", "−"))]
    assert max(map(len, prose)) <= 80
    monkeypatch.delenv("COLUMNS")
    assert max(map(len, stream.getvalue().splitlines())) <= 100


@pytest.mark.local_check
def test_colour_only_on_a_terminal_without_no_color(graded_never_prunes, monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    tty = _Stream("utf-8", tty=True)
    print_report(graded_never_prunes, tty)
    assert "\033[" in tty.getvalue()
    monkeypatch.setenv("NO_COLOR", "1")
    plain = _Stream("utf-8", tty=True)
    print_report(graded_never_prunes, plain)
    assert "\033[" not in plain.getvalue()


class _Stream:
    def __init__(self, encoding: str, tty: bool = False) -> None:
        self.encoding, self._tty, self._parts = encoding, tty, []

    def isatty(self) -> bool:
        return self._tty

    def write(self, text: str) -> None:
        self._parts.append(text)

    def getvalue(self) -> str:
        return "".join(self._parts)


@pytest.mark.local_check
def test_student_pytest_front_end_names_one_test_per_case_and_algorithm():
    ran = subprocess.run([sys.executable, "-m", "pytest", "-v", "-k", "aima-fig-5-2"],
                         cwd=ROOT / "student", capture_output=True, text=True, timeout=120,
                         check=False)
    assert "test_search.py::test_public_case[alpha_beta-aima-fig-5-2] FAILED" in ran.stdout
    assert "test_search.py::test_public_case[minimax-aima-fig-5-2] FAILED" in ran.stdout
    assert ran.returncode == 1 and "2 failed" in ran.stdout
    assert "`alpha_beta` is not implemented yet" in ran.stdout  # the grader's own message


def test_the_same_exception_on_every_case_is_shown_once_then_listed():
    """A search that raises the same error everywhere: one traceback, the other tests by number
    (not six copies of it on the screen); a different failure is still shown."""
    from grader.report.terminal import algorithm_block

    raised = ("`alpha_beta` raised an exception:\n```\nTraceback (most recent call last):\n"
              '  File "search.py", line 39, in alpha_beta\n    return oops + 1\n'
              "NameError: name 'oops' is not defined\n```")
    tests = [TestResult(name=f"alpha_beta: case-{i}", number=f"2.{i}", algorithm="alpha_beta",
                        case_name=f"case-{i}", max_score=1.0, score=0.0, outcome="error",
                        summary="`alpha_beta` raised NameError", output=raised)
             for i in range(1, 8)]
    tests[6].output = raised.replace("line 39", "line 41")
    lines = algorithm_block("alpha_beta", tests, None)
    text = "\n".join(lines)
    assert text.count("NameError") == 2 and "line 41" in text, text
    said = " ".join(text.split("The same failure, word for word, on ")[1].split())
    assert said == "2.2 case-2, 2.3 case-3, 2.4 case-4, 2.5 case-5, 2.6 case-6.", said
    assert "Also failing" not in text and max(map(len, lines)) <= 100
