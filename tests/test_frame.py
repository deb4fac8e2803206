"""Boxes in the photo as sent: whatever the reader turned or levelled, the JSON's boxes lie on the photo's tiles."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.helpers import SHARED
from vision.detections import box_areas, intersections
from vision.geometry import PhotoFrame, level_matrix, moved, turn_points, turned_shape
from vision.models import MODELS_DIR

VALID = SHARED / "data" / "chinese-mahjong-rf" / "valid"
needs_model = pytest.mark.skipif(not (MODELS_DIR / "detector.onnx").exists(), reason="shipped models not built")
needs_data = pytest.mark.skipif(not VALID.exists(), reason=f"{VALID} not found (set MAHJONG_SHARED)")


@pytest.mark.parametrize(("levelled", "turned", "scale"), [(0.0, 0, 1.0), (0.0, 1, 1.0), (0.0, 3, 2.0),
                                                           (30.0, 0, 1.0), (-24.0, 2, 2.0), (50.0, 3, 1.5)])
def test_the_frame_maps_points_as_read_back_to_the_photo(levelled: float, turned: int, scale: float) -> None:
    """Points of the photo taken into the frame as read (levelled, then turned, at the photo's scale) come back
    where they were: each box as read becomes its four corners in the photo."""
    decoded = (300, 400)
    frame = PhotoFrame.of(decoded, scale, type("T", (), {"levelled": levelled, "turned": turned})())
    assert frame.orig_shape == (round(300 * scale), round(400 * scale))
    pts = np.array([[50.0, 60.0], [120.0, 60.0], [120.0, 150.0], [50.0, 150.0]])  # decoded pixels
    shape: tuple[int, ...] = decoded
    if levelled:
        m, shape = level_matrix(decoded, levelled)
        pts = np.stack(moved(m, pts[:, 0], pts[:, 1]), 1)
    read = turn_points(pts, shape, turned) * scale  # the frame as read, at the photo's scale
    x1, y1 = read.min(0)
    x2, y2 = read.max(0)
    corners = frame.corners_in_photo(np.array([[x1, y1, x2, y2]], np.float32))[0]
    original = np.array([[50.0, 60.0], [120.0, 60.0], [120.0, 150.0], [50.0, 150.0]]) * scale
    if not levelled:  # a quarter-turned box is the same rectangle: its corners, in some order, are the originals
        assert sorted(map(tuple, np.round(corners, 2))) == sorted(map(tuple, np.round(original, 2)))
        box = frame.to_photo(np.array([[x1, y1, x2, y2]], np.float32))[0]
        assert np.allclose(box, [*original.min(0), *original.max(0)], atol=0.01)
    else:  # the box as read encloses the levelled tile: its corners, mapped back, enclose the original points
        contour = corners.reshape(-1, 1, 2).astype(np.float32)
        assert all(cv2.pointPolygonTest(contour, (float(x), float(y)), True) >= -0.5 for x, y in original)
    assert frame.read_size() == (round(turned_shape(shape, turned)[1] * scale), round(turned_shape(shape, turned)[0] *
                                                                                        scale))


def _composed(path: Path) -> np.ndarray:
    """A composed winning hand on a real background, written to ``path``; its tiles' true boxes."""
    from evaluation.hands import table_groups, truth_case
    from training.data import load_split
    from training.synth import CropBank, compose

    bank = CropBank.build(load_split("valid")[:120], seed=3)
    rng = random.Random(5)
    hand, winner = truth_case(rng, "nanning")
    img, placed = compose(table_groups(hand, winner, rng), bank, np.random.default_rng(5), canvas=(1600, 1200),
                          fit=True)
    cv2.imwrite(str(path), img, [cv2.IMWRITE_JPEG_QUALITY, 92])
    return np.array([p.box for p in placed], np.float32)


def _cli_json(path: Path) -> dict:
    out = subprocess.run([sys.executable, "-m", "vision", str(path), "--json"], capture_output=True, text=True,
                         check=True, cwd=Path(__file__).resolve().parents[1])
    return json.loads(out.stdout)


@needs_model
@needs_data
@pytest.mark.parametrize("turns", [1, 3])
def test_a_photo_turned_without_exif_has_its_boxes_in_its_own_pixels(tmp_path: Path, turns: int) -> None:
    """A photo turned by a quarter with no EXIF tag: the reader reads it turned upright, and ``python -m vision
    --json`` gives its boxes, width and height in the pixels of the photo as sent, so a client that draws them
    over its photo draws them on the tiles; ``as_read`` says how it was read."""
    upright = tmp_path / "upright.jpg"
    truth = _composed(upright)
    img = cv2.imread(str(upright))
    turned = cv2.rotate(img, cv2.ROTATE_90_COUNTERCLOCKWISE if turns == 1 else cv2.ROTATE_90_CLOCKWISE)
    path = tmp_path / "turned.jpg"
    cv2.imwrite(str(path), turned, [cv2.IMWRITE_JPEG_QUALITY, 92])
    out = _cli_json(path)
    assert (out["width"], out["height"]) == (turned.shape[1], turned.shape[0])
    assert out["orig_shape"] == [turned.shape[0], turned.shape[1]]
    assert out["as_read"]["turned"] % 2 == 1 and (out["as_read"]["width"], out["as_read"]["height"]) == (1600, 1200)
    # the true boxes of the photo as sent: the composed ones turned with it
    h, w = img.shape[:2]
    x1, y1, x2, y2 = truth.T
    true = np.stack([y1, w - x2, y2, w - x1], 1) if turns == 1 else np.stack([h - y2, x1, h - y1, x2], 1)
    boxes = np.array([t["box"] for t in out["tiles"]], np.float32)
    iou = intersections(true, boxes) / (box_areas(true)[:, None] + box_areas(boxes)[None] - intersections(true, boxes))
    assert len(boxes) == len(true) and (iou.max(1) >= 0.7).all()
    for t in out["tiles"]:  # the corners as read, mapped to the photo, are the box's own corners there
        c = np.array(t["corners"])
        assert np.allclose([*c.min(0), *c.max(0)], t["box"], atol=0.2)


@needs_model
@needs_data
def test_a_photo_read_levelled_has_its_boxes_on_its_tiles(tmp_path: Path) -> None:
    """A phone held 30 degrees askew: read levelled, yet every box in the JSON lies over a tile of the photo as
    sent (the box around its tile turned back), and its corners trace the tile's turned rectangle."""
    from evaluation.conditions import rotate

    upright = tmp_path / "upright.jpg"
    truth = _composed(upright)
    askew, true = rotate(30)(cv2.imread(str(upright)), truth.copy(), np.random.default_rng(0))
    path = tmp_path / "askew.jpg"
    cv2.imwrite(str(path), askew, [cv2.IMWRITE_JPEG_QUALITY, 92])
    out = _cli_json(path)
    assert abs(out["as_read"]["levelled"] + 30) <= 3 and (out["width"], out["height"]) == (1600, 1200)
    boxes = np.array([t["box"] for t in out["tiles"]], np.float32)
    iou = intersections(true, boxes) / (box_areas(true)[:, None] + box_areas(boxes)[None] - intersections(true, boxes))
    assert (iou.max(1) >= 0.5).mean() >= 0.9
