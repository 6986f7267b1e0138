"""Blueprint checkpoints trained through the command line, for the tests that drive the CLI."""

from __future__ import annotations

from pathlib import Path

from pokerlab.cli.main import main


def train_checkpoint(folder: Path, config: str, iterations: int) -> Path:
    """``pokerlab blueprint train`` on the TOML game ``config`` with lossless buckets for
    ``iterations`` iterations; the checkpoint's path in ``folder``."""
    path = folder / "bp.npz"
    (folder / "game.toml").write_text(config)
    args = ["blueprint", "train", str(folder / "game.toml"), "--bucketing", "lossless"]
    assert main([*args, "-n", str(iterations), "--checkpoint", str(path), "--json"]) == 0
    return path
