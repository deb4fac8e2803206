"""Boxes drawn out of step over touching tiles are boxed again one tile at a time.

Why: on a tile design it never saw, the finder draws one box over a tile and a half of a busy face (two bamboo
tiles drawn edge to edge), and either leaves the rest of the second tile as a narrow hole before the next box or
draws the next box wide as well (issue 39, the held-out design): one tile is lost. Tiles of one row stand at one
pitch, so the fewest touching boxes around a standing box clearly wider than its neighbours that, with a hole
beside them where the hole looks like the row's tiles rather than the table, span one pitch more than they are
boxes, are cut into that many equal tiles, which the classifier names as usual. A meld's sideways tile is lower
than the row's standing tiles and is never cut; a pitched row's near tiles are measured against their
neighbours; a loose box before a gap between groups (the table shows there) is not cut either. The other way
round, a run of touching narrow boxes that spans one pitch fewer than it is boxes (three boxes over two bamboo
tiles: one tile too many) is cut into that many equal tiles as well. Boxes right in number but out of step (a box
over a tile and a half, touching a narrow one over the other half) are cut into as many equal tiles; and a narrow
box with the rest of its tile beside it (a face, not the table) grows over it, up to the row's tile width: a part
of a tile is read as no tile or as another face. Last, boxes out of step with the row's pitch (or narrow) between
two boxes in step of one stretch of touching tiles are replaced by the tiles the pitch puts between those two (a
box over the halves of two bamboo tiles, a tile's columns of sticks each boxed). The row's tile width is measured
without slivers, and on a table of the tiles' own colour no gap is taken for a face. A strip of a run shows the
table only where nearly all its lines do: in dim light a column of dark sticks is as dark as the table, but the
face's ivory shows between its rows of sticks. A run out of step at the end of a stretch of touching tiles is
anchored by the table past it; narrow boxes with a lower part of a tile boxed across the hole between them touch.
Last, a stretch of touching tiles with the table at both ends whose length holds one tile more or fewer than its
boxes (boxes each in step with the one before may drift a third of a tile over a few tiles; a tile left unboxed
shows its face's ink in the hole) is boxed again at that count. Before all this, boxes far lower than the tiles
within a tile's band (a bamboo tile's groups of sticks, each boxed) are dropped as parts of a tile. A narrow box
whose middle shows the table from top to bottom (the gap before the winning tile boxed) is dropped, and a meld's
sideways tile boxed short grows over the rest of it where its face shows.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np

from .crops import washed_boxes
from .detections import Detections, squashed
from .gaps import BORROW, LabView, nearer_tiles, table_beside, tiles_colour
from .layout import rows_of
from .orientation import finder_backs
from .repair import SIDE_HEIGHT, SIDE_NEAR, SIDE_WIDTH, SLIVER, upright

WIDE = 1.25  # a standing box this many times as wide as its neighbours or more may hold two tiles
WIDE_IN_STEP = 1.15  # or this many, where the boxes touching its run on either side are whole tiles
STANDING = 0.95  # and at least this share of the row's height (a sideways tile is lower)
HOLE = (0.1, 1.0)  # a hole beside it this many tile widths wide may hold the rest of the second
FIT = 0.35  # how far (pitches) the boxes with their hole may be from one tile more than they are
NARROW = 0.85  # a standing box under this share of the row's tile width may be a part of a tile, one of a run
# of touching boxes drawn over one tile fewer than they are (three boxes over two bamboo tiles)
TOUCH = 0.2  # tile widths between two boxes of one run at most
AROUND = 3  # boxes around a wide one that may share its lost tile
NEAT_ROW = 6  # standing boxes in a row at least, and this share of them a tile wide (within 15 %):
NEAT_SHARE = 0.5  # a hand's neat row, not loose tiles lying at every angle (a row with a box over two tiles and
# three narrow boxes over two more, held-out hand 18, has 4 of 7 a tile wide; a row seen from a tilted phone, its
# near tiles wider, handheld hand 45, 6 of 11)
CLOSEST = 0.8  # a row's pitch is this share of its tile width at least (boxes overlapping more are no neat row)
LIKE_TILES = 0.5  # a hole looks like the row's tiles where this share of its pixels is nearer their colour
TABLE_LINES = 0.9  # the share of a strip's lines like the table for the strip to show it (see ``_table_strip``)
APART = 15.0  # Lab units at least between the tiles' colour and the table's for a hole to be told from the table
INSIDE = 0.5  # tile widths: the widest hole between two boxes of one stretch of touching tiles
STEP_SPREAD = 0.06  # steps within this share of one another are one cluster (``_modal_step``)
SKEW = 0.3  # two neighbouring boxes whose middles are further from one pitch apart than this share of it are out of
# step
IN_STEP = 0.2  # boxes between two anchors each this share of a pitch or less from its place are in step
PAST = 0.3  # tile widths past a stretch's end tile where no box and the table show: the stretch ends there
RECOUNT_FIT = 0.2  # how far (pitches) a stretch's length may be from a whole number of tiles to be counted by it
RECOUNT_STANDING = 0.9  # share of the row's height every box of a stretch recounted has (a blurred box is a
# little lower than a sharp one; a meld's sideways tile, at three quarters of it, is never counted)
SKEWED_MOST = 4  # boxes at most of a stretch spaced again at its own count (a meld's tiles: over a whole hand's
# row, a few pixels' error in its ends' boxes would shift every tile)
RECOUNT_HOLE = 1.2  # tile widths: the widest hole inside a stretch counted (its face shows there: a lost tile)
INK = 40.0  # Lab lightness units darker than the tiles' ivory: a face's ink
PART = 0.45  # a box lower than this share of the tiles' height, within a tile's band, is a part of a tile
INK_SHARE = 0.03  # the share of a hole's pixels that are ink for it to show a face
WASH_TALL = 1.1  # a box over a glare spot's wash this many times as tall as its row's tiles has the wash's shape
WASHED = 0.6  # and this share of it blown out at least (a spot blows its tile out whole and spills past it; a bright
# white face keeps its frame and ink: composed discards hand 25 at seed 1, a blank dragon 0.34 blown, 1.11 as tall)
SIDE_GROWN = 1.35  # tile widths: a meld's sideways tile, to which one boxed narrower grows (``_sideways_grown``)


def _hole_pixels(lab: LabView, a: float, b: float, top: float, bottom: float, tile: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray] | None:
    """The Lab pixels of the hole between x = a and b of a row (its middle 70 % of the height), and the table's
    colour just above or below the row; None where either is not in the photo."""
    height = bottom - top
    table = table_beside(lab, a, b, top, bottom, height, tile)
    h, w = lab.shape[:2]
    xa, xb = int(max(0, a)), int(min(w, b))
    ya, yb = int(max(0, top + 0.15 * height)), int(min(h, bottom - 0.15 * height))
    if table is None or xb - xa < 1 or yb - ya < 2:
        return None
    return lab.region(ya, yb, xa, xb), table


def _hole_like_tiles(lab: LabView, a: float, b: float, top: float, bottom: float, tile: np.ndarray) -> bool:
    """Whether the hole between x = a and b of a row (top to bottom) shows tiles rather than the table above or
    below the row."""
    seen = _hole_pixels(lab, a, b, top, bottom, tile)
    if seen is None:
        return False
    px, table = seen
    return bool(nearer_tiles(px, tile, table).mean() >= LIKE_TILES)


def _beside(det: Detections, row: list[int], skip: list[int], left: float, right: float
            ) -> tuple[float | None, float | None]:
    """Where the row's nearest boxes beside the span from ``left`` to ``right`` end: the right end of the nearest
    box (of ``row``, not in ``skip``) reaching before the span, and the left end of the nearest reaching past it
    (any box: a meld's sideways tile too); None where there is none."""
    x1, x2 = det.xyxy[:, 0], det.xyxy[:, 2]
    before = [float(x2[j]) for j in row if j not in skip and x1[j] < left]
    after = [float(x1[j]) for j in row if j not in skip and x2[j] > right]
    return (max(before) if before else None), (min(after) if after else None)


def _out_of_step(lab: LabView, det: Detections, tall: list[int], k: int, unit: float, pitch: float,
                 tile: np.ndarray, more: int = 1, accept: Callable[[list[int]], bool] | None = None,
                 row: list[int] | None = None) -> tuple[int, int, float, float] | None:
    """The fewest touching boxes of ``tall`` around the box ``tall[k]`` (up to ``AROUND``), with a hole beside them
    where it looks like tiles, that span one tile more than they are boxes (within ``FIT`` pitches); with ``more``
    0, two boxes at least and no hole, that span as many tiles as they are boxes; runs ``accept`` refuses are passed
    over. A hole ends at the next box of ``row`` (default ``tall``) reaching past the run: a meld's sideways tile,
    lower than the standing ones, ends it too. Their first and last positions in ``tall`` and the span's ends;
    None where no such run holds the box."""
    x1, y1, x2, y2 = det.xyxy.T
    row = tall if row is None else row
    for size in range(1 if more else 2, AROUND + 1):
        for first in range(max(0, k - size + 1), min(k, len(tall) - size) + 1):
            last = first + size - 1
            run = tall[first:last + 1]
            if any(x1[b] - x2[a] > TOUCH * unit for a, b in zip(run, run[1:])):
                continue
            left, right = float(x1[run[0]]), float(x2[run[-1]])
            top, bottom = float(np.median(y1[run])), float(np.median(y2[run]))
            before, after = _beside(det, row, run, left, right) if more else (None, None)
            if after is not None and HOLE[0] * unit < after - right < HOLE[1] * unit \
                    and _hole_like_tiles(lab, right, after, top, bottom, tile):
                right = after
            if before is not None and HOLE[0] * unit < left - before < HOLE[1] * unit and \
                    _hole_like_tiles(lab, before, left, top, bottom, tile):
                left = before
            left, right = _unshared(det, tall, run, left, right, unit, pitch)
            # (``accept`` last: its test may look at the photo, which only a run that fits is worth)
            if abs((right - left) / pitch - (size + more)) <= FIT and (accept is None or accept(run)):
                return first, last, left, right
    return None


def _unshared(det: Detections, tall: list[int], run: list[int], left: float, right: float, unit: float,
              pitch: float) -> tuple[float, float]:
    """A run's span from ``left`` to ``right`` less what a standing box beside it covers of it, where that box
    reaches into it more than ``TOUCH`` tile widths past the overlap of the row's boxes (unit - pitch): the tile
    boxed there holds that part (held-out upright hand 22 at seed 0: a run looked like one tile more than it is,
    and a nine of bamboo was dropped as a surplus tile; without it 4 held-out hands fewer at seeds 0 and 4)."""
    overlap = max(unit - pitch, 0.0)
    before, after = _beside(det, tall, run, left, right)
    if before is not None and before - overlap - left > TOUCH * unit:
        left = before - overlap
    if after is not None and right - after - overlap > TOUCH * unit:
        right = after + overlap
    return left, right


def _hole_not_table(lab: LabView, a: float, b: float, top: float, bottom: float, tile: np.ndarray) -> bool:
    """Whether most of a narrow hole between x = ``a`` and ``b`` of a row is unlike the table above or below it
    (further from it than half the way to the tiles' colour): a tile's face shows there, sticks or ink included,
    which the test against the tiles' ivory (``_hole_like_tiles``) misses in a hole a few pixels wide."""
    seen = _far_from_table(lab, a, b, top, bottom, tile)
    return seen is not None and _unlike_table(*seen)


def _far_from_table(lab: LabView, a: float, b: float, top: float, bottom: float, tile: np.ndarray
                    ) -> tuple[np.ndarray, bool] | None:
    """The pixels of the hole between x = ``a`` and ``b`` of a row (``_hole_pixels``) that are further from the
    table than half the way to the tiles' colour, and whether the table's colour is told from the tiles' at all
    (``APART``); None where the hole or the table is not in the photo."""
    seen = _hole_pixels(lab, a, b, top, bottom, tile)
    if seen is None:
        return None
    px, table = seen
    apart = float(np.linalg.norm(tile - table))
    return np.linalg.norm(px - table, axis=2) > 0.5 * apart, apart >= APART


def _unlike_table(far: np.ndarray, apart: bool) -> bool:
    """Whether most of a hole is unlike the table (``_far_from_table``'s result); never on a table of the tiles' own
    colour, where nothing tells a face from the table."""
    return apart and bool(far.mean() >= LIKE_TILES)


def _table_within(lab: LabView, det: Detections, run: list[int], unit: float, tile: np.ndarray) -> bool:
    """Whether the table shows anywhere across the run's span (a strip a tenth of a tile wide where the table shows
    from top to bottom, ``_table_strip``): a box drawn over a tile and the gap beside it, then a narrow one over the
    next tile, span as many pitches as they are boxes, yet the gap between the winning tile and the hand is no tile
    to cut."""
    x1, y1, x2, y2 = det.xyxy.T
    return _table_across(lab, float(x1[run].min()), float(x2[run].max()), float(np.median(y1[run])),
                         float(np.median(y2[run])), unit, tile, lines=True)


def _table_across(lab: LabView, left: float, right: float, top: float, bottom: float, unit: float,
                  tile: np.ndarray, lines: bool = False) -> bool:
    """Whether the table shows anywhere between x = ``left`` and ``right`` of a row: a strip a tenth of a tile wide
    where most pixels are like the table (with ``lines``, nearly all its lines: ``_table_strip``)."""
    strip = max(2.0, 0.1 * unit)
    return any(_table_strip(lab, a, a + strip, top, bottom, tile) if lines else
               not _hole_not_table(lab, a, a + strip, top, bottom, tile)
               for a in np.arange(left + 0.1 * unit, right - 0.1 * unit - strip, strip / 2))


def _table_strip(lab: LabView, a: float, b: float, top: float, bottom: float, tile: np.ndarray, sure: bool = False
                 ) -> bool:
    """Whether a strip of a row shows the table: like it (``_hole_not_table`` says no face) from top to bottom,
    ``TABLE_LINES`` of its lines each mostly like the table. A column of dark sticks in dim light is as dark as
    the table, but the face's ivory shows between its sticks. With ``sure``, never where the strip is not in the
    photo or the table's colour is not told from the tiles'."""
    seen = _far_from_table(lab, a, b, top, bottom, tile)
    if seen is None:
        return not sure
    if _unlike_table(*seen) or sure and not seen[1]:
        return False
    return bool((seen[0].mean(1) < LIKE_TILES).mean() >= TABLE_LINES)


def _overlap(a1: float, a2: float, b1: float, b2: float) -> float:
    """How far two spans along the row overlap (0 for none)."""
    return max(0.0, min(a2, b2) - max(a1, b1))


def _parts(det: Detections, row: list[int], tall: list[int], unit: float) -> list[int]:
    """The row's lower boxes (not in ``tall``) narrower than ``NARROW`` of ``unit``: parts of tiles (a meld's
    sideways tile is wider)."""
    w = det.xyxy[:, 2] - det.xyxy[:, 0]
    return [j for j in row if j not in tall and w[j] < NARROW * unit]


def _bridged(det: Detections, parts: list[int], a: int, b: int, unit: float) -> bool:
    """Whether one of ``parts`` (lower, narrow boxes of the row: parts of tiles) is boxed across the hole between
    boxes ``a`` and ``b`` (to within ``TOUCH`` of each): the two touch the same tile's part."""
    x1, x2 = det.xyxy[:, 0], det.xyxy[:, 2]
    return any(x1[j] <= x2[a] + TOUCH * unit and x2[j] >= x1[b] - TOUCH * unit for j in parts)


def _narrow_runs(det: Detections, tall: list[int], unit: float, used: set[int], parts: list[int]
                 ) -> list[list[int]]:
    """The runs (two or more, left to right) of touching standing boxes of ``tall`` each under ``NARROW`` of the
    row's tile width, none already boxed again; two with one of the row's ``parts`` of tiles boxed across the hole
    between them (``_bridged``) touch."""
    x1, x2 = det.xyxy[:, 0], det.xyxy[:, 2]
    runs: list[list[int]] = []
    run: list[int] = []
    for i in tall:
        narrow = x2[i] - x1[i] < NARROW * unit and i not in used
        if narrow and run and (x1[i] - x2[run[-1]] <= TOUCH * unit or _bridged(det, parts, run[-1], i, unit)):
            run.append(i)
            continue
        if len(run) >= 2:
            runs.append(run)
        run = [i] if narrow else []
    if len(run) >= 2:
        runs.append(run)
    return runs


Cut = tuple[list[int], float, float, int]  # boxes boxed again, the span's left and right ends, tiles in it


def _neat_row(det: Detections, row: list[int], standing: np.ndarray, washed: np.ndarray | None = None
              ) -> tuple[list[int], float, float, float] | None:
    """A hand's neat row's standing boxes left to right (as tall as its tiles), its tile width, its pitch and its
    height; None for a row too short, or of loose tiles lying at every angle. A ``washed`` box (over a glare
    spot's wash, ``crops.washed_boxes``) taller than the row (``WASH_TALL``) has the wash's shape, not its tiles':
    it is none of the row's tiles, so it is never cut, counted or measured (it still ends a hole beside it, as any
    box of the row does). A washed box as tall as the row is boxed as the tiles under the wash are."""
    x1, y1, x2, y2 = det.xyxy.T
    w, h = x2 - x1, y2 - y1
    wash = np.zeros(len(det), bool)
    if washed is not None and washed[row].any():
        height = float(np.median(h[[i for i in row if standing[i] and not washed[i]] or row]))
        wash = washed & (h > WASH_TALL * height)
        standing = standing & ~wash
    whole = _unsplit(w, h, [i for i in row if standing[i]])  # (a tile's columns of sticks, each boxed as a tile,
    if len(whole) < 4:  # would make the row's tiles look narrow)
        return None
    height = float(np.median(h[[i for i in row if standing[i]]]))
    tall = sorted((i for i in row if h[i] >= 0.85 * height and not wash[i]), key=lambda i: float(x1[i]))
    # (the tile width of whole boxes as tall as the row: a sideways tile's parts, each boxed, are narrow and low)
    unit = float(np.median(w[[i for i in whole if h[i] >= 0.85 * height] or whole]))
    wide = _unsplit(w, h, tall)
    tile_wide = [bool(abs(w[i] / unit - 1) <= 0.15) for i in wide]
    if len(tall) < NEAT_ROW or float(np.mean(tile_wide)) < NEAT_SHARE:
        return None
    centres = [(x1[i] + x2[i]) / 2 for i in wide]
    # (each step between neighbours, and whether both boxes are a tile wide)
    pairs = [(float(b - a), ok1 and ok2) for a, b, ok1, ok2 in zip(centres, centres[1:], tile_wide, tile_wide[1:])
             if b - a < 1.3 * unit]
    steps = [s for s, whole_pair in pairs if whole_pair]
    if len(steps) < 3:
        steps = [s for s, _ in pairs]
    if len(steps) < 3 or float(np.median(steps)) < CLOSEST * unit:
        return None
    return tall, unit, _modal_step(steps), height


def _unsplit(w: np.ndarray, h: np.ndarray, boxes: list[int]) -> list[int]:
    """Of ``boxes`` (widths ``w``, heights ``h``), those at least ``SLIVER`` as wide as they are tall: whole tiles,
    not slivers (a bamboo tile's columns of sticks, each boxed), in their order."""
    return [i for i in boxes if w[i] >= SLIVER * h[i]]


def _modal_step(steps: list[float]) -> float:
    """The row's pitch from the steps between neighbouring boxes' middles: the median of the largest cluster of
    steps within ``STEP_SPREAD`` of one another. Boxes out of step over a few bamboo tiles make steps of two
    thirds of a tile, which would pull a plain median down and miscount the row's stretches."""
    arr = np.array(steps, np.float64)
    support = [np.abs(arr - s) <= STEP_SPREAD * s for s in arr]
    best = max(range(len(arr)), key=lambda k: (int(support[k].sum()), -abs(arr[k] - float(np.median(arr)))))
    return float(np.median(arr[support[best]]))


def _wide_cuts(lab: LabView, det: Detections, row: list[int], tall: list[int], unit: float, pitch: float,
               height: float, tile: np.ndarray, used: set[int]) -> list[Cut]:
    """The runs around wide boxes that, with a tile-coloured hole beside them, hold one tile more than boxes."""
    x1, y1, x2, y2 = det.xyxy.T
    w, h = x2 - x1, y2 - y1
    cuts = []
    for k, i in enumerate(tall):
        # wide against its own neighbours (a pitched row's near tiles are wider than its far ones), and as
        # tall as the row's standing tiles (a meld's sideways tile is lower)
        near = [b for b in tall[max(0, k - 2):k + 3] if b != i]
        if w[i] < WIDE_IN_STEP * float(np.median(w[near])) or h[i] < STANDING * height or i in used:
            continue
        span = _out_of_step(lab, det, tall, k, unit, pitch, tile, row=row)
        if span is None or any(b in used for b in tall[span[0]:span[1] + 1]) or \
                w[i] < _wide_bar(det, row, tall, tall[span[0]:span[1] + 1], unit) * float(np.median(w[near])):
            continue  # (no run out of step, or one that shares a box already boxed again)
        first, last, left, right = span
        cuts.append((tall[first:last + 1], left, right, last - first + 2))
        used.update(tall[first:last + 1])
    return cuts


def _narrow_cuts(det: Detections, row: list[int], tall: list[int], unit: float, pitch: float, used: set[int]
                 ) -> list[Cut]:
    """The runs of touching narrow boxes that span one pitch fewer than they are boxes; where a whole box touches
    a run's end, its tiles are set at the row's pitch from that box's middle (``_anchored``)."""
    x1, x2 = det.xyxy[:, 0], det.xyxy[:, 2]
    parts = _parts(det, row, tall, unit)
    cuts = []
    for run in _narrow_runs(det, tall, unit, used, parts):
        left, right = float(x1[run[0]]), float(x2[run[-1]])
        n = len(run) - 1  # (one tile fewer than boxes, within FIT pitches)
        if abs((right - left) / pitch - n) > FIT:
            continue
        left, right = _anchored(det, tall, run, (left, right), unit, pitch, used, n, parts)
        cuts.append((run, left, right, n))
        used.update(run)
        used.update(_parts_within(det, row, tall, left, right))
    return cuts


def _anchored(det: Detections, tall: list[int], run: list[int], span: tuple[float, float], unit: float,
              pitch: float, used: set[int], n: int, parts: list[int]) -> tuple[float, float]:
    """A run's ``span`` set from the middles of the whole boxes touching its ends (half a pitch past each; a part
    of a tile boxed across a hole joins them, ``_bridged``), where it still holds ``n`` tiles within ``FIT``: the
    tiles boxed again then stand in step with their neighbours (no gap between groups opens where the run's first
    box began late)."""
    x1, x2 = det.xyxy[:, 0], det.xyxy[:, 2]
    left, right = span
    k, m = tall.index(run[0]), tall.index(run[-1])
    lo, hi = left, right
    if k > 0 and (a := tall[k - 1]) not in used and x2[a] - x1[a] >= NARROW * unit and \
            (left - x2[a] <= TOUCH * unit or _bridged(det, parts, a, run[0], unit)):
        lo = float(x1[a] + x2[a]) / 2 + pitch / 2
    if m + 1 < len(tall) and (b := tall[m + 1]) not in used and x2[b] - x1[b] >= NARROW * unit and \
            (x1[b] - right <= TOUCH * unit or _bridged(det, parts, run[-1], b, unit)):
        hi = float(x1[b] + x2[b]) / 2 - pitch / 2
    return (lo, hi) if abs((hi - lo) / pitch - n) <= FIT else (left, right)


def _parts_within(det: Detections, row: list[int], tall: list[int], left: float, right: float) -> list[int]:
    """The row's lower, narrow boxes (not in ``tall``; a meld's sideways tile is wider) whose middles lie between
    x = ``left`` and ``right`` (or a quarter of a tile beyond, where the tiles boxed again reach over them): parts
    of the tiles boxed again there, dropped with the boxes they replace."""
    mid = (det.xyxy[:, 0] + det.xyxy[:, 2]) / 2
    unit = float(np.median(det.xyxy[tall, 2] - det.xyxy[tall, 0]))
    return [j for j in _parts(det, row, tall, unit) if left - unit / 4 < mid[j] < right + unit / 4]


def _wide_bar(det: Detections, row: list[int], tall: list[int], run: list[int], unit: float) -> float:
    """How wide (a share of the tiles' width) a box of ``run`` must be to hold two tiles: ``WIDE_IN_STEP`` where the
    boxes of the row touching the run on either side (one at least) are whole standing tiles, else ``WIDE`` (a narrow
    box beside the run is out of step too, and a meld's sideways tile widens the boxes beside it)."""
    x1, x2 = det.xyxy[:, 0], det.xyxy[:, 2]
    left, right = float(x1[run].min()), float(x2[run].max())
    beside = [b for b in row if b not in run and ((x1[b] < left and x2[b] >= left - TOUCH * unit)
                                                  or (x2[b] > right and x1[b] <= right + TOUCH * unit))]
    whole = all(b in tall and x2[b] - x1[b] >= NARROW * unit for b in beside)
    return WIDE_IN_STEP if beside and whole else WIDE  # (none touching: a tile set apart, boxed with its gaps)


def _uneven_cuts(lab: LabView, det: Detections, row: list[int], tall: list[int], unit: float, pitch: float,
                 height: float, tile: np.ndarray, used: set[int]) -> list[Cut]:
    """The fewest touching boxes around a narrow standing box, one of them wide, that span as many pitches as
    they are boxes: right in number but out of step (a box over a tile and a half, then one over the other half),
    so the narrow box's tile would be lost as a sliver or read as no tile. The wide box is as tall as the row's
    standing tiles (a meld's sideways tile is lower, and its run is in step), and no table shows across the run
    (a tile and the gap beside it are not a tile and a half)."""
    w = det.xyxy[:, 2] - det.xyxy[:, 0]
    h = det.xyxy[:, 3] - det.xyxy[:, 1]
    cuts = []
    for k, i in enumerate(tall):
        if w[i] >= NARROW * unit or i in used:
            continue
        span = _out_of_step(lab, det, tall, k, unit, pitch, tile, more=0, accept=lambda run: any(
            w[b] >= _wide_bar(det, row, tall, run, unit) * unit and h[b] >= STANDING * height and b not in used
            for b in run) and not _table_within(lab, det, run, unit, tile))
        if span is None or any(b in used for b in tall[span[0]:span[1] + 1]):
            continue
        first, last, left, right = span
        cuts.append((tall[first:last + 1], left, right, last - first + 1))
        used.update(tall[first:last + 1])
    return cuts


def _chains(lab: LabView, det: Detections, row: list[int], tall: list[int], unit: float, pitch: float,
            tile: np.ndarray, used: set[int]) -> list[tuple[int, int, bool, bool]]:
    """The runs of ``tall`` (first and last positions) of boxes out of step with the row's pitch or narrow (a part
    of a tile), each between two boxes in step (its anchors, not in the run) of one stretch of touching tiles: no
    table and no other box of the row (a meld's sideways tile) between them, and no box already boxed again
    (``used``) in it or as its anchor. A run at the end of its stretch, with the table just past it
    (``_table_past``), is anchored there by its edge instead: with each run, whether a box anchors it on the left
    and on the right."""
    x1, x2 = det.xyxy[:, 0], det.xyxy[:, 2]
    mid = (x1 + x2) / 2
    top, bottom = float(np.median(det.xyxy[tall, 1])), float(np.median(det.xyxy[tall, 3]))
    out = [bool(x2[i] - x1[i] < NARROW * unit) for i in tall]
    joined = _joined(lab, det, row, tall, unit, tile, used)
    for k, (a, b) in enumerate(zip(tall, tall[1:])):
        if joined[k] and abs(mid[b] - mid[a] - pitch) > SKEW * pitch:
            out[k] = out[k + 1] = True
    runs: list[tuple[int, int, bool, bool]] = []
    k = 0
    while k < len(tall):
        if not out[k]:
            k += 1
            continue
        first = k
        while k + 1 < len(tall) and out[k + 1] and joined[k]:
            k += 1
        left, right = first >= 1 and joined[first - 1], k + 1 < len(tall) and joined[k]
        if left and right or left and _table_past(lab, det, row, tall[k], 1, unit, top, bottom, tile) or \
                right and _table_past(lab, det, row, tall[first], -1, unit, top, bottom, tile):
            runs.append((first, k, left, right))
        k += 1
    return runs


def _joined(lab: LabView, det: Detections, row: list[int], tall: list[int], unit: float, tile: np.ndarray,
            used: set[int], widest: float = INSIDE) -> list[bool]:
    """Per neighbouring pair of ``tall``: whether the two are of one stretch of touching tiles (no table and no
    other box of the row, a meld's sideways tile, between them; neither already boxed again). A hole past
    ``TOUCH`` may be a tile's part the finder left out (its face shows there), never wider than ``widest`` tile
    widths (one wider than ``INSIDE`` shows ink too, ``_shows_ink``: the gap before a tile set apart, lightened
    by glare, looks like the tiles' ivory); a lower part of a tile boxed across it (``_bridged``) closes it."""
    x1, x2 = det.xyxy[:, 0], det.xyxy[:, 2]
    mid = (x1 + x2) / 2
    parts = _parts(det, row, tall, unit)
    sideways = [j for j in row if j not in tall and j not in parts]
    top, bottom = float(np.median(det.xyxy[tall, 1])), float(np.median(det.xyxy[tall, 3]))
    joined = []
    for a, b in zip(tall, tall[1:]):
        hole = 0.0 if _bridged(det, parts, a, b, unit) else float(x1[b] - x2[a])
        face = hole <= TOUCH * unit or hole <= widest * unit and _hole_not_table(lab, x2[a], x1[b], top, bottom, tile) \
            and (hole <= INSIDE * unit or _shows_ink(lab, x2[a], x1[b], top, bottom, tile))
        joined.append(face and not (any(mid[a] < mid[j] < mid[b] for j in sideways) or a in used or b in used))
    return joined


def _shows_ink(lab: LabView, a: float, b: float, top: float, bottom: float, tile: np.ndarray) -> bool:
    """Whether the hole between x = ``a`` and ``b`` of a row shows a face's ink: ``INK_SHARE`` of its pixels at least
    ``INK`` darker than the tiles' ivory."""
    seen = _hole_pixels(lab, a, b, top, bottom, tile)
    return seen is not None and bool((seen[0][..., 0] < tile[0] - INK).mean() >= INK_SHARE)


def _table_past(lab: LabView, det: Detections, row: list[int], i: int, side: int, unit: float, top: float,
                bottom: float, tile: np.ndarray) -> bool:
    """Whether a stretch of touching tiles ends at box ``i``'s edge on ``side`` (-1 left, 1 right): no box of the
    row lies within ``PAST`` tile widths beyond it, and the table shows there (``_table_strip``, where the table's
    colour is told from the tiles')."""
    x1, x2 = det.xyxy[:, 0], det.xyxy[:, 2]
    a, b = (float(x2[i]), float(x2[i]) + PAST * unit) if side > 0 else (float(x1[i]) - PAST * unit, float(x1[i]))
    if any(x2[j] > a and x1[j] < b for j in row if j != i):
        return False
    return _table_strip(lab, a, b, top, bottom, tile, sure=True)


def _meld_past(det: Detections, row: list[int], tall: list[int], i: int, side: int, unit: float, height: float
               ) -> bool:
    """Whether a stretch of standing tiles ends at box ``i``'s edge on ``side`` (-1 left, 1 right) with a meld's
    sideways tile touching it there: a box of the row lower than the standing tiles (``STANDING``) whose near edge
    lies within ``TOUCH`` tile widths of that edge (a kong's three standing tiles, then its sideways one)."""
    x1, y1, x2, y2 = det.xyxy.T
    edge = float(x2[i]) if side > 0 else float(x1[i])
    return any(j not in tall and y2[j] - y1[j] < STANDING * height
               and abs((float(x1[j]) if side > 0 else float(x2[j])) - edge) <= TOUCH * unit for j in row if j != i)


def _skewed_cuts(lab: LabView, det: Detections, row: list[int], tall: list[int], unit: float, pitch: float,
                 height: float, tile: np.ndarray, used: set[int]) -> list[Cut]:
    """The runs of standing boxes out of step with the row's pitch (a box over the halves of two bamboo tiles,
    boxes over a tile's columns of sticks, a box shifted half a tile) between two boxes in step: the tiles between
    those two, as many as their distance holds pitches less one, at equal steps. Only where the anchors' distance
    is a whole number of pitches (within ``FIT``), the boxes between are as tall as the row's tiles or narrow (a
    lower box as wide as a tile may be a meld's sideways tile; a part of a tile may be lower) and no table shows
    between the anchors."""
    x1, y1, x2, y2 = det.xyxy.T
    mid = (x1 + x2) / 2

    def span(first: int, last: int, left_box: bool, right_box: bool) -> tuple[float, float, float, float]:
        """From the anchors' middles, or from a stretch's edge (half a pitch from its end tile's middle): the
        span's ends, the half pitches its edges add and the pitches it holds."""
        lo = float(mid[tall[first - 1]] if left_box else x1[tall[first]])
        hi = float(mid[tall[last + 1]] if right_box else x2[tall[last]])
        edges = 0.5 * ((not left_box) + (not right_box))
        return lo, hi, edges, (hi - lo) / pitch + edges

    cuts = []
    for first, last, left_box, right_box in _spanning(_chains(lab, det, row, tall, unit, pitch, tile, used), span):
        run = tall[first:last + 1]
        lo, hi, edges, pitches = span(first, last, left_box, right_box)
        n = round(pitches) - 1
        if n < 1 or abs(pitches - n - 1) > FIT or n > len(run) + 1 \
                or any(y2[i] - y1[i] < STANDING * height and x2[i] - x1[i] >= NARROW * unit for i in run) \
                or _table_across(lab, float(x2[tall[first - 1]]) if left_box else lo,
                                 float(x1[tall[last + 1]]) if right_box else hi, float(np.median(y1[run])),
                                 float(np.median(y2[run])), unit, tile):
            continue
        step = (hi - lo) / (n + 1 - edges)
        left, right = lo + step / 2 * left_box, hi - step / 2 * right_box
        if n == len(run) and all(abs(mid[i] - left - (j + 0.5) * step) <= IN_STEP * pitch for j, i in enumerate(run)) \
                and (abs(pitches - n - 1) > IN_STEP or all(_room(det, row, i, unit) for i in run
                                                            if x2[i] - x1[i] < NARROW * unit)):
            continue  # (in step after all: a narrow box where it should be only grows, ``_widened``; one with no
            # room boxed again only where its anchors lie a whole number of pitches apart: else a phantom in a gap)
        cuts.append((run, left, right, n))
        used.update(run)
        used.update(_parts_within(det, row, tall, lo, hi))
    return cuts


def _spanning(chains: list[tuple[int, int, bool, bool]],
              span: Callable[[int, int, bool, bool], tuple[float, float, float, float]]
              ) -> list[tuple[int, int, bool, bool]]:
    """``chains`` (``_chains``) with two runs joined into one where neither's anchors lie a whole number of pitches
    apart (within ``FIT``) and the joined run's do, with at most ``AROUND`` - 1 boxes between them: boxes a tile
    wide in step with each other but half a pitch off the row's (a narrow box, two boxes each over the halves of
    two tiles, a narrow box: held-out motion15 hand 36 at seed 3, three tiles boxed four times)."""
    def fits(run: tuple[int, int, bool, bool]) -> bool:
        pitches = span(*run)[3]
        return abs(pitches - round(pitches)) <= FIT

    out: list[tuple[int, int, bool, bool]] = []
    for run in chains:
        if out and out[-1][3] and run[2] and 0 < run[0] - out[-1][1] - 1 < AROUND and not fits(out[-1]) \
                and not fits(run) and fits(joined := (out[-1][0], run[1], out[-1][2], run[3])):
            out[-1] = joined
        else:
            out.append(run)
    return out


def _room(det: Detections, row: list[int], i: int, unit: float) -> bool:
    """Whether box ``i`` has a hole beside it (``HOLE``) before the row's next box on either side, to grow into
    (``_widened``); a narrow box in step squeezed between its neighbours has none, and is boxed again at the
    row's pitch instead where its anchors lie a whole number of pitches apart (else it is dropped as a part of a
    tile, and its tile is lost)."""
    x1, x2 = float(det.xyxy[i, 0]), float(det.xyxy[i, 2])
    before, after = _beside(det, row, [i], x1, x2)
    return (before is None or x1 - before > HOLE[0] * unit) or (after is None or after - x2 > HOLE[0] * unit)


def _widened(lab: LabView, det: Detections, row: list[int], tall: list[int], unit: float, height: float,
             tile: np.ndarray, used: set[int]) -> dict[int, tuple[float, float]]:
    """New left and right ends of the narrow standing boxes (not boxed again) with a tile-coloured hole beside them
    before the next box of the row (any box: a meld's sideways tile is lower, not a hole): each grows into its
    holes up to the row's tile width. The finder boxed part of the tile; the rest, cut off, is read as no tile or
    as another face."""
    x1, y1, x2 = det.xyxy[:, 0], det.xyxy[:, 1], det.xyxy[:, 2]
    out = {}
    for i in tall:
        if x2[i] - x1[i] >= NARROW * unit or i in used:
            continue
        ends = _grown(lab, det, row, i, float(y1[i]), float(y1[i] + height), unit, unit, tile)
        if ends is not None:
            out[i] = ends
    return out


def _grown(lab: LabView, det: Detections, row: list[int], i: int, top: float, bottom: float, width: float,
           unit: float, tile: np.ndarray) -> tuple[float, float] | None:
    """Box ``i``'s new left and right ends, grown into the holes beside it (up to the row's next box either side:
    any box, a meld's sideways tile too) where the hole between ``top`` and ``bottom`` is unlike the table, to
    ``width`` at most (the hole may be wider than the tile's lost part: only that is grown into); None where it
    does not grow. (A hole counts from ``HOLE`` tile widths; every caller's box lacks more than that.)"""
    left, right = float(det.xyxy[i, 0]), float(det.xyxy[i, 2])
    room = width - (right - left)
    before, after = _beside(det, row, [i], left, right)
    after = right + room if after is None else min(after, right + room)
    before = left - room if before is None else max(before, left - room)
    new_right = after if after - right > HOLE[0] * unit and _hole_not_table(lab, right, after, top, bottom, tile) \
        else right
    new_left = max(before, new_right - width) if left - before > HOLE[0] * unit \
        and _hole_not_table(lab, before, left, top, bottom, tile) else left
    return None if (new_left, new_right) == (left, right) else (new_left, new_right)


def _phantoms(lab: LabView, det: Detections, tall: list[int], unit: float, tile: np.ndarray, used: set[int],
              down: np.ndarray) -> list[int]:
    """The narrow standing boxes (not boxed again) whose middle shows the table from top to bottom
    (``_table_strip``, sure): the finder's box over the gap between the hand and the winning tile set apart, read
    as some face (held-out neighbours hand 52, a table of wavy grain); they are dropped (a box with no
    replacement). A narrow box over a tile's face shows its ivory or ink there; one the finder sees face down (a
    back as dark as the table) is kept."""
    x1, y1, x2, y2 = det.xyxy.T
    out = []
    for i in tall:
        w = float(x2[i] - x1[i])
        if i in used or down[i] or w >= NARROW * unit:
            continue
        if _table_strip(lab, float(x1[i]) + 0.3 * w, float(x2[i]) - 0.3 * w, float(y1[i]), float(y2[i]), tile, True):
            out.append(i)
    return out


def _sideways_grown(lab: LabView, det: Detections, row: list[int], tall: list[int], unit: float, height: float,
                    tile: np.ndarray, down: np.ndarray) -> dict[int, tuple[float, float]]:
    """New left and right ends of a meld's sideways tiles boxed narrower than they lie: a box of the row as low as
    a sideways tile (``SIDE_HEIGHT`` of the standing tiles' height, ``SIDE_NEAR`` at most), its bottom on theirs,
    narrower than ``SIDE_WIDTH`` tile widths and not seen face down (a concealed kong's back boxed low), grows into
    the tile-coloured holes beside it, up to ``SIDE_GROWN`` tile widths. Why: boxed a third short (held-out hand 25
    under motion blur), the tile reads as another face and looks upright, and the hole left after it sets its
    meld's last tile apart as the winning tile. Two such boxes touching are its two halves, left to ``repair``."""
    x1, y1, x2, y2 = det.xyxy.T
    floor = float(np.median(y2[tall]))
    low = [i for i in row if i not in tall and SIDE_HEIGHT[0] * height <= y2[i] - y1[i] <= SIDE_NEAR * height
           and abs(float(y2[i]) - floor) <= 0.1 * height and not down[i]]
    out = {}
    for i in low:
        if x2[i] - x1[i] >= SIDE_WIDTH[0] * unit or any(
                j != i and x1[j] - TOUCH * unit <= x2[i] and x1[i] <= x2[j] + TOUCH * unit for j in low):
            continue  # (two low boxes touching: a sideways tile's two halves, which ``repair`` joins)
        ends = _grown(lab, det, row, i, float(y1[i]), float(y2[i]), SIDE_GROWN * unit, unit, tile)
        if ends is not None:
            out[i] = ends
    return out


def _tiles_of(det: Detections, cut: Cut, nearest: bool, unit: float) -> list[tuple[list[float], float, float]]:
    """The equal tiles of a cut, each with the score and face-down score of an old box: the one whose middle is
    nearest its middle (``nearest``), else the one that overlaps it most. Each is boxed as wide as the row's boxes
    (``unit``) where they are wider than its share of the span, as the finder boxes the row's other tiles: cuts
    that only touch would make the row's gaps look wider than they are and split its groups."""
    run, left, right, n = cut
    x1, y1, x2, y2 = det.xyxy.T
    top, bottom = float(np.median(y1[run])), float(np.median(y2[run]))
    step = (right - left) / n
    half = max(step, unit) / 2
    out = []
    for j in range(n):
        mid = left + (j + 0.5) * step
        a, b = mid - half, mid + half
        if nearest:
            under = min(run, key=lambda i: abs((x1[i] + x2[i]) / 2 - left - (j + 0.5) * step))
        else:
            under = max(run, key=lambda i: _overlap(x1[i], x2[i], a, b))
        back = 0.0 if det.back_score is None else float(det.back_score[under])
        out.append(([a, top, b, bottom], float(det.confidence[under]), back))
    return out


def regridded(img: np.ndarray, det: Detections) -> Detections:
    """``det`` (boxes in ``img``'s pixels, rows running across) with each run of boxes out of step boxed again one
    tile at a time, then each stretch of touching tiles boxed with too many or too few boxes boxed again at its
    length's count (``_recounted``)."""
    if len(det) < 4 or img.ndim != 3 or squashed(det.xyxy):  # (a photo stretched to a square: slivers, no pitch)
        return det
    lab = LabView(img)
    return _recounted(lab, _boxed_again(lab, _without_parts(det)))


def _without_parts(det: Detections) -> Detections:
    """``det`` without the boxes far lower than the tiles (under ``PART`` of the 75th percentile of the boxes'
    heights) that lie within a tile-high box's height and beside it: a bamboo tile's groups of sticks, each boxed
    (held-out hand 43, a kong of nines), would break its row into slivers that no run of the row's pitch fits.
    A small tile elsewhere (a discard further away, in no tile's band) stays."""
    x1, y1, x2, y2 = det.xyxy.T
    tile = float(np.percentile(y2 - y1, 75))
    high = y2 - y1 >= PART * tile
    cy = (y1 + y2) / 2
    parts = {int(i) for i in np.flatnonzero(~high) if np.any(high & (y1 <= cy[i]) & (cy[i] <= y2)
                                                             & (x1 - 0.8 * tile <= x2[i]) & (x1[i] <= x2 + 0.8 * tile))}
    return det[[i for i in range(len(det)) if i not in parts]] if parts else det


def _recounted(lab: LabView, det: Detections) -> Detections:
    """``det`` with each stretch of touching standing tiles, the table at both its ends, whose length holds a whole
    number of pitches (within ``RECOUNT_FIT``) one more or one fewer than its boxes, boxed again as that many
    tiles at equal steps; so is a short one (a meld's tiles, the table or its sideways tile at either end) that
    holds as many (within ``FIT``) as its boxes, one of them narrow (out of step: a tile boxed in part, the next
    box over the rest and half the next tile), and one boxed two or more boxes too many, most of them narrow (a
    tile's columns of sticks each boxed; a sideways tile may end it too), its lower parts of tiles dropped with it
    (``_recount_kind``). Why: boxes each in step with the one before may still drift a third of a tile over a few
    bamboo tiles, and one tile is lost or one too many read, where the stretch's length tells the count."""
    x1, y1, x2, y2 = det.xyxy.T
    tiles: list[tuple[list[float], float, float]] = []
    cut: list[int] = []
    for row, (tall, unit, pitch, height), tile in _neat_rows(lab, det):
        for run in _stretches(_joined(lab, det, row, tall, unit, tile, set(), RECOUNT_HOLE), tall):
            top, bottom = float(np.median(y1[run])), float(np.median(y2[run]))
            lo, hi = float(x1[run[0]]), float(x2[run[-1]])
            est = (hi - lo - (unit - pitch)) / pitch  # (boxes overlap by unit - pitch)
            n = round(est)
            narrow = [i for i in run if x2[i] - x1[i] < NARROW * unit]
            kind = _recount_kind(est, len(run), len(narrow))
            if kind is None or n < 2 or any(y2[i] - y1[i] < RECOUNT_STANDING * height for i in run
                                            if not (kind == "split" and i in narrow)) \
                    or not all(_table_past(lab, det, row, i, side, unit, top, bottom, tile)
                               or kind != "one" and _meld_past(det, row, tall, i, side, unit, height)
                               for i, side in ((run[0], -1), (run[-1], 1))) \
                    or _table_across(lab, lo, hi, top, bottom, unit, tile, lines=True):
                continue
            step = (hi - lo - unit) / (n - 1)
            span = (run, lo + (unit - step) / 2, hi - (unit - step) / 2, n)
            tiles += _tiles_of(det, span, nearest=True, unit=unit)
            cut += run + (_parts_within(det, row, tall, lo, hi) if kind == "split" else [])
    return _replaced(det, tiles, cut)


def _recount_kind(est: float, boxes: int, narrow: int) -> str | None:
    """How a stretch of ``boxes`` boxes (``narrow`` of them narrow) whose length holds ``est`` pitches is boxed
    again at its count: "one" (one box too many or too few, within ``RECOUNT_FIT``), "split" (two or more too many,
    more of them narrow than too many: a tile's columns of sticks each boxed, held-out upright hand 42 at seed 4, a
    kong of nines; within ``RECOUNT_FIT``), "skewed" (as many, at most ``SKEWED_MOST``, one of them narrow: out of
    step over the stretch; within ``FIT``), or None (not boxed again)."""
    n = round(est)
    if abs(est - n) <= RECOUNT_FIT and abs(n - boxes) == 1:
        return "one"
    if abs(est - n) <= RECOUNT_FIT and boxes - n >= 2 and narrow > boxes - n:
        return "split"
    return "skewed" if n == boxes <= SKEWED_MOST and narrow and abs(est - n) <= FIT else None


def _replaced(det: Detections, tiles: list[tuple[list[float], float, float]], cut: list[int]) -> Detections:
    """``det`` with the boxes ``cut`` replaced by ``tiles`` (each a box, its score and its face-down score)."""
    keep = [i for i in range(len(det)) if i not in cut]
    if not tiles:
        return det[keep] if cut else det
    added = Detections(np.array([t[0] for t in tiles], np.float32), np.array([t[1] for t in tiles], np.float32),
                       back_score=None if det.back_score is None else np.array([t[2] for t in tiles], np.float32))
    return Detections.boxes_of([det[keep], added])


def _neat_rows(lab: LabView, det: Detections
               ) -> Iterator[tuple[list[int], tuple[list[int], float, float, float], np.ndarray]]:
    """Each neat row of ``det`` (``_neat_row``: its standing boxes, tile width, pitch and height) with its tiles'
    colour; a row too short to measure takes a neat row's measures where its tiles match them (``_short_row``);
    loose rows, and rows whose tiles' colour is not measured, are passed over."""
    standing = upright(det.xyxy[:, 2] - det.xyxy[:, 0], det.xyxy[:, 3] - det.xyxy[:, 1])
    washed = washed_boxes(lab.img, det.xyxy, WASHED)
    rows = rows_of(det)
    neat = [_neat_row(det, row, standing, washed) for row in rows]
    colours = [None if m is None else tiles_colour(lab, det, [i for i in row if standing[i]])
               for row, m in zip(rows, neat)]
    measured = [(m, c) for m, c in zip(neat, colours) if m is not None and c is not None]
    for row, m, c in zip(rows, neat, colours):
        if m is None:
            m, c = _short_row(det, row, standing, measured)
        if m is not None and c is not None:
            yield row, m, c


def _short_row(det: Detections, row: list[int], standing: np.ndarray,
               measured: list[tuple[tuple[list[int], float, float, float], np.ndarray]]
               ) -> tuple[tuple[list[int], float, float, float] | None, np.ndarray | None]:
    """A row too short to measure (a second row's melds: too few standing tiles side by side for a pitch) with
    the tile width, pitch and colour of the neat row whose tile width and height its standing boxes' match best,
    each within ``BORROW`` (one tile set; a pitched phone's nearer row is larger and borrows none, and neither
    does a row of the table's scattered discards, turned and larger): its boxes as tall as those, its width,
    pitch and height. Held-out motion15 hand 11 (seed 4): a concealed kong's two faces boxed as one. Its width is
    measured without slivers: a row whose bamboo tiles are each boxed as two columns of sticks has too few whole
    tiles touching for a pitch of its own, and they would make it look narrower than its tiles (held-out upright
    hand 43, seed 6)."""
    x1, y1, x2, y2 = det.xyxy.T
    w, h = x2 - x1, y2 - y1
    own = [i for i in row if standing[i]]
    if len(own) < 2:
        return None, None
    whole = _unsplit(w, h, own) or own  # (a tile's columns of sticks, each boxed: no width)
    width, height = float(np.median(w[whole])), float(np.median(h[own]))
    like = [(abs(m[1] - width) / m[1], m, c) for m, c in measured
            if abs(m[3] - height) <= BORROW * m[3] and abs(m[1] - width) <= BORROW * m[1]]
    tall = sorted((i for i in row if h[i] >= 0.85 * height), key=lambda i: float(x1[i]))
    if not like or len(tall) < 2:
        return None, None
    _, (_, unit, pitch, _), colour = min(like, key=lambda t: t[0])
    return (tall, unit, pitch, height), colour


def _stretches(joined: list[bool], tall: list[int]) -> list[list[int]]:
    """``tall`` cut where two neighbours are not ``joined``: its stretches of touching tiles."""
    out, run = [], tall[:1]
    for k, i in enumerate(tall[1:]):
        if joined[k]:
            run.append(i)
        else:
            out.append(run)
            run = [i]
    return out + [run] if run else out


def _boxed_again(lab: LabView, det: Detections) -> Detections:
    """``det`` with each run of boxes out of step boxed again one tile at a time (the cuts above)."""
    tiles: list[tuple[list[float], float, float]] = []
    cut: list[int] = []
    grown: dict[int, tuple[float, float]] = {}
    down = finder_backs(det)  # (face down: no phantom over the table, never a sideways tile)
    for row, (tall, unit, pitch, height), colour in _neat_rows(lab, det):
        used: set[int] = set()
        for c in _wide_cuts(lab, det, row, tall, unit, pitch, height, colour, used):
            tiles += _tiles_of(det, c, nearest=True, unit=unit)
        for c in _uneven_cuts(lab, det, row, tall, unit, pitch, height, colour, used):
            tiles += _tiles_of(det, c, nearest=True, unit=unit)
        for c in _skewed_cuts(lab, det, row, tall, unit, pitch, height, colour, used):
            tiles += _tiles_of(det, c, nearest=True, unit=unit)
        for c in _narrow_cuts(det, row, tall, unit, pitch, used):
            tiles += _tiles_of(det, c, nearest=False, unit=unit)
        used.update(_phantoms(lab, det, tall, unit, colour, used, down))  # (cut with no tile in their place)
        grown.update(_widened(lab, det, row, tall, unit, height, colour, used))
        grown.update(_sideways_grown(lab, det, row, tall, unit, height, colour, down))
        cut += sorted(used)
    if grown:
        det = det.copy()
        for i, (left, right) in grown.items():
            det.xyxy[i, 0], det.xyxy[i, 2] = left, right
    return _replaced(det, tiles, cut)
