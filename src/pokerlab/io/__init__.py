"""Files: strategies and solver checkpoints (versioned, atomic, checksummed)."""

from pokerlab.io.files import (
    FILE_FORMAT_VERSION,
    load_checkpoint,
    load_strategy,
    read_metadata,
    save_checkpoint,
    save_strategy,
)

__all__ = [
    "FILE_FORMAT_VERSION",
    "load_checkpoint",
    "load_strategy",
    "read_metadata",
    "save_checkpoint",
    "save_strategy",
]
