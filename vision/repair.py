"""Row-aware repair of the finder's boxes: tiles of one row share one width, which exposes two kinds of error.

* A tile cut in two: two narrow boxes side by side that together are one tile wide become one box.
* A phantom in a gap: the finder sometimes puts a narrow box in the gap between a hand and the winning tile set
  apart (it looks like a tile's edge, or a blank white dragon or a green back on a table of that colour).
  A box much narrower than its row's tiles, squeezed between two full-width neighbours with no room for a
  whole tile between them, is dropped.

* A close-up's tile read as parts (``join_parts``): a bamboo tile's columns of sticks, a character's numeral and
  its 萬, each boxed as a tile far too narrow for its height. Two or more such slivers side by side, as tall as
  each other, that together make a tile's shape become one box, whatever the row's other tiles.

* A tile of a design the finder never saw, read as parts or two tiles read as one (``mend_tiles``): three or
  more narrow boxes of a tile's height side by side that together make one tile wide, a cluster of small boxes
  (a nine of bamboo's groups of sticks) that together make one tile's size, become one box, and such a part
  inside a whole tile's box is dropped; in a row laid out as a hand (``HAND_RUN`` whole tiles touching), a box
  two tiles wide and a whole tile tall (two bamboo tiles drawn edge to edge) becomes two. A meld's sideways tile
  is about 1.4 tiles wide and a third less tall; in a loose pile one seen askew can be as wide, so piles are not
  split. A meld's sideways tile read as two halves (two boxes of a sideways tile's height, touching, together
  about 1.35 tiles wide) becomes one box. In a row laid out as a hand, a standing tile read as its top and bottom
  halves (a blurred four of dots read as two twos), or as one half alone, becomes one box the row's height.

Only rows with at least three upright tiles are repaired (their median width is the measure; tiles seen from a
pitched phone are squat, up to ``SQUAT``, and still count as upright); sideways tiles are wider, never narrower,
so only their halves are affected.
"""

from __future__ import annotations

import numpy as np

from .detections import Detections, box_areas, intersections
from .layout import rows_of

NARROW = 0.75  # a box narrower than this share of its row's upright tiles is suspect
WHOLE = 0.85  # a phantom's neighbours are whole tiles: this share of the row's upright tiles wide at least (a
# narrow box beside another a little less narrow is a part of two tiles drawn out of step, not a phantom)
ROOM = 1.0  # a phantom's neighbours leave less than this many tile widths between them
MIN_UPRIGHT = 3
HAND_RUN = 5  # whole upright tiles touching side by side that make a row a hand laid out
SLIVER = 0.5  # a box narrower than this share of its own height is no whole tile (tiles are 0.6-0.85)
TILE_SHAPE = (0.55, 0.95)  # width over height of slivers joined into one upright tile
SLIVER_GAP = 0.35  # the widest gap (share of the height) between slivers of one tile: a part may go unseen
SQUAT = 1.22  # the widest upright tile (width over height): a phone pitched 45 degrees makes them up to 1.2
# (a tile turned by a quarter, a discard, is 1.33: not upright)
SIDE_HEIGHT = (0.55, 0.92)  # a sideways tile's height, a share of its row's upright tiles' (about 0.75)
SIDE_WIDTH = (1.15, 1.65)  # and its width, in upright tile widths (about 1.35), whatever the phone's pitch
SIDE_NEAR = 0.85  # and its height at most this share of its upright neighbours' (a row's far end is smaller)
HALF = (0.35, 0.65)  # a standing tile's top or bottom half boxed alone: this share of its row's height
HALF_WIDTH = (0.75, 1.15)  # and this many tile widths wide
HALF_ALONE = 0.62  # a half with no other half under or over it: this share of the row's height at most


def upright(w: np.ndarray, h: np.ndarray) -> np.ndarray:
    """Which boxes may be upright tiles: narrower than ``SQUAT`` times their height (a sideways tile is about
    1.8 times, more when pitched), so that a row seen from a pitched phone, its tiles squat, is still measured."""
    return w < SQUAT * h


def _measures(det: Detections, row: list[int]) -> tuple[float, float] | None:
    """A row's tile width and height: of its full-height upright boxes (at least ``MIN_UPRIGHT``), else None."""
    w, h = det.sizes[row, 0], det.sizes[row, 1]
    height = float(np.median(h[h >= 0.7 * h.max()]))
    full = upright(w, h) & (h >= 0.8 * height) & (w >= NARROW * float(np.median(w[h >= 0.8 * height])))
    return (float(np.median(w[full])), height) if full.sum() >= MIN_UPRIGHT else None


def _mended_row(det: Detections, row: list[int], unit: float, height: float) -> list[tuple[list[int], list[float]]]:
    """One row's mends: (the boxes replaced, the new box or none) for runs of narrow parts, clusters of small
    parts, parts inside whole tiles and boxes two tiles wide (see ``mend_tiles``)."""
    x1, y1, x2, y2 = det.xyxy.T
    w, h = x2 - x1, y2 - y1
    out: list[tuple[list[int], list[float]]] = []
    narrow = [i for i in row if h[i] >= 0.8 * height and w[i] < NARROW * unit]
    run: list[int] = []
    for i in narrow + [-1]:  # runs of three or more, one tile wide together
        if i >= 0 and run and x1[i] - x2[run[-1]] <= 0.15 * unit and x2[i] - x1[run[0]] <= 1.25 * unit:
            run.append(i)
            continue
        if len(run) >= 3 and x2[run[-1]] - x1[run[0]] >= 0.8 * unit:
            out.append((run, [x1[run].min(), y1[run].min(), x2[run].max(), y2[run].max()]))
        run = [i] if i >= 0 else []
    small = [i for i in row if w[i] < 0.6 * unit and h[i] < 0.6 * height]
    whole = np.array([i for i in row if w[i] >= 0.75 * unit and h[i] >= 0.8 * height], int)
    if len(whole):  # a part inside a whole tile's box: dropped, whatever its score
        inside = intersections(det.xyxy[small], det.xyxy[whole]).max(1) >= 0.8 * box_areas(det.xyxy[small]) \
            if small else np.zeros(0, bool)
        out += [([i], []) for i, k in zip(small, inside) if k]
        small = [i for i, k in zip(small, inside) if not k]
    seen: set[int] = set()
    for i in small:  # clusters of small parts touching each other, one tile in size together
        if i in seen:
            continue
        cluster, todo = [i], [i]
        while todo:
            a = todo.pop()
            for b in small:
                if b not in cluster and x1[b] <= x2[a] + 0.1 * unit and x1[a] <= x2[b] + 0.1 * unit \
                        and y1[b] <= y2[a] + 0.1 * unit and y1[a] <= y2[b] + 0.1 * unit:
                    cluster.append(b)
                    todo.append(b)
        seen.update(cluster)
        cw, ch = x2[cluster].max() - x1[cluster].min(), y2[cluster].max() - y1[cluster].min()
        if len(cluster) >= 2 and 0.75 * unit <= cw <= 1.3 * unit and 0.75 * height <= ch <= 1.3 * height:
            out.append((cluster, [x1[cluster].min(), y1[cluster].min(), x2[cluster].max(), y2[cluster].max()]))
    if _laid_out(det, row, unit, height):
        for i in row:  # two tiles read as one box, in a row laid out as a hand
            if 1.75 * unit <= w[i] <= 2.3 * unit and h[i] >= 0.85 * height:
                mid = (x1[i] + x2[i]) / 2
                out.append(([i], [x1[i], y1[i], mid, y2[i], mid, y1[i], x2[i], y2[i]]))
    return out + _sideways_halves(det, row, unit, height) + _stacked_halves(det, row, unit, height)


def _sideways_halves(det: Detections, row: list[int], unit: float, height: float
                     ) -> list[tuple[list[int], list[float]]]:
    """A meld's sideways tile read as two boxes (its face's two halves): neighbours of a sideways tile's height,
    each narrower than a sideways tile, on one line, touching, that together are a sideways tile wide, and
    lower than the upright tiles beside them (two small tiles at a row's far end are as tall as their neighbours)."""
    x1, y1, x2, y2 = det.xyxy.T
    w, h = x2 - x1, y2 - y1
    order = sorted(row, key=lambda i: x1[i])
    parts = sorted((i for i in row if SIDE_HEIGHT[0] * height <= h[i] <= SIDE_HEIGHT[1] * height
                    and w[i] < SIDE_WIDTH[0] * unit), key=lambda i: x1[i])
    out: list[tuple[list[int], list[float]]] = []
    for a, b in zip(parts, parts[1:]):
        left, right = min(x1[a], x1[b]), max(x2[a], x2[b])
        top, bottom = min(y1[a], y1[b]), max(y2[a], y2[b])
        k = order.index(a)
        near = [h[i] for i in order[max(0, k - 1):k] + order[k + 2:k + 3]]
        if (x1[b] - x2[a] <= 0.15 * unit and SIDE_WIDTH[0] * unit <= right - left <= SIDE_WIDTH[1] * unit
                and max(h[a], h[b]) <= SIDE_NEAR * max(near, default=height)
                and abs(y2[a] - y2[b]) <= 0.15 * height and abs(y1[a] - y1[b]) <= 0.2 * height
                and not any(x1[a] < (x1[i] + x2[i]) / 2 < x2[b] for i in row if i not in (a, b))):
            out.append(([a, b], [left, top, right, bottom]))
    return out


def _stacked_halves(det: Detections, row: list[int], unit: float, height: float
                    ) -> list[tuple[list[int], list[float]]]:
    """A standing tile read as its top and bottom halves (boxes a tile wide and about half as tall, one above the
    other: a blurred four of dots read as two twos), or as one half alone, in a row laid out as a hand: one box
    from the top to the bottom of the whole tiles beside it. A lone half is at most ``HALF_ALONE`` of the row's
    height and ``HALF_WIDTH[1]`` tiles wide (a meld's sideways tile is lower than a standing one, but wider)."""
    x1, y1, x2, y2 = det.xyxy.T
    w, h = x2 - x1, y2 - y1
    halves = [i for i in row if HALF_WIDTH[0] * unit <= w[i] <= HALF_WIDTH[1] * unit
              and HALF[0] * height <= h[i] <= HALF[1] * height]
    if not halves or not _laid_out(det, row, unit, height):
        return []
    whole = [i for i in row if 0.75 * unit <= w[i] <= 1.25 * unit and h[i] >= 0.8 * height]
    out: list[tuple[list[int], list[float]]] = []
    taken: set[int] = set()
    for a in halves:
        if a in taken:
            continue
        near = sorted(whole, key=lambda i: abs(float(x1[i] - x1[a])))[:4]  # (a tilted row: its nearby top)
        top, bottom = float(np.median(y1[near])), float(np.median(y2[near]))
        over = [b for b in row if b != a and min(x2[a], x2[b]) - max(x1[a], x1[b]) > 0.5 * min(w[a], w[b])]
        mates = [b for b in over if b in halves and b not in taken]
        if len(over) > 1 or over and not mates or not mates and h[a] > HALF_ALONE * height:
            continue  # (another box over it: a whole tile or something else, not its other half)
        parts = [a, *mates]
        left, right = float(x1[parts].min()), float(x2[parts].max())
        if any(min(right, x2[i]) - max(left, x1[i]) > 0.35 * unit for i in whole):
            continue  # (it would overlap a whole tile beside it)
        taken.update(parts)
        out.append((parts, [left, min(top, float(y1[parts].min())), right, max(bottom, float(y2[parts].max()))]))
    return out


def _laid_out(det: Detections, row: list[int], unit: float, height: float) -> bool:
    """Whether a row holds ``HAND_RUN`` or more whole upright tiles touching side by side (a hand laid out, not a
    loose pile, where a sideways tile seen askew is as wide as two)."""
    x1, y1, x2, y2 = det.xyxy.T
    run, last = 0, None
    for i in sorted(row, key=lambda i: x1[i]):
        whole = 0.75 * unit <= x2[i] - x1[i] <= 1.25 * unit and y2[i] - y1[i] >= 0.8 * height
        touching = last is not None and x1[i] - x2[last] <= 0.3 * unit
        run = (run + 1 if touching else 1) if whole else 0
        last = i if whole else None
        if run >= HAND_RUN:
            return True
    return False


def mend_tiles(det: Detections) -> Detections:
    """The boxes with tiles read as parts joined or dropped and two tiles read as one split, row by row (see the
    module doc); every other box as it is. A new box keeps the surest part's score and back score."""
    mends = [m for row in rows_of(det) if (size := _measures(det, row)) is not None
             for m in _mended_row(det, row, *size)]
    taken: set[int] = set()
    disjoint = []
    for m in mends:  # (a part of two mends: the first one)
        if not taken & set(m[0]):
            taken.update(m[0])
            disjoint.append(m)
    mends = disjoint
    if not mends:
        return det
    replaced = {i for parts, _ in mends for i in parts}
    keep = [i for i in range(len(det)) if i not in replaced]
    boxes, conf = [det.xyxy[i] for i in keep], [float(det.confidence[i]) for i in keep]
    back = [float(det.back_score[i]) for i in keep] if det.back_score is not None else None
    for parts, new in mends:
        surest = max(parts, key=lambda i: float(det.confidence[i]))
        for k in range(0, len(new), 4):
            boxes.append(np.array(new[k:k + 4], np.float32))
            conf.append(float(det.confidence[surest]))
            if back is not None and det.back_score is not None:
                back.append(float(det.back_score[surest]))
    out = Detections(np.array(boxes, np.float32).reshape(-1, 4), np.array(conf, np.float32))
    if back is not None:
        out.back_score = np.array(back, np.float32)
    return out


def repair_rows(det: Detections) -> Detections:
    """The boxes with split tiles joined and phantoms in gaps dropped (see module doc); others untouched."""
    if len(det) < MIN_UPRIGHT:
        return det
    det = mend_tiles(det)
    xyxy = det.xyxy.copy()
    conf = det.confidence.copy()
    drop: set[int] = set()
    for row in rows_of(det):
        w, h = det.sizes[row, 0], det.sizes[row, 1]
        whole = upright(w, h)
        if whole.sum() < MIN_UPRIGHT:
            continue
        unit = float(np.median(w[whole]))
        narrow = [bool(u and bw < NARROW * unit) for u, bw in zip(whole, w)]
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
            beside = min(xyxy[row[j], 2] - xyxy[row[j], 0] for j in (k - 1, k + 1))
            if not narrow[k] or row[k] in drop or beside < WHOLE * unit:
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
