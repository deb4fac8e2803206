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

from .crops import level_rotation, levelled, moved
from .detections import Detections
from .layout import FLOWERS, along_rows, apart_by_size, apart_from_hand, rows_of, split_groups

# OpenCV's quarter turns, counter-clockwise: the same pixels as numpy's rot90, copied 4x faster
CV_TURNS = {1: cv2.ROTATE_90_COUNTERCLOCKWISE, 2: cv2.ROTATE_180, 3: cv2.ROTATE_90_CLOCKWISE}


def turn_image(img: np.ndarray, k: int) -> np.ndarray:
    """The photo (or a map of it) turned by k quarter turns counter-clockwise (k = 0 returns it as is)."""
    k %= 4
    if k == 0:
        return img
    if img.dtype in (np.uint8, np.uint16, np.float32) and (img.ndim == 2 or (img.ndim == 3 and img.shape[2] in (3, 4))):
        return cv2.rotate(img, CV_TURNS[k])
    return np.ascontiguousarray(np.rot90(img, k))


def turn_boxes(xyxy: np.ndarray, shape: tuple[int, ...], k: int) -> np.ndarray:
    """Boxes of a photo of ``shape`` (h, w, ...) in the pixels of the photo turned by k quarter turns
    counter-clockwise (``turn_image``)."""
    h, w = shape[:2]
    x1, y1, x2, y2 = (xyxy[:, i].astype(np.float32) for i in range(4))
    for _ in range(k % 4):  # one counter-clockwise quarter turn: (x, y) -> (y, w - x)
        x1, y1, x2, y2 = y1, w - x2, y2, w - x1
        h, w = w, h
    return np.stack([x1, y1, x2, y2], 1).astype(np.float32) if len(xyxy) else xyxy.astype(np.float32)


def turned_shape(shape: tuple[int, ...], k: int) -> tuple[int, int]:
    """(h, w) of a photo of ``shape`` after k quarter turns."""
    h, w = shape[:2]
    return (w, h) if k % 2 else (h, w)


LEVEL_BORDER = (114, 114, 114)  # the corners a levelled photo gains: the grey the finder knows as padding


def level_matrix(shape: tuple[int, ...], angle: float) -> tuple[np.ndarray, tuple[int, int]]:
    """The 2x3 map from a photo of ``shape`` to the photo turned in its plane so that rows running at ``angle``
    degrees run level (``level_rotation``), and the (h, w) of a canvas that holds all of it."""
    h, w = shape[:2]
    lx, ly = moved(level_rotation(angle), np.array([0.0, w, w, 0.0]), np.array([0.0, 0.0, h, h]))
    m = level_rotation(angle, (float(lx.min()), float(ly.min())))
    return m, (int(np.ceil(ly.max() - ly.min())), int(np.ceil(lx.max() - lx.min())))


def level_image(img: np.ndarray, angle: float) -> np.ndarray:
    """The photo turned in its plane so that rows at ``angle`` degrees run level (``level_matrix``); as is at 0."""
    if not angle:
        return img
    m, (h, w) = level_matrix(img.shape, angle)
    return cv2.warpAffine(img, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                          borderValue=LEVEL_BORDER)


def tilted_boxes(xyxy: np.ndarray, m: np.ndarray, angle: float, shape: tuple[int, ...]) -> np.ndarray:
    """Boxes of upright tiles moved by the 2x3 map ``m`` that turns them by ``angle`` degrees: each as the
    axis-aligned box around its tile turned (centre mapped, sides widened), clipped to a photo of ``shape``."""
    if not len(xyxy):
        return xyxy.astype(np.float32)
    b = xyxy.astype(np.float64)
    cx, cy = (b[:, 0] + b[:, 2]) / 2, (b[:, 1] + b[:, 3]) / 2
    px, py = moved(m, cx, cy)
    c, s = abs(float(np.cos(np.radians(angle)))), abs(float(np.sin(np.radians(angle))))
    w, h = b[:, 2] - b[:, 0], b[:, 3] - b[:, 1]
    bw, bh = w * c + h * s, w * s + h * c
    hs, ws = shape[:2]
    return np.stack([(px - bw / 2).clip(0, ws), (py - bh / 2).clip(0, hs), (px + bw / 2).clip(0, ws),
                     (py + bh / 2).clip(0, hs)], 1).astype(np.float32)


def as_read(img: np.ndarray, det: Detections) -> np.ndarray:
    """The photo the way the reader read it (and its boxes lie): levelled by ``det.levelled`` degrees, then turned
    by ``det.turned`` quarter turns. The page shows this and cuts its tile crops from it."""
    return turn_image(level_image(img, det.levelled), det.turned)


def read_shape(shape: tuple[int, ...], det: Detections) -> tuple[int, int]:
    """(h, w) of ``as_read`` of a photo of ``shape``."""
    h, w = level_matrix(shape, det.levelled)[1] if det.levelled else shape[:2]
    return turned_shape((h, w), det.turned)


def photo_boxes(det: Detections, shape: tuple[int, ...]) -> np.ndarray:
    """The reading's boxes in the pixels of the photo itself (of ``shape``), undoing ``as_read``: a box of a
    levelled photo comes back as the axis-aligned box around its tile turned back (the box a labeller draws)."""
    if not det.levelled:
        return turn_boxes(det.xyxy, turned_shape(shape, det.turned), -det.turned)
    m, level = level_matrix(shape, det.levelled)
    xyxy = turn_boxes(det.xyxy, turned_shape(level, det.turned), -det.turned)
    return tilted_boxes(xyxy, cv2.invertAffineTransform(m), det.levelled, shape)


def level_boxes(xyxy: np.ndarray, shape: tuple[int, ...], angle: float) -> np.ndarray:
    """Boxes of tiles tilted by ``angle`` degrees in a photo of ``shape``, in the pixels of the photo levelled
    (``level_image``): each its tile's own upright box there (``crops.levelled`` turns the centres by
    ``level_rotation``, as ``level_matrix`` does; the matrix adds the canvas's shift)."""
    m = level_matrix(shape, angle)[0]
    return (levelled(xyxy, angle) + np.float32([m[0, 2], m[1, 2]] * 2)).astype(np.float32)


EDGE_SIDE = 640  # pixels: the long side the edges' slant is measured at
EDGE_BLUR = 1.5  # pixels (at EDGE_SIDE): the blur that leaves a tile's outline and takes off a mat's weave


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
    grey = cv2.GaussianBlur(grey, (0, 0), EDGE_BLUR)
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


def landscape(det: Detections, sure: float = 0.5, most: float = float("inf"), least: float = 1.0) -> bool:
    """Whether the boxes the finder is fairly sure of are landscape as a rule (at least three of them): a median
    width-to-height ratio over ``least`` and at most ``most``."""
    xyxy = det.xyxy[det.confidence >= sure]
    if len(xyxy) < 3:
        return False
    ratio = float(np.median((xyxy[:, 2] - xyxy[:, 0]) / np.maximum(xyxy[:, 3] - xyxy[:, 1], 1e-6)))
    return least < ratio <= most


def upside_down(det: Detections) -> bool:
    """Whether the hand lies upside down. Read in order (rows top to bottom, groups left to right, flowers left
    out), a hand is laid out as the page asks: the concealed tiles, the winning tile set apart at their right,
    then the melds (a sideways or face-down tile marks each). Upside down, the plain groups come after the melds,
    and a lone tile has plain tiles after it rather than before; a photo is turned only when the two together
    say so (no melds and no lone tile: as it is)."""
    if len(det) < 5:
        return False
    det = along_rows(det)  # rows at a slant (a photo turned in its plane): read along their own direction
    keep = np.setdiff1d(np.arange(len(det)), apart_by_size(det))
    sub = det[keep]
    sub = sub[np.setdiff1d(np.arange(len(sub)), apart_from_hand(sub))]  # the hand only, not the table around it
    codes, side, down = sub.codes, sub.sideways, sub.face_down
    order = [g for row in rows_of(sub) for g in split_groups(sub, row)
             if not all(codes[i] in FLOWERS for i in g)]
    plain = [not any(side[i] or down[i] or codes[i] in FLOWERS for i in g) for g in order]
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
