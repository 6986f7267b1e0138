"""What this machine has: the memory a new allocation can get now (the size checks before a
large tree or file is made)."""

from __future__ import annotations

import os

__all__ = ["memory_available", "memory_available_or_physical"]


def memory_available() -> int | None:
    """``MemAvailable`` of ``/proc/meminfo`` in bytes (Linux), else None."""
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def memory_available_or_physical() -> int | None:
    """:func:`memory_available`, else the physical memory (``os.sysconf``); None when unknown."""
    available = memory_available()
    if available is not None:
        return available
    try:
        return int(os.sysconf("SC_PHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (OSError, ValueError, AttributeError):
        return None
