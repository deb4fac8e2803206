"""The shipped ONNX models on real photos of the shared `valid` split (read in place, never copied)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.classes import RF_CODES
from vision.correction import restrict
from vision.evaluate import match, read_yolo
from vision.photo import load_photo
from vision.reader import MODELS_DIR, TileReader

from .helpers import SHARED

VALID = SHARED / "data" / "chinese-mahjong-rf" / "valid"
HAS_MODEL = (MODELS_DIR / "detector.onnx").exists() and (MODELS_DIR / "classifier.onnx").exists()
pytestmark = [pytest.mark.skipif(not HAS_MODEL, reason="shipped models not built"),
              pytest.mark.skipif(not VALID.exists(), reason=f"{VALID} not found (set MAHJONG_SHARED)")]

# real photos of different sets, angles and layouts from the valid split (labels checked by eye)
PHOTOS = [
    "IMG_20231106_111921_jpg",
    "IMG_20231219_163214_jpg",
    "382172716_841143280977318_6895463033192368920_n_jpg",
    "395794817_2376513082523833_4038443797689914457_n_jpg",
    "387593807_2529741337185686_6863345406955859593_n_jpg",
]


@pytest.fixture(scope="module")
def reader() -> TileReader:
    return TileReader(threads=2)


@pytest.mark.parametrize("stem", PHOTOS)
def test_reads_a_real_photo(reader: TileReader, stem: str):
    path = next((VALID / "images").glob(stem + "*"))
    img = load_photo(path)
    gt, codes = read_yolo(VALID / "labels" / (path.stem + ".txt"), img.shape[1], img.shape[0], RF_CODES)
    det = reader.read(img)
    restrict(det, "nanjing")
    pairs = match(gt, det.xyxy)
    read = det.codes
    right = sum(read[j] == codes[i] for i, j in pairs)
    assert len(pairs) >= 0.95 * len(gt), f"found {len(pairs)} of {len(gt)} tiles"
    assert right >= 0.95 * len(gt), f"{right} of {len(gt)} tiles read right"
    assert len(det) <= len(gt) + 1


def test_reading_is_deterministic(reader: TileReader):
    path = next((VALID / "images").glob(PHOTOS[0] + "*"))
    img = load_photo(path)
    a, b = reader.read(img), reader.read(img)
    assert np.array_equal(a.xyxy, b.xyxy) and a.codes == b.codes
