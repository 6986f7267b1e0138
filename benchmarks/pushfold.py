"""B3 (a, b): heads-up push/fold Nash equilibria over all 1326 hands.

(a) 10 big blinds to exploitability <= 1e-6 bb/hand, equity table already loaded: seconds.
(b) the sweep 1 to 25 bb by 0.5 (49 stacks), each to 1e-6: seconds.
The exploitability is measured in the 1326-combo game by exact best responses, although the
solver iterates on the exact 169-class reduction (suit symmetry; see pokerlab.games.pushfold).

What to expect and why: the class game is two 169x169 matrix-vector products per CFR pass;
DCFR needs ~150-250 iterations for 1e-6, i.e. a few milliseconds of iterations plus the checks;
the combo-game best responses (two dense 1326x1326 products) add ~10 ms. So (a) ~0.03-0.05 s
(target < 0.5 s) and (b) ~2 s (target < 10 s). Sanity (BENCHMARKS.md): at 10 bb the small blind
shoves ~58% and the big blind calls ~37%. B3 (c), the preflop table build, is in cards.py.

Run: ``python benchmarks/pushfold.py``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import pokerlab
from _common import add_save_option, median_time, print_table, write_results
from pokerlab.games.pushfold import class_matrices
from pokerlab.solvers.pushfold import solve_pushfold, sweep_pushfold


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    add_save_option(parser)
    args = parser.parse_args()

    compile_seconds = pokerlab.warmup()
    start = time.perf_counter()
    class_matrices()  # loads the exact preflop table (excluded from (a) and (b), as specified)
    table_seconds = time.perf_counter() - start
    solve_pushfold(10.0)  # compiles the kernels for these trees

    a_seconds, a = median_time(lambda: solve_pushfold(10.0), args.repeats)
    stacks = [float(s) for s in np.arange(1.0, 25.01, 0.5)]
    b_seconds, sweep = median_time(lambda: sweep_pushfold(stacks), max(1, args.repeats // 2))

    rows = [
        [
            "(a) 10 bb to 1e-6",
            a_seconds,
            a.iterations,
            a.exploitability_bb,
            a.sb_shove_fraction,
            a.bb_call_fraction,
            "< 0.5 s",
        ],
        [
            "(b) 49 stacks 1..25",
            b_seconds,
            sum(s.iterations for s in sweep),
            max(s.exploitability_bb for s in sweep),
            float("nan"),
            float("nan"),
            "< 10 s",
        ],
    ]
    print_table(
        "B3 push/fold (seconds, median; equity table loaded)",
        ["run", "seconds", "iterations", "exploitability bb", "SB shove", "BB call", "target"],
        rows,
    )
    print(f"\nequity table load {table_seconds:.2f} s, JIT {compile_seconds:.2f} s (excluded)")
    path = write_results(
        "pushfold",
        {
            "repeats": args.repeats,
            "table_load_seconds": table_seconds,
            "compile_seconds": compile_seconds,
            "a_10bb": {
                "seconds": a_seconds,
                **{k: v for k, v in a.to_dict().items() if k not in ("sb_shove", "bb_call")},
            },
            "b_sweep": {
                "seconds": b_seconds,
                "stacks": [
                    {
                        "stack_bb": s.game.stacks[0],
                        "sb_shove_fraction": s.sb_shove_fraction,
                        "bb_call_fraction": s.bb_call_fraction,
                        "exploitability_bb": s.exploitability_bb,
                        "iterations": s.iterations,
                    }
                    for s in sweep
                ],
            },
        },
        save=args.save,
    )
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
