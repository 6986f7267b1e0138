"""Checks on file names a user types before anything is read from them.

``os.stat`` on a name longer than the file system allows raises ``OSError`` (``ENAMETOOLONG``)
instead of answering "no such file", and a directory given where a file is expected used to be
reported as missing. :func:`check_input_file` refuses each case with a
:class:`~pokerlab.errors.PokerlabError` that says which one it is.
"""

from __future__ import annotations

import os
from pathlib import Path

from pokerlab.errors import PokerlabError

__all__ = ["NAME_MAX", "PATH_MAX", "name_too_long", "check_input_file", "is_file"]

#: The longest single file or folder name most file systems accept (bytes; POSIX NAME_MAX).
NAME_MAX = 255
#: The longest path Linux accepts (bytes; POSIX PATH_MAX).
PATH_MAX = 4096


def name_too_long(path: str | os.PathLike[str]) -> bool:
    """True when some part of ``path`` is longer than :data:`NAME_MAX` bytes or the whole path
    longer than :data:`PATH_MAX` (no file system call)."""
    raw = os.fsencode(path)
    return len(raw) >= PATH_MAX or any(len(part) > NAME_MAX for part in raw.split(b"/"))


def _shown(path: str | os.PathLike[str]) -> str:
    text = os.fspath(path)
    return repr(text) if len(text) <= 60 else repr(text[:40] + "...")


def is_file(path: str | os.PathLike[str]) -> bool:
    """``Path(path).is_file()`` that answers False instead of raising for names the file system
    cannot hold (too long, embedded NUL) or cannot look at (permissions)."""
    if name_too_long(path):
        return False
    try:
        return Path(path).is_file()
    except (OSError, ValueError):
        return False


def check_input_file(path: str | os.PathLike[str], what: str = "file") -> Path:
    """Check that ``path`` names an existing, readable regular file; return it as a ``Path``.

    Refused with :class:`~pokerlab.errors.PokerlabError` naming ``what`` and the path: a name
    longer than the file system allows, a missing file, a directory, something that is not a
    regular file, a file that cannot be read.
    """
    shown = _shown(path)
    if name_too_long(path):
        raise PokerlabError(
            f"{what} {shown}: name too long (at most {NAME_MAX} bytes per part, {PATH_MAX} in all)"
        )
    p = Path(path)
    try:
        p.stat()
    except FileNotFoundError:
        raise PokerlabError(f"no such file: {shown} (the {what})") from None
    except NotADirectoryError:
        raise PokerlabError(
            f"no such file: {shown} (the {what}; a part of its path is a file)"
        ) from None
    except (OSError, ValueError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        raise PokerlabError(f"cannot read {what} {shown}: {reason}") from None
    if p.is_dir():
        raise PokerlabError(f"{shown} is a directory, not a {what}")
    if not p.is_file():
        raise PokerlabError(f"{what} {shown} is not a regular file")
    if not os.access(p, os.R_OK):
        raise PokerlabError(f"{what} {shown} is not readable (permission denied)")
    return p
