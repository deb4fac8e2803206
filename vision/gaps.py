"""Filling a hole in a row of touching tiles where the finder saw no tile but the photo shows one.

Why: a tile design the finder never saw loses whole tiles inside a row (a bamboo tile of flat sticks, a blank
white dragon), where its neighbours touch it on both sides (issue 39: "tiles found" 92-99 %). A hand's tiles lie
edge to edge within a group; between groups lies the table. So a hole between two whole tiles of a row that is
one to three tile widths wide (``FILL``), and that looks like the row's tiles rather than like the table just
above or below the row, is that many tiles: their boxes are added (replacing any parts of them the finder boxed
there), and the classifier names them like any other (its doubt, and the rules' correction, apply as usual). A
hole that looks like the table (a gap between groups, the winning tile set apart) is left as it is.
"""

from __future__ import annotations

import cv2
import numpy as np

from .detections import Detections
from .layout import rows_of
from .repair import SIDE_HEIGHT, SIDE_WIDTH, upright

FILL = 3  # the most tiles one hole is filled with
FIT = 0.3  # how far (tile widths) a hole may be from a whole number of tiles
LIKE_TILES = 0.3  # a line of a hole is a tile's where this share of its pixels is nearer the tiles' colour
TABLE_APART = 12.0  # and the tiles' colour at least this far from the table's (Lab units), or nothing is told
BORROW = 0.15  # a short row takes another row's tile size where their heights differ by this share at most
FILLED_SCORE = 0.5  # the finder's score given to a filled box (the classifier's doubt flags it when unsure)


class LabView:
    """The photo's Lab colours (8-bit Lab, as floats), converted region by region as they are asked for: the
    tiles' middles and the holes are a small part of a 12-MP working copy, which costs 6 ms to convert whole."""

    def __init__(self, img: np.ndarray) -> None:
        self.img = img
        self.shape = img.shape

    def region(self, ya: int, yb: int, xa: int, xb: int) -> np.ndarray:
        """Rows ya..yb, columns xa..xb (within the photo) in Lab, float32."""
        return cv2.cvtColor(np.ascontiguousarray(self.img[ya:yb, xa:xb]), cv2.COLOR_BGR2LAB).astype(np.float32)


def lab_mean(lab: LabView, x1: float, y1: float, x2: float, y2: float) -> np.ndarray | None:
    """The mean Lab colour of a region of the picture, or None where the region is empty."""
    h, w = lab.shape[:2]
    a, b, c, d = int(max(0, x1)), int(max(0, y1)), int(min(w, x2)), int(min(h, y2))
    if c - a < 2 or d - b < 2:
        return None
    return lab.region(b, d, a, c).reshape(-1, 3).mean(0)


def tiles_colour(lab: LabView, det: Detections, boxes: list[int]) -> np.ndarray | None:
    """The row's tiles' Lab colour: the median of the middles (a 15 % margin off each side) of ``boxes``; None
    where fewer than 3 of them lie in the photo."""
    x1, y1, x2, y2 = det.xyxy.T
    w, h = x2 - x1, y2 - y1
    middles = [m for i in boxes if (m := lab_mean(lab, x1[i] + 0.15 * w[i], y1[i] + 0.15 * h[i],
                                                  x2[i] - 0.15 * w[i], y2[i] - 0.15 * h[i])) is not None]
    return np.median(np.array(middles), 0) if len(middles) >= 3 else None


def nearer_tiles(px: np.ndarray, tile: np.ndarray, table: np.ndarray) -> np.ndarray:
    """Per pixel of ``px`` (Lab), whether it is nearer the tiles' colour ``tile`` than the table's ``table``."""
    return np.linalg.norm(px - tile, axis=2) < np.linalg.norm(px - table, axis=2)


def table_beside(lab: LabView, a: float, b: float, top: float, bottom: float, height: float, tile: np.ndarray
                 ) -> np.ndarray | None:
    """The table's Lab colour just above or below a hole between x = ``a`` and ``b`` of a row (``top`` to
    ``bottom``; ``height``: its tiles' height): of the two, the one further from the tiles' colour ``tile`` (the
    other may hold another row); None where neither lies in the photo."""
    above = lab_mean(lab, a, top - 0.6 * height, b, top - 0.15 * height)
    below = lab_mean(lab, a, bottom + 0.15 * height, b, bottom + 0.6 * height)
    tables = [t for t in (above, below) if t is not None]
    return max(tables, key=lambda t: float(np.linalg.norm(t - tile))) if tables else None


def filled_holes(img: np.ndarray, det: Detections) -> Detections:
    """``det`` (boxes in ``img``'s pixels, rows running across) with the tiles of its rows' holes added."""
    if len(det) < 4 or img.ndim != 3:
        return det
    lab = LabView(img)
    x1, y1, x2, y2 = det.xyxy.T
    h = y2 - y1
    new: list[list[float]] = []
    parts: set[int] = set()
    whole = upright(x2 - x1, h)
    rows = rows_of(det)
    measures = [row_tiles(lab, det, row, whole, 3) for row in rows]
    for row, measured in zip(rows, measures):
        measured = measured or _borrowed(det, row, whole, measures)
        if measured is None:
            continue
        _, unit, height, tile = measured
        # a hole's edges: the row's standing tiles, and a meld's sideways tile (lower, as wide as a tile is high)
        edges = sorted((i for i in row if h[i] >= 0.85 * height
                        or x2[i] - x1[i] >= SIDE_WIDTH[0] * unit and h[i] >= SIDE_HEIGHT[0] * height),
                       key=lambda i: x1[i])
        for a, b in zip(edges, edges[1:]):
            box = _hole(lab, det, row, a, b, unit, height, tile)
            if box is not None:
                new += box[0]
                parts.update(box[1])  # (parts of the missed tiles the finder boxed: the filled boxes replace them)
    if not new:
        return det
    keep = [i for i in range(len(det)) if i not in parts]
    return Detections.boxes_of([det[keep], filled_boxes(det, new)])


def row_tiles(lab: LabView, det: Detections, row: list[int], whole: np.ndarray, least: int
              ) -> tuple[list[int], float, float, np.ndarray] | None:
    """A row's whole standing boxes (``whole``) as tall as its tiles, its tile width and height (medians over its
    whole standing boxes, ``least`` of them at least) and its tiles' colour (``tiles_colour``); None where it has
    fewer such boxes or the colour is not measured."""
    w, h = det.xyxy[:, 2] - det.xyxy[:, 0], det.xyxy[:, 3] - det.xyxy[:, 1]
    full = [i for i in row if whole[i]]
    if len(full) < least:
        return None
    unit, height = float(np.median(w[full])), float(np.median(h[full]))
    full = [i for i in full if h[i] >= 0.85 * height]
    tile = tiles_colour(lab, det, full)
    return None if tile is None else (full, unit, height, tile)


def _borrowed(det: Detections, row: list[int], whole: np.ndarray,
              measures: list[tuple[list[int], float, float, np.ndarray] | None]
              ) -> tuple[list[int], float, float, np.ndarray] | None:
    """A short row's measures (a second row's lone meld, too few whole boxes to measure): the tile width, height
    and colour of the measured row whose height its tallest box matches (within ``BORROW``): one tile set; where
    none does, its own width and height where it is a meld's part (``_meld_measures``), with a measured row's
    colour."""
    own = [i for i in row if whole[i]]
    if not own:
        return None
    tallest = float(max(det.xyxy[i, 3] - det.xyxy[i, 1] for i in own))
    like = [m for m in measures if m is not None and abs(m[2] - tallest) <= BORROW * m[2]]
    if like:
        return (own, *like[0][1:])
    colours = [m[3] for m in measures if m is not None]
    meld = _meld_measures(det, row, own)
    return None if meld is None or not colours else (own, *meld, colours[0])


def _meld_measures(det: Detections, row: list[int], own: list[int]) -> tuple[float, float] | None:
    """A short row's own tile width and height where it is a meld's part: a standing box (the tallest whole one)
    and a sideways tile of its proportions (``SIDE_HEIGHT`` of its height, ``SIDE_WIDTH`` of its width). A second
    row of melds nearer a pitched phone is larger than the hand's row, so it borrows no other row's size (held-out
    pitch45 hand 19, seed 1: a pung's middle tile unboxed)."""
    x1, y1, x2, y2 = det.xyxy.T
    w, h = x2 - x1, y2 - y1
    i = max(own, key=lambda j: float(h[j]))
    if not any(SIDE_HEIGHT[0] * h[i] <= h[j] <= SIDE_HEIGHT[1] * h[i]
               and SIDE_WIDTH[0] * w[i] <= w[j] <= SIDE_WIDTH[1] * w[i] for j in row if j not in own):
        return None
    return float(w[i]), float(h[i])


def filled_boxes(det: Detections, new: list[list[float]]) -> Detections:
    """Boxes ``new`` that the finder did not draw, as detections beside ``det``'s: scored ``FILLED_SCORE`` (the
    classifier's doubt flags them when unsure) and face up."""
    return Detections(np.array(new, np.float32), np.full(len(new), FILLED_SCORE, np.float32),
                      back_score=None if det.back_score is None else np.zeros(len(new), np.float32))


def _hole(lab: LabView, det: Detections, row: list[int], a: int, b: int, unit: float, height: float,
          tile: np.ndarray) -> tuple[list[list[float]], list[int]] | None:
    """The tiles filling the hole between whole tiles ``a`` and ``b`` of a row (and the boxes inside it they
    replace), or None where it holds none. The tile-coloured band of the hole gives the boxes' top and bottom: a
    band about three quarters of the row's height is a meld's sideways tile (one, ``SIDE_WIDTH`` wide)."""
    x1, y1, x2, y2 = det.xyxy.T
    w, h = x2 - x1, y2 - y1
    hole = float(x1[b] - x2[a])
    if hole < 0.7 * unit:
        return None
    inside = [i for i in row if x2[a] - 0.1 * unit < (x1[i] + x2[i]) / 2 < x1[b] + 0.1 * unit and i not in (a, b)]
    if any(w[i] > h[i] and h[i] >= 0.55 * height for i in inside):
        return None  # (a meld's sideways tile lies there, found)
    top, bottom = float(min(y1[a], y1[b])), float(max(y2[a], y2[b]))
    table = table_beside(lab, float(x2[a]), float(x1[b]), top, bottom, height, tile)
    if table is None:
        return None
    if float(np.linalg.norm(tile - table)) < TABLE_APART:
        return None
    H = lab.shape[0]
    ya, yb = int(max(0, top)), int(min(H, bottom))
    xa, xb = int(x2[a] + 0.1 * unit), int(x1[b] - 0.1 * unit)
    if yb - ya < 4 or xb - xa < 2:
        return None
    # line by line, the share of the hole's pixels nearer the tiles' colour than the table's
    px = lab.region(ya, yb, xa, xb)
    like = nearer_tiles(px, tile, table).mean(1) >= LIKE_TILES
    if not like.any():
        return None
    first, last = int(np.argmax(like)), len(like) - 1 - int(np.argmax(like[::-1]))
    band = last - first + 1
    if like[first:last + 1].mean() < 0.8 or band < 0.55 * height:
        return None
    if band < 0.85 * height:  # a sideways tile's height: one sideways tile, or none
        if not SIDE_WIDTH[0] * unit <= hole <= SIDE_WIDTH[1] * unit:
            return None
        return [[float(x2[a]), float(ya + first), float(x1[b]), float(ya + last + 1)]], inside
    n = int(round(hole / unit))
    if not 1 <= n <= FILL or abs(hole - n * unit) > FIT * unit:
        return None
    step = hole / n
    # each as wide as the row's boxes, which overlap their neighbours (a box the hole's width, narrower than the
    # tile, would look like a phantom squeezed between two tiles to ``repair``)
    half = max(step, unit) / 2
    mids = [float(x2[a] + (k + 0.5) * step) for k in range(n)]
    return [[m - half, top, m + half, bottom] for m in mids], inside
