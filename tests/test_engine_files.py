"""Strategy and checkpoint files: exact round trips, refusal of damaged files."""

from __future__ import annotations

import json
import zipfile

import numpy as np
import pytest

import pokerlab
from pokerlab.errors import FileFormatError
from pokerlab.io import read_metadata


@pytest.fixture()
def solved(leduc):
    solver = pokerlab.make_solver(leduc, "cfr+")
    solver.step(30)
    return solver


def test_strategy_round_trip(solved, tmp_path) -> None:
    path = tmp_path / "s.npz"
    pokerlab.save_strategy(path, solved.average_strategy(), algorithm="cfr+", iterations=30)
    loaded = pokerlab.load_strategy(path)
    np.testing.assert_array_equal(loaded.probs, solved.average_strategy().probs)
    meta = read_metadata(path)
    assert meta["game"] == "leduc" and meta["iterations"] == 30 and meta["version"] == 2
    assert not list(tmp_path.glob(".*tmp"))  # the temporary file was renamed away


def test_truncated_and_altered_files_are_refused(solved, tmp_path) -> None:
    path = tmp_path / "s.npz"
    pokerlab.save_strategy(path, solved.average_strategy())
    data = path.read_bytes()
    (tmp_path / "cut.npz").write_bytes(data[: len(data) // 2])
    with pytest.raises(FileFormatError, match="not a readable"):
        pokerlab.load_strategy(tmp_path / "cut.npz")
    # Re-pack the archive with one probability changed: the checksum catches it.
    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files}
    arrays["probs"] = arrays["probs"].copy()
    arrays["probs"][0] += 0.25
    np.savez(tmp_path / "altered.npz", **arrays)
    with pytest.raises(FileFormatError, match="checksum"):
        pokerlab.load_strategy(tmp_path / "altered.npz")
    with pytest.raises(FileFormatError, match="no such file"):
        pokerlab.load_strategy(tmp_path / "missing.npz")


def test_version_and_kind_are_checked(solved, tmp_path) -> None:
    path = tmp_path / "c.npz"
    pokerlab.save_checkpoint(path, solved.state_dict())
    with pytest.raises(FileFormatError, match="expected 'pokerlab-strategy'"):
        pokerlab.load_strategy(path)
    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files}
    meta = json.loads(arrays["__meta__"].tobytes())
    meta["version"] = 99
    arrays["__meta__"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    np.savez(tmp_path / "future.npz", **arrays)
    with pytest.raises(FileFormatError, match="version 99"):
        pokerlab.load_checkpoint(tmp_path / "future.npz")
    assert zipfile.is_zipfile(path)


def test_strategy_for_another_game_is_refused(solved, tmp_path) -> None:
    path = tmp_path / "s.npz"
    pokerlab.save_strategy(path, solved.average_strategy())
    with pytest.raises(FileFormatError, match="leduc"):
        pokerlab.load_strategy(path, game=pokerlab.load_game("kuhn"))
