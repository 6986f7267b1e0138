"""The viewer's files: paths confined to the served folder, discovery and one-line summaries.

Every path the browser sends is relative to the served folder (``root``) and goes through
:func:`resolve_inside`, which refuses absolute paths, ``..`` components, percent-encoded variants
of either, NUL bytes, backslashes and anything whose real path (symbolic links followed) is
outside ``root``. :func:`scan` lists the files pokerlab writes under ``root`` (strategies,
checkpoints, solved postflop spots, push/fold results, ``--log`` files, ``compare --json``
output) with their game, algorithm, iterations and exploitability; a file that cannot be read
is listed with its error instead of stopping the listing.
"""

from __future__ import annotations

import json
import os
import stat
import threading
from dataclasses import asdict, dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import unquote

from pokerlab.errors import PokerlabError

__all__ = [
    "PathRefused",
    "FileMissing",
    "FileEntry",
    "resolve_inside",
    "scan",
    "summarize",
    "MAX_FILES",
    "MAX_DEPTH",
]

#: Most files one listing returns (a folder with more lists the first ones, sorted by path).
MAX_FILES = 2000
#: Deepest sub-folder level that is listed (``root`` itself is level 0).
MAX_DEPTH = 4
#: Largest JSON or JSON-lines file the viewer reads (bytes).
MAX_TEXT_BYTES = 64 * 1024 * 1024
#: Suffixes the listing looks at.
SUFFIXES = (".npz", ".json", ".jsonl", ".log")


class PathRefused(PokerlabError):
    """A path that points outside the served folder (or could be made to): HTTP 403."""


class FileMissing(PokerlabError):
    """A path inside the served folder with no file there: HTTP 404."""


def _has_traversal(text: str) -> str | None:
    """Why ``text`` is refused as a relative path, or None when it is acceptable."""
    if "\x00" in text:
        return "NUL byte in the path"
    if "\\" in text:
        return "backslash in the path"
    if text.startswith(("/", "~")) or (len(text) > 1 and text[1] == ":"):
        return "absolute path"
    parts = PurePosixPath(text).parts
    if any(p == ".." for p in parts):
        return "'..' in the path"
    return None


def resolve_inside(root: Path, rel: str) -> Path:
    """The real path of ``rel`` inside ``root``, or :class:`PathRefused` / :class:`FileMissing`.

    ``rel`` is checked as given and after each of up to three rounds of percent-decoding, so
    ``%2e%2e/x``, ``%252e%252e/x`` and ``%2Fetc`` are refused like ``../x`` and ``/etc``. The
    resolved path must lie inside ``root``'s real path (a symbolic link out of it is refused) and
    be a regular file.
    """
    if not isinstance(rel, str) or not rel.strip():
        raise PathRefused("empty path")
    text = rel
    for _ in range(4):
        why = _has_traversal(text)
        if why is not None:
            raise PathRefused(f"path refused ({why}): only files inside the served folder")
        decoded = unquote(text)
        if decoded == text:
            break
        text = decoded
    base = root.resolve()
    candidate = base / rel
    try:
        real = candidate.resolve(strict=False)
    except (OSError, RuntimeError) as exc:  # a symlink loop
        raise PathRefused(f"path refused ({exc.__class__.__name__})") from None
    if not real.is_relative_to(base):
        raise PathRefused("path refused (it leads outside the served folder)")
    try:
        if not real.is_file():
            raise FileMissing(f"no such file: {rel!r}")
    except OSError:
        raise FileMissing(f"no such file: {rel!r}") from None
    return real


@dataclass
class FileEntry:
    """One row of the file list (``kind`` says which view opens it)."""

    path: str  # relative to the served folder, '/'-separated
    kind: str  # table, limit, pushfold, pushfold-result, pushfold-sweep, postflop, blueprint,
    # log, compare, error
    size: int
    mtime: float
    game: str | None = None
    algorithm: str | None = None
    iterations: int | None = None
    exploitability: float | None = None
    unit: str | None = None  # what exploitability is measured in
    format: str | None = None  # strategy, checkpoint, solution, result, log, compare
    error: str | None = None
    details: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


_cache: dict[tuple[str, int, int], FileEntry] = {}
_cache_lock = threading.Lock()


def _unit(game: str | None) -> str:
    if game == "pushfold":
        return "bb/hand"
    if game == "limit-holdem":
        return "mbb/g"
    return "chips"


def _summarize_npz(path: Path, entry: FileEntry) -> None:
    from pokerlab.io.files import read_metadata

    meta = read_metadata(path)
    game = meta.get("game")
    entry.game = game if isinstance(game, str) else None
    entry.algorithm = meta.get("algorithm")
    entry.iterations = meta.get("iterations")
    expl = meta.get("exploitability")
    entry.exploitability = float(expl) if isinstance(expl, int | float) else None
    entry.unit = _unit(entry.game)
    params = meta.get("game_params")
    entry.details = {"game_params": params if isinstance(params, dict) else {}}
    # a saved limit hold'em strategy (a training checkpoint names its representation too)
    bucketed = (
        meta.get("representation") == "bucketed" and meta.get("format") == "pokerlab-strategy"
    )
    state_format = meta.get("state_format")
    checkpoint = str(state_format or "").startswith("limit-") or (
        state_format is not None and meta.get("representation") == "bucketed"
    )
    if game == "nolimit-holdem" and meta.get("algorithm") == "es-mccfr":
        # pokerlab blueprint train --checkpoint (also bucketed: tested before the limit files)
        config = meta.get("config")
        config = config if isinstance(config, dict) else {}
        entry.kind = "blueprint"
        entry.format = "checkpoint"
        entry.details["bucketing"] = config.get("bucketing")
        entry.details["buckets"] = config.get("buckets")
    elif checkpoint or bucketed:  # train limit-holdem (its identity flat or in the config)
        config = meta.get("config")
        run = {**config, **meta} if isinstance(config, dict) else meta  # flat fields win
        entry.format = "strategy" if bucketed else "checkpoint"
        entry.kind = "limit"
        entry.algorithm = meta.get("algorithm") if bucketed else run.get("schedule")
        entry.unit = "mbb/g"
        fields = meta.get("betting") if bucketed else run
        fields = fields if isinstance(fields, dict) else {}
        entry.details = {
            "game_params": entry.details["game_params"]
            if bucketed
            else {"variant": meta.get("variant")},
            "buckets": fields.get("buckets"),
            "recall": fields.get("recall"),
            "sampling": meta.get("sampling"),
        }
    elif meta.get("format") == "pokerlab-strategy":
        entry.format = "strategy"
        entry.kind = "pushfold" if game == "pushfold" else "table"
    elif meta.get("kind") == "postflop-solution" or game == "postflop":
        entry.format = "solution"
        entry.kind = "postflop"
        entry.unit = "chips"
        if isinstance(params, dict):
            entry.details["board"] = params.get("board")
            entry.details["pot"] = params.get("pot")
            entry.details["stack"] = params.get("stack")
        if "locks" in meta:
            entry.details["locks"] = meta.get("locks")
    else:
        entry.format = "checkpoint"
        entry.kind = "pushfold" if game == "pushfold" else "table"


def _read_text(path: Path) -> str:
    size = path.stat().st_size
    if size > MAX_TEXT_BYTES:
        raise PokerlabError(f"{path.name} is larger than {MAX_TEXT_BYTES // 2**20} MiB")
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise PokerlabError(f"{path.name} is not UTF-8 text") from None


def read_log(path: Path) -> list[dict[str, Any]]:
    """The JSON objects of a ``--log`` file (one per line; blank lines skipped).

    ``pokerlab train limit-holdem --log`` lines (``iterations``, ``exploitability_abstract_mbb``)
    are read as ``iteration`` and ``exploitability`` (mbb/g). A line that is not a JSON object
    with an ``iteration`` raises :class:`PokerlabError` naming
    the line, except a last line cut short (a run still writing), which is left out.
    """
    lines = _read_text(path).splitlines()
    rows: list[dict[str, Any]] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            if number == len(lines):
                break
            raise PokerlabError(f"{path.name} line {number} is not JSON") from None
        if isinstance(obj, dict) and "iteration" not in obj and "iterations" in obj:
            # pokerlab train limit-holdem --log: iterations in all, exploitability in mbb/g
            obj = {**obj, "iteration": obj["iterations"]}
            if "exploitability" not in obj and "exploitability_abstract_mbb" in obj:
                obj["exploitability"] = obj["exploitability_abstract_mbb"]
        if not isinstance(obj, dict) or "iteration" not in obj:
            raise PokerlabError(f"{path.name} line {number} is not a pokerlab log line")
        rows.append(obj)
    return rows


def read_json(path: Path) -> Any:
    """A JSON file's value; errors name the file and the line."""
    try:
        return json.loads(_read_text(path))
    except ValueError as exc:
        raise PokerlabError(f"{path.name} is not valid JSON ({exc})") from None


def json_kind(obj: Any) -> str | None:
    """Which pokerlab JSON output ``obj`` is: ``compare``, ``pushfold-result``, ``pushfold-sweep``
    (None for anything else)."""
    if not isinstance(obj, dict):
        return None
    if isinstance(obj.get("curves"), list):
        return "compare"
    if isinstance(obj.get("sb_shove"), dict) and isinstance(obj.get("bb_call"), dict):
        return "pushfold-result"
    if isinstance(obj.get("sb_shove_max_bb"), dict) and isinstance(obj.get("bb_call_max_bb"), dict):
        return "pushfold-sweep"
    return None


def _summarize_text(path: Path, entry: FileEntry) -> bool:
    """Fill ``entry`` for a JSON or JSON-lines file; False when it is not a pokerlab file."""
    if path.suffix in (".jsonl", ".log"):
        try:
            rows = read_log(path)
        except PokerlabError:
            if path.suffix == ".log":
                return False
            raise
        entry.kind = "log"
        entry.format = "log"
        if rows:
            last = rows[-1]
            entry.game = last.get("game")
            entry.algorithm = last.get("algorithm")
            entry.iterations = last.get("iteration")
            expl = [r.get("exploitability") for r in rows if r.get("exploitability") is not None]
            entry.exploitability = float(expl[-1]) if expl else None
            entry.unit = _unit(entry.game)
        entry.details = {"points": len(rows)}
        return True
    obj = read_json(path)
    kind = json_kind(obj)
    if kind is None:
        return False
    entry.kind = kind
    entry.format = "compare" if kind == "compare" else "result"
    if kind == "compare":
        entry.game = obj.get("game")
        curves = [c for c in obj["curves"] if isinstance(c, dict)]
        entry.algorithm = ", ".join(str(c.get("algorithm")) for c in curves)
        finals = [c.get("exploitability", [None])[-1] for c in curves if c.get("exploitability")]
        finals = [float(x) for x in finals if isinstance(x, int | float)]
        entry.exploitability = min(finals) if finals else None
        entry.unit = _unit(entry.game)
        entry.details = {"curves": len(curves)}
    else:
        entry.game = "pushfold"
        entry.unit = "bb/hand"
        entry.algorithm = "dcfr (class reduction)"
        if kind == "pushfold-result":
            entry.iterations = obj.get("iterations")
            expl = obj.get("exploitability_bb")
            entry.exploitability = float(expl) if isinstance(expl, int | float) else None
            entry.details = {"stack_bb": obj.get("stack_bb"), "ante_bb": obj.get("ante_bb")}
        else:
            stacks = obj.get("stacks") or []
            entry.details = {"stacks": len(stacks), "ante_bb": obj.get("ante_bb")}
            expl = [s.get("exploitability_bb") for s in stacks if isinstance(s, dict)]
            expl = [float(x) for x in expl if isinstance(x, int | float)]
            entry.exploitability = max(expl) if expl else None
    return True


def summarize(root: Path, rel: str) -> FileEntry | None:
    """The file-list row of ``rel`` (None for a file that is not pokerlab's).

    Cached by path, modification time and size; an unreadable or corrupt file gives a row of
    kind ``error`` with the reason.
    """
    real = resolve_inside(root, rel)
    st = real.stat()
    if not stat.S_ISREG(st.st_mode):  # a FIFO or a device: reading it could block forever
        return None
    key = (str(real), st.st_mtime_ns, st.st_size)
    with _cache_lock:
        hit = _cache.get(key)
    if hit is not None:
        return FileEntry(**{**asdict(hit), "path": rel})
    entry = FileEntry(path=rel, kind="error", size=st.st_size, mtime=st.st_mtime)
    try:
        if real.suffix == ".npz":
            _summarize_npz(real, entry)
        elif not _summarize_text(real, entry):
            return None
    except PokerlabError as exc:
        entry.kind = "error"
        entry.error = str(exc).replace(str(real), rel)
    except Exception as exc:  # noqa: BLE001  any damage is an error row, never a crash
        entry.kind = "error"
        entry.error = f"cannot read {rel}: {type(exc).__name__}: {exc}"
    with _cache_lock:
        if len(_cache) > 4 * MAX_FILES:
            _cache.clear()
        _cache[key] = entry
    return entry


def scan(root: Path) -> list[FileEntry]:
    """Every pokerlab file under ``root`` (sub-folders to :data:`MAX_DEPTH`, hidden names and
    links out of ``root`` skipped), sorted by path, at most :data:`MAX_FILES`."""
    base = root.resolve()
    found: list[str] = []
    for folder, dirs, files in os.walk(base, followlinks=False):
        rel_folder = Path(folder).relative_to(base)
        depth = len(rel_folder.parts)
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and depth < MAX_DEPTH)
        for name in sorted(files):
            if name.startswith(".") or not name.endswith(SUFFIXES):
                continue
            found.append((rel_folder / name).as_posix())
            if len(found) >= MAX_FILES:
                break
        if len(found) >= MAX_FILES:
            break
    entries = []
    for rel in sorted(found):
        try:
            entry = summarize(base, rel)
        except (PathRefused, FileMissing):
            continue  # a link out of the folder, or a file removed meanwhile
        if entry is not None:
            entries.append(entry)
    return entries
