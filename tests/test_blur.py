"""Blur: a real photo out of focus or shaken is read sharpened and its tiles found, the page says so; a sharp
photo and a dim, noisy one are read as they are (``vision.blur``)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from evaluation.conditions import blur, dim, motion, motion_blur
from evaluation.photos import match
from tests.test_app import app  # noqa: F401  (the page, for the page test)
from tests.test_glare import table
from tests.test_orientation import VALID, needs_data
from training.labels import RF_CODES, read_yolo
from vision.blur import BLURRED, blurred, edge_ratio, sharpened
from vision.geometry import photo_boxes
from vision.photo import load_photo
from vision.pipeline import read_image
from vision.reader import ReaderConfig, TileReader


def test_a_blurred_photo_measures_blurred_and_a_sharp_or_noisy_one_does_not() -> None:
    img, boxes = table()
    rng = np.random.default_rng(0)
    assert edge_ratio(img) >= BLURRED and not blurred(img)
    assert blurred(blur(img, boxes, rng)[0])
    assert blurred(motion(img, boxes, rng)[0])
    assert not blurred(dim(img, boxes, rng)[0])  # sensor noise is no blur
    assert not blurred(np.full((100, 100, 3), 128, np.uint8))  # a blank picture has no edges to measure


def test_sharpening_gives_a_blurred_edge_its_contrast_back() -> None:
    img, boxes = table()
    soft = blur(img, boxes, np.random.default_rng(0))[0]
    out = sharpened(soft)
    assert out.dtype == np.uint8 and out.shape == soft.shape
    def steepest(a: np.ndarray) -> float:
        return float(np.percentile(np.abs(np.diff(a.astype(int), axis=1)), 99))

    assert steepest(out) > 1.5 * steepest(soft)
    assert np.abs(out.astype(int) - img.astype(int)).mean() < np.abs(soft.astype(int) - img.astype(int)).mean()


# a real tray of 36 tiles, never trained on: blurred by a Gaussian of sigma 2.5, the finder alone keeps 27 of them
PHOTO = "IMG_20231222_181835"


def labelled(name: str) -> tuple[np.ndarray, np.ndarray]:
    path = next((VALID / "images").glob(name + "*.jpg"))
    img = load_photo(path)
    gt, _ = read_yolo(VALID / "labels" / (path.stem + ".txt"), img.shape[1], img.shape[0], RF_CODES)
    return img, gt


def out_of_focus(img: np.ndarray) -> np.ndarray:
    """Further out of focus than the evaluation's ``blur`` (sigma 2.5 against 2: the finder finds all 36 tiles
    of sigma 2 unsharpened)."""
    return cv2.GaussianBlur(img, (0, 0), 2.5)


def shaken(img: np.ndarray) -> np.ndarray:
    """Shaken further than the evaluation's ``motion`` (15 px against 11, a quarter of a tile's width here)."""
    return motion_blur(img, 15.0, 37.0)


@needs_data
@pytest.mark.parametrize("condition", [out_of_focus, shaken])
def test_a_real_photo_out_of_focus_or_shaken_is_read_sharpened(condition) -> None:  # noqa: ANN001
    img, gt = labelled(PHOTO)
    soft = condition(img)
    det = TileReader().read(soft)
    assert det.sharpened
    found = len(match(gt, photo_boxes(det, soft.shape)))
    assert found >= 0.95 * len(gt), (found, len(gt))
    before = TileReader(config=ReaderConfig().but(deblur=False)).read(soft)  # the reader before: most tiles lost
    assert not before.sharpened
    assert len(match(gt, photo_boxes(before, soft.shape))) < found


@needs_data
def test_the_page_says_a_photo_was_read_sharpened_and_a_sharp_one_is_read_as_it_is() -> None:
    img, gt = labelled(PHOTO)
    reader = TileReader()
    sharp = read_image(img, reader, "nanning", False)
    assert not sharp.det.sharpened and not any("blurred" in str(w) for w in sharp.warnings)
    soft = read_image(cv2.GaussianBlur(img, (0, 0), 2.0), reader, "nanning", False)
    assert soft.det.sharpened
    said = soft.to_json()
    assert said["sharpened"] is True
    assert any("blurred" in w for w in said["warnings"]) and any("模糊" in w for w in said["warnings_zh"])


@needs_data
def test_the_page_warns_of_a_blurred_photo_in_the_user_s_language(app) -> None:  # noqa: ANN001, F811
    """A blurred photo uploaded: the page shows what it found and asks the player to check every tile, in English
    and in Chinese."""
    img, _ = labelled(PHOTO)
    ok, data = cv2.imencode(".jpg", cv2.GaussianBlur(img, (0, 0), 2.0), [cv2.IMWRITE_JPEG_QUALITY, 92])
    assert ok
    app.file_uploader(key="upload").set_value(("blurred.jpg", data.tobytes(), "image/jpeg")).run()
    assert not app.exception
    assert app.session_state["tab"].photo.det.sharpened
    assert any("blurred (out of focus or shaken)" in w.value for w in app.warning)
    app.radio(key="lang").set_value("zh").run()
    assert any("照片模糊" in w.value for w in app.warning)
