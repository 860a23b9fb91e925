"""``grader build handout --ci github|gitlab``: the student handout with a CI workflow that runs
the public checks on every push and reports the points.

* ``github``: ``.github/workflows/classroom.yml``, the layout GitHub Classroom generates for its
  autograding (workflow "Autograding Tests", job ``run-autograding-tests``, skipped for Classroom's
  own first commit). One step grades with ``grader grade --format classroom`` and hands the result
  to ``classroom-resources/autograding-grading-reporter`` as the base64 step output its
  ``runners`` input names (``SEARCH_RESULTS``): the reporter shows each test and posts
  "Points X/Y", which Classroom records.
* ``gitlab``: ``.gitlab-ci.yml``, a job that writes ``junit.xml`` (``--format junit``) as a
  ``reports: junit`` artifact, which GitLab shows in the merge request and pipeline test tabs.

Only public cases run there (the handout has no others); points are the rubric's. The student's
notebook ``student/search.ipynb`` is graded when it exists, ``student/search.py`` otherwise.
The handout is checked for leaks exactly as without ``--ci``.
"""

from __future__ import annotations

import sys
from pathlib import Path

from grader.answers.store import CACHE_KEY
from grader.commands.bundle import BuildError, Entry, write_zip
from grader.commands.handout import handout_entries, refuse_leaks
from grader.errors import CaseError
from grader.paths import REPO_ROOT

CI_TARGETS = ("github", "gitlab")
PYTHON = "3.11"

PASS_FRACTION = 1  # default: a CI job passes only with full marks on the public checks
# The grading step hands classroom.json to the reporter (grader/report/classroom.py).
GITHUB_STEP = ("import sys; from grader.report.classroom import write_github_step; "
               "write_github_step('classroom.json', pass_fraction=float(sys.argv[1]))")
# GitLab's job status is the script's: it fails below PASS_FRACTION (grader/report/junit.py).
GITLAB_CHECK = ("import sys; from grader.report.junit import meets; "
                "sys.exit(meets('junit.xml', float(sys.argv[1])))")

CHOOSE_SUBMISSION = (
    'submission=student/search.py; '
    'if [ -f student/search.ipynb ]; then submission=student/search.ipynb; fi'
)

GITHUB_WORKFLOW = f"""\
# GitHub Classroom autograding for the adversarial-search handout
# (grader build handout --ci github).
# On every push: grade student/search.py (or student/search.ipynb) on the public cases and report
# the points to GitHub Classroom through its grading reporter.
name: Autograding Tests
"on":
  - push
  - repository_dispatch
  - workflow_dispatch
permissions:
  checks: write
  actions: read
  contents: read
env:
  # The run passes when the public checks earn at least this fraction of their points
  # (1: full marks, the default; 0: whatever the score). Classroom records the points either way.
  PASS_FRACTION: "{PASS_FRACTION}"
jobs:
  run-autograding-tests:
    runs-on: ubuntu-latest
    timeout-minutes: 15
    if: github.actor != 'github-classroom[bot]'
    steps:
      - name: Checkout code
        uses: actions/checkout@v4
      - name: Set up Python
        uses: actions/setup-python@v5
        with:
          python-version: "{PYTHON}"
      - name: Install the grader
        run: python -m pip install --quiet -e .
      - name: Public checks
        id: search
        run: |
          {CHOOSE_SUBMISSION}
          status=0
          grader grade --submission "$submission" --format classroom --results classroom.json \\
            || status=$?
          python -c "{GITHUB_STEP}" "$PASS_FRACTION"
          exit "$status"
      - name: Autograding Reporter
        if: always()
        uses: classroom-resources/autograding-grading-reporter@v1
        with:
          runners: "${{{{ steps.search.outputs.runners }}}}"
"""

GITLAB_CI = f"""\
# GitLab CI for the adversarial-search handout (grader build handout --ci gitlab).
# On every push: grade student/search.py (or student/search.ipynb) on the public cases; GitLab
# shows each test from the JUnit report in the pipeline's and merge request's test tabs.
grade:
  image: python:{PYTHON}
  timeout: 15 minutes
  variables:
    # The job passes when the public checks earn at least this fraction of their points
    # (1: full marks, the default; 0: whatever the score). GitLab's test report does not decide
    # a job's status: this check does.
    PASS_FRACTION: "{PASS_FRACTION}"
  script:
    - python -m pip install --quiet -e .
    - {CHOOSE_SUBMISSION}
    - grader grade --submission "$submission" --format junit --results junit.xml
    - python -c "{GITLAB_CHECK}" "$PASS_FRACTION"
  artifacts:
    when: always
    paths:
      - junit.xml
    reports:
      junit: junit.xml
"""

README_SECTIONS = {
    "github": """
## Autograding on GitHub

Every push runs the public checks (`.github/workflows/classroom.yml`): open the **Actions** tab,
the latest *Autograding Tests* run, then its *Autograding Reporter* step. Each test is a ✅ or
❌ line, and a ❌ line ends with why it failed (`grader check` on your machine explains it in
full, with the tree). Tests are grouped by what they are worth (`worth1pt`, ...); a test with
partial credit shows twice, once for the points it earned and once for the rest. The table's
*Total* is your points, the same as the "Points" line GitHub Classroom records for your latest
push. If you work in a notebook, save it as `student/search.ipynb`: it is graded instead of
`student/search.py` when it is there.
""",
    "gitlab": """
## Autograding on GitLab

Every push runs the public checks (`.gitlab-ci.yml`): the pipeline's **Tests** tab lists each
test, and a failing one shows what went wrong; the job's log ends with your points, and the job
fails while your points are below the course's pass mark (by default, every public test). If you
work in a notebook, save it as `student/search.ipynb`: it is graded instead of
`student/search.py` when it is there.
""",
}


def ci_entries(ci: str) -> list[Entry]:
    """The files ``--ci`` adds to the handout."""
    if ci == "github":
        return [Entry(".github/workflows/classroom.yml", GITHUB_WORKFLOW.encode())]
    if ci == "gitlab":
        return [Entry(".gitlab-ci.yml", GITLAB_CI.encode())]
    raise ValueError(f"expected --ci to be one of {', '.join(CI_TARGETS)}, got: {ci!r}")


def with_ci(entries: list[Entry], ci: str) -> list[Entry]:
    """The handout ``entries`` with the CI files added and its README telling students of them."""
    added = ci_entries(ci)
    readme = README_SECTIONS[ci].encode()
    return [
        Entry(entry.path, entry.data.rstrip(b"\n") + b"\n" + readme, entry.executable)
        if entry.path == "README.md" else entry
        for entry in entries
    ] + added


def build_handout_ci_main(target: str, out: Path, ci: str, *, root: Path = REPO_ROOT,
                          cache: Path | None = CACHE_KEY) -> int:
    """``grader build handout --ci CI --out F.zip``: the handout of
    :func:`grader.commands.build.build_main` with :func:`with_ci` applied, checked for leaks the
    same way. 0 when written; 1, nothing written, when not."""
    try:
        if target != "handout":
            raise BuildError(f"--ci {ci} goes with the handout, not with {target!r}: "
                             f"grader build handout --ci {ci} --out handout.zip")
        if ci not in CI_TARGETS:
            raise BuildError(f"expected --ci to be one of {', '.join(CI_TARGETS)}, got: {ci!r}")
        entries = refuse_leaks(with_ci(handout_entries(root, cache=cache), ci), root)
        write_zip(entries, Path(out))
    except (BuildError, CaseError, OSError) as error:
        print(f"grader build {target} --ci {ci}: error: {error}\nnothing was written to {out}",
              file=sys.stderr)
        return 1
    print(f"wrote {out}: {len(entries)} files, {Path(out).stat().st_size} bytes "
          f"(with the {ci} workflow)")
    return 0
