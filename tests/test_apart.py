"""A blank tile set apart past the hand's row that the finder missed is boxed by its colour
(``vision.apart``); a box already there, a patch wider than a tile and one touching the row are left alone."""

from __future__ import annotations

import numpy as np

from vision.apart import end_tiles, tile_set_apart
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


def test_blank_tiles_touching_a_rows_end_that_the_finder_missed_are_boxed_standing_and_sideways() -> None:
    """Held-out hand 10 (seed 5): a kong of blank white dragons at the left end of the melds' row, its sideways
    tile and a standing one unboxed (plain ivory gives the finder nothing). The run of the row's colour touching
    the end is boxed as a standing tile a tile wide and, past it, a lower and longer sideways tile; a blank tile
    touching the right end is boxed too, and ``tile_set_apart`` still leaves a touching patch alone."""
    lefts = [LEFTS[0] + 3 * PITCH + k * PITCH for k in range(6)]
    img = table(lefts, (lefts[0] - PITCH, lefts[0] - PITCH + WIDTH))  # a standing blank tile touching its end
    side = (lefts[0] - PITCH - 66, lefts[0] - PITCH - 2)  # and a sideways one past it: lower, longer
    img[TOP + 20:BOTTOM, side[0]:side[1]] = (215, 230, 235)
    out = end_tiles(img, boxes(lefts))
    assert len(out) == len(lefts) + 2
    new = out.xyxy[np.argsort(out.xyxy[:, 0])[:2]]
    assert np.allclose(new[0], [side[0], TOP + 20, side[1] + 2, BOTTOM], atol=4)  # the sideways tile, low
    assert np.allclose(new[1], [lefts[0] - PITCH, TOP, lefts[0], BOTTOM], atol=4)  # the standing one
    end = lefts[-1] + WIDTH
    right = end_tiles(table(lefts, (end + 2, end + 2 + WIDTH)), boxes(lefts))
    assert len(right) == len(lefts) + 1 and np.allclose(right.xyxy[-1], [end, TOP, end + 2 + WIDTH, BOTTOM], atol=4)
    assert len(tile_set_apart(table(lefts, (end + 2, end + 2 + WIDTH)), boxes(lefts))) == len(lefts)


def test_a_rows_end_with_its_tile_boxed_a_bare_table_or_ivory_running_on_adds_no_end_tile() -> None:
    """Nothing is added where the finder boxed the end tile, where the table lies past the row, nor where the
    row's colour runs on past any tiles' count (a tray's ivory rim, a sheet of paper: no table past it)."""
    assert len(end_tiles(table(LEFTS, None), boxes(LEFTS))) == len(LEFTS)
    boxed = LEFTS + [LEFTS[-1] + PITCH - 2]
    assert len(end_tiles(table(boxed, None), boxes(LEFTS[:-1] + boxed[-1:]))) == len(LEFTS)
    end = LEFTS[-1] + WIDTH
    img = table(LEFTS, (end + 2, 640))
    assert len(end_tiles(img, boxes(LEFTS))) == len(LEFTS)
