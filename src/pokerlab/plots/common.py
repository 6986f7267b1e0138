"""Shared plotting helpers: the Agg backend and atomic PNG writes."""

from __future__ import annotations

import io
import os
from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

from pokerlab.io.atomic import atomic_write_bytes  # noqa: E402

__all__ = ["plt", "save_png"]


def save_png(fig: Any, path: str | os.PathLike[str], dpi: int = 120) -> None:
    """Render ``fig`` to PNG and write it atomically; closes the figure."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight")
    plt.close(fig)
    atomic_write_bytes(path, buf.getvalue())
