"""Glare: a specular highlight on glossy tiles lays a white veil over part of a photo (``out = in * (1 - a) +
255 * a``, with ``a`` falling off smoothly from the spot). Where the veil is not total, the faces under it are still
there at a fraction of their contrast; ``deglared`` estimates the veil around blown-out spots and takes it off, so
that the finder sees the tiles' edges and the classifier their ink. Pixels blown out to white in every channel
stay white: what the sensor clipped cannot be recovered, and the reader flags those tiles (``reader.
unsure_where_washed``)."""

from __future__ import annotations

import cv2
import numpy as np

BLOWN = 245  # a pixel this bright in every channel is blown out (real tile faces stay under it in some channel)
SPOT_SHARE = 2e-4  # share of the photo that must be blown out before anything is done (a few tiles' worth less)
MIN_CLEAR = 0.06  # under the thickest veil, contrast is stretched at most 1 / MIN_CLEAR times (noise grows too)
WORK_SIDE = 512  # the veil is estimated on a copy this large on its long side (it is smooth)
FACE, FACE_MAX = 215.0, 235.0  # a tile face's background grey (darkest channel) when none is seen; the most taken


def veil_of_boxes(small: np.ndarray | None, shape: tuple[int, ...], xyxy: np.ndarray) -> np.ndarray:
    """The mean veil strength over each box of a photo of ``shape``, from its ``veil_map`` (0 for every box of a
    photo without a blown-out spot)."""
    out = np.zeros(len(xyxy), np.float32)
    if small is None or not len(xyxy):
        return out
    h, w = shape[:2]
    f = np.array([small.shape[1] / w, small.shape[0] / h] * 2, np.float32)
    for i, b in enumerate(np.asarray(xyxy, np.float32) * f):
        x1, y1 = int(max(0, np.floor(b[0]))), int(max(0, np.floor(b[1])))
        x2, y2 = int(max(x1 + 1, np.ceil(b[2]))), int(max(y1 + 1, np.ceil(b[3])))
        part = small[y1:y2, x1:x2]
        out[i] = float(part.mean()) if part.size else 0.0
    return out


def veil_map(img: np.ndarray) -> np.ndarray | None:
    """The veil on a copy at most ``WORK_SIDE`` on its long side (it is smooth). Measured on tile faces: a face's
    background (its median grey, ink aside) is raised by the veil from the level the faces around the spots show,
    ``bg = face * (1 - a) + 255 * a``."""
    h, w = img.shape[:2]
    step = max(1, max(h, w) // WORK_SIDE)
    sample = cv2.resize(img, (max(1, w // step), max(1, h // step)), interpolation=cv2.INTER_NEAREST)
    if np.count_nonzero(_darkest(sample) >= BLOWN) < SPOT_SHARE * sample.shape[0] * sample.shape[1]:
        return None  # a cheap look first: most photos have no blown-out spot
    small = img
    while max(small.shape[:2]) >= 2 * WORK_SIDE:  # Gaussian halving: far faster than area averaging at 12 MP
        small = cv2.pyrDown(small)
    f = WORK_SIDE / max(small.shape[:2])
    if f < 1:
        small = cv2.resize(small, (max(1, round(small.shape[1] * f)), max(1, round(small.shape[0] * f))),
                           interpolation=cv2.INTER_AREA)
    low = _darkest(small)
    blown = low >= BLOWN
    if blown.mean() < SPOT_SHARE:
        return None
    k = max(3, round(max(low.shape) / 60) | 1)  # about half a tile of a hand that fills the photo
    bg = cv2.medianBlur(low, k)
    reach = cv2.getStructuringElement(cv2.MORPH_RECT, (6 * k + 1, 6 * k + 1))
    near = cv2.dilate(blown.astype(np.uint8), reach)
    ring = cv2.dilate(near, reach) > near
    # the faces' own background level: the bright end of what lies just beyond the spots' reach
    face = float(np.percentile(bg[ring], 90)) if ring.any() else FACE
    face = min(max(face, 120.0), FACE_MAX)
    a = np.clip((bg.astype(np.float32) - face) / (255.0 - face), 0.0, 1.0)
    # the veil is smooth, but smoothing must not carry a blown-out blank face's strength onto its neighbours
    a = np.minimum(cv2.GaussianBlur(a, (0, 0), k / 2), cv2.dilate(a, np.ones((3, 3), np.uint8)))
    return a * near.astype(np.float32)  # nothing far from a spot


def _darkest(img: np.ndarray) -> np.ndarray:
    """Each pixel's darkest channel (a pixel is blown out when even that one is near white)."""
    if img.ndim == 2:
        return img
    b, g, r = cv2.split(img)[:3]
    return cv2.min(cv2.min(b, g), r)


def deglared(img: np.ndarray) -> np.ndarray:
    """The photo with the glare veil around its blown-out spots taken off; a photo without a blown-out spot is
    returned as it is (the same object)."""
    return take_off(img, veil_map(img))


def take_off(img: np.ndarray, small: np.ndarray | None) -> np.ndarray:
    """The photo with the veil of its ``veil_map`` taken off (the photo itself when there is none). Only the parts
    the veil reaches (each spot's own box) are computed at full size."""
    if small is None:
        return img
    n, _, stats, _ = cv2.connectedComponentsWithStats((small > 0.02).astype(np.uint8), connectivity=8)
    if n < 2:
        return img
    h, w = img.shape[:2]
    fy, fx = h / small.shape[0], w / small.shape[1]
    out = img.copy()
    for cx, cy, cw, ch, _ in stats[1:]:
        y1, y2 = int(cy * fy), min(h, int(np.ceil((cy + ch) * fy)))
        x1, x2 = int(cx * fx), min(w, int(np.ceil((cx + cw) * fx)))
        # the small veil resized to the photo, only over this reach (the same sampling as a whole-photo resize)
        sy, sx = (np.arange(y1, y2) + 0.5) / fy - 0.5, (np.arange(x1, x2) + 0.5) / fx - 0.5
        mx, my = np.meshgrid(sx.astype(np.float32), sy.astype(np.float32))
        a = cv2.remap(small, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        gain = 1.0 / np.maximum(1.0 - a, MIN_CLEAR)
        part = 255.0 - img[y1:y2, x1:x2].astype(np.float32)
        part *= gain[..., None] if part.ndim == 3 else gain
        out[y1:y2, x1:x2] = np.clip(255.0 - part, 0, 255).astype(np.uint8)
    return out
