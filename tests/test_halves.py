"""A standing tile read as its top and bottom halves (a blurred four of dots read as two twos), or as one half
alone, in a row laid out as a hand, is one box the row's height again (``vision.repair.mend_tiles``); a meld's
sideways tile, lower but wider, is left as it is."""

from __future__ import annotations

import numpy as np

from vision.detections import Detections
from vision.repair import mend_tiles


def row_with(middle: list[list[float]]) -> Detections:
    """Six whole tiles (40 x 56) touching, the boxes ``middle`` at x 246-286, then two whole tiles more."""
    tiles = [[41.0 * k, 0, 41.0 * k + 40, 56] for k in range(6)] + [[287.0 + 41 * k, 0, 327.0 + 41 * k, 56]
                                                                    for k in range(2)]
    return Detections(np.float32(tiles + middle), np.full(8 + len(middle), 0.8, np.float32))


def test_a_tiles_top_and_bottom_halves_are_one_box() -> None:
    out = mend_tiles(row_with([[246, 0, 286, 28], [246, 30, 286, 56]]))
    assert len(out) == 9 and [246, 0, 286, 56] in out.xyxy.tolist()


def test_a_tiles_bottom_half_alone_grows_to_the_rows_height() -> None:
    out = mend_tiles(row_with([[246, 24, 286, 56]]))
    assert len(out) == 9 and [246, 0, 286, 56] in out.xyxy.tolist()


def test_a_melds_sideways_tile_and_a_tile_boxed_whole_are_left_as_they_are() -> None:
    sideways = row_with([[246, 14, 300, 56]])
    assert mend_tiles(sideways).xyxy.tolist() == sideways.xyxy.tolist()
    short = row_with([[246, 10, 286, 56]])  # (a whole tile boxed a little short: no half)
    assert mend_tiles(short).xyxy.tolist() == short.xyxy.tolist()
