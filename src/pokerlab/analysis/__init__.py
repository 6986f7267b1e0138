"""Analyses built on the engine: push/fold equilibria, charts, strategy specs."""
