"""A blank tile set apart past the hand's row that the finder missed is boxed by its colour
(``vision.apart``); a box already there, a patch wider than a tile and one touching the row are left alone."""

from __future__ import annotations

import numpy as np

from vision.apart import tile_set_apart
from vision.detections import Detections

PITCH, WIDTH, TOP, BOTTOM = 50, 48, 40, 110
LEFTS = [10 + PITCH * k for k in range(8)]


def table(lefts: list[int], apart: tuple[int, int] | None) -> np.ndarray:
    """A green table with ivory tiles (a dark mark on each) at the given left edges, and a blank ivory patch over
    ``apart`` (its left and right edges)."""
    img = np.zeros((160, 640, 3), np.uint8)
    img[:] = (50, 110, 40)
    for x in lefts:
        img[TOP:BOTTOM, x:x + WIDTH] = (215, 230, 235)
        img[TOP + 20:TOP + 50, x + 14:x + 34] = (40, 90, 30)
    if apart is not None:
        img[TOP:BOTTOM, apart[0]:apart[1]] = (215, 230, 235)
    return img


def boxes(lefts: list[int]) -> Detections:
    """Sure finder boxes over the tiles at ``lefts``."""
    xyxy = np.float32([[x, TOP, x + WIDTH, BOTTOM] for x in lefts])
    return Detections(xyxy, np.full(len(xyxy), 0.8, np.float32), back_score=np.zeros(len(xyxy), np.float32))


def test_a_blank_tile_set_apart_that_the_finder_missed_is_boxed() -> None:
    end = LEFTS[-1] + WIDTH
    out = tile_set_apart(table(LEFTS, (end + 25, end + 25 + WIDTH)), boxes(LEFTS))
    assert len(out) == len(LEFTS) + 1
    new = out.xyxy[np.argmax(out.xyxy[:, 0])]
    assert np.allclose(new, [end + 25, TOP, end + 25 + WIDTH, BOTTOM], atol=3)


def test_a_tile_set_apart_already_boxed_and_a_bare_table_add_nothing() -> None:
    end = LEFTS[-1] + WIDTH
    found = LEFTS + [end + 25]
    assert len(tile_set_apart(table(found, None), boxes(found))) == len(found)
    assert len(tile_set_apart(table(LEFTS, None), boxes(LEFTS))) == len(LEFTS)


def test_a_patch_wider_than_a_tile_or_touching_the_row_is_no_tile_set_apart() -> None:
    end = LEFTS[-1] + WIDTH
    assert len(tile_set_apart(table(LEFTS, (end + 25, end + 25 + 2 * WIDTH)), boxes(LEFTS))) == len(LEFTS)
    assert len(tile_set_apart(table(LEFTS, (end + 2, end + 2 + WIDTH)), boxes(LEFTS))) == len(LEFTS)
