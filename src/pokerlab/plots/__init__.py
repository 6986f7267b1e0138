"""Pictures (matplotlib, written as PNG atomically)."""
