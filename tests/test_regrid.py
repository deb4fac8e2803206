"""A box drawn over a tile and a half is boxed again as the two tiles it covers, and three narrow boxes over two
tiles as those two (``vision.regrid``); a loose box before a gap between groups, where the table shows, and a
narrow tile of its own are left as they are."""

from __future__ import annotations

import numpy as np
import pytest

from vision.detections import Detections
from vision.regrid import regridded

PITCH, WIDTH, TOP, BOTTOM = 50, 48, 40, 110


def table(tiles: list[int], width: int = 520) -> np.ndarray:
    """A brown table with ivory tiles (a dark mark on each) at the given left edges."""
    img = np.zeros((160, width, 3), np.uint8)
    img[:] = (40, 60, 120)
    for x in tiles:
        img[TOP:BOTTOM, x:x + WIDTH] = (215, 230, 235)
        img[TOP + 20:TOP + 50, x + 14:x + 34] = (40, 90, 30)
    return img


def boxes(spans: list[tuple[float, float]]) -> Detections:
    """Finder boxes over the row from ``spans`` (left, right), all sure."""
    xyxy = np.float32([[a, TOP, b, BOTTOM] for a, b in spans])
    return Detections(xyxy, np.full(len(xyxy), 0.8, np.float32), back_score=np.zeros(len(xyxy), np.float32))


def test_a_box_over_a_tile_and_a_half_is_cut_into_the_two_tiles() -> None:
    lefts = [10 + PITCH * k for k in range(7)]
    det = boxes([(x, x + WIDTH) for x in lefts[:4]] + [(lefts[4], lefts[4] + 75), (lefts[6], lefts[6] + WIDTH)])
    out = regridded(table(lefts), det)
    assert len(out) == 7
    xs = np.sort(out.xyxy[:, 0])
    assert np.allclose(xs[4:6], [lefts[4], lefts[4] + PITCH], atol=2)  # the lost tile is boxed where it lies


def test_three_narrow_boxes_over_two_tiles_are_boxed_again_as_the_two() -> None:
    lefts = [10 + PITCH * k for k in range(10)]
    thirds = [(lefts[3] + k * 33.0, lefts[3] + k * 33.0 + 36) for k in range(3)]  # (over tiles 3 and 4)
    det = boxes([(x, x + WIDTH) for x in lefts[:3]] + thirds + [(x, x + WIDTH) for x in lefts[5:]])
    out = regridded(table(lefts), det)
    assert len(out) == 10
    xs = np.sort(out.xyxy[:, 0])
    assert np.allclose(xs[3:5], [lefts[3], lefts[3] + 0.5 * (thirds[-1][1] - lefts[3])], atol=2)


def test_a_narrow_box_alone_and_two_narrow_tiles_of_their_own_stay_where_they_are() -> None:
    """One narrow box is no run; two narrow boxes that span two pitches are two tiles, not one. Each keeps its
    place, and grows over the rest of its tile (the face shows there, not the table) up to the row's tile width."""
    lefts = [10 + PITCH * k for k in range(10)]
    det = boxes([(x, x + WIDTH) for x in lefts[:2]] + [(lefts[2], lefts[2] + 36)] + [(lefts[3], lefts[3] + WIDTH)]
                + [(lefts[4], lefts[4] + 38), (lefts[5], lefts[5] + 38)] + [(x, x + WIDTH) for x in lefts[6:]])
    out = regridded(table(lefts), det)
    assert np.array_equal(np.sort(out.xyxy[:, 0]), np.sort(det.xyxy[:, 0]))
    widths = (out.xyxy[:, 2] - out.xyxy[:, 0])[np.argsort(out.xyxy[:, 0])]
    assert np.allclose(widths, WIDTH, atol=1)  # (the hole past each narrow box is ivory: the rest of its tile)


def test_a_narrow_box_before_the_table_is_not_grown() -> None:
    """A narrow box with the table beside it (a gap between groups) keeps its width."""
    lefts = [10 + PITCH * k for k in range(6)] + [345, 400]
    img = table(lefts)
    img[:, lefts[6] + 34:lefts[6] + WIDTH] = img[0, 0]  # a narrow thing, the table on both sides of it
    det = boxes([(x, x + WIDTH) for x in lefts[:6]] + [(lefts[6], lefts[6] + 34), (lefts[7], lefts[7] + WIDTH)])
    out = regridded(img, det)
    assert np.array_equal(np.sort(out.xyxy, axis=0), np.sort(det.xyxy, axis=0))


def test_a_wide_box_and_a_narrow_one_over_two_tiles_are_boxed_again_as_the_two() -> None:
    """Right in number but out of step: a box over a tile and a half, then one over the other half, touching
    (held-out hand 17, two 6s): cut into the two tiles, so that the second is not lost as a sliver."""
    lefts = [10 + PITCH * k for k in range(9)]
    split = lefts[4] + 78
    det = boxes([(x, x + WIDTH) for x in lefts[:4]] + [(lefts[4], split), (split - 2, lefts[5] + WIDTH)]
                + [(x, x + WIDTH) for x in lefts[6:]])
    out = regridded(table(lefts), det)
    assert len(out) == len(det)
    xs = np.sort(out.xyxy[:, 0])
    assert np.allclose(xs[4:6], [lefts[4], lefts[4] + 0.5 * (lefts[5] + WIDTH - lefts[4])], atol=2)


def test_a_loose_box_before_a_gap_between_groups_is_left_as_it_is() -> None:
    lefts = [10 + PITCH * k for k in range(6)] + [345, 395]
    det = boxes([(x, x + WIDTH) for x in lefts[:5]] + [(lefts[5], lefts[5] + 62)]
                + [(x, x + WIDTH) for x in lefts[6:]])
    out = regridded(table(lefts), det)
    assert len(out) == len(det)
    assert np.array_equal(np.sort(out.xyxy[:, 0]), np.sort(det.xyxy[:, 0]))


def test_a_held_out_hand_whose_two_bamboo_tiles_were_boxed_as_one_and_a_half_is_read_exactly() -> None:
    """Hand 6 of ``python -m vision.evaluate_hands --seed 0`` (a design no model was trained on): the finder
    boxes its two 7s as a tile and a half and the next wind as wide; boxed again, the hand is exact, and without
    it a tile is missing."""
    from evaluation.hands import normal
    from evaluation.held_out import held_out_cases
    from vision.pipeline import read_image
    from vision.reader import ReaderConfig, TileReader

    *_, (k, ruleset, hand, winner, img, _) = held_out_cases(7, 0, "upright")
    assert k == 6
    r = read_image(img, TileReader(), ruleset, True, winner)
    assert normal(r.hand) == normal(hand)
    before = read_image(img, TileReader(config=ReaderConfig().but(regrid=False)), ruleset, True, winner)
    assert normal(before.hand) != normal(hand)
    assert len(before.det) == len(r.det) - 1


def test_a_sideways_tile_beside_a_narrow_box_is_not_cut() -> None:
    """A meld's sideways tile is wide but lower than the row's standing tiles: with a narrow box touching it, the
    two span two pitches, yet the run is in step and stays as it is (a composed hand under motion blur)."""
    lefts = [10 + PITCH * k for k in range(9)]
    det = boxes([(x, x + WIDTH) for x in lefts[:4]] + [(lefts[4], lefts[4] + 70), (lefts[4] + 68, lefts[6] - 2)]
                + [(x, x + WIDTH) for x in lefts[6:]])
    det.xyxy[4, 1] = TOP + 8  # (lying sideways, seen from a pitched phone: lower than the standing tiles)
    out = regridded(table(lefts), det)
    assert len(out) == len(det)
    assert np.any(np.all(np.abs(out.xyxy - det.xyxy[4]) < 1, axis=1))  # the sideways tile's box is kept whole


def test_a_narrow_box_then_a_wide_one_are_cut_though_the_tile_before_fits_too() -> None:
    """Held-out hand 17 as found: the narrow box comes first, and with the tile before it also spans about two
    pitches; that run holds no wide box, so the run with the wide one is the one cut."""
    lefts = [10 + PITCH * k for k in range(9)]
    det = boxes([(x, x + WIDTH) for x in lefts[:4]] + [(lefts[4], lefts[4] + 36), (lefts[4] + 34, lefts[5] + WIDTH)]
                + [(x, x + WIDTH) for x in lefts[6:]])
    out = regridded(table(lefts), det)
    assert len(out) == len(det)
    xs = np.sort(out.xyxy[:, 0])
    assert np.allclose(xs[3:6], [lefts[3], lefts[4], lefts[4] + 0.5 * (lefts[5] + WIDTH - lefts[4])], atol=2)


def test_a_box_over_a_tile_and_the_gap_beside_it_is_not_cut() -> None:
    """A box over a tile and the table beside it, then a narrow box over the tile past the gap, span two pitches
    too; the table shows between them, so they are not a tile and a half (a composed hand turned by a half lost
    its winning tile set apart to the first version of the out-of-step cut)."""
    lefts = [10 + PITCH * k for k in range(5)] + [275 + PITCH * k for k in range(4)]
    det = boxes([(x, x + WIDTH) for x in lefts[:4]] + [(lefts[4], 275), (277, 310)]
                + [(x, x + WIDTH) for x in lefts[6:]])
    out = regridded(table(lefts), det)
    assert len(out) == len(det)
    assert np.any(np.all(np.abs(out.xyxy - np.float32([lefts[4], TOP, 275, BOTTOM])) < 1, axis=1))


def test_a_kongs_standing_tiles_boxed_short_before_its_sideways_tile_are_cut_into_the_three() -> None:
    """Held-out discards hand 3: a kong's three standing bamboo tiles boxed as a tile and a half, then the rest
    short of the third tile's end, then the meld's sideways tile (lower: no standing box ends the hole). The hole
    ends at the sideways tile, so the two boxes and the hole are the three tiles, each boxed as wide as the row's
    boxes (drawn a little wider than the tiles), and the sideways tile stays as it is."""
    lefts = [10 + PITCH * k for k in range(8)]
    img = table(lefts)
    side = (lefts[7] + PITCH, lefts[7] + PITCH + 66)
    img[BOTTOM - WIDTH:BOTTOM, side[0]:side[1]] = (215, 230, 235)
    split = lefts[5] + 70
    det = boxes([(x - 3, x + WIDTH + 3) for x in lefts[:5]] + [(lefts[5], split), (split - 4, lefts[7] + 18)])
    det = Detections.boxes_of([det, Detections(np.float32([[side[0], BOTTOM - WIDTH, side[1], BOTTOM]]),
                                                np.float32([0.8]), back_score=np.zeros(1, np.float32))])
    out = regridded(img, det)
    assert len(out) == 9
    standing = out.xyxy[out.xyxy[:, 1] < TOP + 5]
    mids = np.sort((standing[:, 0] + standing[:, 2]) / 2)
    assert np.allclose(mids[5:], [x + WIDTH / 2 for x in lefts[5:]], atol=3)
    widths = standing[:, 2] - standing[:, 0]
    assert widths.min() >= WIDTH + 5  # as the finder boxes the row's tiles (a little wide), not thirds that touch
    assert np.any(np.all(np.isclose(out.xyxy, [side[0], BOTTOM - WIDTH, side[1], BOTTOM]), axis=1))


def test_a_box_reaching_back_over_the_run_ends_its_hole() -> None:
    """Held-out upright hand 24: a box over a tile and a third, one over the rest of the second tile and half the
    third, and the third tile's own box reaching back under it. No hole lies past the run (the third tile's box
    covers it), so no tile is added: the boxes are as many as the tiles."""
    lefts = [10 + PITCH * k for k in range(10)]
    det = boxes([(x, x + WIDTH) for x in lefts[:3]] + [(lefts[3], lefts[3] + 64), (lefts[3] + 60, lefts[5] + 26),
                                                     (lefts[5] - 1, lefts[5] + 45)]
                + [(x, x + WIDTH) for x in lefts[6:]])
    out = regridded(table(lefts), det)
    assert len(out) == len(lefts)


def test_boxes_out_of_step_between_two_in_step_are_boxed_again_at_the_rows_pitch() -> None:
    """Held-out motion15 hand 48: as many boxes as tiles, but the middle ones shifted by up to half a tile (a box
    over the halves of two bamboo tiles), none of them narrow or wide enough for the other cuts. Between the last
    box in step before them and the first after, the row's pitch says how many tiles lie: they are boxed there."""
    lefts = [10 + PITCH * k for k in range(10)]
    det = boxes([(x, x + WIDTH) for x in lefts[:4]] + [(lefts[4] - 9, lefts[4] + 39), (lefts[5] - 28, lefts[5] + 20),
                                                     (lefts[6] - 20, lefts[6] + 32), (lefts[7] - 3, lefts[7] + 55)]
                + [(x, x + WIDTH) for x in lefts[8:]])
    out = regridded(table(lefts), det)
    assert len(out) == len(lefts)
    assert np.allclose(np.sort(out.xyxy[:, 0]), lefts, atol=3)


def test_two_narrow_boxes_out_of_step_are_boxed_again_as_their_two_tiles() -> None:
    """Held-out handheld hand 29: two bamboo tiles boxed as two narrow boxes, the second shifted back over the
    first, and the next tile's box wide, reaching back over the rest of the second: each is boxed where its tile
    lies between the boxes in step around them."""
    lefts = [10 + PITCH * k for k in range(10)]
    det = boxes([(x, x + WIDTH) for x in lefts[:4]] + [(lefts[4] + 1, lefts[4] + 36), (lefts[4] + 31, lefts[5] + 19),
                                                     (lefts[5] + 22, lefts[6] + 30)]
                + [(x, x + WIDTH) for x in lefts[7:]])
    out = regridded(table(lefts), det)
    assert len(out) == len(lefts)
    assert np.allclose(np.sort(out.xyxy[:, 0]), lefts, atol=3)


def test_boxes_out_of_step_across_a_gap_between_groups_are_left_as_they_are() -> None:
    """The same shifted boxes with the table showing between them (a group set apart): no stretch of touching
    tiles holds them, so nothing is boxed again."""
    lefts = [10 + PITCH * k for k in range(5)] + [285 + PITCH * k for k in range(4)]
    det = boxes([(x, x + WIDTH) for x in lefts[:4]] + [(lefts[4] - 9, lefts[4] + 39)]
                + [(lefts[5] - 20, lefts[5] + 28)] + [(x, x + WIDTH) for x in lefts[6:]])
    out = regridded(table(lefts), det)
    assert np.array_equal(np.sort(out.xyxy, axis=0), np.sort(det.xyxy, axis=0))


def test_a_tiles_columns_of_sticks_each_boxed_are_boxed_again_as_the_tiles() -> None:
    """Held-out handheld hand 37: three bamboo tiles boxed as seven slivers (their columns of sticks). The row's
    tile width is measured without the slivers (else it looks as narrow as they are and the row is not taken for a
    hand's neat row), and the tiles between the boxes in step around the slivers are boxed at the row's pitch."""
    lefts = [10 + PITCH * k for k in range(14)]
    slivers = [(lefts[3] + 21.5 * k, lefts[3] + 21.5 * k + 19) for k in range(7)]  # (over tiles 3 to 5)
    det = boxes([(x, x + WIDTH) for x in lefts[:3]] + slivers + [(x, x + WIDTH) for x in lefts[6:]])
    out = regridded(table(lefts, 720), det)
    assert len(out) == len(lefts)
    assert np.allclose(np.sort(out.xyxy[:, 0]), lefts, atol=3)


def test_on_a_table_of_the_tiles_colour_a_gap_is_never_taken_for_a_tile() -> None:
    """Composed upright hand 6 (a photo's table about as grey as the tiles' faces there): the winning tile set apart
    half a tile from the hand and from a concealed kong stands out of step with the row's pitch, and the gaps around
    it could not be told from a face, so the first version boxed a tile too many there. Where the tiles' colour and
    the table's are that close, a gap counts as the table: nothing is boxed again."""
    lefts = [10 + PITCH * k for k in range(6)] + [330] + [405 + PITCH * k for k in range(4)]
    noise = np.random.default_rng(0).normal(0, 3, (160, 720, 3))
    img = np.clip(130 + noise, 0, 255).astype(np.uint8)  # (faces and table alike: grey, a little sensor noise)
    det = boxes([(x, x + WIDTH) for x in lefts])
    out = regridded(img, det)
    assert np.array_equal(np.sort(out.xyxy, axis=0), np.sort(det.xyxy, axis=0))


def test_in_dim_light_a_column_of_dark_sticks_is_no_gap_and_the_two_tiles_are_cut() -> None:
    """Held-out dim hand 20: a box over a tile and a bit, a narrow box over the rest, on a dark table, the tiles'
    sticks as dark as the table. A strip over a column of sticks is no gap between groups (the face's ivory shows
    above and below them), so the two boxes are cut into the two tiles."""
    lefts = [10 + PITCH * k for k in range(9)]
    img = np.zeros((160, 520, 3), np.uint8)
    img[:] = (22, 26, 30)
    for x in lefts:
        img[TOP:BOTTOM, x:x + WIDTH] = (75, 85, 90)
        img[TOP + 12:TOP + 32, x + 14:x + 34] = (24, 30, 28)  # two rows of sticks, nearly the table's colour
        img[TOP + 40:TOP + 60, x + 14:x + 34] = (24, 30, 28)
    split = lefts[4] + 60  # (1.2 tile widths: a tile and a bit)
    det = boxes([(x, x + WIDTH) for x in lefts[:4]] + [(lefts[4], split), (split, lefts[5] + WIDTH)]
                + [(x, x + WIDTH) for x in lefts[6:]])
    out = regridded(img, det)
    assert len(out) == len(det)
    xs = np.sort(out.xyxy[:, 0])
    assert np.allclose(xs[4:6], [lefts[4], lefts[4] + 0.5 * (lefts[5] + WIDTH - lefts[4])], atol=2)


def test_a_box_a_fifth_too_wide_with_a_hole_before_it_is_cut_into_the_two_tiles() -> None:
    """Held-out motion15 hand 41: a tile boxed, then a hole over most of the next tile, then a box 1.2 tiles wide
    over the rest of it and the tile after, touching the next whole tile: hole and box are the two tiles."""
    lefts = [10 + PITCH * k for k in range(9)]
    start = lefts[5] + WIDTH - 58
    det = boxes([(x, x + WIDTH) for x in lefts[:4]] + [(start, lefts[5] + WIDTH)]
                + [(x, x + WIDTH) for x in lefts[6:]])
    out = regridded(table(lefts), det)
    assert len(out) == len(det) + 1
    xs = np.sort(out.xyxy[:, 0])
    assert abs(xs[4] - (lefts[3] + WIDTH)) < 3 and abs(xs[5] - lefts[5]) < 6


def test_a_tile_set_apart_boxed_a_fifth_too_wide_is_not_cut() -> None:
    """The winning tile set apart, boxed 1.2 tiles wide (glare beside it), with a gap on either side that looks
    like its ivory: no whole tile touches it, so a box that wide is not taken for two tiles."""
    lefts = [10 + PITCH * k for k in range(6)] + [345] + [420 + PITCH * k for k in range(2)]
    img = table(lefts)
    img[TOP:BOTTOM, lefts[5] + WIDTH:lefts[7]] = (205, 220, 228)  # a glare spot lightening the gaps
    det = boxes([(x, x + WIDTH) for x in lefts[:6]] + [(lefts[6] - 5, lefts[6] + 53)]
                + [(x, x + WIDTH) for x in lefts[7:]])
    out = regridded(img, det)
    assert np.array_equal(np.sort(out.xyxy, axis=0), np.sort(det.xyxy, axis=0))


def test_narrow_boxes_with_a_tiles_lower_part_across_their_hole_are_boxed_again_in_step() -> None:
    """Held-out handheld hand 10: three bamboo tiles boxed as four narrow boxes over their columns of sticks, with
    lower boxes over parts of tiles across the holes between them. The part makes the boxes either side of a hole
    touch, so the four are one run over three tiles; they are set at the row's pitch from the box before, and the
    parts go with them (else a gap opens and the tiles are read as a meld of their own)."""
    lefts = [10 + PITCH * k for k in range(10)]
    narrow = [(lefts[3] + 4, lefts[3] + 36), (lefts[3] + 32, lefts[4] + 12), (lefts[4] + 23, lefts[5] + 8),
              (lefts[5] + 8, lefts[5] + 43)]
    det = boxes([(x, x + WIDTH) for x in lefts[:3]] + narrow + [(x, x + WIDTH) for x in lefts[6:]])
    parts = Detections(np.float32([[lefts[3] - 5, TOP + 15, lefts[3] + 12, BOTTOM],
                                   [lefts[4] + 6, TOP + 15, lefts[4] + 26, BOTTOM]]), np.full(2, 0.5, np.float32),
                       back_score=np.zeros(2, np.float32))
    out = regridded(table(lefts), Detections.boxes_of([det, parts]))
    assert len(out) == len(lefts)
    assert np.allclose(np.sort(out.xyxy[:, 0]), lefts, atol=3)


def test_boxes_out_of_step_at_a_stretchs_end_are_boxed_again_from_the_table_beside_it() -> None:
    """Held-out handheld hand 10 as the finder boxed it once: the last tiles of a stretch of touching tiles boxed a
    third of a tile late and narrow, with the table past them before the next group. No box in step
    follows them; the stretch's end, where the table shows, is the anchor on that side."""
    lefts = [10 + PITCH * k for k in range(7)] + [400, 450, 500]
    det = boxes([(x, x + WIDTH) for x in lefts[:3]] + [(lefts[3], lefts[3] + WIDTH)]
                + [(lefts[4] + 17, lefts[4] + 57), (lefts[5] + 15, lefts[5] + 55), (lefts[6] + 13, lefts[6] + WIDTH)]
                + [(x, x + WIDTH) for x in lefts[7:]])
    out = regridded(table(lefts, 560), det)
    assert len(out) == len(lefts)
    assert np.allclose(np.sort(out.xyxy[:, 0]), lefts, atol=3)


def test_a_narrow_box_in_step_squeezed_between_its_neighbours_is_boxed_as_a_whole_tile() -> None:
    """Held-out handheld hand 16: an East boxed narrow, in step with the row but touching the boxes either side of
    it, has no hole to grow into; left narrow it was later dropped as a part of a tile and the East lost. It is
    boxed again as a whole tile at the row's pitch."""
    lefts = [10 + PITCH * k for k in range(10)]
    spans = [(x - 5.0, x + 53.0) for x in lefts]
    spans[5] = (lefts[5] - 4.0, lefts[5] + 41.0)
    img = table(lefts)
    img[TOP + 20:TOP + 50, lefts[5] + 14:lefts[5] + 34] = (215, 230, 235)  # (its face: a few thin strokes)
    img[TOP + 20:TOP + 50:10, lefts[5] + 14:lefts[5] + 34] = (120, 40, 30)
    out = regridded(img, boxes(spans))
    assert len(out) == len(lefts)
    tile5 = out.xyxy[np.argsort(out.xyxy[:, 0])[5]]
    assert abs(tile5[0] - (lefts[5] - 5)) <= 2 and abs(tile5[2] - tile5[0] - 58) <= 2


def test_a_stretch_boxed_one_tile_too_many_is_boxed_again_at_its_lengths_count() -> None:
    """Held-out motion15 hand 10: five tiles of a stretch boxed as six boxes, each in step with the one before (they
    drift a fifth of a tile each), the table at both its ends. The row's other stretch gives the pitch; the
    stretch's length holds five pitches, so it is boxed again as five tiles."""
    lefts = [10 + PITCH * k for k in range(8)] + [460 + PITCH * k for k in range(5)]
    drift = (lefts[-1] + WIDTH - lefts[8] - WIDTH) / 5  # (six boxes over the five tiles' span)
    det = boxes([(x, x + WIDTH) for x in lefts[:8]] + [(lefts[8] + k * drift, lefts[8] + k * drift + WIDTH)
                                                       for k in range(6)])
    out = regridded(table(lefts, 760), det)
    assert len(out) == len(lefts)
    assert np.allclose(np.sort(out.xyxy[:, 0]), lefts, atol=3)


def test_a_stretch_whose_length_is_no_whole_count_of_tiles_is_left_as_it_is() -> None:
    """Five boxes in step over a stretch four and a half pitches long (no count told): nothing is boxed again."""
    lefts = [10 + PITCH * k for k in range(8)]
    det = boxes([(x, x + WIDTH) for x in lefts] + [(460 + k * 43.75, 460 + k * 43.75 + WIDTH) for k in range(5)])
    img = table(lefts, 760)
    img[TOP:BOTTOM, 460:683] = (215, 230, 235)
    assert np.array_equal(np.sort(regridded(img, det).xyxy, axis=0), np.sort(det.xyxy, axis=0))


def test_a_tile_lost_in_a_stretch_is_boxed_where_its_face_shows() -> None:
    """Held-out pitch45 hand 8: no box over one tile of a stretch (a hole a tile wide where its face's ink shows,
    not the table): the stretch's length holds one tile more than its boxes, so it is boxed again at that count."""
    lefts = [10 + PITCH * k for k in range(9)]
    det = boxes([(x, x + WIDTH) for x in lefts[:7] + lefts[8:]])
    out = regridded(table(lefts), det)
    assert len(out) == len(lefts)
    assert np.allclose(np.sort(out.xyxy[:, 0]), lefts, atol=3)


def test_a_row_with_two_runs_out_of_step_is_still_boxed_again() -> None:
    """Held-out hand 18: two bamboo tiles boxed as one and a kong's two tiles boxed as three narrow boxes, in one
    row: under half its boxes a tile wide but for those, it is still a hand's neat row, and both runs are boxed
    again as their tiles."""
    lefts = [10 + PITCH * k for k in range(9)]
    thirds = [(lefts[7] + k * 33.0, lefts[7] + k * 33.0 + 36) for k in range(3)]  # (over tiles 7 and 8)
    det = boxes([(x, x + WIDTH) for x in lefts[:4]] + [(lefts[4], lefts[5] + WIDTH), (lefts[6], lefts[6] + WIDTH)]
                + thirds)
    out = regridded(table(lefts), det)
    assert len(out) == 9
    xs = np.sort(out.xyxy[:, 0])
    assert np.allclose(xs[:7], lefts[:7], atol=3)


def test_groups_of_sticks_boxed_on_their_own_do_not_keep_a_lost_tile_from_being_boxed() -> None:
    """Held-out hand 43: besides the tile-high boxes, the finder boxes a bamboo tile's groups of sticks, each a
    third of a tile high. They are parts of a tile, not tiles: dropped, the box over a tile and a half is cut into
    the two tiles as without them, and no box lower than a tile is left in the row."""
    lefts = [10 + PITCH * k for k in range(7)]
    sticks = [(lefts[5] + 28 + 10 * c, lefts[5] + 36 + 10 * c, TOP + 4 + 22 * r, TOP + 24 + 22 * r)
              for r in range(3) for c in range(2)]
    det = boxes([(x, x + WIDTH) for x in lefts[:4]] + [(lefts[4], lefts[4] + 75), (lefts[6], lefts[6] + WIDTH)])
    det = Detections.boxes_of([det, Detections(np.float32(sticks)[:, [0, 2, 1, 3]], np.full(6, 0.5, np.float32),
                                               back_score=np.zeros(6, np.float32))])
    out = regridded(table(lefts), det)
    assert len(out) == 7
    assert np.allclose(np.sort(out.xyxy[:, 0]), lefts, atol=2)


def test_a_small_tile_in_no_tiles_band_is_kept() -> None:
    """A discard further away, a third of a tile high, lies in no tile's band: it is a tile, not a part of one."""
    lefts = [10 + PITCH * k for k in range(7)]
    det = boxes([(x, x + WIDTH) for x in lefts])
    far = Detections(np.float32([[200, 5, 216, 28]]), np.float32([0.6]), back_score=np.zeros(1, np.float32))
    out = regridded(table(lefts), Detections.boxes_of([det, far]))
    assert len(out) == 8
    assert any(np.allclose(b, [200, 5, 216, 28]) for b in out.xyxy)


def sideways_table(lefts: list[int], side_at: int, side_width: int = 66) -> np.ndarray:
    """``table`` with a meld's sideways tile lying at ``side_at`` (as wide as a standing tile is high, and lower),
    its bottom on the row's."""
    img = table(lefts, width=700)
    img[BOTTOM - 52:BOTTOM, side_at:side_at + side_width] = (215, 230, 235)
    img[BOTTOM - 40:BOTTOM - 12, side_at + 20:side_at + 46] = (40, 90, 30)
    return img


def pung_boxed_short() -> tuple[np.ndarray, Detections, int]:
    """Seven standing tiles, then a meld's sideways tile boxed over two thirds of its width (as low as it lies) and
    a standing tile after it: the photo, the boxes and where the sideways tile lies."""
    lefts = [10 + PITCH * k for k in range(7)]
    side_at = lefts[-1] + PITCH
    after = side_at + 66 + 2
    img = sideways_table(lefts + [after], side_at)
    det = boxes([(x, x + WIDTH) for x in lefts] + [(side_at, side_at + 44), (after, after + WIDTH)])
    det.xyxy[7, 1] = BOTTOM - 52
    return img, det, side_at


def test_a_sideways_tile_boxed_a_third_short_grows_over_the_rest_of_it() -> None:
    """Held-out hand 25 under motion blur: a pung's sideways tile boxed over two thirds of its width looks upright
    (read as another face) and leaves a hole before the pung's last tile, which is then set apart as the winning
    tile. Where the hole shows the tile's ivory, the box grows over it, up to a sideways tile's width."""
    img, det, side_at = pung_boxed_short()
    out = regridded(img, det)
    grown = out.xyxy[np.argmin(np.abs(out.xyxy[:, 0] - side_at))]
    assert grown[2] - grown[0] >= 64 and grown[2] - grown[0] > grown[3] - grown[1]  # as wide as it lies: sideways
    assert len(out) == len(det)


def test_a_kongs_back_boxed_low_is_not_grown_as_a_sideways_tile() -> None:
    """Composed hand 58 turned by a half: a concealed kong's back boxed a little low (as low as a sideways tile)
    beside a table of the tiles' colour. The finder sees it face down; a back is never a sideways tile."""
    img, det, _ = pung_boxed_short()
    assert det.back_score is not None
    det.back_score[7] = 0.9
    out = regridded(img, det)
    assert np.allclose(np.sort(out.xyxy[:, 2]), np.sort(det.xyxy[:, 2]))


def test_a_sideways_tile_boxed_short_before_the_table_is_not_grown() -> None:
    """The same short box with the table beside it (the meld ends there) keeps its width."""
    lefts = [10 + PITCH * k for k in range(7)]
    side_at = lefts[-1] + PITCH
    img = sideways_table(lefts, side_at, side_width=44)
    det = boxes([(x, x + WIDTH) for x in lefts] + [(side_at, side_at + 44)])
    det.xyxy[7, 1] = BOTTOM - 52
    out = regridded(img, det)
    assert np.allclose(np.sort(out.xyxy[:, 2]), np.sort(det.xyxy[:, 2]))


def test_a_sideways_tiles_parts_each_boxed_do_not_make_the_rows_tiles_look_narrow() -> None:
    """Held-out pitch45 hand 23: melds' sideways tiles boxed as low narrow parts, three each; the row's tile width
    is measured on its boxes as tall as the row, so the row is still a neat one and its narrow box grows over the
    rest of its tile."""
    lefts = [10 + PITCH * k for k in range(6)]
    sides = [lefts[-1] + PITCH, lefts[-1] + PITCH + 70]
    img = sideways_table(lefts, sides[0])
    img[BOTTOM - 52:BOTTOM, sides[1]:sides[1] + 66] = (215, 230, 235)
    parts = [(x + 22 * k, x + 22 * k + 24) for x in sides for k in range(3)]
    det = boxes([(x, x + WIDTH) for x in lefts[:4]] + [(lefts[4], lefts[4] + 34), (lefts[5], lefts[5] + WIDTH)]
                + parts)
    det.xyxy[-6:, 1] = BOTTOM - 46
    out = regridded(img, det)
    narrow = out.xyxy[np.argmin(np.abs(out.xyxy[:, 0] - lefts[4]))]
    assert narrow[2] - narrow[0] >= WIDTH - 1


def test_a_narrow_box_over_the_table_between_the_hand_and_its_winning_tile_is_dropped() -> None:
    """Held-out neighbours hand 52: the finder boxed the table between the hand and the winning tile set apart (a
    box four fifths of a tile wide), and the classifier named it a face: one tile too many. Its middle shows the
    table from top to bottom, so it is no tile. A narrow box the finder sees face down is kept (a dark back)."""
    lefts = [10 + PITCH * k for k in range(8)]
    apart = lefts[-1] + PITCH + 60
    img = table(lefts + [apart])
    gap = (lefts[-1] + WIDTH + 12, apart - 12)  # (38 pixels: four fifths of a tile)
    det = boxes([(x, x + WIDTH) for x in lefts] + [gap, (apart, apart + WIDTH)])
    out = regridded(img, det)
    assert len(out) == len(det) - 1
    assert not np.any(np.abs(out.xyxy[:, 0] - gap[0]) < 1)
    assert det.back_score is not None
    det.back_score[8] = 0.9
    assert len(regridded(img, det)) == len(det)


def test_a_stretch_boxed_out_of_step_in_its_middle_is_counted_by_its_whole_tiles_pitch() -> None:
    """Held-out motion15 hand 31 as the finder boxed it: ten touching tiles, the six bamboo tiles in the middle
    boxed as seven boxes, most narrow and a little lower than the row (shaken sticks), the table at both ends and
    the winning tile apart. Their steps, three quarters of a tile, would make a plain median pitch short and the
    stretch eleven tiles long; the steps between whole tiles count ten, and the stretch is boxed again as ten."""
    top, bottom = 40, 132
    lefts = [154 + 60.4 * k for k in range(10)] + [793.0]
    img = np.zeros((180, 900, 3), np.uint8)
    img[:] = (40, 60, 120)
    for x in lefts:
        img[top:bottom, int(x):int(x) + 58] = (215, 230, 235)
        img[top + 20:top + 60, int(x) + 18:int(x) + 40] = (40, 90, 30)
    spans = [(151, 67, 95), (211, 66, 92), (268, 43, 88), (346, 54, 95), (388, 45, 89), (441, 57, 94),
             (484, 55, 89), (531, 73, 93), (583, 55, 94), (628, 66, 91), (688, 67, 96), (790, 67, 97)]
    xyxy = np.float32([[x, top - 2, x + w, top - 2 + h] for x, w, h in spans])
    out = regridded(img, Detections(xyxy, np.full(len(xyxy), 0.6, np.float32),
                                    back_score=np.zeros(len(xyxy), np.float32)))
    assert len(out) == len(lefts)
    assert np.allclose(np.sort(out.xyxy[:, 0]), np.array(lefts) - 3, atol=7)  # (a tenth of a tile)


def test_a_kongs_standing_tiles_boxed_out_of_step_are_spaced_again_up_to_its_sideways_tile() -> None:
    """Held-out motion15 hand 22: a kong of bamboo nines, its first tile boxed narrow, the next two boxes each over
    the rest of a tile and half the next; the table before it, its sideways tile after. As many boxes as tiles,
    one narrow: the three are boxed again at equal steps between the table and the sideways tile."""
    lefts = [10 + PITCH * k for k in range(6)] + [400 + PITCH * k for k in range(3)]
    img = table(lefts, 700)
    img[TOP + 22:BOTTOM, 550:612] = (215, 230, 235)  # (the sideways tile, lower than the standing ones)
    spans = [(x, x + WIDTH) for x in lefts[:6]] + [(400, 435), (429, 482), (490, 543)]
    xyxy = np.float32([[a, TOP, b, BOTTOM] for a, b in spans] + [[550, TOP + 22, 612, BOTTOM]])
    det = Detections(xyxy, np.full(len(xyxy), 0.8, np.float32), back_score=np.zeros(len(xyxy), np.float32))
    out = regridded(img, det)
    assert len(out) == len(det)
    standing = np.sort(out.xyxy[out.xyxy[:, 1] < TOP + 10][:, 0])
    assert np.allclose(standing[6:], lefts[6:], atol=6)  # (an eighth of a tile: its last box ended short)


def test_a_row_seen_from_a_tilted_phone_is_neat_though_its_near_tiles_are_wider() -> None:
    """Held-out handheld hand 45 (seed 0), its own boxes: a phone tilted 20-35 degrees makes the row's near tiles
    wider than its far ones, so only 6 of its 11 tall boxes are within 15 % of the median width. The row is a
    hand's row all the same (steps agree), and the pung of nines boxed as three narrow boxes over its two
    standing tiles is boxed again as the two (read as a kong of four before)."""
    standing = [(188, 312), (404, 518), (681, 757), (742, 816), (801, 875), (915, 1014), (1006, 1105),
                (1270, 1380), (1361, 1461), (1461, 1565), (1541, 1661)]
    sideways = [(294, 415), (559, 690), (1095, 1232)]
    tiles = [(188, 294), (294, 404), (404, 518), (559, 681), (681, 778), (778, 875), (915, 1010), (1010, 1095),
             (1095, 1232), (1270, 1366), (1366, 1461), (1461, 1551), (1551, 1661)]
    img = np.zeros((1000, 1800, 3), np.uint8)
    img[:] = (40, 60, 120)
    for a, b in tiles:
        img[740:878, a + 2:b - 2] = (215, 230, 235)
        img[780:820, (a + b) // 2 - 10:(a + b) // 2 + 10] = (40, 90, 30)
    xyxy = np.float32([[a, 740, b, 870] for a, b in standing] + [[a, 768, b, 876] for a, b in sideways])
    det = Detections(xyxy, np.full(len(xyxy), 0.8, np.float32), back_score=np.zeros(len(xyxy), np.float32))
    out = regridded(img, det)
    inside = [(x1, x2) for x1, _, x2, _ in out.xyxy if 670 <= (x1 + x2) / 2 <= 885]
    assert len(inside) == 2
    assert all(abs((x1 + x2) / 2 - m) <= 12 for (x1, x2), m in zip(sorted(inside), (729.5, 826.5)))


def test_a_box_over_a_glare_spots_wash_is_not_cut() -> None:
    """Composed glare_spot hand 29 (seed 1): a spot blows out a kong's sideways tile, and the finder boxes the
    wash, taller than the row and near two pitches wide. Its shape is the wash's, not two tiles': it stays one
    box (cut in two, one part is dropped as a surplus tile and the kong is lost)."""
    lefts = [10 + PITCH * k for k in range(4)]
    wash = (lefts[3] + PITCH - 4, lefts[3] + PITCH + 80)
    after = [wash[1] - 6 + PITCH * k for k in range(3)]
    img = table(lefts + after)
    img[TOP - 6:BOTTOM + 6, wash[0]:wash[1]] = 255  # (blown out in every channel)
    det = boxes([(x, x + WIDTH) for x in lefts] + [wash] + [(x, x + WIDTH) for x in after])
    det.xyxy[4, 1] -= 6
    det.xyxy[4, 3] += 6
    out = regridded(img, det)
    assert len(out) == 8
    assert any(np.allclose(b, det.xyxy[4]) for b in out.xyxy)
    plain = table(lefts + [wash[0]] + after)  # (the same boxes with no wash under them: cut as before)
    assert len(regridded(plain, det)) == 9
    white = plain.copy()  # (a bright white face blown out inside its frame, a third of the box: no wash either)
    white[TOP + 8:BOTTOM - 8, wash[0] + 8:wash[0] + WIDTH - 8] = 255
    assert len(regridded(white, det)) == 9


def test_three_tiles_boxed_four_times_half_a_pitch_off_are_boxed_again_as_the_three() -> None:
    """Held-out motion15 hand 36 (seed 3): three blurred tiles boxed as a narrow box, two boxes a tile wide each
    over the halves of two tiles (in step with each other, half a pitch off the row's) and a narrow box, lower than
    the row. Neither narrow box alone lies a whole number of pitches between its anchors; the four together do, and
    are the three tiles."""
    lefts = [10 + PITCH * k for k in range(8)]
    off = [(lefts[3], lefts[3] + 23), (lefts[3] + 23, lefts[3] + 71), (lefts[3] + 74, lefts[3] + 122),
           (lefts[3] + 122, lefts[5] + WIDTH)]
    det = boxes([(x, x + WIDTH) for x in lefts[:3]] + off + [(x, x + WIDTH) for x in lefts[6:]])
    det.xyxy[[3, 6], 1] += 8  # (the narrow boxes lower, as blurred parts are: the stretch is not recounted)
    out = regridded(table(lefts), det)
    assert len(out) == 8
    assert np.allclose(np.sort(out.xyxy[:, 0])[3:6], lefts[3:6], atol=3)


def test_a_box_as_tall_as_the_row_over_two_washed_tiles_is_cut_into_the_two() -> None:
    """Held-out glare (seed 0): the spot washes out two touching tiles and the finder boxes both as one, as tall as
    the row. That box has the tiles' shape, not the wash's: it is cut into the two as any box over two tiles."""
    lefts = [10 + PITCH * k for k in range(8)]
    img = table(lefts)
    img[TOP:BOTTOM, lefts[3]:lefts[4] + WIDTH] = 255
    det = boxes([(x, x + WIDTH) for x in lefts[:3]] + [(lefts[3], lefts[4] + WIDTH)]
                + [(x, x + WIDTH) for x in lefts[5:]])
    out = regridded(img, det)
    assert len(out) == 8
    assert np.allclose(np.sort(out.xyxy[:, 0])[3:5], lefts[3:5], atol=3)


def test_a_runs_narrow_boxes_at_its_end_are_spaced_with_the_run_not_joined_as_one_tile() -> None:
    """Held-out upright hand 4 (seed 4): three bamboo tiles at the row's end boxed as a narrow box, two boxes half
    a pitch off and two narrow boxes over the last tile's columns. Joining the two narrow boxes first as one tile
    left four boxes over three tiles; the run between the box in step before it and the table after it holds three
    pitches, so it is boxed again as the three."""
    lefts = [10 + PITCH * k for k in range(10)]
    det = boxes([(x, x + WIDTH) for x in lefts[:7]] + [(360, 399), (386, 437), (432, 482), (475, 501), (486, 512)])
    out = regridded(table(lefts), det)
    assert len(out) == len(lefts)
    assert np.allclose(np.sort(out.xyxy[:, 0]), lefts, atol=4)


def abutting(lefts: list[float], width: float, size: int = 1000) -> np.ndarray:
    """``table``'s colours with tiles ``width`` wide at ``lefts`` (edge to edge where they are a width apart), each
    with a small mark."""
    img = np.zeros((160, size, 3), np.uint8)
    img[:] = (40, 60, 120)
    for x in lefts:
        a = int(round(x))
        img[TOP:BOTTOM, a:int(round(x + width)) - 1] = (215, 230, 235)
        img[TOP + 20:TOP + 36, a + 20:a + 32] = (40, 90, 30)
    return img


def test_a_kongs_standing_tiles_boxed_by_their_columns_of_sticks_are_boxed_again_as_the_three() -> None:
    """Held-out upright hand 42 (seed 4): a kong of nines at the row's end, its sideways tile first, its three
    standing tiles boxed as six narrow boxes (their columns of sticks, some lower) and a lower part. The stretch
    from the sideways tile to the table holds three pitches: it is boxed again as the three tiles, the part
    dropped."""
    lefts = [10 + PITCH * k for k in range(8)]
    side_at, kong = 420, [488, 538, 588]
    img = sideways_table(lefts + kong, side_at)
    slivers = [(x + k * 24, x + k * 24 + 25) for x in kong for k in (0, 1)]
    det = boxes([(x, x + WIDTH) for x in lefts] + [(side_at, side_at + 66)] + slivers + [(526, 552)])
    det.xyxy[8, 1] = BOTTOM - 52
    det.xyxy[[10, 13], 1] += 8  # (a sliver's box is a little lower than a tile's)
    det.xyxy[15, 1] += 20  # (the part, lower still)
    out = regridded(img, det)
    assert len(out) == len(lefts) + 1 + 3
    xs = np.sort(out.xyxy[:, 0])
    assert np.allclose(xs[-3:], kong, atol=4)


def test_a_short_rows_box_over_two_tiles_is_cut_at_the_hand_rows_pitch() -> None:
    """Held-out motion15 hand 11 (seed 4): a concealed kong alone in a second row, its two faces boxed as one box
    two tiles wide between its two backs. Three boxes are too few to measure a pitch; the row is as tall as the
    hand's row above it, so it is mended at that row's tile width and pitch, and the box is cut into the two."""
    lefts = [10 + PITCH * k for k in range(8)]
    img = np.zeros((300, 520, 3), np.uint8)
    img[:] = (40, 60, 120)
    for x in lefts:
        img[TOP:BOTTOM, x:x + WIDTH] = (215, 230, 235)
        img[TOP + 20:TOP + 50, x + 14:x + 34] = (40, 90, 30)
    low = 130  # (the second row's top)
    kong = [60 + PITCH * k for k in range(4)]
    for k, x in enumerate(kong):
        img[low:low + BOTTOM - TOP, x:x + WIDTH] = (160, 90, 30) if k in (0, 3) else (215, 230, 235)
    det = boxes([(x, x + WIDTH) for x in lefts] + [(kong[0], kong[0] + WIDTH), (kong[1], kong[2] + WIDTH),
                                                   (kong[3], kong[3] + WIDTH)])
    det.xyxy[8:, 1] += low - TOP
    det.xyxy[8:, 3] += low - TOP
    out = regridded(img, det)
    assert len(out) == len(lefts) + 4
    second = np.sort(out.xyxy[out.xyxy[:, 1] > low - 10, 0])
    assert np.allclose(second, kong, atol=3)
    # another neat row as tall but of wider tiles (the table's discards, turned, held-out discards hand 24 at
    # seed 0) lying first: the short row still takes the pitch of the row whose tiles are as wide as its own
    wider = np.zeros((420, 520, 3), np.uint8)
    wider[:] = (40, 60, 120)
    wider[120:] = img[:300]
    for k in range(7):
        wider[10:80, 10 + 70 * k:72 + 70 * k] = (215, 230, 235)
    det2 = Detections.boxes_of([boxes([(10 + 70 * k, 72 + 70 * k) for k in range(7)]), det])
    det2.xyxy[:7, 1] -= TOP - 10
    det2.xyxy[:7, 3] -= TOP - 10
    det2.xyxy[7:, 1] += 120
    det2.xyxy[7:, 3] += 120
    out2 = regridded(wider, det2)
    kong_row = np.sort(out2.xyxy[out2.xyxy[:, 1] > low + 110, 0])
    assert np.allclose(kong_row, kong, atol=3)


def test_boxes_reaching_back_over_a_tile_boxed_again_are_not_cut_into_one_tile_too_many() -> None:
    """Held-out motion15 hand 19 (seed 4), its boxes as the finder drew them: thirteen blurred tiles edge to edge,
    the ninth and tenth boxed as one, the last three as three boxes shifted half a tile back, the first a fifth too
    wide. Cut in two, the wide box's second tile reaches over the next box; that box and the two after it, less
    what the tile boxed again holds, are three tiles, not four."""
    lefts = [182 + 52.0 * k for k in range(13)]
    spans = [(182, 242), (233, 293), (285, 344), (336, 400), (391, 448), (440, 498), (493, 556), (549, 604),
             (596, 685), (671, 744), (735, 802), (799, 865), (903, 964)]
    img = abutting(lefts + [903.0], 52.0)
    out = regridded(img, boxes(spans))
    assert len(out) == 14
    mids = np.sort(out.xyxy[:, 0] + out.xyxy[:, 2])[:13] / 2
    assert np.all(np.abs(mids - (np.array(lefts) + 26.0)) < 0.45 * 52.0)  # (one box's middle on each tile)


def test_a_held_out_hand_whose_boxes_reach_over_a_run_beside_them_is_read_exactly(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Hand 22 of ``python -m vision.evaluate_hands --seed 0`` (upright): measured without what the box beside it
    reaches over (``regrid._unshared``), a run of the row's boxes looked like one tile more than it is, and a nine
    of bamboo was dropped as a surplus tile."""
    from evaluation.hands import normal
    from evaluation.held_out import held_out_cases
    from vision import regrid
    from vision.pipeline import read_image
    from vision.reader import TileReader

    *_, (k, ruleset, hand, winner, img, _) = held_out_cases(23, 0, "upright")
    assert k == 22
    reader = TileReader()
    assert normal(read_image(img, reader, ruleset, True, winner).hand) == normal(hand)
    monkeypatch.setattr(regrid, "_unshared", lambda det, tall, run, left, right, unit, pitch: (left, right))
    assert normal(read_image(img, reader, ruleset, True, winner).hand) != normal(hand)


def test_a_row_whose_tiles_are_boxed_as_columns_of_sticks_takes_the_other_rows_measures() -> None:
    """Held-out upright hand 43 (seed 6): three bamboo tiles of the concealed row each boxed as two columns of
    sticks. With only three whole tiles touching, the row has too few steps for a pitch of its own; its width is
    measured without the slivers, so it takes the melds' row's measures (one tile set) and the slivers are boxed
    again as the three tiles."""
    low = 160  # (the melds' row lies this far below the hand's)
    lefts = [10 + PITCH * k for k in range(7)] + [10 + PITCH * 8 + 25]
    melds = [10 + PITCH * k for k in range(7)]
    img = np.concatenate([table(lefts, 520), table(melds, 520)], 0)
    slivers = [(lefts[3] + 25 * k, lefts[3] + 25 * k + 22) for k in range(6)]
    det = Detections.boxes_of([
        boxes([(x, x + WIDTH) for x in lefts[:3]] + slivers + [(x, x + WIDTH) for x in lefts[6:]]),
        Detections(np.float32([[x, TOP + low, x + WIDTH, BOTTOM + low] for x in melds]), np.full(7, 0.8, np.float32),
                   back_score=np.zeros(7, np.float32))])
    out = regridded(img, det)
    hand = out.xyxy[out.xyxy[:, 1] < low]
    assert len(hand) == len(lefts)
    assert np.allclose(np.sort(hand[:, 0]), lefts, atol=3)
