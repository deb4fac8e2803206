"""Photo conditions a phone at a real table produces, applied to a composed photo and its true boxes.

Each condition changes one thing (a quarter turn without EXIF, a tilted phone, blur, dim light, glare ...), so
the evaluation (``python -m vision.evaluate_hands --condition NAME|all``) shows what each costs the reader.
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

from .orientation import turn_boxes, turn_image

Boxes = np.ndarray  # (n, 4) x1 y1 x2 y2


def _corners(boxes: Boxes) -> np.ndarray:
    x1, y1, x2, y2 = boxes.T
    return np.stack([np.stack([x1, y1], 1), np.stack([x2, y1], 1), np.stack([x2, y2], 1), np.stack([x1, y2], 1)], 1)


def _bbox(points: np.ndarray) -> Boxes:
    return np.concatenate([points.min(1), points.max(1)], 1).astype(np.float32)


def _homography(img: np.ndarray, boxes: Boxes, m: np.ndarray) -> tuple[np.ndarray, Boxes]:
    h, w = img.shape[:2]
    out = cv2.warpPerspective(img, m, (w, h), borderMode=cv2.BORDER_REPLICATE)
    pts = cv2.perspectiveTransform(_corners(boxes).reshape(-1, 1, 2).astype(np.float32), m).reshape(-1, 4, 2)
    return out, _bbox(pts)


def quarter(k: int) -> Callable:
    """Turned k quarter turns counter-clockwise, with no EXIF tag to undo it (chat apps strip it)."""
    def apply(img: np.ndarray, boxes: Boxes, rng: np.random.Generator) -> tuple[np.ndarray, Boxes]:
        return turn_image(img, k), turn_boxes(boxes, img.shape, k)
    return apply


def tilt(degrees: float) -> Callable:
    """The phone tilted from straight above: rows converge (a keystone), the far side foreshortened."""
    def apply(img: np.ndarray, boxes: Boxes, rng: np.random.Generator) -> tuple[np.ndarray, Boxes]:
        h, w = img.shape[:2]
        t = np.tan(np.radians(degrees))
        inset, drop = 0.5 * w * (1 - 1 / (1 + 0.55 * t)), h * 0.28 * t / (1 + t)
        src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
        dst = np.float32([[inset, drop], [w - inset, drop], [w, h], [0, h]])
        return _homography(img, boxes, cv2.getPerspectiveTransform(src, dst))
    return apply


def rotate(degrees: float) -> Callable:
    """Turned in the picture's plane by a few degrees."""
    def apply(img: np.ndarray, boxes: Boxes, rng: np.random.Generator) -> tuple[np.ndarray, Boxes]:
        h, w = img.shape[:2]
        m = np.vstack([cv2.getRotationMatrix2D((w / 2, h / 2), degrees, 1.0), [0, 0, 1]]).astype(np.float32)
        return _homography(img, boxes, m)
    return apply


def blur(img: np.ndarray, boxes: Boxes, rng: np.random.Generator) -> tuple[np.ndarray, Boxes]:
    """Out of focus: Gaussian blur, sigma 2."""
    return cv2.GaussianBlur(img, (0, 0), 2.0), boxes


def motion(img: np.ndarray, boxes: Boxes, rng: np.random.Generator) -> tuple[np.ndarray, Boxes]:
    """A shaking hand: motion blur 11 px long in a random direction."""
    k = np.zeros((11, 11), np.float32)
    k[5, :] = 1
    k = cv2.warpAffine(k, cv2.getRotationMatrix2D((5, 5), float(rng.uniform(0, 180)), 1.0), (11, 11))
    return cv2.filter2D(img, -1, k / max(k.sum(), 1e-6)), boxes


def dim(img: np.ndarray, boxes: Boxes, rng: np.random.Generator) -> tuple[np.ndarray, Boxes]:
    """Dim light: a third of the light, with sensor noise."""
    noisy = img.astype(np.float32) * 0.35 + rng.normal(0, 7, img.shape)
    return np.clip(noisy, 0, 255).astype(np.uint8), boxes


def warm(img: np.ndarray, boxes: Boxes, rng: np.random.Generator) -> tuple[np.ndarray, Boxes]:
    """Warm tungsten light: blue down, red up."""
    out = img.astype(np.float32) * np.float32([0.7, 0.95, 1.15])
    return np.clip(out, 0, 255).astype(np.uint8), boxes


def glare(img: np.ndarray, boxes: Boxes, rng: np.random.Generator) -> tuple[np.ndarray, Boxes]:
    """A bright specular spot on glossy tiles, washing out part of a face or two."""
    h, w = img.shape[:2]
    b = boxes[int(rng.integers(len(boxes)))] if len(boxes) else np.float32([0, 0, w, h])
    cx, cy = (b[0] + b[2]) / 2, (b[1] + b[3]) / 2
    axes = (max(4.0, float(b[2] - b[0])) * 0.9, max(4.0, float(b[3] - b[1])) * 0.5)
    yy, xx = np.mgrid[0:h, 0:w]
    d = ((xx - cx) / axes[0]) ** 2 + ((yy - cy) / axes[1]) ** 2
    a = np.clip(1.2 - d, 0, 1)[..., None] * 0.95
    return (img * (1 - a) + 255 * a).astype(np.uint8), boxes


def scaled(factor: float | None = None, megapixels: float | None = None) -> Callable:
    """The photo at another size (0.3 MP, or upscaled to 12 MP)."""
    def apply(img: np.ndarray, boxes: Boxes, rng: np.random.Generator) -> tuple[np.ndarray, Boxes]:
        h, w = img.shape[:2]
        f = factor if factor is not None else float(np.sqrt((megapixels or 1) * 1e6 / (w * h)))
        out = cv2.resize(img, (round(w * f), round(h * f)), interpolation=cv2.INTER_AREA if f < 1 else cv2.INTER_CUBIC)
        return out, (boxes * f).astype(np.float32)
    return apply


def jpeg(quality: int) -> Callable:
    """Heavy JPEG compression (a chat app's)."""
    def apply(img: np.ndarray, boxes: Boxes, rng: np.random.Generator) -> tuple[np.ndarray, Boxes]:
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])
        return cv2.imdecode(buf, cv2.IMREAD_COLOR), boxes
    return apply


CONDITIONS: dict[str, Callable] = {
    "upright": lambda img, boxes, rng: (img, boxes),
    "rot90": quarter(1), "rot180": quarter(2), "rot270": quarter(3),
    "tilt30": tilt(30), "tilt45": tilt(45), "rot10": rotate(10),
    "blur2": blur, "motion": motion, "dim": dim, "warm": warm, "glare": glare,
    "lowres": scaled(megapixels=0.3), "jpeg25": jpeg(25), "upscale12mp": scaled(megapixels=12),
}
