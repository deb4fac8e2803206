"""Photo conditions for training the finder: the same kinds of trouble a phone at a real table makes (a tilted
phone, a turned hand, a glare spot, shake, defocus, dim light, a colour cast), each drawn with random strength and
shape, the boxes carried through every warp (the true warped boxes). The evaluation's conditions
(``evaluation.conditions``) are fixed settings of a few of these; the shared `valid` photos stay the independent check.
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

from evaluation.conditions import Boxes, homography, keystone


def perspective(img: np.ndarray, boxes: Boxes, rng: np.random.Generator) -> tuple[np.ndarray, Boxes]:
    """A phone tilted 10-50 degrees from straight above, towards any side, and turned up to 15 degrees."""
    h, w = img.shape[:2]
    t = np.tan(np.radians(rng.uniform(10, 50)))
    ix, dy = keystone(w, h, t)  # far side on top
    iy, dx = keystone(h, w, t)  # far side on the left
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    dst = [np.float32([[ix, dy], [w - ix, dy], [w, h], [0, h]]),  # the far side: top, bottom, left, right
           np.float32([[0, 0], [w, 0], [w - ix, h - dy], [ix, h - dy]]),
           np.float32([[dx, iy], [w, 0], [w, h], [dx, h - iy]]),
           np.float32([[0, 0], [w - dx, iy], [w - dx, h - iy], [0, h]])][int(rng.choice(4, p=[0.55, 0.15, 0.15, 0.15]))]
    m = cv2.getPerspectiveTransform(src, dst)
    r = np.vstack([cv2.getRotationMatrix2D((w / 2, h / 2), float(rng.uniform(-15, 15)), 1.0), [0, 0, 1]])
    return homography(img, boxes, (r @ m).astype(np.float64))


def glare(img: np.ndarray, boxes: Boxes, rng: np.random.Generator) -> tuple[np.ndarray, Boxes]:
    """One or two specular spots of random size, shape and strength near the tiles, clipped at white."""
    h, w = img.shape[:2]
    out = img.astype(np.float32)
    size = float(np.median(boxes[:, 2] - boxes[:, 0])) if len(boxes) else 0.05 * w
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    for _ in range(int(rng.integers(1, 3))):
        b = boxes[int(rng.integers(len(boxes)))] if len(boxes) else np.float32([0, 0, w, h])
        cx = (b[0] + b[2]) / 2 + rng.uniform(-1, 1) * size
        cy = (b[1] + b[3]) / 2 + rng.uniform(-1, 1) * size
        ax, ay = size * rng.uniform(0.4, 2.0), size * rng.uniform(0.3, 1.2)
        ang = rng.uniform(0, np.pi)
        dx, dy = xx - cx, yy - cy
        u, v = dx * np.cos(ang) + dy * np.sin(ang), -dx * np.sin(ang) + dy * np.cos(ang)
        a = np.clip(rng.uniform(1.0, 1.4) - (u / ax) ** 2 - (v / ay) ** 2, 0, 1) * rng.uniform(0.6, 1.0)
        out += a[..., None] * (255.0 * rng.uniform(1.0, 1.5) - out)  # may pass white: clipped like a sensor
    return np.clip(out, 0, 255).astype(np.uint8), boxes


def shake(img: np.ndarray, boxes: Boxes, rng: np.random.Generator) -> tuple[np.ndarray, Boxes]:
    """Motion blur 5-21 px long in a random direction."""
    n = int(rng.integers(2, 11)) * 2 + 1
    k = np.zeros((n, n), np.float32)
    k[n // 2, :] = 1
    k = cv2.warpAffine(k, cv2.getRotationMatrix2D((n // 2, n // 2), float(rng.uniform(0, 180)), 1.0), (n, n))
    return cv2.filter2D(img, -1, k / max(float(k.sum()), 1e-6)), boxes


def defocus(img: np.ndarray, boxes: Boxes, rng: np.random.Generator) -> tuple[np.ndarray, Boxes]:
    """Out of focus: Gaussian blur, sigma 0.8-3."""
    return cv2.GaussianBlur(img, (0, 0), float(rng.uniform(0.8, 3.0))), boxes


def low_light(img: np.ndarray, boxes: Boxes, rng: np.random.Generator) -> tuple[np.ndarray, Boxes]:
    """A quarter to 60 % of the light, with sensor noise."""
    out = img.astype(np.float32) * rng.uniform(0.25, 0.6) + rng.normal(0, rng.uniform(3, 10), img.shape)
    return np.clip(out, 0, 255).astype(np.uint8), boxes


def cast(img: np.ndarray, boxes: Boxes, rng: np.random.Generator) -> tuple[np.ndarray, Boxes]:
    """A colour cast (tungsten, shade, fluorescent): each channel scaled by 0.75-1.25."""
    out = img.astype(np.float32) * rng.uniform(0.75, 1.25, 3).astype(np.float32)
    return np.clip(out, 0, 255).astype(np.uint8), boxes


def steep_turn(img: np.ndarray, boxes: Boxes, rng: np.random.Generator) -> tuple[np.ndarray, Boxes]:
    """Turned 15-60 degrees either way in the photo's plane (a phone held well askew, a hand shot from the side),
    the photo shrunk so that the turn keeps all of it; the corners are the photo's own edges drawn outwards."""
    h, w = img.shape[:2]
    deg = float(rng.uniform(15, 60)) * (1 if rng.random() < 0.5 else -1)
    c, s = abs(np.cos(np.radians(deg))), abs(np.sin(np.radians(deg)))
    fit = min(w / (w * c + h * s), h / (w * s + h * c)) * float(rng.uniform(1.0, 1.25))
    m = np.vstack([cv2.getRotationMatrix2D((w / 2, h / 2), deg, fit), [0, 0, 1]])
    return homography(img, boxes, m.astype(np.float64))


AUGMENTATIONS: dict[str, Callable] = {"perspective": perspective, "glare": glare, "shake": shake,
                                      "defocus": defocus, "low_light": low_light, "cast": cast}


def table_conditions(img: np.ndarray, boxes: Boxes, rng: np.random.Generator, most: int = 2
                     ) -> tuple[np.ndarray, Boxes, list[str]]:
    """One to ``most`` of the augmentations, in a random order; the photo, its boxes, and which were applied."""
    names = list(rng.choice(list(AUGMENTATIONS), size=int(rng.integers(1, most + 1)), replace=False))
    for name in names:
        img, boxes = AUGMENTATIONS[name](img, boxes, rng)
    return img, boxes, names
