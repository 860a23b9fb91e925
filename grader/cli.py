"""``grader``: the command line. Parsing only; every command calls one library function."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import grader.algorithms as algorithm_specs
from grader.cases.algorithms import ALGORITHMS
from grader.paths import REPO_ROOT

PUBLIC_CASES = REPO_ROOT / "trees" / "public"
HIDDEN_CASES = REPO_ROOT / "trees" / "hidden"


def _needs_reference(command: str) -> int:
    print(f"grader {command}: this needs the reference implementations (reference/), which the "
          "student handout does not include", file=sys.stderr)
    return 2


def _validate(args: argparse.Namespace) -> int:
    from grader.commands.validate import validate_main

    return validate_main(args.paths)


def _solve(args: argparse.Namespace) -> int:
    if args.key:
        return _key(args)
    if not args.algorithm:
        print("grader solve: give --algorithm (or --key for every algorithm)", file=sys.stderr)
        return 2
    from grader.answers.store import reference_available
    from grader.commands.solve import solve_main

    if not reference_available():
        return _needs_reference("solve")

    return solve_main(args.case, args.algorithm, pruning=args.pruning, seed=args.seed, as_json=args.json)


def _grade(args: argparse.Namespace) -> int:
    from grader.commands.grade import grade_main

    cases = args.cases or ([PUBLIC_CASES, HIDDEN_CASES] if args.hidden else [PUBLIC_CASES])
    return grade_main(args.submission, cases, results_path=args.results, rubric_path=args.rubric,
                      format_name=args.format, jobs=args.jobs)


# The functions of student/search.py whose algorithm has another name in the grader.
FUNCTION_ALGORITHMS = {stub: spec.name for spec in algorithm_specs.registry().values()
                       for stub in spec.stubs if stub != spec.name}


def algorithm_name(text: str) -> str:
    """An algorithm named by itself or by the stub students write for it."""
    return FUNCTION_ALGORITHMS.get(text, text)


def _check(args: argparse.Namespace) -> int:
    from grader.commands.check import check_main

    return check_main(
        args.submission, args.cases or [PUBLIC_CASES], algorithm=args.algorithm, name_filter=args.k,
        rubric_path=args.rubric, html=args.html, verbose=args.verbose,
    )


def _play(args: argparse.Namespace) -> int:
    from grader.commands.play import play_main

    if args.matches is not None and args.matches < 1:
        print("grader play: --matches must be at least 1", file=sys.stderr)
        return 2
    return play_main(args.submission, args.cases or [PUBLIC_CASES], matches=args.matches,
                     rubric_path=args.rubric, html=args.html)


def _batch(args: argparse.Namespace) -> int:
    from grader.commands.batch import batch_main, merge_main

    if args.anonymise and args.report is None:
        print("grader batch: --anonymise is for the class report: give --report F.html",
              file=sys.stderr)
        return 2
    if args.merge:
        if args.submissions is not None or args.shard:
            print("grader batch: --merge takes shard folders, not an export or --shard",
                  file=sys.stderr)
            return 2
        return merge_main(args.merge, args.out, report=args.report, anonymise=args.anonymise)
    if args.submissions is None:
        print("grader batch: expected an export folder (or --merge DIR...)", file=sys.stderr)
        return 2
    cases = args.cases or [PUBLIC_CASES, HIDDEN_CASES]
    return batch_main(args.submissions, args.out, cases=cases, jobs=args.jobs, force=args.force,
                      rubric_path=args.rubric, shard=args.shard, report=args.report,
                      anonymise=args.anonymise)


def _build(args: argparse.Namespace) -> int:
    from grader.commands.build import build_main

    return build_main(args.target, args.out, ci=args.ci, image=args.image)


def _new(args: argparse.Namespace) -> int:
    from grader.answers.store import reference_available
    from grader.commands.new import new_main

    if not reference_available():
        return _needs_reference("new")

    return new_main(args.algorithm, args.shape, players=args.players, chance=args.chance, out=args.out)


def _key(args: argparse.Namespace) -> int:
    from grader.commands.key import key_main

    return key_main(args.case)


def _render(args: argparse.Namespace) -> int:
    from grader.commands.render import render_main

    return render_main(args.case, args.format, algorithm=args.algorithm, trace=args.trace, out=args.out)


def _generate(args: argparse.Namespace) -> int:
    from grader.commands.generate import generate_main

    return generate_main(
        args.algorithm, depth=args.depth, branching=args.branching, seed=args.seed, count=args.count,
        require=args.require, out=args.out, low=args.low, high=args.high,
    )


def _import_cs188(args: argparse.Namespace) -> int:
    from grader.commands.import_cs188 import import_main

    return import_main(args.test_file, solution=args.solution, out=args.out, force=args.force,
                       pruning=args.pruning)


def _report(args: argparse.Namespace) -> int:
    from grader.commands.report import class_report_main, report_main

    if args.class_folder is not None:
        if args.results is not None:
            print("grader report: give a results.json or --class DIR, not both", file=sys.stderr)
            return 2
        return class_report_main(args.class_folder, html=args.html, anonymise=args.anonymise)
    if args.results is None:
        print("grader report: expected a results.json (or --class DIR)", file=sys.stderr)
        return 2
    if args.anonymise:
        print("grader report: --anonymise is for the class report (--class DIR)",
              file=sys.stderr)
        return 2
    return report_main(args.results, html=args.html)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="grader", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    validate = commands.add_parser("validate", help="check case files: schema, structure, expect")
    validate.add_argument("paths", nargs="+", type=Path, help="case files or folders")
    validate.set_defaults(run=_validate)

    solve = commands.add_parser("solve", help="the reference's answer for a case")
    solve.add_argument("case", type=Path)
    solve.add_argument("--algorithm", "-a", choices=ALGORITHMS, help="required unless --key")
    solve.add_argument("--pruning", choices=("inclusive", "strict"), default=None)
    solve.add_argument("--seed", type=int, default=None, help="MCTS seed (default: the case's)")
    solve.add_argument("--json", action="store_true", help="print JSON")
    solve.add_argument("--key", action="store_true",
                       help="an answer key in Markdown for every algorithm and rule of the case")
    solve.set_defaults(run=_solve)

    grade = commands.add_parser("grade", help="grade a submission, write the platform's results")
    grade.add_argument("--submission", type=Path, required=True,
                       help="search.py, a notebook (.ipynb), or a folder or zip holding one")
    grade.add_argument("--cases", type=Path, nargs="+", help="case files or folders")
    grade.add_argument("--format", default="gradescope",
                       choices=("gradescope", "prairielearn", "junit", "classroom"),
                       help="the results file's platform (default: gradescope)")
    grade.add_argument("--results", type=Path, default=None,
                       help="the file to write (default: results.json; junit.xml for junit; "
                            "classroom.json for classroom)")
    grade.add_argument("--hidden", action="store_true", help="include trees/hidden")
    grade.add_argument("--rubric", type=Path, default=None)
    grade.add_argument("--jobs", type=int, default=1, metavar="N",
                       help="workers grading at once (default 1; the same results as one's "
                            "for a search.py that keeps nothing between calls)")
    grade.set_defaults(run=_grade)

    check = commands.add_parser("check", help="students: run the public cases, see what is wrong")
    check.add_argument("--submission", type=Path, default=REPO_ROOT / "student" / "search.py",
                       help="search.py, a notebook (.ipynb), or a folder or zip holding one")
    check.add_argument("--cases", type=Path, nargs="+")
    check.add_argument("--algorithm", "-a", choices=ALGORITHMS, type=algorithm_name,
                       help="an algorithm, or the function students write for it "
                            "(max_value and min_value: minimax)")
    check.add_argument("--verbose", "-v", action="store_true",
                       help="every failing test in full, and every passing one in the table")
    check.add_argument("-k", metavar="NAME", help="only tests whose name contains NAME")
    check.add_argument("--rubric", type=Path, default=None)
    check.add_argument("--html", type=Path, default=None, help="also write an HTML report here")
    check.set_defaults(run=_check)

    play = commands.add_parser("play", help="students: watch your alpha_beta play with your "
                               "evaluate against the random and greedy players")
    play.add_argument("--submission", type=Path, default=REPO_ROOT / "student" / "search.py",
                      help="your search.py (default: student/search.py)")
    play.add_argument("--cases", type=Path, nargs="+", help="evaluate cases (default: the "
                      "public ones)")
    play.add_argument("--matches", type=int, default=None, help="matches a case (default: "
                      "the rubric's)")
    play.add_argument("--rubric", type=Path, default=None)
    play.add_argument("--html", type=Path, default=None, help="also write an HTML report here")
    play.set_defaults(run=_play)

    batch = commands.add_parser("batch", help="staff: grade every submission of an export, in parallel")
    batch.add_argument("submissions", type=Path, nargs="?",
                       help="a Gradescope export folder (or any folder)")
    batch.add_argument("--out", type=Path, required=True)
    batch.add_argument("--cases", type=Path, nargs="+")
    batch.add_argument("--jobs", type=int, default=None, help="parallel graders (default: cores)")
    batch.add_argument("--force", action="store_true", help="regrade even up-to-date results")
    batch.add_argument("--rubric", type=Path, default=None)
    batch.add_argument("--shard", metavar="K/N", default=None,
                       help="grade only share K of N (a job array runs K = 1..N)")
    batch.add_argument("--merge", type=Path, nargs="+", metavar="DIR",
                       help="combine the --out folders of every shard into --out")
    batch.add_argument("--report", type=Path, default=None, metavar="F.html",
                       help="then write the class report (F.html, F.json, F.csv)")
    batch.add_argument("--anonymise", action="store_true",
                       help="the class report names students by pseudonym only")
    batch.set_defaults(run=_batch)

    build = commands.add_parser(
        "build", help="staff: the Gradescope autograder zip, the handout, a PrairieLearn question")
    build.add_argument("target", choices=("autograder", "handout", "prairielearn"))
    build.add_argument("--out", type=Path, required=True,
                       help="the zip to write (prairielearn: a folder)")
    build.add_argument("--ci", choices=("github", "gitlab"), default=None,
                       help="handout: add a workflow grading every push (GitHub Classroom, GitLab)")
    build.add_argument("--image", default=None,
                       help="prairielearn: the grading image info.json names "
                            "(default: adversarial-search-grader)")
    build.set_defaults(run=_build)

    new = commands.add_parser("new", help="TAs: write a schema-valid case skeleton")
    new.add_argument("--algorithm", "-a", required=True, choices=ALGORITHMS)
    new.add_argument("--shape", default=None, help="BRANCHINGxDEPTH, e.g. 3x2 (default 3x3)")
    new.add_argument("--players", type=int, default=2)
    new.add_argument("--chance", action="store_true", help="chance nodes between the players")
    new.add_argument("--out", type=Path, default=None, help="file to write (default: stdout)")
    new.set_defaults(run=_new)

    render = commands.add_parser("render", help="TAs: a picture of a case's tree")
    render.add_argument("case", type=Path)
    render.add_argument("--format", "-f", choices=("txt", "dot", "svg", "png"), default="txt")
    render.add_argument("--algorithm", "-a", choices=ALGORITHMS, default=None)
    render.add_argument("--trace", type=Path, default=None, help="a submission whose trace to draw")
    render.add_argument("--out", type=Path, default=None)
    render.set_defaults(run=_render)

    generate = commands.add_parser("generate", help="TAs: random exercise trees with answer keys")
    generate.add_argument("--algorithm", "-a", required=True, metavar="ALGORITHM",
                          help="one of " + ", ".join(a for a in ALGORITHMS
                                                     if not algorithm_specs.get(a).by_play)
                          + " (evaluate is graded by play: `grader new -a evaluate`)")
    generate.add_argument("--depth", type=int, default=3)
    generate.add_argument("--branching", type=int, default=3)
    generate.add_argument("--seed", type=int, default=0)
    generate.add_argument("--count", type=int, default=1)
    generate.add_argument("--require", choices=("strict-differs", "ties", "deep-cutoff"))
    generate.add_argument("--low", type=int, default=-10, help="smallest leaf value")
    generate.add_argument("--high", type=int, default=20, help="largest leaf value")
    generate.add_argument("--out", type=Path, default=Path("."))
    generate.set_defaults(run=_generate)

    cs188 = commands.add_parser("import-cs188",
                                help="TAs: convert CS188 GraphGameTreeTests (a file or a folder)")
    cs188.add_argument("test_file", type=Path, help="a .test file or a test_cases/ folder")
    cs188.add_argument("--solution", type=Path, default=None,
                       help="one file's .solution (default: the one beside it)")
    cs188.add_argument("--out", type=Path, default=None,
                       help="file or folder to write (a folder import needs one)")
    cs188.add_argument("--force", action="store_true", help="overwrite existing case files")
    cs188.add_argument("--pruning", choices=("strict", "inclusive", "either"), default="strict",
                       help="alpha-beta cases' rule (default strict, CS188's)")
    cs188.set_defaults(run=_import_cs188)

    report = commands.add_parser("report", help="staff: an HTML report from a graded results.json, "
                                 "or the class report of a batch (--class)")
    report.add_argument("results", type=Path, nargs="?")
    report.add_argument("--class", dest="class_folder", type=Path, default=None, metavar="DIR",
                        help="the class report of a `grader batch` --out folder (F.html, F.json, "
                             "F.csv)")
    report.add_argument("--anonymise", action="store_true",
                        help="--class: name students by pseudonym only")
    report.add_argument("--html", type=Path, required=True)
    report.set_defaults(run=_report)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except BrokenPipeError:  # stdout's reader left (`grader solve ... | head`): nothing to say
        _silence_stdout()
        return 141  # what a Unix tool killed by SIGPIPE exits with (128 + 13)


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so Python's flush at exit does not raise again (Python's
    documented recipe for SIGPIPE)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # no file descriptor (a test's captured stdout)
        pass


if __name__ == "__main__":
    sys.exit(main())
