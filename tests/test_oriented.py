"""Rows at a slant (a photo turned in its plane): each tile is cut along its row, not as the axis-aligned box that
takes in a neighbour's edge, and rows and melds are grouped along their own direction."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tests.test_orientation import composed, needs_data  # noqa: F401  (the fixture and the data mark)
from tests.test_vision_units import dets, row
from vision.crops import oriented_crop, tile_crop
from vision.geometry import levelled, row_angle
from vision.layout import analyse
from vision.pipeline import read_image
from vision.reader import TileReader


def turned_boxes(boxes: np.ndarray, m: np.ndarray) -> np.ndarray:
    """The axis-aligned boxes around boxes moved by the 2x3 affine ``m``."""
    out = []
    for x1, y1, x2, y2 in boxes:
        pts = np.array([[x1, y1, 1], [x2, y1, 1], [x2, y2, 1], [x1, y2, 1]], float) @ m.T
        out.append([*pts.min(0), *pts.max(0)])
    return np.array(out, np.float32)


def drawn_row(n: int = 6) -> tuple[np.ndarray, np.ndarray]:
    """Numbered ivory tiles side by side on a grey table, and their boxes."""
    img = np.full((400, 600, 3), 90, np.uint8)
    boxes = []
    for k in range(n):
        x = 120 + k * 42
        cv2.rectangle(img, (x, 170), (x + 40, 226), (230, 235, 240), -1)
        cv2.putText(img, str(k + 1), (x + 8, 212), cv2.FONT_HERSHEY_SIMPLEX, 1.2, (0, 0, 200), 3)
        boxes.append((x, 170, x + 40, 226))
    return img, np.array(boxes, np.float32)


@pytest.mark.parametrize("degrees", [-20, -12, 8, 15])
def test_the_rows_direction_is_found_and_each_tile_is_cut_along_it(degrees: float) -> None:
    img, boxes = drawn_row()
    m = cv2.getRotationMatrix2D((300, 200), degrees, 1.0)  # OpenCV: positive turns counter-clockwise on screen
    slanted = cv2.warpAffine(img, m, (600, 400), borderValue=(90, 90, 90))
    moved = turned_boxes(boxes, m)
    angle = row_angle(moved)
    assert angle == pytest.approx(-degrees, abs=0.5)
    for i in (1, 3):
        truth = tile_crop(img, boxes[i])[0].astype(int)
        along = np.abs(oriented_crop(slanted, moved[i], angle)[0] - truth).mean()
        axis = np.abs(tile_crop(slanted, moved[i])[0] - truth).mean()
        assert along < 0.5 * axis  # the oriented crop is the upright tile; the box's crop is not
    # the levelled boxes are the tiles' own boxes again, in a frame turned with the rows
    flat = levelled(moved, angle)
    assert np.allclose(flat[:, 2] - flat[:, 0], 40, atol=1.5) and np.allclose(flat[:, 3] - flat[:, 1], 56, atol=1.5)
    assert np.ptp((flat[:, 1] + flat[:, 3]) / 2) < 1.0


def test_level_rows_and_loose_tiles_keep_axis_aligned_crops() -> None:
    _, boxes = drawn_row()
    assert row_angle(boxes) == 0.0
    m = cv2.getRotationMatrix2D((300, 200), -2, 1.0)  # a couple of degrees: the box crop is as good
    assert row_angle(turned_boxes(boxes, m)) == 0.0
    rng = np.random.default_rng(0)
    loose = []
    for _ in range(12):  # loose tiles at random angles: no one direction, so no guess
        c = rng.uniform(100, 900, 2)
        a = rng.uniform(0, 180)
        m = cv2.getRotationMatrix2D((float(c[0]), float(c[1])), a, 1.0)
        loose.append(turned_boxes(np.float32([[c[0] - 20, c[1] - 28, c[0] + 20, c[1] + 28]]), m)[0])
    assert row_angle(np.array(loose)) == 0.0


def test_a_loosely_placed_slanted_row_has_a_direction_only_for_the_loose_check() -> None:
    """A low-resolution first pass places tiles tilted 30 degrees a few pixels off: the pairs of neighbours agree
    only within 10 degrees, enough to send the photo to the levelled read, never enough to cut crops along it."""
    from vision.geometry import row_direction

    _, boxes = drawn_row(12)
    m = cv2.getRotationMatrix2D((300, 200), 30, 1.0)
    moved = turned_boxes(boxes, m)
    jitter = np.random.default_rng(0).normal(0, 4, (12, 2)).astype(np.float32)  # each tile a few pixels off
    moved[:, :2] += jitter
    moved[:, 2:] += jitter
    assert row_direction(moved) == 0.0 and row_angle(moved) == 0.0
    assert row_direction(moved, spread=10.0) == pytest.approx(-30, abs=2)


@pytest.mark.parametrize("degrees", [-12, 10])
def test_a_slanted_hand_is_grouped_as_the_level_one(degrees: float) -> None:
    b1, c1 = row(["1m", "2m", "3m", "4s", "5s", "6s", "2p", "3p", "9m", "9m"], 0)
    b2, c2 = row(["4p"], 460)
    b3, c3 = row(["7p", "7p", "7p"], 560, sideways={0})
    b4, c4 = row(["E", "E", "E"], 0, y=190)
    level = dets(b1 + b2 + b3 + b4, c1 + c2 + c3 + c4)
    m = cv2.getRotationMatrix2D((400, 150), degrees, 1.0)
    slanted = dets([tuple(b) for b in turned_boxes(np.array(b1 + b2 + b3 + b4, np.float32), m)], c1 + c2 + c3 + c4)
    slanted.sideways = level.sideways
    want, got = analyse(level, "nanning"), analyse(slanted, "nanning")
    assert [(g.kind, g.tiles) for g in got.groups] == [(g.kind, g.tiles) for g in want.groups]


@needs_data
@pytest.mark.parametrize("degrees", [-10, 10])
def test_a_composed_hand_turned_in_its_plane_reads_as_upright(composed: tuple, degrees: float) -> None:  # noqa: F811
    img, hand, winner, ruleset = composed
    reader = TileReader()
    upright = read_image(img, reader, ruleset, True, winner)
    h, w = img.shape[:2]
    m = cv2.getRotationMatrix2D((w / 2, h / 2), degrees, 1.0)
    r = read_image(cv2.warpAffine(img, m, (w, h), borderMode=cv2.BORDER_REPLICATE), reader, ruleset, True, winner)
    assert r.hand == upright.hand



@needs_data
def test_a_concealed_kong_of_a_composed_hand_at_20_degrees_keeps_its_face_down_tiles() -> None:
    """A real case (hand 24 of ``evaluate_hands --seed 0 --condition rot20``): a hand with a concealed kong whose
    row runs at 20 degrees. Its kong is found along the row, so its two backs stay face down and the hand is
    read exactly; read along the image's axes, the kong was split and its backs re-read as faces."""
    from evaluation.hands import composed_cases, normal
    from training.data import load_split
    from training.synth import CropBank

    bank = CropBank.build(load_split("valid"), seed=0)
    *_, (k, ruleset, hand, winner, img, _) = composed_cases(bank, 25, 0, "rot20")  # the evaluation's hand 24
    assert k == 24
    assert any(m["type"] == "kong_concealed" for m in hand["melds"])
    r = read_image(img, TileReader(), ruleset, True, winner)
    assert normal(r.hand) == normal(hand)


def drawn_hand_turned(degrees: float, n: int = 12) -> tuple[np.ndarray, np.ndarray]:
    """``drawn_row`` of n tiles on a larger grey table, turned in the photo's plane, and its tiles' boxes."""
    img, boxes = drawn_row(n)
    big = np.full((900, 1200, 3), 90, np.uint8)
    big[250:650, 300:900] = img
    boxes = boxes + np.float32([300, 250, 300, 250])
    m = cv2.getRotationMatrix2D((600, 450), degrees, 1.0)
    return cv2.warpAffine(big, m, (1200, 900), borderValue=(90, 90, 90)), turned_boxes(boxes, m)


@pytest.mark.parametrize("degrees", [-60, -45, -30, 0, 20, 45, 60, 80])
def test_the_edges_of_a_turned_hand_give_its_slant_modulo_a_quarter_turn(degrees: float) -> None:
    """Tiles are rectangles: their edges run along and across the rows, so the photo's edges give the slant (up to
    a quarter turn) even where the finder sees too little of the hand to give rows."""
    from vision.orientation import edge_slant

    img, boxes = drawn_hand_turned(degrees)
    slant, agree = edge_slant(img)
    assert agree > 0.3
    assert abs((slant + degrees + 45) % 90 - 45) <= 2.0  # OpenCV turns counter-clockwise: rows run at -degrees
    assert -45 < slant <= 45
    near, _ = edge_slant(img, boxes[:4])  # measured around some of its boxes
    assert abs((near + degrees + 45) % 90 - 45) <= 2.0
    noise = np.random.default_rng(0).integers(0, 255, (600, 800, 3)).astype(np.uint8)
    assert edge_slant(noise)[1] < 0.05  # no edges that agree: no slant to read by


def test_steep_rows_count_only_where_the_photos_edges_run_the_same_way() -> None:
    """Rows at 60 degrees are a hand's when the edges agree (modulo a quarter turn), and loose tiles whose pairs
    happen to line up steeply are not; the usual rows check stops at 35 degrees."""
    from vision.finding import LEVEL_STEEPEST, steep_rows_agree
    from vision.geometry import row_direction, rows_across

    img, boxes = drawn_hand_turned(60)
    assert row_direction(boxes) == 0.0  # steeper than the crops' check reads
    steep = row_direction(boxes, steepest=LEVEL_STEEPEST)
    assert steep == pytest.approx(-60, abs=1)
    assert steep_rows_agree(img, boxes, steep)
    upright, flat = drawn_hand_turned(0)
    assert rows_across(flat) == pytest.approx(0, abs=0.5) and row_direction(flat) == 0.0  # level rows, no slant
    assert not steep_rows_agree(upright, flat, -60.0)  # its edges run level
    loose = np.float32([[100, 100, 140, 156], [500, 700, 540, 756], [900, 150, 940, 206]])
    assert rows_across(loose) is None
