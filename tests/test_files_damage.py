"""Damaged strategy and checkpoint files are refused with FileFormatError, never loaded wrong.

Every damaged variant of a saved file (each byte flipped, each truncation, random flips, junk,
hand-edited metadata, pickles) must either raise :class:`FileFormatError` or, when the damage hit
bytes the format ignores (zip timestamps, for example), load exactly the saved contents.
"""

from __future__ import annotations

import io
import json
import os
import tempfile
import zipfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pokerlab
from pokerlab.errors import FileFormatError
from pokerlab.io import read_metadata


@pytest.fixture(scope="module")
def saved(tmp_path_factory, kuhn) -> dict:
    """A small Kuhn strategy file and checkpoint file, and what they hold."""
    folder = tmp_path_factory.mktemp("files")
    solver = pokerlab.make_solver(kuhn, "cfr")
    solver.step(10)
    strategy_path = folder / "kuhn.npz"
    checkpoint_path = folder / "kuhn.ckpt.npz"
    pokerlab.save_strategy(strategy_path, solver.average_strategy(), iterations=10)
    pokerlab.save_checkpoint(checkpoint_path, solver.state_dict())
    return {
        "strategy": strategy_path.read_bytes(),
        "checkpoint": checkpoint_path.read_bytes(),
        "probs": solver.average_strategy().probs.copy(),
        "strategy_meta": read_metadata(strategy_path),
        "state": pokerlab.load_checkpoint(checkpoint_path),
    }


@pytest.fixture()
def scratch(tmp_path) -> Iterator[Path]:
    """A folder for the thousands of damaged copies: in memory (/dev/shm) where there is one,
    since a disk write costs more than the load it tests."""
    if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK):
        with tempfile.TemporaryDirectory(dir="/dev/shm") as folder:
            yield Path(folder)
    else:
        yield tmp_path


def _check_strategy(path: Path, saved: dict) -> bool:
    """True when refused with FileFormatError; fails the test on any other error or a wrong load."""
    try:
        loaded = pokerlab.load_strategy(path)
        meta = read_metadata(path)
    except FileFormatError:
        return True
    np.testing.assert_array_equal(loaded.probs, saved["probs"])
    assert meta == saved["strategy_meta"]
    return False


def _check_checkpoint(path: Path, saved: dict) -> bool:
    try:
        state = pokerlab.load_checkpoint(path)
    except FileFormatError:
        return True
    expected = saved["state"]
    assert {k: v for k, v in state.items() if k != "arrays"} == {
        k: v for k, v in expected.items() if k != "arrays"
    }
    assert state["arrays"].keys() == expected["arrays"].keys()
    for name, array in expected["arrays"].items():
        np.testing.assert_array_equal(state["arrays"][name], array)
        assert state["arrays"][name].dtype == array.dtype
    return False


def _flip(data: bytes, position: int, mask: int) -> bytes:
    out = bytearray(data)
    out[position] ^= mask
    return bytes(out)


def test_every_single_byte_flip_of_a_small_strategy_file(saved, scratch) -> None:
    data = saved["strategy"]
    path = scratch / "flipped.npz"
    refused = 0
    for position in range(len(data)):
        for mask in (0x01, 0x80, 0xFF):
            path.write_bytes(_flip(data, position, mask))
            refused += _check_strategy(path, saved)
    # Flips in the bytes zip ignores (times, "version made by", ...) load the right contents; a
    # flip anywhere in the compressed data, names, sizes or metadata is refused.
    assert refused > 0.7 * 3 * len(data)


def test_every_single_byte_flip_of_a_small_checkpoint(saved, scratch) -> None:
    data = saved["checkpoint"]
    path = scratch / "flipped.ckpt.npz"
    refused = sum(
        _check_checkpoint(path, saved)
        for position in range(len(data))
        if path.write_bytes(_flip(data, position, 0xFF)) or True
    )
    assert refused > 0.7 * len(data)


@pytest.mark.parametrize("kind", ["strategy", "checkpoint"])
def test_every_truncation_is_refused(saved, scratch, kind) -> None:
    data = saved[kind]
    path = scratch / "cut.npz"
    check = _check_strategy if kind == "strategy" else _check_checkpoint
    for length in range(len(data)):
        path.write_bytes(data[:length])
        assert check(path, saved), f"a file cut to {length} of {len(data)} bytes loaded"


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_random_multi_byte_damage(saved, scratch, data) -> None:
    kind = data.draw(st.sampled_from(["strategy", "checkpoint"]))
    raw = bytearray(saved[kind])
    flips = data.draw(
        st.lists(
            st.tuples(st.integers(0, len(raw) - 1), st.integers(1, 255)), min_size=1, max_size=8
        )
    )
    for position, mask in flips:
        raw[position] ^= mask
    cut = data.draw(st.one_of(st.none(), st.integers(0, len(raw))))
    if cut is not None:
        raw = raw[:cut]
    path = scratch / f"damaged-{kind}.npz"
    path.write_bytes(bytes(raw))
    (_check_strategy if kind == "strategy" else _check_checkpoint)(path, saved)


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(junk=st.binary(max_size=2000))
def test_junk_bytes_are_refused(scratch, junk) -> None:
    path = scratch / "junk.npz"
    path.write_bytes(junk)
    with pytest.raises(FileFormatError) as info:
        pokerlab.load_strategy(path)
    assert "allow_pickle" not in str(info.value)


def _repack(data: bytes, edit) -> bytes:
    """The archive with its metadata JSON changed by ``edit`` (as a person with numpy could)."""
    with np.load(io.BytesIO(data)) as archive:
        arrays = {k: archive[k] for k in archive.files}
    meta = json.loads(arrays["__meta__"].tobytes())
    edit(meta)
    arrays["__meta__"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    out = io.BytesIO()
    np.savez_compressed(out, **arrays)
    return out.getvalue()


@pytest.mark.parametrize(
    "edit",
    [
        lambda m: m.update(iterations=10_000),
        lambda m: m.update(created="2000-01-01T00:00:00+0000"),
        lambda m: m.update(num_infosets=13),
        lambda m: m.update(extra_field=1),
        lambda m: m.pop("iterations"),
        lambda m: m.update(game_params={"players": 3}),
    ],
)
def test_hand_edited_metadata_is_refused(saved, tmp_path, edit) -> None:
    path = tmp_path / "edited.npz"
    path.write_bytes(_repack(saved["strategy"], edit))
    with pytest.raises(FileFormatError, match="checksum"):
        pokerlab.load_strategy(path)
    with pytest.raises(FileFormatError, match="checksum"):
        read_metadata(path)


def test_hand_edited_checkpoint_iterations_are_refused(saved, tmp_path) -> None:
    path = tmp_path / "edited.ckpt.npz"
    path.write_bytes(_repack(saved["checkpoint"], lambda m: m.update(iterations=99)))
    with pytest.raises(FileFormatError, match="checksum"):
        pokerlab.load_checkpoint(path)


def test_unchanged_repack_still_loads(saved, tmp_path) -> None:
    # The checksum is over content, not over zip bytes: a plain re-pack is the same file.
    path = tmp_path / "repacked.npz"
    path.write_bytes(_repack(saved["strategy"], lambda m: None))
    assert not _check_strategy(path, saved)


def test_version_1_files_are_refused_with_a_reason(saved, tmp_path) -> None:
    path = tmp_path / "old.npz"
    path.write_bytes(_repack(saved["strategy"], lambda m: m.update(version=1)))
    with pytest.raises(FileFormatError, match="version 1 files .* must be written again"):
        pokerlab.load_strategy(path)


def test_pickled_entries_are_never_unpickled(saved, tmp_path) -> None:
    with np.load(io.BytesIO(saved["strategy"])) as archive:
        arrays = {k: archive[k] for k in archive.files}
    arrays["probs"] = np.array([{"a": 1}], dtype=object)
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    path = tmp_path / "pickled.npz"
    path.write_bytes(buf.getvalue())
    with pytest.raises(FileFormatError, match="objects") as info:
        pokerlab.load_strategy(path)
    assert "allow_pickle" not in str(info.value)


def test_a_raw_pickle_is_refused_without_numpy_advice(tmp_path) -> None:
    import pickle

    path = tmp_path / "p.npz"
    path.write_bytes(pickle.dumps({"probs": [0.5, 0.5]}))
    with pytest.raises(FileFormatError, match="not a .npz archive") as info:
        pokerlab.load_strategy(path)
    assert "allow_pickle" not in str(info.value)


def test_an_extra_or_duplicate_entry_is_refused(saved, tmp_path) -> None:
    path = tmp_path / "extra.npz"
    with zipfile.ZipFile(io.BytesIO(saved["strategy"])) as source:
        members = [(info, source.read(info)) for info in source.infolist()]
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as target:
        for info, payload in members:
            target.writestr(info, payload)
        target.writestr("notes.txt", b"hello")
    path.write_bytes(buf.getvalue())
    with pytest.raises(FileFormatError, match="unexpected entry 'notes.txt'"):
        pokerlab.load_strategy(path)


def test_a_folder_is_named_as_a_folder(tmp_path) -> None:
    with pytest.raises(FileFormatError, match="is a folder"):
        pokerlab.load_strategy(tmp_path)
    with pytest.raises(FileFormatError, match="no such file"):
        pokerlab.load_checkpoint(tmp_path / "missing.npz")
    with pytest.raises(FileFormatError, match="cannot read"):
        pokerlab.load_strategy(tmp_path / ("x" * 300 + ".npz"))
    with pytest.raises(FileFormatError, match="no such file|cannot read"):
        pokerlab.load_strategy("bad\x00name.npz")
