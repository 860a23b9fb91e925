"""``grader generate``: random exercise trees, each with its answer key beside it.

Trees are full (``--branching`` children a node, ``--depth`` edges deep), integer leaves drawn
from ``[--low, --high]`` by one ``random.Random(--seed)``, written in the shorthand form (ids as
docs/cases.md gives them). Candidates are drawn one after another and kept when they show what
``--require`` asks for, so the same options write the same files:

* ``strict-differs``: the inclusive and strict alpha-beta traces differ (an equality cut);
* ``ties``: some MAX/MIN/max^n node has two children with its best value (first one wins);
* ``deep-cutoff``: alpha-beta (the course's rule) cuts at depth >= 2 because of a bound set
  two or more levels up (an ancestor's alpha or beta, not the parent's).

The game follows ``--algorithm``: MAX/MIN alternating (``minimax``, ``alpha_beta``, ``mcts``),
MAX, chance, MIN, chance (``expectimax``, equal chances), three players with vector leaves
(``maxn``). A ``minimax`` exercise asked for ``strict-differs`` or ``deep-cutoff`` (alpha-beta
properties) lists ``alpha_beta`` too, so the key shows what the description claims. Each case
is written as ``<out>/<name>.json``, checked with ``grader validate``,
and its key as ``<out>/<name>.key.md``.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

import grader.algorithms as algorithm_specs
from grader.algorithms.alpha_beta import ALGORITHM as ALPHA_BETA
from grader.answers.sheet import answer_key
from grader.answers.tree_walk import ReferenceMissingError, TreeNode, staff, walk
from grader.cases import case_from_dict, load_case
from grader.cases.algorithms import ALGORITHMS, PLAY_ALGORITHMS
from grader.cases.authoring import (
    AuthoringError,
    case_json,
    check_size,
    full_tree,
    quiescence_marks,
    random_leaves,
    schema_ref,
    transposition_graph,
    with_evals,
)
from grader.errors import CaseError
from grader.games.base import CHANCE

TREE_ALGORITHMS = tuple(a for a in ALGORITHMS if a not in PLAY_ALGORITHMS)  # evaluate: no tree
REQUIREMENTS = ("strict-differs", "ties", "deep-cutoff")
ALPHA_BETA_ONLY = ("strict-differs", "deep-cutoff")
MIN_DEPTH = {"strict-differs": 2, "ties": 1, "deep-cutoff": 4}
TRIES = 5000  # candidates drawn a case before giving up
SHOWS = {"strict-differs": "alpha-beta's inclusive and strict traces differ",
         "ties": "a node has tied best children (the first one wins)",
         "deep-cutoff": "alpha-beta makes a deep cutoff (a bound from two or more levels up)",
         None: "no particular requirement"}


def _game_fields(algorithm: str) -> tuple[dict[str, Any], int | None]:
    """The case fields that set the game up, and the leaf vector width (None: numbers): chance
    nodes at every other level where the algorithm takes them, three players where its leaves
    are payoff vectors."""
    games = algorithm_specs.get(algorithm).games
    if games.chance:
        return {"turns": ["max", "chance", "min", "chance"]}, None
    if games.vector_leaves:
        return {"players": 3}, 3
    return {}, None


def _about_alpha_beta(algorithm: str) -> bool:
    """Whether ``--require``'s alpha-beta properties apply: two players, no chance, a tree."""
    spec = algorithm_specs.get(algorithm)
    return (spec.games.two_player and not spec.games.chance
            and spec.authoring.shape in ("tree", "evals_inside"))


def check_options(algorithm: str, depth: int, branching: int, count: int, require: str | None,
                  low: int, high: int) -> None:
    """Raise :class:`AuthoringError` for options that cannot give what was asked."""
    if algorithm in PLAY_ALGORITHMS:
        raise AuthoringError(f"{algorithm} is graded by play on a built-in game: there is no "
                             f"exercise tree to generate; `grader new -a {algorithm} --out FILE` "
                             f"writes an {algorithm} case")
    if algorithm not in ALGORITHMS:
        raise AuthoringError(f"expected an algorithm, one of {TREE_ALGORITHMS}, got: "
                             f"{algorithm!r}")
    check_size(branching, depth)
    if count < 1:
        raise AuthoringError(f"expected --count of at least 1, got {count}")
    if low > high:
        raise AuthoringError(f"expected --low <= --high, got {low} > {high}")
    shape = algorithm_specs.get(algorithm).authoring.shape
    if shape == "noisy_last_ply" and depth < 2:
        raise AuthoringError(f"a {algorithm} case needs --depth 2 or more (the depth limit is "
                             "one less: the last ply is searched by the quiescence search)")
    if shape in ("transpositions", "noisy_last_ply") and require is not None:
        raise AuthoringError(f"--require is for alpha-beta's exercises, not {algorithm}'s")
    if require is None:
        return
    if require not in REQUIREMENTS:
        raise AuthoringError(f"expected --require to be one of {REQUIREMENTS}, got: {require!r}")
    if require in ALPHA_BETA_ONLY and not _about_alpha_beta(algorithm):
        about = " or ".join(a for a in TREE_ALGORITHMS if _about_alpha_beta(a))
        raise AuthoringError(f"--require {require} is about alpha-beta: use --algorithm "
                             f"{about}")
    if depth < MIN_DEPTH[require] or branching < 2 or (require != "ties" and low == high):
        raise AuthoringError(f"--require {require} needs --depth {MIN_DEPTH[require]} or more, "
                             "--branching 2 or more and --low < --high")


def listed_algorithms(algorithm: str, require: str | None) -> list[str]:
    """The case's algorithms: an exercise asked to show an alpha-beta property lists its spec's
    ``listed_with`` too (minimax's: alpha_beta), so its key shows what the description claims."""
    if require in ALPHA_BETA_ONLY:
        return [algorithm, *algorithm_specs.get(algorithm).authoring.listed_with]
    return [algorithm]


def has_ties(nodes: list[TreeNode]) -> bool:
    """Some MAX/MIN/max^n node has two or more children with its best value."""
    values = {node.id: node.value for node in nodes if not node.repeat}
    for node in nodes:
        if node.repeat or node.cutoff or node.player == CHANCE:
            continue
        mover = node.player if isinstance(node.value, tuple) else None  # max^n: own entry

        def score(value: Any, mover: Any = mover) -> Any:
            return value if mover is None else value[mover]

        if sum(score(values[child]) == score(node.value) for child in node.children) >= 2:
            return True
    return False


def satisfies(case: Any, require: str | None, rule: str = "inclusive") -> bool:
    """Whether ``case`` shows what ``require`` asks for (see the module docstring)."""
    if require is None:
        return True
    if require == "ties":
        return has_ties(walk(case.build_game()))
    replay = staff("replay", "checking --require").AlphaBetaReplay
    if require == "strict-differs":
        runs = [replay(case.build_game(), r) for r in ("inclusive", "strict")]
        return runs[0].generated != runs[1].generated
    return any(cut.deep for cut in replay(case.build_game(), rule).cuts)


def _shows_off(data: dict, algorithm: str) -> bool:
    """A case that shows the algorithm off against the one its spec compares it with: the
    table saves nodes, the quiescent answer is not plain depth-limited alpha-beta's (any case
    for an algorithm compared with none)."""
    authoring = algorithm_specs.get(algorithm).authoring
    if authoring.compared_with is None:
        return True
    from grader.answers.solve import solve

    case = case_from_dict(data)
    got, other = solve(case, algorithm), solve(case, authoring.compared_with)
    if authoring.shows == "generated":
        return len(got.generated) < len(other.generated)
    return (got.value, got.action) != (other.value, other.action)


def generate_cases(algorithm: str, *, depth: int = 3, branching: int = 3, seed: int = 0,
                   count: int = 1, require: str | None = None, low: int = -10, high: int = 20,
                   rule: str = "inclusive", schema: str | None = None) -> list[dict]:
    """Up to ``count`` case dicts (fewer when :data:`TRIES` candidates a case do not suffice)."""
    check_options(algorithm, depth, branching, count, require, low, high)
    rng = random.Random(seed)
    fields, width = _game_fields(algorithm)
    shape = algorithm_specs.get(algorithm).authoring.shape
    found: list[dict] = []
    seen: set[str] = set()
    for _ in range(TRIES * count):
        tree = random_leaves(rng, branching, depth, low, high, width)
        key = repr(tree)
        if key in seen:
            continue
        seen.add(key)
        number = len(found) + 1
        name = "-".join([algorithm.replace("_", "-"), *([require] if require else []),
                         f"d{depth}-b{branching}-s{seed}-{number}"])
        data = {"$schema": schema or schema_ref(None), "name": name,
                "description": f"Random {algorithm} exercise no. {number} (depth {depth}, "
                f"branching {branching}, leaves in [{low}, {high}], seed {seed}): "
                f"{SHOWS[require]}.",
                "algorithms": listed_algorithms(algorithm, require), **fields, "tree": tree}
        if shape == "evals_inside":  # cut at every depth: evals inside, the limit
            data["tree"] = with_evals(full_tree(tree, ["max", "min"], False), rng, low, high)
            data["depth_limit"] = depth
        if shape == "transpositions":  # a graph with transpositions (the same every try
            del data["tree"]                # but its leaf values)
            data["start"], data["states"] = transposition_graph(rng, branching, depth, low, high)
        if shape == "noisy_last_ply":  # cut one ply above the leaves, noisy marks there
            data["tree"] = quiescence_marks(full_tree(tree, ["max", "min"], False), rng,
                                            depth - 1, low, high)
            data["depth_limit"] = depth - 1
        if satisfies(case_from_dict(data), require, rule) and _shows_off(data, algorithm):
            found.append(data)
            if len(found) == count:
                break
    return found


def generate_main(algorithm: str, *, depth: int = 3, branching: int = 3, seed: int = 0,
                  count: int = 1, require: str | None = None, out: str | Path = ".",
                  low: int = -10, high: int = 20) -> int:
    """``grader generate``: write the cases and keys; 0, 1 (too few found, or a file that does
    not validate), or 2 for options that cannot work."""
    from grader.answers.solve import resolve_pruning
    from grader.answers.validate import validate_paths
    from grader.cases.rubric import RubricError, load_rubric

    out = Path(out)
    try:
        staff(None, "writing answer keys")  # fail here, clearly, in the handout
        rubric = load_rubric()
        rule = resolve_pruning(None, ALPHA_BETA.name, None, rubric)
        cases = generate_cases(algorithm, depth=depth, branching=branching, seed=seed,
                               count=count, require=require, low=low, high=high, rule=rule,
                               schema=schema_ref(out / "case.json"))
        listed = listed_algorithms(algorithm, require)
        if listed != [algorithm]:
            print(f"note: --require {require} is about alpha-beta, so each case lists "
                  f"{' and '.join(listed)} (the key shows both)")
        out.mkdir(parents=True, exist_ok=True)
        written = []
        for data in cases:
            path = out / f"{data['name']}.json"
            path.write_text(case_json(data), encoding="utf-8")
            key = out / f"{data['name']}.key.md"
            key.write_text(answer_key(load_case(path), rubric), encoding="utf-8")
            written.append(path)
            print(f"wrote {path} and {key.name}")
    except (AuthoringError, RubricError, ReferenceMissingError) as error:
        print(f"grader generate: {error}", file=sys.stderr)
        return 2
    except OSError as error:  # --out is a file, or cannot be written
        print(f"grader generate: {error.filename or out}: cannot write it: {error.strerror}",
              file=sys.stderr)
        return 2
    except CaseError as error:
        print(f"grader generate: {error}", file=sys.stderr)
        return 1
    errors = validate_paths(written)
    for error in errors:
        print(f"grader generate: a generated case does not validate: {error}", file=sys.stderr)
    if len(cases) < count:
        print(f"grader generate: found {len(cases)} of {count} trees showing {require} in "
              f"{TRIES * count} tries; try another --seed, a deeper or wider tree, or a wider "
              "value range", file=sys.stderr)
        return 1
    return 1 if errors else 0


__all__ = ["REQUIREMENTS", "TREE_ALGORITHMS", "check_options", "generate_cases", "generate_main", "has_ties",
           "satisfies"]
