"""A batch across machines: each machine grades a deterministic share, one merge combines them.

``grader batch EXPORT --shard K/N`` grades the submissions whose shard (:func:`shard_of`, from
a hash of the submission id alone: the same on every machine, whatever else the export holds)
is K, and writes ``.shard.json`` beside its results: which share it is and its submissions,
with their place in the export and their submitters. ``grader batch --merge DIR... --out OUT``
(:func:`merge_shards`) checks that the folders are the N shares of one split, each once,
copies every submission's folder into OUT and writes one ``scores.csv``: the same rows, in the
same order, as one unsharded run.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path
from typing import Any

from grader.batch.export import Submission
from grader.batch.scores import RESULTS_FILE, SCORES_FILE, summary, write_scores
from grader.files import write_text_atomically

SHARD_FILE = ".shard.json"


class ShardError(ValueError):
    """A --shard value or a set of shard folders that cannot be used; the message says why."""


def parse_shard(text: str) -> tuple[int, int]:
    """``"2/5"`` -> ``(2, 5)``: share K of N, 1 <= K <= N."""
    match = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text or "")
    if not match or not 1 <= int(match[1]) <= int(match[2]):
        raise ShardError(f"expected --shard K/N with 1 <= K <= N (e.g. 1/4), got: {text!r}")
    return int(match[1]), int(match[2])


def shard_of(submission_id: str, count: int) -> int:
    """The share (1..count) a submission belongs to: a hash of its id, so a submission's share
    never depends on the machine, the Python version or the other submissions."""
    digest = hashlib.sha256(submission_id.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % count + 1


def take_shard(submissions: list[Submission], shard: tuple[int, int]) -> list[Submission]:
    """The submissions of share ``shard`` = (K, N), in export order."""
    number, count = shard
    return [s for s in submissions if shard_of(s.id, count) == number]


def write_manifest(out: Path, shard: tuple[int, int], everyone: list[Submission],
                   mine: list[Submission]) -> None:
    """``out/.shard.json``: this share, the export's size, and each of its submissions with its
    place in the export and its submitters (what the merged scores.csv needs)."""
    place = {s.id: i for i, s in enumerate(everyone)}
    manifest = {"shard": list(shard), "export_size": len(everyone),
                "submissions": [{"id": s.id, "index": place[s.id], "submitters": s.submitters}
                                for s in mine]}
    out.mkdir(parents=True, exist_ok=True)
    write_text_atomically(json.dumps(manifest, indent=1) + "\n", out / SHARD_FILE)


def _manifest(folder: Path) -> dict[str, Any]:
    path = folder / SHARD_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        number, count = (int(v) for v in data["shard"])
        entries = [(str(e["id"]), int(e["index"]), list(e.get("submitters") or []))
                   for e in data["submissions"]]
    except FileNotFoundError:
        raise ShardError(f"{folder}: no {SHARD_FILE}; expected the --out folder of a "
                         "`grader batch --shard K/N` run") from None
    except (OSError, ValueError, TypeError, KeyError) as error:
        raise ShardError(f"{path}: not a shard manifest ({error})") from None
    return {"shard": (number, count), "entries": entries, "size": int(data.get("export_size", 0))}


def merge_shards(folders: list[Path], out: Path) -> tuple[list[Submission], dict[str, dict],
                                                          list[str]]:
    """Combine the shard folders into ``out``: every submission's folder copied, one scores.csv.

    Returns (the submissions in export order, their summaries, problems: submissions a shard
    lists without a readable results.json, each said once). Raises :class:`ShardError` when the
    folders are not the N shares of one split, each given once.
    """
    manifests = [(Path(folder), _manifest(Path(folder))) for folder in folders]
    counts = {m["shard"][1] for _, m in manifests}
    if len(counts) != 1:
        raise ShardError("the folders come from different splits (N = "
                         f"{', '.join(str(c) for c in sorted(counts))}); merge the shares of one")
    count = counts.pop()
    seen: dict[int, Path] = {}
    for folder, manifest in manifests:
        number = manifest["shard"][0]
        if number in seen:
            raise ShardError(f"share {number}/{count} is given twice: {seen[number]} and {folder}")
        seen[number] = folder
    missing = [str(k) for k in range(1, count + 1) if k not in seen]
    if missing:
        raise ShardError(f"share{'s' if len(missing) > 1 else ''} {', '.join(missing)} of "
                         f"{count} missing: give every shard's --out folder")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    placed: list[tuple[int, Submission]] = []
    summaries: dict[str, dict] = {}
    problems: list[str] = []
    for folder, manifest in manifests:
        for submission_id, index, submitters in manifest["entries"]:
            source = folder / submission_id
            target = out / submission_id
            if source.resolve() != target.resolve():
                if target.exists():
                    shutil.rmtree(target)
                if source.is_dir():
                    shutil.copytree(source, target)
            try:
                data = json.loads((target / RESULTS_FILE).read_text(encoding="utf-8"))
            except (OSError, ValueError):
                problems.append(f"{submission_id}: no readable {RESULTS_FILE} in {folder}; "
                                "run that shard again")
                continue
            placed.append((index, Submission(submission_id, source, submitters)))
            summaries[submission_id] = {**summary(data), "seconds": 0.0}
    submissions = [s for _, s in sorted(placed, key=lambda item: (item[0], item[1].id))]
    write_scores(out / SCORES_FILE, submissions, summaries)
    return submissions, summaries, problems
