"""Row-aware repair of the finder's boxes: tiles of one row share one width, which exposes two kinds of error.

* A tile cut in two: two narrow boxes side by side that together are one tile wide become one box.
* A phantom in a gap: the finder sometimes puts a narrow box in the gap between a hand and the winning tile set
  apart (it looks like a tile's edge, or a blank white dragon or a green back on a table of that colour).
  A box much narrower than its row's tiles, squeezed between two full-width neighbours with no room for a
  whole tile between them, is dropped.

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
