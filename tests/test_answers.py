"""grader/answers.py: reference answers computed once, cached by content, shipped in handouts."""

import functools
import json

import pytest
from racing import race

from grader.answers import store as answers_module
from grader.answers.store import AnswerKey, case_fingerprint
from grader.cases import case_from_dict
from grader.errors import GraderError

TREE = {
    "$schema": "../../grader/schema/case.schema.json",
    "name": "small",
    "description": "a small tree",
    "algorithms": ["minimax", "alpha_beta"],
    "tree": [[3, 12, 8], [2, 4, 6], [14, 5, 2]],
}


def case(**changes):
    return case_from_dict({**TREE, **changes})


def test_answers_are_computed_once_and_reused(tmp_path, monkeypatch):
    key = AnswerKey(cache=tmp_path / "key.json")
    calls = []
    import grader.answers.solve

    real_solve = grader.answers.solve.solve
    monkeypatch.setattr(grader.answers.solve, "solve", lambda *a, **k: calls.append(a) or real_solve(*a, **k))
    first = key.reference(case(), "alpha_beta", "inclusive")
    second = key.reference(case(), "alpha_beta", "inclusive")
    assert first.run.value == second.run.value == 3
    assert first.run.evaluated == ["B1", "B2", "B3", "C1", "D1", "D2", "D3"]
    assert len(calls) == 1


def test_the_cache_survives_a_save_and_reload(tmp_path):
    path = tmp_path / "key.json"
    key = AnswerKey(cache=path)
    key.reference(case(), "minimax", "inclusive")
    key.save()
    reloaded = AnswerKey(cache=path)
    assert len(reloaded.entries) == 1
    assert reloaded.reference(case(), "minimax", "inclusive").run.value == 3


def test_a_built_key_answers_without_solving_and_a_case_edited_after_the_build_is_recomputed(
        tmp_path, monkeypatch):
    """What ``grader build autograder`` ships: a fresh container's first submission solves
    nothing, except a case edited after the build (its content no longer matches a key entry)."""
    built = AnswerKey(cache=None)
    built.reference(case(), "minimax", "inclusive")
    built.save(tmp_path / "built.json", used_only=True)
    cache = tmp_path / "fresh-container" / "answer-key.json"
    calls = []
    import grader.answers.solve

    real_solve = grader.answers.solve.solve
    monkeypatch.setattr(grader.answers.solve, "solve", lambda *a, **k: calls.append(a) or real_solve(*a, **k))
    fresh = AnswerKey(files=[tmp_path / "built.json"], cache=cache)
    assert fresh.reference(case(), "minimax", "inclusive").run.value == 3
    fresh.save()
    assert calls == [] and not cache.exists()  # nothing computed, nothing to cache
    edited = case(tree=[[3, 12, 8], [2, 4, 6], [14, 5, 20]])  # a leaf changed after the build
    assert fresh.reference(edited, "minimax", "inclusive").run.value == 5
    assert len(calls) == 1
    fresh.save()
    assert len(answers_module.key_entries(cache.read_text())) == 2  # the fresh answer is cached


def test_the_default_key_reads_the_autograder_zips_key(tmp_path, monkeypatch):
    built = AnswerKey(cache=None)
    built.reference(case(), "minimax", "inclusive")
    built.save(tmp_path / ".answer-key.json", used_only=True)
    monkeypatch.setattr(answers_module, "AUTOGRADER_KEY", tmp_path / ".answer-key.json")
    monkeypatch.setattr(answers_module, "CACHE_KEY", tmp_path / "cache.json")
    assert set(AnswerKey.default().entries) == set(built.entries)


def test_editing_a_case_changes_its_fingerprint_but_prose_does_not():
    assert case_fingerprint(case()) != case_fingerprint(case(tree=[[3, 12, 8], [2, 4, 6], [14, 5, 1]]))
    assert case_fingerprint(case()) == case_fingerprint(case(description="reworded", name="renamed"))


def test_a_key_computed_by_other_code_is_ignored(tmp_path):
    path = tmp_path / "key.json"
    key = AnswerKey(cache=path)
    key.reference(case(), "minimax", "inclusive")
    key.save()
    data = json.loads(path.read_text())
    data["code_version"] = "something-else"
    path.write_text(json.dumps(data))
    assert AnswerKey(cache=path).entries == {}


def test_without_the_reference_only_the_shipped_key_answers(tmp_path, monkeypatch):
    shipped = tmp_path / ".answer-key.json"
    staff_key = AnswerKey()
    staff_key.reference(case(), "minimax", "inclusive")
    staff_key.save(shipped)

    monkeypatch.setattr(answers_module, "code_version", lambda: None)  # as in the handout
    handout_key = AnswerKey(files=[shipped])
    assert handout_key.reference(case(), "minimax", "inclusive").run.value == 3
    with pytest.raises(GraderError, match="not in the handout's answer key"):
        handout_key.reference(case(), "alpha_beta", "strict")


def test_times_from_another_machine_are_scaled_by_calibration(tmp_path, monkeypatch):
    shipped = tmp_path / ".answer-key.json"
    staff_key = AnswerKey()
    measured = staff_key.reference(case(), "minimax", "inclusive").seconds
    staff_key._calibration = 0.01
    staff_key.save(shipped)
    other_machine = AnswerKey(files=[shipped])
    other_machine._calibration = 0.03  # three times slower
    scaled = other_machine.reference(case(), "minimax", "inclusive").seconds
    assert scaled == pytest.approx(3 * measured)


def test_long_traces_are_stored_packed_and_read_back_exactly(tmp_path):
    cache = tmp_path / "answer-key.json"
    long_trace = [f"xo.|s{i % 97:02d}|.ox" for i in range(5_000)]  # 97 boards, repeated
    short = ["A", "B"]
    key = AnswerKey(cache=cache)
    key.extra(case(), "traces", lambda: {"generated": long_trace, "evaluated": short,
                                         "nested": [{"generated": long_trace[::-1]}]})
    key.save()
    (text,) = json.loads(cache.read_text())["entries"].values()  # the entry's own JSON text
    assert answers_module.PACKED in text and text.count('"xo.|s05|.ox"') == 2  # once a list
    assert len(text) < len(json.dumps(long_trace))  # both lists: 4 bytes an entry, not a string
    again = AnswerKey(cache=cache).extra(case(), "traces", lambda: pytest.fail("not cached"))
    assert again == {"generated": long_trace, "evaluated": short,
                     "nested": [{"generated": long_trace[::-1]}]}
    table = f'"{answers_module.PACKED}":['
    damaged = text.replace(table + '"xo.|s00|.ox",', table)
    assert damaged != text
    data = json.loads(cache.read_text())
    data["entries"] = {key: damaged for key in data["entries"]}
    cache.write_text(json.dumps(data))  # an index now past its table: the entry is not trusted
    assert AnswerKey(cache=cache).entries == {}


def test_the_key_a_build_ships_is_the_same_bytes_whatever_the_cache(tmp_path):
    """Issue 31: two staff members building the same commit, each with an answer cache of their
    own (other timings, another calibration), ship the same key: it holds answers only."""
    from pathlib import Path

    from grader.cases import load_case
    from grader.commands.build import answer_key

    repo = Path(__file__).resolve().parent.parent
    cases = [load_case(repo / "trees" / "public" / name) for name in (
        "aima-fig-5-2.json", "mcts-tiny-tree.json", "maxn-ties.json", "dice-race.json",
        "iterative-deepening-intro.json", "evaluate-connect4-greedy.json")]
    first = answer_key(repo, cases, tmp_path / "alice" / "answer-key.json")
    alice_text = (tmp_path / "alice" / "answer-key.json").read_text()
    alice = json.loads(alice_text)
    assert any("seconds" in entry for entry in answers_module.key_entries(alice_text).values())

    def slower(text):  # the cache keeps times: the same answer, 3 times the seconds
        entry = json.loads(text)
        return json.dumps({**entry, "seconds": entry["seconds"] * 3} if "seconds" in entry
                          else entry)

    bob_cache = tmp_path / "bob" / "answer-key.json"  # the same answers, another machine's times
    bob_cache.parent.mkdir()
    bob_cache.write_text(json.dumps({**alice, "calibration": alice["calibration"] * 3, "entries": {
        key: slower(text) for key, text in alice["entries"].items()}}))
    assert answer_key(repo, cases, bob_cache) == first
    assert answer_key(repo, cases, tmp_path / "carol" / "answer-key.json") == first  # computed anew
    shipped = json.loads(first)
    assert "calibration" not in shipped and shipped["entries"]
    assert not any("seconds" in entry for entry in answers_module.key_entries(first).values())


def test_answers_read_from_a_shipped_key_have_no_time(tmp_path):
    built = AnswerKey(cache=None)
    built.reference(case(), "minimax", "inclusive")
    built.save(tmp_path / "built.json", used_only=True, shipped=True)
    reference = AnswerKey(files=[tmp_path / "built.json"]).reference(case(), "minimax", "inclusive")
    assert reference.run.value == 3 and reference.seconds is None


def test_the_suite_keeps_its_answers_out_of_the_default_cache():
    """tests/conftest.py points GRADER_CACHE elsewhere: the suite's answers (every variant, every
    random tree) would otherwise swell the cache every later `grader grade` reads whole."""
    from pathlib import Path

    repo = Path(__file__).resolve().parent.parent
    assert answers_module.CACHE_KEY != repo / ".cache" / "answer-key.json"


def test_a_grade_decodes_only_the_entries_it_asks_for_and_saves_the_others_as_read(tmp_path):
    """Each entry is a JSON text of its own, decoded on its first lookup: a grade of one case
    does not decode the others' answers, and a cache saved after a new answer writes the
    entries nobody asked for back byte for byte."""
    path = tmp_path / "key.json"
    key = AnswerKey(cache=path)
    key.reference(case(), "minimax", "inclusive")
    key.reference(case(), "alpha_beta", "inclusive")
    key.save()
    before = json.loads(path.read_text())["entries"]
    reloaded = AnswerKey(cache=path)
    assert reloaded.reference(case(), "alpha_beta", "inclusive").run.value == 3
    assert [k for k in before if ":minimax:" in k] == list(reloaded._pending)  # not decoded
    edited = case(tree=[[3, 12, 8], [2, 4, 6], [14, 5, 20]])
    assert reloaded.reference(edited, "minimax", "inclusive").run.value == 5  # a new answer
    reloaded.save()
    after = json.loads(path.read_text())["entries"]
    assert len(after) == 3 and all(after[k] == text for k, text in before.items())
    assert AnswerKey(cache=path).entries == answers_module.key_entries(path.read_text())


@pytest.mark.parametrize("name", [
    "scoring/assumptions.py",  # the assumptions cases' staff side (their table, the children's
                               # searches, the ghost's moves), kept whole in the key
    "run/runner.py",  # the rule naming the stub a test calls at the root, kept a case
    "games/tictactoe.py", "algorithms/minimax.py", "run/tracing.py",
])
def test_the_key_version_changes_with_the_code_its_kept_entries_come_from(name, monkeypatch):
    """An entry kept in the key is reused only under the same code version: an edit of any
    file its value comes from must give another version (else the key would hand a grade the
    old code's answer)."""
    from pathlib import Path

    from grader.answers.store import code_version
    from grader.paths import PACKAGE_ROOT

    before = code_version()
    edited, read = PACKAGE_ROOT / name, Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes",
                        lambda self: read(self) + b"\n# edited" if self == edited else read(self))
    assert code_version() != before


def test_a_key_shared_by_threads_answers_every_lookup(tmp_path):
    """`grader grade --jobs 2` grades in two threads with one key: a lookup of one case's
    answers from a file (kept unpacked, one case at a time) must not drop or disturb the
    entry another thread's lookup of another case is taking (it raised "dictionary changed
    size during iteration" in most runs of 30,000 lookups, a grader error on that test)."""
    from grader.cases import load_case
    from grader.paths import REPO_ROOT

    cases = [load_case(REPO_ROOT / "trees" / "public" / name)
             for name in ("aima-fig-5-2.json", "deep-narrow.json")]
    written = AnswerKey()
    for case in cases:
        written.reference(case, "minimax", "inclusive")
    written.save(tmp_path / "key.json")
    shared = AnswerKey(files=[tmp_path / "key.json"])
    errors: list[str] = []

    def look_up(case) -> None:
        for _ in range(15_000):
            try:
                shared.reference(case, "minimax", "inclusive")
            except Exception as error:  # noqa: BLE001 - any is the race
                errors.append(f"{type(error).__name__}: {error}")

    race(*[functools.partial(look_up, case) for case in cases])
    assert errors == []
