"""The HTML report (grader/html/): what the page holds, read with an XML parser.

The browser's side (the script, the slider, the console) is tests/test_html_browser.py.
"""

from __future__ import annotations

import functools
import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import suite_modules

from grader.answers.solve import solve
from grader.answers.store import AnswerKey
from grader.cases import load_case
from grader.commands.check import check_main
from grader.commands.report import report_main
from grader.report.gradescope import write_results
from grader.report.html import mcts_iterations, report_html, results_from_json
from grader.report.html.packing import pack, unpack
from grader.scoring.results import GradingResults, TestResult

REPO = Path(__file__).resolve().parent.parent
PUBLIC = REPO / "trees" / "public"
MAX_BYTES = 1_000_000

pytestmark = pytest.mark.local_check  # run again in the portable worker: tests/test_portable.py


def variants():
    return suite_modules.load("submissions/variants.py")


@pytest.fixture(scope="module")
def never_prunes_page(tmp_path_factory):
    """``grader check -a alpha_beta --html`` of the never-prunes variant on every public case
    (its iterative-deepening failures, the same mistake again, are left out)."""
    out = tmp_path_factory.mktemp("html")
    submission = variants().materialize("never_prunes", out / "never_prunes")
    path = out / "report.html"
    assert check_main(submission, [PUBLIC], algorithm="alpha_beta", html=path) == 1
    return path


def sections(root: ET.Element) -> dict[str, ET.Element]:
    """The page's case sections by test number."""
    return {s.get("id").removeprefix("test-").replace("-", "."): s
            for s in root.iter("section")}


def text_of(element: ET.Element) -> str:
    return " ".join("".join(element.itertext()).split())


def replay_data(section: ET.Element) -> dict:
    script = next(s for s in section.iter("script") if s.get("class") == "replay-data")
    return unpack(json.loads(script.text))


def lines_at(data: dict, side: str, step: int) -> dict[str, str]:
    info = data[side]
    return {info["lines"][i][0]: info["lines"][i][1] for i in info["rows"][step]}


def node_marks(section: ET.Element) -> dict[str, str]:
    return {g.get("data-id"): g.get("data-mark") for g in section.iter("g")
            if "node" in (g.get("class") or "").split()}


def failing(case_name: str, algorithm: str, rule: str, expected, got, number: str = "2.1",
            outcome: str = "wrong_trace") -> TestResult:
    """A failing test as grade_pair records it, with the replay data the page needs."""
    path = PUBLIC / f"{case_name}.json"
    return TestResult(
        name=f"{algorithm}: {case_name} (a case)", number=number, algorithm=algorithm,
        case_name=case_name, max_score=1.0, score=0.5, outcome=outcome,
        summary="right value, wrong expansion order", output="the feedback text",
        extra_data={"replay": {"case": str(path), "rule": rule,
                               "expected": {"value": expected.value,
                                            "generated": list(expected.generated)},
                               "got": {"value": got.value, "generated": list(got.generated)}}})


@functools.cache
def answer_key() -> AnswerKey:
    """The suite's answer cache, read once for this module's pages (about 10 MB: a third of a
    CPU second a read, and these tests run twice, tests/test_portable.py's run too)."""
    return AnswerKey.default()


def page_of(*tests: TestResult) -> ET.Element:
    text = report_html(GradingResults(tests=list(tests)), answers=answer_key())
    return ET.fromstring(text)


# --- the whole report of a full check ------------------------------------------------------------


def test_check_report_is_well_formed_offline_and_under_a_megabyte(never_prunes_page):
    text = never_prunes_page.read_text(encoding="utf-8")
    assert len(text.encode("utf-8")) < MAX_BYTES
    root = ET.fromstring(text)  # XHTML-compatible: an XML parser reads it
    assert root.tag == "html"
    links = [e.get(a) for e in root.iter() for a in ("src", "href") if e.get(a) is not None]
    assert [link for link in links if re.match(r"(?i)\s*(https?:)?//", link)] == []
    assert all(link.startswith(("#", "data:")) for link in links)
    assert not any(e.tag == "script" and e.get("src") for e in root.iter())
    assert "url(http" not in text and "@import" not in text


@pytest.mark.parametrize("variant", ["strict_pruning", "eager_generation"])
def test_the_heaviest_reports_stay_under_a_megabyte(tmp_path, variant):
    """The largest pages of the known variants over the public cases (strict pruning's was
    1.2 MB: its Connect Four step-through repeated 48-character boards in every line)."""
    submission = variants().materialize(variant, tmp_path / variant)
    check_main(submission, [PUBLIC], html=tmp_path / "report.html")
    assert (tmp_path / "report.html").stat().st_size < MAX_BYTES


def test_a_page_over_its_budget_keeps_the_first_sections_and_briefs_the_rest(monkeypatch):
    """However many tests fail, the page stays under 1 MB: sections past the budget lose their
    step-through and text, and say how to see them."""
    from grader.report.html import report as report_module

    case = load_case(PUBLIC / "aima-fig-5-2.json")
    expected = solve(case, "alpha_beta")
    got = solve(case, "alpha_beta", pruning="strict")
    tests = [failing(case.name, "alpha_beta", "inclusive", expected, got, f"2.{i}")
             for i in range(1, 9)]
    whole = report_html(GradingResults(tests=tests), answers=answer_key())
    one = len(whole.encode()) // 8
    monkeypatch.setattr(report_module, "PAGE_BUDGET", len(whole.encode()) - 3 * one)
    text = report_html(GradingResults(tests=tests), answers=answer_key())
    assert len(text.encode()) <= report_module.PAGE_BUDGET + 2000
    found = sections(ET.fromstring(text))
    assert list(found) == [f"2.{i}" for i in range(1, 9)]  # every failing test keeps its anchor
    briefed = [n for n, s in found.items() if "Left out to keep this page under 1 MB" in text_of(s)]
    assert briefed and briefed == [f"2.{i}" for i in range(9 - len(briefed), 9)]
    assert f"grader check -k {case.name} --html FILE" in text_of(found[briefed[0]])
    assert found["2.1"].get("data-replay") == "1"


def test_packed_step_through_stores_each_name_and_line_once_and_unpacks_exactly():
    board = "......x|...o..."
    sides = {
        "ref": {"ids": [board, "B"], "rows": [[0], [1, 2]],
                "lines": [["entered", "at the root"], ["entered", f"entered {board}, a child of A"],
                          ["window", f"window at {board}: α = 1"]]},
        "got": {"ids": [board, "C"], "rows": [[0], [1]],
                "lines": [["entered", "at the root"], ["entered", f"entered {board}, a child of A"]]},
    }
    packed = pack(2, 1, sides)
    assert packed["nodes"] == [board, "B", "C"]
    assert len(packed["lines"]) == 3  # the shared lines once
    assert packed["templates"][packed["lines"][1][0]] == ["entered", "entered ", ", a child of A"]
    assert packed["lines"][1][1:] == [0]
    assert json.dumps(packed).count(board) == 1
    assert unpack(packed) == {"steps": 2, "first": 1, **sides}


def test_every_failing_test_has_a_section_linked_from_the_score_table(never_prunes_page):
    root = ET.fromstring(never_prunes_page.read_text(encoding="utf-8"))
    table = next(t for t in root.iter("table") if t.get("class") == "scores")
    rows = [r for r in table.iter("tr") if r.get("data-outcome")]
    failing_numbers = {text_of(r[0]) for r in rows if r.get("data-outcome") != "passed"}
    assert failing_numbers and all(n.startswith("2.") for n in failing_numbers)
    assert set(sections(root)) == failing_numbers
    linked = {a.get("href") for a in table.iter("a")}
    assert linked == {f"#test-{n.replace('.', '-')}" for n in failing_numbers}


def test_a_replayed_section_has_tree_hint_and_window(never_prunes_page):
    section = next(s for s in sections(ET.fromstring(never_prunes_page.read_text())).values()
                   if "aima-fig-5-2" in text_of(s.find("h2")))
    assert node_marks(section)["C2"] == "extra"
    crossed = {g.get("data-to") for g in section.iter("g") if g.get("class") == "crossed"}
    assert crossed == {"C2", "C3"}  # the branches the reference pruned, crossed out
    text = text_of(section)
    assert "First difference at step 7" in text
    assert "Likely mistake: never prunes" in text
    assert "The lecture's pseudo-code: if v >= beta then return v" in text
    data = replay_data(section)
    assert (data["steps"], data["first"]) == (12, 7)
    assert lines_at(data, "ref", 7)["window"] == "window at A: α = 3, β = +∞"


# --- pieces, on hand-made results ---------------------------------------------------------------


def test_nodes_the_student_skipped_are_missing():
    case = load_case(PUBLIC / "prune-equal-root-level.json")
    strict, inclusive = solve(case, "alpha_beta", "strict"), solve(case, "alpha_beta", "inclusive")
    section = next(iter(sections(page_of(failing(case.name, "alpha_beta", "strict", strict,
                                                 inclusive))).values()))
    marks = node_marks(section)
    assert (marks["C2"], marks["C3"], marks["D"]) == ("missing", "missing", "both")
    data = replay_data(section)
    assert lines_at(data, "got", 7)["window"] == "window at A: α = 3, β = +∞"
    assert "inclusive rule's alpha-beta" in text_of(section)


def test_expectimax_steps_show_the_chance_nodes_running_sums():
    case = load_case(PUBLIC / "aima-fig-5-12-expectiminimax.json")
    expected = solve(case, "expectimax")
    section = next(iter(sections(page_of(failing(case.name, "expectimax", "inclusive", expected,
                                                 expected, "3.1", "wrong_value"))).values()))
    data = replay_data(section)
    ref_text = [line for kind, line in data["ref"]["lines"] if kind == "sum"]
    assert "chance B: running weighted sum 0.9×2 = 1.8 (1 of 2 outcomes done)" in ref_text
    assert not [kind for kind, _ in data["got"]["lines"] if kind in ("sum", "v")]
    assert "Yours are not shown" in text_of(section)


def test_mcts_iterations_rebuild_the_references_root_statistics():
    import random

    from reference.mcts import mcts_tree

    case = load_case(PUBLIC / "mcts-tiny-tree.json")
    run, game = solve(case, "mcts"), case.build_game()
    ends, stats, note = mcts_iterations(game, run.generated, case.mcts.iterations, case.mcts.c)
    assert note == "" and len(stats) == case.mcts.iterations == len(ends)
    root = mcts_tree(game, game.initial_state(), case.mcts.iterations,
                     random.Random(case.mcts.seed), case.mcts.c)
    assert [(a, n) for a, n, _ in stats[-1]] == [(str(k.action), k.n) for k in root.children]
    means = [w for _, _, w in stats[-1]]
    assert means == pytest.approx([k.w / k.n for k in root.children], abs=1e-12)
    _, partial, departs = mcts_iterations(game, run.generated[:-1], case.mcts.iterations,
                                          case.mcts.c)
    assert "step 8 UCT's convention generates C1; the trace has nothing more" in departs
    assert len(partial) < case.mcts.iterations


def test_large_tree_is_drawn_around_the_first_difference():
    case = load_case(PUBLIC / "deep-narrow.json")  # 511 nodes
    expected = solve(case, "alpha_beta")
    everything = solve(case, "minimax")  # what a search that never prunes generates
    section = next(iter(sections(page_of(failing(case.name, "alpha_beta", "inclusive", expected,
                                                 everything))).values()))
    marks = node_marks(section)
    assert 10 < len(marks) < 100
    first = replay_data(section)["first"]
    assert marks[expected.generated[first - 1]] == "both"
    assert marks[everything.generated[first - 1]] == "extra"
    svg = next(section.iter("svg"))
    assert "drawn around the first difference" in svg.get("aria-label")
    assert any(t.get("class") == "more" for t in section.iter("text"))


def test_report_main_rebuilds_the_page_from_results_json(tmp_path, capsys):
    case = load_case(PUBLIC / "aima-fig-5-2.json")
    expected = solve(case, "alpha_beta")
    got = solve(case, "minimax")
    test = failing(case.name, "alpha_beta", "inclusive", expected, got)
    results_path = tmp_path / "results.json"
    write_results(GradingResults(tests=[test]), results_path)
    data = json.loads(results_path.read_text())
    for item in data["tests"]:  # what results.json carries once gradescope.py copies extra_data
        item.setdefault("extra_data", {}).update(test.extra_data)
    results_path.write_text(json.dumps(data))
    assert report_main(results_path, html=tmp_path / "report.html") == 0
    root = ET.fromstring((tmp_path / "report.html").read_text())
    section = sections(root)["2.1"]
    assert node_marks(section)["C3"] == "extra" and replay_data(section)["first"] == 7
    assert "HTML report written" in capsys.readouterr().out


def test_report_main_refuses_a_file_that_is_not_results(tmp_path, capsys):
    bad = tmp_path / "results.json"
    bad.write_text("[1, 2]")
    assert report_main(bad, html=tmp_path / "report.html") == 2
    expected = "expected a results.json object with a 'tests' list, got: list"
    assert expected in capsys.readouterr().err
    assert not (tmp_path / "report.html").exists()
    assert report_main(tmp_path / "nowhere.json", html=tmp_path / "report.html") == 2


def test_results_from_json_keeps_scores_and_failures():
    results = results_from_json({"tests": [
        {"name": "minimax: a-case (x)", "number": "1.1", "score": 1, "max_score": 1,
         "status": "passed"},
        {"name": "mcts: b-case (y)", "number": "5.1", "score": 0.5, "max_score": 1,
         "status": "failed", "output": "why"}]})
    assert [(t.algorithm, t.case_name, t.passed) for t in results.tests] == [
        ("minimax", "a-case", True), ("mcts", "b-case", False)]
    assert results.score == 1.5 and results.tests[1].outcome == "wrong_trace"


def test_a_failure_without_replay_data_is_still_listed():
    test = TestResult(name="alpha_beta: aima-fig-5-2 (x)", number="2.1", algorithm="alpha_beta",
                      case_name="aima-fig-5-2", max_score=1, score=0, outcome="timeout",
                      summary="did not finish", output="`alpha_beta` did not finish <in time>")
    section = sections(page_of(test))["2.1"]
    assert "your code gave no trace to replay" in text_of(section)
    assert "`alpha_beta` did not finish <in time>" in text_of(section)


def test_the_page_is_made_without_reference(tmp_path):
    """The handout has no reference/: the page still comes out (hints and windows come from
    the answer key, which this run does not have)."""
    case = load_case(PUBLIC / "aima-fig-5-2.json")
    test = failing(case.name, "alpha_beta", "inclusive", solve(case, "alpha_beta"),
                   solve(case, "minimax"))
    data = {"tests": [{"name": test.name, "number": "2.1", "score": 0.5, "max_score": 1,
                       "status": "failed", "extra_data": test.extra_data}]}
    (tmp_path / "results.json").write_text(json.dumps(data))
    script = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'reference' or name.startswith('reference.'):\n"
        "            raise ImportError('no reference in the handout')\n"
        "sys.meta_path.insert(0, Block())\n"
        "from grader.commands.report import report_main\n"
        f"sys.exit(report_main({str(tmp_path / 'results.json')!r}, "
        f"html={str(tmp_path / 'r.html')!r}))\n")
    done = subprocess.run([sys.executable, "-c", script], check=False, cwd=tmp_path,
                          capture_output=True,
                          text=True, timeout=120, env={"GRADER_CACHE": str(tmp_path / "cache"),
                                                       "PATH": "/usr/bin:/bin",
                                                       "PYTHONPATH": str(REPO)})  # this checkout
    assert done.returncode == 0, done.stderr
    section = sections(ET.fromstring((tmp_path / "r.html").read_text()))["2.1"]
    assert replay_data(section)["first"] == 7


def test_the_step_explanation_is_in_the_page_for_expectimax_maxn_mcts_and_deepening(golden):
    """The callout at the first difference carries the same explanation as the text feedback,
    from the answer key (Star1's bounds, max^n's shallow-pruning bound, an MCTS iteration,
    an iteration of iterative deepening with its root order and window)."""
    from grader.answers.solve import mcts_settings
    from grader.run.runner import run_algorithm
    from reference.mistakes import mistakes_for

    shown = []
    for number, (case_name, algorithm, name) in enumerate([
            ("star1-bounded-expectimax", "expectimax", "ignores_bounds"),
            ("maxn-shallow-pruning", "maxn", "maxn_wrong_component"),
            ("mcts-tiny-tree", "mcts", "mcts_reward_to_move"),
            ("iterative-deepening-intro", "iterative_deepening", "no_ordering")], start=1):
        case = load_case(PUBLIC / f"{case_name}.json")
        mistake = next(m for m in mistakes_for(algorithm, "inclusive") if m.name == name)
        got = run_algorithm(mistake.functions("inclusive"), case.build_game(), algorithm,
                            mcts=mcts_settings(case) if algorithm == "mcts" else None)
        test = failing(case_name, algorithm, "inclusive", solve(case, algorithm), got,
                       f"{number}.1")
        section = next(iter(sections(page_of(test)).values()))
        callout = next(d for d in section.iter("div") if d.get("class") == "callout")
        shown.append(f"{case_name} / {name}:\n{text_of(callout)}\n")
    assert all("reference" in text for text in shown)
    golden("html/step-notes.txt", "\n".join(shown))


def test_the_handouts_key_shows_a_strict_trace_as_the_strict_rules_and_names_mistakes():
    """The handout's key (prepare_answers) holds both rules' windows, the variants' runs and
    the step moments: without reference/, a trace that is exactly the strict rule's is shown
    as such, and the diagnosis of the whole submission is made from the key alone."""
    from grader.cases.rubric import load_rubric
    from grader.feedback.verdict import Observation, diagnose_submission
    from grader.report.html.replay import build_replay
    from grader.run.runner import RunResult
    from grader.scoring.grade import prepare_answers

    case = load_case(PUBLIC / "prune-equal-depth-2.json")
    key = AnswerKey(cache=None)
    prepare_answers([case], load_rubric(), key)
    key.version = None  # as in the handout: only what the key file holds
    strict = solve(case, "alpha_beta", pruning="strict")
    inclusive = solve(case, "alpha_beta")
    assert strict.generated != inclusive.generated
    replay = build_replay(failing(case.name, "alpha_beta", "inclusive", inclusive, strict),
                          case, {"rule": "inclusive",
                                 "expected": {"value": inclusive.value,
                                              "generated": inclusive.generated},
                                 "got": {"value": strict.value, "generated": strict.generated}},
                          key)
    assert any("exactly the strict rule's alpha-beta" in note for note in replay.notes)
    assert not any("matches neither" in note for note in replay.notes)
    got = RunResult(strict.value, list(strict.generated), list(strict.evaluated))
    found = diagnose_submission("alpha_beta", [Observation(case, "inclusive", False, got)], key)
    assert found is not None and "strict_pruning" in [hint.name for hint in found.hints]


def test_control_characters_a_submission_printed_keep_the_page_readable_as_xml():
    # An ANSI escape, a form feed and U+FFFE in what search.py printed: XML 1.0 holds none.
    noise = "\x1b[2J\x0c\ufffe</pre><script>alert(1)</script>"
    test = TestResult(name=f"minimax: noisy {noise}", number="1.1", algorithm="minimax",
                      case_name="noisy", max_score=1.0, score=0.0, outcome="error",
                      summary=noise, output=f"Your code printed:\n```\n{noise}\n```")
    text = report_html(GradingResults(tests=[test], output=noise))
    root = ET.fromstring(text)
    assert "\x1b" not in text and "\ufffe" not in text
    assert not any(e.tag == "script" and "alert" in (e.text or "") for e in root.iter())
