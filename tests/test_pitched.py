"""A phone pitched steeply over the hand: upright tiles come out squat (boxes just landscape), and must not be taken
for a photo turned by a quarter; the melds' sideways tiles, far wider still, are found among them."""

from __future__ import annotations

import numpy as np
import pytest

from evaluation.hands import normal
from tests.helpers import SHARED
from vision.crops import orientation, pitched_rows, side_by_side, squat
from vision.detections import Detections
from vision.ends import past_row_ends
from vision.finding import in_rows
from vision.models import MODELS_DIR


def boxes(widths: list[float], height: float, across: bool = True) -> np.ndarray:
    """Boxes side by side in a row (or stacked in a column) of these widths and one height."""
    out, at = [], 0.0
    for w in widths:
        out.append([at, 0.0, at + w, height] if across else [0.0, at, height, at + w])
        at += w + 1
    return np.array(out, np.float32)


def test_squat_upright_tiles_with_wide_sideways_ones_are_upright():
    # 45 degrees of pitch: upright tiles 1.05 wide for their height, the sideways tiles of melds 1.9
    xyxy = boxes([42] * 10 + [76, 42, 42], 40)
    assert squat(xyxy)
    turn, side = orientation(xyxy)
    assert side.tolist() == [False] * 10 + [True, False, False]
    assert turn.tolist() == side.tolist()  # only the sideways tile's crop is turned upright


def test_a_sideways_tile_boxed_tight_in_a_pitched_photo_is_told_by_its_lower_box():
    """Held-out pitch45 hand 3: a pung's sideways 9p boxed 58 x 44 among upright boxes of 60 x 57 (1.32 wide for
    its height, under 1.3 times the squat median): lower than the row and wider than its tiles, it lies sideways.
    A box as low but no wider than the rest (a tile farther off) stays upright."""
    xyxy = boxes([60] * 10 + [80, 60, 58, 60], 57)
    xyxy[10, 1], xyxy[12, 1] = 57 - 42, 57 - 44  # sideways tiles: one boxed clear (80 x 42), one tight (58 x 44)
    assert squat(xyxy)
    turn, side = orientation(xyxy)
    assert side.tolist() == [False] * 10 + [True, False, True, False]
    xyxy[12, 2] = xyxy[12, 0] + 47  # as low, but 47 x 44: no wider for its height than the squat upright boxes
    assert not orientation(xyxy)[1][12]


def test_a_sideways_tile_boxed_short_of_its_length_in_an_upright_photo_lies_sideways():
    """Held-out upright hand 23: a pung's sideways 7s boxed 68 x 69 (its length cut short: square, not landscape)
    among upright boxes of 63 x 88. A box as low but as narrow for its height as the rest stays upright."""
    xyxy = boxes([63] * 10 + [82, 63, 63, 68, 50], 88)
    xyxy[10, 1], xyxy[13, 1], xyxy[14, 1] = 88 - 72, 88 - 69, 88 - 70
    turn, side = orientation(xyxy)
    assert side.tolist() == [False] * 10 + [True, False, False, True, False]


def test_a_photo_turned_by_a_quarter_is_still_turned():
    # tiles 1.35 wide for their height (turned), a meld's sideways tile 0.74: the narrow one lies sideways
    xyxy = boxes([54] * 10 + [30, 54, 54], 40)
    assert not squat(xyxy)
    turn, side = orientation(xyxy)
    assert turn[:10].all() and side.tolist() == [False] * 10 + [True, False, False]


def test_squat_tiles_in_a_row_with_two_narrow_boxes_are_not_turned():
    """Held-out pitch45 hand 23: upright tiles 1.1 wide for their height side by side, two boxes over parts of
    tiles 0.7 wide (no slivers), no sideways tile: no crop is turned (read turned, a 2p is taken for a 1p), and no
    tile is taken as sideways."""
    xyxy = boxes([44] * 10 + [28, 30], 40)
    assert not squat(xyxy) and pitched_rows(xyxy)
    turn, side = orientation(xyxy)
    assert not turn.any() and not side.any()
    assert not pitched_rows(boxes([44] * 10 + [28, 30], 40, across=False))  # stacked: a photo turned by a quarter
    assert not pitched_rows(boxes([54] * 12, 40))  # 1.35 wide: tiles turned by a quarter


def test_a_pitched_photo_read_turned_must_show_its_tiles_in_rows():
    """Held-out pitch45 hand 3: the finder is surer of the photo turned by a quarter, but turned, the pitched
    hand's tiles stand one above the other, which a hand turned back upright never does: not taken as turned. A
    photo that did not look pitched is not asked."""
    def found(xyxy: np.ndarray) -> Detections:
        return Detections(xyxy, np.full(len(xyxy), 0.9, np.float32))

    column, row = found(boxes([36] * 10, 40, across=False)), found(boxes([36] * 10, 40))
    assert not in_rows(column, pitched=True) and in_rows(row, pitched=True)
    assert in_rows(column, pitched=False)


def test_neighbours_side_by_side_or_one_above_the_other():
    assert side_by_side(boxes([42] * 8, 40)) and not side_by_side(boxes([42] * 8, 40, across=False))
    column = boxes([42] * 10 + [76, 42, 42], 40, across=False)  # squat boxes stacked: no pitched hand
    assert not squat(column)


@pytest.mark.skipif(not (SHARED / "data" / "chinese-mahjong-rf" / "valid").exists(), reason="shared data absent")
@pytest.mark.skipif(not (MODELS_DIR / "detector.onnx").exists(), reason="shipped models not built")
def test_composed_hands_shot_pitched_45_degrees_are_read_upright():
    """Hands composed from `valid` crops and shot by a pinhole camera pitched 45 degrees (evaluation.conditions.pitch):
    none is taken for a photo turned by a quarter, and the hands are read exactly."""
    from evaluation.hands import composed_cases
    from training.data import load_split
    from training.synth import CropBank
    from vision.pipeline import read_image
    from vision.reader import TileReader

    bank = CropBank.build(load_split("valid")[:150], seed=0)
    reader = TileReader()
    right = []
    for _, ruleset, hand, winner, img, _placed in composed_cases(bank, 4, 0, "pitch45"):
        r = read_image(img, reader, ruleset, True, winner)
        assert r.det.turned in (0, 2)
        right.append(normal(r.hand) == normal(hand))
    assert sum(right) >= 3, right


class CropFinder:
    """A stand-in finder that knows where the photo's tiles are: each crop it is given (found by its pixels,
    which hold each tile's index) gets the boxes of the tiles wholly inside it, in the crop's pixels."""

    def __init__(self, tiles: np.ndarray) -> None:
        self.tiles, self.crops = tiles, 0

    def find(self, crop: np.ndarray, *args: object) -> Detections:
        self.crops += 1
        x0, y0 = float(crop[0, 0, 0]), float(crop[0, 0, 1])  # (the crop's corner, written in its pixels)
        inside = [t for t in self.tiles if t[0] >= x0 and t[1] >= y0 and t[2] <= x0 + crop.shape[1]
                  and t[3] <= y0 + crop.shape[0]]
        boxes = np.array(inside, np.float32).reshape(-1, 4) - np.float32([x0, y0, x0, y0])
        return Detections(boxes, np.full(len(boxes), 0.8, np.float32), back_score=np.zeros(len(boxes), np.float32))


def corner_coded(w: int, h: int) -> np.ndarray:
    """A picture whose every pixel holds its own x and y (so that a crop knows where it was cut)."""
    yy, xx = np.mgrid[0:h, 0:w]
    return np.stack([xx, yy, np.zeros_like(xx)], -1).astype(np.int32)


@pytest.mark.parametrize("height, found_again", [(40, True), (56, False)])  # squat (pitched) tiles; upright ones
def test_tiles_missed_past_a_pitched_rows_ends_are_found_in_a_crop(height: float, found_again: bool):
    tiles = boxes([42] * 12, height) + np.float32([100, 200, 100, 200])
    finder = CropFinder(tiles)
    first = Detections(tiles[2:-1], np.full(9, 0.9, np.float32), back_score=np.zeros(9, np.float32))
    out = past_row_ends(finder, corner_coded(800, 400), first)  # type: ignore[arg-type]
    if not found_again:  # a row of ordinary upright tiles is not looked at again
        assert len(out) == 9 and finder.crops == 0
        return
    # the two tiles missed at the left end and the one at the right, found in crops past the ends
    assert len(out) == 12
    assert sorted(out.xyxy[:, 0].tolist()) == pytest.approx(sorted(tiles[:, 0].tolist()), abs=1)
