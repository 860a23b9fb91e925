"""``grader build prairielearn --out DIR``: the course-side files PrairieLearn's external grader
needs, laid out as they go into a PrairieLearn course repository.

PrairieLearn's contract (its docs/externalGrading.md): a question whose ``info.json`` has
``"gradingMethod": "External"`` and ``externalGradingOptions`` (``image``, ``entrypoint``,
``serverFilesCourse``, ``timeout`` of at most 600 s) is graded in a container of that image;
the files named in ``serverFilesCourse`` are copied to ``/grade/serverFilesCourse/``, the
student's files to ``/grade/student/``, and the entrypoint must leave
``/grade/results/results.json`` (``grader grade --format prairielearn`` writes it).

``DIR`` then holds::

    questions/adversarial-search/      the question: info.json, question.html (the stub to
                                       download, the upload form for search.py or
                                       search.ipynb, the results element),
                                       clientFilesQuestion/search.py (the stub: the handout's
                                       student/search.py, its docstrings the assignment)
    serverFilesCourse/adversarial_search/
        run.sh                         the entrypoint: permissions, the grader, a fallback file
        grader/ reference/ trees/      the grader, the reference, every case, the rubric
        pyproject.toml README.md
        .cache/answer-key.json         every case's reference answers (times rescaled on the
                                       grading machine), so no job recomputes them
    image/Dockerfile, image/requirements.txt
                                       the grading image: Python 3.10, the pinned dependencies,
                                       the unprivileged user student code runs as
    README.md                          what to copy where, how to build and name the image

Built like the zips: files sorted, nothing generated collected, the cases checked first; written
to a temporary folder beside ``DIR`` and moved into place, so a failed build leaves nothing.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import sys
import tempfile
import textwrap
import uuid
from pathlib import Path

from grader.answers.store import CACHE_KEY
from grader.commands.bundle import (
    BuildError,
    Entry,
    answer_key,
    check_cases,
    collect,
    file_entry,
)
from grader.errors import CaseError
from grader.paths import REPO_ROOT

QUESTION = "adversarial-search"  # the question id (its folder under questions/)
SHARED = "adversarial_search"  # its folder under serverFilesCourse/
DEFAULT_IMAGE = "adversarial-search-grader"
TIMEOUT = 300  # seconds PrairieLearn gives a job (its maximum is 600)
BUDGET = 270  # seconds run.sh gives the grader, so its fallback file is written in time
MARKER = ".grader-prairielearn"  # a folder holding this is ours to rebuild

STUB = "search.py"  # the stub's name in clientFilesQuestion/ and the upload's
QUESTION_HTML = """\
<pl-question-panel>
  <p>
    Implement {functions} in <code>search.py</code>. Start from this file: its docstrings say
    what each function must return, the game interface it calls, and the order in which it
    must visit the tree.
  </p>
  <p>
    <pl-file-download file-name="{stub}" label="Download the starting search.py">
    </pl-file-download>
  </p>
  <p>
    The grader checks each search's value
    <strong>and the order in which it generates and evaluates nodes</strong>{play}.
    {hidden}
  </p>
  <p>Upload <code>search.py</code>, or your notebook saved as <code>search.ipynb</code>.</p>
  <pl-file-upload optional-file-names="search.py, search.ipynb"></pl-file-upload>
</pl-question-panel>

<pl-submission-panel>
  <pl-external-grader-results></pl-external-grader-results>
  <pl-file-preview></pl-file-preview>
</pl-submission-panel>
"""

RUN_SH = """\
#!/usr/bin/env bash
# PrairieLearn's entrypoint for the adversarial-search question (grader build prairielearn).
# PrairieLearn copies this folder to /grade/serverFilesCourse/{shared}/ and the student's files
# to /grade/student/, runs this script in the grading image, and reads
# /grade/results/results.json, which is written whatever happens: when the grader cannot
# start or runs out of time, a not-gradable file (no attempt used) with a neutral message.
#
# As in Gradescope's run_autograder: student code runs as grader-worker (made by the image),
# which may read the grader package and nothing else of the course, in any copy PrairieLearn
# makes, whether or not the host gives Landlock.
#
# Variables (defaults: PrairieLearn's layout; the tests point them at a temporary tree):
#   GRADE_ROOT          /grade
#   GRADER_PYTHON       the Python with the grader's dependencies (the image's python3)
#   GRADER_TIME_BUDGET  seconds before the grader is stopped; under info.json's "timeout"
set -uo pipefail

source_dir="$(cd "$(dirname "${{BASH_SOURCE[0]}}")" && pwd)"
grade_root="${{GRADE_ROOT:-/grade}}"
results_dir="$grade_root/results"
results="$results_dir/results.json"
python="${{GRADER_PYTHON:-python3}}"
budget="${{GRADER_TIME_BUDGET:-{budget}}}"
export GRADER_TIME_BUDGET="$budget"  # the submission's CPU allowance is half of it

mkdir -p "$results_dir" "$source_dir/.cache" && chmod 700 "$results_dir"
rm -f "$results"
# Student code must read no course file, without Landlock too. PrairieLearn puts the course's
# files in /grade more than once (serverFilesCourse/, shared/: the copy it keeps for older
# graders, tests/, data/), so everything under /grade is closed to other users, and one way is
# opened again: traversal down to this folder, which may be listed (Python's importer lists it),
# and the grader package in it, which may be read.
shopt -s dotglob nullglob
chmod -R go-rwx "$grade_root"/* "$source_dir"/*
shopt -u dotglob nullglob
dir="$source_dir"
while [ "$dir" != "/" ] && [ "$dir" != "." ]; do
  chmod go+x "$dir"
  [ "$dir" = "$grade_root" ] && break
  dir="$(dirname "$dir")"
done
chmod go+rx "$source_dir"
chmod -R a+rX "$source_dir/grader"
if [ -z "${{GRADER_WORKER_USER:-}}" ] && id -u grader-worker >/dev/null 2>&1; then
  export GRADER_WORKER_USER=grader-worker
fi
export GRADER_CACHE="$source_dir/.cache"
export PYTHONPATH="$source_dir"
# The workers' scratch folders (search.py in each) under one folder of this run's, removed at
# exit: a grader killed at the budget never cleans up after itself.
scratch_root="$(mktemp -d "${{TMPDIR:-/tmp}}/grader-run.XXXXXX")" && chmod 711 "$scratch_root" \\
  && export TMPDIR="$scratch_root" && trap 'rm -rf "$scratch_root"' EXIT
hidden_cases=""
[ -d "$source_dir/trees/hidden" ] && hidden_cases="$source_dir/trees/hidden"

cd "$grade_root" || exit 1
timeout --kill-after=10 "$budget" "$python" -m grader grade --format prairielearn \\
  --submission "$grade_root/student" \\
  --cases "$source_dir/trees/public" $hidden_cases \\
  --rubric "$source_dir/trees/rubric.toml" \\
  --results "$results"
status=$?

valid=1
if [ -s "$results" ]; then
  "$python" - "$results" <<'EOF' && valid=0
import json, sys
with open(sys.argv[1]) as stream:
    data = json.load(stream)
sys.exit(0 if isinstance(data, dict) and isinstance(data.get("gradable"), bool) else 1)
EOF
fi
if [ "$valid" -ne 0 ]; then
  echo "run.sh: the grader left no valid results.json (exit status $status);" \\
    "writing a not-gradable one" >&2
  cat >"$results" <<'EOF'
{{"gradable": false, "score": 0.0, "message": "{neutral}", "tests": []}}
EOF
fi
exit 0
"""

DOCKERFILE = """\
# The grading image of the adversarial-search question (grader build prairielearn).
# Build and publish it where PrairieLearn can pull it, then name it in
# questions/{question}/info.json ("image"); see ../README.md.
FROM python:3.10-slim
COPY requirements.txt /tmp/grader-requirements.txt
RUN python -m pip install --no-cache-dir -r /tmp/grader-requirements.txt \\
    && rm /tmp/grader-requirements.txt \\
    && useradd --system --user-group --no-create-home --home-dir /nonexistent \\
       --shell /usr/sbin/nologin grader-worker
"""

README = """\
# The adversarial-search question for PrairieLearn

Made by `grader build prairielearn`. Copy into your course repository:

- `questions/{question}/` to `questions/` (rename the folder and change `uuid` in its
  `info.json` if the course has two copies of the question);
- `serverFilesCourse/{shared}/` to `serverFilesCourse/`;

then build the grading image and make it pullable by PrairieLearn. No image is published for
this question: you build it from `image/` and push it where PrairieLearn's graders pull from
(Docker Hub, under your account or organisation). From this folder:

```
{commands}
```
{image_note}
`info.json` names the image `{image}`, runs
`/grade/serverFilesCourse/{shared}/run.sh`, and gives a job {timeout} s. Add the question to
an assessment with its points: PrairieLearn scales the grader's score (a fraction) to them.

Students start from the question page: it links the stub, `clientFilesQuestion/{stub}` (the
handout's `student/search.py`: its docstrings are the assignment), and they upload `search.py`
or `search.ipynb`. Tests of cases that are not `visible` in the rubric are shown as one
"Hidden tests" line with how many there are and their points, nothing else (no names, no
feedback); the question page says so. A submission the grader failed on is "not gradable": no
attempt is used; regrade it once the problem is fixed.
"""

PLACEHOLDER = "<your-account>"  # what a reader of the README replaces: a Docker Hub account
HIDDEN_PAGE = ("Some tests use hidden cases: the results show them as one \"Hidden tests\" "
               "line, with how many there are and their points, and nothing else.")



LOCAL_IMAGE_NOTE = (
    "The image name `{image}` has no registry namespace (`account/name`): Docker Hub has no "
    "such public image, so a hosted PrairieLearn cannot pull it; only a local PrairieLearn with "
    "the image built on the same machine can run it. Build again with "
    "`grader build prairielearn --image ACCOUNT/adversarial-search-grader --out DIR` (or edit "
    "`image` in `questions/" + QUESTION + "/info.json`) once you have pushed it there.")
PLACEHOLDER_NOTE = (
    "`" + PLACEHOLDER + "` is a placeholder: replace it with your Docker Hub account or "
    "organisation (`docker login` first). Then name the same image in `questions/" + QUESTION
    + "/info.json` (`\"image\"`): edit it, or build this folder again from the grader's "
    "repository with `grader build prairielearn --image " + PLACEHOLDER + "/{image} --out "
    "DIR`, DIR this folder.")


README_LOCAL_NOTE = (
    "As built, `info.json` names `{image}`, which has no registry namespace (`account/name`): "
    "a hosted PrairieLearn cannot pull it, and only a local PrairieLearn with the image built "
    "on the same machine (`docker build -t {image} image/`) can run it.")


def image_commands(image: str) -> str:
    """The README's commands that build and publish the grading image, runnable as written:
    with ``image`` when it names an account, else with :data:`PLACEHOLDER` for the reader's."""
    if pullable(image):
        return f"docker build -t {image} image/\ndocker push {image}"
    name = f"{PLACEHOLDER}/{image}"
    return f"docker build -t {name} image/\ndocker push {name}"


def pullable(image: str) -> bool:
    """Whether ``image`` names a registry namespace (``account/name[:tag]``), as an image a
    hosted PrairieLearn pulls from Docker Hub must."""
    return "/" in image.split("@")[0]


def stub_functions(root: Path) -> list[str]:
    """The functions students implement: the public top-level ones of ``student/search.py``."""
    tree = ast.parse((root / "student" / "search.py").read_text(encoding="utf-8"))
    return [node.name for node in tree.body
            if isinstance(node, ast.FunctionDef) and not node.name.startswith("_")]


def question_html(functions: list[str], hidden: bool = True) -> str:
    """The question's page, naming every function the grader calls, linking the stub, and
    saying what the results show of hidden tests (``hidden``: the course has some)."""
    names = [f"<code>{name}</code>" for name in functions]
    listed = ", ".join(names[:-1]) + f" and {names[-1]}" if len(names) > 1 else "".join(names)
    play = ("; <code>evaluate</code> is graded by play: matches of the staff's search using it"
            if "evaluate" in functions else "")
    return QUESTION_HTML.format(functions=listed, play=play, stub=STUB,
                                hidden=HIDDEN_PAGE if hidden else "")


def question_title(algorithms: list[str]) -> str:
    """info.json's title: every algorithm the course's cases grade, in
    :data:`grader.cases.algorithms.ALGORITHMS` order (minimax is ``max_value``/``min_value``)."""
    from grader.cases.algorithms import ALGORITHMS

    return "Adversarial search: " + ", ".join(a for a in ALGORITHMS if a in algorithms)


def question_info(image: str, algorithms: list[str] | None = None) -> dict:
    from grader.cases.algorithms import ALGORITHMS

    return {
        "uuid": str(uuid.uuid5(uuid.NAMESPACE_URL, f"adversarial-grader/{QUESTION}")),
        "title": question_title(list(ALGORITHMS) if algorithms is None else algorithms),
        "topic": "Adversarial search",
        "tags": ["code", "autograded"],
        "type": "v3",
        "gradingMethod": "External",
        "singleVariant": True,
        "partialCredit": True,
        "externalGradingOptions": {  # "enabled" is deprecated in PrairieLearn's schema: omitted
            "image": image,
            "entrypoint": f"/grade/serverFilesCourse/{SHARED}/run.sh",
            "serverFilesCourse": [f"{SHARED}/"],
            "timeout": TIMEOUT,
        },
    }


def prairielearn_entries(root: Path = REPO_ROOT, *, image: str = DEFAULT_IMAGE,
                         cache: Path | None = CACHE_KEY) -> list[Entry]:
    """Every file of the layout in the module docstring, paths relative to ``DIR``."""
    from grader.cases import find_cases, load_case
    from grader.scoring.results import NEUTRAL_GRADER_ERROR

    check_cases([root / "trees"])
    cases = [load_case(path) for path in find_cases([root / "trees"])]
    shared = f"serverFilesCourse/{SHARED}"
    source = [
        file_entry(root, "pyproject.toml"), file_entry(root, "README.md"),
        *collect(root, "grader"), *collect(root, "reference"), *collect(root, "trees"),
    ]
    run_sh = RUN_SH.format(shared=SHARED, budget=BUDGET, neutral=NEUTRAL_GRADER_ERROR)
    image_note = "" if pullable(image) else "".join(
        "\n" + textwrap.fill(note.format(image=image), 96, break_on_hyphens=False,
                             break_long_words=False) + "\n"
        for note in (PLACEHOLDER_NOTE, README_LOCAL_NOTE))
    graded = sorted({algorithm for case in cases for algorithm in case.algorithms})
    info = json.dumps(question_info(image, graded), indent=2) + "\n"
    hidden = (root / "trees" / "hidden").is_dir() and any((root / "trees" / "hidden").iterdir())
    return [
        Entry(MARKER, b"built by grader build prairielearn; rebuilt in place\n"),
        Entry("README.md", README.format(
            question=QUESTION, shared=SHARED, image=image, timeout=TIMEOUT,
            image_note=image_note, commands=image_commands(image), stub=STUB).encode()),
        Entry(f"questions/{QUESTION}/info.json", info.encode()),
        Entry(f"questions/{QUESTION}/question.html",
              question_html(stub_functions(root), hidden).encode()),
        file_entry(root, "student/search.py",
                   under=f"questions/{QUESTION}/clientFilesQuestion/{STUB}"),
        Entry(f"{shared}/run.sh", run_sh.encode(), executable=True),
        *[Entry(f"{shared}/{entry.path}", entry.data, entry.executable) for entry in source],
        Entry(f"{shared}/.cache/answer-key.json", answer_key(root, cases, cache)),
        Entry("image/Dockerfile", DOCKERFILE.format(question=QUESTION).encode()),
        file_entry(root, "docker/requirements.txt", under="image/requirements.txt"),
    ]


def write_folder(entries: list[Entry], out: Path) -> None:
    """Write ``entries`` under ``out``, replacing an earlier build there; all or nothing."""
    out = Path(out)
    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and not (out / MARKER).exists())):
        raise BuildError(
            f"{str(out)!r} exists and is not an earlier build; give an empty or new folder")
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}-", dir=out.parent))
    try:
        for entry in sorted(entries, key=lambda e: e.path):
            target = staging / entry.path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(entry.data)
            os.chmod(target, 0o755 if entry.executable else 0o644)
        for folder in [staging, *(p for p in staging.rglob("*") if p.is_dir())]:
            os.chmod(folder, 0o755)
        if out.exists():
            shutil.rmtree(out)
        os.replace(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def build_prairielearn_main(out: Path, *, root: Path = REPO_ROOT, image: str | None = None,
                            cache: Path | None = CACHE_KEY) -> int:
    """``grader build prairielearn --out DIR``: 0 when written; 1, nothing written, when not.
    ``image``: the grading image ``info.json`` names (default :data:`DEFAULT_IMAGE`)."""
    image = image or DEFAULT_IMAGE
    try:
        entries = prairielearn_entries(root, image=image, cache=cache)
        write_folder(entries, Path(out))
    except (BuildError, CaseError, OSError) as error:
        print(f"grader build prairielearn: error: {error}\nnothing was written to {out}",
              file=sys.stderr)
        return 1
    print(f"wrote {out}: {len(entries)} files (PrairieLearn question {QUESTION!r}, "
          f"image {image!r}); {Path(out) / 'README.md'} says where they go")
    if not pullable(image):
        print("note: " + LOCAL_IMAGE_NOTE.format(image=image).replace("`", ""))
    return 0
