"""The shipped ONNX models on real photos of the shared `valid` split (read in place, never copied)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from evaluation.photos import match
from tests.helpers import SHARED
from training.labels import RF_CODES, read_yolo
from vision.correction import restrict
from vision.models import MODELS_DIR
from vision.photo import load_photo
from vision.pipeline import Photo, read
from vision.reader import ReaderConfig, TileReader

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


@pytest.mark.parametrize("stem", PHOTOS)
def test_reads_the_same_photo_at_12_megapixels(reader: TileReader, stem: str):
    """A phone-sized JPEG (4032 x 3024) is decoded at half scale and its small tiles read in zoomed windows; the
    boxes come back in the photo's own pixels."""
    path = next((VALID / "images").glob(stem + "*"))
    img = load_photo(path)
    gt, codes = read_yolo(VALID / "labels" / (path.stem + ".txt"), img.shape[1], img.shape[0], RF_CODES)
    canvas = np.empty((3024, 4032, 3), np.uint8)
    canvas[:] = img[:8, :8].mean((0, 1))
    canvas[:, 504:504 + 3024] = cv2.resize(img, (3024, 3024), interpolation=cv2.INTER_CUBIC)
    ok, buf = cv2.imencode(".jpg", canvas, [cv2.IMWRITE_JPEG_QUALITY, 92])
    photo = Photo.decode(buf.tobytes(), "big.jpg")
    assert photo.scale == 2.0 and photo.image.shape[:2] == (1512, 2016)
    r = read(photo, reader, "nanjing", False, 0)
    assert (r.width, r.height) == (4032, 3024)
    k = 3024 / img.shape[0]
    pairs = match(gt * k + np.array([504, 0, 504, 0], np.float32), r.det.xyxy)
    right = sum(r.det.codes[j] == codes[i] for i, j in pairs)
    assert len(pairs) >= 0.95 * len(gt), f"found {len(pairs)} of {len(gt)} tiles"
    assert right >= 0.95 * len(gt), f"{right} of {len(gt)} tiles read right"
    assert len(r.det) <= len(gt) + 1


def test_a_photo_the_export_squashed_is_read_unstretched(reader: TileReader):
    """Tiles ten times taller than wide (a photo stretched to a square): the finder's first pass misses them,
    the un-stretched second reading finds them."""
    path = next((VALID / "images").glob("410154101_*"))
    img = load_photo(path)
    gt, codes = read_yolo(VALID / "labels" / (path.stem + ".txt"), img.shape[1], img.shape[0], RF_CODES)
    sides = np.sort(np.stack([gt[:, 2] - gt[:, 0], gt[:, 3] - gt[:, 1]], 1), 1)
    assert np.median(sides[:, 0] / sides[:, 1]) < 0.2  # really squashed
    # (the first pass alone: no re-read, nor row ends or holes looked at again)
    first_pass_only = TileReader(threads=2, config=ReaderConfig().but(retry_below=0.0, row_ends=False,
                                                                     fill_holes=False))
    assert len(match(gt, first_pass_only.detect(img).xyxy)) < 0.5 * len(gt)
    det = reader.read(img)
    assert len(match(gt, det.xyxy)) >= 0.9 * len(gt)


def test_a_box_on_a_plain_surface_is_vetoed_and_real_tiles_are_kept(reader: TileReader):
    from vision.detections import Detections

    path = next((VALID / "images").glob(PHOTOS[0] + "*"))
    photo = load_photo(path)
    gt, _ = read_yolo(VALID / "labels" / (path.stem + ".txt"), photo.shape[1], photo.shape[0], RF_CODES)
    h, w = photo.shape[:2]
    img = np.full((h, 2 * w, 3), (150, 160, 165), np.uint8)  # the photo beside a plain grey tray
    img[:, :w] = photo
    tw, th = np.median(gt[:, 2] - gt[:, 0]), np.median(gt[:, 3] - gt[:, 1])
    plain = np.array([[1.5 * w, h / 2, 1.5 * w + tw, h / 2 + th]], np.float32)  # a tile-sized box on the tray
    det = Detections(np.concatenate([gt, plain]).astype(np.float32), np.full(len(gt) + 1, 0.6, np.float32))
    out = reader.classifier.classify(img, det)
    assert len(out) == len(gt)  # the tray box is gone, every labelled tile kept
    assert not (out.xyxy[:, 0] >= w).any()


@pytest.mark.parametrize("stem", ["IMG_20231219_161737_jpg", "IMG_20231219_163334_jpg", "hand_010_jpg",
                                  "396392171_310198881758321_9218735747996807104_n_jpg"])
def test_a_blank_white_dragon_is_kept_and_a_lone_doubt_dropped(reader: TileReader, stem: str):
    """Tiles laid in a tray: the "not a tile" class doubts a blank white dragon (0.52-0.59; it learnt plain
    patches of table), whose plain face has the other faces' ivory, so it is kept and read blank. A box the
    finder doubts (0.30-0.33) with nothing beside it, on the table's edge or a wall's, is dropped. Each photo:
    every labelled tile found and read right, and nothing more."""
    path = next((VALID / "images").glob(stem + "*"))
    img = load_photo(path)
    gt, codes = read_yolo(VALID / "labels" / (path.stem + ".txt"), img.shape[1], img.shape[0], RF_CODES)
    det = reader.read(img)
    pairs = match(gt, det.xyxy)
    assert len(pairs) == len(gt) == len(det)
    assert [det.codes[j] for _, j in pairs] == [codes[i] for i, _ in pairs]


def test_every_label_fix_names_a_box_that_carries_the_label_it_corrects():
    """classes.VALID_LABEL_FIXES is not stale: each fix points at a row of the shared label file holding the
    wrong face it corrects, so the evaluation changes exactly those boxes."""
    from training.labels import VALID_LABEL_FIXES, fix_labels

    for name, index, given, shown in VALID_LABEL_FIXES:
        label = next((VALID / "labels").glob(name + ".rf.*.txt"))
        _, codes = read_yolo(label, 640, 640, RF_CODES)
        assert codes[index] == given, (name, index)
        before = list(codes)
        assert fix_labels(label.name, codes) >= 1
        assert codes[index] == shown
        assert sum(a != b for a, b in zip(before, codes)) == sum(f[0] == name for f in VALID_LABEL_FIXES)


def test_a_row_of_characters_labelled_as_dots_is_read_as_characters(reader: TileReader):
    """hand_016: the export labels 4-5-6 of characters as dots; the reader names every tile as the fixed labels do."""
    from training.labels import fix_labels

    path = next((VALID / "images").glob("hand_016_jpg*"))
    img = load_photo(path)
    gt, codes = read_yolo(VALID / "labels" / (path.stem + ".txt"), img.shape[1], img.shape[0], RF_CODES)
    assert [codes[i] for i in (3, 4, 5)] == ["6p", "5p", "4p"]
    assert fix_labels(path.name, codes) == 3
    det = reader.read(img)
    restrict(det, "nanjing")
    pairs = match(gt, det.xyxy)
    assert len(pairs) == len(gt) == len(det)
    assert all(det.codes[j] == codes[i] for i, j in pairs)


def test_a_photo_stretched_until_its_tiles_are_landscape_is_named_a_quarter_turned(reader: TileReader):
    """The export stretched this photo so far that its upright tiles came out landscape: the shape rule turns
    every crop sideways; the photo's surer reading (crops kept as they are) and reading the unsure crops a
    quarter turned both ways name most tiles right."""
    from vision.detections import squashed

    path = next((VALID / "images").glob("368097815_*"))
    img = load_photo(path)
    gt, codes = read_yolo(VALID / "labels" / (path.stem + ".txt"), img.shape[1], img.shape[0], RF_CODES)
    assert squashed(gt)
    named = []
    for r in (reader, TileReader(threads=2, config=ReaderConfig().but(quarter_turn_margin=None, photo_turn=False))):
        det = r.read(img)
        restrict(det, "nanjing")
        pairs = match(gt, det.xyxy)
        assert len(pairs) == len(gt)
        named.append(sum(det.codes[j] == codes[i] for i, j in pairs))
    assert named[0] >= 9 and named[0] > named[1], named


def test_a_stretched_column_of_bamboo_tiles_is_read_one_box_per_tile(reader: TileReader):
    """Squashed too little, each group of bamboo sticks passes for a tile of its own (more boxes, each less
    sure); the un-stretched reading kept is the surest one, with one box per tile."""
    path = next((VALID / "images").glob("395484592_*"))
    img = load_photo(path)
    gt, _ = read_yolo(VALID / "labels" / (path.stem + ".txt"), img.shape[1], img.shape[0], RF_CODES)
    det = reader.read(img)
    assert len(match(gt, det.xyxy)) >= len(gt) - 1
    assert len(det) <= len(gt) + 1



@pytest.mark.parametrize("stem", ["387495486_621370556613476_285870165352538189_n_jpg", "IMG_20231224_160913_jpg"])
def test_a_real_photo_under_tungsten_light_is_read_as_in_daylight(reader: TileReader, stem: str):
    """A real photo under a warm lamp (``evaluation.conditions.warm``: blue x0.7, red x1.15): its faces turn
    orange and a tile or more was misread. White-balanced to a lit face's ivory (``vision.balance``), every
    labelled tile is found and read right, and nothing more; read as it is, not."""
    from evaluation.conditions import warm

    path = next((VALID / "images").glob(stem + "*"))
    img = load_photo(path)
    gt, codes = read_yolo(VALID / "labels" / (path.stem + ".txt"), img.shape[1], img.shape[0], RF_CODES)
    img, gt = warm(img, gt, np.random.default_rng(0))

    def right(r: TileReader) -> bool:
        det = r.read(img)
        pairs = match(gt, det.xyxy)
        return len(pairs) == len(gt) == len(det) and [det.codes[j] for _, j in pairs] == [codes[i] for i, _ in pairs]

    assert right(reader)
    assert not right(TileReader(threads=2, config=ReaderConfig().but(balance=False)))
