"""Cards, ranges, hand evaluation, equity and preflop tables."""
