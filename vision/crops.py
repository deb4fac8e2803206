"""Tile crops for the classifier, cut the same way in training and at run time."""

from __future__ import annotations

import cv2
import numpy as np

CROP_SIZE = 64
CROP_PAD = 0.08


def tile_crop(img: np.ndarray, box: np.ndarray | tuple[float, float, float, float], size: int = CROP_SIZE,
              pad: float = CROP_PAD, turn: bool | None = None) -> tuple[np.ndarray, bool]:
    """Cut one box (padded by ``pad`` of its size) and resize to size x size, turned upright when ``turn``.

    ``turn`` None means: turn landscape boxes. Returns the BGR crop and whether it was turned.
    """
    h, w = img.shape[:2]
    x1, y1, x2, y2 = (float(v) for v in box)
    bw, bh = x2 - x1, y2 - y1
    px, py = bw * pad, bh * pad
    xa, ya = max(0, int(round(x1 - px))), max(0, int(round(y1 - py)))
    xb, yb = min(w, int(round(x2 + px))), min(h, int(round(y2 + py)))
    crop = img[ya:max(yb, ya + 1), xa:max(xb, xa + 1)]
    sideways = bw > 1.1 * bh if turn is None else turn
    return _as_crop(crop, sideways, size), sideways


def _as_crop(patch: np.ndarray, sideways: bool, size: int) -> np.ndarray:
    """A cut-out tile as the classifier's square crop: turned upright when it lies sideways, then resized."""
    if sideways:
        patch = cv2.rotate(patch, cv2.ROTATE_90_CLOCKWISE)
    interp = cv2.INTER_AREA if patch.shape[0] > size else cv2.INTER_LINEAR
    return cv2.resize(patch, (size, size), interpolation=interp)


def crops_to_batch(crops: list[np.ndarray]) -> np.ndarray:
    """BGR uint8 crops -> float32 NCHW RGB batch in [0, 1]."""
    if not crops:
        return np.zeros((0, 3, CROP_SIZE, CROP_SIZE), np.float32)
    arr = np.stack(crops)[..., ::-1].astype(np.float32) / 255.0
    return np.ascontiguousarray(arr.transpose(0, 3, 1, 2))


def aspects(xyxy: np.ndarray) -> np.ndarray:
    """Width over height of each (x1, y1, x2, y2) box."""
    return (xyxy[:, 2] - xyxy[:, 0]) / np.maximum(xyxy[:, 3] - xyxy[:, 1], 1e-6)


def orientation(xyxy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Which boxes to turn upright for the classifier, and which tiles lie sideways relative to the others.

    Compared with the median aspect, so a photo taken at an angle (all tiles look wide) or turned by 90
    degrees (all tiles landscape) does not mark every tile sideways.
    """
    if len(xyxy) == 0:
        return np.zeros(0, bool), np.zeros(0, bool)
    aspect = aspects(xyxy)
    med = float(np.median(aspect))
    if med <= 1.0 or squat(xyxy):
        # a tile turned sideways is about 1/med wide (1.3-1.5 for real tiles); seen at an angle, or cut a little
        # tight, it can come out barely landscape, so 1.3 x the median is the test, and landscape at least
        side = aspect > max(1.0, 1.3 * med)
        return side, side
    return aspect > 1.0, aspect < med / 1.3


SQUAT = 1.2  # the widest median box of upright tiles seen from a phone pitched steeply (about 45 degrees)


def squat(xyxy: np.ndarray) -> bool:
    """Whether boxes just landscape as a rule (median width over height 1.0-1.2) are upright tiles foreshortened
    by a steep pitch, not a photo turned by a quarter (1.3 and more) nor loose tiles lying every which way: they
    lie side by side in rows, some are far wider still (the melds' sideways tiles, 1.3 times the median or more),
    and none is clearly portrait."""
    aspect = aspects(xyxy)
    med = float(np.median(aspect)) if len(aspect) else 0.0
    return (1.0 < med <= SQUAT and bool((aspect > 1.3 * med).any()) and not bool((aspect < med / 1.3).any())
            and side_by_side(xyxy))


def side_by_side(xyxy: np.ndarray) -> bool:
    """Whether the boxes' nearest neighbours lie beside them rather than above or below, as a rule (at least four
    boxes): tiles in rows across the photo (a hand as shot), where a photo turned by a quarter has them in
    columns."""
    if len(xyxy) < 4:
        return False
    c = np.stack([(xyxy[:, 0] + xyxy[:, 2]) / 2, (xyxy[:, 1] + xyxy[:, 3]) / 2], 1)
    d = np.linalg.norm(c[:, None] - c[None], axis=2)
    np.fill_diagonal(d, np.inf)
    near = c[d.argmin(1)] - c
    return float(np.mean(np.abs(near[:, 0]) > np.abs(near[:, 1]))) > 0.5


def quarter_turnable(xyxy: np.ndarray, low: float = 0.8) -> np.ndarray:
    """Boxes whose upright end the turn rule of ``orientation`` may have got wrong by a quarter turn: nearly
    square ones (a tile lying near 45 degrees), or every box where the photo's boxes are landscape as a rule
    (a photo turned by 90 degrees, or one stretched so far that upright tiles come out landscape)."""
    if len(xyxy) == 0:
        return np.zeros(0, bool)
    aspect = aspects(xyxy)
    if float(np.median(aspect)) > 1.0:
        return np.ones(len(xyxy), bool)
    return (aspect >= low) & (aspect <= 1 / low)


def washed_share(crop: np.ndarray) -> float:
    """Share of a crop's inner part that is blown out to white in every channel (a glare spot on a glossy tile).
    Real tile faces, the blank white dragon included, stay under 245 in some channel: on the shared photos no
    crop has even a tenth of its inner part blown out."""
    h, w = crop.shape[:2]
    inner = crop[h // 8: h - h // 8, w // 8: w - w // 8]
    return float((inner.min(2) >= 245).mean()) if inner.size else 0.0


ROW_ANGLE_MIN, ROW_ANGLE_MAX = 4.0, 35.0  # degrees: under it an axis-aligned crop is as good; over it, ambiguous


def rows_across(xyxy: np.ndarray, spread: float = 5.0, steepest: float = ROW_ANGLE_MAX) -> float | None:
    """The median direction of side-by-side neighbours, in degrees (image y down, so positive runs down to the
    right), when at least 60 % of the pairs agree within ``spread`` degrees; None where they do not (loose tiles,
    a single column, rows too steep to have neighbours beside: a neighbour counts as beside a tile up to 45
    degrees off the horizontal, or 10 degrees past ``steepest``)."""
    if len(xyxy) < 3:
        return None
    centres = (xyxy[:, :2] + xyxy[:, 2:]) / 2
    widths, heights = xyxy[:, 2] - xyxy[:, 0], xyxy[:, 3] - xyxy[:, 1]
    d = centres[None, :, :] - centres[:, None, :]
    dist = np.hypot(d[..., 0], d[..., 1])
    np.fill_diagonal(dist, np.inf)
    off = np.tan(np.radians(min(max(45.0, steepest + 10.0), 80.0)))
    beside = (np.abs(d[..., 1]) <= off * np.abs(d[..., 0])) & (d[..., 0] > 0)  # the neighbour to the right
    near = dist <= 1.5 * np.maximum(widths[:, None], widths[None, :])
    # neighbours of one shape (both upright or both sideways) first: a sideways tile of a meld lies lower than
    # its upright neighbours, so the pair's centres run off the row by up to 10 degrees
    tall, size = widths < heights, np.sqrt(np.maximum(widths * heights, 1e-6))  # (boxes of tiles up to 45 degrees)
    same = (tall[:, None] == tall[None, :]) & (np.abs(size[:, None] - size[None, :]) <= 0.2 * size[:, None])
    for pick in (beside & near & same, beside & near):
        cand = np.where(pick, dist, np.inf)
        j = cand.argmin(1)
        has = np.isfinite(cand[np.arange(len(xyxy)), j])
        if has.sum() >= 3:
            break
    if has.sum() < 3:
        return None
    pair = d[np.flatnonzero(has), j[has]]
    angles = np.degrees(np.arctan2(pair[:, 1], pair[:, 0]))
    med = float(np.median(angles))
    return med if (np.abs(angles - med) <= spread).mean() >= 0.6 else None


def row_direction(xyxy: np.ndarray, spread: float = 5.0, steepest: float = ROW_ANGLE_MAX) -> float:
    """The direction the photo's rows run in (``rows_across``); 0 where there is none or it lies outside
    ``ROW_ANGLE_MIN``..``steepest``."""
    med = rows_across(xyxy, spread, steepest)
    return med if med is not None and ROW_ANGLE_MIN <= abs(med) <= steepest else 0.0


def row_angle(xyxy: np.ndarray) -> float:
    """``row_direction``, where the tiles' own shapes along it are a tile's (taller than wide as a rule); else 0,
    so that the photo keeps axis-aligned crops: a photo stretched unevenly (the shared export squashed every
    photo to a square) or seen at a steep angle gives shapes that no tile has, and there an axis-aligned crop is
    the safer cut."""
    med = row_direction(xyxy)
    if not med:
        return 0.0
    flat = levelled(xyxy, med)
    tall = float(np.median((flat[:, 3] - flat[:, 1]) / np.maximum(flat[:, 2] - flat[:, 0], 1e-6)))
    return med if 1.1 <= tall <= 1.9 else 0.0


def tile_size(box: np.ndarray | tuple[float, float, float, float], angle: float) -> tuple[float, float] | None:
    """The width and height of the tile whose axis-aligned box, turned by ``angle`` degrees, is ``box``; None where
    no such rectangle fits (the box is too square for the angle)."""
    bw, bh = float(box[2] - box[0]), float(box[3] - box[1])
    c, s = np.cos(np.radians(angle)), abs(np.sin(np.radians(angle)))
    det = c * c - s * s
    w, h = (bw * c - bh * s) / det, (bh * c - bw * s) / det
    return None if w < 0.3 * bw or h < 0.3 * bh else (w, h)


def level_rotation(angle: float, corner: tuple[float, float] = (0.0, 0.0)) -> np.ndarray:
    """The 2x3 map that turns a photo so that rows running at ``angle`` degrees (image y down: positive runs down
    to the right) run level, then moves ``corner`` (in the turned frame) to the origin."""
    a = np.radians(angle)
    c, s = float(np.cos(a)), float(np.sin(a))
    return np.array([[c, s, -corner[0]], [-s, c, -corner[1]]], np.float64)


def moved(m: np.ndarray, xs: np.ndarray, ys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Points moved by the 2x3 map ``m``."""
    return m[0, 0] * xs + m[0, 1] * ys + m[0, 2], m[1, 0] * xs + m[1, 1] * ys + m[1, 2]


def levelled(xyxy: np.ndarray, angle: float) -> np.ndarray:
    """The boxes as they would be with the photo turned so that rows at ``angle`` degrees run level: centres turned
    about the origin, each box its tile's own size (the layout groups rows and melds on these)."""
    if not angle or len(xyxy) == 0:
        return xyxy.copy()
    x, y = moved(level_rotation(angle), (xyxy[:, 0] + xyxy[:, 2]) / 2, (xyxy[:, 1] + xyxy[:, 3]) / 2)
    out = np.empty_like(xyxy)
    for i, box in enumerate(xyxy):
        w, h = tile_size(box, angle) or (float(box[2] - box[0]), float(box[3] - box[1]))
        out[i] = (x[i] - w / 2, y[i] - h / 2, x[i] + w / 2, y[i] + h / 2)
    return out


def oriented_crop(img: np.ndarray, box: np.ndarray | tuple[float, float, float, float], angle: float,
                  size: int = CROP_SIZE, pad: float = CROP_PAD, turn: bool | None = None) -> tuple[np.ndarray, bool]:
    """Cut a tile lying along a row at ``angle`` degrees from its axis-aligned box: the tile's own rectangle (the
    box's size undone for the turn) turned level, so the crop does not take in a neighbour's edge. Falls back to
    ``tile_crop`` where the box cannot hold such a rectangle. Returns the crop and whether it was turned."""
    x1, y1, x2, y2 = (float(v) for v in box)
    wh = tile_size(box, angle)
    if wh is None:
        return tile_crop(img, box, size, pad, turn)
    w, h = wh
    pw, ph = max(2, int(round(w * (1 + 2 * pad)))), max(2, int(round(h * (1 + 2 * pad))))
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    ca, sa = np.cos(np.radians(angle)), np.sin(np.radians(angle))
    # patch pixel (u, v) -> photo pixel: the patch's x axis runs along the row
    m = np.array([[ca, -sa, cx - ca * pw / 2 + sa * ph / 2], [sa, ca, cy - sa * pw / 2 - ca * ph / 2]], np.float64)
    patch = cv2.warpAffine(img, m, (pw, ph), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                           borderMode=cv2.BORDER_REPLICATE)
    sideways = w > 1.1 * h if turn is None else turn
    return _as_crop(patch, sideways, size), sideways
