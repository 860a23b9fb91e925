"""The docs hold: their marked examples run (tests/doc_blocks.py, docs/testing-docs.md), and what
they say about the repository (case counts and lists, the layout, the commands, the algorithms,
the games, the rubric's keys, the files they name) is checked against the repository itself, so
a case added on another branch shows up here as a row to add, not as a stale number.

The last tests break a copy of a doc on purpose and show that the check then fails, naming
the line.
"""

from __future__ import annotations

import glob
import json
import re
import subprocess
from pathlib import Path

import doc_blocks
import pytest
from doc_blocks import DOCS, REPO, blocks, check_doc, marked, scratch_repo

TREES = REPO / "trees"


@pytest.mark.parametrize("doc", [doc for doc in DOCS if marked(doc)], ids=lambda p: p.name)
def test_the_marked_examples_of_the_doc_hold(doc, tmp_path):
    problems = check_doc(doc, scratch_repo(tmp_path))
    assert not problems, "\n\n".join(problems)


def test_the_docs_that_show_commands_mark_them():
    """The TA guide's walk-through and the case format's examples are run (a doc that dropped
    its marks would pass the test above by skipping)."""
    counted = {doc.name: len(marked(doc)) for doc in DOCS}
    assert counted["ta-guide.md"] >= 10 and counted["cases.md"] >= 5, counted


# --- what the docs say about the repository ---------------------------------------------------

def case_files() -> dict[str, dict]:
    """Every case under trees/, by its path from trees/ (``public/aima-fig-5-2.json``)."""
    return {path.relative_to(TREES).as_posix(): json.loads(path.read_text(encoding="utf-8"))
            for path in sorted(TREES.rglob("*.json"))
            if not path.name.startswith(".") and "schema" not in path.name}


def trees_readme_problems(text: str, cases: dict[str, dict]) -> list[str]:
    """trees/README.md against the cases: the counts, one row a case, each row's algorithms and
    description the case's own."""
    problems = []
    rows: dict[str, tuple[str, str]] = {}
    for line in text.splitlines():
        row = re.fullmatch(r"\| `((?:public|hidden)/[^`]+)` \| ([^|]+) \| (.+) \|", line)
        if row:
            if row[1] in rows:
                problems.append(f"trees/README.md: {row[1]} has two rows")
            rows[row[1]] = (row[2].strip(), row[3].strip())
    public = sum(name.startswith("public/") for name in cases)
    hidden = sum(name.startswith("hidden/") for name in cases)
    count = re.search(r"^(\d+) public and (\d+) hidden cases\.$", text, re.MULTILINE)
    if not count or (int(count[1]), int(count[2])) != (public, hidden):
        problems.append(f"trees/README.md: the count line should read "
                        f"'{public} public and {hidden} hidden cases.', got: "
                        f"{count[0] if count else 'none'!r}")
    for name, data in cases.items():
        algorithms, description = ", ".join(data["algorithms"]), data["description"]
        if name not in rows:
            problems.append(f"trees/README.md: {name} is not listed; add the row "
                            f"| `{name}` | {algorithms} | {description} |")
        elif rows[name] != (algorithms, description):
            problems.append(f"trees/README.md: {name}'s row should read "
                            f"| `{name}` | {algorithms} | {description} |")
    problems += [f"trees/README.md: {name} is listed but there is no such case"
                 for name in rows if name not in cases]
    return problems


def test_trees_readme_lists_every_case_with_its_count():
    problems = trees_readme_problems((TREES / "README.md").read_text(encoding="utf-8"),
                                     case_files())
    assert not problems, "\n".join(problems)


def test_staff_guide_counts_the_iterative_deepening_and_evaluate_cases():
    text = (REPO / "docs" / "staff.md").read_text(encoding="utf-8")
    for pattern in ("iterative-deepening-*.json", "evaluate-*.json"):
        said = re.search(r"has (\d+) public and (\d+) hidden\s+cases\s+\(`trees/\*/"
                         + re.escape(pattern) + "`", text)
        assert said, f"docs/staff.md no longer counts trees/*/{pattern}"
        found = (len(list((TREES / "public").glob(pattern))),
                 len(list((TREES / "hidden").glob(pattern))))
        assert (int(said[1]), int(said[2])) == found, (pattern, said[0], found)


def test_staff_guide_states_the_total_of_the_bundled_cases():
    """The total a correct solution scores (`grader grade ... --hidden`): every test's points as
    the rubric and the cases set them, computed without grading."""
    from grader.cases import find_cases, load_case
    from grader.cases.algorithms import RANDOM_TREE_ALGORITHMS
    from grader.cases.rubric import load_rubric

    rubric = load_rubric(TREES / "rubric.toml")
    cases = [load_case(path) for path in find_cases([TREES / "public", TREES / "hidden"])]
    total = sum(rubric.settings_for(case, algorithm).points
                for case in cases for algorithm in case.algorithms)
    total += sum(rubric.random_trees.points_for(a) for a in RANDOM_TREE_ALGORITHMS)
    text = (REPO / "docs" / "staff.md").read_text(encoding="utf-8")
    said = re.search(r"prints `score ([\d.]+)/([\d.]+)`", text)
    assert said and float(said[1]) == float(said[2]) == total, (said and said[0], total)


def test_staff_guide_states_the_public_totals_here_and_in_the_handout():
    """GitHub Classroom's and GitLab's totals (docs/staff.md, section 8): the public cases' points
    here, and without the `evaluate` cases' (0-point checks in the handout, which has no
    reference to play against); a public case added elsewhere changes both."""
    from grader.cases import find_cases, load_case
    from grader.cases.algorithms import PLAY_ALGORITHMS
    from grader.cases.rubric import load_rubric

    rubric = load_rubric(TREES / "rubric.toml")
    points = [(algorithm, rubric.settings_for(case, algorithm).points)
              for case in map(load_case, find_cases([TREES / "public"]))
              for algorithm in case.algorithms]
    here = sum(p for _, p in points)
    handout = sum(p for algorithm, p in points if algorithm not in PLAY_ALGORITHMS)
    text = " ".join((REPO / "docs" / "staff.md").read_text(encoding="utf-8").split())
    said_here = re.search(r"played for points \((\d+) with the shipped rubric\)", text)
    assert said_here and int(said_here[1]) == here, (said_here and said_here[0], here)
    said_handout = re.findall(r"runs \((\d+)\)|points (\d+)/(\d+)", text)
    numbers = {int(n) for match in said_handout for n in match if n}
    assert len(said_handout) >= 3 and numbers == {handout}, (said_handout, handout)


def layout_problems(text: str, where: str) -> list[str]:
    """A layout block (README.md, docs/architecture.md) names every folder of the repository it
    covers and every package of grader/."""
    problems = []
    packages = sorted(p.parent.name for p in (REPO / "grader").glob("*/__init__.py"))
    for package in packages:
        if not re.search(rf"^ +{package}/ ", text, re.MULTILINE):
            problems.append(f"{where}: the layout does not name grader/{package}/")
    return problems


def layout_block(doc: Path, first_line: str) -> str:
    found = [block.text for block in blocks(doc) if block.text.lstrip().startswith(first_line)]
    assert found, f"{doc.name}: no block starting {first_line!r}"
    return found[0]


def test_the_layouts_name_every_package_and_folder():
    readme = layout_block(REPO / "README.md", "student/")
    problems = layout_problems(readme, "README.md")
    problems += layout_problems(layout_block(REPO / "docs" / "architecture.md", "grader/"),
                                "docs/architecture.md")
    tracked = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True,
                             check=True).stdout
    folders = {line.split("/")[0] for line in tracked.splitlines() if "/" in line}
    for folder in sorted(f for f in folders if not f.startswith(".")):
        if not re.search(rf"^{folder}/ ", readme, re.MULTILINE):
            problems.append(f"README.md: the layout does not name {folder}/")
    assert not problems, "\n".join(problems)


def test_the_readme_lists_every_command():
    from grader.cli import build_parser

    commands = build_parser()._subparsers._group_actions[0].choices
    table = (REPO / "README.md").read_text(encoding="utf-8").split("## Commands", 1)[1]
    table = table.split("\n## ", 1)[0]
    missing = [name for name in commands if f"`grader {name}" not in table]
    assert not missing, f"README.md's Commands table lacks {missing}"


def test_the_case_format_names_every_algorithm_and_game():
    from grader.cases.algorithms import ALGORITHMS
    from grader.games import BUILTIN_GAMES

    text = (REPO / "docs" / "cases.md").read_text(encoding="utf-8")
    field = re.search(r"^\| `algorithms` \|.*$", text, re.MULTILINE)[0]
    allows = text.split("### Which algorithms a game allows", 1)[1].split("\n#", 1)[0]
    games = text.split("## Form 4: a built-in game", 1)[1].split("\n## ", 1)[0]
    problems = [f"docs/cases.md: the `algorithms` field does not name {a}"
                for a in ALGORITHMS if f"`{a}`" not in field]
    problems += [f"docs/cases.md: 'Which algorithms a game allows' has no row for {a}"
                 for a in ALGORITHMS if not re.search(rf"^\| [^|]*`{a}`", allows, re.MULTILINE)]
    problems += [f"docs/cases.md: the built-in games table has no row for {g}"
                 for g in BUILTIN_GAMES if not re.search(rf"^\| `{g}` \|", games, re.MULTILINE)]
    assert not problems, "\n".join(problems)


def test_the_case_format_rubric_example_shows_every_key():
    from dataclasses import fields

    from grader.cases.rubric import AlgorithmRubric, PlayRubric, RandomTreesRubric

    toml = next(b for b in blocks(REPO / "docs" / "cases.md") if b.language == "toml").text
    tables: dict[str, set[str]] = {}
    table = None
    for line in toml.splitlines():
        header = re.match(r"\[([\w.]+)\]", line)
        if header:
            table = header[1]
        elif table and re.match(r"\w+ *=", line):
            tables.setdefault(table, set()).add(line.split("=")[0].strip())
    for name, declared in (("defaults", AlgorithmRubric), ("random_trees", RandomTreesRubric),
                           ("play", PlayRubric)):
        missing = {f.name for f in fields(declared)} - tables.get(name, set())
        assert not missing, f"docs/cases.md's rubric example lacks [{name}] {sorted(missing)}"


# Paths the docs name that are made by a run (a build, the bench, a student), not kept in git.
MADE = {"trees/.answer-key.json", "trees/public/.answer-key.json", "bench/results.json",
        "student/search.ipynb", "docs/externalGrading.md",  # PrairieLearn's own docs
        "trees/public/cs188/",  # where the TA guide's walk-through imports to
        "bench/class-report/", "bench/class-report/batch"}  # the class report bench's output
PATH = re.compile(r"(?<![\w./$-])((?:grader|reference|tests|docs|trees|bin|docker|bench|student)"
                  r"/[\w./*-]*)")


def named_path_problems(doc: Path, text: str) -> list[str]:
    """Files the prose names (outside code blocks) that do not exist (a glob: match nothing)."""
    problems = []
    fenced = False
    for number, line in enumerate(text.splitlines(), 1):
        if re.match(r"^ *(```|~~~)", line):
            fenced = not fenced
            continue
        for match in PATH.finditer("" if fenced else line):
            path = match[1].rstrip(".,:;)")
            if path in MADE or "<" in path:
                continue
            exists = glob.glob(str(REPO / path)) if "*" in path else (REPO / path).exists()
            if not exists:
                problems.append(f"{doc.relative_to(REPO)}:{number}: {path} does not exist")
    return problems


def test_the_files_the_docs_name_exist():
    problems = []
    for doc in [*DOCS, TREES / "README.md", TREES / "rubric.toml"]:
        problems += named_path_problems(doc, doc.read_text(encoding="utf-8"))
    assert not problems, "\n".join(problems)


# --- a doc line that stops being true fails -----------------------------------------------------

def test_a_console_output_that_stops_being_true_fails(tmp_path):
    doc = tmp_path / "broken.md"
    text = ("Validate one case:\n\n```console test\n"
            "$ grader validate trees/public/aima-fig-5-2.json\n1 case file valid\n```\n")
    assert check_doc(doc, scratch_repo(tmp_path), text) == []  # true as written
    broken = text.replace("1 case file valid", "2 case files valid")
    problems = check_doc(doc, tmp_path / "repo", broken)
    assert len(problems) == 1 and problems[0].startswith("broken.md:4: `grader validate")
    assert "2 case files valid" in problems[0] and "    1 case file valid" in problems[0]


def test_a_command_that_stops_working_fails(tmp_path):
    doc = tmp_path / "broken.md"
    text = "```sh test\ngrader solve trees/public/aima-fig-5-2.json --key   # the key\n```\n"
    assert check_doc(doc, scratch_repo(tmp_path), text) == []
    problems = check_doc(doc, tmp_path / "repo", text.replace("aima-fig-5-2", "aima-fig-5-3"))
    assert len(problems) == 1 and "broken.md:2:" in problems[0] and "exited 2" in problems[0]


def test_examples_that_stop_being_valid_fail(tmp_path):
    """The real docs, broken one line each: a JSON example, the rubric example, a count."""
    cases_md = (REPO / "docs" / "cases.md").read_text(encoding="utf-8")
    broken = cases_md.replace('"root_player": "max"', '"root_player": "maximum"')
    assert broken != cases_md
    problems = check_doc(REPO / "docs" / "cases.md", tmp_path, broken)
    assert len(problems) == 1 and "root_player" in problems[0], problems
    broken = cases_md.replace("partial_credit = 0.5 ", "partial_credit = 1.5 ")
    assert broken != cases_md
    problems = check_doc(REPO / "docs" / "cases.md", tmp_path, broken)
    assert len(problems) == 1 and "partial_credit" in problems[0], problems
    readme = (TREES / "README.md").read_text(encoding="utf-8")
    cases = case_files()
    assert trees_readme_problems(readme, cases) == []
    public = sum(name.startswith("public/") for name in cases)
    problems = trees_readme_problems(readme.replace(f"{public} public", f"{public - 1} public"),
                                     cases)
    assert len(problems) == 1 and "count line" in problems[0]
    dropped = "\n".join(line for line in readme.splitlines() if "`public/aima-fig-5-2.json`" not in line)
    problems = trees_readme_problems(dropped, cases)
    assert len(problems) == 1 and "public/aima-fig-5-2.json is not listed" in problems[0]
    assert named_path_problems(REPO / "README.md", "see `grader/no/such.py`") == [
        "README.md:1: grader/no/such.py does not exist"]


def test_the_required_packages_are_pyprojects():
    """grader/commands/environment.py names what a student must install: pyproject's list."""
    from grader.commands.environment import REQUIRED, REQUIRED_BEFORE_3_11

    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    listed = re.search(r"^dependencies = \[(.*?)^\]", text, re.MULTILINE | re.DOTALL)[1]
    names = re.findall(r'^\s*"([A-Za-z0-9_.-]+)', listed, re.MULTILINE)
    assert names == [*REQUIRED.values(), *REQUIRED_BEFORE_3_11.values()]


assert doc_blocks.MARK == "test"  # the convention docs/testing-docs.md describes


def test_make_screenshot_finds_the_browser_tests_helpers():
    """docs/make_screenshot.py loads tests/test_html_browser.py, which imports its neighbour
    suite_modules: outside pytest that raised ModuleNotFoundError (issue 31)."""
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location("make_screenshot",
                                                  REPO / "docs" / "make_screenshot.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    saved, loaded = list(sys.path), sys.modules.pop("suite_modules", None)
    try:  # as outside pytest: tests/ not on the path, suite_modules not imported
        sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != REPO / "tests"]
        helpers = module.browser_test()
    finally:
        sys.path[:] = saved
        if loaded is not None:
            sys.modules["suite_modules"] = loaded
    assert callable(helpers.missing_browser)
