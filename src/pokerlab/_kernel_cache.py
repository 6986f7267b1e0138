"""numba's on-disk cache of pokerlab's kernels, invalidated when any kernel source changes.

numba keys a cached kernel (``cache=True``) on a hash of the source file that defines it, and
only that file. A kernel that inlines or calls kernels of other files (the vector pass of
``tree/vector/_kernels.py`` inlines ``_node_kernels.py``, ``_showdown.py`` and
``_chance_kernels.py``) then loads the machine code of the helpers as they were when it was
cached, after an edit or an upgrade that changed only them: results of old code, silently.
This happened here: a change to the 16-bit updates in ``_node_kernels.py`` was timed and tested
for a while through the cached kernel of the code before it.

Installed when ``pokerlab`` is imported (before any kernel is defined), this adds to the stamp
of every cached function defined in this package a digest of every pokerlab source file that
uses numba, so a change to any of them compiles every pokerlab kernel again, once (about a
minute); functions of other packages keep numba's own stamp. It wraps one method of numba's
cache locators (``_SourceFileBackedLocatorMixin.get_source_stamp``, which every file-backed
locator uses: the in-tree, user-wide and ``NUMBA_CACHE_DIR`` caches); where a numba version
lacks it, nothing is installed and :func:`installed` says so (a test checks it).
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path
from typing import Any

__all__ = ["installed", "kernel_sources", "kernels_digest", "sources_digest"]

_ROOT = Path(__file__).resolve().parent
_INSTALLED = False


def kernel_sources(root: Path = _ROOT) -> list[Path]:
    """The source files under ``root`` (default: this package) that use numba, sorted."""
    return [p for p in sorted(root.rglob("*.py")) if b"numba" in p.read_bytes()]


def sources_digest(root: Path) -> bytes:
    """SHA-256 over the relative paths and contents of :func:`kernel_sources` of ``root``."""
    h = hashlib.sha256()
    for path in kernel_sources(root):
        h.update(path.relative_to(root).as_posix().encode())
        h.update(b"\0")
        h.update(path.read_bytes())
    return h.digest()


@functools.lru_cache(maxsize=1)
def kernels_digest() -> bytes:
    """:func:`sources_digest` of this package (read once a process)."""
    return sources_digest(_ROOT)


def _inside(py_file: str) -> bool:
    try:
        Path(py_file).resolve().relative_to(_ROOT)
    except (ValueError, OSError):
        return False
    return True


def installed() -> bool:
    """Whether pokerlab's kernels are stamped with :func:`kernels_digest`."""
    return _INSTALLED


def _install() -> None:
    global _INSTALLED
    try:
        from numba.core import caching

        mixin = caching._SourceFileBackedLocatorMixin
        numba_stamp = mixin.get_source_stamp
    except (ImportError, AttributeError):  # another numba: its own stamps only
        return
    if getattr(numba_stamp, "_pokerlab", False):
        _INSTALLED = True
        return

    def get_source_stamp(self: Any) -> Any:
        stamp = numba_stamp(self)
        if _inside(getattr(self, "_py_file", "")):
            return (stamp, kernels_digest())
        return stamp

    get_source_stamp._pokerlab = True  # type: ignore[attr-defined]
    mixin.get_source_stamp = get_source_stamp
    _INSTALLED = True


_install()
