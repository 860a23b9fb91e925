"""Known submissions through the whole pipeline: exact scores for correct, stub and wrong code.

Every submission is graded once (``graded``, session scope, two at a time) by
``grader.scoring.grade.grade``: sandboxed worker, reference answers, comparison, rubric. Each wrong
variant's expected scores come from a second path (``expected_outcome``): its functions run in
this process on each case (``grader.run.runner.run_algorithm``), are compared with the reference's
runs (``grader.compare``), and the rubric's rule is applied here (full points on a pass, the
``partial_credit`` fraction for a right value with a wrong trace, 0 otherwise). Algorithms a
variant does not touch (``Variant.algorithms``) must keep full marks.

The two whole-game tic-tac-toe cases (``SLOW_CASES``) are graded for the correct solution and
the stubs only: each costs seconds a run (tests/test_work_budget.py grades the variants that
search 8 to 30 times the reference's nodes there, at several loads).

A variant is graded on every case of the algorithms that can reach what it changes (read from
its source: ``reached_algorithms``, a superset of those it declares) and, of the others, on one
case each (``SENTINELS``): the rest would be the correct solution's grading again, the same
functions on the same cases (it was four fifths of this file's time). The variants the
cross-checks below compare test by test (``FULL_VARIANTS``) are graded on every case.
"""

from __future__ import annotations

import ast
import importlib.util
import io
import json
import math
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

import jsonschema
import pytest
import suite_modules

from grader.answers.store import AnswerKey
from grader.cases import find_cases, load_case
from grader.cases.algorithms import PLAY_ALGORITHMS
from grader.cases.rubric import load_rubric
from grader.compare import compare
from grader.games import CHANCE, MAX
from grader.report.gradescope import write_results
from grader.feedback.markdown import unmarked_line
from grader.report.terminal import print_report
from grader.run.runner import run_algorithm
from grader.scoring.grade import grade
from grader.scoring.pair import accepted_rules
from grader.scoring.results import GradingResults
from reference import decision, reference_functions
from reference.minimax import max_value, min_value
from reference.mistakes import CATALOGUE

ROOT = Path(__file__).resolve().parent.parent
SUBMISSIONS = Path(__file__).resolve().parent / "submissions"
STUBS = ROOT / "student" / "search.py"
CASE_FOLDERS = [ROOT / "trees" / "public", ROOT / "trees" / "hidden"]
SLOW_CASES = {"tictactoe-empty-board", "tictactoe-corner-opening-minimax"}
SCHEMA = json.loads((Path(__file__).parent / "gradescope_results.schema.json").read_text())
# made once (jsonschema.validate checks the schema itself at each call: 17 ms a results file)
VALIDATOR = jsonschema.validators.validator_for(SCHEMA)(SCHEMA)


variants = suite_modules.load("submissions/variants.py")
VARIANTS = variants.VARIANTS
RUBRIC = load_rubric()
CASES = [load_case(path) for path in find_cases(CASE_FOLDERS)]
# evaluate cases are graded by play: tests/test_play.py grades its variants (PLAY_VARIANTS),
# with fewer matches; the trace variants here never touch evaluate.
# alpha_beta_tt and quiescence cases: no variant here touches those functions (their own
# variants are graded on them by tests/test_submissions_search.py), so they are left out.
VARIANT_CASES = [case for case in CASES if case.name not in SLOW_CASES
                 and case.algorithms not in (["alpha_beta_tt"], ["quiescence"])
                 and not set(case.algorithms) <= set(PLAY_ALGORITHMS)]
PAIRS = [(algorithm, case) for case in CASES for algorithm in case.algorithms]
# One case an algorithm (the first; for mcts the first whose trace is compared, which the
# outcome checks' points depend on), graded for every variant whatever it touches.
SENTINELS = {
    next(case.name for case in VARIANT_CASES if algorithm in case.algorithms
         and (algorithm != "mcts" or case.mcts.check == "trace"))
    for algorithm in {algorithm for case in VARIANT_CASES for algorithm in case.algorithms}
}
# test_grader_checks_report_reads_in_a_few_screens reads two whole reports, and
# test_no_window_passing_prunes_nothing_at_all compares two variants' tests one by one.
FULL_VARIANTS = {"strict_pruning", "no_window_passing", "never_prunes"}


ENTRY_POINTS = {"minimax": ("max_value", "min_value")}  # else the algorithm's own name


def _top_level(source: str) -> tuple[dict[str, str], list[str], dict[str, set[str]]]:
    """A module's functions (name -> AST dump), its other statements (dumps), and the names
    each function refers to."""
    functions, rest, uses = {}, [], {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef):
            functions[node.name] = ast.dump(node)
            uses[node.name] = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
        else:
            rest.append(ast.dump(node))
    return functions, rest, uses


CORRECT_TOP_LEVEL = _top_level(variants.source("correct"))


def reached_algorithms(name: str) -> set[str]:
    """The graded algorithms whose functions call, directly or not, a function that variant
    ``name`` changes (helpers included): what the variant may change, read from the source."""
    correct = CORRECT_TOP_LEVEL[0]
    functions, _, uses = _top_level(variants.source(name))
    reaching = {f for f in functions if functions[f] != correct.get(f)}
    while True:
        more = {f for f in functions if uses[f] & reaching} - reaching
        if not more:
            break
        reaching |= more
    graded = {a for case in VARIANT_CASES for a in case.algorithms}
    return {a for a in graded if set(ENTRY_POINTS.get(a, (a,))) & reaching}


def graded_pairs(name: str) -> set[tuple[str, str]]:
    """The (algorithm, case name) tests variant ``name`` is graded on."""
    touched = reached_algorithms(name)
    return {(algorithm, case.name) for case in VARIANT_CASES for algorithm in case.algorithms
            if algorithm in touched or case.name in SENTINELS or name in FULL_VARIANTS}


def functions_of(name: str) -> dict:
    """Submission ``name``'s search.py imported in this process: its function table."""
    module_name = f"submission_{name}"
    spec = importlib.util.spec_from_loader(module_name, loader=None)
    module = importlib.util.module_from_spec(spec)
    # The text, not a file: the same source the pipeline graded, compiled here.
    code = compile(variants.source(name), f"<{name}/search.py>", "exec")
    exec(code, module.__dict__)  # noqa: S102
    return vars(module)


# --- the reference, in this process ---------------------------------------------------------

_runs: dict = {}


def reference_run(case, algorithm: str, rule: str = "inclusive", seed: int | None = None):
    key = (case.name, algorithm, rule, seed)
    if key not in _runs:
        settings = case.mcts if seed is None else replace(case.mcts, seed=seed)
        _runs[key] = run_algorithm(reference_functions(rule), case.build_game(), algorithm,
                                   mcts=settings)
    return _runs[key]


def optimal_moves(case) -> list:
    """The root actions with the best minimax value (two-player games: the outcome cases)."""
    game = case.build_game()
    root = game.initial_state()
    sign = 1 if game.to_move(root) == MAX else -1
    values = {}
    for action in game.actions(root):
        child = game.result(root, action)
        search = max_value if game.to_move(child) == MAX else min_value
        values[action] = sign * search(game, child, 1)
    best = max(values.values())
    return [action for action, value in values.items() if math.isclose(value, best, abs_tol=1e-9)]


def full_search_trace(case) -> tuple[list, list]:
    """Minimax's trace: alpha-beta's when it prunes nothing."""
    run = reference_run(case, "minimax")
    return run.generated, run.evaluated


def prunes(case) -> bool:
    run = reference_run(case, "alpha_beta")
    return (run.generated, run.evaluated) != full_search_trace(case)


def chance_nodes(case, limit: int = 100_000):
    """The chance states of the case's game, depth first (at most ``limit`` states visited)."""
    game = case.build_game()
    stack = [game.initial_state()]
    for _ in range(limit):
        if not stack:
            return
        state = stack.pop()
        if game.is_terminal(state):
            continue
        if game.to_move(state) == CHANCE:
            yield game.chance_outcomes(state)
        stack.extend(game.result(state, action) for action in reversed(game.actions(state)))


def has_chance(case) -> bool:
    return next(chance_nodes(case), None) is not None


# --- the second path: outcome and score from an in-process run --------------------------------


def expected_outcome(functions: dict, case, algorithm: str) -> tuple[str, float]:
    """(outcome, score) the rubric gives ``functions`` on this test, computed in-process."""
    settings = RUBRIC.settings_for(case, algorithm)
    points = float(settings.points)
    if algorithm == "mcts" and case.mcts.check == "outcome":
        seeds = range(case.mcts.seed, case.mcts.seed + (case.mcts.seeds or settings.outcome_seeds))
        best = [json.dumps(move) for move in optimal_moves(case)]
        moves = [run_algorithm(functions, case.build_game(), "mcts",
                               mcts=replace(case.mcts, seed=seed)).value for seed in seeds]
        hits = sum(json.dumps(move) in best for move in moves)
        if hits >= settings.outcome_share * len(seeds):
            return "passed", points
        return "wrong_value", 0.0
    try:
        got = run_algorithm(functions, case.build_game(), algorithm, mcts=case.mcts)
    except Exception:  # noqa: BLE001  (the worker reports any exception as an error)
        return "error", 0.0
    comparisons = [compare(reference_run(case, algorithm, rule), got,
                           decision=algorithm == "iterative_deepening")
                   for rule in settings.accepted_pruning]
    if any(comparison.passed for comparison in comparisons):
        return "passed", points
    if any(comparison.value.ok for comparison in comparisons):
        return "wrong_trace", round(points * settings.partial_credit, 6)
    return "wrong_value", 0.0


def cap_outcome_checks(expected: dict) -> None:
    """The rubric's outcome_needs_trace: a passed mcts outcome test earns partial_credit when
    no mcts trace test passed (a visible one, for a visible test)."""
    cases = {case.name: case for case in VARIANT_CASES}

    def visible(name):
        return RUBRIC.settings_for(cases[name], "mcts").visibility == "visible"

    traces = [name for (algorithm, name) in expected
              if algorithm == "mcts" and cases[name].mcts.check == "trace"]
    for (algorithm, name), (outcome, score) in list(expected.items()):
        if algorithm != "mcts" or cases[name].mcts.check != "outcome" or outcome != "passed":
            continue
        seen = [t for t in traces if visible(t) or not visible(name)]
        if seen and not any(expected[("mcts", t)][0] == "passed" for t in seen):
            settings = RUBRIC.settings_for(cases[name], "mcts")
            expected[(algorithm, name)] = ("wrong_trace", round(score * settings.partial_credit, 6))


def warm_answer_key(answers: AnswerKey) -> None:
    """Compute the reference answers grading needs once, before two threads each would.

    (Not ``prepare_answers``: it also runs every known mistake on every case for the hints,
    seconds on the whole-board tic-tac-toe cases, which no variant here is graded on.)
    """
    for case in CASES:
        for algorithm in case.algorithms:
            if algorithm in PLAY_ALGORITHMS:  # graded by play: no reference answer
                continue
            if algorithm == "mcts" and case.mcts.check == "outcome":
                answers.optimal_actions(case)
                answers.reference(case, "mcts", "inclusive", seed=case.mcts.seed)
                continue
            rules = accepted_rules(case.pruning, RUBRIC.settings_for(case, algorithm).pruning)
            for rule in rules:
                answers.reference(case, algorithm, rule)


@pytest.fixture(scope="session")
def graded(tmp_path_factory, shared_answers) -> dict:
    """Every submission graded once by the pipeline: name -> GradingResults."""
    warm_answer_key(shared_answers)
    folder = tmp_path_factory.mktemp("submissions")
    every_case = [case.path for case in CASES]
    variant_cases = [case.path for case in VARIANT_CASES]
    jobs = [("correct", SUBMISSIONS / "correct", every_case), ("stubs", STUBS, every_case)]
    jobs += [(name, variants.materialize(name, folder / name), variant_cases) for name in VARIANTS]

    # worked out before the threads: ast.parse in two threads at once trips CPython 3.11.7
    # ("AST constructor recursion depth mismatch", python/cpython#106905)
    pairs_of = {name: graded_pairs(name) for name in VARIANTS}

    def run(job):
        name, path, cases = job
        if name not in VARIANTS:
            return name, grade(path, cases, rubric=RUBRIC, answers=shared_answers)
        pairs = pairs_of[name]
        by_path = {case.path: case for case in VARIANT_CASES}

        def load(path):  # the case, with only the algorithms this variant is graded on
            case = by_path[path]
            return replace(case, algorithms=[a for a in case.algorithms if (a, case.name) in pairs])

        wanted = [path for path in cases if any(pair[1] == by_path[path].name for pair in pairs)]
        return name, grade(path, wanted, rubric=RUBRIC, load=load, answers=shared_answers)

    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(pool.map(run, jobs))


def by_test(results) -> dict:
    return {(test.algorithm, test.case_name): test for test in results.tests}


def lost(graded, name: str, algorithm: str) -> set[str]:
    """The cases of ``algorithm`` on which submission ``name`` lost points."""
    return {test.case_name for test in graded[name].tests
            if test.algorithm == algorithm and test.score < test.max_score}


# --- the correct solution and the stubs ------------------------------------------------------


def test_correct_solution_gets_full_marks_on_every_test(graded):
    results = graded["correct"]
    assert len(results.tests) == len(PAIRS)
    failed = [(test.name, test.outcome, test.summary) for test in results.tests if not test.passed]
    assert failed == []
    assert results.score == results.max_score > 0
    assert results.staff_notes == []


def test_untouched_stubs_score_zero_saying_not_implemented(graded):
    results = graded["stubs"]
    assert len(results.tests) == len(PAIRS)
    for test in results.tests:
        assert (test.score, test.outcome) == (0.0, "not_implemented"), test.name
        assert "is not implemented yet" in test.output, test.name


def test_every_submission_imports_only_math_and_the_player_constants():
    for name in ["correct", *VARIANTS]:
        tree = ast.parse(variants.source(name))
        found = {(getattr(node, "module", None), tuple(alias.name for alias in node.names))
                 for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))}
        assert found == {(None, ("math",)), ("grader.games", ("CHANCE", "MAX", "MIN"))}, name


# --- every variant: the rubric's exact scores --------------------------------------------------


@pytest.mark.parametrize("name", list(VARIANTS))
def test_variant_scores_are_exactly_what_the_rubric_implies(graded, name):
    variant = VARIANTS[name]
    functions = functions_of(name)
    tests = by_test(graded[name])
    assert set(tests) == graded_pairs(name)
    assert {algorithm for algorithm, _ in tests} == {a for c in VARIANT_CASES for a in c.algorithms}
    expected = {}
    for case in VARIANT_CASES:
        for algorithm in case.algorithms:
            if (algorithm, case.name) not in tests:
                continue
            if algorithm in variant.algorithms:
                expected[(algorithm, case.name)] = expected_outcome(functions, case, algorithm)
            else:
                expected[(algorithm, case.name)] = ("passed", tests[(algorithm, case.name)].max_score)
    cap_outcome_checks(expected)
    for key, test in tests.items():
        assert (test.outcome, test.score) == expected[key], f"{name}: {test.name}: {test.summary}"
    affected = [test for test in graded[name].tests if test.algorithm in variant.algorithms]
    assert any(not test.passed for test in affected), f"no case catches {name}"


@pytest.mark.parametrize("name", list(VARIANTS))
def test_whatever_a_hidden_case_catches_a_public_case_catches_too(graded, name):
    """Each known-wrong submission loses points on a public case of every algorithm it loses
    points on at all: the handout's own check shows the student each of its mistakes."""
    public = {case.name for case in VARIANT_CASES if case.path.parent.name == "public"}
    for algorithm in VARIANTS[name].algorithms:
        failing = lost(graded, name, algorithm)
        assert not failing or failing & public, (algorithm, sorted(failing))


@pytest.mark.parametrize("name", ["strict_pruning", "no_window_passing"])
def test_grader_checks_report_reads_in_a_few_screens(graded, name, monkeypatch):
    """What ``grader check`` prints for the public tests of a wrong alpha-beta: the table
    first, at most 150 lines, none over 100 columns, the named mistake explained once."""
    monkeypatch.delenv("COLUMNS", raising=False)
    public = {case.name for case in VARIANT_CASES if case.path.parent.name == "public"}
    results = graded[name]
    shown = GradingResults(tests=[t for t in results.tests if t.case_name in public],
                           extra_data=results.extra_data)
    stream = io.StringIO()
    print_report(shown, stream)
    lines = stream.getvalue().splitlines()
    assert lines[0].startswith("minimax: ") and len(lines) <= 150, len(lines)
    assert max(map(len, lines)) <= 100
    for algorithm, found in results.extra_data["diagnoses"].items():
        first = unmarked_line(found["hint"].splitlines()[0])  # as terminal text
        assert sum(line == first for line in lines) == 1, algorithm


def test_variants_parse_differ_from_the_correct_solution_and_are_listed_in_the_readme():
    correct = variants.source("correct")
    readme = (SUBMISSIONS / "README.md").read_text()
    for name, variant in VARIANTS.items():
        text = variants.source(name)
        compile(text, name, "exec")
        assert text != correct
        assert f"| `{name}` |" in readme, name
        assert set(variant.algorithms) <= {"minimax", "alpha_beta", "expectimax", "maxn", "mcts",
                                           "iterative_deepening"}


def test_each_variant_changes_only_the_algorithms_it_declares():
    """What lets the fixture grade a variant's other algorithms on one case each: nothing but
    functions differs from the correct solution (a changed or added one), and the algorithms the variant declares are
    among those that reach a function it changes (all of those are graded on every case;
    returns_action reaches iterative_deepening, which calls alpha_beta below the root only)."""
    correct, correct_rest, _ = CORRECT_TOP_LEVEL
    for name, variant in VARIANTS.items():
        functions, rest, _ = _top_level(variants.source(name))
        assert rest == correct_rest and set(functions) >= set(correct), name  # (helpers added)
        assert set(variant.algorithms) <= reached_algorithms(name), name


def test_a_replacement_that_no_longer_applies_names_the_variant(tmp_path, monkeypatch):
    edited = tmp_path / "search.py"
    edited.write_text(variants.source("correct").replace("if v >= beta:", "if beta <= v:"))
    monkeypatch.setattr(variants, "CORRECT", edited)
    with pytest.raises(variants.VariantError, match="variant 'strict_pruning', replacement 0"):
        variants.source("strict_pruning")
    with pytest.raises(KeyError, match="expected a variant name"):
        variants.source("no_such_variant")


def test_script_mode_writes_every_variant(tmp_path, capsys):
    assert variants.main([str(tmp_path)]) == 0
    written = sorted(path.parent.name for path in tmp_path.glob("*/search.py"))
    assert written == sorted(variants.ALL)  # the play variants too (tests/test_play.py)
    assert variants.main([]) == 2


# --- specific facts, each from the reference's own traces -------------------------------------


def ab_cases():
    return [case for case in VARIANT_CASES if "alpha_beta" in case.algorithms]


def test_strict_pruning_loses_exactly_where_the_two_rules_part(graded):
    tests = by_test(graded["strict_pruning"])
    parting = {case.name for case in ab_cases() if case.pruning != "either"
               and reference_run(case, "alpha_beta", "inclusive").generated
               != reference_run(case, "alpha_beta", "strict").generated}
    assert parting and lost(graded, "strict_pruning", "alpha_beta") == parting
    for case in ab_cases():
        test = tests[("alpha_beta", case.name)]
        if case.pruning == "either":
            assert test.passed
        elif case.name in parting:
            partial = RUBRIC.settings_for(case, "alpha_beta").partial_credit
            assert test.outcome == "wrong_trace" and test.score == test.max_score * partial


def test_never_prunes_keeps_every_value_and_loses_where_the_reference_prunes(graded):
    outcomes = {test.outcome for test in graded["never_prunes"].tests}
    assert outcomes == {"passed", "wrong_trace"}
    assert lost(graded, "never_prunes", "alpha_beta") == {c.name for c in ab_cases() if prunes(c)}


def test_no_window_passing_prunes_nothing_at_all(graded):
    # Every node starts at (-inf, inf): MAX cuts at v >= inf and MIN at v <= -inf, never.
    # (Iterative deepening's root passes its window to each child, so depth 1 can still cut.)
    assert {(t.number, t.outcome, t.score) for t in graded["no_window_passing"].tests
            if t.algorithm != "iterative_deepening"} == \
        {(t.number, t.outcome, t.score) for t in graded["never_prunes"].tests
         if t.algorithm != "iterative_deepening"}


def test_eager_generation_keeps_values_and_loses_wherever_anything_is_pruned(graded):
    assert {t.outcome for t in graded["eager_generation"].tests} <= {"passed", "wrong_trace"}
    pruning = {case.name for case in ab_cases() if prunes(case)}
    assert pruning <= lost(graded, "eager_generation", "alpha_beta")


def test_forgetting_alpha_still_cuts_at_max_nodes(graded):
    assert {t.outcome for t in graded["forgets_alpha_update"].tests} <= {"passed", "wrong_trace"}
    forgetful = lost(graded, "forgets_alpha_update", "alpha_beta")
    assert forgetful and forgetful < lost(graded, "never_prunes", "alpha_beta")


def test_depth_off_by_one_loses_exactly_the_depth_limited_minimax_cases(graded):
    limited = {c.name for c in VARIANT_CASES if "minimax" in c.algorithms and c.depth_limit}
    assert limited and lost(graded, "depth_off_by_one", "minimax") == limited


@pytest.mark.parametrize("name", ["chance_as_min", "chance_unweighted"])
def test_chance_mistakes_get_values_wrong_never_the_trace(graded, name):
    tests = by_test(graded[name])
    plain = [c for c in VARIANT_CASES if "expectimax" in c.algorithms and c.value_bounds is None]
    for case in VARIANT_CASES:
        if "expectimax" not in case.algorithms:
            continue
        test = tests[("expectimax", case.name)]
        assert test.outcome in ("passed", "wrong_value"), test.name
        if case.value_bounds is not None or not has_chance(case):
            assert test.passed, test.name
    assert any(not tests[("expectimax", case.name)].passed for case in plain)
    if name == "chance_as_min":
        assert all(not tests[("expectimax", c.name)].passed for c in plain if has_chance(c))


def test_unweighted_averaging_passes_where_every_chance_node_is_uniform(graded):
    tests = by_test(graded["chance_unweighted"])
    for case in VARIANT_CASES:
        if "expectimax" not in case.algorithms or case.form == "game":
            continue  # a built-in game is too big to walk whole
        uniform = all(max(p for _, p in outcomes) - min(p for _, p in outcomes) < 1e-12
                      for outcomes in chance_nodes(case))
        if uniform:
            assert tests[("expectimax", case.name)].passed, case.name


@pytest.mark.parametrize("name", ["maxn_player0", "maxn_wrong_component"])
def test_maxn_mistakes_without_pruning_change_the_value_only(graded, name):
    tests = by_test(graded[name])
    for case in VARIANT_CASES:
        if "maxn" in case.algorithms and case.max_sum is None:
            assert tests[("maxn", case.name)].outcome in ("passed", "wrong_value")
    assert any(t.outcome == "wrong_value" for t in tests.values())


def test_mcts_by_mean_builds_the_same_tree_but_answers_another_child(graded):
    tests = by_test(graded["mcts_by_mean"])
    trace_cases = [c for c in VARIANT_CASES if "mcts" in c.algorithms and c.mcts.check == "trace"]
    assert all(tests[("mcts", c.name)].outcome in ("passed", "wrong_value") for c in trace_cases)
    assert tests[("mcts", "mcts-visits-not-mean")].outcome == "wrong_value"
    # the named mistake rests on the trace cases only, and says so (the student sees them all)
    mcts = [test for test in graded["mcts_by_mean"].tests if test.algorithm == "mcts"]
    why = " ".join(next(test for test in mcts if not test.passed).output.split())
    checks = sum(test.extra_data.get("check") == "outcome" for test in mcts)
    assert checks and "whose trace is compared" in why, why
    if not any(test.hidden for test in mcts if test.extra_data.get("check") != "outcome"):
        assert f"all {len(mcts) - checks} graded mcts cases whose trace is compared (not the " \
               f"{checks} that check only the move chosen)" in why, why


@pytest.mark.parametrize("name", ["mcts_max_reward", "ucb_log10", "mcts_expand_all",
                                  "simulate_from_parent"])
def test_mcts_mistakes_fail_at_least_one_mcts_case(graded, name):
    assert lost(graded, name, "mcts")
    if name == "mcts_max_reward":
        assert any(t.outcome == "wrong_value" for t in graded[name].tests)


def test_returning_the_action_passes_only_where_the_action_equals_the_value(graded):
    tests = by_test(graded["returns_action"])
    for case in VARIANT_CASES:
        for algorithm in set(case.algorithms) & {"minimax", "alpha_beta"}:
            action = decision(case.build_game(), algorithm)
            value = reference_run(case, algorithm).value
            coincide = not isinstance(action, str) and action == value
            assert tests[(algorithm, case.name)].passed == coincide, case.name


def test_recomputing_a_child_duplicates_generations_on_every_minimax_case(graded):
    minimax = [t for t in graded["recomputes_child"].tests if t.algorithm == "minimax"]
    assert minimax and all(t.outcome == "wrong_trace" for t in minimax)
    assert all("generated" in t.output for t in minimax)


ID_VARIANTS = [name for name, variant in VARIANTS.items()
               if variant.functions == ("iterative_deepening",)]


@pytest.mark.parametrize("name", ID_VARIANTS)
def test_iterative_deepening_mistakes_are_named_and_report_the_nodes_ordering_saves(graded, name):
    tests = [t for t in graded[name].tests if t.algorithm == "iterative_deepening"]
    failing = [t for t in tests if not t.passed]
    assert failing
    assert any(f"(`{name}`)" in t.output for t in failing), name
    assert all("**Move ordering.**" in t.output for t in tests)
    # the step note of its own: the iteration the first difference is in, never minimax's
    # "values backed up" note (every iterative-deepening case's trace runs past no step limit)
    for test in failing:
        if "`generated` differs" in test.output:
            assert "of the reference's iterative deepening (depth limit" in test.output, name
        assert "backed up" not in test.output


@pytest.mark.parametrize("name", ["no_ordering", "worst_first"])
def test_iterative_deepening_misordered_root_is_told_its_iteration_order_and_next_node(graded, name):
    """On the intro case iteration 2 searches c first (iteration 1's values c 5, a 2, b 1);
    these mistakes search a or b there."""
    test = by_test(graded[name])[("iterative_deepening", "iterative-deepening-intro")]
    text = " ".join(test.output.split())
    assert "Step 4 is in iteration 2 of the reference's iterative deepening (depth limit 2;" in text
    assert "in the order c, a, b: iteration 1's values c = 5, a = 2, b = 1" in text
    assert "so it generates c next. Yours generated " + ("a." if name == "no_ordering" else "b.") \
        in text


def test_ordering_worst_first_never_changes_the_value_only_the_trace(graded):
    tests = [t for t in graded["worst_first"].tests if t.algorithm == "iterative_deepening"]
    assert {t.outcome for t in tests} == {"wrong_trace"}


# --- results.json ------------------------------------------------------------------------------


def test_every_submissions_results_json_validates(graded, tmp_path):
    for name, results in graded.items():
        data = write_results(results, tmp_path / f"{name}.json")
        VALIDATOR.validate(data)
        assert json.loads((tmp_path / f"{name}.json").read_text()) == data
        assert data["score"] == pytest.approx(results.score)
        assert len(data["tests"]) == len(results.tests)


# --- the named mistake: one per algorithm, on every failing test ------------------------------


@pytest.mark.parametrize("name", list(VARIANTS))
def test_each_submission_is_told_its_own_mistake_on_every_failing_test(graded, name):
    """The diagnosis weighs every graded case of the algorithm: the variant's own mistake is
    named (maybe with alternatives no case tells apart) on each failing test with a trace, and
    no other algorithm's tests name anything."""
    results = graded[name]
    diagnoses = results.extra_data.get("diagnoses", {})
    for test in results.tests:
        case = next(c for c in VARIANT_CASES if c.name == test.case_name)
        if test.algorithm not in VARIANTS[name].algorithms:
            assert "likely mistake" not in test.summary, test.name
            continue
        if test.passed or (test.algorithm == "mcts" and case.mcts.check != "trace"):
            continue
        if name not in {m.name for m in CATALOGUE if m.algorithm == test.algorithm}:
            continue  # an alpha-beta mistake inside iterative deepening: not that catalogue's
        named = [hint["name"] for hint in test.extra_data.get("mistakes", [])]
        assert name in named, (test.name, test.summary)
        assert "(likely mistake: " in test.summary
        assert name in diagnoses[test.algorithm]["mistakes"]
    assert set(diagnoses) <= set(VARIANTS[name].algorithms)


def test_every_set_of_alternatives_named_is_in_the_shipped_table_of_telling_trees(graded):
    """The sets of mistakes the known-wrong submissions are named with, as alternatives, are in
    reference/telling_trees.json (grader/scoring/telling.py), under either rule: their grades
    show its tree (or that none tells them apart) without a search. A set found missing is
    added with ``python bench/telling_trees.py write "ALGORITHM RULE NAME NAME NAME"``."""
    from grader.scoring.telling import table, table_key
    from reference.mistakes import RULES

    named = {(algorithm, tuple(found["mistakes"])) for results in graded.values()
             for algorithm, found in results.extra_data.get("diagnoses", {}).items()
             if len(found["mistakes"]) > 1}
    assert named  # never_prunes and no_window_passing: no graded case tells them apart
    missing = [table_key(algorithm, names, rule) for algorithm, names in sorted(named)
               for rule in RULES if table_key(algorithm, names, rule) not in table()]
    assert not missing, missing


# Not a variant of the catalogue (no hint names it): an mcts that is no MCTS at all.
MCTS_IS_MINIMAX = """

def mcts(game, state, iterations, rng, c=math.sqrt(2)):  # noqa: B008
    mover = game.to_move(state)
    best, choice = -math.inf, None
    for action in game.actions(state):
        reward = _reward(_exhaustive(game, game.result(state, action)), mover)
        if reward > best:
            best, choice = reward, action
    return choice


def _exhaustive(game, state):
    if game.is_terminal(state):
        return game.utility(state)
    mover = game.to_move(state)
    values = [_exhaustive(game, game.result(state, a)) for a in game.actions(state)]
    return max(values, key=lambda value: _reward(value, mover))
"""


def test_an_mcts_that_is_minimax_earns_at_most_partial_credit(tmp_path):
    """Outcome tests are paired with trace tests (the rubric's outcome_needs_trace): the
    minimax move wins every outcome test, but no trace test passes, so each earns
    partial_credit; before the pairing this scored 5.5 of the 8 mcts points."""
    path = tmp_path / "search.py"
    path.write_text((SUBMISSIONS / "correct" / "search.py").read_text() + MCTS_IS_MINIMAX)
    results = grade(path, [case.path for case in CASES], rubric=RUBRIC, algorithms=["mcts"])
    outcome = [t for t in results.tests if t.extra_data.get("check") == "outcome"]
    traces = [t for t in results.tests if t.extra_data.get("check") != "outcome"]
    kinds = [case.mcts.check for case in CASES if "mcts" in case.algorithms]
    assert (len(outcome), len(traces)) == (kinds.count("outcome"), kinds.count("trace")) == (4, 5)
    assert not any(test.passed for test in traces)
    for test in outcome:
        assert (test.outcome, test.score) == ("wrong_trace", 0.5 * test.max_score), test.summary
        assert "earn full points only when an mcts trace test" in test.output
    share = sum(t.score for t in results.tests) / sum(t.max_score for t in results.tests)
    assert share <= RUBRIC.for_algorithm("mcts").partial_credit
