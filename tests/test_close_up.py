"""A close-up: a tile filling a fifth of the frame or more is read as one tile, not as its parts (issue 39)."""

from __future__ import annotations

import numpy as np
import pytest

from evaluation.held_out import TileSet, lit, load_design, paste, table
from vision.detections import Detections
from vision.pipeline import read_image
from vision.reader import ReaderConfig, TileReader
from vision.repair import join_parts


def close_up(codes: list[str], share: float, seed: int) -> np.ndarray:
    """The held-out design's tiles side by side, each ``share`` of a 12-MP frame's width."""
    rng = np.random.default_rng(seed)
    w, h = 4032, 3024
    tiles = TileSet(load_design(), rng)
    tw = int(share * w)
    th = int(tw * 4 / 3 * (1 + tiles.side))
    img = table(w, h, rng)
    x = (w - len(codes) * tw) / 2
    for c in codes:
        paste(img, tiles.tile(c, tw, th), x, (h - th) / 2, rng)
        x += tw + 3
    return lit(img, [], rng)


@pytest.fixture(scope="module")
def reader() -> TileReader:
    return TileReader(threads=2)


def test_slivers_of_one_tile_are_joined_and_whole_tiles_left_alone() -> None:
    # a 9 of bamboo read as its three columns of sticks, beside a whole tile and a lone narrow box
    det = Detections(np.float32([[0, 0, 100, 140], [105, 0, 140, 140], [140, 2, 172, 141], [174, 0, 205, 139],
                                 [400, 0, 430, 140]]), np.float32([0.9, 0.5, 0.7, 0.4, 0.6]))
    out = join_parts(det)
    assert out.xyxy.tolist() == [[0, 0, 100, 140], [105, 0, 205, 141], [400, 0, 430, 140]]
    assert out.confidence.tolist() == pytest.approx([0.9, 0.7, 0.6])


def test_two_slivers_too_narrow_together_for_a_tile_stay_apart() -> None:
    det = Detections(np.float32([[0, 0, 20, 140], [22, 0, 44, 140]]), np.float32([0.9, 0.9]))
    assert len(join_parts(det)) == 2


@pytest.mark.parametrize("codes,share,seed", [(["9s", "2p"], 0.28, 4), (["7m", "E", "9s"], 0.24, 2),
                                              (["2p", "C"], 0.26, 5)])
def test_a_close_up_reads_each_tile_once(reader: TileReader, codes: list[str], share: float, seed: int) -> None:
    """Found before the fix as 4, 6 and 3 boxes: bamboo columns and dragons read as tiles of their own."""
    img = close_up(codes, share, seed)
    seen = read_image(img, reader, "nanning", False, 0)
    assert len(seen.det) == len(codes)
    without = read_image(img, TileReader(threads=2, config=ReaderConfig().but(close_up=False)), "nanning", False, 0)
    assert len(without.det) > len(seen.det)
