"""Flat game trees: the public tree of poker games and the history tree of any game."""
