"""The project's one seeded random number generator: xoshiro256** in numba, state in an array.

Sampling solvers, Monte Carlo equity and simulated matches keep their generator state in a
``uint64[4]`` array, so it is saved in checkpoints with the regrets and a resumed run draws
exactly the numbers an uninterrupted run would. The generator is xoshiro256** 1.0 (Blackman &
Vigna 2018, "Scrambled linear pseudorandom number generators"); the state is filled from the seed
by splitmix64, as its authors recommend.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["seed_state", "next_u64", "uniform", "below", "MASK64"]

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


def _splitmix64(x: int) -> tuple[int, int]:
    """One step of splitmix64 on Python ints: (new state, output)."""
    x = (x + 0x9E3779B97F4A7C15) & MASK64
    z = x
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return x, z ^ (z >> 31)


def seed_state(seed: int) -> np.ndarray:
    """The ``uint64[4]`` xoshiro256** state for ``seed`` (any integer; taken modulo 2**64)."""
    x = int(seed) & MASK64
    out = np.zeros(4, dtype=np.uint64)
    for k in range(4):
        x, z = _splitmix64(x)
        out[k] = z
    if not out.any():  # the all-zero state is the one forbidden state
        out[0] = 1
    return out


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
