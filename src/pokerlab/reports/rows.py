"""A report's files: ``report.json`` (the rows, the plan, the settings; checksummed) and
``report.csv`` (one line per finished flop, then the weighted overall line).

Both are rewritten atomically (:func:`pokerlab.io.files.atomic_write_bytes`) after every
finished row, JSON first: it is the report's record, the CSV is derived from it. A kill between
the two writes leaves a CSV one row behind, which ``--resume`` accepts and rewrites; anything
else that does not match (a bad checksum, a row that is not the JSON's, unreadable text) is
refused by the file's name.

Row layout (JSON; the CSV flattens it): ``board``, ``weight``, the texture columns
(:mod:`pokerlab.reports.texture`), ``pot``, ``ev``/``equity``/``eqr`` per player (``oop``,
``ip``), ``actions`` (``root``: the first player's action frequencies at the root per action
label, e.g. ``"bet 50"``; ``ip_vs_check``: the in-position player's after a check) and
``groups`` (the same grouped as ``check``, ``small`` (a bet under
:data:`SMALL_BET` of the pot), ``large`` and ``allin``), ``exploitability`` (chips),
``exploitability_pct``, ``target_reached``, ``iterations``, ``seconds`` (solving) and
``wall_seconds`` (the whole flop: tree, solve, reading).
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pokerlab.errors import PokerlabError
from pokerlab.io.files import atomic_write_bytes
from pokerlab.reports.texture import TEXTURE_KEYS

__all__ = [
    "REPORT_FORMAT",
    "REPORT_VERSION",
    "SMALL_BET",
    "GROUPS",
    "SIDES",
    "group_actions",
    "overall_row",
    "csv_text",
    "read_report",
    "ReportFiles",
]

REPORT_FORMAT = "pokerlab-report"
REPORT_VERSION = 1
#: A bet below this share of the pot counts as ``small``, from it on as ``large`` (all-ins
#: are ``allin`` whatever their size).
SMALL_BET = 0.6
#: Grouped action columns, in order.
GROUPS = ("check", "small", "large", "allin")
#: Whose frequencies a row holds: the first player at the root, the in-position player after
#: a check.
SIDES = ("root", "ip_vs_check")
PLAYERS = ("oop", "ip")
#: Numbers averaged by weight in the overall row (``seconds`` and ``wall_seconds`` are summed).
_MEAN_KEYS = ("pot", "exploitability", "exploitability_pct", "iterations")


def group_actions(actions: Mapping[str, float], pot: float) -> dict[str, float]:
    """Action frequencies grouped into :data:`GROUPS`: a label ``"check"`` counts as check,
    ``"bet N"`` as small when N < SMALL_BET x ``pot`` else large, ``"allin N"`` as allin."""
    out = dict.fromkeys(GROUPS, 0.0)
    for label, freq in actions.items():
        kind, _, amount = label.partition(" ")
        if kind == "check":
            out["check"] += freq
        elif kind == "allin":
            out["allin"] += freq
        elif kind in ("bet", "raise"):
            out["small" if float(amount) < SMALL_BET * pot else "large"] += freq
        else:  # no other action opens a street
            raise PokerlabError(f"unexpected action {label!r} at the start of a street")
    return out


def _mean(rows: Sequence[Mapping[str, Any]], weights: Sequence[float], get: Any) -> float | None:
    """Weighted mean of ``get(row)`` over the rows where it is a finite number."""
    num = den = 0.0
    for row, w in zip(rows, weights, strict=True):
        value = get(row)
        if isinstance(value, int | float) and math.isfinite(value):
            num += w * value
            den += w
    return num / den if den > 0 else None


def overall_row(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """The weighted overall row of ``rows``: weights summed; EV, equity, action frequencies,
    pot, exploitability and iterations averaged with the rows' weights; EQR of the averages
    (EV / (equity x pot)); seconds summed. None for no rows."""
    if not rows:
        return None
    weights = [float(r["weight"]) for r in rows]
    out: dict[str, Any] = {"board": "overall", "weight": sum(weights)}
    out.update(dict.fromkeys(TEXTURE_KEYS, ""))
    for key in _MEAN_KEYS:
        out[key] = _mean(rows, weights, lambda r, k=key: r[k])
    for key in ("ev", "equity"):
        out[key] = {p: _mean(rows, weights, lambda r, k=key, q=p: r[k][q]) for p in PLAYERS}
    out["eqr"] = {}
    for p in PLAYERS:
        ev, eq, pot = out["ev"][p], out["equity"][p], out["pot"]
        out["eqr"][p] = ev / (eq * pot) if ev is not None and eq and pot else None
    for part in ("actions", "groups"):
        out[part] = {}
        for side in SIDES:
            labels: list[str] = []
            for r in rows:
                labels += [a for a in r[part][side] if a not in labels]
            out[part][side] = {
                a: _mean(rows, weights, lambda r, s=side, x=a, q=part: r[q][s].get(x, 0.0))
                for a in labels
            }
    out["target_reached"] = all(bool(r["target_reached"]) for r in rows)
    for key in ("seconds", "wall_seconds"):
        out[key] = sum(float(r[key]) for r in rows)
    return out


def _columns(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    cols = ["board", "weight", *TEXTURE_KEYS, "pot"]
    for key in ("ev", "equity", "eqr"):
        cols += [f"{key} {p}" for p in PLAYERS]
    for side in SIDES:
        who = "oop" if side == "root" else "ip vs check"
        labels: list[str] = []
        for r in rows:
            labels += [a for a in r["actions"][side] if a not in labels]
        cols += [f"{who}: {a}" for a in labels]
        cols += [f"{who}: [{g}]" for g in GROUPS]
    cols += ["exploitability", "exploitability_pct", "target_reached", "iterations"]
    return [*cols, "seconds", "wall_seconds"]


def _flat(row: Mapping[str, Any]) -> dict[str, Any]:
    out = {k: row[k] for k in ("board", "weight", *TEXTURE_KEYS, "pot")}
    for key in ("ev", "equity", "eqr"):
        out.update({f"{key} {p}": row[key][p] for p in PLAYERS})
    for side in SIDES:
        who = "oop" if side == "root" else "ip vs check"
        out.update({f"{who}: {a}": v for a, v in row["actions"][side].items()})
        out.update({f"{who}: [{g}]": v for g, v in row["groups"][side].items()})
    for key in ("exploitability", "exploitability_pct", "target_reached", "iterations"):
        out[key] = row[key]
    out["seconds"], out["wall_seconds"] = row["seconds"], row["wall_seconds"]
    return out


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else ""
    return str(value)


def csv_text(rows: Sequence[Mapping[str, Any]]) -> str:
    """The CSV of ``rows`` (in order) and, last, their overall row (:func:`overall_row`)."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    cols = _columns(rows)
    writer.writerow(cols)
    overall = overall_row(rows)
    for row in [*rows, *([overall] if overall is not None else [])]:
        flat = _flat(row)
        writer.writerow([_cell(flat.get(c, 0.0 if ":" in c else None)) for c in cols])
    return buf.getvalue()


def _clean(value: Any) -> Any:
    """JSON-safe copy: NaN and infinities become None (JSON has no NaN)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, Mapping):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    return value


def _digest(body: Mapping[str, Any]) -> str:
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(text.encode()).hexdigest()


class ReportFiles:
    """The files of one report folder: ``report.json`` and ``report.csv``.

    ``header`` is what identifies the report (kind, flop set, template, settings, plan): a
    resumed report must have been made with the same header.
    """

    JSON = "report.json"
    CSV = "report.csv"

    def __init__(self, folder: str | os.PathLike[str], header: Mapping[str, Any]) -> None:
        self.folder = Path(folder)
        self.header = _clean(dict(header))
        self.rows: dict[str, dict[str, Any]] = {}

    @property
    def json_path(self) -> Path:
        """``FOLDER/report.json``."""
        return self.folder / self.JSON

    @property
    def csv_path(self) -> Path:
        """``FOLDER/report.csv``."""
        return self.folder / self.CSV

    def ordered_rows(self) -> list[dict[str, Any]]:
        """The finished rows in plan order."""
        return [self.rows[p["board"]] for p in self.header["plan"] if p["board"] in self.rows]

    def document(self) -> dict[str, Any]:
        """The JSON document as written (without its checksum)."""
        rows = self.ordered_rows()
        return {
            "format": REPORT_FORMAT,
            "version": REPORT_VERSION,
            **self.header,
            "complete": len(rows) == len(self.header["plan"]),
            "rows": rows,
            "overall": _clean(overall_row(rows)),
        }

    def add(self, row: Mapping[str, Any]) -> None:
        """Record a finished row and rewrite both files (JSON first)."""
        self.rows[str(row["board"])] = _clean(dict(row))
        self.write()

    def write(self) -> None:
        """Write ``report.json`` then ``report.csv``, each atomically."""
        body = self.document()
        body["sha256"] = _digest(body)
        text = json.dumps(body, indent=1, allow_nan=False) + "\n"
        atomic_write_bytes(self.json_path, text.encode())
        atomic_write_bytes(self.csv_path, csv_text(self.ordered_rows()).encode())

    def exists(self) -> bool:
        """True when the folder holds a report file already."""
        return self.json_path.exists() or self.csv_path.exists()

    def load(self) -> None:
        """Read the rows of an earlier run of this report (``--resume``), after checking both
        files: a damaged or altered file is refused by name, and so is a report made with
        another template, flop set or settings."""
        path = self.json_path
        if not path.exists():
            raise PokerlabError(f"--resume: no report in {self.folder} ({path} is missing)")
        body = read_report(path)
        for key, value in self.header.items():
            old = body.get(key)
            if old != value:
                if isinstance(old, dict) and isinstance(value, dict):  # name what differs
                    keys = sorted(
                        k for k in old.keys() | value.keys() if old.get(k) != value.get(k)
                    )
                    old, value = {k: old.get(k) for k in keys}, {k: value.get(k) for k in keys}
                raise PokerlabError(
                    f"--resume: {path} was made with "
                    f"{'other' if key.endswith('s') else 'another'} {key} (in the file: "
                    f"{_short(old)}; now: {_short(value)}); use another --out"
                )
        plan = {p["board"] for p in self.header["plan"]}
        rows = body.get("rows")
        if not isinstance(rows, list) or any(
            not isinstance(r, dict) or r.get("board") not in plan for r in rows
        ):
            raise PokerlabError(f"{path} is damaged: a row is not a flop of the report")
        self.rows = {r["board"]: r for r in rows}
        self._check_csv(len(rows))

    def _check_csv(self, n_rows: int) -> None:
        path = self.csv_path
        try:
            lines = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"))))
        except FileNotFoundError:
            return  # killed before the first CSV write: written again from the JSON
        except (OSError, UnicodeDecodeError, csv.Error) as exc:
            raise PokerlabError(f"{path} is damaged ({exc})") from None
        rows = self.ordered_rows()
        expected = list(csv.reader(io.StringIO(csv_text(rows))))
        got = lines[1:-1] if len(lines) > 1 else []
        want = {r[0]: r for r in expected[1:-1]}
        behind = len(got) in (n_rows, n_rows - 1)  # the kill may fall between the two writes
        same = all(r and r[0] in want and _same(r, want[r[0]], lines[0], expected[0]) for r in got)
        if not (behind and same and lines and lines[0][:4] == expected[0][:4]):
            raise PokerlabError(
                f"{path} is damaged or was edited: its rows do not match {self.json_path.name}"
            )


def read_report(path: str | os.PathLike[str]) -> dict[str, Any]:
    """A ``report.json`` checked whole (format, version, sha256); refused by name when it is
    damaged or edited."""
    path = Path(path)
    try:
        body = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise PokerlabError(f"{path} is damaged ({type(exc).__name__}: {exc})") from None
    if not isinstance(body, dict) or body.get("format") != REPORT_FORMAT:
        raise PokerlabError(f"{path} is not a pokerlab report")
    if body.get("version") != REPORT_VERSION:
        raise PokerlabError(f"{path}: report version {body.get('version')!r} is not 1")
    digest = body.pop("sha256", None)
    if digest != _digest(body):
        raise PokerlabError(f"{path} is damaged or was edited: its sha256 does not match")
    return body


def _same(row: list[str], want: list[str], cols: list[str], want_cols: list[str]) -> bool:
    """A CSV row against the expected one, column by name (a row written one flop earlier may
    lack action columns that a later flop added)."""
    have = dict(zip(cols, row, strict=False))
    expect = dict(zip(want_cols, want, strict=False))
    return all(have.get(c, expect[c]) == expect[c] for c in cols if c in expect)


def _short(value: Any) -> str:
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= 80 else text[:77] + "..."


def plan_entries(flops: Iterable[Any]) -> list[dict[str, Any]]:
    """The plan stored in the header: one ``{"board", "weight"}`` per row to solve."""
    return [{"board": f.text, "weight": f.weight} for f in flops]
