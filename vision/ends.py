"""Looking again past the ends of a row seen from a pitched phone, where the finder misses tiles.

Why: seen from a phone pitched 30-45 degrees the tiles are squat and the rows' end tiles are drawn askew (the rows
converge); the finder, which saw few such tiles, misses about one end tile in five, where it finds the row's
middle (issue 39). Read alone and enlarged, a crop around a row's end shows the same tile clearly enough. So a
row whose tiles look squat (its upright tiles about as wide as tall) has each end read again: the crop reaches
``REACH`` tile widths beyond the end, and a box found there that lies on the row's line, is of the row's
height, overlaps no box found already and follows the row without a gap wider than a group's is added. Rows of
ordinary photos (tiles a third taller than wide) are never looked at again: it costs one finder pass per end.
"""

from __future__ import annotations

import numpy as np

from .detections import Detections, box_areas, intersections
from .finder import Finder
from .layout import rows_of
from .repair import upright as may_be_upright

PITCHED_ASPECT = 1.0  # upright tiles at least as wide as tall look pitched (flat on: 0.75, boxes with a side 0.9)
MIN_ROW = 4  # boxes in a row looked past
MOST_ROWS = 2  # the longest rows looked past (a hand: its row and its melds' row)
REACH = 2.6  # tile widths beyond a row's end the crop reaches
LOOKS = 3  # crops read past one end at most (each from the last tile found)
END_CONF = 0.4  # the score a box found past an end needs
END_GAP = 1.0  # tile widths: the widest gap between a row's end and a box found past it (a gap between groups)
OVERLAP = 0.45  # the largest share of a box found past an end that may lie in a box found already (loose boxes)
HEIGHT = (0.65, 1.35)  # a box found past an end: its height, a share of the row's tiles'


def _row_measures(det: Detections, row: list[int]) -> tuple[float, float] | None:
    """A row's upright tile width and height when its tiles look squat (a pitched phone), else None."""
    w, h = det.sizes[row, 0], det.sizes[row, 1]
    tall = h >= 0.85 * float(np.median(h))
    upright = tall & may_be_upright(w, h)
    if upright.sum() < 3:
        return None
    unit, height = float(np.median(w[upright])), float(np.median(h[upright]))
    return (unit, height) if unit >= PITCHED_ASPECT * height else None


def _past(found: Detections, det: Detections, end: np.ndarray, unit: float, height: float, side: int
          ) -> list[int]:
    """Boxes of ``found`` (the photo's pixels) that continue a row past ``end`` on ``side`` (-1 left, 1 right)."""
    if not len(found):
        return []
    x1, y1, x2, y2 = found.xyxy.T
    h, cy = y2 - y1, (y1 + y2) / 2
    new = (found.confidence >= END_CONF) & (h >= HEIGHT[0] * height) & (h <= HEIGHT[1] * height) \
        & (np.abs(cy - (end[1] + end[3]) / 2) <= 0.5 * height) & (x2 - x1 <= 1.9 * unit)
    if len(det):
        new &= intersections(found.xyxy, det.xyxy).max(1) <= OVERLAP * box_areas(found.xyxy)
    order = sorted(np.flatnonzero(new), key=lambda i: (x1[i] if side > 0 else -x2[i]))
    taken, edge = [], end[2] if side > 0 else end[0]
    for i in order:  # nearest first: each must follow the last one taken
        gap = x1[i] - edge if side > 0 else edge - x2[i]
        if gap > END_GAP * unit:
            break
        taken.append(int(i))
        edge = x2[i] if side > 0 else x1[i]
    return taken


def past_row_ends(finder: Finder, img: np.ndarray, det: Detections) -> Detections:
    """``det`` (boxes in ``img``'s pixels) with the tiles found past the ends of its squat rows added."""
    rows = sorted((r for r in rows_of(det) if len(r) >= MIN_ROW), key=len, reverse=True)[:MOST_ROWS]
    added: list[Detections] = []
    for row in rows:
        size = _row_measures(det, row)
        if size is None:
            continue
        unit, height = size
        row = sorted(row, key=lambda i: float(det.xyxy[i, 0]))
        for side, end in ((-1, det.xyxy[row[0]]), (1, det.xyxy[row[-1]])):
            for _ in range(LOOKS):
                found = _look(finder, img, end, unit, height, side)
                taken = _past(found, Detections.boxes_of([det, *added]), end, unit, height, side)
                if not taken:
                    break
                added.append(found[taken])
                end = found.xyxy[taken[-1]]
    return Detections.boxes_of([det, *added]) if added else det


def _look(finder: Finder, img: np.ndarray, end: np.ndarray, unit: float, height: float, side: int) -> Detections:
    """The finder's boxes (in ``img``'s pixels) in a crop reaching ``REACH`` tile widths past ``end``."""
    H, W = img.shape[:2]
    a = int(max(0, end[0] - REACH * unit)) if side < 0 else int(max(0, end[0]))
    b = int(min(W, end[2])) if side < 0 else int(min(W, end[2] + REACH * unit))
    top, bottom = int(max(0, end[1] - 0.7 * height)), int(min(H, end[3] + 0.7 * height))
    if (end[0] - a if side < 0 else b - end[2]) < 0.5 * unit:
        return Detections.empty()  # (the row ends at the photo's edge)
    found = finder.find(img[top:bottom, a:b])
    found.xyxy = found.xyxy + np.array([a, top, a, top], np.float32)
    return found
