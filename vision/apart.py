"""Tiles past a row's ends that the finder missed, found by their colour: the tile set apart, and a row's end tile.

Why: the winning tile lies set apart at the right of the hand's row. Blurred by a moving hand or in dim light, a
plain face (the blank white dragon: an ivory tile and nothing on it) gives the finder nothing to box, so the
winning tile is lost and the hand is a tile short (issue 39, held-out motion15 hand 24). Where no box lies past a
row's right end, a patch there that has the row's tiles' colour (not the table's), a tile's width and the row's
height, with the table on both sides of it, is that tile: it is boxed like the row's tiles, and the classifier
names it like any other (its doubt, and the rules' correction, apply as usual). The same plain face at a row's
end, touching the row's last tile, is lost the same way: most often a kong of blank dragons whose sideways tile
lies at the end of the melds' row (held-out hand 10, seed 5, upright, handheld and motion15 alike, read as a
pung). A patch touching either end of a row, of the row's colour and of an upright tile's size or a sideways
tile's, with the table past it and above and below it, is boxed as that tile (``end_tiles``).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from .detections import Detections
from .gaps import FILL, FIT, TABLE_APART, LabView, filled_boxes, nearer_tiles, row_tiles, table_beside
from .layout import rows_of
from .repair import SIDE_HEIGHT, SIDE_WIDTH, upright

MIN_ROW = 5  # whole standing boxes in a row at least (a hand's row, not a few loose tiles)
REACH = 2.5  # tile widths past the row's right end looked at
GAP = (0.15, 1.5)  # tile widths between the row's end and a tile set apart (less: a tile of the row)
TOUCH = 0.15  # tile widths between a row's end and the end tile it lost, at most (``end_tiles``)
WIDTH = (0.75, 1.35)  # a tile set apart spans this many tile widths (blur widens it)
HEIGHT = (0.7, 1.3)  # and this share of the row's height (above and below it lies the table)
LIKE = 0.5  # a column or a line of pixels is the tile's where this share of it is nearer the tiles' colour
BREAK = 0.25  # tile widths: the widest run of columns unlike the tile inside one (ink on its face)
BEYOND = 0.3  # tile widths past the tile set apart that must show the table
END_REACH = 4.5  # tile widths past a row's end looked at for the tiles it lost (three standing and a sideways one)
SIDE_LENGTH = 1.35  # tile widths: a sideways tile's length, as a rule (``repair.SIDE_WIDTH``)
LOW_WIDTH = 0.9  # tile widths: the narrowest low patch touching a row's end that is a sideways tile
LOWER = 0.35  # an end tile's columns are measured below this share of the row's height (a sideways tile lies low)


def tile_set_apart(img: np.ndarray, det: Detections) -> Detections:
    """``det`` (boxes in ``img``'s pixels, rows running across) with a box added past the right end of each row
    where a tile set apart lies that no box covers."""
    return lost_at_row_ends(img, det, ends=False)


def end_tiles(img: np.ndarray, det: Detections) -> Detections:
    """``det`` (boxes in ``img``'s pixels, rows running across) with boxes added at either end of a row where
    tiles touching the row's end box, standing, or standing and then one lying sideways, show the row's colour
    and no box covers them."""
    return lost_at_row_ends(img, det, apart=False)


def lost_at_row_ends(img: np.ndarray, det: Detections, ends: bool = True, apart: bool = True) -> Detections:
    """``det`` with the tiles the finder missed at its rows' ends: touching either end (``ends``, ``_end_run``)
    and, past the right end and any tiles found touching it, the tile set apart (``apart``, ``_apart``). One pass
    over the rows for both: measuring a row's tiles is most of the cost (a few ms a 12-MP photo)."""
    if len(det) < MIN_ROW or img.ndim != 3 or not (ends or apart):
        return det
    lab = LabView(img)
    new: list[list[float]] = []
    for unit, tile, row_ends in _rows(lab, det):
        for end, way, top, bottom in row_ends:
            touching = _end_run(lab, det, end, way, top, bottom, unit, tile) if ends else []
            new += touching
            if apart and way > 0:
                seen = Detections.boxes_of([det, filled_boxes(det, touching)]) if touching else det
                box = _apart(lab, seen, max([end] + [t[2] for t in touching]), top, bottom, unit, tile)
                new += [] if box is None else [box]
    return Detections.boxes_of([det, filled_boxes(det, new)]) if new else det


End = tuple[float, int, float, float]  # a row's end (x), its way out (-1 left, 1 right), its top and bottom there


def _rows(lab: LabView, det: Detections) -> Iterator[tuple[float, np.ndarray, list[End]]]:
    """Each measured row of at least ``MIN_ROW`` whole standing boxes: its tile width, its tiles' colour, and its
    two ends, each with the row's top and bottom there (the median over its three whole boxes nearest that end:
    a pitched or turned row's, where it ends)."""
    x1, y1, x2, y2 = det.xyxy.T
    whole = upright(x2 - x1, y2 - y1)
    for row in rows_of(det):
        measured = row_tiles(lab, det, row, whole, MIN_ROW)
        if measured is None:
            continue
        full, unit, _, tile = measured
        lefts, rights = sorted(full, key=lambda i: float(x1[i]))[:3], sorted(full, key=lambda i: float(x2[i]))[-3:]
        ends = [(float(x), way, float(np.median(y1[near])), float(np.median(y2[near])))
                for x, way, near in ((x1[row].min(), -1, lefts), (x2[row].max(), 1, rights))]
        yield unit, tile, ends


def _end_run(lab: LabView, det: Detections, end: float, way: int, top: float, bottom: float, unit: float,
             tile: np.ndarray) -> list[list[float]]:
    """The boxes of the tiles touching a row's end at x = ``end`` (``way``: -1 its left end, 1 its right) that
    no box covers: a run of the row's colour starting within ``TOUCH`` of the end, with the table past it and
    above and below it, of up to ``FILL`` standing tiles, the last of them maybe lying sideways (a meld's: lower,
    ``SIDE_HEIGHT``, and up to ``SIDE_WIDTH`` long); none where the run is no such tiles."""
    height = bottom - top
    H, W = lab.shape[:2]
    a, b = (end, min(float(W), end + END_REACH * unit)) if way > 0 else (max(0.0, end - END_REACH * unit), end)
    if b - a < (WIDTH[0] + BEYOND) * unit or top < 0 or bottom > H:
        return []
    # (the table just past the end; and most ends show it at once, so a tile's width past the end is looked at
    # first, the rest of the reach only where a tile's colour lies there)
    near = (a, min(b, a + unit)) if way > 0 else (max(a, b - unit), b)
    table = table_beside(lab, *near, top, bottom, height, tile)
    if table is None or float(np.linalg.norm(tile - table)) < TABLE_APART:
        return []
    ya, yb = int(top + LOWER * height), int(bottom - 0.15 * height)
    if not (nearer_tiles(lab.region(ya, yb, int(near[0]), int(near[1])), tile, table).mean(0)[::way][
            :int(TOUCH * unit) + 1] >= LIKE).any():
        return []
    cols = nearer_tiles(lab.region(ya, yb, int(a), int(b)), tile, table).mean(0)[::way] >= LIKE  # (from the end out)
    span = _first_run(cols, int(BREAK * unit))
    if span is None or span[0] > TOUCH * unit or span[1] + BEYOND * unit > len(cols) \
            or cols[span[1]:int(span[1] + BEYOND * unit)].any():
        return []  # (no tile there, or a run of the row's colour with no table past it: no tiles of a row)

    def at(u: float, v: float) -> tuple[float, float]:  # (offsets from the end outward -> x in the photo)
        return (a + u, a + v) if way > 0 else (b - v, b - u)

    xa, xb = at(*span)
    if _boxed(det, xa + 0.2 * unit, xb - 0.2 * unit, top, bottom):  # (the end box's own edge reaches in a little)
        return []
    s, e = span
    far = _tall(lab, table, tile, *at(max(s, e - 0.9 * unit), e), top, bottom)
    if far is None:
        return []
    side = far[0] < 0.85  # (the outermost tile lies low: a meld's sideways tile ends the run)
    n = int(round((e - s - (SIDE_LENGTH if side else 0.0) * unit) / unit))
    rest = e - s - n * unit
    fits = LOW_WIDTH * unit <= rest <= SIDE_WIDTH[1] * unit if side else abs(rest) <= FIT * unit
    if not 0 <= n <= FILL - side or n + side == 0 or not fits or side and far[0] < SIDE_HEIGHT[0]:
        return []
    step = unit if side else (e - s) / n
    if n and not HEIGHT[0] <= (_tall(lab, table, tile, *at(s, s + n * step), top, bottom) or (0.0,))[0] <= HEIGHT[1]:
        return []
    standing = [at(s + k * step, s + (k + 1) * step) for k in range(n)]
    lying = [(*at(s + n * step, e), far[1], far[2])] if side else []
    return [[u, top, v, bottom] for u, v in standing] + [[u, t, v, d] for u, v, t, d in lying]


def _tall(lab: LabView, table: np.ndarray, tile: np.ndarray, xa: float, xb: float, top: float, bottom: float
          ) -> tuple[float, float, float] | None:
    """How tall the run of the tiles' colour between x = ``xa`` and ``xb`` is, a share of the row's height
    (``top`` to ``bottom``), and its top and bottom; None where the table does not lie above and below it."""
    height = bottom - top
    ya, yb = int(max(0.0, top - 0.5 * height)), int(min(float(lab.shape[0]), bottom + 0.5 * height))
    lines = nearer_tiles(lab.region(ya, yb, int(xa), int(xb)), tile, table).mean(1) >= LIKE
    run = _first_run(lines, 0)
    if run is None or lines[run[1]:].any() or run[0] == 0 or run[1] == len(lines):
        return None
    return (run[1] - run[0]) / height, float(ya + run[0]), float(ya + run[1])


def _apart(lab: LabView, det: Detections, end: float, top: float, bottom: float, unit: float, tile: np.ndarray
           ) -> list[float] | None:
    """The box of a tile set apart past x = ``end`` of a row (``top`` to ``bottom``), or None where no box-free
    stretch there holds one."""
    height = bottom - top
    H, W = lab.shape[:2]
    a, b = end, min(float(W), end + REACH * unit)
    if b - a < (GAP[0] + WIDTH[0] + BEYOND) * unit or top < 0 or bottom > H:
        return None
    if _boxed(det, a, b, top, bottom):
        return None
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
    tall = _tall(lab, table, tile, a + s, a + e, top, bottom)
    if tall is None or not HEIGHT[0] <= tall[0] <= HEIGHT[1]:
        return None  # (no tile of the row's height with the table above and below it)
    return [a + s, top, a + e, bottom]


def _boxed(det: Detections, xa: float, xb: float, top: float, bottom: float) -> bool:
    """Whether a box lies between x = ``xa`` and ``xb`` of a row (``top`` to ``bottom``), over a third of its
    height: the finder saw what lies there, and nothing is added."""
    x1, y1, x2, y2 = det.xyxy.T
    return bool(np.any((x2 > xa) & (x1 < xb) & (np.minimum(y2, bottom) - np.maximum(y1, top) > 0.3 * (bottom - top))))


def _first_run(flags: np.ndarray, gap: int) -> tuple[int, int] | None:
    """The first run of True in ``flags`` (start, end exclusive), bridging runs of False up to ``gap`` long."""
    on = np.flatnonzero(flags)
    if not len(on):
        return None
    breaks = np.flatnonzero(np.diff(on) > gap + 1)
    last = on[breaks[0]] if len(breaks) else on[-1]
    return int(on[0]), int(last) + 1
