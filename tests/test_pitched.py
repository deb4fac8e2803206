"""A phone pitched steeply over the hand: upright tiles come out squat (boxes just landscape), and must not be taken
for a photo turned by a quarter; the melds' sideways tiles, far wider still, are found among them."""

from __future__ import annotations

import numpy as np
import pytest

from evaluation.hands import normal
from tests.helpers import SHARED
from vision.crops import orientation, side_by_side, squat
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


def test_a_photo_turned_by_a_quarter_is_still_turned():
    # tiles 1.35 wide for their height (turned), a meld's sideways tile 0.74: the narrow one lies sideways
    xyxy = boxes([54] * 10 + [30, 54, 54], 40)
    assert not squat(xyxy)
    turn, side = orientation(xyxy)
    assert turn[:10].all() and side.tolist() == [False] * 10 + [True, False, False]


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
