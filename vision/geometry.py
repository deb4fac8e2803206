"""The geometry of a photo's trip through the reader, in one place: quarter turns, levelling (a turn in the photo's
plane so that rows run level), the rows' direction, and ``PhotoFrame``, which maps boxes from the frame the reader
read the photo in back to the photo as sent."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, cast

import cv2
import numpy as np


class Turns(Protocol):
    """How the reader turned a photo to read it: ``levelled`` degrees in its plane first, then ``turned`` quarter
    turns counter-clockwise (a ``Detections`` says so of its boxes)."""

    @property
    def levelled(self) -> float: ...

    @property
    def turned(self) -> int: ...


class Boxed(Turns, Protocol):
    """Boxes (``xyxy``) that lie in the frame ``Turns`` says: a ``Detections``."""

    @property
    def xyxy(self) -> np.ndarray: ...

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


def as_read(img: np.ndarray, det: Turns) -> np.ndarray:
    """The photo the way the reader read it (and its boxes lie): levelled by ``det.levelled`` degrees, then turned
    by ``det.turned`` quarter turns. The page shows this and cuts its tile crops from it."""
    return turn_image(level_image(img, det.levelled), det.turned)


def read_shape(shape: tuple[int, ...], det: Turns) -> tuple[int, int]:
    """(h, w) of ``as_read`` of a photo of ``shape``."""
    h, w = level_matrix(shape, det.levelled)[1] if det.levelled else shape[:2]
    return turned_shape((h, w), det.turned)


def photo_boxes(det: Turns, shape: tuple[int, ...], xyxy: np.ndarray | None = None) -> np.ndarray:
    """The reading's boxes (``xyxy``, else ``det.xyxy``) in the pixels of the photo itself (of ``shape``), undoing
    ``as_read``: a box of a levelled photo comes back as the axis-aligned box around its tile turned back (the box
    a labeller draws)."""
    boxes = xyxy if xyxy is not None else cast(Boxed, det).xyxy
    if not det.levelled:
        return turn_boxes(boxes, turned_shape(shape, det.turned), -det.turned)
    m, level = level_matrix(shape, det.levelled)
    boxes = turn_boxes(boxes, turned_shape(level, det.turned), -det.turned)
    return tilted_boxes(boxes, cv2.invertAffineTransform(m), det.levelled, shape)


def turn_points(xy: np.ndarray, shape: tuple[int, ...], k: int) -> np.ndarray:
    """Points (n, 2) of a photo of ``shape`` in the pixels of the photo turned by k quarter turns
    counter-clockwise (as ``turn_boxes``)."""
    h, w = shape[:2]
    x, y = xy[:, 0].astype(np.float64), xy[:, 1].astype(np.float64)
    for _ in range(k % 4):  # (x, y) -> (y, w - x)
        x, y = y, w - x
        h, w = w, h
    return np.stack([x, y], 1)


def photo_corners(det: Turns, shape: tuple[int, ...], xyxy: np.ndarray) -> np.ndarray:
    """The four corners (n, 4, 2: top-left, top-right, bottom-right, bottom-left as read) of each box as read, in
    the pixels of the photo itself (of ``shape``): where the reader levelled the photo, the box as it lies there,
    a rectangle turned by the levelling."""
    if not len(xyxy):
        return np.zeros((0, 4, 2), np.float32)
    x1, y1, x2, y2 = (xyxy[:, i].astype(np.float64) for i in range(4))
    pts = np.stack([np.stack([x1, y1], 1), np.stack([x2, y1], 1), np.stack([x2, y2], 1), np.stack([x1, y2], 1)], 1)
    flat = pts.reshape(-1, 2)
    m, level = level_matrix(shape, det.levelled) if det.levelled else (None, turned_shape(shape, 0))
    flat = turn_points(flat, turned_shape(level, det.turned), -det.turned % 4)
    if m is not None:
        inv = cv2.invertAffineTransform(m)
        flat = np.stack(moved(inv, flat[:, 0], flat[:, 1]), 1)
    return flat.reshape(-1, 4, 2).astype(np.float32)


@dataclass(frozen=True)
class PhotoFrame:
    """The photo as sent and the frame the reader read it in. ``width`` x ``height``: the photo's pixels (EXIF
    orientation applied, as a viewer shows it); ``decoded``: (h, w) of the image the reader got (a large JPEG is
    decoded reduced, by ``scale``); then levelled by ``levelled`` degrees and turned by ``turned`` quarter turns.
    Boxes of a reading are in the frame as read, at the photo's scale; ``to_photo`` maps them to the photo."""

    width: int
    height: int
    decoded: tuple[int, int]
    scale: float = 1.0
    levelled: float = 0.0
    turned: int = 0

    @classmethod
    def of(cls, decoded: tuple[int, ...], scale: float, turns: Turns) -> PhotoFrame:
        """The frame of an image of shape ``decoded`` (photo pixels per image pixel ``scale``) read with ``turns``."""
        h, w = decoded[:2]
        return cls(round(w * scale), round(h * scale), (h, w), scale, float(turns.levelled), int(turns.turned))

    @property
    def orig_shape(self) -> tuple[int, int]:
        """(height, width) of the photo as sent, as Ultralytics' results give it."""
        return self.height, self.width

    def read_size(self) -> tuple[int, int]:
        """(width, height) of the photo as read, in photo pixels."""
        h, w = read_shape(self.decoded, self)
        return round(w * self.scale), round(h * self.scale)

    def to_photo(self, xyxy: np.ndarray) -> np.ndarray:
        """Boxes as read (photo scale) as axis-aligned boxes in the photo's pixels."""
        s = np.float32(self.scale)
        return photo_boxes(self, self.decoded, np.asarray(xyxy, np.float32) / s) * s

    def corners_in_photo(self, xyxy: np.ndarray) -> np.ndarray:
        """Each box as read as its four corners in the photo's pixels (a turned rectangle where levelled)."""
        s = np.float32(self.scale)
        return photo_corners(self, self.decoded, np.asarray(xyxy, np.float32) / s) * s


def level_boxes(xyxy: np.ndarray, shape: tuple[int, ...], angle: float) -> np.ndarray:
    """Boxes of tiles tilted by ``angle`` degrees in a photo of ``shape``, in the pixels of the photo levelled
    (``level_image``): each its tile's own upright box there (``crops.levelled`` turns the centres by
    ``level_rotation``, as ``level_matrix`` does; the matrix adds the canvas's shift)."""
    m = level_matrix(shape, angle)[0]
    return (levelled(xyxy, angle) + np.array([m[0, 2], m[1, 2]] * 2, np.float32)).astype(np.float32)
