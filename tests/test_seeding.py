"""The worker's deferred seeding of ``random`` (grader/sandbox/seeding.py): what code sees is
exactly what an eager ``random.seed`` before each call would have given."""

from __future__ import annotations

import random
import subprocess
import sys
import textwrap

from hypothesis import given, settings
from hypothesis import strategies as st

from grader.paths import REPO_ROOT
from grader.sandbox.seeding import DeferredRandom

# what a submission might do with the generator between two seeds
USES = {
    "random": lambda r: r.random(),
    "choice": lambda r: r.choice("abcdefg"),
    "randint": lambda r: r.randint(-5, 10**12),
    "randrange": lambda r: r.randrange(3, 1000, 7),
    "shuffle": lambda r: (lambda xs: (r.shuffle(xs), xs)[1])(list(range(9))),
    "sample": lambda r: r.sample(range(100), 5),
    "choices": lambda r: r.choices("xyz", weights=[1, 2, 3], k=4),
    "gauss": lambda r: r.gauss(0.0, 1.0),
    "uniform": lambda r: r.uniform(-1, 1),
    "getrandbits": lambda r: r.getrandbits(70),
    "randbytes": lambda r: r.randbytes(5),
    "getstate": lambda r: r.getstate(),
    "expovariate": lambda r: r.expovariate(2.0),
    "setstate": lambda r: r.setstate(random.Random(99).getstate()),
    "seed": lambda r: r.seed(12345),
    "bad seed": lambda r: _raised(lambda: r.seed([1, 2])),  # a TypeError: nothing seeded
    "bad state": lambda r: _raised(lambda: r.setstate(None)),
}


def _raised(call) -> str:
    try:
        call()
    except Exception as error:  # noqa: BLE001 - the type is what is compared
        return type(error).__name__
    return "nothing raised"

steps = st.lists(st.one_of(
    st.tuples(st.just("reseed"), st.one_of(st.integers(-3, 10**6), st.text(max_size=12))),
    st.tuples(st.just("use"), st.sampled_from(sorted(USES))),
), max_size=25)


@settings(max_examples=300, deadline=None)
@given(steps)
def test_deferred_seeding_gives_what_eager_seeding_gives(program: list[tuple[str, object]]) -> None:
    eager, deferred = random.Random(1), DeferredRandom(1)
    for kind, what in program:
        if kind == "reseed":
            eager.seed(what)
            deferred.defer_seed(what)
        else:
            assert USES[what](deferred) == USES[what](eager), (kind, what)
    assert deferred.getstate() == eager.getstate()


def test_a_seed_waiting_costs_nothing_until_used() -> None:
    deferred = DeferredRandom(0)
    before = deferred.getstate()
    deferred.defer_seed("7:x..|...")
    assert deferred.__dict__["_waiting"] == "7:x..|..."  # recorded, not applied
    assert random.Random.getstate(deferred) == before  # the state itself unchanged so far
    assert deferred.random() == random.Random("7:x..|...").random()


def test_the_module_functions_use_the_deferred_generator() -> None:
    """In a fresh interpreter (the module is changed for good): ``random.random`` and a
    ``from random import choice`` made after the install draw from the seed deferred last, and
    the state the install found is carried over."""
    script = textwrap.dedent("""
        import random
        random.seed(5)
        expected_carried = random.Random(5).random()
        from grader.sandbox.seeding import install_deferred_random
        deferred = install_deferred_random()
        assert random.random() == expected_carried
        from random import choice
        deferred.defer_seed("3:abc")
        assert [random.random(), choice(range(100))] == (
            lambda r: [r.random(), r.choice(range(100))])(random.Random("3:abc"))
        deferred.defer_seed(0)
        assert random.getstate() == random.Random(0).getstate()
        assert random._inst is deferred and random.seed.__self__ is deferred
        print("ok")
    """)
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO_ROOT, capture_output=True,
                          text=True, timeout=60)
    assert done.stdout.strip() == "ok", done.stderr
