"""Glare: the white veil a specular highlight lays over glossy tiles is taken off where the faces are still there
under it (``vision.glare``), what the sensor blew out stays white, and a face glare washed out is flagged with the
trace it still shows as the first hint, never read as a confident blank."""

from __future__ import annotations

import numpy as np
import pytest

from evaluation.conditions import glare
from evaluation.hands import normal
from evaluation.photos import match
from tests.test_orientation import composed_hand, needs_data
from vision.classes import CLASS_INDEX, CLASSIFIER_CODES
from vision.classify import unsure_where_washed
from vision.glare import deglared, veil_map, veil_of_boxes
from vision.pipeline import read_image
from vision.reader import TileReader


def table(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """A green mat with a row of ivory tiles, each with dark strokes; and the tiles' boxes."""
    rng = np.random.default_rng(seed)
    img = np.zeros((480, 900, 3), np.uint8)
    img[:] = (40, 110, 30)
    boxes = []
    for i in range(12):
        x1, y1 = 60 + 66 * i, 200
        img[y1:y1 + 84, x1:x1 + 62] = (205, 220, 228)
        for _ in range(5):  # ink strokes
            sx, sy = x1 + 8 + int(rng.integers(40)), y1 + 8 + int(rng.integers(60))
            img[sy:sy + 6, sx:sx + 14] = (30, 30, 160) if rng.random() < 0.5 else (20, 20, 20)
        boxes.append([x1, y1, x1 + 62, y1 + 84])
    return img, np.float32(boxes)


def test_a_photo_without_a_blown_out_spot_is_left_as_it_is() -> None:
    img, _ = table()
    assert veil_map(img) is None
    assert deglared(img) is img


def test_the_veil_of_a_glare_spot_is_taken_off_the_faces_under_it() -> None:
    img, boxes = table()
    washed, _ = glare(img, boxes, np.random.default_rng(3))
    out = deglared(washed)
    spot = np.abs(washed.astype(int) - img.astype(int)).max(2) > 30  # where the veil changed the picture
    faces = np.zeros(img.shape[:2], bool)
    for x1, y1, x2, y2 in boxes.astype(int):
        faces[y1:y2, x1:x2] = True
    where = spot & faces
    assert where.sum() > 500
    before = np.abs(washed.astype(int) - img.astype(int))[where].mean()
    after = np.abs(out.astype(int) - img.astype(int))[where].mean()
    assert after < 0.5 * before, (before, after)
    # the ink under the spot is dark again: the face's contrast is back
    ink = where & (img.max(2) < 170)
    assert out[ink].mean() < washed[ink].mean() - 60


def test_the_tile_under_the_spot_is_the_veiled_one() -> None:
    img, boxes = table()
    washed, _ = glare(img, boxes[5:6], np.random.default_rng(0))
    v = veil_of_boxes(veil_map(washed), washed.shape, boxes)
    assert v[5] > 0.5 and int(np.argmax(v)) == 5
    assert (v[[0, 1, 10, 11]] < 0.05).all()  # far from the spot: no veil
    assert not veil_of_boxes(veil_map(img), img.shape, boxes).any()


def test_what_the_sensor_blew_out_stays_white() -> None:
    img, boxes = table()
    img[230:260, 300:340] = 255  # clipped: nothing is left to recover
    out = deglared(img)
    assert (out[235:255, 305:335] == 255).all()


def test_a_washed_face_is_unsure_and_its_trace_comes_first() -> None:
    n = len(CLASSIFIER_CODES)
    probs = np.full((2, n), 0.001, np.float32)
    probs[:, CLASS_INDEX["P"]] = 1.0  # read as the blank white dragon it looks like
    probs /= probs.sum(1, keepdims=True)
    hint = np.ones((2, n), np.float32)
    hint[0, CLASS_INDEX["7p"]] = 3.0  # the de-glared crop still shows traces of 7p
    hint /= hint.sum(1, keepdims=True)
    out = unsure_where_washed(probs, np.float32([0.6, 0.0]), hint)
    assert out[0].max() < 0.5  # flagged on the page, the rule-aware correction leans on the hand
    faces = [c for c in CLASSIFIER_CODES if c != "P"]
    assert max(faces, key=lambda c: out[0, CLASS_INDEX[c]]) == "7p"
    assert np.allclose(out[1], probs[1])  # a clean crop keeps its reading
    assert np.allclose(out.sum(1), 1.0, atol=1e-5)


@needs_data
@pytest.mark.parametrize("tile", [0, 10, 14])
def test_a_glare_spot_on_a_tile_of_a_real_hand_is_found_and_flagged(composed_placed: tuple, tile: int) -> None:
    """A spot on the concealed row, on a concealed kong's second face and on an exposed kong of a composed hand
    (real `valid` crops): the finder still finds the tile under it, the page flags it, and the hand is read
    exactly. (A spot on the kong's first face, tile 9, is found and flagged too, but the finder loses the
    face-down tile beside it: model card, known failures.)"""
    img, placed, hand, winner = composed_placed
    washed, _ = glare(img, np.float32([placed[tile].box]), np.random.default_rng(0))
    r = read_image(washed, TileReader(), "nanning", True, winner)
    found = dict(match(np.float32([p.box for p in placed]), r.det.xyxy))
    assert tile in found
    assert found[tile] in r.doubts
    assert normal(r.hand) == normal(hand)


@pytest.fixture(scope="module")
def composed_placed() -> tuple:
    """The composed hand of ``test_orientation``, with where each tile lies."""
    return composed_hand()
