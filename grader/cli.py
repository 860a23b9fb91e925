"""``grader``: the command line. Parsing only; every command calls one library function."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from grader.runner import ALGORITHMS

REPO = Path(__file__).resolve().parent.parent
PUBLIC_CASES = REPO / "trees" / "public"
HIDDEN_CASES = REPO / "trees" / "hidden"


def _validate(args: argparse.Namespace) -> int:
    from grader.validate import validate_main

    return validate_main(args.paths)


def _solve(args: argparse.Namespace) -> int:
    from grader.solve import solve_main

    return solve_main(args.case, args.algorithm, pruning=args.pruning, seed=args.seed, as_json=args.json)


def _grade(args: argparse.Namespace) -> int:
    from grader.gradescope import grade_main

    cases = args.cases or ([PUBLIC_CASES, HIDDEN_CASES] if args.hidden else [PUBLIC_CASES])
    return grade_main(args.submission, cases, results_path=args.results, rubric_path=args.rubric)


def _check(args: argparse.Namespace) -> int:
    from grader.check import check_main

    return check_main(
        args.submission, args.cases or [PUBLIC_CASES], algorithm=args.algorithm, name_filter=args.k,
        rubric_path=args.rubric,
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="grader", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    validate = commands.add_parser("validate", help="check case files: schema, structure, expect")
    validate.add_argument("paths", nargs="+", type=Path, help="case files or folders")
    validate.set_defaults(run=_validate)

    solve = commands.add_parser("solve", help="the reference's answer for a case")
    solve.add_argument("case", type=Path)
    solve.add_argument("--algorithm", "-a", required=True, choices=ALGORITHMS)
    solve.add_argument("--pruning", choices=("inclusive", "strict"), default=None)
    solve.add_argument("--seed", type=int, default=None, help="MCTS seed (default: the case's)")
    solve.add_argument("--json", action="store_true", help="print JSON")
    solve.set_defaults(run=_solve)

    grade = commands.add_parser("grade", help="grade a submission, write Gradescope results.json")
    grade.add_argument("--submission", type=Path, required=True, help="search.py, a folder or a zip")
    grade.add_argument("--cases", type=Path, nargs="+", help="case files or folders")
    grade.add_argument("--results", type=Path, default=Path("results.json"))
    grade.add_argument("--hidden", action="store_true", help="include trees/hidden")
    grade.add_argument("--rubric", type=Path, default=None)
    grade.set_defaults(run=_grade)

    check = commands.add_parser("check", help="students: run the public cases, see what is wrong")
    check.add_argument("--submission", type=Path, default=REPO / "student" / "search.py")
    check.add_argument("--cases", type=Path, nargs="+")
    check.add_argument("--algorithm", "-a", choices=ALGORITHMS)
    check.add_argument("-k", metavar="NAME", help="only tests whose name contains NAME")
    check.add_argument("--rubric", type=Path, default=None)
    check.set_defaults(run=_check)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
