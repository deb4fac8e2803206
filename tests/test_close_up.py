"""A close-up: a tile filling a fifth of the frame or more is read as one tile, not as its parts (issue 39)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from evaluation.held_out import TileSet, lit, load_design, paste, table
from tests.helpers import SHARED
from vision.detections import Detections
from vision.pipeline import read_image
from vision.reader import ReaderConfig, TileReader
from vision.repair import join_parts, mend_tiles


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


CLOSE_UPS = [(["9s", "2p"], 0.28, 4), (["7m", "E", "9s"], 0.24, 2), (["2p", "C"], 0.26, 5)]


@pytest.mark.parametrize("codes,share,seed", CLOSE_UPS)
def test_a_close_up_reads_each_tile_once(reader: TileReader, codes: list[str], share: float, seed: int) -> None:
    """Found before the fix as 4, 6 and 3 boxes: bamboo columns and dragons read as tiles of their own."""
    seen = read_image(close_up(codes, share, seed), reader, "nanning", False, 0)
    assert len(seen.det) == len(codes)


def test_without_the_close_up_mending_close_ups_are_read_in_parts() -> None:
    """The ablation: with ``close_up`` off, the close-ups above come out as more boxes than tiles."""
    without = TileReader(threads=2, config=ReaderConfig().but(close_up=False))
    boxes = [len(read_image(close_up(c, share, seed), without, "nanning", False, 0).det)
             for c, share, seed in CLOSE_UPS]
    assert sum(boxes) > sum(len(c) for c, _, _ in CLOSE_UPS)


def test_a_whole_tile_is_told_from_its_slivers() -> None:
    from vision.finding import tile_shaped

    tiles = Detections(np.float32([[0, 0, 100, 140], [105, 0, 245, 100]]), np.float32([0.9, 0.8]))  # upright, sideways
    assert tile_shaped(tiles)
    slivers = Detections(np.float32([[0, 0, 35, 140], [40, 0, 72, 140], [80, 0, 180, 140]]), np.float32([0.9] * 3))
    assert not tile_shaped(slivers)
    assert not tile_shaped(Detections(np.float32([[0, 0, 35, 140]]), np.float32([0.2])))  # nothing sure


def _hand_row(n: int = 6, x0: float = 0.0) -> list[list[float]]:
    return [[x0 + 41 * k, 0, x0 + 41 * k + 40, 56] for k in range(n)]


def test_a_tile_read_as_its_groups_of_sticks_is_one_box_again() -> None:
    """A nine of bamboo of a design the finder never saw, read as six small boxes (its groups of sticks), in a row
    of whole tiles: one box the tile's size; a part inside a whole tile's box is dropped."""
    parts = [[250 + 20 * c, 2 + 18 * r, 250 + 20 * c + 18, 2 + 18 * r + 16] for r in range(3) for c in range(2)]
    inside = [[5, 10, 20, 25]]  # within the first whole tile
    det = Detections(np.float32(_hand_row() + parts + inside), np.float32([0.9] * 6 + [0.5] * 6 + [0.8]))
    out = mend_tiles(det)
    assert len(out) == 7
    assert out.xyxy[-1].tolist() == [250, 2, 288, 54] and out.confidence[-1] == pytest.approx(0.5)


def test_two_tiles_read_as_one_box_are_split_only_in_a_hand_laid_out() -> None:
    double = [[300, 0, 380, 56]]
    laid = mend_tiles(Detections(np.float32(_hand_row() + [[246, 0, 286, 56]] + double), np.ones(8, np.float32)))
    assert len(laid) == 9 and sorted(laid.xyxy[-2:, 0].tolist()) == [300, 340]
    # loose tiles apart (no five whole tiles touching): a box that wide may be a sideways tile seen askew
    loose = [[60 * k, 0, 60 * k + 40, 56] for k in range(4)]
    assert len(mend_tiles(Detections(np.float32(loose + double), np.ones(5, np.float32)))) == 5


def test_parts_of_a_close_up_tile_are_told_from_tiles_run_together() -> None:
    from vision.finding import parts_of_tiles

    tile = np.float32([[100, 0, 200, 140]])
    columns = np.float32([[102, 2, 134, 138], [135, 0, 166, 139], [167, 3, 198, 140]])  # a 9 of bamboo's columns
    assert parts_of_tiles(columns, tile)
    short = np.float32([[102, 2, 134, 60], [135, 70, 166, 120]])  # shorter and narrower than the tile
    assert not parts_of_tiles(short, tile)
    many = np.float32([[100 + 20 * k, 0, 118 + 20 * k, 140] for k in range(5)])  # five slivers: tiles run together
    assert not parts_of_tiles(many, tile)
    assert not parts_of_tiles(columns, np.float32([[300, 0, 400, 140]]))  # outside every tile


VALID = SHARED / "data" / "chinese-mahjong-rf" / "valid"


@pytest.mark.skipif(not VALID.exists(), reason=f"{VALID} not found (set MAHJONG_SHARED)")
def test_a_photo_stretched_to_a_square_is_not_read_as_a_close_up(reader: TileReader) -> None:
    """18 tiles in a row, stretched by the dataset's export into slivers as tall as a close-up's: read smaller,
    they run together into 7 boxes; the un-stretched re-read, surer of each box, finds them all."""
    photo = next((VALID / "images").glob("hand_011_jpg*"))
    seen = read_image(cv2.imread(str(photo)), reader, "nanning", False, 0)
    assert len(seen.det) >= 17
