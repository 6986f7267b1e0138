"""pokerlab's postflop spots against postflop-solver (issue 28).

The recorded spots (``tests/data/postflop_agreement.json``) are the disagreements that
``benchmarks/agreement.py`` found before the fixes, each with the node counts the reference
``pfs_spot`` printed for it: these tests need no binary. The last test runs the differential
harness itself on a few random spots and is skipped where the reference is not found
(``$POKERLAB_PFS_SPOT`` or ``../shared/reference/postflop-solver/pfs_spot``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import agreement  # noqa: E402

# the drawn and recorded ranges overlap on purpose (the first item wins in both tools)
pytestmark = pytest.mark.filterwarnings("ignore::pokerlab.errors.RangeOverlapWarning")

DATA = json.loads((Path(__file__).parent / "data" / "postflop_agreement.json").read_text())
KEYS = ("decision", "chance", "terminal")


def _counts(counts: dict[str, int]) -> list[int]:
    return [counts[k] for k in KEYS]


def _label(entry: dict[str, Any]) -> str:
    return (
        f"{entry['street']}-{entry['seed']}" if entry["seed"] is not None else entry["spot"]["name"]
    )


@pytest.mark.parametrize("entry", DATA["spots"], ids=_label)
def test_recorded_disagreements_now_match_the_reference_counts(entry: dict[str, Any]) -> None:
    spot = entry["spot"]
    assert _counts(agreement.pokerlab_counts(spot)) == entry["reference_counts"]
    # the solver's own tree: the same, or fewer chance children where it folds more suits
    own = entry.get("pokerlab_solver_counts", entry["reference_counts"])
    assert _counts(agreement.pokerlab_counts(spot, "pokerlab")) == own
    before = entry.get("pokerlab_counts_before")
    assert before is None or before != entry["reference_counts"]


def test_recorded_spots_cover_each_rule() -> None:
    whys = " ".join(entry["why"] for entry in DATA["spots"])
    for rule in ("geometric raise", "suit isomorphism", "NcMr", "no raise limit"):
        assert rule in whys


def test_default_raise_limit_still_cuts_the_tree() -> None:
    (entry,) = [e for e in DATA["spots"] if e["spot"]["name"] == "raise-limit"]
    spot = {**entry["spot"], "tree": {"raise_limit": 3}}
    assert (
        _counts(agreement.pokerlab_counts(spot)) == entry["pokerlab_counts_before"] == [10, 0, 17]
    )


def test_drawn_spots_are_valid_and_reproducible() -> None:
    for street in ("river", "turn"):
        for seed in range(5):
            spot = agreement.draw_spot(seed, street)
            assert spot == agreement.draw_spot(seed, street)
            assert len(spot["board"]) == 2 * (3 + agreement.STREETS.index(street))
            assert 0.5 <= spot["stack"] / spot["pot"] <= 20.5
            agreement.pokerlab_game(spot)  # pokerlab reads it


@pytest.mark.skipif(agreement.find_reference() is None, reason="pfs_spot reference not found")
@pytest.mark.parametrize(("street", "seeds"), [("river", range(8)), ("turn", range(2))])
def test_random_spots_agree_with_the_reference(street: str, seeds: range) -> None:
    binary = agreement.find_reference()
    assert binary is not None
    for seed in seeds:
        row = agreement.compare(binary, seed, street, target=0.02, cap=3000, ev_tol=0.1)
        assert row["counts_equal"], row
        assert row["ev_diff_pct_pot"] <= 0.1, row
