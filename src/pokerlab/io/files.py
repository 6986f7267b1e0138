"""Strategy and checkpoint files.

Format (see ``docs/file-formats.md``): a NumPy ``.npz`` archive holding the arrays plus one entry
``__meta__``, UTF-8 JSON with ``format`` (``"pokerlab-strategy"`` or ``"pokerlab-checkpoint"``),
``version``, the game name and parameters, the tree representation, algorithm, iterations, seed,
creation time, and ``sha256``: the digest of every array's name, dtype, shape and bytes. Loading
checks all of it, so a truncated or altered file is refused with a clear error.

Writes are atomic: the archive goes to a temporary file in the target folder, is flushed and
fsynced, then renamed over the target, so a crash never leaves a half-written file.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from pokerlab.errors import FileFormatError
from pokerlab.games.base import HistoryGame
from pokerlab.strategy import Strategy
from pokerlab.tree.compiled import compile_game

__all__ = [
    "FILE_FORMAT_VERSION",
    "atomic_write_bytes",
    "save_strategy",
    "load_strategy",
    "save_checkpoint",
    "load_checkpoint",
    "read_metadata",
]

FILE_FORMAT_VERSION = 1
STRATEGY_FORMAT = "pokerlab-strategy"
CHECKPOINT_FORMAT = "pokerlab-checkpoint"


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (temporary file, fsync, rename)."""
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    folder.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)  # mkstemp creates 0600; results are ordinary readable files
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    try:  # make the rename itself durable
        dir_fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    except OSError:
        pass


def _digest(arrays: dict[str, np.ndarray]) -> str:
    h = hashlib.sha256()
    for name in sorted(arrays):
        a = np.ascontiguousarray(arrays[name])
        h.update(f"{name}|{a.dtype.str}|{a.shape}|".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def _write(
    path: str | os.PathLike[str], arrays: dict[str, np.ndarray], meta: dict[str, Any]
) -> None:
    meta = dict(
        meta,
        version=FILE_FORMAT_VERSION,
        sha256=_digest(arrays),
        created=time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    )
    buf = io.BytesIO()
    payload = dict(arrays)
    payload["__meta__"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    np.savez_compressed(buf, **payload)
    atomic_write_bytes(path, buf.getvalue())


def _read(
    path: str | os.PathLike[str], expected: str
) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    p = Path(path)
    if not p.is_file():
        raise FileFormatError(f"no such file: {str(p)!r}")
    try:
        with np.load(p, allow_pickle=False) as data:
            arrays = {k: data[k] for k in data.files}
    except (zipfile.BadZipFile, ValueError, OSError, EOFError, KeyError) as exc:
        raise FileFormatError(f"{str(p)!r} is not a readable pokerlab file ({exc})") from None
    raw = arrays.pop("__meta__", None)
    if raw is None:
        raise FileFormatError(f"{str(p)!r} has no pokerlab metadata")
    try:
        meta = json.loads(raw.tobytes().decode())
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise FileFormatError(f"{str(p)!r} has corrupt metadata") from None
    if meta.get("format") != expected:
        raise FileFormatError(f"{str(p)!r} is a {meta.get('format')!r} file, expected {expected!r}")
    if meta.get("version") != FILE_FORMAT_VERSION:
        raise FileFormatError(
            f"{str(p)!r} has format version {meta.get('version')!r}; "
            f"this pokerlab reads version {FILE_FORMAT_VERSION}"
        )
    if meta.get("sha256") != _digest(arrays):
        raise FileFormatError(f"{str(p)!r} failed its checksum: the file was altered or damaged")
    return arrays, meta


def _game_for(meta: dict[str, Any], game: HistoryGame | None) -> HistoryGame:
    from pokerlab.games.registry import load_game

    if game is not None:
        if game.name != meta.get("game") or dict(game.params) != meta.get("game_params"):
            raise FileFormatError(
                f"file is for game {meta.get('game')!r} {meta.get('game_params')}, not {game!r}"
            )
        return game
    return load_game(meta["game"], **meta.get("game_params", {}))


def save_strategy(path: str | os.PathLike[str], strategy: Strategy, **metadata: Any) -> None:
    """Save ``strategy`` with its game identity; extra ``metadata`` (algorithm, iterations, seed,
    exploitability...) is stored as JSON and returned by :func:`read_metadata`."""
    game = strategy.game
    meta = {
        "format": STRATEGY_FORMAT,
        "game": game.name,
        "game_params": dict(game.params),
        "representation": strategy.compiled.kind,
        "num_infosets": len(strategy),
        **metadata,
    }
    _write(path, {"probs": strategy.probs}, meta)


def load_strategy(path: str | os.PathLike[str], game: HistoryGame | None = None) -> Strategy:
    """Load a strategy saved by :func:`save_strategy` (``game`` only for unregistered games)."""
    arrays, meta = _read(path, STRATEGY_FORMAT)
    compiled = compile_game(_game_for(meta, game), meta.get("representation"))
    probs = arrays.get("probs")
    if probs is None or probs.shape != (compiled.size,):
        raise FileFormatError(f"{str(path)!r}: strategy array does not match the game's layout")
    return Strategy(compiled, probs.astype(np.float64))


def read_metadata(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The JSON metadata of a strategy or checkpoint file (validated)."""
    try:
        return _read(path, STRATEGY_FORMAT)[1]
    except FileFormatError as first:
        try:
            return _read(path, CHECKPOINT_FORMAT)[1]
        except FileFormatError:
            raise first from None


def save_checkpoint(path: str | os.PathLike[str], state: dict[str, Any], **metadata: Any) -> None:
    """Save a solver's :meth:`~pokerlab.solvers.base.Solver.state_dict` atomically."""
    arrays = {f"arrays/{k}": v for k, v in state["arrays"].items()}
    meta = {k: v for k, v in state.items() if k != "arrays"}
    meta["state_format"] = meta.pop("format")
    meta.update(format=CHECKPOINT_FORMAT, **metadata)
    _write(path, arrays, meta)


def load_checkpoint(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Load a checkpoint back into a state dictionary for ``Solver.load_state_dict``."""
    arrays, meta = _read(path, CHECKPOINT_FORMAT)
    state = {k: v for k, v in meta.items() if k not in ("format", "version", "sha256", "created")}
    state["format"] = state.pop("state_format", None)
    state["arrays"] = {k.split("/", 1)[1]: v for k, v in arrays.items() if k.startswith("arrays/")}
    return state
