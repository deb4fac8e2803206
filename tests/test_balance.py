"""A photo under a coloured light is white-balanced for the classifier to a lit face's ivory; a photo in ordinary
light, or with too few faces to measure, is read as it is (``vision.balance``)."""

from __future__ import annotations

import numpy as np

from vision.balance import CAST, TINT, balanced, faces_ivory
from vision.detections import Detections

IVORY = (222, 232, 238)  # B, G, R: a lit face (blue 0.93, green 0.97 of red)


def table(n: int, light: tuple[float, float, float] = (1.0, 1.0, 1.0)) -> tuple[np.ndarray, Detections]:
    """A brown table with ``n`` ivory tiles (a green mark on each) under a light that scales B, G, R, and their
    boxes."""
    img = np.zeros((120, 60 * n + 20, 3), np.uint8)
    img[:] = (40, 60, 110)
    boxes = []
    for k in range(n):
        x = 10 + 60 * k
        img[20:100, x:x + 56] = IVORY
        img[45:75, x + 18:x + 38] = (40, 110, 30)
        boxes.append([x, 20, x + 56, 100])
    lit = np.clip(img.astype(np.float32) * np.float32(light), 0, 255).astype(np.uint8)
    xyxy = np.float32(boxes)
    return lit, Detections(xyxy, np.full(n, 0.9, np.float32), back_score=np.zeros(n, np.float32))


def test_a_photo_under_tungsten_light_gets_a_lit_faces_ivory_back() -> None:
    img, det = table(6, (0.7, 0.95, 1.15))  # (the held-out handheld phone's tungsten: blue down, red up)
    before = faces_ivory(img, det)
    assert before is not None and before[0] / before.max() < TINT[0] - CAST  # (an orange face)
    out = balanced(img, det)
    after = faces_ivory(out, det)
    assert after is not None
    assert np.allclose(after / after.max(), TINT, atol=0.02)
    mark = out[60, 38].astype(int)  # (the green mark stays green)
    assert mark[1] > mark[0] and mark[1] > mark[2]


def test_a_photo_in_ordinary_light_is_read_as_it_is() -> None:
    img, det = table(6)
    assert balanced(img, det) is img
    dim, det = table(6, (0.35, 0.35, 0.35))  # (a third of the light: no colour cast)
    assert balanced(dim, det) is dim


def test_too_few_faces_or_only_backs_are_not_measured() -> None:
    img, det = table(2, (0.7, 0.95, 1.15))
    assert faces_ivory(img, det) is None and balanced(img, det) is img
    img, det = table(6, (0.7, 0.95, 1.15))
    backs = Detections(det.xyxy, det.confidence, back_score=np.full(len(det), 0.9, np.float32))
    assert faces_ivory(img, backs) is None and balanced(img, backs) is img
