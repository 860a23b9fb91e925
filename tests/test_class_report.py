"""The class report of a batch (grader/batch/classreport.py, grader/report/html/classpage.py):
``grader batch --report``, ``grader batch --merge --report`` and ``grader report --class``.

One small export, graded once on one machine and once as two shards merged: known-wrong
submissions (tests/submissions/variants.py; strict pruning twice), correct ones, the untouched
stubs, a syntax error, a failed import, a memory bomb and a zip that is not one, on four cheap
trace cases and a two-match Connect Four case against the baseline. Every count on the page is checked against
the same count worked out here from the results files, with nothing of the report's code.
"""

from __future__ import annotations

import csv
import io
import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import suite_modules

from grader.batch.classreport import ClassReportError, pseudonym, read_batch
from grader.cli import main as cli_main
from grader.commands.batch import batch_main, merge_main

ROOT = Path(__file__).resolve().parent.parent
CORRECT = ROOT / "tests" / "submissions" / "correct" / "search.py"
STUB = ROOT / "student" / "search.py"
PUBLIC = ROOT / "trees" / "public"
TRACE_CASES = [PUBLIC / "aima-fig-5-2.json", PUBLIC / "prune-equal-root-level.json",
               PUBLIC / "min-at-root.json", PUBLIC / "expectimax-exp-value-10.json"]
PLAY_CASE = {"$schema": "../../grader/schema/case.schema.json", "name": "connect4-baseline",
             "description": "Connect Four against the staff's baseline search, two matches",
             "algorithms": ["evaluate"], "game": "connect4",
             "params": {"rows": 6, "columns": 7, "connect": 4},
             "play": {"opponent": "baseline", "seed": 6, "matches": 2}}
# submission -> the variant it is (None: written below); the catalogue mistake each must get
VARIANTS = {"submission_201": "strict_pruning", "submission_202": "strict_pruning",
            "submission_203": "never_prunes", "submission_204": "chance_as_min",
            "submission_205": "returns_action", "submission_206": "evaluate_constant",
            "submission_207": "correct", "submission_208": "correct"}
NAMED = {"strict_pruning": ("alpha_beta", "strict_pruning"),
         "never_prunes": ("alpha_beta", "never_prunes"),
         "chance_as_min": ("expectimax", "chance_as_min"),
         "returns_action": ("minimax", "returns_action")}
PEOPLE = {"submission_201": ("Ada Lovelace", "ada@example.edu"),
          "submission_202": ("Grace Hopper", "grace@example.edu"),
          "submission_205": ("Alan Turing", "alan@example.edu"),
          "submission_209": ("Stub Student", "stub@example.edu"),
          "submission_210": ("Syntax Sam", "sam@example.edu")}


@pytest.fixture(scope="module")
def export(tmp_path_factory):
    variants = suite_modules.load("submissions/variants.py")
    folder = tmp_path_factory.mktemp("class-export")
    for submission, name in VARIANTS.items():
        if name == "correct":
            (folder / submission).mkdir()
            shutil.copy(CORRECT, folder / submission / "search.py")
        else:
            variants.materialize(name, folder / submission)
    (folder / "submission_209").mkdir()
    shutil.copy(STUB, folder / "submission_209" / "search.py")
    (folder / "submission_210").mkdir()
    (folder / "submission_210" / "search.py").write_text("def max_value(game, state:\n")
    (folder / "submission_211").mkdir()
    (folder / "submission_211" / "search.py").write_text(
        "import a_module_nobody_installed\n" + CORRECT.read_text())
    (folder / "submission_212.zip").write_bytes(b"not a zip at all")
    attacks = suite_modules.load("hostile/attacks.py")
    bomb = next(a for a in attacks.ATTACKS if a.name == "memory_bomb")  # its alpha_beta
    attacks.write_submission(bomb, folder / "submission_213")
    metadata = ["---"]
    for submission, (name, email) in PEOPLE.items():
        metadata += [f"{submission}:", "  :submitters:", f"  - :name: {name}",
                     f"    :email: {email}", f"    :sid: '{submission[-3:]}'"]
    (folder / "submission_metadata.yml").write_text("\n".join(metadata) + "\n")
    cases = tmp_path_factory.mktemp("class-cases")
    (cases / "connect4-baseline.json").write_text(json.dumps(PLAY_CASE))
    return folder, [*TRACE_CASES, cases / "connect4-baseline.json"]


@pytest.fixture(scope="module")
def one_machine(export, tmp_path_factory):
    folder, cases = export
    out = tmp_path_factory.mktemp("class-out")
    report = tmp_path_factory.mktemp("class-report") / "class.html"
    stream = io.StringIO()
    code = batch_main(folder, out, cases=cases, jobs=2, stream=stream, report=report)
    return out, report, code, stream.getvalue()


@pytest.fixture(scope="module")
def merged(export, tmp_path_factory):
    folder, cases = export
    shards = []
    for k in (1, 2):
        shard = tmp_path_factory.mktemp(f"class-shard-{k}")
        batch_main(folder, shard, cases=cases, jobs=2, shard=f"{k}/2", stream=io.StringIO())
        shards.append(shard)
    out = tmp_path_factory.mktemp("class-merged")
    report = tmp_path_factory.mktemp("class-merged-report") / "class.html"
    code = merge_main(shards, out, stream=io.StringIO(), report=report)
    return out, report, code


def results_files(out: Path) -> dict[str, dict]:
    return {path.parent.name: json.loads(path.read_text()) for path in out.glob("*/results.json")}


def failing(test: dict) -> bool:
    extra = test.get("extra_data") or {}
    return (bool(test.get("number")) and test["max_score"] > 0 and test["score"] < test["max_score"]
            and extra.get("outcome") not in ("grader_error", "not_graded"))


def page(report: Path) -> ET.Element:
    return ET.fromstring(report.read_text(encoding="utf-8"))


def text_of(element: ET.Element) -> str:
    return " ".join("".join(element.itertext()).split())


def mistake_rows(report: Path) -> dict[str, tuple[int, int]]:
    """The page's named-mistakes table: title -> (students, failing tests), as shown."""
    rows = {}
    for table in page(report).iter("table"):
        head = [text_of(th) for th in table.iter("th")]
        if head[:3] != ["mistake", "algorithm", "students"]:
            continue
        for row in table.findall("tr")[1:]:
            cells = row.findall("td")
            title = text_of(cells[0].find("strong"))
            rows[f"{text_of(cells[1])}: {title}"] = (int(text_of(cells[2])), int(text_of(cells[4])))
    return rows


def test_the_batch_writes_the_page_its_figures_and_the_example_replays(one_machine):
    out, report, code, printed = one_machine
    assert code == 1  # submission_212 is not a zip: its row has an error, as without --report
    assert f"class report of 13 submissions written to {report}" in printed
    figures = json.loads(report.with_suffix(".json").read_text())
    assert figures["submissions"] == 13 and figures["graded"] == 12
    rows = list(csv.DictReader(io.StringIO(report.with_suffix(".csv").read_text())))
    assert {row["section"] for row in rows} >= {"score_histogram", "mistake", "unexplained",
                                                "play_histogram", "health", "full_marks"}
    text = report.read_text()
    assert "<script" not in text and "http://" not in text.replace(
        'xmlns="http://www.w3.org/2000/svg"', "")
    for entry in figures["mistakes"]:  # every example's replay is there, linked from the page
        replay = report.parent / entry["example"]["replay"]
        assert replay.is_file() and f'href="{entry["example"]["replay"]}"' in text
        assert "<html" in replay.read_text()
    assert len(report.read_bytes()) < 1_000_000


def test_each_catalogue_mistake_in_the_batch_has_its_count(one_machine):
    """Worked out from the results files alone: for each named mistake, the students whose
    failing tests carry it and how many of those tests; every variant's mistake is among them
    with as many students as the export has of that variant."""
    out, report, _, _ = one_machine
    expected: dict[str, list] = {}
    for submission, data in sorted(results_files(out).items()):
        for test in data["tests"]:
            hints = (test.get("extra_data") or {}).get("mistakes")
            if failing(test) and hints:
                key = test["name"].split(": ")[0] + ": " + ", or ".join(h["title"] for h in hints)
                students, tests = expected.setdefault(key, [set(), 0])
                students.add(submission)
                expected[key][1] = tests + 1
    shown = mistake_rows(report)
    assert {key: value for key, value in shown.items() if not key.startswith("evaluate")} == {
        key: (len(students), tests) for key, (students, tests) in expected.items()}
    figures = json.loads(report.with_suffix(".json").read_text())
    by_name: dict[tuple[str, str], int] = {}
    for entry in figures["mistakes"]:
        for name in entry["mistakes"]:
            by_name[(entry["algorithm"], name)] = by_name.get((entry["algorithm"], name), 0) + \
                entry["students"]
    for variant, key in NAMED.items():
        assert by_name.get(key) == list(VARIANTS.values()).count(variant), (variant, by_name)
    # evaluate's hint (a constant evaluation) is named too, for the one student it explains
    assert any(key.startswith("evaluate: ") and value[0] == 1 for key, value in shown.items())


def test_failing_tests_without_a_named_mistake_are_counted(one_machine):
    out, report, _, _ = one_machine
    every = explained = 0
    unexplained: dict[tuple[str, str], int] = {}
    for data in results_files(out).values():
        for test in data["tests"]:
            if not failing(test):
                continue
            every += 1
            extra = test.get("extra_data") or {}
            if extra.get("mistakes") or extra.get("hint"):
                explained += 1
            else:
                key = (test["name"].split(": ")[0], extra.get("outcome", "failed"))
                unexplained[key] = unexplained.get(key, 0) + 1
    figures = json.loads(report.with_suffix(".json").read_text())
    assert (figures["failing_tests"], figures["explained_tests"]) == (every, explained)
    assert every - explained > 0  # the stubs, the syntax error and the failed import
    assert {(r["algorithm"], r["outcome"]): r["tests"] for r in figures["unexplained"]} == \
        unexplained
    summary = next(p for p in page(report).iter("p") if "failing tests in all" in text_of(p))
    assert text_of(summary).startswith(f"{every} failing tests in all: {explained} explained "
                                       f"by a named mistake, {every - explained} by none")


def test_scores_play_and_health_match_the_results_files(one_machine):
    out, report, _, _ = one_machine
    points: dict[str, dict[str, list[float]]] = {}
    rates = []
    for submission, data in results_files(out).items():
        for test in data["tests"]:
            graded = (test.get("extra_data") or {}).get("outcome") != "not_graded"  # a zip's
            if test.get("number") and test["max_score"] > 0 and graded:  # nothing: no column
                total = points.setdefault(test["name"].split(": ")[0], {}).setdefault(
                    submission, [0.0, 0.0])
                total[0] += test["score"]
                total[1] += test["max_score"]
            summary = (test.get("extra_data") or {}).get("play_summary")
            if summary:
                rates.append(summary["value"] / summary["matches"])
    figures = json.loads(report.with_suffix(".json").read_text())
    shown = {entry["algorithm"]: entry for entry in figures["algorithms"]}
    assert set(shown) == set(points)
    for algorithm, totals in points.items():
        full = sum(1 for score, most in totals.values() if score >= most)
        assert (shown[algorithm]["students"], shown[algorithm]["full_marks"]) == (len(totals), full)
        assert sum(shown[algorithm]["histogram"]) == len(totals)
        assert shown[algorithm]["histogram"][-1] == full
        card = next(e for e in page(report).iter("div") if e.get("id") == f"algorithm-{algorithm}")
        assert f"Full marks: {full} of {len(totals)}" in text_of(card)
    (baseline,) = figures["play"]["opponents"]
    assert baseline["opponent"] == "baseline" and baseline["students"] == len(rates) == 9
    assert [e["rate"] for e in figures["play"]["strongest"]] == sorted(rates, reverse=True)
    health = {entry["kind"]: entry for entry in figures["health"]}
    assert health["syntax"]["students"] == ["submission_210 (Syntax Sam)"]
    assert health["import"]["students"] == ["submission_211"]
    assert health["grading"]["students"] == ["submission_212"]
    assert health["memory"]["students"] == ["submission_213"]  # MemoryError, in its alpha_beta
    assert health["budget"]["count"] == health["timeout"]["count"] == 0
    table = next(t for t in page(report).iter("table")
                 if [text_of(th) for th in t.iter("th")][:2] == ["what happened", "submissions"])
    assert [int(text_of(row.findall("td")[1])) for row in table.findall("tr")[1:]] == [
        entry["count"] for entry in figures["health"]]


def test_merged_shards_give_the_same_report_byte_for_byte(one_machine, merged):
    _, report, _, _ = one_machine
    _, merged_report, code = merged
    assert code == 1
    for suffix in (".html", ".json", ".csv"):
        assert merged_report.with_suffix(suffix).read_bytes() == report.with_suffix(
            suffix).read_bytes(), suffix
    mine = sorted(p.name for p in (report.parent / "class-replays").iterdir())
    theirs = sorted(p.name for p in (merged_report.parent / "class-replays").iterdir())
    assert mine and mine == theirs
    for name in mine:
        assert (report.parent / "class-replays" / name).read_bytes() == (
            merged_report.parent / "class-replays" / name).read_bytes()


def test_anonymised_report_names_no_student(one_machine, tmp_path):
    out, _, _, _ = one_machine
    report = tmp_path / "shared" / "class.html"
    assert cli_main(["report", "--class", str(out), "--html", str(report), "--anonymise"]) == 0
    again = tmp_path / "again" / "class.html"
    assert cli_main(["report", "--class", str(out), "--html", str(again), "--anonymise"]) == 0
    written = sorted(p for p in report.parent.rglob("*") if p.is_file())
    assert len(written) > 3
    for path in written:
        text = path.read_text(encoding="utf-8")
        for name, email in PEOPLE.values():
            assert name not in text and email not in text, (path, name)
            assert email.split("@")[0] + "@" not in text
        assert "submission_2" not in text, path  # nor the export's ids
        assert (again.parent / path.relative_to(report.parent)).read_bytes() == path.read_bytes()
    figures = json.loads(report.with_suffix(".json").read_text())
    health = {entry["kind"]: entry["students"] for entry in figures["health"]}
    assert health["syntax"] == [pseudonym("submission_210")]  # stable: the id's hash alone
    assert figures["anonymised"] is True


def test_a_folder_that_is_not_a_batch_output_is_refused_with_the_reason(tmp_path, capsys):
    assert cli_main(["report", "--class", str(tmp_path), "--html", str(tmp_path / "c.html")]) == 2
    assert f"{tmp_path}: no scores.csv" in capsys.readouterr().err
    (tmp_path / "scores.csv").write_text("who,what\nx,y\n")
    with pytest.raises(ClassReportError, match=r"scores.csv: line 1: expected the columns"):
        read_batch(tmp_path)
    (tmp_path / "scores.csv").write_text("submission,names,error\n../up,,\n")
    with pytest.raises(ClassReportError, match=r"scores.csv: line 2: expected a submission id"):
        read_batch(tmp_path)
    assert cli_main(["report", str(tmp_path / "r.json"), "--class", str(tmp_path),
                     "--html", str(tmp_path / "c.html")]) == 2
    assert "not both" in capsys.readouterr().err
    assert cli_main(["batch", str(tmp_path), "--out", str(tmp_path / "o"), "--anonymise"]) == 2
    assert "--anonymise is for the class report" in capsys.readouterr().err


def test_damaged_results_files_are_counted_not_fatal(tmp_path):
    """A results.json that is not JSON, or JSON of another shape, costs its own row only: the
    report is written and the submission is counted as not graded (the first) or as having no
    graded test (the second)."""
    (tmp_path / "scores.csv").write_text("submission,names,emails,sids,score,max_score,error\n"
                                         "s1,,,,0,0,\ns2,,,,0,0,\ns3,,,,0,0,\n")
    (tmp_path / "s1").mkdir()
    (tmp_path / "s1" / "results.json").write_text("{not json")
    (tmp_path / "s2").mkdir()
    (tmp_path / "s2" / "results.json").write_text(json.dumps({"tests": [
        {"number": "1.1", "name": "minimax: a", "score": "x", "max_score": [],
         "extra_data": ["not", "a", "dict"]},
        {"number": "7.1", "name": "evaluate: b", "score": 0, "max_score": 3,
         "extra_data": {"play_summary": {"matches": "many"}, "mistakes": "a string"}}]}))
    report = tmp_path / "r" / "class.html"
    assert cli_main(["report", "--class", str(tmp_path), "--html", str(report)]) == 0
    figures = json.loads(report.with_suffix(".json").read_text())
    health = {entry["kind"]: entry["students"] for entry in figures["health"]}
    assert health["grading"] == ["s1", "s3"]  # s3 has no folder at all
    assert figures["failing_tests"] == 1 and figures["unexplained_tests"] == 1
    assert figures["play"]["opponents"] == []


def test_the_page_opens_in_chromium_with_no_console_error(one_machine):
    browser = suite_modules.load("test_html_browser.py")
    if browser.missing_browser():
        pytest.skip(browser.missing_browser())
    from selenium.webdriver.common.by import By

    _, report, _, _ = one_machine
    figures = json.loads(report.with_suffix(".json").read_text())
    driver = browser.chromium(width=1100, height=1400)
    try:
        browser.open_report(driver, report)
        bars = driver.find_elements(By.CSS_SELECTOR, "div.card svg rect")
        assert len(bars) == sum(1 for entry in figures["algorithms"] + figures["play"]["opponents"]
                                for count in entry["histogram"] if count)
        assert all(bar.size["height"] > 0 for bar in bars)
        resources = driver.execute_script(
            "return performance.getEntriesByType('resource').map(function (e) { return e.name; })")
        assert [name for name in resources if not name.startswith(("data:", "file:"))] == []
        first = figures["mistakes"][0]["example"]["replay"]
        driver.find_element(By.CSS_SELECTOR, f'a[href="{first}"]').click()
        assert driver.current_url.endswith(first)
        assert browser.severe(driver) == []
        browser.open_report(driver, report)
        assert browser.severe(driver) == []
    finally:
        driver.quit()
