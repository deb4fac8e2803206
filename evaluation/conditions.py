"""Photo conditions a phone at a real table produces, applied to a composed photo and its true boxes.

Each condition changes one thing (a quarter turn without EXIF, a tilted phone, blur, dim light, glare ...), so
the evaluation (``python -m evaluation.hands --condition NAME|all``) shows what each costs the reader.
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

from vision.geometry import turn_boxes, turn_image

Boxes = np.ndarray  # (n, 4) x1 y1 x2 y2


def _corners(boxes: Boxes) -> np.ndarray:
    x1, y1, x2, y2 = boxes.T
    return np.stack([np.stack([x1, y1], 1), np.stack([x2, y1], 1), np.stack([x2, y2], 1), np.stack([x1, y2], 1)], 1)


def _bbox(points: np.ndarray) -> Boxes:
    return np.concatenate([points.min(1), points.max(1)], 1).astype(np.float32)


def homography(img: np.ndarray, boxes: Boxes, m: np.ndarray) -> tuple[np.ndarray, Boxes]:
    """The photo warped by the 3x3 matrix ``m``, and each box as the box around its warped corners."""
    h, w = img.shape[:2]
    out = cv2.warpPerspective(img, m, (w, h), borderMode=cv2.BORDER_REPLICATE)
    pts = cv2.perspectiveTransform(_corners(boxes).reshape(-1, 1, 2).astype(np.float32), m).reshape(-1, 4, 2)
    return out, _bbox(pts)


def quarter(k: int) -> Callable:
    """Turned k quarter turns counter-clockwise, with no EXIF tag to undo it (chat apps strip it)."""
    def apply(img: np.ndarray, boxes: Boxes, rng: np.random.Generator) -> tuple[np.ndarray, Boxes]:
        return turn_image(img, k), turn_boxes(boxes, img.shape, k)
    return apply


def keystone(across: float, along: float, t: float) -> tuple[float, float]:
    """How a phone tilted by ``t`` (the angle's tangent) shrinks the far side: the inset of each of its ends
    (across the view) and how far it comes nearer (along the view), in pixels of a picture that size."""
    return 0.5 * across * (1 - 1 / (1 + 0.55 * t)), along * 0.28 * t / (1 + t)


def tilt(degrees: float) -> Callable:
    """The phone tilted from straight above: rows converge (a keystone), the far side foreshortened."""
    def apply(img: np.ndarray, boxes: Boxes, rng: np.random.Generator) -> tuple[np.ndarray, Boxes]:
        h, w = img.shape[:2]
        inset, drop = keystone(w, h, float(np.tan(np.radians(degrees))))
        src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
        dst = np.float32([[inset, drop], [w - inset, drop], [w, h], [0, h]])
        return homography(img, boxes, cv2.getPerspectiveTransform(src, dst))
    return apply


def pitch(degrees: float, fov: float = 69.0) -> Callable:
    """A pinhole camera with ``fov`` degrees across the photo's width, pitched by ``degrees`` about the hand's
    centre toward the near side (the bottom of the photo), then scaled so that the hand keeps its width: the
    far tiles smaller and squat, the rows converging (issue 39's tilted condition, stated exactly)."""
    def apply(img: np.ndarray, boxes: Boxes, rng: np.random.Generator) -> tuple[np.ndarray, Boxes]:
        h, w = img.shape[:2]
        f = (w / 2) / np.tan(np.radians(fov / 2))  # pixels; the camera straight above sits f away
        hx, hy = (float(boxes[:, 0].min() + boxes[:, 2].max()) / 2, float(boxes[:, 1].min() + boxes[:, 3].max()) / 2) \
            if len(boxes) else (w / 2, h / 2)
        t = np.radians(degrees)
        centre = np.array([0.0, f * np.sin(t), -f * np.cos(t)])  # the camera, moved toward the near side
        rot = np.array([[1.0, 0.0, 0.0], [0.0, np.cos(t), np.sin(t)], [0.0, -np.sin(t), np.cos(t)]])

        def view(pts: np.ndarray) -> np.ndarray:  # photo pixels (the table seen from above) -> tilted photo
            world = np.stack([pts[:, 0] - hx, pts[:, 1] - hy, np.zeros(len(pts))], 1)
            cam = (world - centre) @ rot.T
            return np.stack([f * cam[:, 0] / cam[:, 2] + hx, f * cam[:, 1] / cam[:, 2] + hy], 1)

        src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
        m = cv2.getPerspectiveTransform(src, view(src.astype(np.float64)).astype(np.float32))
        if len(boxes):  # scaled about the hand's centre so that the hand keeps its width
            seen = _bbox(cv2.perspectiveTransform(_corners(boxes).reshape(-1, 1, 2).astype(np.float32), m)
                         .reshape(-1, 4, 2))
            k = float(boxes[:, 2].max() - boxes[:, 0].min()) / max(float(seen[:, 2].max() - seen[:, 0].min()), 1.0)
            m = np.array([[k, 0, hx * (1 - k)], [0, k, hy * (1 - k)], [0, 0, 1]]) @ m
        return homography(img, boxes, m)
    return apply


def rotate(degrees: float) -> Callable:
    """Turned in the picture's plane by a few degrees."""
    def apply(img: np.ndarray, boxes: Boxes, rng: np.random.Generator) -> tuple[np.ndarray, Boxes]:
        h, w = img.shape[:2]
        m = np.vstack([cv2.getRotationMatrix2D((w / 2, h / 2), degrees, 1.0), [0, 0, 1]]).astype(np.float32)
        return homography(img, boxes, m)
    return apply


def rotate_roomy(degrees: float, shrink: float = 0.65) -> Callable:
    """Turned in the picture's plane by a steep angle (a phone held well askew, or a hand shot from the side of
    the table), the hand first shrunk into the middle of the photo so that the turn cuts none of its tiles: the
    border is the photo's own edge pixels drawn outwards, as the turn's corners are."""
    def apply(img: np.ndarray, boxes: Boxes, rng: np.random.Generator) -> tuple[np.ndarray, Boxes]:
        h, w = img.shape[:2]
        m = np.float32([[shrink, 0, w * (1 - shrink) / 2], [0, shrink, h * (1 - shrink) / 2], [0, 0, 1]])
        turn = np.vstack([cv2.getRotationMatrix2D((w / 2, h / 2), degrees, 1.0), [0, 0, 1]]).astype(np.float32)
        return homography(img, boxes, turn @ m)
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


def tile_width(boxes: Boxes) -> float:
    """The hand's tile width in pixels: the median of the narrower side of its boxes."""
    return float(np.median(np.minimum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])))


def encoded(img: np.ndarray, quality: int) -> np.ndarray:
    """The photo encoded as a JPEG of ``quality`` and decoded again."""
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)


def motion_blur(img: np.ndarray, length: float, angle: float) -> np.ndarray:
    """Linear motion blur of ``length`` pixels along ``angle`` degrees."""
    n = max(3, int(np.ceil(length)) | 1)
    kernel = np.zeros((n, n), np.float32)
    c = n // 2
    dx, dy = np.cos(np.radians(angle)) * length / 2, np.sin(np.radians(angle)) * length / 2
    cv2.line(kernel, (int(round(c - dx)), int(round(c - dy))), (int(round(c + dx)), int(round(c + dy))), 1.0, 1,
             cv2.LINE_AA)
    return cv2.filter2D(img, -1, kernel / max(float(kernel.sum()), 1e-6))


def motion_of(share: tuple[float, float]) -> Callable:
    """Motion blur of ``share`` (a range) of a tile width, in a random direction."""
    def apply(img: np.ndarray, boxes: Boxes, rng: np.random.Generator) -> tuple[np.ndarray, Boxes]:
        length = rng.uniform(*share) * tile_width(boxes)
        return motion_blur(img, length, rng.uniform(0, 180)), boxes
    return apply


def glare_spot(img: np.ndarray, boxes: Boxes, rng: np.random.Generator) -> tuple[np.ndarray, Boxes]:
    """An additive glare spot, peak +230, sigma 0.9 tile widths, centred on one tile of the hand."""
    b = boxes[int(rng.integers(len(boxes)))]
    cx, cy = rng.uniform(b[0], b[2]), rng.uniform(b[1], b[3])
    sigma = 0.9 * tile_width(boxes)
    h, w = img.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    spot = 230.0 * np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * sigma ** 2))
    return np.clip(img.astype(np.float32) + spot[..., None], 0, 255).astype(np.uint8), boxes


def handheld(img: np.ndarray, boxes: Boxes, rng: np.random.Generator) -> tuple[np.ndarray, Boxes]:
    """A handheld phone: tilted 20-35 degrees, turned +-8 degrees in the plane, motion blur 5-8 % of a tile
    width, dim light or tungsten, JPEG 70."""
    img, boxes = pitch(float(rng.uniform(20, 35)))(img, boxes, rng)
    img, boxes = rotate(float(rng.uniform(-8, 8)))(img, boxes, rng)
    img, boxes = motion_of((0.05, 0.08))(img, boxes, rng)
    img, boxes = (dim if rng.random() < 0.5 else warm)(img, boxes, rng)
    return encoded(img, 70), boxes


def clutter(img: np.ndarray, boxes: Boxes, rng: np.random.Generator) -> tuple[np.ndarray, Boxes]:
    """The rest of the table around the hand, farther from the camera: a wall row of face-down tiles and a field
    of discards (the hand's own faces, a little smaller, turned any quarter). The true boxes stay the hand's."""
    from training.synth import render_back

    h, w = img.shape[:2]
    out = img.copy()
    if not len(boxes):
        return out, boxes
    th = float(np.median(np.maximum(boxes[:, 3] - boxes[:, 1], boxes[:, 2] - boxes[:, 0])))
    top, bottom = float(boxes[:, 1].min()), float(boxes[:, 3].max())
    # farther from the camera is higher in the photo; below the hand when there is no room above
    above = top > 3.2 * th
    taken = [np.array([boxes[:, 0].min() - th, top - 2.2 * th, boxes[:, 2].max() + th, bottom + 2.2 * th])]

    def free(x1: float, y1: float, x2: float, y2: float) -> bool:
        return 0 <= x1 and 0 <= y1 and x2 <= w and y2 <= h and all(
            x2 <= t[0] or x1 >= t[2] or y2 <= t[1] or y1 >= t[3] for t in taken)

    def paste(face: np.ndarray, x: float, y: float) -> bool:
        fh, fw = face.shape[:2]
        if not free(x, y, x + fw, y + fh):
            return False
        out[int(y):int(y) + fh, int(x):int(x) + fw] = face
        taken.append(np.array([x - 2, y - 2, x + fw + 2, y + fh + 2]))
        return True

    bh = int(0.65 * th)  # the wall: a straight row of backs
    bw = int(bh / 1.35)
    n = int(rng.integers(10, 17))
    wy = rng.uniform(0.02 * h, max(0.03 * h, top - 2.4 * th - bh)) if above else \
        rng.uniform(min(bottom + 2.4 * th, h - bh - 1), h - bh - 1)
    wx = rng.uniform(0, max(1.0, w - n * bw))
    if free(wx, wy, wx + n * bw, wy + bh):
        back = render_back(bw, bh, rng)  # one set: one colour of back
        wall = np.hstack([np.clip(back.astype(np.int16) + rng.integers(-6, 7, back.shape), 0, 255).astype(np.uint8)
                          for _ in range(n)])
        out[int(wy):int(wy) + bh, int(wx):int(wx) + wall.shape[1]] = wall[:, :w - int(wx)]
        taken.append(np.array([wx - 2, wy - 2, wx + n * bw + 2, wy + bh + 2]))
    for _ in range(int(rng.integers(8, 15))):  # discards: copies of the hand's faces, scattered
        x1, y1, x2, y2 = boxes[int(rng.integers(len(boxes)))].astype(int)
        face = img[max(0, y1):y2, max(0, x1):x2]
        if face.size == 0:
            continue
        f = rng.uniform(0.7, 0.9)
        face = np.ascontiguousarray(np.rot90(cv2.resize(face, None, fx=f, fy=f), int(rng.integers(4))))
        for _ in range(30):
            y = rng.uniform(0, max(1.0, top - 2.4 * th - face.shape[0])) if above else \
                rng.uniform(min(bottom + 2.4 * th, h - face.shape[0] - 1), h - face.shape[0] - 1)
            if paste(face, rng.uniform(0, w - face.shape[1]), y):
                break
    return out, boxes


CONDITIONS: dict[str, Callable] = {
    "upright": lambda img, boxes, rng: (img, boxes),
    "rot90": quarter(1), "rot180": quarter(2), "rot270": quarter(3),
    "tilt30": tilt(30), "tilt45": tilt(45), "pitch30": pitch(30), "pitch45": pitch(45),
    "rot10": rotate(10), "rot20": rotate(20),
    "rot30": rotate(30), "rot45": rotate_roomy(45), "rot60": rotate_roomy(60), "rot300": rotate_roomy(-60),
    "blur2": blur, "motion": motion, "dim": dim, "warm": warm, "glare": glare,
    "lowres": scaled(megapixels=0.3), "jpeg25": jpeg(25), "upscale12mp": scaled(megapixels=12),
    "clutter": clutter,
    # issue 39's phone conditions, stated exactly (also in evaluation.held_out)
    "handheld": handheld, "motion15": motion_of((0.15, 0.15)), "glare_spot": glare_spot,
}
