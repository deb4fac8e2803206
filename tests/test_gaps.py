"""Holes in a row of touching tiles (vision.gaps): a missed tile the photo shows is filled, the table is not."""

from __future__ import annotations

import numpy as np

from vision.detections import Detections
from vision.gaps import LabView, filled_holes

FELT = (40, 120, 40)  # BGR
IVORY = (200, 225, 235)


def table_with_row(tiles: list[tuple[int, int, int, int]]) -> np.ndarray:
    """Green felt with ivory tiles (a dark stroke of ink on each) at these boxes."""
    img = np.zeros((300, 900, 3), np.uint8)
    img[:] = FELT
    for x1, y1, x2, y2 in tiles:
        img[y1:y2, x1:x2] = IVORY
        img[y1 + 15:y2 - 15, (x1 + x2) // 2 - 4:(x1 + x2) // 2 + 4] = (30, 30, 30)
    return img


def row_boxes(n: int, x0: int = 50, w: int = 40, h: int = 56, y: int = 100) -> list[tuple[int, int, int, int]]:
    return [(x0 + k * w, y, x0 + (k + 1) * w, y + h) for k in range(n)]


def test_a_missed_tile_between_touching_tiles_is_filled():
    tiles = row_boxes(8)
    img = table_with_row(tiles)
    seen = tiles[:3] + tiles[5:]  # two tiles in the middle missed
    out = filled_holes(img, Detections(np.array(seen, np.float32), np.full(6, 0.9, np.float32)))
    assert len(out) == 8
    added = sorted(out.xyxy[6:].tolist())
    assert np.allclose(added, [list(tiles[3]), list(tiles[4])], atol=1)


def test_a_gap_of_table_between_groups_stays_a_gap():
    tiles = row_boxes(3) + row_boxes(3, x0=50 + 4 * 40)  # one tile width of felt between two groups
    img = table_with_row(tiles)
    det = Detections(np.array(tiles, np.float32), np.full(6, 0.9, np.float32))
    assert len(filled_holes(img, det)) == 6


def test_a_sideways_tile_missed_in_a_meld_is_filled_as_sideways():
    upright = row_boxes(4)
    side = (50 + 4 * 40, 100 + 56 - 40, 50 + 4 * 40 + 56, 100 + 56)  # 56 wide, 40 tall, on the row's line
    after = row_boxes(2, x0=side[2])
    img = table_with_row(upright + [side] + after)
    det = Detections(np.array(upright + after, np.float32), np.full(6, 0.9, np.float32))
    out = filled_holes(img, det)
    assert len(out) == 7
    x1, y1, x2, y2 = out.xyxy[-1]
    assert x2 - x1 > y2 - y1  # lying sideways: wider than tall
    assert abs(y1 - side[1]) <= 2 and abs(y2 - side[3]) <= 2


def test_the_lab_view_of_a_region_is_that_region_of_the_whole_picture_in_lab():
    """The hole filling converts only what it looks at; each region is the same as the whole picture converted."""
    import cv2

    img = np.random.default_rng(1).integers(0, 256, (40, 60, 3), dtype=np.uint8)
    whole = cv2.cvtColor(img, cv2.COLOR_BGR2LAB).astype(np.float32)
    assert np.array_equal(LabView(img).region(5, 30, 7, 50), whole[5:30, 7:50])


def test_a_tile_missed_in_a_short_meld_row_is_filled_at_the_hands_tile_size():
    """Held-out hand 54 under motion blur: a pung in a second row, its middle tile missed between its first tile
    and its sideways tile. The row has too few boxes to measure, so it takes the hand row's tile size (one tile
    set); the hole between a standing and a sideways tile is filled, as wide as the row's boxes (which overlap
    their neighbours), so that no repair takes it for a phantom squeezed between two tiles."""
    hand = row_boxes(8)
    meld = [(100, 200, 140, 256), (140, 200, 180, 256), (180, 216, 236, 256)]
    img = table_with_row(hand + meld)
    seen = hand + [(100, 200, 144, 256), (176, 216, 236, 256)]  # (the boxes beside the hole reach into it)
    out = filled_holes(img, Detections(np.array(seen, np.float32), np.full(len(seen), 0.9, np.float32)))
    assert len(out) == len(seen) + 1
    x1, y1, x2, y2 = out.xyxy[-1]
    assert abs((x1 + x2) / 2 - 160) <= 2 and abs((x2 - x1) - 40) <= 2 and y2 - y1 >= 50
    # a hand row of another size (a pitched phone: the melds' row nearer the camera is larger): the meld's row
    # measures itself by its standing tile and its sideways tile (held-out pitch45 hand 19, seed 1)
    big = row_boxes(8, h=80, y=10)
    other = big + seen[8:]
    det = Detections(np.array(other, np.float32), np.full(10, 0.9, np.float32))
    out = filled_holes(table_with_row(big + meld), det)
    assert len(out) == len(other) + 1
    x1, y1, x2, y2 = out.xyxy[-1]
    assert abs((x1 + x2) / 2 - 160) <= 2 and y2 - y1 >= 50
    out = filled_holes(table_with_row(big + [meld[0], meld[2]]), det)  # (the table in the hole: left as it is)
    assert len(out) == len(other)
    lone = [(100, 200, 144, 256), (176, 200, 220, 256)]  # (two standing tiles: no meld to measure the row by)
    det = Detections(np.array(big + lone, np.float32), np.full(10, 0.9, np.float32))
    assert len(filled_holes(table_with_row(big + [(100, 200, 220, 256)]), det)) == 10
