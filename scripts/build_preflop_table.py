"""Build the exact preflop all-in equity table (pokerlab/data/preflop_equity.npz).

Every one of the 812,175 matchups of two disjoint starting combos is reduced to a canonical form
under the 24 suit permutations (47,008 remain); for each, all 1,712,304 five-card boards are
enumerated with incremental 7-card evaluation (``count_showdowns`` in
``pokerlab.cards._eval_kernels``), and the exact numbers of boards won and tied are stored.
The work is split over all cores with ``multiprocessing``. The file and a SHA-256 sidecar are
written atomically; the build time is recorded in the file's metadata (benchmark B3c reads it).

Usage::

    python scripts/build_preflop_table.py [--processes N] [--output PATH] [--limit M]

``--limit M`` computes only the first M canonical matchups (a smoke test; the file is then
incomplete and is written to ``--output`` only).
"""

from __future__ import annotations

import argparse
import io
import json
import multiprocessing as mp
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from pokerlab.cards import _eval_kernels as K
from pokerlab.cards.deck import COMBO_CARDS
from pokerlab.cards.evaluator import eval_tables
from pokerlab.cards.preflop import (
    BOARDS_PER_MATCHUP,
    FORMAT_VERSION,
    canonical_matchups,
    data_path,
    file_sha256,
)
from pokerlab.io.files import atomic_write_bytes

CHUNK = 256  # matchups per task: about 2 s of work


def _work(pairs: np.ndarray) -> np.ndarray:
    """(wins, ties) of each matchup (rows of combo ids) over all boards."""
    t = eval_tables()
    cards = np.empty((len(pairs), 4), np.int64)
    cards[:, :2] = COMBO_CARDS[pairs[:, 0]]
    cards[:, 2:] = COMBO_CARDS[pairs[:, 1]]
    out = np.zeros((len(pairs), 2), np.int64)
    K.preflop_matchups(cards, t.card_key, t.card_bit, t.flush, t.disp, t.values, out)
    return out


def _task(args: tuple[int, np.ndarray]) -> tuple[int, np.ndarray]:
    start, pairs = args
    return start, _work(pairs)


def _git_revision() -> str:
    try:
        return subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def build(processes: int, output: Path, limit: int | None = None) -> dict:
    """Compute the table and write it to ``output`` (plus ``.sha256``); return the metadata."""
    pairs = canonical_matchups()
    if limit is not None:
        pairs = pairs[:limit]
    # compile (or load cached) kernels once in the parent, so workers find the cache warm
    t_compile = time.perf_counter()
    _work(pairs[:1])
    compile_s = time.perf_counter() - t_compile

    t0 = time.perf_counter()
    wins = np.zeros(len(pairs), np.int64)
    ties = np.zeros(len(pairs), np.int64)
    tasks = [(s, pairs[s : s + CHUNK]) for s in range(0, len(pairs), CHUNK)]
    done = 0
    with mp.get_context("fork").Pool(processes) as pool:
        for start, res in pool.imap_unordered(_task, tasks):
            wins[start : start + len(res)] = res[:, 0]
            ties[start : start + len(res)] = res[:, 1]
            done += len(res)
            if (done // CHUNK) % 20 == 0 or done == len(pairs):
                el = time.perf_counter() - t0
                eta = el / done * (len(pairs) - done)
                print(
                    f"{done}/{len(pairs)} matchups, {el:.0f} s elapsed, about {eta:.0f} s left",
                    file=sys.stderr,
                    flush=True,
                )
    seconds = time.perf_counter() - t0

    meta = {
        "format_version": FORMAT_VERSION,
        "boards": BOARDS_PER_MATCHUP,
        "matchups": int(len(pairs)),
        "complete": limit is None,
        "build_seconds": round(seconds, 2),
        "compile_seconds": round(compile_s, 2),
        "processes": processes,
        "cpu_count": os.cpu_count(),
        "machine": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "git_revision": _git_revision(),
        "built_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    output.parent.mkdir(parents=True, exist_ok=True)
    buf = io.BytesIO()
    np.savez_compressed(
        buf,
        pairs=pairs.astype(np.int16),
        wins=wins.astype(np.int32),
        ties=ties.astype(np.int32),
        meta=np.array(json.dumps(meta)),
    )
    atomic_write_bytes(output, buf.getvalue())
    digest = file_sha256(output)
    sha_path = output.with_suffix(".sha256")
    atomic_write_bytes(sha_path, f"{digest}  {output.name}\n".encode())
    return meta


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--processes", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--output", type=Path, default=data_path())
    parser.add_argument("--limit", type=int, default=None)
    args = parser.parse_args()
    meta = build(args.processes, args.output, args.limit)
    print(json.dumps(meta, indent=2))


if __name__ == "__main__":
    main()
