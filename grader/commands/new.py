"""``grader new``: a case skeleton for a TA to edit, with random leaves chosen so that the case
tests something (alpha-beta prunes, the two pruning rules part where asked).

The case-file writing helpers are :mod:`grader.cases.authoring`.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

import grader.algorithms as algorithm_specs
from grader.cases import case_from_dict
from grader.cases.algorithms import PLAY_ALGORITHMS
from grader.cases.authoring import (
    DESCRIPTION,
    AuthoringError,
    case_json,
    case_name,
    check_size,
    full_tree,
    parse_shape,
    quiescence_marks,
    random_leaves,
    schema_ref,
    transposition_graph,
    turns_for,
    with_evals,
)
from grader.errors import CaseError
from grader.games.base import MIN


def _interesting(case: Any, algorithm: str, depth: int) -> bool:
    """The algorithm shows itself off against the one its spec compares it with (the table
    saves nodes, the quiescent value is not the depth-limited one); else the best root move is
    not the first, and alpha-beta prunes (two players, no chance)."""
    from grader.answers.sheet import AlphaBetaReplay
    from grader.answers.solve import solve
    from grader.answers.tree_walk import walk

    spec = algorithm_specs.get(algorithm)
    if spec.authoring.compared_with is not None:
        run, other = solve(case, algorithm), solve(case, spec.authoring.compared_with)
        if spec.authoring.shows == "generated":
            return len(run.generated) < len(other.generated)
        return run.value != other.value
    game = case.build_game()
    if _first_is_best(walk(game)):  # exact values: minimax's, expectimax's or max^n's
        return False
    if not spec.games.chance and not case.vector_values and depth >= 2:
        return bool(AlphaBetaReplay(game).cuts)
    return True


def _first_is_best(nodes: list[Any]) -> bool:
    """Whether the root's first child is its mover's best (the first of the best on ties, as
    every reference decides): max^n by the mover's entry, MIN by the least value."""
    values = {node.id: node.value for node in nodes if not node.repeat}
    root = nodes[0]
    mover = root.player

    def score(child: str) -> Any:
        value = values[child]
        if isinstance(value, (tuple, list)):
            return value[mover]
        return -value if mover == MIN else value

    best = max(score(child) for child in root.children)
    return score(root.children[0]) == best


def play_skeleton(algorithm: str, name: str = "new-case", schema: str | None = None) -> dict:
    """A case of an algorithm graded by play: its spec's game and play settings (``evaluate``'s:
    Connect Four 6 x 7 against the greedy opponent; the TA may change the game to ``mnk`` and
    the opponent to ``random`` or ``baseline``, docs/cases.md)."""
    return {"$schema": schema or schema_ref(None), "name": name, "description": DESCRIPTION,
            "algorithms": [algorithm], **algorithm_specs.get(algorithm).authoring.fields}


def skeleton(algorithm: str, branching: int, depth: int, *, players: int = 2,
             chance: bool = False, name: str = "new-case", schema: str | None = None) -> dict:
    """The case a TA starts from (see the module docstring); deterministic."""
    turns = turns_for(algorithm, players, chance)
    check_size(branching, depth)
    spec = algorithm_specs.get(algorithm)
    shape = spec.authoring.shape
    vectors = players > 2 or spec.games.vector_leaves
    data: dict[str, Any] = {"$schema": schema or schema_ref(None), "name": name,
                            "description": DESCRIPTION, "algorithms": [algorithm]}
    if players != 2:
        data["players"] = players
    data.update(spec.authoring.fields)
    low, high = (0, 9) if vectors else (-5, 20)
    for seed in range(200):  # the first interesting tree; the last tried if none is
        leaves = random_leaves(random.Random(seed), branching, depth, low, high,
                               players if vectors else None)
        data["tree"] = full_tree(leaves, turns, vectors)
        if shape == "transpositions":  # a graph: transposed states for the table
            del data["tree"]
            data["start"], data["states"] = transposition_graph(random.Random(seed), branching,
                                                                depth, low, high)
        if shape == "noisy_last_ply":  # the last ply past the limit, some of it noisy
            if depth < 2:
                raise AuthoringError(f"a {algorithm} case needs a depth of at least 2 (the "
                                     "depth limit is one less); use e.g. --shape 2x3")
            data["depth_limit"] = depth - 1
            data["tree"] = quiescence_marks(data["tree"], random.Random(seed), depth - 1,
                                            low, high)
        if shape == "evals_inside":  # cut at every depth: evals inside, the limit
            data["tree"] = with_evals(data["tree"], random.Random(seed), low, high)
            data["depth_limit"] = depth
        if branching == 1 or _interesting(case_from_dict(data), algorithm, depth):
            break
    return data


def new_main(algorithm: str, shape: str | None = None, *, players: int = 2,
             chance: bool = False, out: str | Path | None = None) -> int:
    """``grader new``: write (or print) a skeleton; 0, or 2 for options that cannot make one.
    ``shape`` defaults to 3x3; an ``evaluate`` case (a built-in game) takes no shape, players
    or chance."""
    try:
        if out is not None and Path(out).exists():
            raise AuthoringError(f"{out}: already exists; choose another --out (or delete it "
                                 "first)")
        name = case_name(Path(out).stem) if out is not None else "new-case"
        if algorithm in PLAY_ALGORITHMS:
            if shape is not None or players != 2 or chance:
                raise AuthoringError(f"{algorithm} cases play a built-in game (Connect Four, "
                                     "the m,n,k-game or chase): --shape, --players and --chance "
                                     "do not "
                                     "apply; edit the skeleton's game and params instead")
            data = play_skeleton(algorithm, name, schema_ref(out))
        else:
            branching, depth = parse_shape(shape or "3x3")
            data = skeleton(algorithm, branching, depth, players=players, chance=chance,
                            name=name, schema=schema_ref(out))
        case_from_dict(data)  # a skeleton that does not load is this module's bug: say so
    except (AuthoringError, CaseError) as error:
        print(f"grader new: {error}", file=sys.stderr)
        return 2
    text = case_json(data)
    if out is None:
        print(text, end="")
        return 0
    try:
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        Path(out).write_text(text, encoding="utf-8")
    except OSError as error:
        print(f"grader new: {out}: cannot write it: {error.strerror}", file=sys.stderr)
        return 2
    preview = (f"grader solve {out} --key" if algorithm in PLAY_ALGORITHMS
               else f"grader render {out}")
    print(f"wrote {out}: fill in its description, then preview it with `{preview}` and check "
          f"it with `grader validate {out}`")
    return 0
