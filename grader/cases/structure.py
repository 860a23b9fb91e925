"""The structure of an explicit game: its graph checked with networkx.

Owns the third checking layer for explicit games (:func:`explicit_errors`), once the schema
holds: one root, no cycles, every successor defined, ids and actions unique, leaf values of
the right arity, chance probabilities summing to 1, ``eval`` at the depth limit, and the
listed algorithms able to search what the depth limit leaves of the game. Reading the forms
is :mod:`grader.cases.specs`; the rules shared with built-in games are
:mod:`grader.cases.rules`.
"""

from __future__ import annotations

import math
from typing import Any

from grader.cases.rules import (
    DEEPENING_ALGORITHMS,
    NO_CHANCE_ALGORITHMS,
    NOISY_ALGORITHMS,
    arity_problem,
    player_problem,
    vector_values,
)
from grader.cases.schema import did_you_mean
from grader.cases.specs import NodeSpec, explicit_nodes
from grader.cases.text import JsonPath, case_error
from grader.errors import CaseError

PROBABILITY_TOLERANCE = 1e-9


def explicit_errors(data: dict, file: str | None = None,
                    read: list | None = None) -> list[CaseError]:
    """Every mistake of a schema-valid explicit game: reading its form, then its graph.

    ``read``: a list that receives the game as read, ``(nodes, root)``, so a loader that
    finds no error need not read a big game twice.
    """
    errors: list[CaseError] = []
    nodes, root = explicit_nodes(data, errors, file)
    if read is not None:
        read.append((nodes, root))
    if errors and not nodes:
        return errors
    if len({node.id for node in nodes}) < len(nodes):
        return errors  # duplicate ids (reported): the graph would be wrong in confusing ways
    errors.extend(_graph_errors(data, nodes, root, file))
    return errors


def _graph_errors(
    data: dict, nodes: list[NodeSpec], root: str, file: str | None
) -> list[CaseError]:
    errors: list[CaseError] = []
    players = data.get("players", 2)
    vectors = vector_values(data)
    depth_limit = data.get("depth_limit")
    by_id = {node.id: node for node in nodes}
    states_form = "states" in data
    shorthand = isinstance(data.get("tree"), list)

    def add(message: str, parts: JsonPath) -> None:
        errors.append(case_error(message, parts, file))

    order = _tree_order(nodes, by_id, root)
    undefined = cyclic = False
    if order is None:  # something is wrong with the graph: networkx finds and words it
        undefined, cyclic, order = _graph_problems(nodes, by_id, root, states_form, add)
        if order is None:
            return errors
    for node in nodes:
        player = node.player
        problem = None if shorthand else player_problem(player, players)  # turns: when read
        if problem:
            add(problem, node.path + ("player",))
        if node.is_leaf:
            if player == "chance":
                add(f"leaf {node.id!r} is a chance node without outcomes; remove its player or "
                    "give it children", node.path + ("player",))
            if node.eval is not None:
                add(f"leaf {node.id!r} has eval; a leaf is scored by its value: remove eval",
                    node.path + ("eval",))
        else:
            if node.value is not None:
                add(f"node {node.id!r} has children and a value; an internal node cut by the "
                    "depth limit takes 'eval': rename value to eval, or remove it",
                    node.path + ("value",))
            actions = [edge.action for edge in node.edges]
            for i, action in enumerate(actions):
                if action in actions[:i]:
                    add(f"action {action!r} appears twice at {node.id!r}; the actions of a node "
                        "must differ", node.edges[i].path)
            if player == "chance":
                errors.extend(_probability_errors(node, file))
        for key in ("value", "eval"):
            value = getattr(node, key)
            if value is None:
                continue
            problem = arity_problem(value, vectors, players)
            if problem:
                where = node.path if shorthand else node.path + (key,)
                add(f"{'leaf' if key == 'value' else 'eval of'} {node.id!r}: {problem}", where)
    if cyclic or undefined:
        return errors  # the depths below need a finite graph with every node defined

    # Depths the search reaches each node at: it stops at leaves and at the depth limit.
    depths: dict[str, set[int]] = {root: {0}}
    for state in order:
        node = by_id[state]
        for depth in depths.get(state, ()):
            if node.is_leaf or (depth_limit is not None and depth >= depth_limit):
                continue
            for edge in node.edges:
                depths.setdefault(edge.child, set()).add(depth + 1)
    errors.extend(_depth_errors(data, by_id, depths, file))
    errors.extend(_searched_errors(data, by_id, depths, root, file))
    errors.extend(_quiescence_errors(data, nodes, by_id, depths, file))
    return errors


def _quiescence_errors(data: dict, nodes: list[NodeSpec], by_id: dict, depths: dict,
                       file: str | None) -> list[CaseError]:
    """The quiet / noisy marks: only in a quiescence case, ``"quiet": false`` on nodes with
    children, ``"noisy": true`` under such a node; and an ``eval`` on every inner node the
    quiescence search reaches past the depth limit (its stand-pat value)."""
    errors = []
    marked = any(not node.quiet or any(edge.noisy for edge in node.edges) for node in nodes)
    if not marked:
        return errors
    if not any(a in NOISY_ALGORITHMS for a in data["algorithms"]):
        mark = next(node for node in nodes if not node.quiet or any(e.noisy for e in node.edges))
        return [case_error(f"node {mark.id!r} has a quiet/noisy mark, which only the quiescence "
                           "search reads; add quiescence to algorithms or remove the marks",
                           mark.path, file)]
    for node in nodes:
        if not node.quiet and node.is_leaf:
            errors.append(case_error(f"leaf {node.id!r} is marked \"quiet\": false, but a leaf "
                                     "has no move to make: remove the mark", node.path, file))
        for edge in node.edges:
            if edge.noisy and node.quiet:
                errors.append(case_error(
                    f"{edge.child!r} is marked noisy but its parent {node.id!r} is quiet, so "
                    f"the search never follows it: mark {node.id!r} \"quiet\": false, or remove "
                    "\"noisy\"", edge.path, file))
    limit = data.get("depth_limit")
    if limit is None or errors:
        return errors
    horizon = limit + data.get("quiescence_limit", 2)
    frontier = [(state, limit) for state, reached in depths.items() if limit in reached]
    while frontier:  # past the limit: noisy moves only, to the quiescence limit
        state, depth = frontier.pop()
        node = by_id[state]
        if node.is_leaf:
            continue
        if node.eval is None and depth > limit:
            errors.append(case_error(
                f"node {state!r} is reached past the depth limit along noisy moves (depth "
                f"{depth}) and has children, so the quiescence search evaluates it (stand pat): "
                "give it 'eval'", node.path, file))
        if node.quiet or depth >= horizon:
            continue
        frontier.extend((edge.child, depth + 1) for edge in node.edges if edge.noisy)
    return errors


def _tree_order(nodes: list[NodeSpec], by_id: dict[str, NodeSpec], root: str) -> list[str] | None:
    """The ids in a topological order from ``root`` (breadth first for a tree) when the game
    is a well-formed DAG: every successor defined, the root no one's successor, every node
    reached, no cycle (Kahn's algorithm: a node on a cycle or unreachable is never freed).
    Else None, and networkx finds and words what is wrong. Most cases are well formed, and
    networkx costs a third of a second to import and seconds on a 10^6-node case."""
    if root not in by_id:
        return None
    parents = dict.fromkeys(by_id, 0)
    for node in nodes:
        for edge in node.edges:
            if edge.child not in parents:
                return None
            parents[edge.child] += 1
    if parents[root]:
        return None
    order = [root]
    for state in order:
        for edge in by_id[state].edges:
            parents[edge.child] -= 1
            if not parents[edge.child]:
                order.append(edge.child)
    return order if len(order) == len(by_id) else None


def _graph_problems(nodes: list[NodeSpec], by_id: dict[str, NodeSpec], root: str,
                    states_form: bool, add: Any) -> tuple[bool, bool, list[str] | None]:
    """The graph's mistakes, given to ``add``: (any successor undefined, any cycle, the reachable
    ids in a topological order: empty when there is a cycle or an undefined successor, None
    when the start state is undefined)."""
    import networkx as nx  # here, not at the top: every worker start would pay for it

    graph = nx.DiGraph()
    graph.add_nodes_from(by_id)
    undefined = False
    for node in nodes:
        for edge in node.edges:
            if edge.child not in by_id:
                undefined = True
                close = did_you_mean(edge.child, by_id)
                add(f"successor {edge.child!r} of state {node.id!r} is not defined{close}; add "
                    f"{edge.child!r} to states or fix the name", edge.path + (1,))
            else:
                graph.add_edge(node.id, edge.child)
    if root not in by_id:
        add(f"the start state {root!r} is not defined{did_you_mean(root, by_id)}; "
            "name a key of states", ("start",))
        return undefined, False, None
    cyclic = False
    for component in nx.strongly_connected_components(graph):
        member = next(iter(component))
        if len(component) > 1 or graph.has_edge(member, member):
            cyclic = True
            cycle = [a for a, _ in nx.find_cycle(graph.subgraph(component))]
            names = " -> ".join(cycle + [cycle[0]])
            first = min(component, key=list(by_id).index)
            add(f"the states form a cycle {names}; a game tree cannot come back to a state: "
                "break the cycle", by_id[first].path)
    if states_form and not cyclic and graph.in_degree(root) > 0:
        parents = ", ".join(repr(p) for p in graph.predecessors(root))
        add(f"the start state {root!r} is a successor of {parents}; the start must be the root "
            "(one root a game)", ("start",))
    reachable = nx.descendants(graph, root) | {root}
    for node in nodes:
        if node.id not in reachable:
            add(f"state {node.id!r} cannot be reached from the start {root!r}; link it from a "
                "state or remove it", node.path)

    if cyclic or undefined:
        return undefined, cyclic, []  # no order: the caller stops before the depths
    return undefined, cyclic, list(nx.topological_sort(graph.subgraph(reachable)))


def _probability_errors(node: NodeSpec, file: str | None) -> list[CaseError]:
    missing = [edge for edge in node.edges if edge.probability is None]
    if missing:
        if node.has_probabilities:
            return []  # the list's length was wrong: reported while reading the states
        where = missing[0].path if node.path[0] != "states" else node.path
        what = ("each child needs 'probability'" if node.path[0] == "tree"
                else "give 'probabilities', one a successor")
        return [case_error(f"chance node {node.id!r} has children without a probability: "
                           f"{what}", where, file)]
    total = math.fsum(edge.probability for edge in node.edges)
    if abs(total - 1) > PROBABILITY_TOLERANCE:
        where = node.edges[0].probability_path[:-1] if node.path[0] == "states" else node.path
        return [case_error(f"probabilities of the children of {node.id!r} sum to {total:.12g}; "
                           "they must sum to 1", where, file)]
    return []


def _depth_errors(data: dict, by_id: dict, depths: dict, file: str | None) -> list[CaseError]:
    limit = data.get("depth_limit")
    if limit is None:
        return []
    errors = []
    shorthand = isinstance(data.get("tree"), list)
    deepening = any(a in DEEPENING_ALGORITHMS for a in data["algorithms"])
    for state, reached in depths.items():
        node = by_id[state]
        if node.is_leaf:
            continue
        if deepening and node.eval is None and not shorthand and min(reached) >= 1:
            errors.append(case_error(
                f"{'state' if node.path[0] == 'states' else 'node'} {state!r} has children and "
                f"iterative deepening cuts at depth {min(reached)} in an earlier iteration, so "
                "the search evaluates it: give it 'eval' (its heuristic value)", node.path, file))
            continue
        if deepening and len(reached) > 1:
            errors.append(case_error(
                f"state {state!r} is reached at depths {', '.join(map(str, sorted(reached)))}; "
                "iterative deepening cuts at every depth, so a shared state must be at one "
                "depth: give each parent its own copy", node.path, file))
            continue
        if limit not in reached:
            continue
        if shorthand:
            return [case_error(
                f"node {state!r} is cut by the depth limit {limit} but shorthand trees have no "
                "eval values; write this case as a full tree with eval, or remove depth_limit",
                ("depth_limit",), file)]
        if node.eval is None:
            errors.append(case_error(
                f"{'state' if node.path[0] == 'states' else 'node'} {state!r} is at the depth "
                f"limit {limit} and has children, so the search evaluates it: give it 'eval' "
                "(its heuristic value)", node.path, file))
        if len(reached) > 1:
            other = ", ".join(str(d) for d in sorted(reached) if d != limit)
            errors.append(case_error(
                f"state {state!r} is reached at depth {other} and at the depth limit {limit}; a "
                "shared state must be at one depth when a depth limit cuts it: give each parent "
                "its own copy", node.path, file))
    return errors


def _searched_errors(
    data: dict, by_id: dict, depths: dict, root: str, file: str | None
) -> list[CaseError]:
    """The algorithms against what the search meets: chance nodes, bounds, the root."""
    errors = []
    algorithms = data["algorithms"]
    limit = data.get("depth_limit")
    if by_id[root].is_leaf:
        errors.append(case_error(f"the root {root!r} has no children: there is nothing to "
                                 "search; give it children", by_id[root].path, file))
    chance = next((s for s, d in depths.items() if by_id[s].player == "chance"
                   and not by_id[s].is_leaf and (limit is None or min(d) < limit)), None)
    if chance is not None:
        for i, algorithm in enumerate(algorithms):
            if algorithm in NO_CHANCE_ALGORITHMS:
                errors.append(case_error(
                    f"{algorithm} cannot search chance nodes and {chance!r} is one; use "
                    f"expectimax, or remove {algorithm} from algorithms", ("algorithms", i), file))
    bounds = data.get("value_bounds")
    max_sum = data.get("max_sum")
    for state, reached in depths.items():
        node = by_id[state]
        for key in ("value", "eval"):
            value = getattr(node, key)
            if value is None or (key == "eval" and (limit is None or limit not in reached)):
                continue
            where = node.path if isinstance(data.get("tree"), list) else node.path + (key,)
            scalar = isinstance(value, (int, float))
            if (bounds is not None and scalar and bounds[0] < bounds[1]
                    and not bounds[0] <= value <= bounds[1]):
                errors.append(case_error(
                    f"{key} {value} of {state!r} is outside value_bounds {bounds}; Star1 "
                    "pruning would be wrong: widen the bounds or fix the value", where, file))
            if max_sum is not None and isinstance(value, list) and (
                    any(v < 0 for v in value) or math.fsum(value) > max_sum + 1e-9):
                errors.append(case_error(
                    f"{key} {value} of {state!r} breaks max_sum {max_sum}: shallow pruning "
                    "needs payoffs >= 0 that sum to at most max_sum", where, file))
    return errors

