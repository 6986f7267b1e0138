"""Tournaments of push/fold players: Berger round robins and all-against-one (SPEC 5.2).

A player's performance is big blinds won / hands played, over all its matches.

* **exact** (default): a match is worth its exact seat-averaged expected value (no variance); every
  match has the same weight, so the round-robin performance is the mean of a player's match
  values, all computed in one matrix product (:mod:`pokerlab.evolve.exact`). The Berger rounds
  change nothing there: every pair is computed at once.
* **simulated**: each match is ``matches`` seeded simulations of ``hands`` hands (seats
  alternating; optionally until one player is broke) by the numba kernel of
  :mod:`pokerlab.evaluate.matches`. The round robin is scheduled by Berger tables; each round's
  matches (no player twice) run in parallel on a process pool, round after round. Match seeds
  are child seeds (:func:`pokerlab._rng.child_seeds`) of the run's generator, derived in schedule
  order before a round starts, so the result does not depend on the number of workers, nor on
  where they run: any :class:`concurrent.futures.Executor` serves, the process pool by default
  or Ray tasks (:class:`pokerlab.distributed.ray_executor.RayExecutor`, ``--ray``).

Variable-stack players in simulated matches: without ``until_broke`` the hands of a match are
split evenly over the stacks of the game (stratified; the same expectation as drawing the stack
uniformly each hand, with less variance); with ``until_broke`` both start at the largest stack and
play at the effective stack (the table row of the largest grid stack not above it) until one is
broke.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from pokerlab._rng import child_seeds
from pokerlab.errors import PokerlabError

__all__ = [
    "berger_rounds",
    "SimulationSettings",
    "simulate_match",
    "match_blocks",
    "round_robin_simulated",
    "all_against_one_simulated",
    "make_executor",
]


def berger_rounds(n: int) -> list[list[tuple[int, int]]]:
    """Round-robin schedule of ``n`` players by Berger tables (the circle method).

    Returns ``n - 1`` rounds for even ``n`` and ``n`` rounds for odd ``n`` (a dummy player is
    added; whoever meets it sits out). Every pair ``(a, b)``, listed with the home player first,
    meets exactly once, and no player appears twice in a round. Player ``n - 1`` (or the dummy)
    stays fixed and alternates home and away; the others rotate.
    """
    if n < 2:
        return []
    m = n if n % 2 == 0 else n + 1  # with a dummy player m - 1 when n is odd
    fixed = m - 1
    rounds: list[list[tuple[int, int]]] = []
    for r in range(m - 1):
        pairs: list[tuple[int, int]] = []
        # The fixed player meets r; the others pair up symmetrically around r.
        a, b = (r, fixed) if r % 2 == 0 else (fixed, r)
        pairs.append((a, b))
        for k in range(1, m // 2):
            x = (r + k) % (m - 1)
            y = (r - k) % (m - 1)
            pairs.append((x, y) if k % 2 == 1 else (y, x))
        rounds.append([(x, y) for x, y in pairs if x < n and y < n])
    return rounds


@dataclass(frozen=True)
class SimulationSettings:
    """Simulated matches: ``matches`` matches of ``hands`` hands per pairing (seeded)."""

    hands: int = 1000
    matches: int = 2
    until_broke: bool = False
    ante_bb: float = 0.0

    def __post_init__(self) -> None:
        if self.hands < 1:
            raise PokerlabError(f"hands per match must be >= 1, got {self.hands}")
        if self.matches < 1:
            raise PokerlabError(f"matches per pairing must be >= 1, got {self.matches}")


def match_blocks(
    a: tuple[np.ndarray, np.ndarray],
    b: tuple[np.ndarray, np.ndarray],
    stacks: np.ndarray,
    settings: SimulationSettings,
    seed: int,
) -> list[list[Any]]:
    """The simulated matches of one pairing, each as a list of blocks (``MatchResult``).

    ``a`` and ``b`` are (shove, call) per-combo arrays of shape (len(stacks), 1326). A match is
    one block at a fixed stack (or until broke); over several stacks without ``until_broke`` it
    is one block per stack, the hands split evenly (stratified).
    """
    from pokerlab.evaluate.matches import PushFoldPlayer, play_match

    stacks = np.asarray(stacks, dtype=np.float64)
    pa = PushFoldPlayer(a[0], a[1], stacks)
    pb = PushFoldPlayer(b[0], b[1], stacks)
    seeds = child_seeds(seed, settings.matches)
    out: list[list[Any]] = []
    for s in seeds:
        if len(stacks) == 1 or settings.until_broke:
            result = play_match(
                pa,
                pb,
                settings.hands,
                float(stacks.max()),
                ante_bb=settings.ante_bb,
                until_broke=settings.until_broke,
                seed=s,
            )
            out.append([result])
            continue
        per = np.full(len(stacks), settings.hands // len(stacks))
        per[: settings.hands % len(stacks)] += 1
        block_seeds = child_seeds(s, len(stacks))
        out.append(
            [
                play_match(
                    pa,
                    pb,
                    int(per[k]),
                    float(stack),
                    ante_bb=settings.ante_bb,
                    seed=block_seeds[k],
                )
                for k, stack in enumerate(stacks)
                if per[k] > 0
            ]
        )
    return out


def simulate_match(
    a: tuple[np.ndarray, np.ndarray],
    b: tuple[np.ndarray, np.ndarray],
    stacks: np.ndarray,
    settings: SimulationSettings,
    seed: int,
) -> tuple[float, int]:
    """Simulate the matches of one pairing; return (A's big blinds won, hands played)."""
    blocks = [r for match in match_blocks(a, b, stacks, settings, seed) for r in match]
    return float(sum(r.total_bb for r in blocks)), int(sum(r.hands for r in blocks))


def _play_chunk(
    jobs: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]],
    stacks: np.ndarray,
    settings: SimulationSettings,
) -> list[tuple[float, int]]:
    return [
        simulate_match((sa, ca), (sb, cb), stacks, settings, seed) for sa, ca, sb, cb, seed in jobs
    ]


def make_executor(workers: int) -> Executor | None:
    """A process pool of ``workers`` processes (0 = one per core), or None for in-process work.

    Ray is not required: matches are plain function calls, and a process pool is the default
    engine of one machine (:class:`~pokerlab.distributed.ray_executor.RayExecutor` runs them on
    Ray instead).
    """
    if workers < 0:
        raise PokerlabError(f"workers must be >= 0, got {workers}")
    count = workers or (os.cpu_count() or 1)
    if count <= 1:
        return None
    return ProcessPoolExecutor(max_workers=count)


def _run_jobs(
    jobs: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]],
    stacks: np.ndarray,
    settings: SimulationSettings,
    executor: Executor | None,
    workers: int,
) -> list[tuple[float, int]]:
    if executor is None or len(jobs) <= 1:
        return _play_chunk(jobs, stacks, settings)
    chunks = [jobs[k::workers] for k in range(workers)]
    futures = [executor.submit(_play_chunk, chunk, stacks, settings) for chunk in chunks if chunk]
    parts = [f.result() for f in futures]
    out: list[tuple[float, int]] = [(0.0, 0)] * len(jobs)
    for k, part in enumerate(parts):
        out[k::workers] = part
    return out


def round_robin_simulated(
    shove: np.ndarray,
    call: np.ndarray,
    stacks: np.ndarray,
    settings: SimulationSettings,
    rng: np.random.Generator,
    executor: Executor | None = None,
    workers: int = 1,
    on_round: Callable[[int, int], None] | None = None,
) -> np.ndarray:
    """(n,) performance (bb won / hands played) of each player in a simulated round robin.

    ``shove`` and ``call`` are (n, stacks, 1326). Rounds follow :func:`berger_rounds`; the
    matches of one round run together on ``executor`` (in-process when None).
    """
    n = shove.shape[0]
    won = np.zeros(n)
    played = np.zeros(n)
    for r, pairs in enumerate(berger_rounds(n)):
        seeds = child_seeds(rng, len(pairs))
        jobs = [
            (shove[a], call[a], shove[b], call[b], s)
            for (a, b), s in zip(pairs, seeds, strict=True)
        ]
        results = _run_jobs(jobs, stacks, settings, executor, workers)
        for (a, b), (bb, hands) in zip(pairs, results, strict=True):
            won[a] += bb
            won[b] -= bb
            played[a] += hands
            played[b] += hands
        if on_round is not None:
            on_round(r, len(pairs))
    return np.divide(won, played, out=np.zeros(n), where=played > 0)


def all_against_one_simulated(
    shove: np.ndarray,
    call: np.ndarray,
    opponent: tuple[np.ndarray, np.ndarray],
    stacks: np.ndarray,
    settings: SimulationSettings,
    rng: np.random.Generator,
    executor: Executor | None = None,
    workers: int = 1,
) -> np.ndarray:
    """(n,) performance of each player against one fixed opponent (all matches in one round)."""
    n = shove.shape[0]
    seeds = child_seeds(rng, n)
    jobs = [(shove[a], call[a], opponent[0], opponent[1], seeds[a]) for a in range(n)]
    results = _run_jobs(jobs, stacks, settings, executor, workers)
    won = np.array([r[0] for r in results])
    played = np.array([r[1] for r in results], dtype=np.float64)
    return np.divide(won, played, out=np.zeros(n), where=played > 0)


def pairs_of(rounds: Sequence[Sequence[tuple[int, int]]]) -> list[tuple[int, int]]:
    """All pairs of a schedule, each as (smaller, larger)."""
    return [(min(a, b), max(a, b)) for r in rounds for a, b in r]
