"""Scale sections: a big case file, a deep one, and batch regrading of a mixed export."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from bench.measure import GRADER, PYTHON, REPO, median_measured, run_measured, table

STAGES = """
import gc, json, sys, time
from pathlib import Path
import grader.cases as cases
from grader.cases.fast import plain_tree_nodes
path = Path(sys.argv[1])
text = path.read_text()
seconds = {}
def stage(name, function):
    start = time.perf_counter()
    result = function()
    seconds[name] = round(time.perf_counter() - start, 3)
    return result
gc.disable()
data = stage("json.loads", lambda: json.loads(text))
parsed = stage("parse_case_text (positions: on demand)", lambda: cases.parse_case_text(text))
stage("positions scan (only for an error)", lambda: dict(parsed.positions))
stage("plain_tree_nodes (the fast path)", lambda: plain_tree_nodes(data))
stage("schema_errors (general, tree vouched)", lambda: cases.schema_errors(data))
stage("structure_errors (general path)", lambda: cases.structure_errors(data))
stage("build_game", lambda: cases.case_from_dict(data, path).build_game())
print(json.dumps(seconds))
"""
LOAD = "import sys; from grader.cases import load_case; load_case(sys.argv[1]).build_game()"
WRITE = ("import sys; from pathlib import Path; from bench.trees import write_random_case; "
         "write_random_case(Path(sys.argv[1]), int(sys.argv[2]))")


def _deep_text(depth: int) -> str:
    """A full-tree case nested ``depth`` levels (a spine with one leaf a level), built as text."""
    head = "".join(
        f'{{"id": "n{i}", "player": "{"max" if i % 2 else "min"}", "children": '
        f'[{{"id": "l{i}", "value": {i}}}, ' for i in range(1, depth + 1))
    body = head + '{"id": "end", "value": 0}' + "]}" * depth
    return json.dumps({"$schema": "../../grader/schema/case.schema.json", "name": "deep",
                       "description": "deep", "algorithms": ["minimax"]})[:-1] + f', "tree": {body}}}'


def _loads(path: Path) -> bool:
    done = subprocess.run([PYTHON, "-c", LOAD, str(path)], capture_output=True, cwd=REPO)
    return done.returncode == 0


def big_cases(sizes: list[tuple[int, int]], timeout: float) -> dict[str, Any]:
    """Load + validate + build a random full-tree case file of each size, ``grader validate``
    it and ``grader solve`` it (load + the reference's traced minimax), each in a fresh
    process; the stages of loading; and the deepest full tree that loads at all."""
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        for size, runs in sizes:
            path = Path(scratch) / f"random-{size}.json"
            subprocess.run([PYTHON, "-c", WRITE, str(path), str(size)], check=True, cwd=REPO)
            figures = median_measured([PYTHON, "-c", LOAD, str(path)], runs, timeout=timeout)
            rows.append({"loader": "grader.cases.load_case", "nodes": size, "runs": runs,
                         "file_mb": path.stat().st_size / 1e6, **figures})
            figures = median_measured([*GRADER, "validate", str(path)], runs, timeout=timeout)
            rows.append({"loader": "grader validate", "nodes": size, "runs": runs,
                         "file_mb": path.stat().st_size / 1e6, **figures})
            figures = median_measured([*GRADER, "solve", str(path), "-a", "minimax", "--json"],
                                      runs, timeout=timeout)
            rows.append({"loader": "grader solve -a minimax --json (load + traced search)",
                         "nodes": size, "runs": runs, "file_mb": path.stat().st_size / 1e6,
                         **figures})
            path.unlink()
        path = Path(scratch) / "stages.json"
        subprocess.run([PYTHON, "-c", WRITE, str(path), str(sizes[0][0])], check=True, cwd=REPO)
        done = subprocess.run([PYTHON, "-c", STAGES, str(path)], capture_output=True, text=True,
                              cwd=REPO)
        stages = json.loads(done.stdout) if done.returncode == 0 else {"error": done.stderr[-500:]}
        low, high = 10, 1000  # the deepest tree that loads lies in [low, high)
        deep = Path(scratch) / "deep.json"
        deep.write_text(_deep_text(high))
        if _loads(deep):
            low = high
        while high - low > 5 and low < high:
            middle = (low + high) // 2
            deep.write_text(_deep_text(middle))
            low, high = (middle, high) if _loads(deep) else (low, middle)
    print(table([[r["loader"], f"{r['nodes']:,}", f"{r['file_mb']:.0f}", f"{r['wall']:.1f}",
                  f"{r['cpu']:.1f}", f"{r['peak_mb']:.0f}", ",".join(r["codes"]), r["runs"]]
                 for r in rows],
                ["command", "case nodes", "file MB", "wall s", "CPU s", "peak MB", "exit",
                 "runs"]))
    print(f"load_case stages, {sizes[0][0]:,} nodes: "
          + ", ".join(f"{name} {value} s" for name, value in stages.items()))
    print(f"deepest full tree that loads: {low} levels (fails at about {high})")
    return {"rows": rows, "stages": {"nodes": sizes[0][0], **stages}, "deepest_loading": low,
            "first_failing": high,
            "target": {"wall": 10.0, "peak_mb": 1500}}


# --- batch ---------------------------------------------------------------------------------


def _generated(script: Path, scratch: Path) -> list[Path]:
    """The submissions a corpus script writes (none when the script is missing or fails)."""
    if not script.exists():
        return []
    target = scratch / script.stem
    done = subprocess.run([PYTHON, str(script), str(target)], capture_output=True, cwd=REPO)
    if done.returncode != 0 or not target.exists():
        return []
    return sorted(p for p in target.iterdir() if (p / "search.py").exists())


def _spread(items: list[Path], count: int) -> list[Path]:
    """``count`` items evenly spread over ``items`` (all when fewer)."""
    if len(items) <= count:
        return items
    return [items[round(i * (len(items) - 1) / (count - 1))] for i in range(count)]


# The bench's hostile submissions, by name: the 15 the corpus's spread gave when the figures in
# the README were first measured, kept fixed so that later figures compare (the corpus grows).
HOSTILE = ("atexit_hook", "environment", "forged_huge_trace", "forged_markup_ids", "frame_walk",
           "import_error", "kill_parent_group", "nan", "output_flood_fd", "patch_unittest",
           "read_answer_key", "replace_alarm_handler", "sleep_past_limit", "swallow_timeout",
           "wrong_signature")


def _hostile(scratch: Path) -> list[Path]:
    """The corpus's submissions named in :data:`HOSTILE`, in that order."""
    written = {p.name: p for p in _generated(REPO / "tests" / "hostile" / "attacks.py", scratch)}
    return [written[name] for name in HOSTILE if name in written]


PREPARE = """
import sys
from pathlib import Path
from grader.batch.pool import prepare_key
from grader.cases import find_cases
from grader.paths import REPO_ROOT
prepare_key(find_cases([REPO_ROOT / "trees" / "public", REPO_ROOT / "trees" / "hidden"]),
            Path(sys.argv[2]) if len(sys.argv) > 2 else None, Path(sys.argv[1]))
"""
ISSUE_MIX = {"correct": 20, "never_prunes": 10, "strict_pruning": 10, "chance_as_min": 10}


def batch(mix: dict[str, int], jobs: int, cache: Path,
          cases: list[Path] | None = None, rubric: Path | None = None,
          class_report: Path | None = None) -> dict[str, Any]:
    """``grader batch`` on an export of correct, wrong and hostile submissions (bundled cases,
    or ``cases``; under ``rubric``, default trees/rubric.toml); a ``mix`` naming variants
    (``ISSUE_MIX``: issue 19's, a fifth each of correct, never-prunes, strict-pruning,
    chance-as-min, correct) takes that many of each named variant. With ``class_report`` (a
    folder), then the class report of the batch's output too (:func:`measure_class_report`),
    kept in that folder."""
    correct = REPO / "tests" / "submissions" / "correct" / "search.py"
    with tempfile.TemporaryDirectory() as scratch_name:
        scratch = Path(scratch_name)
        variants = _generated(REPO / "tests" / "submissions" / "variants.py", scratch)
        named = {kind: count for kind, count in mix.items()
                 if kind not in ("correct", "wrong", "hostile")}
        kinds = {
            "correct": [correct.parent] * mix.get("correct", 0),
            "wrong": _spread(variants, mix.get("wrong", 0)),
            "hostile": _spread(_hostile(scratch), mix.get("hostile", 0)),
        }
        for kind, count in named.items():
            kinds[kind] = [p for p in variants if p.name == kind] * count
        short = sum(mix.values()) - sum(len(sources) for sources in kinds.values())
        kinds["correct"] += [correct.parent] * short  # a corpus not written yet: more correct ones
        export = scratch / "export"
        export.mkdir()
        names: dict[str, str] = {}
        for kind, sources in kinds.items():
            for i, source in enumerate(sources):
                name = f"submission_{kind}_{i:02d}"
                (export / name).mkdir()
                shutil.copy(source / "search.py", export / name / "search.py")
                names[name] = f"{kind}/{source.name}"
        out = scratch / "out"
        # The staff cache filled first, measured apart: every reference answer, the known
        # mistakes' runs and windows of every case (what the first batch on a case set
        # computes once; a rerun, or the next batch, reads them)
        chosen = ["--rubric", str(rubric)] if rubric else []
        prepared = run_measured([PYTHON, "-c", PREPARE, str(scratch / "key.json"),
                                 *([str(rubric)] if rubric else [])],
                                env={"GRADER_CACHE": str(cache)}, timeout=3600)
        chosen += ["--cases", *map(str, cases)] if cases else []
        figures = run_measured([*GRADER, "batch", str(export), "--out", str(out),
                                "--jobs", str(jobs), *chosen], env={"GRADER_CACHE": str(cache)},
                               timeout=3600)
        if not (out / "scores.csv").exists():
            raise RuntimeError(f"grader batch failed ({figures['code']}):\n{figures['stderr']}")
        reported = (measure_class_report(out, class_report, figures)
                     if class_report is not None else None)
        seconds: dict[str, list[float]] = {kind: [] for kind in kinds}
        slowest = []
        for name, label in names.items():
            data = json.loads((out / name / "results.json").read_text())
            seconds[label.split("/")[0]].append(float(data.get("execution_time") or 0.0))
            slowest.append((float(data.get("execution_time") or 0.0), label))
    total = len(names)
    rate = 60 * total / figures["wall"]
    cores = min(jobs, len(os.sched_getaffinity(0)))
    cpu_rate = 60 * total * cores / figures["cpu"]  # what the CPU time allows on those cores
    per_kind = {k: {"count": len(v), "mean_s": sum(v) / len(v) if v else 0.0}
                for k, v in seconds.items()}
    print(table([[k, v["count"], f"{v['mean_s']:.1f}"] for k, v in per_kind.items()],
                ["submissions", "count", "mean grading s each"]))
    print(f"batch of {total} on {jobs} jobs: {figures['wall']:.1f} s wall, {rate:.1f} submissions "
          f"a minute, peak {figures['peak_mb']:.0f} MB; slowest: "
          + ", ".join(f"{label} {s:.1f} s" for s, label in sorted(slowest, reverse=True)[:5]))
    print(f"CPU: {figures['cpu']:.0f} s in all, {figures['cpu'] / total:.2f} s a submission: "
          f"{cpu_rate:.1f} a minute on {cores} otherwise idle cores")
    print(f"before it, once per case set: the staff cache filled in {prepared['wall']:.1f} s wall, "
          f"{prepared['cpu']:.1f} CPU s (not in the figures above)")
    return {"submissions": total, "jobs": jobs, "rubric": str(rubric or "trees/rubric.toml"),
            **figures, "per_minute": rate,
            "cache_prepared": {k: prepared[k] for k in ("wall", "cpu", "peak_mb", "code")},
            "cpu_per_submission": figures["cpu"] / total, "cpu_bound_per_minute": cpu_rate,
            "per_kind": per_kind, "slowest": sorted(slowest, reverse=True)[:10],
            "target_per_minute": 60, **({"class_report": reported} if reported else {})}


REPORT_RUNS = 3


def measure_class_report(out: Path, keep: Path, batch_figures: dict[str, Any]) -> dict[str, Any]:
    """``grader report --class OUT`` on a batch's output (the median of :data:`REPORT_RUNS`
    runs, anonymised once more): its time against the batch's own (the issue's target: under
    5%), the page's size (under 1 MB) and its example replays'; whether Chromium opens it with
    no console error (when the browser test can run here). The report is kept in ``keep``, and
    the batch's output in ``keep/batch`` (``grader report --class`` runs again on it without
    regrading)."""
    keep = Path(keep)
    if keep.exists():
        shutil.rmtree(keep)
    shutil.copytree(out, keep / "batch")
    page = keep / "class.html"
    command = [*GRADER, "report", "--class", str(out), "--html", str(page)]
    measured = median_measured(command, REPORT_RUNS, timeout=600)
    anonymised = run_measured([*command[:-1], str(keep / "anonymised" / "class.html"),
                               "--anonymise"], timeout=600)
    replays = sorted((keep / "class-replays").glob("*.html"))
    figures = json.loads(page.with_suffix(".json").read_text())
    result = {
        **measured, "anonymised_wall": anonymised["wall"],
        "wall_share_of_batch": measured["wall"] / batch_figures["wall"],
        "cpu_share_of_batch": measured["cpu"] / batch_figures["cpu"],
        "html_bytes": page.stat().st_size,
        "json_bytes": page.with_suffix(".json").stat().st_size,
        "csv_bytes": page.with_suffix(".csv").stat().st_size,
        "replays": len(replays), "replay_bytes_max": max((p.stat().st_size for p in replays),
                                                          default=0),
        "mistakes": len(figures["mistakes"]), "failing_tests": figures["failing_tests"],
        "explained_tests": figures["explained_tests"],
        "console_errors": _console_errors(page),
    }
    share = 100 * result["wall_share_of_batch"]
    print(f"class report: {measured['wall']:.2f} s wall ({share:.1f}% "
          f"of the batch's {batch_figures['wall']:.0f} s), {measured['cpu']:.2f} CPU s "
          f"({100 * result['cpu_share_of_batch']:.1f}%); page {result['html_bytes']:,} bytes, "
          f"{result['replays']} example replays (largest {result['replay_bytes_max']:,} bytes); "
          f"{result['mistakes']} named mistakes explain {result['explained_tests']} of "
          f"{result['failing_tests']} failing tests; Chromium console errors: "
          f"{result['console_errors']}")
    return result


def _console_errors(page: Path) -> int | str:
    """Severe console entries when Chromium opens ``page``, or why it could not be opened."""
    import importlib.util
    import sys

    tests = str(REPO / "tests")
    if tests not in sys.path:  # the browser test imports its neighbours, as pytest lets it
        sys.path.insert(0, tests)
    spec = importlib.util.spec_from_file_location("test_html_browser",
                                                  REPO / "tests" / "test_html_browser.py")
    helpers = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(helpers)
    if helpers.missing_browser():
        return helpers.missing_browser()
    driver = helpers.chromium()
    try:
        driver.get(page.as_uri())
        return len(helpers.severe(driver))
    finally:
        driver.quit()


def trace_cases() -> list[Path]:
    """Every bundled case (public and hidden) but the ``evaluate`` ones, which are graded by
    play: the case set issue 19 measured, before play grading existed."""
    from grader.cases import find_cases, load_case

    paths = find_cases([REPO / "trees" / "public", REPO / "trees" / "hidden"])
    return [path for path in paths if load_case(path).algorithms != ["evaluate"]]
