"""The tile set apart past a row's right end that the finder missed, found by its colour.

Why: the winning tile lies set apart at the right of the hand's row. Blurred by a moving hand or in dim light, a
plain face (the blank white dragon: an ivory tile and nothing on it) gives the finder nothing to box, so the
winning tile is lost and the hand is a tile short (issue 39, held-out motion15 hand 24). Where no box lies past a
row's right end, a patch there that has the row's tiles' colour (not the table's), a tile's width and the row's
height, with the table on both sides of it, is that tile: it is boxed like the row's tiles, and the classifier
names it like any other (its doubt, and the rules' correction, apply as usual). Only the right end is looked at:
that is where the winning tile is set apart; anything else lying beside a row is the finder's to see.
"""

from __future__ import annotations

import numpy as np

from .detections import Detections
from .gaps import TABLE_APART, LabView, filled_boxes, nearer_tiles, row_tiles, table_beside
from .layout import rows_of
from .repair import upright

MIN_ROW = 5  # whole standing boxes in a row at least (a hand's row, not a few loose tiles)
REACH = 2.5  # tile widths past the row's right end looked at
GAP = (0.15, 1.5)  # tile widths between the row's end and a tile set apart (less: a tile of the row)
WIDTH = (0.75, 1.35)  # a tile set apart spans this many tile widths (blur widens it)
HEIGHT = (0.7, 1.3)  # and this share of the row's height (above and below it lies the table)
LIKE = 0.5  # a column or a line of pixels is the tile's where this share of it is nearer the tiles' colour
BREAK = 0.25  # tile widths: the widest run of columns unlike the tile inside one (ink on its face)
BEYOND = 0.3  # tile widths past the tile set apart that must show the table


def tile_set_apart(img: np.ndarray, det: Detections) -> Detections:
    """``det`` (boxes in ``img``'s pixels, rows running across) with a box added past the right end of each row
    where a tile set apart lies that no box covers."""
    if len(det) < MIN_ROW or img.ndim != 3:
        return det
    lab = LabView(img)
    x1, y1, x2, y2 = det.xyxy.T
    whole = upright(x2 - x1, y2 - y1)
    new: list[list[float]] = []
    for row in rows_of(det):
        measured = row_tiles(lab, det, row, whole, MIN_ROW)
        if measured is None:
            continue
        full, unit, _, tile = measured
        # (a pitched or turned row: its top and bottom where it ends)
        near_end = sorted(full, key=lambda i: float(x2[i]))[-3:]
        top, bottom = float(np.median(y1[near_end])), float(np.median(y2[near_end]))
        box = _apart(lab, det, float(x2[row].max()), top, bottom, unit, tile)
        if box is not None:
            new.append(box)
    if not new:
        return det
    return Detections.boxes_of([det, filled_boxes(det, new)])


def _apart(lab: LabView, det: Detections, end: float, top: float, bottom: float, unit: float, tile: np.ndarray
           ) -> list[float] | None:
    """The box of a tile set apart past x = ``end`` of a row (``top`` to ``bottom``), or None where no box-free
    stretch there holds one."""
    height = bottom - top
    H, W = lab.shape[:2]
    a, b = end, min(float(W), end + REACH * unit)
    if b - a < (GAP[0] + WIDTH[0] + BEYOND) * unit or top < 0 or bottom > H:
        return None
    x1, y1, x2, y2 = det.xyxy.T
    if bool(np.any((x2 > a) & (x1 < b) & (np.minimum(y2, bottom) - np.maximum(y1, top) > 0.3 * height))):
        return None  # (a box lies there: the finder saw what lies there)
    table = table_beside(lab, a, b, top, bottom, height, tile)
    if table is None or float(np.linalg.norm(tile - table)) < TABLE_APART:
        return None
    band = lab.region(int(top + 0.15 * height), int(bottom - 0.15 * height), int(a), int(b))
    cols = nearer_tiles(band, tile, table).mean(0) >= LIKE
    span = _first_run(cols, int(BREAK * unit))
    if span is None:
        return None
    s, e = span
    if not (GAP[0] * unit <= s <= GAP[1] * unit and WIDTH[0] * unit <= e - s <= WIDTH[1] * unit) or \
            e + BEYOND * unit > len(cols) or cols[e:int(e + BEYOND * unit)].any():
        return None
    ya, yb = int(max(0.0, top - 0.5 * height)), int(min(float(H), bottom + 0.5 * height))
    lines = nearer_tiles(lab.region(ya, yb, int(a + s), int(a + e)), tile, table).mean(1) >= LIKE
    run = _first_run(lines, 0)
    if run is None or not HEIGHT[0] * height <= run[1] - run[0] <= HEIGHT[1] * height \
            or lines[run[1]:].any() or run[0] == 0 or run[1] == len(lines):
        return None  # (no tile of the row's height with the table above and below it)
    return [a + s, top, a + e, bottom]


def _first_run(flags: np.ndarray, gap: int) -> tuple[int, int] | None:
    """The first run of True in ``flags`` (start, end exclusive), bridging runs of False up to ``gap`` long."""
    on = np.flatnonzero(flags)
    if not len(on):
        return None
    breaks = np.flatnonzero(np.diff(on) > gap + 1)
    last = on[breaks[0]] if len(breaks) else on[-1]
    return int(on[0]), int(last) + 1
