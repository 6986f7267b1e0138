"""Aggregate reports (issue 26): seconds for a report on 1 and 2 threads, and the Ray speed-up
from 1 to 2 workers with the tasks' overhead per flop.

Table 1. The 25-flop subset with the built-in template ``small`` (the README's example:
``pokerlab report small --flops 25 --target 1%``) solved in this process
(:func:`pokerlab.reports.run.run_local`) on 1 and on 2 threads (2 threads: two flops at once,
each on one solver thread, :func:`pokerlab.reports.run.flops_at_once`): wall seconds of the
whole report, seconds per flop, and the rows' identity across thread counts. With ``--big``
(instead of the tables below), the 184-flop subset with ``flop-one-size`` (spot F's tree with
one bet size a street; about a minute a flop on one thread at 1%: about 3 hours on 1 thread; on
2 threads two flops at a time). A run that long outlives a working session, so ``--big`` keeps
one line per finished flop in ``results/local/report-big-<T>t.jsonl`` (written atomically) and
resumes from it: the figure is the sum over flops of the wall seconds since the previous row
(the report's elapsed time, whatever number of flops run at once; a flop cut short costs its
time again) (and CPU seconds of this process, which a busy machine inflates less), printed with
the range of load averages seen; a flop cut short is solved again. ``--restart`` clears the file
first.

Table 2. The same report as Ray tasks (:func:`pokerlab.reports.ray_run.run_on_ray`) on a local
Ray with 1 and with 2 workers (one CPU each, the solver on one thread): wall seconds from the
first submission to the last row (Ray's start excluded, each worker's first import of pokerlab
and numba's cache included), the speed-up, and per task the overhead: seconds between
submission and result that the task did not spend in ``solve_flop`` (median and largest). The
machine's parallel capacity (:func:`_common.parallel_capacity`, 2.0 at best) is printed beside
the speed-up: on a shared 2-core machine the speed-up cannot exceed it.

What to expect and why: flops are independent, so Ray's speed-up from 1 to 2 workers should
approach the machine's capacity when a flop's solve (seconds) dwarfs the per-task overhead
(milliseconds once a worker is warm). The solver's own threads split the subtrees below the
first dealt card, which on a small tree gains less than whole flops in parallel.

Usage: ``python benchmarks/report.py [--quick] [--flops 25] [--target 1] [--no-ray] [--save]``,
``python benchmarks/report.py --big [--big-threads 1,2] [--restart] [--save]``; ``--quick``
uses a tiny template (all-in or check, five hand classes a side) on the first 6 flops of the
25-flop subset: about a minute in all.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import (  # noqa: E402
    add_save_option,
    load_average,
    parallel_capacity,
    print_table,
    results_dir,
    write_results,
)
from pokerlab.io.atomic import atomic_write_text  # noqa: E402
from pokerlab.reports import ray_run  # noqa: E402
from pokerlab.reports.flops import flop_set  # noqa: E402
from pokerlab.reports.run import ReportSettings, load_template, run_local, solve_flop  # noqa: E402

TINY = {
    "pot": 100,
    "stack": 50,
    "oop_range": "AA,KK,QQ,AKs,AQs",
    "ip_range": "JJ,TT,99,AKo,KQs",
    "flop": {"bet": "a", "raise": "a"},
    "turn": {"bet": "a"},
    "river": {"bet": "a"},
}
TIMING = ("seconds", "wall_seconds")


def _numbers(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(
        ({k: v for k, v in r.items() if k not in TIMING} for r in rows), key=lambda r: r["board"]
    )


def local_report(template: dict, flops: list, settings: ReportSettings, threads: int) -> dict:
    rows: list[dict[str, Any]] = []
    start = time.perf_counter()
    run_local(template, flops, settings, rows.append, threads=threads)
    wall = time.perf_counter() - start
    return {"threads": threads, "seconds": wall, "per_flop": wall / len(flops), "rows": rows}


def ray_report(template: dict, flops: list, settings: ReportSettings, workers: int) -> dict:
    import ray

    ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
    try:
        rows: list[dict[str, Any]] = []
        start = time.perf_counter()
        ray_run.run_on_ray(template, flops, settings, rows.append, workers=workers)
        wall = time.perf_counter() - start
    finally:
        ray.shutdown()
    overhead = ray_run.LAST_RUN["overhead_seconds"]
    return {
        "workers": workers,
        "seconds": wall,
        "overhead_median": statistics.median(overhead),
        "overhead_max": max(overhead),
        "rows": rows,
    }


def big_report(threads: int, settings: ReportSettings, restart: bool) -> dict[str, Any]:
    """The 184-flop report of ``flop-one-size`` on ``threads`` threads, resumed from (and
    kept in) ``results/local/report-big-<threads>t.jsonl``: one JSON line per finished flop with
    its wall and CPU seconds and the load average at its end. Returns the sums."""
    big = load_template("flop-one-size")
    flops = flop_set("184")[0]
    path = results_dir(False) / f"report-big-{threads}t.jsonl"
    done: list[dict[str, Any]] = []
    if path.exists() and not restart:
        done = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        if any(d.get("target_pct") != settings.target_pct for d in done):
            raise SystemExit(f"{path} holds another target; run with --restart")
    seen = {d["board"] for d in done}
    todo = [f for f in flops if f.text not in seen]
    print(f"{threads} thread(s): {len(done)} of {len(flops)} flops done before, {len(todo)} to go")
    solve_flop(big, todo[0] if todo else flops[0], settings, threads)  # kernels compiled first
    clock = [time.perf_counter(), time.process_time()]

    def keep(row: dict[str, Any]) -> None:
        wall, cpu = time.perf_counter() - clock[0], time.process_time() - clock[1]
        done.append(
            {
                "board": row["board"],
                "weight": row["weight"],
                "target_pct": settings.target_pct,
                "iterations": row["iterations"],
                "exploitability_pct": row["exploitability_pct"],
                "wall_seconds": wall,
                "cpu_seconds": cpu,
                "load_average": load_average(),
            }
        )
        atomic_write_text(path, "".join(json.dumps(d) + "\n" for d in done))
        print(f"  {len(done):3d}/{len(flops)} {row['board']}: {wall:.1f} s", flush=True)
        clock[:] = [time.perf_counter(), time.process_time()]

    run_local(big, todo, settings, keep, threads=threads)
    loads = [d["load_average"][0] for d in done if d.get("load_average")]
    wall = sum(d["wall_seconds"] for d in done)
    return {
        "threads": threads,
        "flops": len(done),
        "seconds": wall,
        "cpu_seconds": sum(d["cpu_seconds"] for d in done),
        "per_flop": wall / len(done),
        "iterations_mean": statistics.mean(d["iterations"] for d in done),
        "load_1min_range": [min(loads), max(loads)] if loads else None,
    }


def main_big(args: argparse.Namespace) -> None:
    settings = ReportSettings(target_pct=args.target)
    threads = [int(t) for t in args.big_threads.split(",")]
    big = [big_report(t, settings, args.restart) for t in threads]
    print_table(
        f"report of 184 flops, template flop-one-size, target {args.target:g}%",
        ["threads", "flops", "wall s", "CPU s", "s/flop", "iterations", "load (1 min)"],
        [
            [r["threads"], r["flops"], r["seconds"], r["cpu_seconds"], r["per_flop"]]
            + [r["iterations_mean"], str(r["load_1min_range"])]
            for r in big
        ],
    )
    path = write_results("report-big", {"target_pct": args.target, "big": big}, save=args.save)
    print(f"wrote {path}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="tiny template, 6 flops")
    parser.add_argument("--flops", default="25", help="flop set (default 25)")
    parser.add_argument("--target", type=float, default=1.0, help="target, %% of the pot")
    parser.add_argument("--no-ray", action="store_true", help="skip table 2")
    parser.add_argument("--big", action="store_true", help="184 flops of flop-one-size only")
    parser.add_argument("--big-threads", default="1,2", help="solver threads of --big")
    parser.add_argument("--restart", action="store_true", help="--big: forget finished flops")
    add_save_option(parser)
    args = parser.parse_args()
    if args.big:
        main_big(args)
        return

    template = TINY if args.quick else load_template("small")
    flops = flop_set(args.flops)[0][: 6 if args.quick else None]
    settings = ReportSettings(target_pct=args.target)
    solve_flop(template, flops[0], settings)  # compile (or load) the kernels first
    payload: dict[str, Any] = {
        "template": "tiny" if args.quick else "small",
        "flops": len(flops),
        "target_pct": args.target,
        "threads": [],
        "ray": [],
    }
    for threads in (1, 2):
        result = local_report(template, flops, settings, threads)
        result["load_average"] = load_average()
        payload["threads"].append(result)
    same = _numbers(payload["threads"][0]["rows"]) == _numbers(payload["threads"][1]["rows"])
    payload["threads_identical_rows"] = same
    print_table(
        f"report of {len(flops)} flops, template {payload['template']}, target {args.target:g}%",
        ["threads", "seconds", "s/flop", "load"],
        [
            [r["threads"], r["seconds"], r["per_flop"], str(r["load_average"])]
            for r in payload["threads"]
        ],
    )
    print(f"rows identical on 1 and 2 threads: {same}")
    if not args.no_ray:
        for workers in (1, 2):
            result = ray_report(template, flops, settings, workers)
            result["load_average"] = load_average()
            payload["ray"].append(result)
        capacity = parallel_capacity(2)
        one, two = payload["ray"]
        payload["ray_speedup"] = one["seconds"] / two["seconds"]
        payload["parallel_capacity"] = capacity
        payload["ray_identical_rows"] = _numbers(two["rows"]) == _numbers(
            payload["threads"][0]["rows"]
        )
        print_table(
            "Ray tasks, one per flop",
            ["workers", "seconds", "overhead median s", "overhead max s", "load"],
            [
                [r["workers"], r["seconds"], r["overhead_median"], r["overhead_max"]]
                + [str(r["load_average"])]
                for r in payload["ray"]
            ],
        )
        print(
            f"Ray speed-up 1 -> 2 workers: {payload['ray_speedup']:.2f}x (machine's parallel "
            f"capacity now: {capacity:.2f}x); rows identical to one process: "
            f"{payload['ray_identical_rows']}"
        )
    for part in ("threads", "ray"):
        for r in payload[part]:
            r.pop("rows", None)
    path = write_results("report", payload, save=args.save)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
