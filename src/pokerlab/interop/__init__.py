"""Optional bridges to other tools (OpenSpiel)."""
