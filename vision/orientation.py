"""Which way up the photo is, found from the tiles themselves (chat apps strip the EXIF tag that would say).

A photo turned by a quarter shows its tiles landscape as a rule: the reader then reads it turned upright
(``TileReader.read``). The classifier cannot tell a tile from the same tile upside down (it is trained on both),
so half of those turns, and every photo taken from across the table, come out upside down; the layout then
tells: the winning tile is set apart at the right end of the hand (the convention the layout reads), so a lone
tile lying just left of the longest group, with none just right of it, means the photo is upside down.
"""

from __future__ import annotations

import cv2
import numpy as np

from .detections import Detections
from .layout import FLOWERS, along_rows, apart_by_size, apart_from_hand, laid_out, row_groups, rows_of

EDGE_SIDE = 640  # pixels: the long side the edges' slant is measured at
EDGE_BLUR = 1.5  # pixels (at EDGE_SIDE): the blur that leaves a tile's outline and takes off a mat's weave
UPRIGHT_RUN = 5  # portrait boxes touching side by side in a row that show a hand as shot (not turned)
TOUCHING = 0.3  # the widest gap between them, a share of a tile's width (a hand's tiles touch)
LINE_RUN = 6  # portrait boxes in one line, a little apart, that show a hand of melds as shot (no run of 5 touching)
LINE_GAP = 1.6  # the widest gap between them, in tile widths (a meld's sideways tile or a gap between groups)


def edge_slant(img: np.ndarray, boxes: np.ndarray | None = None) -> tuple[float, float]:
    """The slant of the photo's edges modulo a quarter turn, in degrees in (-45, 45] (signed as ``row_direction``),
    and how well they agree (0-1): tiles are rectangles, so the edges of a hand turned in the photo's plane run
    along and across its rows, even where the finder sees too little of it to give rows. Measured in ``boxes``'
    region (enlarged by a box on each side) when there are some, else over the whole photo."""
    scale = min(1.0, EDGE_SIDE / max(img.shape[:2]))
    small = cv2.resize(img, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else img
    if boxes is not None and len(boxes):
        b = boxes * scale
        pad = float(np.median(np.maximum(b[:, 2] - b[:, 0], b[:, 3] - b[:, 1])))
        x1, y1 = (max(int(v - pad), 0) for v in b[:, :2].min(0))
        x2, y2 = int(b[:, 2].max() + pad), int(b[:, 3].max() + pad)
        small = small[y1:y2, x1:x2]
    grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY).astype(np.float32) if small.ndim == 3 else small.astype(np.float32)
    if min(grey.shape) < 8:
        return 0.0, 0.0
    # (a light blur first: the weave of a cloth mat runs along the picture's axes and would outweigh the tiles)
    grey = np.asarray(cv2.GaussianBlur(grey, (0, 0), EDGE_BLUR), np.float32)
    gx, gy = cv2.Sobel(grey, cv2.CV_32F, 1, 0), cv2.Sobel(grey, cv2.CV_32F, 0, 1)
    # an edge's normal at angle a and one at a + 90 degrees are the same rectangle's: 4a folds them together. Each
    # gradient g = gx + i gy weighs |g| e^(4ia) = g^4 / |g|^3, computed without trigonometry (8x faster here)
    square = gx * gx + gy * gy
    re2, im2 = gx * gx - gy * gy, 2.0 * gx * gy  # g^2
    weight = np.sqrt(square)
    per = 1.0 / np.maximum(square * weight, 1e-12)
    z = complex(float(((re2 * re2 - im2 * im2) * per).sum()), float((2.0 * re2 * im2 * per).sum()))
    z /= max(float(weight.sum()), 1e-6)
    return float(np.degrees(np.angle(z) / 4)), abs(z)


def finder_backs(det: Detections) -> np.ndarray:
    """Which boxes the finder scores as face down more than face up (none where it has no such class)."""
    if det.back_score is None or not len(det):
        return np.zeros(len(det), bool)
    return np.asarray(det.back_score, np.float64) > 0.5


def landscape(det: Detections, sure: float = 0.5, most: float = float("inf"), least: float = 1.0) -> bool:
    """Whether the boxes the finder is fairly sure of are landscape as a rule (at least three of them): a median
    width-to-height ratio over ``least`` and at most ``most``. Boxes the finder takes for face-down tiles do not
    count: a wall of backs standing edge-on is wide whichever way the photo lies."""
    xyxy = det.xyxy[(det.confidence >= sure) & ~finder_backs(det)]
    if len(xyxy) < 3:
        return False
    ratio = float(np.median((xyxy[:, 2] - xyxy[:, 0]) / np.maximum(xyxy[:, 3] - xyxy[:, 1], 1e-6)))
    return least < ratio <= most


def upright_run(det: Detections, sure: float = 0.5) -> bool:
    """Whether the finder is sure of ``UPRIGHT_RUN`` or more portrait boxes touching side by side in one row: a
    hand's concealed tiles as shot, which a photo turned by a quarter cannot show (its tiles lie landscape, one
    above another). The wall of backs and the discards around a hand can make the boxes landscape as a rule."""
    return run_aspect(det, sure) is not None


def _longest_run(boxes: Detections, rows: list[list[int]], most_gap: float) -> list[int]:
    """The longest run of boxes along one of ``rows`` with gaps of at most ``most_gap`` box widths between them."""
    best: list[int] = []
    for row in rows:
        run = [row[0]]
        for a, b in zip(row, row[1:]):
            gap = float(boxes.xyxy[b, 0] - boxes.xyxy[a, 2])
            run = run + [b] if gap <= most_gap * float(boxes.sizes[a, 0]) else [b]
            if len(run) > len(best):
                best = list(run)
    return best


def run_aspect(det: Detections, sure: float = 0.5) -> float | None:
    """The median width over height of the longest run of sure portrait boxes touching side by side (see
    ``upright_run``), or failing that of ``LINE_RUN`` or more lying in one line a little apart (a hand of melds);
    None where there is neither: the shape of the hand's upright tiles, whatever the wall and the discards around
    it look like."""
    w, h = det.sizes.T if len(det) else (np.zeros(0), np.zeros(0))
    keep = det[(det.confidence >= sure) & (h > 1.1 * w)]
    if len(keep) < UPRIGHT_RUN:
        return None
    rows = rows_of(keep)
    best = _longest_run(keep, rows, TOUCHING)
    if len(best) < UPRIGHT_RUN:
        # a hand of melds has no five upright tiles touching: its upright tiles in one line, a little apart
        best = _longest_run(keep, rows, LINE_GAP)
        if len(best) < LINE_RUN or not laid_out(keep, best):
            return None
    sizes = keep.sizes[np.array(best)]
    return float(np.median(sizes[:, 0] / np.maximum(sizes[:, 1], 1e-6)))


MELD_MOST = 4  # tiles of a meld at most (a kong)
FLOWER_SHARE = 1 / 3  # a group this much flowers or more is the flowers set apart (the rest: dragons, in Nanjing)


def upside_down(det: Detections) -> bool:
    """Whether the hand lies upside down. Read in order (rows top to bottom, groups left to right, groups of flowers
    only left out), a hand is laid out as the page asks: the concealed tiles, the winning tile set apart at their
    right, then the melds (three or four tiles, a sideways or face-down one among them) and the flowers. Upside
    down, the plain groups come after those, and a lone tile has plain tiles after it rather than before; a photo
    is turned only when the two together say so (no melds and no lone tile: as it is)."""
    if len(det) < 5:
        return False
    det = along_rows(det)  # rows at a slant (a photo turned in its plane): read along their own direction
    keep = np.setdiff1d(np.arange(len(det)), apart_by_size(det))
    sub = det[keep]
    sub = sub[np.setdiff1d(np.arange(len(sub)), apart_from_hand(sub))]  # the hand only, not the table around it
    codes, side, down = sub.codes, sub.sideways, sub.face_down
    order = [g for row in rows_of(sub) for g in row_groups(sub, row)
             if not all(codes[i] in FLOWERS for i in g)]
    # a meld is three or four tiles, one sideways or face down, and flowers set apart come after the hand too; a
    # longer group with a sideways tile, or one with a tile or two read as flowers among many faces (the concealed
    # tiles, a tile misread), is plain
    plain = [not ((len(g) <= MELD_MOST and any(side[i] or down[i] for i in g))
                  or sum(codes[i] in FLOWERS for i in g) >= FLOWER_SHARE * len(g)) for g in order]
    # plain groups (concealed tiles, winning tile) before the melds: upright; after them: upside down
    pairs = [(1 if p > m else -1) for p in range(len(order)) if plain[p] for m in range(len(order)) if not plain[m]]
    score = sum(pairs) / len(pairs) if pairs else 0.0
    for k, g in enumerate(order):  # a lone plain tile: plain tiles before it (upright) or after it (upside down)
        if len(g) != 1 or not plain[k]:
            continue
        before = k > 0 and plain[k - 1]
        after = k + 1 < len(order) and plain[k + 1]
        score += (after and not before) - (before and not after)
    return score > 0
