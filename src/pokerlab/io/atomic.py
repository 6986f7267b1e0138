"""Atomic file writes: a file is either its old content or its new content, never a part.

Every file pokerlab writes for a user (strategies, checkpoints, reports, pictures' data, CSV)
goes through :func:`atomic_write_bytes`: a temporary file next to the target
(``.<name>.<8 characters>.tmp``, which :func:`pokerlab.io.paths.remove_stale_temporaries` removes
when a kill left one behind), flushed and fsynced, then renamed over the target, then the folder
fsynced so that the rename survives a power cut. The standard library has the pieces
(``tempfile``, ``os.replace``) but no function that does all of it.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["atomic_write_bytes", "atomic_write_text"]


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes | memoryview) -> None:
    """Write ``data`` (bytes, or a buffer such as ``BytesIO.getbuffer()``) to ``path``
    atomically (temporary file, fsync, rename)."""
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


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically (:func:`atomic_write_bytes`)."""
    atomic_write_bytes(path, text.encode("utf-8"))
