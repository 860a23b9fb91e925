"""The strength of bench/evaluations.py's functions, measured outside the grader, and their grades.

``python bench/strength.py roundrobin [--seeds N] [--jobs J]``: every pair of evaluations plays
``N`` seeded openings (two random plies) of Connect Four (6 x 7, four in a row) and of the
5,5,4-game, each opening twice (each side once), both players a depth-2 minimax search of this
module's own (its own board, rules and search: nothing of the grader's). Prints each function's
score rate and Bradley-Terry Elo (draws half a win) per game and in all, and writes them to
``bench/strength.json``.

``python bench/strength.py grade [--sets S] [--matches M] [--rubric FILE] [--jobs J]``: plays
each function's matches of the five ``evaluate-*`` cases in ``S`` seed sets (set ``s`` adds
``1000 x s`` to every case's seed), ``M`` matches a case, with the grader's own search and
opponents (``grader.scoring.play.play_case``, in process, no sandbox); scores them under the
rubric (default trees/rubric.toml) with the grader's own scoring (``play_score``), and checks
issue 28's targets against the round robin's Elo: a constant at most 20% of the points, a wrong
sign 0, a one-sided sign bug never full marks against the baseline, the strongest at least 90%,
no pair 60+ Elo apart (in both games) inverted, at most one such pair tied, and the same order in
at least 9 of 10 seed sets; with ``[play] stop_when_decided``, that stopping each case once its
points are decided (matches ending in index order) gives every share alike. The matches are cached in ``bench/strength-matches.json`` (a rubric
change re-scores them without playing again).
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import random
import sys
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench import evaluations  # noqa: E402

GAMES = {"connect4": (6, 7, 4, True), "mnk": (5, 5, 4, False)}  # rows, columns, connect, gravity
STRENGTH = REPO / "bench" / "strength.json"
MATCHES = REPO / "bench" / "strength-matches.json"
PLAYED = {"random": 10, "greedy": 12, "baseline": 20}  # grade: matches played a case (at least)


# --- the round robin's own game and search ------------------------------------------------------


class Board:
    """A grid game (Connect Four with ``gravity``, else the m,n,k-game) over cell strings, with
    the reading part of the grader's game interface the evaluations use."""

    def __init__(self, rows: int, columns: int, connect: int, gravity: bool) -> None:
        self.rows, self.columns, self.connect, self.gravity = rows, columns, connect, gravity
        lines = []
        for r in range(rows):
            for c in range(columns):
                for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                    if 0 <= r + dr * (connect - 1) < rows and 0 <= c + dc * (connect - 1) < columns:
                        lines.append(tuple((r + dr * i) * columns + c + dc * i
                                           for i in range(connect)))
        self.through = [[line for line in lines if cell in line] for cell in range(rows * columns)]

    def initial_state(self) -> str:
        return "." * (self.rows * self.columns)

    def to_move(self, cells: str) -> int:
        return 0 if cells.count("x") == cells.count("o") else 1

    def actions(self, cells: str) -> list[int]:
        if self.gravity:
            return [c for c in range(self.columns) if cells[c] == "."]
        return [i for i, mark in enumerate(cells) if mark == "."]

    def play(self, cells: str, action: int) -> tuple[str, str | None]:
        """(the position after ``action``, the mover's mark if it made a line, else None)."""
        square = action
        if self.gravity:
            while square + self.columns < len(cells) and cells[square + self.columns] == ".":
                square += self.columns
        mark = "x" if self.to_move(cells) == 0 else "o"
        after = cells[:square] + mark + cells[square + 1:]
        won = any(all(after[i] == mark for i in line) for line in self.through[square])
        return after, mark if won else None

    def board(self, cells: str) -> tuple[str, ...]:
        return tuple(cells[r * self.columns:(r + 1) * self.columns] for r in range(self.rows))


def _value(board: Board, cells: str, level: int, depth: int, evaluation: Callable,
           cache: dict, alpha: Any, beta: Any) -> tuple[int, float]:
    """Minimax (alpha-beta) value of the non-terminal ``cells``: outcomes as (1, -level) for a
    win of x, (-1, level) for o's, (0, 0) a draw, (0, v) an evaluated position."""
    if level == depth:
        if cells not in cache:
            cache[cells] = float(evaluation(board, cells))
        return (0, cache[cells])
    actions = board.actions(cells)
    maximizing = board.to_move(cells) == 0
    best = None
    for action in actions:
        after, won = board.play(cells, action)
        if won:
            value = (1, -(level + 1)) if won == "x" else (-1, level + 1)
        elif "." not in after:
            value = (0, 0.0)
        else:
            value = _value(board, after, level + 1, depth, evaluation, cache, alpha, beta)
        if maximizing:
            best = value if best is None or value > best else best
            alpha = max(alpha, best)
        else:
            best = value if best is None or value < best else best
            beta = min(beta, best)
        if alpha >= beta:
            break
    return best


def search_move(board: Board, cells: str, depth: int, evaluation: Callable, cache: dict) -> int:
    """Depth-limited minimax's move: the first action in order among the best."""
    maximizing = board.to_move(cells) == 0
    best_action, best = None, None
    low, high = (-2, 0.0), (2, 0.0)
    for action in board.actions(cells):
        after, won = board.play(cells, action)
        if won:
            return action  # a win at once: the best value there is, first in order
        if "." not in after:
            value = (0, 0.0)
        elif maximizing:
            value = _value(board, after, 1, depth, evaluation, cache, best or low, high)
        else:
            value = _value(board, after, 1, depth, evaluation, cache, low, best or high)
        if best is None or (value > best if maximizing else value < best):
            best_action, best = action, value
    return best_action


def play_match(game: str, seed: int, x: str, o: str, depth: int = 2, opening: int = 2,
               caches: dict | None = None) -> float:
    """One match, ``x`` against ``o`` (evaluation names) after ``opening`` seeded random plies:
    1 when x wins, 0.5 a draw, 0 when o wins."""
    board = Board(*GAMES[game])
    rng = random.Random(f"{game}:{seed}")
    functions = {name: evaluations.function(name) for name in (x, o)}
    caches = {} if caches is None else caches
    cells = board.initial_state()
    for ply in itertools.count():
        actions = board.actions(cells)
        if not actions:
            return 0.5
        if ply < opening:
            action = rng.choice(actions)
        else:
            name = x if board.to_move(cells) == 0 else o
            cache = caches.setdefault((game, name), {})
            if len(cache) > 200_000:
                cache.clear()
            action = search_move(board, cells, depth, functions[name], cache)
        cells, won = board.play(cells, action)
        if won:
            return 1.0 if won == "x" else 0.0
    raise AssertionError("unreachable")


def _play_pair(job: tuple[str, str, str, list[int]]) -> list[tuple[str, int, str, str, float]]:
    game, a, b, seeds = job
    caches: dict = {}
    out = []
    for seed in seeds:
        out.append((game, seed, a, b, play_match(game, seed, a, b, caches=caches)))
        out.append((game, seed, b, a, play_match(game, seed, b, a, caches=caches)))
    return out


def bradley_terry(results: list[tuple[str, str, float]], names: list[str]) -> dict[str, float]:
    """Elo (400 log10 of the Bradley-Terry strengths, draws half a win, the mean at 0) from
    (x, o, x's score) results; each player also draws one virtual game with a player of the
    mean's strength, so a player that never scores has a finite rating."""
    won = dict.fromkeys(names, 0.5)
    games: dict[tuple[str, str], int] = {}
    for x, o, score in results:
        won[x] += score
        won[o] += 1 - score
        for pair in ((x, o), (o, x)):
            games[pair] = games.get(pair, 0) + 1
    strength = dict.fromkeys(names, 1.0)
    for _ in range(2000):
        new = {}
        for i in names:
            denominator = 1 / (strength[i] + 1.0)  # the virtual game
            denominator += sum(n / (strength[i] + strength[j])
                               for (a, j), n in games.items() if a == i)
            new[i] = won[i] / denominator
        mean = math.exp(sum(math.log(v) for v in new.values()) / len(new))
        strength = {i: v / mean for i, v in new.items()}
    return {i: 400 * math.log10(v) for i, v in strength.items()}


def round_robin(seeds: int, jobs: int) -> dict[str, Any]:
    names = list(evaluations.NAMES)
    work = [(game, a, b, list(range(seeds))) for game in GAMES
            for a, b in itertools.combinations(names, 2)]
    with ProcessPoolExecutor(jobs) as pool:
        played = [row for rows in pool.map(_play_pair, work) for row in rows]
    table: dict[str, Any] = {"seeds": seeds, "matches": len(played), "games": {}}
    for game in [*GAMES, "all"]:
        rows = [(x, o, s) for g, _, x, o, s in played if game in (g, "all")]
        elo = bradley_terry(rows, names)
        rate = {}
        for name in names:
            mine = [s if x == name else 1 - s for x, o, s in rows if name in (x, o)]
            rate[name] = sum(mine) / len(mine)
        table["games"][game] = {"elo": elo, "score_rate": rate}
    return table


# --- grading the set with the grader's own matches ----------------------------------------------


def _grade_job(job: tuple[str, int, int]) -> tuple[str, int, dict[str, list[list[str]]]]:
    """The outcomes of function ``name``'s matches on every evaluate case in seed set ``s``."""
    from grader.cases import load_case
    from grader.cases.rubric import rubric_from_dict
    from grader.scoring import play as scoring_play

    name, s, matches = job
    evaluation = evaluations.function(name)
    out = {}
    for path in sorted((REPO / "trees").glob("*/evaluate-*.json")):
        case = load_case(path)
        case.play.seed += 1000 * s
        case.play.matches = None
        rubric = rubric_from_dict({"play": {"matches": max(matches, PLAYED[case.play.opponent])}})
        game = case.build_game()
        records = scoring_play.play_case(
            case, rubric,
            lambda ids, game=game: {i: float(evaluation(game, game.state_from_id(i))) for i in ids},
            every_match=True)  # every outcome: grade_set scores any number of them
        out[case.name] = [[r.side, r.outcome] for r in records]
    return name, s, out


def play_all(sets: int, matches: int, jobs: int) -> dict[str, Any]:
    known = json.loads(MATCHES.read_text()) if MATCHES.exists() else {}
    todo = [(name, s, matches) for s in range(sets) for name in evaluations.NAMES
            if len(known.get(name, {}).get(str(s), {}).get("evaluate-mnk-baseline", []))
            < max(matches, PLAYED["baseline"])]
    with ProcessPoolExecutor(jobs) as pool:
        for name, s, out in pool.map(_grade_job, todo):
            known.setdefault(name, {})[str(s)] = out
            MATCHES.write_text(json.dumps(known))
    return known


def grade_set(known: dict[str, Any], sets: int, rubric: Any,
              matches_for: dict[str, int] | None = None) -> dict[str, list[float]]:
    """Each function's evaluate points (a share of the maximum) in each seed set, scored as
    the grader scores them (the case's points, scaled by the steps reached); each case plays
    its own ``play.matches``, else the rubric's (``matches_for``: by opponent instead)."""
    from grader.cases import load_case
    from grader.scoring.play import play_score

    cases = {c.name: c for c in map(load_case, sorted((REPO / "trees").glob("*/evaluate-*.json")))}
    shares: dict[str, list[float]] = {}
    for name in [n for n in evaluations.NAMES if n in known]:
        for s in range(sets):
            earned = full = 0.0
            for case_name, outcomes in known[name][str(s)].items():
                if case_name not in cases:
                    continue  # cached for a case no longer shipped
                case = cases[case_name]
                matches = (matches_for or {}).get(case.play.opponent) \
                    or case.play.matches or rubric.play.matches
                if len(outcomes) < matches:
                    raise SystemExit(f"{name} set {s} {case_name}: {len(outcomes)} matches "
                                     f"played, {matches} wanted: run with --matches {matches}")
                got = play_score(outcomes[:matches], rubric, case.play.opponent)
                points = rubric.settings_for(case, "evaluate").points  # a case may set 0
                earned += points * (got.points / got.full if got.full else 0.0)
                full += points
            shares.setdefault(name, []).append(earned / full)
    return shares


def stopped_shares(known: dict[str, Any], sets: int, rubric: Any) -> tuple[dict, float]:
    """What :func:`grade_set` gives when each case stops once its points are decided, as the
    grader plays (``[play] stop_when_decided``; matches ending in index order), and the share
    of the matches played."""
    from types import SimpleNamespace

    from grader.cases import load_case
    from grader.scoring.play import next_matches, play_score

    cases = {c.name: c for c in map(load_case, sorted((REPO / "trees").glob("*/evaluate-*.json")))}
    shares: dict[str, list[float]] = {}
    played = planned = 0
    for name in [n for n in evaluations.NAMES if n in known]:
        for s in range(sets):
            earned = full = 0.0
            for case_name, outcomes in known[name][str(s)].items():
                if case_name not in cases:
                    continue  # cached for a case no longer shipped
                case = cases[case_name]
                matches = case.play.matches or rubric.play.matches
                every = [SimpleNamespace(side=side, outcome=outcome)
                         for side, outcome in outcomes[:matches]]
                records: list[Any] = [None] * matches
                running: set[int] = set()
                while True:
                    running |= set(next_matches(records, running, rubric, case.play.opponent))
                    if not running:
                        break
                    ended = min(running)
                    running.discard(ended)
                    records[ended] = every[ended]
                got = play_score([r for r in records if r is not None], rubric,
                                 case.play.opponent, matches)
                played += sum(r is not None for r in records)
                planned += matches
                points = rubric.settings_for(case, "evaluate").points
                earned += points * (got.points / got.full if got.full else 0.0)
                full += points
            shares.setdefault(name, []).append(earned / full)
    return shares, played / planned


def check_targets(shares: dict[str, list[float]], strength: dict[str, Any]) -> list[str]:
    """Issue 28's targets; the lines that fail (an empty list: all hold)."""
    elo = strength["games"]["all"]["elo"]
    per_game = [strength["games"][g]["elo"] for g in GAMES]
    names = list(shares)
    sets = len(next(iter(shares.values())))
    failed = []
    if max(shares["constant"]) > 0.2:
        failed.append(f"constant earns up to {max(shares['constant']):.0%} (> 20%)")
    if max(shares["wrong_sign"]) > 0:
        failed.append(f"wrong_sign earns up to {max(shares['wrong_sign']):.0%} (> 0)")
    strongest = max(names, key=elo.get)
    if min(shares[strongest]) < 0.9:
        failed.append(f"{strongest} (the strongest) earns as little as "
                      f"{min(shares[strongest]):.0%} (< 90%)")
    clear = [(a, b) for a, b in itertools.permutations(names, 2)
             if all(g[a] - g[b] >= 60 for g in per_game)]  # a clearly stronger than b
    same_order, sets_off = 0, []
    for s in range(sets):
        inverted = [(a, b) for a, b in clear if shares[a][s] < shares[b][s]]
        tied = [(a, b) for a, b in clear if shares[a][s] == shares[b][s]]
        if not inverted and len(tied) <= 1:
            same_order += 1
        else:
            sets_off.append(f"set {s}: inverted {inverted}, tied {tied}")
    if same_order < 0.9 * sets:
        failed.append(f"the order holds in {same_order} of {sets} sets (< 90%): "
                      + "; ".join(sets_off))
    return failed


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("what", choices=("roundrobin", "grade"))
    parser.add_argument("--seeds", type=int, default=8, help="round robin: openings a pair plays")
    parser.add_argument("--sets", type=int, default=10, help="grade: seed sets")
    parser.add_argument("--matches", type=int, default=None, help="grade: matches a case")
    parser.add_argument("--rubric", default=None, help="grade: the rubric (trees/rubric.toml)")
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args(argv)
    if args.what == "roundrobin":
        table = round_robin(args.seeds, args.jobs)
        STRENGTH.write_text(json.dumps(table, indent=1))
        _print_strength(table)
        return 0
    from grader.cases.rubric import load_rubric

    rubric = load_rubric(args.rubric)
    known = play_all(args.sets, args.matches or 0, args.jobs)
    shares = grade_set(known, args.sets, rubric)
    strength = json.loads(STRENGTH.read_text())
    elo = strength["games"]["all"]["elo"]
    print(f"{'function':18} {'Elo':>5}  share of the evaluate points in each seed set")
    for name in sorted(shares, key=elo.get):
        print(f"{name:18} {elo[name]:5.0f}  " + " ".join(f"{v:4.0%}" for v in shares[name]))
    failed = check_targets(shares, strength)
    if rubric.play.stop_when_decided:
        stopped, played = stopped_shares(known, args.sets, rubric)
        same = stopped == shares
        print(f"stopping once decided: {'the same' if same else 'DIFFERENT'} shares, "
              f"{played:.0%} of the matches played")
        if not same:
            failed.append("stopping once decided changed a share")
    print("\n".join(failed) if failed else "every target holds")
    return 1 if failed else 0


def _print_strength(table: dict[str, Any]) -> None:
    print(f"{table['matches']} matches ({table['seeds']} openings a pair, game and side)")
    print(f"{'function':18} " + "  ".join(f"{g:>16}" for g in table["games"]))
    order = sorted(table["games"]["all"]["elo"], key=table["games"]["all"]["elo"].get)
    for name in order:
        cells = [f"{t['elo'][name]:6.0f} Elo {t['score_rate'][name]:4.0%}"
                 for t in table["games"].values()]
        print(f"{name:18} " + "  ".join(f"{c:>16}" for c in cells))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
