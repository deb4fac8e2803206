"""A photo under a strongly coloured light (tungsten, a warm lamp) white-balanced for the classifier.

Why: tile faces are ivory, and the classifier learnt them from photos whose ivory has one tint (blue 0.94 and
green 0.98 of red, the median over real `valid` photos; 10-90 %: blue 0.88-0.96). Under tungsten light the faces
turn orange (blue 0.5-0.66 of red) and a blue West wind reads as a circle, a 6 of dots as a 7. The ivory of the
faces found is measured (the brightest fifth of each box's middle, the median over the face-up boxes), and where
it is far from that tint every channel is scaled so the ivory gets it back, as a phone's white balance would.
Photos within the tint's range are read as they are.
"""

from __future__ import annotations

import cv2
import numpy as np

from .detections import Detections
from .orientation import finder_backs

TINT = np.array([0.936, 0.976, 1.0], np.float32)  # a face's ivory (B, G, R) over its brightest channel (`valid`)
CAST = 0.15  # a channel further than this from the tint: a coloured light, balanced
LEAST_FACES = 3  # face-up boxes measured at least
MIDDLE = 0.2  # the share of a box cut off each side before measuring (the table at its edges)
SAMPLED = 32  # pixels measured along a box middle's shorter side, at most about (a 12-MP photo's boxes: 150)


def faces_ivory(img: np.ndarray, det: Detections) -> np.ndarray | None:
    """The faces' ivory (B, G, R): the median over the face-up boxes of their middles' brightest fifth; None
    where fewer than ``LEAST_FACES`` lie in the photo."""
    if img.ndim != 3 or not len(det):
        return None
    h, w = img.shape[:2]
    ivories = []
    for (x1, y1, x2, y2) in det.xyxy[~finder_backs(det)]:
        dx, dy = MIDDLE * (x2 - x1), MIDDLE * (y2 - y1)
        xa, ya, xb, yb = int(max(0, x1 + dx)), int(max(0, y1 + dy)), int(min(w, x2 - dx)), int(min(h, y2 - dy))
        if xb - xa < 3 or yb - ya < 3:
            continue
        step = max(1, min(xb - xa, yb - ya) // SAMPLED)  # (every step-th pixel: the tint, not the detail)
        px = img[ya:yb:step, xa:xb:step].reshape(-1, 3).astype(np.float32)
        light = px.sum(1)
        ivories.append(px[light >= np.percentile(light, 80)].mean(0))
    return np.median(np.array(ivories), 0) if len(ivories) >= LEAST_FACES else None


def balanced(img: np.ndarray, det: Detections) -> np.ndarray:
    """``img`` with its channels scaled so the faces' ivory has a lit face's tint, where a coloured light took it
    further than ``CAST`` from it; else ``img`` itself."""
    ivory = faces_ivory(img, det)
    if ivory is None or float(ivory.max()) < 1.0:
        return img
    tint = ivory / float(ivory.max())
    if float(np.abs(tint - TINT).max()) <= CAST:
        return img
    gain = TINT * float(ivory.max()) / np.maximum(ivory, 1.0)
    lut = np.clip(np.arange(256, dtype=np.float32)[:, None] * gain[None, :], 0, 255).astype(np.uint8)
    return cv2.LUT(np.ascontiguousarray(img), lut.reshape(256, 1, 3))
