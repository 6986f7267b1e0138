"""The project's one seeding convention, and its generator for numba kernels (xoshiro256**).

Every seeded function in pokerlab (sampling solvers, Monte Carlo equity, random hands, simulated
matches, tournaments, genetic search) takes ``seed`` as an integer >= 0 or a
``numpy.random.Generator`` and goes through this module:

1. :func:`seed_int` turns the user's seed into one integer: an integer is itself; a Generator
   draws one integer in [0, 2**63) (so ``f(seed=rng)`` equals ``f(seed=<that integer>)``);
   ``None``, where a function allows it, draws fresh operating-system entropy (not reproducible).
   That integer is what runs record (checkpoints, results, logs).
2. :func:`seed_sequence` is ``numpy.random.SeedSequence(seed_int(seed))``: the one source of
   entropy from which everything below is derived.
3. Kernels: :func:`seed_state` is the ``uint64[4]`` xoshiro256** state, the sequence's first four
   64-bit words (``SeedSequence.generate_state``). Sampling solvers, Monte Carlo equity and
   simulated matches keep this state in an array, so it is saved in checkpoints and a resumed
   run draws exactly the numbers an uninterrupted run would.
4. Python-side randomness (genetic operators, tournaments): :func:`generator` is
   ``numpy.random.Generator(PCG64(seed_sequence(seed)))``.
5. Child seeds (one per match, per block, per job): :func:`child_seeds` spawns children of the
   sequence (``SeedSequence.spawn``, NumPy's rule for independent streams) and returns each as an
   integer, which then seeds its own work by the same rules.

The generator is xoshiro256** 1.0 (Blackman & Vigna 2018, "Scrambled linear pseudorandom number
generators"); NumPy's ``SeedSequence`` (O'Neill's seed_seq hashing, as in NumPy's
``default_rng``) fills its state, which is never all zero for a hashed seed.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from pokerlab.errors import PokerlabError

__all__ = [
    "SeedLike",
    "seed_int",
    "seed_sequence",
    "seed_state",
    "seed_states",
    "generator",
    "child_seeds",
    "kernel_seed",
    "next_u64",
    "uniform",
    "below",
    "MASK64",
]

#: What seeded functions accept as ``seed``.
SeedLike = int | np.integer | np.random.Generator | None

MASK64 = (1 << 64) - 1

_U7 = np.uint64(7)
_U9 = np.uint64(9)
_U5 = np.uint64(5)
_U11 = np.uint64(11)
_U17 = np.uint64(17)
_U45 = np.uint64(45)
_U57 = np.uint64(57)
_U19 = np.uint64(19)
_INV53 = 1.0 / 9007199254740992.0  # 2**-53


def seed_int(seed: SeedLike) -> int:
    """The user's seed as one integer >= 0 (rule 1 of the module docstring).

    An ``int`` (or NumPy integer) >= 0 is returned unchanged; a ``numpy.random.Generator`` draws
    one integer in [0, 2**63); ``None`` draws fresh entropy. Anything else (a negative number, a
    float, a string, a bool) raises :class:`~pokerlab.errors.PokerlabError` naming it.
    """
    if isinstance(seed, np.random.Generator):
        return int(seed.integers(0, 2**63, dtype=np.int64))
    if seed is None:
        return int(np.random.SeedSequence().generate_state(1, dtype=np.uint64)[0])
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
        raise PokerlabError(f"seed must be an integer >= 0 or a numpy Generator, got {seed!r}")
    if seed < 0:
        raise PokerlabError(f"seed must be >= 0, got {int(seed)}")
    return int(seed)


def seed_sequence(seed: SeedLike) -> np.random.SeedSequence:
    """``numpy.random.SeedSequence(seed_int(seed))``: the entropy every stream is derived from."""
    return np.random.SeedSequence(seed_int(seed))


def seed_state(seed: SeedLike) -> np.ndarray:
    """The ``uint64[4]`` xoshiro256** state for ``seed``: the first four 64-bit words of
    :func:`seed_sequence` (an all-zero state, the one forbidden state, is replaced)."""
    out = seed_sequence(seed).generate_state(4, dtype=np.uint64)
    if not out.any():  # probability 2**-256; kept so the kernels' invariant never depends on luck
        out[0] = 1
    return out


def seed_states(seed: SeedLike, n: int) -> np.ndarray:
    """``n`` xoshiro256** states (``(n, 4)`` uint64), one per independent piece of work (a
    deal, a game): row ``k`` is words ``4k..4k+3`` of :func:`seed_sequence`, so it does not
    depend on ``n``, and row 0 is :func:`seed_state`. All-zero rows are replaced as there."""
    if n < 0:
        raise PokerlabError(f"number of generator states must be >= 0, got {n}")
    out = seed_sequence(seed).generate_state(4 * int(n), dtype=np.uint64).reshape(int(n), 4)
    out[~out.any(axis=1), 0] = 1
    return out


def generator(seed: SeedLike) -> np.random.Generator:
    """A ``numpy.random.Generator`` (PCG64) seeded by :func:`seed_sequence`."""
    return np.random.Generator(np.random.PCG64(seed_sequence(seed)))


def keyed_generator(seed: SeedLike, *keys: int) -> np.random.Generator:
    """A ``numpy.random.Generator`` (PCG64) for one piece of work named by integer ``keys``
    (a hand number): seeded by the entropy ``[seed_int(seed), *keys]``, so its draws depend on
    the seed and the keys only, not on the work done before it."""
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed_int(seed), *keys])))


def child_seeds(seed: SeedLike, n: int) -> list[int]:
    """``n`` independent child seeds of ``seed`` (``SeedSequence.spawn``), each an integer in
    [0, 2**64) that seeds its own work by the same rules. Child k does not depend on ``n``."""
    if n < 0:
        raise PokerlabError(f"number of child seeds must be >= 0, got {n}")
    children = seed_sequence(seed).spawn(n)
    return [int(c.generate_state(1, dtype=np.uint64)[0]) for c in children]


def kernel_seed(seed: SeedLike) -> int:
    """The integer a seeded object records for ``seed`` (:func:`seed_int`, ``None`` refused)."""
    if seed is None:
        raise PokerlabError("seed must be an integer >= 0 or a numpy Generator, got None")
    return seed_int(seed)


@njit(cache=True, inline="always")
def next_u64(s: np.ndarray) -> np.uint64:
    """Next 64-bit output of xoshiro256** (advances ``s`` in place)."""
    s0 = s[0]
    s1 = s[1]
    s2 = s[2]
    s3 = s[3]
    x = s1 * _U5
    result = ((x << _U7) | (x >> _U57)) * _U9
    t = s1 << _U17
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = (s3 << _U45) | (s3 >> _U19)
    s[0] = s0
    s[1] = s1
    s[2] = s2
    s[3] = s3
    return result


@njit(cache=True, inline="always")
def uniform(s: np.ndarray) -> float:
    """A double uniform on [0, 1) with 53 random bits."""
    return float(next_u64(s) >> _U11) * _INV53


@njit(cache=True, inline="always")
def below(s: np.ndarray, n: int) -> int:
    """A uniform integer in [0, n) (multiply-shift on the top 32 bits; bias < 2**-32)."""
    return int(((next_u64(s) >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))
