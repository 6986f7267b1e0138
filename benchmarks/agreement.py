"""Differential check: pokerlab's postflop spots against postflop-solver, spot for spot.

Random spots are drawn from the spot grammar (``docs/postflop-spots.md``): boards of 3, 4 or 5
cards (random, paired, monotone, two-tone), random weighted ranges (classes, ``+`` runs, spans,
single combos, weights, items that overlap with other weights), bet, raise and donk lists mixing
``N%``, ``Nx``, ``Nc``, ``NcMr``, ``e``, ``Ke``, ``KeM%`` and ``a``, per-player sizes, rake,
thresholds, raise limits (mostly none, postflop-solver's default) and stacks from SPR 0.5 to 20.
Each spot is written in both formats (they differ only in ``raise_limit`` and ``rake_cap``, see
:func:`pokerlab_dict`), built and solved by pokerlab and by the reference ``pfs_spot``
(b-inary/postflop-solver, ``../shared/reference/postflop-solver/``), and compared:

* node counts (decision, chance, terminal; chance nodes after suit isomorphism) must be equal;
* OOP's root EV (chips, pot share included) must agree within ``--ev-tol`` percent of the pot
  (default 0.1) once both reach ``--target`` percent of the pot (default 0.02; two solutions
  eps-exploitable each can differ by up to about 4 eps in a player's EV).

Spots are drawn from ``random.Random(f"{street}:{seed}")``, so one seed always gives the same
spot; a disagreement is reported with its seed, and ``--show SEED --street river`` prints the
spot. Recorded disagreements (with the reference's node counts) are regression tests in
``tests/test_postflop_agreement.py`` (data in ``tests/data/postflop_agreement.json``).

The reference binary is found through ``$POKERLAB_PFS_SPOT``, else next to the checkout
(``../shared/reference/postflop-solver/pfs_spot``); without it the script says so and exits 2.

Usage: ``python benchmarks/agreement.py --river 200 --turn 50 [--flop 0] [--seed0 0]
[--counts-only] [--target 0.02] [--ev-tol 0.1] [--save]``. Prints one JSON object (the summary
and every spot's row) and a readable table; writes ``results/local/agreement.json``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import add_save_option, print_table, write_results  # noqa: E402
from pokerlab.errors import PokerlabError, RangeOverlapWarning  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
STREETS = ("flop", "turn", "river")
RANKS = "23456789TJQKA"
SUITS = "cdhs"
#: Where the reference is looked for when ``$POKERLAB_PFS_SPOT`` is not set.
REFERENCE_CANDIDATES = (
    ROOT.parent / "shared" / "reference" / "postflop-solver" / "pfs_spot",
    ROOT.parent.parent / "shared" / "reference" / "postflop-solver" / "pfs_spot",
)
#: Action-tree size bounds (pokerlab's decision nodes before dealing) per starting street, so
#: that a run of hundreds of spots stays within minutes on two shared cores.
MAX_ACTION_DECISIONS = {"river": 400, "turn": 30, "flop": 12}


def find_reference() -> Path | None:
    """The ``pfs_spot`` binary: ``$POKERLAB_PFS_SPOT``, else next to the checkout; None if
    neither is an executable file."""
    env = os.environ.get("POKERLAB_PFS_SPOT")
    candidates = [Path(env)] if env else list(REFERENCE_CANDIDATES)
    for path in candidates:
        if path.is_file() and os.access(path, os.X_OK):
            return path
    return None


# --- drawing spots -------------------------------------------------------------------------------


def _board(rng: random.Random, n: int) -> str:
    """``n`` distinct cards: random, paired, monotone or two-tone (on the first three cards)."""
    deck = [r + s for r in RANKS for s in SUITS]
    kind = rng.choice(("random", "paired", "monotone", "two-tone"))
    for _ in range(1000):
        if kind == "paired":
            rank = rng.choice(RANKS)
            first = [rank + s for s in rng.sample(SUITS, 2)]
            first.append(rng.choice([c for c in deck if c not in first]))
        elif kind == "monotone":
            suit = rng.choice(SUITS)
            first = [r + suit for r in rng.sample(RANKS, 3)]
        elif kind == "two-tone":
            s1, s2 = rng.sample(SUITS, 2)
            r = rng.sample(RANKS, 3)
            first = [r[0] + s1, r[1] + s1, r[2] + s2]
        else:
            first = rng.sample(deck, 3)
        if len(set(first)) < 3:
            continue
        rest = rng.sample([c for c in deck if c not in first], n - 3)
        return "".join(first + rest)
    raise AssertionError("no board drawn")


def _weight(rng: random.Random) -> str:
    return rng.choice(("", "", "", ":0.5", ":0.25", ":0.75", f":{rng.randint(1, 99) / 100:g}"))


def _range_item(rng: random.Random) -> str:
    """One range item both parsers read: a class, a ``+`` run, a span, or a single combo."""
    hi, lo = sorted(rng.sample(range(13), 2), reverse=True)
    kind = rng.choice(("pair", "pair+", "pairspan", "class", "class+", "kicker", "combo", "combo"))
    if kind == "pair":
        return RANKS[hi] * 2
    if kind == "pair+":
        return RANKS[rng.randint(6, 12)] * 2 + "+"
    if kind == "pairspan":
        return f"{RANKS[hi] * 2}-{RANKS[lo] * 2}"
    suffix = rng.choice(("s", "o", ""))
    if kind == "class":
        return RANKS[hi] + RANKS[lo] + suffix
    if kind == "class+":
        return RANKS[hi] + RANKS[min(lo, hi - 1)] + suffix + "+"
    if kind == "kicker" and hi - lo >= 2:
        top = rng.randint(lo + 1, hi - 1)
        return f"{RANKS[hi]}{RANKS[top]}{suffix}-{RANKS[hi]}{RANKS[lo]}{suffix}"
    s1, s2 = rng.choice(SUITS), rng.choice(SUITS)
    return RANKS[hi] + s1 + RANKS[lo] + s2


def _range(rng: random.Random, items: int) -> str:
    """A weighted range of up to ``items`` items; sometimes a combo is named twice with
    different weights (first item wins in both tools)."""
    out = [_range_item(rng) + _weight(rng) for _ in range(rng.randint(1, items))]
    if rng.random() < 0.3:
        out.insert(0, _range_item(rng) + rng.choice((":0.3", ":0.6")))
    return ",".join(out)


def _size(rng: random.Random, raising: bool) -> str:
    """One size token; ``Nx`` and ``NcMr`` only in raise lists."""
    kinds = ["pot", "pot", "pot", "chips", "e", "Ke", "KeM", "a"]
    if raising:
        kinds += ["x", "x", "cr"]
    kind = rng.choice(kinds)
    if kind == "pot":
        return f"{rng.choice((10, 25, 33, 50, 67, 75, 100, 125, 150, 200, 37.5))}%"
    if kind == "chips":
        return f"{rng.randint(1, 150)}c"
    if kind == "cr":
        return f"{rng.randint(1, 150)}c{rng.randint(1, 3)}r"
    if kind == "x":
        return f"{rng.choice((1.5, 2, 2.5, 3, 4))}x"
    if kind == "e":
        return "e"
    if kind == "Ke":
        return f"{rng.randint(1, 4)}e"
    if kind == "KeM":
        return f"{rng.choice(('', '1', '2', '3'))}e{rng.choice((50, 75, 100, 150))}%"
    return "a"


def _sizes(rng: random.Random, raising: bool, most: int) -> str:
    return ", ".join(_size(rng, raising) for _ in range(rng.randint(0 if raising else 1, most)))


def _street_table(rng: random.Random, street: str, most: int) -> dict[str, Any]:
    """Bet and raise sizes for both players (shared or per player) and maybe donk sizes."""
    table: dict[str, Any] = {}
    if rng.random() < 0.6:
        table["bet"], table["raise"] = _sizes(rng, False, most), _sizes(rng, True, most)
    else:
        for player in ("oop", "ip"):
            table[player] = {"bet": _sizes(rng, False, most), "raise": _sizes(rng, True, most)}
    if street != "flop" and rng.random() < 0.3:
        table["donk"] = "" if rng.random() < 0.3 else _sizes(rng, False, 2)
    return table


def draw_spot(seed: int, street: str) -> dict[str, Any]:
    """The spot of ``seed`` on ``street`` in pfs_spot's JSON layout (see the module docstring).

    A draw whose action tree is larger than :data:`MAX_ACTION_DECISIONS` is drawn again from
    the same generator, so the result depends on the seed alone."""
    rng = random.Random(f"{street}:{seed}")
    first = STREETS.index(street)
    items = {"river": 6, "turn": 3, "flop": 2}[street]
    most = {"river": 4, "turn": 2, "flop": 1}[street]
    for _ in range(200):
        board = _board(rng, 3 + first)
        pot = rng.randint(10, 400)
        spr = math.exp(rng.uniform(math.log(0.5), math.log(20.0)))
        spot: dict[str, Any] = {
            "name": f"{street}-{seed}",
            "board": board,
            "pot": pot,
            "stack": max(1, round(pot * spr)),
            "oop_range": _range(rng, items),
            "ip_range": _range(rng, items),
        }
        if rng.random() < 0.3:
            spot["rake_rate"] = rng.choice((0.03, 0.05, 0.1))
            spot["rake_cap"] = rng.choice((1, 3, 10, 10 * pot))
        tree: dict[str, Any] = {}
        if rng.random() < 0.5:
            tree["add_allin_threshold"] = rng.choice((0.0, 0.5, 1.0, 1.5, 3.0))
            tree["force_allin_threshold"] = rng.choice((0.0, 0.05, 0.15, 0.3))
            tree["merging_threshold"] = rng.choice((0.0, 0.1, 0.2))
        if rng.random() < 0.2:
            tree["raise_limit"] = rng.randint(0, 3)
        if tree:
            spot["tree"] = tree
        for name in STREETS[first:]:
            spot[name] = _street_table(rng, name, most)
        try:
            decisions = action_decisions(spot)
        except PokerlabError as exc:  # a range empty on this board: draw again
            if "is empty once the board" not in str(exc):
                raise
            continue
        if decisions <= MAX_ACTION_DECISIONS[street]:
            return spot
    raise AssertionError(f"no small enough spot for seed {seed}")


# --- the two solvers -----------------------------------------------------------------------------


def pokerlab_dict(spot: dict[str, Any]) -> dict[str, Any]:
    """The spot in pokerlab's layout: pfs_spot's without ``name``/``comment``, with
    ``raise_limit = "none"`` where pfs_spot has none (pokerlab's default is 3) and no
    ``rake_cap`` where there is no rake (pfs_spot's default cap is 0)."""
    data = {k: v for k, v in spot.items() if k not in ("name", "comment")}
    tree = dict(data.get("tree", {}))
    tree.setdefault("raise_limit", "none")
    data["tree"] = tree
    return data


def pokerlab_game(spot: dict[str, Any]) -> Any:
    """The pokerlab game of a pfs_spot-layout spot (overlap warnings silenced)."""
    from pokerlab.games.postflop.game import PostflopGame
    from pokerlab.games.postflop.spot import SpotConfig

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return PostflopGame(SpotConfig.from_dict(pokerlab_dict(spot)))


def action_decisions(spot: dict[str, Any]) -> int:
    """Decision nodes of pokerlab's action tree (before cards are dealt)."""
    from pokerlab.games.postflop.action_walk import count_action_nodes

    return sum(count_action_nodes(pokerlab_game(spot).action_tree)["decision"])


def pokerlab_counts(spot: dict[str, Any], rule: str = "postflop-solver") -> dict[str, int]:
    """pokerlab's node counts of the dealt tree, suit isomorphism applied.

    ``rule="postflop-solver"`` swaps the suits postflop-solver swaps (``card.rs``): those under
    which both ranges as written are symmetric and that hold the same ranks on the spot's first
    board (``expand_spot``'s ``symmetric_pairs``); ``"pokerlab"`` those under which the ranges
    as dealt (board cards removed) are symmetric, as pokerlab's solver does (it may fold other
    cards: the same game, other node counts)."""
    game = pokerlab_game(spot)
    if rule == "pokerlab":
        return game.expanded.tree.node_counts()
    from pokerlab.cards.ranges import parse_range
    from pokerlab.games.postflop.expand import expand_spot
    from pokerlab.games.postflop.hand_lists import symmetric_suit_pairs
    from pokerlab.tree.vector.tree import SUIT_PAIRS

    c = game.config
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        raw = (parse_range(c.oop_range), parse_range(c.ip_range))
    ranks = [frozenset(card >> 2 for card in c.board if card & 3 == suit) for suit in range(4)]
    flags = [
        ok and ranks[s1] == ranks[s2]
        for ok, (s1, s2) in zip(symmetric_suit_pairs(raw), SUIT_PAIRS, strict=True)
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        weights = c.weights()
    dealt = expand_spot(
        game.action_tree, list(c.board), weights, float(c.pot), symmetric_pairs=flags
    )
    return dealt.tree.node_counts()


def run_pokerlab(spot: dict[str, Any], target: float, cap: int) -> dict[str, Any]:
    """Node counts, and OOP's root EV after solving to ``target`` percent of the pot."""
    from pokerlab.solvers.postflop import PostflopSolver

    start = time.perf_counter()
    game = pokerlab_game(spot)
    solver = PostflopSolver(game, "dcfr-ps")
    progress = solver.solve(target_pct=target, iterations=cap, check_every=10)
    ev = solver.values()["ev"]
    return {
        "oop_ev": float(ev[0]),
        "iterations": progress.iterations,
        "exploitability_pct": 100.0 * progress.exploitability / float(spot["pot"]),
        "seconds": time.perf_counter() - start,
    }


def run_reference(
    binary: Path, spot: dict[str, Any], target: float, cap: int, counts_only: bool = False
) -> dict[str, Any]:
    """Run ``pfs_spot`` on the spot (one thread); its node counts, EV and iterations. With
    ``counts_only``, one iteration (the counts are printed before solving)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "spot.json"
        path.write_text(json.dumps(spot))
        args = [str(binary), str(path), "1", "0", "1"] if counts_only else None
        if args is None:
            args = [str(binary), str(path), "1", f"{target}", str(cap)]
        start = time.perf_counter()
        proc = subprocess.run(args, capture_output=True, text=True, timeout=600, check=False)
    lines = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    by_type = {line["type"]: line for line in lines}
    if "error" in by_type or "setup" not in by_type:
        message = by_type.get("error", {}).get("message") or proc.stderr.strip()
        raise RuntimeError(f"pfs_spot failed on {spot.get('name')}: {message}")
    setup = by_type["setup"]
    out = {
        "decision": setup["decision_nodes"],
        "chance": setup["chance_nodes"],
        "terminal": setup["terminal_nodes"],
        "seconds": time.perf_counter() - start,
    }
    if not counts_only:
        ev, result = by_type["ev"], by_type["result"]
        out.update(
            oop_ev=float(ev["oop_ev"]),
            iterations=result["iterations"],
            exploitability_pct=float(result["exploitability_pct_pot"]),
        )
    return out


def compare(
    binary: Path,
    seed: int,
    street: str,
    target: float,
    cap: int,
    ev_tol: float,
    counts_only: bool = False,
) -> dict[str, Any]:
    """One spot solved (or only built) by both; the row of the report."""
    spot = draw_spot(seed, street)
    ref = run_reference(binary, spot, target, cap, counts_only)
    counts = pokerlab_counts(spot)
    own = pokerlab_counts(spot, "pokerlab") if street != "river" else counts
    ours = counts if counts_only else run_pokerlab(spot, target, cap)
    keys = ("decision", "chance", "terminal")
    row: dict[str, Any] = {
        "seed": seed,
        "street": street,
        "board": spot["board"],
        "spr": round(spot["stack"] / spot["pot"], 2),
        "reference_counts": [ref[k] for k in keys],
        "pokerlab_counts": [counts[k] for k in keys],
        "pokerlab_solver_counts": [own[k] for k in keys],
        "counts_equal": all(ref[k] == counts[k] for k in keys),
    }
    if not counts_only:
        diff = 100.0 * abs(ref["oop_ev"] - ours["oop_ev"]) / float(spot["pot"])
        row.update(
            reference_oop_ev=ref["oop_ev"],
            pokerlab_oop_ev=ours["oop_ev"],
            ev_diff_pct_pot=diff,
            ev_agree=diff <= ev_tol,
            reference_iterations=ref["iterations"],
            pokerlab_iterations=ours["iterations"],
            reference_exploitability_pct=ref["exploitability_pct"],
            pokerlab_exploitability_pct=ours["exploitability_pct"],
            pokerlab_seconds=ours["seconds"],
            reference_seconds=ref["seconds"],
        )
    row["agree"] = row["counts_equal"] and row.get("ev_agree", True)
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--river", type=int, default=200, help="river spots (default 200)")
    parser.add_argument("--turn", type=int, default=50, help="turn spots (default 50)")
    parser.add_argument("--flop", type=int, default=0, help="flop spots (tiny; default 0)")
    parser.add_argument("--seed0", type=int, default=0, help="first seed (default 0)")
    parser.add_argument("--target", type=float, default=0.02, help="%% of the pot (0.02)")
    parser.add_argument("--cap", type=int, default=3000, help="iteration cap (3000)")
    parser.add_argument("--ev-tol", type=float, default=0.1, help="%% of the pot (0.1)")
    parser.add_argument("--counts-only", action="store_true", help="compare node counts only")
    parser.add_argument("--show", type=int, default=None, help="print the spot of this seed")
    parser.add_argument("--street", default="river", help="street of --show (river)")
    add_save_option(parser)
    args = parser.parse_args(argv)
    # the drawn ranges overlap on purpose (first item wins in both tools)
    warnings.simplefilter("ignore", RangeOverlapWarning)
    if args.show is not None:
        print(json.dumps(draw_spot(args.show, args.street), indent=2))
        return 0
    binary = find_reference()
    if binary is None:
        print(
            "agreement: the reference pfs_spot was not found (set POKERLAB_PFS_SPOT or put it "
            f"at {REFERENCE_CANDIDATES[0]}); nothing compared",
            file=sys.stderr,
        )
        return 2
    rows: list[dict[str, Any]] = []
    start = time.perf_counter()
    for street, count in (("river", args.river), ("turn", args.turn), ("flop", args.flop)):
        for seed in range(args.seed0, args.seed0 + count):
            row = compare(
                binary, seed, street, args.target, args.cap, args.ev_tol, args.counts_only
            )
            rows.append(row)
            if not row["agree"]:
                print(f"disagreement: {json.dumps(row)}", file=sys.stderr, flush=True)
    summary: dict[str, Any] = {"seconds": time.perf_counter() - start, "by_street": {}}
    for street in ("river", "turn", "flop"):
        mine = [r for r in rows if r["street"] == street]
        if not mine:
            continue
        entry: dict[str, Any] = {
            "spots": len(mine),
            "counts_equal": sum(r["counts_equal"] for r in mine),
            "disagreeing_seeds": [r["seed"] for r in mine if not r["agree"]],
            "decision_nodes_max": max(r["reference_counts"][0] for r in mine),
        }
        if not args.counts_only:
            entry["ev_agree"] = sum(r["ev_agree"] for r in mine)
            entry["ev_diff_pct_pot_max"] = max(r["ev_diff_pct_pot"] for r in mine)
            entry["ev_diff_pct_pot_mean"] = sum(r["ev_diff_pct_pot"] for r in mine) / len(mine)
        summary["by_street"][street] = entry
    payload = {
        "reference": str(binary),
        "target_pct_pot": args.target,
        "ev_tolerance_pct_pot": args.ev_tol,
        "counts_only": args.counts_only,
        "summary": summary,
        "spots": rows,
    }
    print(json.dumps({k: v for k, v in payload.items() if k != "spots"}, indent=2))
    headers = ["street", "spots", "counts equal", "EV within tol", "max EV diff %pot", "bad seeds"]
    table = [
        [
            street,
            e["spots"],
            e["counts_equal"],
            e.get("ev_agree", "-"),
            e.get("ev_diff_pct_pot_max", "-"),
            ",".join(map(str, e["disagreeing_seeds"])) or "none",
        ]
        for street, e in summary["by_street"].items()
    ]
    print_table("pokerlab vs postflop-solver", headers, table)
    path = write_results("agreement", payload, save=args.save)
    print(f"\nwritten: {path}")
    return 0 if all(r["agree"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
