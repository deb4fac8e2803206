"""Tile reading: photo -> detections (typed boxes) -> tile codes -> layout -> RULES.md hand."""
