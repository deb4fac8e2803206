"""The finder's design scenes (training.designs): true boxes through a pitched camera, one box per drawn tile."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tests.test_conditions import white_boxes
from training.designs import pitched, scene
from training.faces import font_faces


def white_blobs(img: np.ndarray) -> np.ndarray:
    """The boxes of the white regions of a black picture, left to right."""
    n, lab, stats, _ = cv2.connectedComponentsWithStats((img[..., 0] > 128).astype(np.uint8))
    boxes = [(x, y, x + w, y + h) for x, y, w, h, _a in stats[1:]]
    return np.array(sorted(boxes), np.float32)


def test_a_camera_straight_above_changes_nothing() -> None:
    img, boxes = white_boxes()
    out, moved = pitched(img, boxes, 0.0, 0.0)
    assert np.allclose(moved, boxes, atol=0.01)
    assert np.allclose(white_blobs(out), boxes, atol=1)


@pytest.mark.parametrize("degrees, turn", [(45.0, 0.0), (30.0, 8.0)])
def test_pitched_boxes_are_the_warped_tiles_boxes_and_tiles_turn_squat(degrees: float, turn: float) -> None:
    img, boxes = white_boxes()
    out, moved = pitched(img, boxes, degrees, turn)
    seen = white_blobs(out)
    assert len(seen) == 2  # nothing mirrored in from beyond the picture without a table to show there
    assert np.abs(seen - moved[np.argsort(moved[:, 0])]).max() <= 2
    if not turn:  # foreshortened: wider than tall compared with the tile seen from above
        w, h = moved[:, 2] - moved[:, 0], moved[:, 3] - moved[:, 1]
        assert np.all(w / h > 1.2 * 40 / 56)


@pytest.mark.skipif(not font_faces(), reason="no CJK font installed (apt-get install fonts-wqy-zenhei)")
def test_a_scene_gives_one_class_per_box_and_boxes_on_the_photo() -> None:
    rng = np.random.default_rng(3)
    for _ in range(4):
        img, boxes, classes = scene(rng, (480, 360))
        assert img.shape == (360, 480, 3) and img.dtype == np.uint8
        assert len(boxes) == len(classes) > 0 and set(classes) <= {0, 1}
        centres = (boxes[:, :2] + boxes[:, 2:]) / 2
        assert np.mean((centres >= 0).all(1) & (centres[:, 0] < 480) & (centres[:, 1] < 360)) > 0.5


@pytest.mark.skipif(not font_faces(), reason="no CJK font installed (apt-get install fonts-wqy-zenhei)")
def test_a_close_up_scene_shows_a_few_big_tiles() -> None:
    """``train_detector --close-ups``: every such scene is a close-up, tiles a fifth of the frame or more across."""
    rng = np.random.default_rng(5)
    for _ in range(3):
        img, boxes, _ = scene(rng, (640, 480), close=1.0)
        on = boxes[(boxes[:, 2] > 0) & (boxes[:, 0] < 640)]
        assert len(on) and float(np.median(on[:, 2] - on[:, 0])) >= 0.1 * 640
