"""Checks on file names a user types before anything is read from them.

``os.stat`` on a name longer than the file system allows raises ``OSError`` (``ENAMETOOLONG``)
instead of answering "no such file", and a directory given where a file is expected used to be
reported as missing. :func:`check_input_file` refuses each case with a
:class:`~pokerlab.errors.PokerlabError` that says which one it is.

Output paths are checked before any work starts (:func:`check_output_file`,
:func:`check_output_folder`): nothing is computed for minutes only to fail on the write, and the
temporary files that a killed atomic write left behind are removed then
(:func:`remove_stale_temporaries`).
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Iterable
from pathlib import Path

from pokerlab.errors import PokerlabError

__all__ = [
    "NAME_MAX",
    "PATH_MAX",
    "check_input_file",
    "check_output_file",
    "check_output_folder",
    "is_file",
    "name_too_long",
    "remove_stale_temporaries",
]

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


# pokerlab.io.files.atomic_write_bytes writes ".<name>.<8 random characters>.tmp" next to the
# target (tempfile.mkstemp) and renames it; a kill between the two leaves that file behind.
_TEMPORARY = re.compile(r"^\.(?P<target>.+)\.[A-Za-z0-9_]{8}\.tmp$")


def remove_stale_temporaries(
    folder: str | os.PathLike[str], targets: Iterable[str] | None = None
) -> list[Path]:
    """Delete the temporary files that an interrupted atomic write left in ``folder`` for the file
    names ``targets`` (shell patterns such as ``"best_strategy*"``; every target when None);
    return the paths removed. Call it before a run writes there: a running writer of the same
    target would lose its temporary file."""
    base = Path(folder)
    wanted = None if targets is None else list(targets)
    removed: list[Path] = []
    try:
        entries = list(base.iterdir())
    except OSError:
        return removed
    for entry in entries:
        match = _TEMPORARY.match(entry.name)
        if match is None:
            continue
        if wanted is not None and not any(fnmatch.fnmatchcase(match["target"], w) for w in wanted):
            continue
        try:
            if entry.is_file():
                entry.unlink()
                removed.append(entry)
        except OSError:
            pass
    return removed


def _check_folder_chain(folder: Path, option: str, target: Path) -> None:
    """The nearest existing ancestor of ``folder`` (itself included) must be a writable folder."""
    for candidate in (folder, *folder.parents):
        if candidate.exists():
            if not candidate.is_dir():
                raise PokerlabError(
                    f"{option} {str(target)!r}: {str(candidate)!r} is a file, not a folder"
                )
            if not os.access(candidate, os.W_OK | os.X_OK):
                raise PokerlabError(
                    f"{option} {str(target)!r}: folder {str(candidate)!r} is not writable"
                )
            return
        if candidate.is_symlink():  # a dangling link: mkdir would fail
            raise PokerlabError(f"{option} {str(target)!r}: {str(candidate)!r} is a broken link")


def check_output_file(path: str | os.PathLike[str], option: str = "--out") -> Path:
    """Check, before any work, that a file can be written at ``path``; clean stale temporaries.

    Refused with :class:`~pokerlab.errors.PokerlabError` naming ``option`` and the path: an
    existing directory as the target, a file where a parent folder should be, a folder that is not
    writable, a file name longer than 255 bytes, a parent folder that does not exist (nothing
    creates folders behind the user's back: a typo in a path is an error). Returns the path.
    """
    target = Path(path)
    if not target.name or target.name in (".", ".."):
        raise PokerlabError(f"{option} {str(target)!r} names a folder, not a file")
    if len(os.fsencode(target.name)) > NAME_MAX:
        raise PokerlabError(
            f"{option}: file name {target.name[:40]!r}... is longer than {NAME_MAX} bytes"
        )
    if target.is_dir():
        raise PokerlabError(f"{option} {str(target)!r} is a directory; give a file name")
    folder = target.parent if str(target.parent) else Path(".")
    _check_folder_chain(folder, option, target)
    _check_exists(folder, option, target)
    remove_stale_temporaries(folder, [target.name])
    return target


def check_new_checkpoint(
    path: str | os.PathLike[str],
    option: str = "--checkpoint",
    continue_with: str | None = None,
) -> Path:
    """:func:`check_output_file`, and refuse a file that already exists at ``path``: a
    checkpoint holds hours of work, and a run that is not resuming it would write over it.
    ``continue_with`` names the flags that would continue it (default ``--resume PATH``).
    Returns the path."""
    target = check_output_file(path, option)
    if target.exists():
        how = continue_with or f"--resume {str(target)}"
        raise PokerlabError(
            f"{option} {str(target)!r} already exists: continue it with {how}, or choose "
            "another file (delete it first to start over)"
        )
    return target


def same_file(a: str | os.PathLike[str], b: str | os.PathLike[str] | None) -> bool:
    """Whether ``a`` and ``b`` name one file (after resolving links and ``..``); False when
    ``b`` is None."""
    if b is None:
        return False
    return Path(a).resolve() == Path(b).resolve()


def unused_path(path: str | os.PathLike[str]) -> Path:
    """``path`` where no file is there, else the first of ``NAME-2.SUFFIXES``,
    ``NAME-3.SUFFIXES``, ... that is free (for files written under a default name, such as the
    checkpoint of an interrupted run, so that an earlier one is kept)."""
    target = Path(path)
    if not target.exists():
        return target
    suffixes = "".join(target.suffixes)
    stem = target.name[: len(target.name) - len(suffixes)] if suffixes else target.name
    k = 2
    while (candidate := target.with_name(f"{stem}-{k}{suffixes}")).exists():
        k += 1
    return candidate


def _check_exists(folder: Path, option: str, target: Path) -> None:
    """Refuse a missing ``folder`` (after :func:`_check_folder_chain` named worse problems)."""
    if not folder.is_dir():
        raise PokerlabError(
            f"{option} {str(target)!r}: folder {str(folder)!r} does not exist (create it first)"
        )


def check_output_folder(
    path: str | os.PathLike[str], option: str = "--out", targets: Iterable[str] | None = None
) -> Path:
    """Check, before any work, that ``path`` is or can become a writable folder (it may be
    created, its parent must exist); remove stale temporaries of the file names ``targets``
    (shell patterns) in it (all when None). Returns the path."""
    folder = Path(path)
    if folder.exists() and not folder.is_dir():
        raise PokerlabError(f"{option} {str(folder)!r} is a file, not a folder")
    for part in folder.parts:
        if len(os.fsencode(part)) > NAME_MAX:
            raise PokerlabError(f"{option}: name {part[:40]!r}... is longer than {NAME_MAX} bytes")
    _check_folder_chain(folder, option, folder)
    if folder.is_dir():
        remove_stale_temporaries(folder, targets)
    else:
        _check_exists(folder.parent if str(folder.parent) else Path("."), option, folder)
    return folder
