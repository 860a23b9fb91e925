"""Write the table of telling trees shipped with the mistakes (``reference/telling_trees.json``).

    python bench/telling_trees.py write ["ALGORITHM RULE NAME NAME NAME" ...]
    python bench/telling_trees.py add "ALGORITHM RULE NAME NAME NAME" ...
    python bench/telling_trees.py check
    python bench/telling_trees.py time


``write`` searches (:func:`grader.scoring.telling.telling_tree`, :data:`TRIES` trees) every pair
of mistakes of every algorithm under each rule, the sets of three or more already in the table,
and the sets given (a key of the table: the algorithm, the rule and the names), and writes the
table anew (about ten CPU minutes, printed as it goes). Run it after adding or changing a
mistake in ``reference/``: tests/test_telling.py fails on a pair missing or a tree that no longer
tells its set apart. ``add`` searches the sets given only, and writes them into the table
beside the others (a larger set a course's submissions are named with: tests/test_submissions.py
and tests/test_feedback.py list those of the known-wrong ones). ``check`` searches every entry again and prints those the search now
answers differently (after a hypothesis upgrade, say: the table stays right, only what a search
would pick has moved). ``time`` prints the CPU of a grade's lookup and of the search it
replaces, for the sets the suite's known-wrong submissions are named with (the first search
pays hypothesis' import, as a grade's did).
"""

from __future__ import annotations

import itertools
import json
import sys
import time
from importlib import metadata

from grader.scoring.telling import TRIES, key_parts, table, table_key, table_path, telling_tree


def wanted_sets(extra: list[str]) -> list[tuple[str, str, tuple[str, ...]]]:
    """(algorithm, rule, names): every pair, then the larger sets kept or given."""
    import grader.algorithms as algorithm_specs
    from reference.mistakes import RULES, mistakes_for

    found: dict[str, tuple[str, str, tuple[str, ...]]] = {}
    for algorithm in algorithm_specs.registry():
        for rule in RULES:
            names = [m.name for m in mistakes_for(algorithm, rule)]
            for pair in itertools.combinations(names, 2):
                found[table_key(algorithm, pair, rule)] = (algorithm, rule, pair)
    for key in [*table(), *extra]:
        algorithm, rule, names = key_parts(key)
        found.setdefault(table_key(algorithm, names, rule), (algorithm, rule, tuple(names)))
    return list(found.values())


def write(extra: list[str], *, only_these: bool = False) -> None:
    trees: dict[str, object] = {}
    failed: dict[str, str] = {}
    started = time.process_time()
    sets = wanted_sets(extra)
    if only_these:  # the table as it is, and the sets given searched
        document = json.loads(table_path().read_text())
        trees, failed = document["trees"], document["failed"]
        given = {table_key(algorithm, names, rule)
                 for algorithm, rule, names in map(key_parts, extra)}
        sets = [entry for entry in sets if table_key(entry[0], entry[2], entry[1]) in given]
    for index, (algorithm, rule, names) in enumerate(sets, 1):
        key = table_key(algorithm, names, rule)
        trees.pop(key, None)
        failed.pop(key, None)
        try:
            found = telling_tree(algorithm, list(names), rule, TRIES)
        except Exception as error:  # noqa: BLE001 - kept, and searched (and failing) at a grade
            failed[key] = f"{type(error).__name__}: {str(error).splitlines()[0]}"
            print(f"{index}/{len(sets)} {key}: the search fails: {failed[key]}", flush=True)
            continue
        trees[key] = None if found is None else found[0]
        print(f"{index}/{len(sets)} {key}: {'none' if found is None else 'a tree'} "
              f"({time.process_time() - started:.0f} CPU s so far)", flush=True)
    write_table(trees, failed)
    print(f"{table_path()}: {len(trees)} sets, {len(failed)} failed, "
          f"{time.process_time() - started:.0f} CPU s")


def write_table(trees: dict[str, object], failed: dict[str, str]) -> None:
    """The table as JSON, one entry a line: a change to it reads as the sets it changed."""
    made_with = {"hypothesis": metadata.version("hypothesis"), "tries": TRIES}
    about = ("grader/scoring/telling.py: the smallest random tree that tells each set of known "
             "mistakes apart (null: none found; failed: the sets whose search raises, searched "
             "at a grade as before); written by bench/telling_trees.py")

    def lines(entries: dict[str, object]) -> str:
        return ",\n".join(f"    {json.dumps(key)}: {json.dumps(value)}"
                          for key, value in sorted(entries.items()))

    text = (f'{{\n  "about": {json.dumps(about)},\n  "made_with": {json.dumps(made_with)},\n'
            f'  "trees": {{\n{lines(trees)}\n  }},\n  "failed": {{\n{lines(failed)}\n  }}\n}}\n')
    path = table_path()
    assert path is not None, "reference/ is needed to write the table"
    json.loads(text)  # well-formed before it replaces the table
    path.write_text(text)


def check() -> int:
    moved = 0
    for key, tree in table().items():
        algorithm, rule, names = key_parts(key)
        found = telling_tree(algorithm, names, rule, TRIES)
        if (None if found is None else found[0]) != tree:
            print(f"{key}: the search now finds {'none' if found is None else found[0]}")
            moved += 1
    print(f"{len(table())} sets searched again, {moved} answered differently")
    return 1 if moved else 0


TIMED = ("alpha_beta inclusive never_prunes no_window_passing",
         "alpha_beta inclusive forgets_alpha_update never_prunes no_window_passing",
         "alpha_beta inclusive never_prunes no_window_passing strict_pruning",
         "alpha_beta_tt inclusive bound_stored_as_exact keyed_on_path")


def timed() -> None:
    from grader.scoring.telling import known_telling_tree

    for key in TIMED:
        algorithm, rule, names = key_parts(key)
        started = time.process_time()
        looked_up = known_telling_tree(algorithm, names, rule)
        lookup = time.process_time() - started
        started = time.process_time()
        searched = telling_tree(algorithm, names, rule)
        search = time.process_time() - started
        print(f"{key}: table {lookup * 1000:.1f} CPU ms, search {search:.2f} CPU s, "
              f"{'the same' if looked_up == searched else 'DIFFERENT'}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["write"]:
        write(sys.argv[2:])
    elif sys.argv[1:2] == ["add"] and len(sys.argv) > 2:
        write(sys.argv[2:], only_these=True)
    elif sys.argv[1:] == ["time"]:
        timed()
    elif sys.argv[1:] == ["check"]:
        sys.exit(check())
    else:
        sys.exit(__doc__)
