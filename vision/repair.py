"""Row-aware repair of the finder's boxes: tiles of one row share one width, which exposes two kinds of error.

* A tile cut in two: two narrow boxes side by side that together are one tile wide become one box.
* A phantom in a gap: the finder sometimes puts a narrow box in the gap between a hand and the winning tile set
  apart (it looks like a tile's edge, or a blank white dragon or a green back on a table of that colour).
  A box much narrower than its row's tiles, squeezed between two full-width neighbours with no room for a
  whole tile between them, is dropped.

* A close-up's tile read as parts (``join_parts``): a bamboo tile's columns of sticks, a character's numeral and
  its 萬, each boxed as a tile far too narrow for its height. Two or more such slivers side by side, as tall as
  each other, that together make a tile's shape become one box, whatever the row's other tiles.

Only rows with at least three upright tiles are repaired (their median width is the measure); sideways tiles
are wider, never narrower, so they are not affected.
"""

from __future__ import annotations

import numpy as np

from .detections import Detections
from .layout import rows_of

NARROW = 0.75  # a box narrower than this share of its row's upright tiles is suspect
ROOM = 1.0  # a phantom's neighbours leave less than this many tile widths between them
MIN_UPRIGHT = 3
SLIVER = 0.5  # a box narrower than this share of its own height is no whole tile (tiles are 0.6-0.85)
TILE_SHAPE = (0.55, 0.95)  # width over height of slivers joined into one upright tile
SLIVER_GAP = 0.35  # the widest gap (share of the height) between slivers of one tile: a part may go unseen


def repair_rows(det: Detections) -> Detections:
    """The boxes with split tiles joined and phantoms in gaps dropped (see module doc); others untouched."""
    if len(det) < MIN_UPRIGHT:
        return det
    xyxy = det.xyxy.copy()
    conf = det.confidence.copy()
    drop: set[int] = set()
    for row in rows_of(det):
        w, h = det.sizes[row, 0], det.sizes[row, 1]
        upright = w < h
        if upright.sum() < MIN_UPRIGHT:
            continue
        unit = float(np.median(w[upright]))
        narrow = [bool(u and bw < NARROW * unit) for u, bw in zip(upright, w)]
        k = 0
        while k < len(row) - 1:  # two narrow neighbours making one tile together
            a, b = row[k], row[k + 1]
            union = max(xyxy[a, 2], xyxy[b, 2]) - min(xyxy[a, 0], xyxy[b, 0])
            if narrow[k] and narrow[k + 1] and 0.8 * unit <= union <= 1.25 * unit:
                xyxy[a] = [min(xyxy[a, 0], xyxy[b, 0]), min(xyxy[a, 1], xyxy[b, 1]),
                           max(xyxy[a, 2], xyxy[b, 2]), max(xyxy[a, 3], xyxy[b, 3])]
                conf[a] = max(conf[a], conf[b])
                drop.add(b)
                narrow[k] = narrow[k + 1] = False
                k += 2
                continue
            k += 1
        for k in range(1, len(row) - 1):
            if not narrow[k] or narrow[k - 1] or narrow[k + 1] or row[k] in drop:
                continue
            room = float(xyxy[row[k + 1], 0] - xyxy[row[k - 1], 2])
            if 0 < room < ROOM * unit:
                drop.add(row[k])
    if not drop:
        return det
    keep = np.array([i for i in range(len(det)) if i not in drop], int)
    out = Detections(xyxy[keep], conf[keep])
    if det.back_score is not None:
        out.back_score = det.back_score[keep]
    return out


def _sliver_runs(det: Detections, row: list[int]) -> list[list[int]]:
    """Runs of two or more slivers side by side in one row (left to right) that together have a tile's shape."""
    x1, y1, x2, y2 = det.xyxy.T
    h = y2 - y1
    sliver = [i for i in sorted(row, key=lambda i: x1[i]) if x2[i] - x1[i] < SLIVER * h[i]]
    runs: list[list[int]] = []
    run: list[int] = []
    for i in sliver:
        if run and (x1[i] - x2[run[-1]] > SLIVER_GAP * h[run].max() or not 0.75 <= h[i] / h[run].max() <= 1.33):
            runs.append(run)
            run = []
        run.append(i)
    runs.append(run)
    out = []
    for r in runs:
        while len(r) >= 2:  # the longest prefix with a tile's shape
            width, height = x2[r].max() - x1[r].min(), y2[r].max() - y1[r].min()
            if TILE_SHAPE[0] * height <= width <= TILE_SHAPE[1] * height:
                out.append(r)
                break
            r = r[:-1]
    return out


def join_parts(det: Detections) -> Detections:
    """The boxes with a close-up's tile read as slivers made one box again (see the module doc); others as they
    are. The joined box keeps the surest part's score and back score."""
    runs = [r for row in rows_of(det) for r in _sliver_runs(det, row)]
    if not runs:
        return det
    xyxy, conf = det.xyxy.copy(), det.confidence.copy()
    back = det.back_score.copy() if det.back_score is not None else None
    drop: set[int] = set()
    for r in runs:
        first = max(r, key=lambda i: conf[i])
        xyxy[first] = [xyxy[r, 0].min(), xyxy[r, 1].min(), xyxy[r, 2].max(), xyxy[r, 3].max()]
        drop.update(i for i in r if i != first)
    keep = np.array([i for i in range(len(det)) if i not in drop], int)
    out = Detections(xyxy[keep], conf[keep])
    if back is not None:
        out.back_score = back[keep]
    return out
