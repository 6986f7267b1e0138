"""Issue 29, item 6: a small .npz that inflates to far more is refused from the sizes its zip
directory declares, before anything is inflated (strategy files, checkpoints, the viewer's list)."""

from __future__ import annotations

import io
import tracemalloc
import zipfile
from pathlib import Path

import numpy as np
import pytest

import pokerlab
import pokerlab.io.files as files
from pokerlab.errors import FileFormatError

INFLATED = 64 << 20  # 64 MiB of zeros: about 64 KiB deflated


def _bomb(path: Path, shape: tuple[int, ...]) -> Path:
    """A zip whose ``probs.npy`` has a valid header for ``shape`` (float64) followed by
    INFLATED bytes of zeros, deflated."""
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        header, {"descr": "<f8", "fortran_order": False, "shape": shape}
    )
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        with archive.open("probs.npy", "w", force_zip64=True) as member:
            member.write(header.getvalue())
            zeros = bytes(1 << 20)
            for _ in range(INFLATED >> 20):
                member.write(zeros)
    assert path.stat().st_size < INFLATED // 100
    return path


def _peak(call) -> tuple[int, str]:
    tracemalloc.start()
    try:
        with pytest.raises(FileFormatError) as info:
            call()
        return tracemalloc.get_traced_memory()[1], str(info.value)
    finally:
        tracemalloc.stop()


def test_a_file_inflating_past_the_memory_available_is_refused_before_inflating(
    tmp_path, monkeypatch
) -> None:
    path = _bomb(tmp_path / "bomb.npz", (INFLATED // 8,))
    monkeypatch.setattr(files, "_memory_available", lambda: 32 << 20)
    for read in (pokerlab.load_strategy, pokerlab.load_checkpoint, files.read_metadata):
        peak, message = _peak(lambda read=read: read(path))
        assert "inflate to 67,108," in message and "33,554,432 bytes of memory" in message
        assert peak < 4 << 20  # nothing near the 64 MiB was allocated


def test_a_header_that_does_not_fill_the_member_is_refused_before_inflating(tmp_path) -> None:
    path = _bomb(tmp_path / "bomb.npz", (10,))
    peak, message = _peak(lambda: pokerlab.load_strategy(path))
    assert "wrong length for its shape (10,)" in message
    assert peak < 4 << 20


def test_a_valid_file_still_reads_back_exactly(tmp_path, kuhn) -> None:
    solver = pokerlab.make_solver(kuhn, "cfr+")
    solver.step(20)
    path = tmp_path / "k.npz"
    pokerlab.save_strategy(path, solver.average_strategy())
    again = pokerlab.load_strategy(path)
    np.testing.assert_array_equal(again.probs, solver.average_strategy().probs)


def test_the_viewer_listing_refuses_the_bomb_without_inflating(tmp_path, monkeypatch) -> None:
    from pokerlab.viewer import files as viewer_files

    _bomb(tmp_path / "bomb.npz", (INFLATED // 8,))
    monkeypatch.setattr(files, "_memory_available", lambda: 32 << 20)
    tracemalloc.start()
    try:
        entries = viewer_files.scan(tmp_path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 << 20
    (entry,) = [e for e in entries if e.path == "bomb.npz"]
    assert entry.kind == "error" and "inflate to" in entry.error


@pytest.mark.skipif(not hasattr(__import__("os"), "mkfifo"), reason="no FIFOs here")
def test_fifos_are_neither_read_nor_listed(tmp_path) -> None:
    import os

    from pokerlab.viewer import files as viewer_files

    for name in ("pipe.npz", "pipe.json", "pipe.jsonl"):
        os.mkfifo(tmp_path / name)
    with pytest.raises(FileFormatError, match="not a regular file"):
        pokerlab.load_strategy(tmp_path / "pipe.npz")  # opening it would block
    assert viewer_files.scan(tmp_path) == []
