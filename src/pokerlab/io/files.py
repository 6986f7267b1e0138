"""Strategy and checkpoint files.

Format (see ``docs/file-formats.md``): a NumPy ``.npz`` archive holding the arrays plus one entry
``__meta__``, UTF-8 JSON with ``format`` (``"pokerlab-strategy"`` or ``"pokerlab-checkpoint"``),
``version`` (2), the game name and parameters, the tree representation, algorithm, iterations,
seed, creation time, and ``sha256``: the digest of the canonical metadata JSON (every other field)
and of every array's name, dtype, shape and bytes. Loading checks all of it, and parses the archive
itself (no pickles, no trust in array headers), so any truncated, damaged or hand-edited file is
refused with :class:`~pokerlab.errors.FileFormatError` and never loaded wrong.

Writes are atomic: the archive goes to a temporary file in the target folder, is flushed and
fsynced, then renamed over the target, so a crash never leaves a half-written file.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import time
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from pokerlab._system import memory_available as _memory_available
from pokerlab.errors import FileFormatError
from pokerlab.games.base import HistoryGame
from pokerlab.io.atomic import atomic_write_bytes
from pokerlab.strategy import BettingStrategy, Strategy, require_strategy
from pokerlab.tree.betting.layout import BettingLayout
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

FILE_FORMAT_VERSION = 2
STRATEGY_FORMAT = "pokerlab-strategy"
CHECKPOINT_FORMAT = "pokerlab-checkpoint"


def _canonical_meta(meta: dict[str, Any]) -> bytes:
    """The metadata without its ``sha256`` field as canonical JSON (sorted keys, no spaces)."""
    body = {k: v for k, v in meta.items() if k != "sha256"}
    return json.dumps(body, sort_keys=True, separators=(",", ":")).encode()


def _digest(arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> str:
    """Format-2 checksum: SHA-256 over the canonical metadata JSON (every field but ``sha256``)
    and then every array's name, dtype, shape and bytes, arrays in name order."""
    h = hashlib.sha256()
    h.update(b"pokerlab-digest-2\n")
    h.update(_canonical_meta(meta))
    h.update(b"\n")
    for name in sorted(arrays):
        a = np.ascontiguousarray(arrays[name])
        h.update(f"{name}|{a.dtype.str}|{a.shape}|".encode())
        h.update(a.reshape(-1).view(np.uint8))  # the bytes of a.tobytes(), without a copy
    return h.hexdigest()


def _write(
    path: str | os.PathLike[str], arrays: dict[str, np.ndarray], meta: dict[str, Any]
) -> None:
    meta = dict(
        meta,
        version=FILE_FORMAT_VERSION,
        created=time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    )
    # Digest what a reader will see: JSON turns tuples into lists and keys into strings.
    meta = json.loads(json.dumps(meta))
    meta["sha256"] = _digest(arrays, meta)
    buf = io.BytesIO()
    payload = dict(arrays)
    payload["__meta__"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    np.savez_compressed(buf, **payload)
    atomic_write_bytes(path, buf.getbuffer())  # no copy of the compressed file


#: Bytes read at most to find a ``.npy`` member's header (magic, length and the header dict).
_HEADER_LIMIT = 1 << 16
#: Bytes at most of the ``__meta__`` member once inflated (the JSON metadata).
_META_LIMIT = 16 << 20


def _check_sizes(archive: zipfile.ZipFile, limit: int | None) -> None:
    """Refuse, from the sizes the zip's central directory declares and before anything is
    inflated, members that would inflate past ``limit`` bytes in all (the memory available) or a
    ``__meta__`` past :data:`_META_LIMIT`."""
    total = 0
    for info in archive.infolist():
        total += info.file_size
        if info.filename == "__meta__.npy" and info.file_size > _META_LIMIT:
            raise FileFormatError(f"metadata entry of {info.file_size:,} bytes")
    if limit is not None and total > limit:
        raise FileFormatError(
            f"its entries inflate to {total:,} bytes, more than the {limit:,} bytes of memory "
            "available"
        )


def _parse_npy(stream: Any, size: int, name: str) -> np.ndarray:
    """One ``.npy`` member (format 1.0 or 2.0) read from ``stream`` (``size`` bytes inflated, as
    the zip declares) into a new array, without pickles and without trusting the header: the
    header's shape x itemsize must fill the member exactly, which is checked before the data is
    inflated, and the data is read in place (no second copy)."""
    head = stream.read(min(size, _HEADER_LIMIT))
    fp = io.BytesIO(head)
    version = np.lib.format.read_magic(fp)
    if version == (1, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_1_0(fp)
    elif version == (2, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_2_0(fp)
    else:
        raise FileFormatError(f"entry {name!r} has unknown .npy version {version}")
    if dtype.hasobject or dtype.itemsize == 0:
        raise FileFormatError(f"entry {name!r} holds objects, not numbers")
    count = 1
    for n in shape:
        count *= int(n)
    start = fp.tell()
    if size - start != count * dtype.itemsize:
        raise FileFormatError(f"entry {name!r} has the wrong length for its shape {shape}")
    flat = np.empty(count, dtype=dtype)
    view = flat.view(np.uint8).reshape(-1)
    got = len(head) - start
    view[:got] = np.frombuffer(head, dtype=np.uint8, offset=start)
    while got < view.size:
        chunk = stream.read(min(view.size - got, 1 << 24))
        if not chunk:
            raise FileFormatError(f"entry {name!r} is shorter than its shape {shape}")
        view[got : got + len(chunk)] = np.frombuffer(chunk, dtype=np.uint8)
        got += len(chunk)
    if stream.read(1):  # also makes the zip layer check the member's CRC-32
        raise FileFormatError(f"entry {name!r} is longer than its shape {shape}")
    return flat.reshape(shape, order="F" if fortran else "C")


def _read_archive(p: Path) -> dict[str, np.ndarray]:
    """Every ``.npy`` member of the zip archive at ``p``; any damage is a :class:`FileFormatError`.

    The sizes the archive declares are checked before anything is inflated (a small file that
    inflates to gigabytes is refused at once); the zip layer checks each member's CRC-32; the
    arrays are parsed by :func:`_parse_npy`, never by the pickle loader.
    """
    try:
        with open(p, "rb") as fh:
            magic = fh.read(4)
    except OSError as exc:
        raise FileFormatError(f"cannot read {str(p)!r}: {exc.strerror or exc}") from None
    if magic != b"PK\x03\x04":
        raise FileFormatError(f"{str(p)!r} is not a readable pokerlab file (not a .npz archive)")
    arrays: dict[str, np.ndarray] = {}
    try:
        with zipfile.ZipFile(p) as archive:
            _check_sizes(archive, _memory_available())
            for info in archive.infolist():
                if not info.filename.endswith(".npy"):
                    raise FileFormatError(f"unexpected entry {info.filename!r}")
                name = info.filename[: -len(".npy")]
                if name in arrays:
                    raise FileFormatError(f"entry {name!r} appears twice")
                with archive.open(info) as stream:
                    arrays[name] = _parse_npy(stream, info.file_size, name)
    except FileFormatError as exc:
        raise FileFormatError(f"{str(p)!r} is not a readable pokerlab file ({exc})") from None
    except OSError as exc:
        raise FileFormatError(f"cannot read {str(p)!r}: {exc.strerror or exc}") from None
    except Exception as exc:  # zlib, zipfile, header parsing: damage shows up as any of them
        reason = f"damaged archive: {type(exc).__name__}"
        raise FileFormatError(f"{str(p)!r} is not a readable pokerlab file ({reason})") from None
    return arrays


def _read(
    path: str | os.PathLike[str], expected: tuple[str, ...]
) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    p = Path(path)
    try:
        is_dir, exists = p.is_dir(), p.exists()
    except (OSError, ValueError) as exc:  # a name too long, an embedded NUL byte
        reason = getattr(exc, "strerror", None) or str(exc)
        raise FileFormatError(f"cannot read {str(p)[:60]!r}: {reason}") from None
    if is_dir:
        raise FileFormatError(f"{str(p)!r} is a folder, not a pokerlab file")
    if not exists:
        raise FileFormatError(f"no such file: {str(p)!r}")
    if not p.is_file():  # a FIFO or a device: opening it could block forever
        raise FileFormatError(f"{str(p)!r} is not a regular file")
    arrays = _read_archive(p)
    raw = arrays.pop("__meta__", None)
    if raw is None:
        raise FileFormatError(f"{str(p)!r} has no pokerlab metadata")
    try:
        meta = json.loads(raw.tobytes().decode())
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise FileFormatError(f"{str(p)!r} has corrupt metadata") from None
    if not isinstance(meta, dict):
        raise FileFormatError(f"{str(p)!r} has corrupt metadata")
    if meta.get("format") not in expected:
        wanted = " or ".join(repr(e) for e in expected)
        raise FileFormatError(f"{str(p)!r} is a {meta.get('format')!r} file, expected {wanted}")
    if meta.get("version") != FILE_FORMAT_VERSION:
        older = (
            "; version 1 files (pokerlab 0.1 before checksummed metadata) must be written again"
            if meta.get("version") == 1
            else ""
        )
        raise FileFormatError(
            f"{str(p)!r} has format version {meta.get('version')!r}; "
            f"this pokerlab reads version {FILE_FORMAT_VERSION}{older}"
        )
    if meta.get("sha256") != _digest(arrays, meta):
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
    params = meta.get("game_params", {})
    if not isinstance(meta.get("game"), str) or not isinstance(params, dict):
        raise FileFormatError(f"file names no game: {meta.get('game')!r} {params!r}")
    return load_game(meta["game"], **params)


def save_strategy(path: str | os.PathLike[str], strategy: Strategy, **metadata: Any) -> None:
    """Save ``strategy`` with its game identity; extra ``metadata`` (algorithm, iterations, seed,
    exploitability...) is stored as JSON and returned by :func:`read_metadata`.

    :func:`pokerlab.save_strategy` also takes a postflop solve (:mod:`pokerlab.saving`)."""
    require_strategy(strategy, "save_strategy takes a Strategy")
    game = strategy.game
    meta = {
        "format": STRATEGY_FORMAT,
        "game": game.name,
        "game_params": dict(game.params),
        "representation": strategy.compiled.kind,
        "num_infosets": len(strategy),
        **metadata,
    }
    if isinstance(strategy, BettingStrategy):  # the bucketed layout and abstraction it names
        meta["betting"] = strategy.file_identity()
    _write(path, {"probs": strategy.probs}, meta)


def is_postflop_solution(meta: dict[str, Any]) -> bool:
    """Whether a file's metadata (:func:`read_metadata`) is that of a postflop solution
    (``pokerlab postflop --out``, ``save_spot_solution``)."""
    return meta.get("format") == CHECKPOINT_FORMAT and (
        meta.get("kind") == "postflop-solution" or meta.get("game") == "postflop"
    )


def load_strategy(path: str | os.PathLike[str], game: HistoryGame | None = None) -> Strategy:
    """Load a strategy saved by :func:`save_strategy` (``game`` only for unregistered games).

    A postflop solution is refused here by name; :func:`pokerlab.load_strategy` reopens it
    (:mod:`pokerlab.saving`)."""
    arrays, meta = _read(path, (STRATEGY_FORMAT, CHECKPOINT_FORMAT))
    if is_postflop_solution(meta):
        raise FileFormatError(
            f"{os.fspath(path)!r} is a postflop solution: reopen it with pokerlab.load_strategy "
            "or pokerlab.solvers.postflop.load_spot_solution"
        )
    if meta.get("format") == CHECKPOINT_FORMAT:
        _read(path, (STRATEGY_FORMAT,))  # refuses any other checkpoint, naming its format
    if meta.get("representation") == BettingLayout.kind:
        return _load_betting(path, arrays, meta, game)
    compiled = compile_game(_game_for(meta, game), meta.get("representation"))
    probs = arrays.get("probs")
    if probs is None or probs.shape != (compiled.size,):
        raise FileFormatError(f"{str(path)!r}: strategy array does not match the game's layout")
    return Strategy(compiled, probs.astype(np.float64))


def _load_betting(
    path: str | os.PathLike[str],
    arrays: dict[str, np.ndarray],
    meta: dict[str, Any],
    game: HistoryGame | None,
) -> BettingStrategy:
    """A bucketed strategy (limit hold'em with card abstraction): its layout from the game's
    betting tree and the file's ``betting`` fields; the abstraction is not rebuilt here (the
    evaluators rebuild it from the same fields when they need it)."""
    found = _game_for(meta, game)
    fields = meta.get("betting")
    try:
        layout = BettingLayout(
            found.betting_tree,  # type: ignore[attr-defined]
            tuple(int(b) for b in fields["buckets"]),
            np.array([int(s) for s in fields["num_states"]], dtype=np.int64),
            str(fields["recall"]),
        )
    except (AttributeError, KeyError, TypeError, ValueError):
        raise FileFormatError(f"{str(path)!r}: bucketed strategy without its layout") from None
    probs = arrays.get("probs")
    if probs is None or probs.shape != (layout.size,):
        raise FileFormatError(f"{str(path)!r}: strategy array does not match the game's layout")
    identity = {k: v for k, v in fields.items() if k not in ("buckets", "num_states", "recall")}
    return BettingStrategy.of(found, layout, probs.astype(np.float64), identity=identity)


def read_metadata(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The JSON metadata of a strategy or checkpoint file (validated)."""
    return _read(path, (STRATEGY_FORMAT, CHECKPOINT_FORMAT))[1]


def save_checkpoint(path: str | os.PathLike[str], state: dict[str, Any], **metadata: Any) -> None:
    """Save a solver's :meth:`~pokerlab.solvers.base.Solver.state_dict` atomically."""
    arrays = {f"arrays/{k}": v for k, v in state["arrays"].items()}
    meta = {k: v for k, v in state.items() if k != "arrays"}
    meta["state_format"] = meta.pop("format")
    meta.update(format=CHECKPOINT_FORMAT, **metadata)
    _write(path, arrays, meta)


def load_checkpoint(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Load a checkpoint back into a state dictionary for ``Solver.load_state_dict``."""
    arrays, meta = _read(path, (CHECKPOINT_FORMAT,))
    state = {k: v for k, v in meta.items() if k not in ("format", "version", "sha256", "created")}
    state["format"] = state.pop("state_format", None)
    state["arrays"] = {k.split("/", 1)[1]: v for k, v in arrays.items() if k.startswith("arrays/")}
    return state
