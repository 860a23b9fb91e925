"""grader batch (grader/batch/, grader/commands/batch.py): regrading a Gradescope export in
parallel, one results.json each plus a CSV; shards of it, and their merge."""

import csv
import io
import json
import os
import shutil
import zipfile
from pathlib import Path

import jsonschema
import pytest

import grader.answers.solve
import grader.answers.store
import grader.batch.pool
import grader.batch.shards
from grader.batch.shards import SHARD_FILE, parse_shard, shard_of, take_shard
from grader.commands.batch import batch_main, find_submissions, merge_main, read_metadata

ROOT = Path(__file__).resolve().parent.parent
CORRECT = ROOT / "tests" / "submissions" / "correct" / "search.py"
STUB = ROOT / "student" / "search.py"  # every function raises NotImplementedError
CASES = [ROOT / "trees" / "public" / "aima-fig-5-2.json", ROOT / "trees" / "public" / "min-at-root.json"]
SCHEMA = json.loads((ROOT / "tests" / "gradescope_results.schema.json").read_text())

METADATA = """\
---
submission_101:
  :submitters:
  - :name: Ada Lovelace
    :sid: '100'
    :email: ada@example.edu
  :created_at: 2024-03-01 10:00:00.000000000 -08:00
  :score: 10.0
submission_102:
  :submitters:
  - :name: "Alan O'Turing"
    :sid: '200'
    :email: alan@example.edu
  - :name: 'Grace ''Amazing'' Hopper'
    :sid: '201'
    :email: grace@example.edu
  :history:
  - :submitters:
    - :name: Someone Earlier
submission_103:
  :submitters:
  - :name: Stub Student
    :email: stub@example.edu
"""


@pytest.fixture(scope="module")
def export(tmp_path_factory):
    """An export: a correct folder, a correct zip (a pair), the unchanged stub, a broken zip.
    The two cases make five tests: minimax and alpha_beta on both, expectimax on min-at-root."""
    folder = tmp_path_factory.mktemp("export")
    (folder / "submission_101").mkdir()
    shutil.copy(CORRECT, folder / "submission_101" / "search.py")
    with zipfile.ZipFile(folder / "submission_102.zip", "w") as archive:
        archive.write(CORRECT, "hw/search.py")
    (folder / "submission_103").mkdir()
    shutil.copy(STUB, folder / "submission_103" / "search.py")
    (folder / "submission_104.zip").write_bytes(b"this is not a zip file")
    (folder / "submission_metadata.yml").write_text(METADATA)
    return folder


@pytest.fixture(scope="module")
def graded(export, tmp_path_factory):
    """The first batch run, with the staff cache moved aside so the parent computes the key;
    which process ran the reference is logged (pool processes are forked from this one)."""
    out = tmp_path_factory.mktemp("out")
    log = tmp_path_factory.mktemp("log") / "solved-by"
    patch = pytest.MonkeyPatch()
    patch.setattr(grader.answers.store, "CACHE_KEY", out.parent / "empty-cache.json")
    real_solve = grader.answers.solve.solve

    def logged_solve(*args, **kwargs):
        with open(log, "a") as stream:
            stream.write(f"{os.getpid()}\n")
        return real_solve(*args, **kwargs)

    patch.setattr(grader.answers.solve, "solve", logged_solve)
    stream = io.StringIO()
    try:
        code = batch_main(export, out, cases=CASES, jobs=2, stream=stream)
    finally:
        patch.undo()
    solvers = set(log.read_text().split()) if log.exists() else set()
    return out, code, stream.getvalue(), solvers


def _grade_or_die(submission, results_path):
    """Kills its grading process on submission_104 (pool processes are forked: this module's
    function is what they run, looked up by name)."""
    if Path(submission).stem == "submission_104":
        os._exit(1)
    return REAL_GRADE(submission, results_path)


REAL_GRADE = grader.batch.pool.grade_submission


def rows(out):
    with open(out / "scores.csv", newline="") as stream:
        return list(csv.DictReader(stream))


def test_every_submission_gets_a_valid_results_file(graded):
    out, _, _, _ = graded
    for name in ("submission_101", "submission_102", "submission_103", "submission_104"):
        data = json.loads((out / name / "results.json").read_text())
        jsonschema.validate(data, SCHEMA)
    assert json.loads((out / "submission_102" / "results.json").read_text())["score"] == 5


def test_scores_csv_has_one_row_a_submission_with_people_totals_and_tests(graded):
    out, _, _, _ = graded
    table = rows(out)
    assert [row["submission"] for row in table] == [
        "submission_101", "submission_102", "submission_103", "submission_104"]
    tests = ["minimax: aima-fig-5-2", "minimax: min-at-root", "alpha_beta: aima-fig-5-2",
             "alpha_beta: min-at-root", "expectimax: min-at-root"]
    assert list(table[0]) == ["submission", "names", "emails", "sids", "score", "max_score",
                              "error", *tests]
    ada, pair, stub, broken = table
    assert (ada["names"], ada["emails"], ada["sids"]) == ("Ada Lovelace", "ada@example.edu", "100")
    assert pair["names"] == "Alan O'Turing; Grace 'Amazing' Hopper"
    assert pair["sids"] == "200; 201"
    assert [ada[t] for t in tests] == ["1"] * 5 and (ada["score"], ada["max_score"]) == ("5", "5")
    assert pair["score"] == "5" and not pair["error"]
    assert [stub[t] for t in tests] == ["0"] * 5 and stub["score"] == "0"
    assert broken["names"] == "" and broken["score"] == "0"


def test_a_broken_submission_is_recorded_and_the_batch_goes_on(graded):
    out, code, printed, _ = graded
    broken = rows(out)[3]
    assert "not a readable zip file" in broken["error"]
    assert code == 1  # some submission has an error
    assert "4 graded" in printed and "1 with errors" in printed


def test_reference_answers_are_computed_in_the_parent_only(graded):
    out, _, _, solvers = graded
    assert solvers == {str(os.getpid())}
    key = json.loads((out / ".answer-key.json").read_text())
    runs = [k for k in key["entries"] if k.endswith(":inclusive:None")]
    assert len(runs) == 5  # the reference's run of each (case, algorithm), the course's rule


def test_a_rerun_skips_up_to_date_results_and_force_redoes_them(graded, export):
    out, _, _, _ = graded
    before = {p.parent.name: p.stat().st_mtime_ns for p in out.glob("*/results.json")}
    stream = io.StringIO()
    batch_main(export, out, cases=CASES, jobs=2, stream=stream)
    assert "0 graded, 4 up to date" in stream.getvalue()
    assert {p.parent.name: p.stat().st_mtime_ns for p in out.glob("*/results.json")} == before
    assert len(rows(out)) == 4  # the CSV still lists everyone

    later = (out / "submission_101" / "results.json").stat().st_mtime + 10
    os.utime(export / "submission_101" / "search.py", (later, later))  # resubmitted
    stream = io.StringIO()
    batch_main(export, out, cases=CASES, jobs=2, stream=stream)
    assert "1 graded, 3 up to date" in stream.getvalue()
    assert "[4/4] submission_101: 5/5" in stream.getvalue()

    stream = io.StringIO()
    batch_main(export, out, cases=CASES, jobs=2, force=True, stream=stream)
    assert "4 graded, 0 up to date" in stream.getvalue()
    after = {p.parent.name: p.stat().st_mtime_ns for p in out.glob("*/results.json")}
    assert all(after[name] != before[name] for name in before)


def test_metadata_reader_keeps_each_submissions_own_submitters():
    people = read_metadata(METADATA)
    assert [p["name"] for p in people["submission_102"]] == ["Alan O'Turing", "Grace 'Amazing' Hopper"]
    assert people["submission_103"] == [{"name": "Stub Student", "email": "stub@example.edu"}]
    assert isinstance(read_metadata("- [not\n  : the: format\n:::\n"), dict)  # never raises


def test_an_export_unzipped_into_its_own_folder_is_looked_into(tmp_path):
    inner = tmp_path / "assignment_1_export"
    (inner / "submission_7").mkdir(parents=True)
    (inner / "submission_metadata.yml").write_text("submission_7:\n  :submitters:\n  - :name: X\n")
    found = find_submissions(tmp_path)
    assert [(s.id, s.submitters) for s in found] == [("submission_7", [{"name": "X"}])]


def test_a_submission_that_kills_its_grader_costs_only_its_own_row(export, tmp_path, monkeypatch):
    monkeypatch.setattr(grader.batch.pool, "grade_submission", _grade_or_die)
    stream = io.StringIO()
    code = batch_main(export, tmp_path, cases=CASES[:1], jobs=2, stream=stream)
    table = {row["submission"]: row for row in rows(tmp_path)}
    assert "died twice" in table["submission_104"]["error"]
    assert (table["submission_101"]["score"], table["submission_102"]["score"]) == ("2", "2")
    assert code == 1 and "4 graded" in stream.getvalue()
    jsonschema.validate(json.loads((tmp_path / "submission_104" / "results.json").read_text()),
                        SCHEMA)


# --- shards ----------------------------------------------------------------------------------


def test_shards_are_a_deterministic_partition_of_the_export(export):
    everyone = find_submissions(export)
    for count in (1, 2, 3, 7):
        shares = [take_shard(everyone, (k, count)) for k in range(1, count + 1)]
        ids = [s.id for share in shares for s in share]
        assert sorted(ids) == sorted(s.id for s in everyone) and len(set(ids)) == len(ids)
    # a submission's share depends on its id alone, not on what else the export holds
    assert shard_of("submission_101", 4) == shard_of("submission_101", 4)
    assert [shard_of(f"submission_{i}", 3) for i in range(6)] == [
        shard_of(f"submission_{i}", 3) for i in range(6)]
    assert {shard_of(f"submission_{i}", 3) for i in range(60)} == {1, 2, 3}
    assert parse_shard("2/5") == (2, 5)
    for bad in ("0/3", "4/3", "1", "a/b", "1/0"):
        with pytest.raises(ValueError, match="expected --shard K/N"):
            parse_shard(bad)


def test_the_union_of_the_shards_equals_an_unsharded_run(graded, export, tmp_path):
    out, _, _, _ = graded
    shards = []
    for k in (1, 2, 3):
        folder = tmp_path / f"shard-{k}"
        stream = io.StringIO()
        batch_main(export, folder, cases=CASES, jobs=2, shard=f"{k}/3", stream=stream)
        assert f"shard {k}/3:" in stream.getvalue()
        assert (folder / SHARD_FILE).exists()
        shards.append(folder)
    assert sum(len(rows(folder)) for folder in shards) == 4
    merged = tmp_path / "merged"
    stream = io.StringIO()
    code = merge_main(shards, merged, stream=stream)
    assert code == 1  # submission_104 is broken, in the merged run as in the unsharded one
    assert "3 shards merged: 4 submissions, 1 with errors" in stream.getvalue()
    assert (merged / "scores.csv").read_text() == (out / "scores.csv").read_text()
    for name in ("submission_101", "submission_102", "submission_103", "submission_104"):
        mine = json.loads((merged / name / "results.json").read_text())
        theirs = json.loads((out / name / "results.json").read_text())
        for data in (mine, theirs):
            data.pop("execution_time", None)
            for test in data.get("tests", []):  # the fields docs/staff.md lists as timings
                test.pop("execution_time", None)
                (test.get("extra_data") or {}).pop("timing", None)
        assert mine == theirs


def test_a_merge_needs_every_share_of_one_split_once(export, tmp_path, capsys):
    everyone = find_submissions(export)
    folders = []
    for k in (1, 2):
        folder = tmp_path / f"s{k}"
        grader.batch.shards.write_manifest(folder, (k, 2), everyone,
                                           take_shard(everyone, (k, 2)))
        folders.append(folder)
    assert merge_main([folders[0]], tmp_path / "m") == 2
    assert "share 2 of 2 missing" in capsys.readouterr().err
    assert merge_main([folders[0], folders[0]], tmp_path / "m") == 2
    assert "share 1/2 is given twice" in capsys.readouterr().err
    assert merge_main([tmp_path], tmp_path / "m") == 2
    assert "no .shard.json" in capsys.readouterr().err
    # every share given, but no results in them: each submission named, the rest still merged
    assert merge_main(folders, tmp_path / "m") == 1
    assert capsys.readouterr().err.count("run that shard again") == 4


def test_each_job_slot_claims_its_own_worker_user(tmp_path):
    import multiprocessing

    from grader.sandbox import limits

    with multiprocessing.get_context("fork").Pool(3) as pool:
        slots = pool.starmap(_claim, [(str(tmp_path),)] * 3)
    assert sorted(slots)[:1] == [1] and len(set(slots)) == len(slots)
    if os.geteuid() == 0:
        ids = {limits.slot_ids("nobody", slot) for slot in (1, 2, 3)}
        assert len({uid for uid, _ in ids}) == 3 and all(uid != 0 for uid, _ in ids)


def _claim(folder):
    import time

    from grader.sandbox.limits import claim_worker_slot

    slot = claim_worker_slot(folder)
    time.sleep(0.3)  # held while the siblings claim theirs
    return slot


KILLER = CORRECT.read_text() + '''

def alpha_beta(game, state, alpha=-math.inf, beta=math.inf, depth=0):
    import os, signal, time
    end = time.monotonic() + 3
    while time.monotonic() < end:  # every process this user may signal, again and again
        try:
            os.kill(-1, signal.SIGKILL)
        except OSError:
            pass
    return 0
'''
SLOW_CORRECT = CORRECT.read_text() + '''

_minimax = max_value


def max_value(game, state, depth=0):
    if depth == 0:
        import time
        time.sleep(0.3)  # alive while the other slot's submission kills what it can
    return _minimax(game, state, depth)
'''


@pytest.mark.skipif(os.geteuid() != 0, reason="worker users need root")
def test_a_submission_cannot_kill_another_slots_worker(tmp_path, monkeypatch):
    monkeypatch.setenv("GRADER_LANDLOCK", "0")  # as on a kernel without signal scoping
    export = tmp_path / "export"
    for name, text in (("submission_1", KILLER), ("submission_2", SLOW_CORRECT)):
        (export / name).mkdir(parents=True)
        (export / name / "search.py").write_text(text)
    out = tmp_path / "out"
    batch_main(export, out, cases=CASES, jobs=2, stream=io.StringIO())
    table = {row["submission"]: row for row in rows(out)}
    assert table["submission_2"]["score"] == table["submission_2"]["max_score"], table
    assert table["submission_2"]["error"] == ""


def test_a_name_that_starts_like_a_formula_reaches_scores_csv_as_text(tmp_path):
    # a student chooses their own name in the LMS; staff open scores.csv in a spreadsheet
    from grader.batch.export import Submission
    from grader.batch.scores import write_scores

    evil = "=HYPERLINK(\"https://example.com\",\"regrade\")"
    submission = Submission("-1+1", tmp_path, [{"name": evil, "email": "@x", "sid": "+1"}])
    found = {"score": 1.0, "max_score": 2.0, "error": "=cmd", "tests": [("1.1", "minimax: a", 1.0, 1.0)]}
    path = tmp_path / "scores.csv"
    write_scores(path, [submission], {"-1+1": found})
    (row,) = csv.DictReader(io.StringIO(path.read_text()))
    assert (row["submission"], row["names"], row["emails"], row["sids"], row["error"]) == (
        "'-1+1", "'" + evil, "'@x", "'+1", "'=cmd")
    assert (row["score"], row["max_score"], row["minimax: a"]) == ("1", "2", "1")


def test_an_upload_that_cannot_be_walked_is_graded_and_the_batch_goes_on(tmp_path):
    """Issue 34: 1,500 nested folders (``rglob`` raised RecursionError) and a dangling link
    (``stat`` raised FileNotFoundError) in one upload stopped the batch before anyone was
    graded, in ``newest_change``; now each is its own row and the others are graded."""
    from grader.batch.export import newest_change

    export = tmp_path / "export"
    for name in ("submission_1", "submission_2", "submission_3"):
        (export / name).mkdir(parents=True)
        shutil.copy(CORRECT, export / name / "search.py")
    deep = export / "submission_1"
    for _ in range(1500):  # one level at a time: mkdir(parents=True) recurses
        deep = deep / "a"
        deep.mkdir()
    (deep / "late.txt").write_text("x")
    os.utime(deep / "late.txt", (2e9, 2e9))
    (export / "submission_2" / "search.py").unlink()
    (export / "submission_2" / "search.py").symlink_to(tmp_path / "nowhere.py")
    try:
        assert newest_change(export / "submission_1") == 2e9  # the deepest file counts
        assert newest_change(export / "submission_2") > 0  # the link itself, never followed
        assert newest_change(tmp_path / "missing") == float("inf")  # graded again, never an error
        out, stream = tmp_path / "out", io.StringIO()
        code = batch_main(export, out, cases=CASES[:1], jobs=2, stream=stream)
        table = {row["submission"]: row for row in rows(out)}
        assert (table["submission_1"]["score"], table["submission_3"]["score"]) == ("2", "2")
        assert table["submission_2"]["score"] == "0"
        assert "symbolic link" in json.loads((out / "submission_2" / "results.json").read_text())[
            "output"]
        assert code in (0, 1) and "3 graded" in stream.getvalue()
    finally:  # pytest's clean-up (shutil.rmtree) recurses before Python 3.12: levels removed here
        (deep / "late.txt").unlink()
        while deep != export / "submission_1":
            deep.rmdir()
            deep = deep.parent
