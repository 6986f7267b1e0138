"""On-disk cache of abstraction tables: atomic, versioned, checksummed ``.npz`` files.

A table file holds named arrays and one ``__meta__`` entry (UTF-8 JSON) with ``format``
(``"pokerlab-abstraction"``), ``version``, the caller's parameters and ``sha256``: the digest of
the other metadata and of every array's name, dtype, shape and bytes. :func:`load_tables` returns
None (so the caller rebuilds) for a missing file, another version, other parameters or a bad
checksum; writes go through :func:`pokerlab.io.files.atomic_write_bytes`.

The folder is ``$POKERLAB_CACHE_DIR`` or ``~/.cache/pokerlab``, subfolder ``abstraction``.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from pokerlab.io.atomic import atomic_write_bytes

__all__ = ["TABLE_FORMAT", "TABLE_VERSION", "cache_dir", "save_tables", "load_tables"]

TABLE_FORMAT = "pokerlab-abstraction"
#: Bump when the meaning of a cached table changes: older files are then rebuilt.
TABLE_VERSION = 1


def cache_dir() -> Path:
    """Folder of cached abstraction tables (created on first write)."""
    root = os.environ.get("POKERLAB_CACHE_DIR") or os.path.join(
        os.path.expanduser("~"), ".cache", "pokerlab"
    )
    return Path(root) / "abstraction"


def _digest(arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> str:
    h = hashlib.sha256()
    body = {k: v for k, v in meta.items() if k != "sha256"}
    h.update(json.dumps(body, sort_keys=True, separators=(",", ":")).encode())
    for name in sorted(arrays):
        a = np.ascontiguousarray(arrays[name])
        h.update(f"\n{name}|{a.dtype.str}|{a.shape}|".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def save_tables(path: str | os.PathLike[str], arrays: dict[str, np.ndarray], **params: Any) -> None:
    """Write ``arrays`` with ``params`` (JSON-able) to ``path`` atomically."""
    meta = json.loads(json.dumps({"format": TABLE_FORMAT, "version": TABLE_VERSION, **params}))
    meta["sha256"] = _digest(arrays, meta)
    buf = io.BytesIO()
    payload = dict(arrays)
    payload["__meta__"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    np.savez(buf, **payload)
    atomic_write_bytes(path, buf.getvalue())


def load_tables(path: str | os.PathLike[str], **params: Any) -> dict[str, np.ndarray] | None:
    """The arrays of ``path`` when it is a valid table file written with ``params``, else None."""
    p = Path(path)
    if not p.is_file():
        return None
    try:
        with np.load(p, allow_pickle=False) as data:
            arrays = {name: data[name] for name in data.files}
        meta = json.loads(arrays.pop("__meta__").tobytes().decode())
    except (OSError, ValueError, KeyError, zipfile.BadZipFile, UnicodeDecodeError):
        return None
    want = json.loads(json.dumps({"format": TABLE_FORMAT, "version": TABLE_VERSION, **params}))
    if any(meta.get(k) != v for k, v in want.items()):
        return None
    if meta.get("sha256") != _digest(arrays, meta):
        return None
    return arrays
