"""Photo loading, layout and rule-aware correction on hand-made detections (no model needed)."""

from __future__ import annotations

import struct
import subprocess
import sys
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.classes import CLASS_INDEX, CLASSIFIER_CODES
from vision.correction import correct, face_up_stray_backs, restrict
from vision.crops import orientation, quarter_turnable
from vision.detections import Detections
from vision.finder import letterbox, suppress_contained
from vision.layout import analyse, to_hand
from vision.photo import DAMAGED, PhotoError, decode_for_reading, decode_image, decode_photo, header_size
from vision.pipeline import interpret
from vision.repair import repair_rows

ROOT = Path(__file__).resolve().parents[1]


def png_header(w: int, h: int) -> bytes:
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + ihdr + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))


def test_header_size_reads_png_and_jpeg_without_decoding():
    assert header_size(png_header(9000, 7000)) == (9000, 7000)
    ok, buf = cv2.imencode(".jpg", np.zeros((48, 64, 3), np.uint8))
    assert header_size(buf.tobytes()) == (64, 48)


@pytest.mark.parametrize("data, needle", [
    (b"", "empty"),
    (b"hello, this is text", "not an image"),
    (png_header(9000, 7000) + b"\0" * 100, "megapixels"),
])
def test_bad_photos_have_specific_errors(data: bytes, needle: str):
    with pytest.raises(PhotoError, match=needle):
        decode_photo(data, "x")


def test_a_truncated_jpeg_is_read_as_far_as_it_goes_with_a_warning():
    ok, buf = cv2.imencode(".jpg", np.random.default_rng(0).integers(0, 255, (200, 200, 3), np.uint8))
    img, warnings = decode_image(buf.tobytes()[:3000], "cut.jpg")
    assert img.shape == (200, 200, 3) and warnings == [DAMAGED]


def with_exif_rotate_90(data: bytes) -> bytes:
    """The JPEG with an APP1 Exif segment saying Orientation=6 (rotate 90 CW), inserted after SOI."""
    tiff = b"MM\x00\x2a\x00\x00\x00\x08" + b"\x00\x01" + b"\x01\x12\x00\x03\x00\x00\x00\x01\x00\x06\x00\x00" \
        + b"\x00\x00\x00\x00"
    app1 = b"Exif\x00\x00" + tiff
    return data[:2] + b"\xff\xe1" + struct.pack(">H", len(app1) + 2) + app1 + data[2:]


def test_exif_orientation_is_applied():
    """A JPEG whose EXIF says 'rotate 90' decodes upright (portrait) as a phone shows it."""
    img = np.zeros((40, 80, 3), np.uint8)
    img[:, :40] = 255
    ok, buf = cv2.imencode(".jpg", img)
    out = decode_photo(with_exif_rotate_90(buf.tobytes()), "rotated.jpg")
    assert out.shape[:2] == (80, 40)


def test_large_jpeg_is_decoded_at_half_scale_upright():
    """Phone photos (3000 px or more) are decoded at half scale, EXIF-rotated, with the factor back to photo
    pixels; smaller photos at full size."""
    img = np.zeros((2400, 3200, 3), np.uint8)
    img[:, :1600] = 255
    ok, buf = cv2.imencode(".jpg", img)
    half, scale, _ = decode_for_reading(with_exif_rotate_90(buf.tobytes()), "phone.jpg")
    assert half.shape[:2] == (1600, 1200) and scale == 2.0
    assert half[:700].mean() > 200 and half[900:].mean() < 50  # the white half is on top after the turn
    ok, buf = cv2.imencode(".jpg", img[:1200, :1600])
    full, scale, _ = decode_for_reading(buf.tobytes(), "small.jpg")
    assert full.shape[:2] == (1200, 1600) and scale == 1.0


def test_letterbox_for_any_shape_pads_to_the_stride_only():
    blob, r, pad = letterbox(np.zeros((300, 1200, 3), np.uint8), 416, stride=32)
    assert blob.shape == (1, 3, 128, 416) and r == pytest.approx(416 / 1200)
    blob, _, _ = letterbox(np.zeros((300, 1200, 3), np.uint8), 416)
    assert blob.shape == (1, 3, 416, 416)


def test_letterbox_gives_the_finder_rgb_planes_scaled_to_one():
    """The batch is the padded picture's RGB planes divided by 255 (written channel by channel, the same values)."""
    img = np.random.default_rng(0).integers(0, 256, (64, 96, 3), dtype=np.uint8)
    blob, r, (px, py) = letterbox(img, 96, stride=32)
    assert r == 1.0 and (px, py) == (0, 0) and blob.flags["C_CONTIGUOUS"]
    want = img[..., ::-1].transpose(2, 0, 1)[None].astype(np.float32) / 255.0
    assert np.array_equal(blob, want)


def test_letterbox_at_a_fixed_scale_may_exceed_the_size_for_any_shape_input():
    """The zoomed second pass: a wide strip of small tiles enlarged 2x in one input, padded to the stride."""
    blob, r, _ = letterbox(np.zeros((150, 700, 3), np.uint8), 416, stride=32, scale=2.0)
    assert blob.shape == (1, 3, 320, 1408) and r == 2.0


def test_duplicate_boxes_are_suppressed_but_neighbours_kept():
    boxes = np.array([[0, 0, 10, 14], [10, 0, 20, 14], [5, 0, 15, 14], [2, 2, 8, 12], [30, 0, 40, 14]], np.float32)
    scores = np.array([0.9, 0.9, 0.5, 0.4, 0.8], np.float32)
    kept = suppress_contained(boxes, scores, np.arange(5), covered=0.9)
    assert list(kept) == [0, 1, 4]  # the box straddling two tiles and the half tile go, the neighbours stay


def dets(boxes: list[tuple[float, float, float, float]], codes: list[str], conf: float = 0.95) -> Detections:
    n = len(boxes)
    probs = np.full((n, len(CLASSIFIER_CODES)), (1 - conf) / (len(CLASSIFIER_CODES) - 1), np.float32)
    for i, c in enumerate(codes):
        probs[i, CLASS_INDEX[c]] = conf
    side = np.array([b[2] - b[0] > b[3] - b[1] for b in boxes])
    return Detections(np.array(boxes, np.float32), np.ones(n, np.float32), probs, side)


def row(codes: list[str], x0: float, y: float = 100, w: float = 40, h: float = 56, gap_after: dict | None = None,
        sideways: set[int] | None = None) -> tuple[list, list]:
    boxes, x = [], x0
    for i, _ in enumerate(codes):
        if sideways and i in sideways:
            boxes.append((x, y + h - w, x + h, y + h))
            x += h
        else:
            boxes.append((x, y, x + w, y + h))
            x += w
        x += (gap_after or {}).get(i, 1)
    return boxes, codes


def test_layout_finds_hand_winning_tile_meld_and_feeder():
    b1, c1 = row(["1m", "2m", "3m", "4s", "5s", "6s", "2p", "3p", "9m", "9m"], 0)
    b2, c2 = row(["4p"], 460)
    b3, c3 = row(["7p", "7p", "7p"], 560, sideways={0})
    det = dets(b1 + b2 + b3, c1 + c2 + c3)
    lay = analyse(det, "nanning")
    kinds = [g.kind for g in lay.groups]
    assert kinds == ["concealed", "meld", "winning_tile"]
    assert lay.groups[1].meld_type == "pung" and lay.groups[1].feeder == "left"
    hand = to_hand(det, lay, winner=1)
    assert hand == {"concealed": c1, "melds": [{"type": "pung", "tiles": ["7p"] * 3, "from": 0}],
                    "winning_tile": "4p", "flowers": []}
    assert not lay.warnings


def test_layout_concealed_kong_from_face_down_tiles_and_flowers_aside():
    b1, c1 = row(["1m", "2m", "3m", "4s", "5s", "6s", "2p", "3p", "9m", "9m"], 0)
    b2, c2 = row(["4p"], 460)
    b3, c3 = row(["back", "E", "E", "back"], 560)
    b4, c4 = row(["f1", "C"], 0, y=300)
    det = dets(b1 + b2 + b3 + b4, c1 + c2 + c3 + c4)
    lay = analyse(det, "nanjing")
    hand = to_hand(det, lay, winner=0)
    assert hand is not None
    assert hand["melds"] == [{"type": "kong_concealed", "tiles": ["E"] * 4, "from": None}]
    assert sorted(hand["flowers"]) == ["C", "f1"]


def test_layout_warns_when_a_tile_is_missing():
    b1, c1 = row(["1m", "2m", "3m", "4s", "5s", "6s", "2p", "3p", "9m"], 0)
    b2, c2 = row(["4p"], 460)
    lay = analyse(dets(b1 + b2, c1 + c2), "nanning")
    assert any("tiles besides flowers" in w for w in lay.warnings)


def hand_with_doubt(codes: list[str], winning: str, tile: int, probs: dict[str, float]) -> Detections:
    """A hand row plus the winning tile apart, where one tile's reading is uncertain."""
    b1, _ = row(codes, 0)
    b2, _ = row([winning], 700)
    det = dets(b1 + b2, codes + [winning])
    det.probs[tile] = 0.0001
    for code, p in probs.items():
        det.probs[tile, CLASS_INDEX[code]] = p
    return det


def test_correction_fixes_a_look_alike_to_make_the_hand_win():
    # tile 1 was read 3m (p=0.55) with 2m second (0.40): 1m 3m 3m does not win, 1m 2m 3m does
    det = hand_with_doubt(["1m", "2m", "3m", "4s", "5s", "6s", "2p", "3p", "9m", "9m", "7p", "8p", "9p"], "4p", 1,
                          {"3m": 0.55, "2m": 0.40})
    lay = analyse(det, "nanning")
    fixed, corrections, warnings = correct(det, lay, "nanning", winning=True)
    assert fixed[1] == "2m" and corrections[0].from_code == "3m" and not warnings


def test_correction_limits_a_tile_to_four():
    det = hand_with_doubt(["5p"] * 5 + ["1m", "2m", "3m", "E", "E", "E", "9s", "9s"], "9s", 4, {"5p": 0.6, "6p": 0.3})
    lay = analyse(det, "nanning")
    fixed, corrections, _ = correct(det, lay, "nanning", winning=False)
    assert fixed.count("5p") == 4 and corrections


def test_flowers_stay_flowers_in_a_ruleset_without_them_and_are_set_aside():
    det = dets([(0, 0, 40, 56)], ["f1"], conf=0.6)
    det.probs[0, CLASS_INDEX["1s"]] = 0.3
    assert restrict(det, "nanning") == [] and det.codes == ["f1"]  # never turned into a suit tile
    b1, c1 = row(["1m", "2m", "3m", "4s", "5s", "6s", "2p", "3p", "9m", "9m", "E", "E", "E"], 0)
    b2, c2 = row(["4p"], 600)
    b3, c3 = row(["f1", "f5"], 0, y=300)
    seen = dets(b1 + b2 + b3, c1 + c2 + c3)
    reading = interpret(seen, "nanning", winner=0)
    assert reading.hand["flowers"] == [] and reading.set_aside == ["f1", "f5"]
    assert any("set aside" in w for w in reading.warnings)
    assert interpret(seen, "nanjing", winner=0).hand["flowers"] == ["f1", "f5"]  # the same reading, re-interpreted
    assert seen.codes == c1 + c2 + c3  # interpreting does not change what the photo showed


def test_vision_cli_reports_bad_files_and_goes_on(tmp_path: Path):
    bad = tmp_path / "notes.txt"
    bad.write_text("not a photo")
    missing = tmp_path / "missing.jpg"
    p = subprocess.run([sys.executable, "-m", "vision", str(bad), str(missing), "--json"], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and "Traceback" not in p.stderr
    lines = [ln for ln in p.stderr.splitlines() if ln.startswith("error:")]
    assert len(lines) == 2 and ("not an image" in lines[0] or "model" in lines[0])


def test_a_tile_read_face_down_outside_a_concealed_kong_is_read_as_its_face():
    """Only a concealed kong lies face down: a lone 'back' in the hand is the plain white dragon (P) it looks like;
    the two backs of the kong stay."""
    b1, c1 = row(["1m", "2m", "3m", "4s", "5s", "6s", "back", "P", "P"], 0)
    b2, c2 = row(["4p"], 460)
    b3, c3 = row(["back", "E", "E", "back"], 560)
    det = dets(b1 + b2 + b3, c1 + c2 + c3)
    det.probs[6, CLASS_INDEX["P"]] = 0.04  # the classifier's second guess for the blank tile
    fixes = face_up_stray_backs(det)
    assert [(c.tile, c.from_code, c.to_code) for c in fixes] == [(6, "back", "P")]
    assert det.codes[10] == det.codes[13] == "back"
    hand = to_hand(det, analyse(det, "nanning"), winner=0)
    assert hand is not None and hand["concealed"].count("P") == 3


def test_correction_drops_two_surplus_tiles():
    """Two tiles too many (one found twice, one thing that is no tile): the two least certain go."""
    codes = ["1m", "2m", "3m", "4s", "5s", "6s", "2p", "3p", "9m", "9m", "7p", "8p", "9p"]
    b1, _ = row(codes[:5] + ["5s"] + codes[5:] + ["S"], 0)
    b2, _ = row(["4p"], 800)
    det = dets(b1 + b2, codes[:5] + ["5s"] + codes[5:] + ["S"] + ["4p"])
    det.confidence[5] = 0.35
    det.confidence[14] = 0.4
    fixed, corrections, warnings = correct(det, analyse(det, "nanning"), "nanning", winning=True)
    assert not warnings
    assert sorted(c.tile for c in corrections if c.to_code == "remove") == [5, 14]
    assert [c for i, c in enumerate(fixed) if c != "remove"] == codes + ["4p"]


def test_a_phantom_box_in_the_gap_before_the_winning_tile_is_dropped():
    hand, _ = row(["1m"] * 13, 0)  # 13 tiles 40 wide, then a 24-px gap, then the winning tile
    winning = [(13 * 41 - 1 + 24, 100, 13 * 41 - 1 + 64, 156)]
    phantom = [(13 * 41 - 1 + 1, 100, 13 * 41 - 1 + 23, 156)]  # narrow box filling the gap
    det = Detections(np.array(hand + winning + phantom, np.float32), np.full(15, 0.8, np.float32))
    out = repair_rows(det)
    assert len(out) == 14
    assert not any(np.allclose(b, phantom[0]) for b in out.xyxy)


def test_a_narrow_box_beside_another_part_of_a_tile_is_no_phantom():
    """Held-out handheld hand 29: two bamboo tiles boxed as two narrow boxes out of step, the first squeezed
    between the tile before and the second. The second is a part of a tile too (under 0.85 of the row's width), not
    a whole tile, so the first is no phantom in a gap: kept (the regrid boxes the two where they lie)."""
    boxes, _ = row(["1m"] * 9, 0)
    x1, y1, _, y2 = boxes[4]
    parts = [(x1 + 2, y1, x1 + 28, y2), (x1 + 27, y1, x1 + 60, y2)]  # (0.65 and 0.83 of the tiles' width)
    det = Detections(np.array(boxes[:4] + parts + boxes[6:], np.float32), np.full(9, 0.8, np.float32))
    assert len(repair_rows(det)) == 9
    whole = [(x1 + 27, y1, x1 + 27 + 38, y2)]  # (a whole tile beside it: the narrow box is a phantom, dropped)
    det = Detections(np.array(boxes[:4] + parts[:1] + whole + boxes[6:], np.float32), np.full(9, 0.8, np.float32))
    assert len(repair_rows(det)) == 8


def test_a_tile_cut_in_two_boxes_is_joined_and_a_narrow_tile_with_room_is_kept():
    boxes, _ = row(["1m"] * 6, 0)
    x1, y1, x2, y2 = boxes[2]
    halves = [(x1, y1, x1 + 20, y2), (x1 + 20, y1, x2, y2)]
    det = Detections(np.array(boxes[:2] + halves + boxes[3:], np.float32), np.linspace(0.5, 0.9, 7).astype(np.float32))
    out = repair_rows(det)
    assert len(out) == 6 and any(np.allclose(b, boxes[2]) for b in out.xyxy)
    # a narrow box at the end of a row (a tile cut by the photo's edge) has a neighbour on one side only: kept
    edge = Detections(np.array(boxes + [(6 * 41, 100, 6 * 41 + 15, 156)], np.float32), np.ones(7, np.float32))
    assert len(repair_rows(edge)) == 7


@pytest.mark.parametrize("w, h", [(40, 56), (50, 44)])  # upright, and squat as a phone pitched 45 degrees shows
def test_a_sideways_tile_read_as_two_halves_is_joined(w: float, h: float):
    side_h = h * 0.72  # a sideways tile: about 1.35 tiles wide and three quarters as tall
    boxes, _ = row(["1m"] * 6, 0, w=w, h=h)
    x0 = 6 * (w + 1) + 1
    whole = (x0, 100 + h - side_h, x0 + 1.35 * w, 100 + h)
    halves = [(x0, whole[1], x0 + 0.6 * w, whole[3]), (x0 + 0.62 * w, whole[1] + 1, whole[2], whole[3])]
    out = repair_rows(Detections(np.array(boxes + halves, np.float32), np.full(8, 0.8, np.float32)))
    assert len(out) == 7
    assert any(np.allclose(b, whole, atol=1.5) for b in out.xyxy)
    # a sideways tile read whole beside an upright tile stays two boxes; so do two sideways tiles of two melds
    kept = [whole, (whole[2] + 1, 100, whole[2] + 1 + w, 100 + h)]
    assert len(repair_rows(Detections(np.array(boxes + kept, np.float32), np.ones(8, np.float32)))) == 8
    second = (whole[2] + 0.5 * w, whole[1], whole[2] + 1.85 * w, whole[3])
    assert len(repair_rows(Detections(np.array(boxes + [whole, second], np.float32), np.ones(8, np.float32)))) == 8


def test_a_barely_landscape_tile_among_narrow_upright_tiles_is_sideways():
    boxes, _ = row(["1m"] * 5, 0, w=38, h=56)  # aspect 0.68
    turned = (5 * 39, 100, 5 * 39 + 60, 156)  # 1.07: a sideways tile seen at a slight angle
    turn, side = orientation(np.array(boxes + [turned], np.float32))
    assert list(side) == [False] * 5 + [True] and list(turn) == list(side)


def test_only_square_boxes_or_photos_of_landscape_boxes_may_be_read_a_quarter_turned():
    boxes, _ = row(["1m"] * 4, 0, w=40, h=56)
    square = (4 * 41, 100, 4 * 41 + 50, 150)  # a tile lying near 45 degrees
    sideways = (5 * 41 + 5, 110, 5 * 41 + 61, 150)
    assert list(quarter_turnable(np.array(boxes + [square, sideways], np.float32))) == [False] * 4 + [True, False]
    landscape = np.array([(0, 0, 120, 20), (0, 30, 120, 50), (0, 60, 60, 110)], np.float32)  # stretched photo
    assert quarter_turnable(landscape).all()
    assert quarter_turnable(np.zeros((0, 4), np.float32)).shape == (0,)


def test_tiles_of_a_hand_shot_steeply_pitched_are_not_read_a_quarter_turned():
    # held-out pitch45 hand 5 (seed 6): a hand's squat tiles (1.08) side by side, a sideways tile among them; read a
    # quarter turned, a pung of Easts came out 1s. A photo of landscape boxes not side by side may still be turned.
    boxes, _ = row(["E"] * 8, 0, w=54, h=50)
    side, _ = row(["E"], 8 * 55, w=80, h=50)
    xyxy = np.array(boxes + side, np.float32)
    assert not quarter_turnable(xyxy).any()
    column = np.array([(0, 60 * k, 54, 60 * k + 50) for k in range(8)], np.float32)  # (a photo turned by 90)
    assert quarter_turnable(column).all()


def test_a_squat_box_shaped_like_the_standing_hands_tiles_is_not_read_a_quarter_turned():
    # a pitched hand's tiles come out squat (0.89); its winning tile, boxed alike, stands as they do (held-out
    # handheld hand 19, seed 6: a 6p read a quarter turned as 1p), where a squarer box may lie turned
    boxes, _ = row(["6p"] * 5, 0, w=50, h=56)
    alike = (6 * 51, 0, 6 * 51 + 51, 57)
    square = (8 * 51, 0, 8 * 51 + 60, 56)  # 1.07: squarer than the hand's tiles by a fifth
    xyxy = np.array(boxes + [alike, square], np.float32)
    assert list(quarter_turnable(xyxy)) == [True] * 7
    assert list(quarter_turnable(xyxy, hand=50 / 56)) == [False] * 6 + [True]


def test_a_tile_of_another_size_is_left_out_of_the_hand_with_a_warning():
    b1, c1 = row(["1m", "2m", "3m", "4s", "5s", "6s", "2p", "3p", "4p", "9m", "9m", "E", "E"], 0)
    b2, c2 = row(["E"], 600)
    big = [(100, 300, 100 + 3 * 40, 300 + 3 * 56)]  # a tile near the lens, three times the size
    det = dets(b1 + b2 + big, c1 + c2 + ["7s"])
    lay = analyse(det, "nanning")
    assert lay.apart == [14] and lay.group_of(15)[14] == -1
    assert "left out of the hand" in lay.warnings[0]
    assert to_hand(det, lay) == {"concealed": c1, "melds": [], "winning_tile": "E", "flowers": []}


def test_groups_right_needs_each_true_group_read_as_its_own_group():
    from evaluation.hands import partition
    from training.synth import PlacedTile
    from vision.layout import Group

    boxes, codes = row(["1m", "2m", "3m", "4p"], 0)
    placed = [PlacedTile(c, b, False, 0 if k < 3 else 1) for k, (b, c) in enumerate(zip(boxes, codes))]
    det = Detections(np.array(boxes + [(300, 300, 340, 356)], np.float32), np.ones(5, np.float32))
    split = [Group("concealed", [0, 1, 2]), Group("winning_tile", [3])]
    assert partition(placed, det, split)[0]  # the fifth box is left out of every group: fine
    assert not partition(placed, det, [Group("concealed", [0, 1, 2, 3])])[0]  # two true groups read as one
    assert not partition(placed, det, split + [Group("flowers", [4])])[0]  # a box that is no tile joined a group


def test_a_concealed_kong_shown_fully_face_down_is_a_kong_of_an_unseen_face_flagged_as_a_doubt():
    from vision.pipeline import interpret

    b1, c1 = row(["1m", "2m", "3m", "4s", "5s", "6s", "2p", "3p", "9m", "9m"], 0)
    b2, c2 = row(["4p"], 460)
    b3, c3 = row(["back", "back", "back", "back"], 560)
    det = dets(b1 + b2 + b3, c1 + c2 + c3)
    reading = interpret(det, "nanning", winner=0)
    assert reading.hand is not None  # scored, not "hand: null"
    kong = reading.hand["melds"][0]
    assert kong["type"] == "kong_concealed" and len(set(kong["tiles"])) == 1
    assert kong["tiles"][0] not in reading.hand["concealed"] + [reading.hand["winning_tile"]]
    kong_tiles = list(range(11, 15))
    assert set(kong_tiles) <= set(reading.doubts)  # the player is asked to check its face
    assert any("no face" in c.reason for c in reading.corrections)



class _OneSidedClassifier:
    """A stand-in classifier session: face 0 when a crop's top half is the brighter, with a logit of ten times
    that half's brightness; face 1 (logit 2) when the bottom half is: a reading only one view of the tile gives."""

    class _Input:
        name = "crops"

    def get_inputs(self) -> list:
        return [self._Input()]

    def run(self, _outputs: object, feeds: dict) -> list[np.ndarray]:
        x = feeds["crops"]
        top, bottom = x[:, :, :32].mean((1, 2, 3)), x[:, :, 32:].mean((1, 2, 3))
        logits = np.zeros((len(x), len(CLASSIFIER_CODES)), np.float32)
        up = top > bottom
        logits[up, 0] = 10 * top[up]
        logits[~up, 1] = 2.0
        return [logits]


def test_a_crop_read_short_of_sure_gets_a_second_look_turned_round() -> None:
    """A crop read at ``tta_below`` or more is left as read; one under it is read turned by 180 degrees as well
    and the two views averaged (in one batch with any quarter turns), so a reading that only one view supports
    loses confidence."""
    from vision.calibration import Calibration
    from vision.classify import Classifier, ClassifyConfig

    reader = Classifier(_OneSidedClassifier(), Calibration(), ClassifyConfig(tta_below=0.995))  # type: ignore[arg-type]
    sure, short = (np.zeros((64, 64, 3), np.uint8) for _ in range(2))
    sure[:32], short[:32] = 255, 204  # face 0 at logit 10 (p 0.998) and at logit 8 (p 0.986)
    probs = reader.probabilities([sure, short])
    others = len(CLASSIFIER_CODES) - 1
    assert probs[0, 0] == pytest.approx(np.exp(10) / (np.exp(10) + others), rel=1e-4)  # as read
    assert (probs.argmax(1) == 0).all()
    assert probs[1, 0] < 0.9 < np.exp(8) / (np.exp(8) + others)  # the second look took it below a flag
    assert np.allclose(probs.sum(1), 1.0, atol=1e-5)
    reader.config = ClassifyConfig(tta_below=0.9)  # a lower bar: the short crop keeps its one-sided confidence
    assert reader.probabilities([short])[0, 0] == pytest.approx(np.exp(8) / (np.exp(8) + others), rel=1e-4)


def test_the_finders_back_outvotes_a_guessed_face_but_not_a_sure_blank_dragon() -> None:
    """The finder sees a plain tile as face down: over a face the classifier only guessed (a plain back read as
    5m) the back wins; over a blank white dragon the classifier is sure of (it sees ivory, not a coloured back)
    the reading stays P. Every row still sums to one."""
    from vision.classify import with_finder_backs

    n = len(CLASSIFIER_CODES)
    probs = np.full((2, n), 0.02 / (n - 1), np.float32)
    probs[0, CLASS_INDEX["5m"]] = 0.98
    probs[1, CLASS_INDEX["P"]] = 0.98
    out = with_finder_backs(probs, np.array([0.95, 0.95], np.float32))
    assert CLASSIFIER_CODES[int(out[0].argmax())] == "back"
    assert out[0, CLASS_INDEX["back"]] == pytest.approx(0.95, rel=1e-3)
    assert CLASSIFIER_CODES[int(out[1].argmax())] == "P" and out[1, CLASS_INDEX["back"]] < 0.05
    assert np.allclose(out.sum(1), 1.0, atol=1e-5)


def test_a_kong_whose_second_back_glare_paled_is_still_a_concealed_kong_and_an_exposed_kong_stays() -> None:
    """Back, E, E, and a back read as the blank dragon (its back a distant second): read face down too, the
    group is a concealed kong of E, and the tile is flagged. Four E apart, one read face down with E a close
    second, are not made a concealed kong (four equal faces are likelier than two backs there)."""
    from vision.pipeline import interpret

    b1, c1 = row(["1m", "2m", "3m", "4s", "5s", "6s", "2p", "3p", "9m", "9m"], 0)
    b2, c2 = row(["4p"], 460)
    b3, c3 = row(["back", "E", "E", "P"], 560)
    det = dets(b1 + b2 + b3, c1 + c2 + c3, conf=0.9)
    det.probs[14, CLASS_INDEX["back"]] = 0.05  # the pale back's second reading
    reading = interpret(det, "nanning", winner=0)
    assert reading.hand is not None and reading.hand["melds"] == [
        {"type": "kong_concealed", "tiles": ["E"] * 4, "from": None}]
    assert [(c.tile, c.from_code, c.to_code) for c in reading.corrections[:1]] == [(14, "P", "back")]
    assert 14 in reading.doubts

    b3, c3 = row(["E", "E", "back", "E"], 560)
    det = dets(b1 + b2 + b3, c1 + c2 + c3, conf=0.9)
    det.probs[13, CLASS_INDEX["E"]] = 0.08
    reading = interpret(det, "nanning", winner=0)
    assert not any(c.to_code == "back" for c in reading.corrections)
    assert reading.codes[11:15].count("back") == 0  # no kong made of it: its lone back is read as its face, E


def test_a_labelled_tile_a_condition_pushes_out_of_the_photo_is_measured_as_such() -> None:
    """``evaluation.photos --condition``: a tile the turn cut by the photo's edge is no label the reader could find."""
    from evaluation.photos import within

    boxes = np.float32([[10, 10, 50, 60], [-20, 10, 20, 60], [90, 90, 130, 140]])
    assert np.allclose(within(boxes, (100, 100, 3)), [1.0, 0.5, 0.05], atol=1e-6)


def test_a_slanted_tiles_label_turned_45_degrees_matches_its_tile_only_at_the_lower_overlap() -> None:
    """``evaluation.photos --iou 0.3``: the label of a tile lying at 30 degrees is the box around it; turned with the
    photo by 45 degrees it becomes the box of a box, larger than the turned tile's own box (IoU 0.4). Each tile still
    matches only its own label, not its neighbour's."""
    import cv2

    from evaluation.conditions import rotate
    from evaluation.photos import match

    turn = np.radians(30)
    r = np.array([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]])
    half = np.array([[-16, -21], [16, -21], [16, 21], [-16, 21]], float)  # a 32 x 42 tile
    tiles = [np.array([180, 200]) + r @ np.array([k * 34, 0]) + half @ r.T for k in (0, 1)]  # two neighbours
    labels = np.float32([[*t.min(0), *t.max(0)] for t in tiles])
    _, turned = rotate(45)(np.zeros((400, 400, 3), np.uint8), labels, np.random.default_rng(0))
    m = cv2.getRotationMatrix2D((200, 200), 45, 1.0)
    own = np.float32([[*q.min(0), *q.max(0)] for q in (np.hstack([t, np.ones((4, 1))]) @ m.T for t in tiles)])
    assert match(turned, own) == []
    assert sorted(match(turned, own, 0.3)) == [(0, 0), (1, 1)]


def test_a_row_laid_out_in_line_is_told_from_scattered_tiles():
    from vision.layout import laid_out

    b, c = row(["1m", "2m", "3m", "4m", "5m", "6m"], 0, sideways={3})  # a sideways tile lies on the row's line
    assert laid_out(dets(b, c), list(range(6)))
    scattered = [(60.0 * i, 100.0 + 23 * (i % 3), 60.0 * i + 48, 152.0 + 31 * (i % 3)) for i in range(6)]
    assert not laid_out(dets(scattered, c), list(range(6)))


def test_the_hand_is_the_row_laid_out_in_line_not_larger_discards_lying_askew():
    """Discards lying at any angle have larger boxes than the hand's upright tiles: the row laid out in line is
    the hand's, whatever the size of the scattered row's boxes."""
    from vision.layout import apart_from_hand

    b, c = row(["1m", "2m", "3m", "4s", "5s", "6s", "2p", "3p", "9m", "9m", "9m", "5p", "5p", "5p"], 0, y=300)
    scattered = [(70.0 * i, 100.0 + 20 * (i % 3), 70.0 * i + 60, 166.0 + 25 * (i % 3)) for i in range(8)]
    det = dets(scattered + b, ["E"] * 8 + c)
    assert apart_from_hand(det) == list(range(8))


def test_discards_lying_in_line_but_apart_are_not_the_hand():
    """Discards that happen to lie on one line (held out, discards hand 56: eight of them, their boxes larger than
    the hand's tiles) lie more than half a tile from each other; the hand's tiles touch. The touching row is the
    hand's even though the line of discards has the larger tiles."""
    from vision.layout import apart_from_hand, close_set, laid_out

    b, c = row(["1m", "2m", "3m", "4s", "5s", "6s", "2p", "3p", "9m", "9m", "9m", "5p", "5p", "5p"], 0, y=300,
               gap_after={8: 30})
    in_line = [(150.0 * i, 100.0, 150.0 * i + 52, 170.0) for i in range(8)]
    det = dets(in_line + b, ["E"] * 8 + c)
    assert laid_out(det, list(range(8))) and not close_set(det, list(range(8)))
    assert close_set(det, list(range(8, 22)))
    assert apart_from_hand(det) == list(range(8))


def test_discards_in_line_and_close_are_sized_by_their_standing_tiles_not_their_slanted_boxes():
    """Held-out discards hand 28 (seed 6): five discards happen to lie in line and close, boxes around tiles at a
    slant larger than the hand's tiles, one of them standing. A row's tile size is its standing boxes' width: the
    discards' standing tile is no larger than the hand's, so the hand's row (the longer) is the hand."""
    from vision.layout import apart_from_hand, close_set, laid_out, tile_size

    b, c = row(["1m", "2m", "3m", "4s", "5s", "6s", "2p", "3p", "9m", "9m", "9m", "5p", "5p", "5p"], 0, y=300)
    slanted = [(70.0 * i, 100.0, 70.0 * i + 66, 166.0) for i in range(5) if i != 2] + [(140.0, 110.0, 178.0, 166.0)]
    det = dets(slanted + b, ["E"] * 5 + c)
    assert laid_out(det, list(range(5))) and close_set(det, list(range(5)))
    assert tile_size(det, list(range(5))) == 38.0 and tile_size(det, list(range(5, 19))) == 40.0
    assert apart_from_hand(det) == list(range(5))


def test_a_box_drawn_wide_that_closes_the_gap_before_a_meld_does_not_join_a_lone_tile_to_it():
    """The lone tile beside a pung, its box drawn a third of a tile too wide (the gap left is 0.15 tile widths):
    three of one face, a sideways tile, and at the end another face behind the widest gap are two groups; four
    tiles of one face (a kong with one tile unsure) stay one group."""
    concealed = row(["2m", "3m", "4m", "6p", "7p", "8p", "5s", "5s", "9s", "9s"], 0, gap_after={9: 40})
    b1, c1 = row(["9s"], 0)
    b2, c2 = row(["1s", "1s", "1s"], 0, sideways={2})
    b1 = [(x + 450, y, x + 450 + 40 + 13, y2) for x, y, _, y2 in b1]  # 13 px too wide: 6 px of gap left
    b2 = [(x + 450 + 40 + 19, y, x2 + 450 + 40 + 19, y2) for x, y, x2, y2 in b2]
    det = dets(concealed[0] + b1 + b2, concealed[1] + c1 + c2)
    r = interpret(det, "nanning", True, 0)
    assert r.hand["winning_tile"] == "9s" and r.hand["melds"] == [{"type": "pung", "tiles": ["1s"] * 3, "from": 1}]
    assert not [w for w in r.warnings if "legal" in w]
    from vision.layout import odd_end

    g = [10, 11, 12, 13]
    assert odd_end(det, g) == [[10], [11, 12, 13]]
    det.probs[10] = det.probs[11]  # the end tile as likely the meld's face: one group (a kong)
    assert odd_end(det, g) == [g]


def test_a_face_inked_across_its_centre_is_not_read_as_the_blank_white_dragon() -> None:
    """Held out, a wide brushed West wind smeared by motion blur read as the blank dragon with the West second:
    the ink across its centre moves the blank reading to the other faces, so the West comes first. A blank
    dragon with a blue frame (ink only near its edges) and a plain face keep their blank reading; rows still sum
    to one."""
    import cv2

    from vision.classify import not_blank_where_inked
    from vision.crops import centre_ink

    ivory = (200, 225, 235)
    framed = np.full((64, 64, 3), ivory, np.uint8)
    cv2.rectangle(framed, (10, 10), (53, 53), (170, 90, 30), 4)
    inked = np.full((64, 64, 3), ivory, np.uint8)
    for y in range(16, 50, 6):  # a brushed character's strokes across the face, blurred
        cv2.line(inked, (12, y), (52, y + 2), (170, 90, 30), 5)
    cv2.line(inked, (32, 10), (32, 54), (170, 90, 30), 6)
    inked = cv2.GaussianBlur(inked, (0, 0), 2.5)
    plain = np.full((64, 64, 3), ivory, np.uint8)
    assert centre_ink(framed) == 0.0 and centre_ink(plain) == 0.0 and centre_ink(inked) > 0.75

    n = len(CLASSIFIER_CODES)
    probs = np.full((3, n), 0.02 / (n - 2), np.float32)
    probs[:, CLASS_INDEX["P"]] = 0.78
    probs[:, CLASS_INDEX["W"]] = 0.20
    out = not_blank_where_inked(probs, [inked, framed, plain])
    assert CLASSIFIER_CODES[int(out[0].argmax())] == "W" and out[0, CLASS_INDEX["P"]] < 0.05
    assert np.allclose(out[1:], probs[1:])
    assert np.allclose(out.sum(1), 1.0, atol=1e-5)


def test_a_west_wind_in_dim_light_is_not_blank_and_a_white_dragon_cut_off_centre_stays_blank(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Held out, handheld and dim: a West wind in dim light read as the blank dragon, its strokes too thin for the
    middle 40 % of the face to look inked (0.5 of it), though they cross the face's core; a framed white dragon
    cut off its tile's centre (the crop shifted, so the frame's inner edge runs through the middle 40 %) has a
    blank core. The core decides: the West loses its blank reading, the dragon keeps it, and so does a box over
    dark cloth (no ivory face to measure ink on)."""
    import cv2

    import vision.crops as crops
    from vision.classify import not_blank_where_inked
    from vision.crops import centre_ink

    ivory, ink = (200, 225, 235), (170, 90, 30)
    west = np.full((64, 64, 3), ivory, np.uint8)
    cv2.line(west, (14, 14), (50, 14), ink, 3)  # the top bar, the box and the two strokes of the character
    cv2.rectangle(west, (18, 22), (46, 50), ink, 3)
    cv2.line(west, (28, 14), (28, 36), ink, 3)
    cv2.line(west, (36, 14), (36, 36), ink, 3)
    west = np.clip(cv2.GaussianBlur(west, (0, 0), 1.5).astype(np.float32) * 0.5 + 10, 0, 255).astype(np.uint8)
    shifted = np.full((64, 64, 3), ivory, np.uint8)
    cv2.rectangle(shifted, (23, 8), (70, 56), ink, 4)  # the frame's left side at 36 % of the crop
    assert centre_ink(west) > 0.8 and centre_ink(shifted) == 0.0
    with monkeypatch.context() as m:  # the middle 40 %, as before: the West too little inked, the shifted frame inked
        m.setattr(crops, "INK_CORE", 0.4)
        assert centre_ink(west) < 0.55 and centre_ink(shifted) > 0.0

    # a box over dark cloth (composed rot90 hand 16: read blank, its "ink" the cloth's weave): no face, no ink
    cloth = np.random.default_rng(0).normal(60, 25, (64, 64, 3)).clip(0, 255).astype(np.uint8)
    assert centre_ink(cloth) == 0.0

    n = len(CLASSIFIER_CODES)
    probs = np.full((3, n), 0.02 / (n - 2), np.float32)
    probs[:, CLASS_INDEX["P"]] = 0.78
    probs[:, CLASS_INDEX["W"]] = 0.20
    out = not_blank_where_inked(probs, [west, shifted, cloth])
    assert CLASSIFIER_CODES[int(out[0].argmax())] == "W"
    assert np.allclose(out[1:], probs[1:])


def test_a_west_whose_strokes_cross_a_third_of_the_core_loses_a_sure_blank_reading_a_shaded_dragon_keeps_it() -> None:
    """Held-out motion15 hands 22, 39 and 42 (seed 5): a West smeared by motion blur, read as the blank dragon at
    0.95-0.97 with the West second, its core 0.35-0.44 inked (the crop lifted to a lit face's ivory). A third of
    the core inked now moves most of a sure blank reading to the West. A framed white dragon whose inside is one
    even shade off the ivory (a `valid` photo's: 0.42 of its core off the ivory) has no ink and stays blank."""
    import cv2

    from vision.classify import not_blank_where_inked
    from vision.crops import centre_ink

    ivory, ink = (200, 225, 235), (170, 90, 30)
    west = np.full((64, 64, 3), ivory, np.uint8)
    for x in range(14, 52, 8):  # strokes across the face, a third of its core
        cv2.line(west, (x, 12), (x, 52), ink, 2)
    shaded = np.full((64, 64, 3), ivory, np.uint8)
    shaded[14:50, 14:50] = (175, 195, 205)  # the frame's inside in the frame's shadow
    cv2.rectangle(shaded, (10, 10), (53, 53), ink, 3)
    assert 0.3 < centre_ink(west) < 0.4 and centre_ink(shaded) == 0.0

    n = len(CLASSIFIER_CODES)
    probs = np.full((2, n), 0.005 / (n - 2), np.float32)
    probs[:, CLASS_INDEX["P"]] = 0.97
    probs[:, CLASS_INDEX["W"]] = 0.025
    out = not_blank_where_inked(probs, [west, shaded])
    assert CLASSIFIER_CODES[int(out[0].argmax())] == "W"
    assert np.allclose(out[1], probs[1])


def test_a_meld_with_a_squat_tile_taken_for_sideways_names_its_feeder_by_the_widest():
    """Composed handheld hand 16 (seed 1): a phone pitched 20-35 degrees makes standing tiles squat, and the first
    tile of a pung is taken for sideways as well as its middle one. A claimed meld shows one sideways tile: the
    one lying widest for its height, the middle one, names the feeder (opposite, not left)."""
    b1, c1 = row(["1m", "2m", "3m", "4s", "5s", "6s", "2p", "3p", "9m", "9m"], 0)
    b2, c2 = row(["4p"], 460)
    b3, c3 = row(["7p", "7p", "7p"], 560, sideways={1})
    det = dets(b1 + b2 + b3, c1 + c2 + c3)
    det.sideways[11] = True  # the pung's first tile, standing, read as lying sideways
    lay = analyse(det, "nanning")
    melds = [(g.meld_type, g.tiles, g.feeder) for g in lay.groups if g.kind == "meld"]
    assert melds == [("pung", [11, 12, 13], "opposite")]


def test_two_melds_laid_edge_to_edge_are_two_melds():
    """Held-out pitch45 hand 0: a pung of 8s and one of 5s, each with a sideways tile, lie with no gap between them
    (a phone pitched steeply closes it). Two sideways tiles in one group are two melds: cut where each has one."""
    b1, c1 = row(["7m", "9m", "9m", "9m", "2p", "3p", "4p"], 0)
    b2, c2 = row(["7m"], 330)
    b3, c3 = row(["8s", "8s", "8s", "5s", "5s", "5s"], 420, sideways={1, 3})
    lay = analyse(dets(b1 + b2 + b3, c1 + c2 + c3), "nanning")
    melds = [g for g in lay.groups if g.kind == "meld"]
    assert [(g.meld_type, [c3[t - 8] for t in g.tiles], g.feeder) for g in melds] == [
        ("pung", ["8s"] * 3, "opposite"), ("pung", ["5s"] * 3, "left")]
    assert [g.tiles for g in lay.groups if g.kind == "winning_tile"] == [[7]]


def test_a_meld_cut_after_its_first_tile_takes_it_back_from_the_left():
    """Held-out pitch45 hand 23: a pung's first tile boxed narrow leaves a gap of a sixth of a tile before the rest
    (two tiles, the sideways one last), and a wider gap lies before that first tile. The group of two takes the
    tile on its left (the gap between them is what counts, not the one before it), and the hand is right."""
    b1, c1 = row(["5p", "6p", "7p", "2p"], 0)
    b2, c2 = row(["2p"], 200)
    b3, c3 = row(["1m", "1m", "1m"], 280, sideways={0})
    b4, c4 = row(["5s"], 280 + 56 + 1 + 40 + 1 + 40 + 28)
    b5, c5 = row(["5s", "5s"], b4[0][2] + 10, sideways={1})
    b6, c6 = row(["7s", "7s", "7s"], b5[-1][2] + 17, sideways={2})
    lay = analyse(dets(b1 + b2 + b3 + b4 + b5 + b6, c1 + c2 + c3 + c4 + c5 + c6), "nanjing")
    melds = [(g.meld_type, g.tiles, g.feeder) for g in lay.groups if g.kind == "meld"]
    assert melds == [("pung", [5, 6, 7], "left"), ("pung", [8, 9, 10], "right"), ("pung", [11, 12, 13], "right")]
    assert [g.tiles for g in lay.groups if g.kind == "winning_tile"] == [[4]]


def test_a_meld_with_a_tile_cut_off_by_a_narrow_gap_is_one_meld():
    """Held-out pitch45 hand 35: the middle tile of a pung boxed narrow opens a gap before its last tile; a group of
    two with a sideways tile is no meld, so it takes the tile beside it (a gap under half a tile) that makes one."""
    b1, c1 = row(["4m", "6m", "7m", "8m", "3s", "4s", "5s"], 0)
    b2, c2 = row(["4m"], 330)
    b3, c3 = row(["6s", "6s", "6s"], 420, sideways={0}, gap_after={1: 12})
    b4, c4 = row(["W", "W", "W"], 420 + 56 + 40 + 12 + 40 + 30, sideways={0})
    lay = analyse(dets(b1 + b2 + b3 + b4, c1 + c2 + c3 + c4), "nanjing")
    melds = [(g.meld_type, g.tiles) for g in lay.groups if g.kind == "meld"]
    assert melds == [("pung", [8, 9, 10]), ("pung", [11, 12, 13])]
    assert [g.tiles for g in lay.groups if g.kind == "winning_tile"] == [[7]]
    far = row(["6s", "6s", "6s"], 420, sideways={0}, gap_after={1: 30})[0]  # (a gap of three quarters: apart)
    lay = analyse(dets(b1 + b2 + far + b4, c1 + c2 + c3 + c4), "nanjing")
    assert ("pung", [8, 9, 10]) not in [(g.meld_type, g.tiles) for g in lay.groups if g.kind == "meld"]


def test_a_plain_face_of_the_faces_ivory_is_a_blank_dragon_not_a_patch_of_table() -> None:
    """The "not a tile" veto spares a box read blank whose middle has the ivory of the photo's other faces (a
    blank white dragon in a tray), not a plain patch of another colour or lightness, nor one the class is sure
    of, and nothing without three faces to measure the ivory on."""
    import cv2

    from vision.classify import blank_faces

    ivory, ink = (200, 225, 235), (170, 90, 30)
    face = np.full((64, 64, 3), ivory, np.uint8)
    cv2.line(face, (32, 12), (32, 52), ink, 6)
    plain = np.full((64, 64, 3), ivory, np.uint8)
    wood = np.full((64, 64, 3), (120, 160, 190), np.uint8)  # a tan table: darker, yellower
    grey = np.full((64, 64, 3), (150, 150, 150), np.uint8)
    n = len(CLASSIFIER_CODES)
    probs = np.full((7, n), 0.01 / (n - 1), np.float32)
    probs[:3, CLASS_INDEX["W"]] = 0.99
    probs[3:, CLASS_INDEX["P"]] = 0.99
    crops = [face, face, face, plain, wood, grey, plain]
    not_tile = np.array([0.0, 0.1, 0.0, 0.6, 0.6, 0.6, 0.9], np.float32)
    assert blank_faces(probs, crops, not_tile, 0.5).tolist() == [False, False, False, True, False, False, False]
    assert not blank_faces(probs[2:], crops[2:], not_tile[2:], 0.5).any()  # one face: no ivory measured


def test_a_doubtful_box_on_its_own_is_dropped_and_one_in_a_row_is_kept() -> None:
    """A box the finder scores under 0.35 with nothing beside it (a dial of the table read as a 4 of bamboo at
    0.35) is no tile; the same score inside a row of tiles, or a sure box on its own (the winning tile set apart),
    stays."""
    from vision.detections import Detections, lone_doubts

    row = [(50 + 40 * k, 100, 90 + 40 * k, 156) for k in range(5)]
    boxes = row + [(600, 300, 640, 356), (500, 20, 540, 76)]
    scores = [0.9, 0.9, 0.32, 0.9, 0.9, 0.32, 0.8]  # a doubtful tile in the row; a lone doubt; a lone sure box
    det = Detections(np.array(boxes, np.float32), np.array(scores, np.float32))
    assert lone_doubts(det, 0.35).tolist() == [False] * 5 + [True, False]
    assert not lone_doubts(det, 0.0).any()


def test_a_dim_photo_is_lifted_with_its_tile_faces_brought_back_to_ivory(monkeypatch: pytest.MonkeyPatch) -> None:
    """A table shot in a third of the light: the gamma alone brings its mean up but leaves the faces grey; the
    levels above the mean are stretched until the brightest percent is a lit face's ivory again, so the faces
    stand out from the table as in a lit photo. A photo lit normally is returned as it is, and a dark table in
    good light is lifted by the gamma only (its faces are bright already)."""
    import vision.reader as reader
    from vision.reader import FACES_TO, brightened

    lit = np.full((300, 400, 3), (60, 110, 70), np.uint8)  # green cloth
    lit[100:160, 40:360] = (205, 225, 230)  # a row of ivory faces
    lit[120:140, 60:340:40] = (40, 40, 160)  # ink
    assert brightened(lit) is lit
    dim = np.clip(lit.astype(np.float32) * 0.35 + np.random.default_rng(0).normal(0, 3, lit.shape), 0, 255)
    out = cv2.cvtColor(brightened(dim.astype(np.uint8)), cv2.COLOR_BGR2GRAY).astype(np.float32)
    faces, cloth = np.median(out[100:120, 40:360]), np.median(out[200:, :])
    assert abs(faces - FACES_TO) <= 12
    assert 60 <= cloth <= 140 and faces - cloth >= 100

    dark_table = lit.copy()
    dark_table[lit[..., 0] == 60] = (25, 30, 25)  # near-black cloth: the mean is low, the faces are not
    dark_table[100:160, 40:360] = (170, 185, 190)  # off-white faces in shade: lifted to 220, not stretched
    dark_table[120:140, 60:340:40] = (40, 40, 160)
    lifted = brightened(dark_table)
    assert lifted is not dark_table
    monkeypatch.setattr(reader, "FACES_DIM", 0.0)  # the gamma alone
    assert np.array_equal(lifted, brightened(dark_table))


def test_a_farther_row_of_a_pitched_hand_is_the_hands_though_smaller():
    """Held-out pitch45 (seed 1) hand 10: the concealed tiles in a row farther off, the melds nearer the camera.
    Seen pitched, every tile squat (about as tall as wide), the farther row's tiles are 0.72 of the nearer's: both
    rows are the hand. In a photo shot from above (tiles a third taller than wide) a row that much smaller lies
    elsewhere on the table and is left out."""
    from vision.layout import apart_from_hand

    def table(tall: float) -> Detections:
        far, fc = row(["8m", "8m", "8p", "8p", "N", "N", "N", "8m"], 100, y=100, w=36, h=36 * tall,
                      gap_after={6: 20})
        near, nc = row(["S", "S", "S", "S", "5m", "5m", "5m", "5m"], 60, y=100 + 36 * tall + 20, w=50, h=50 * tall,
                       gap_after={3: 25})
        return dets(far + near, fc + nc)

    assert apart_from_hand(table(1.1)) == []
    assert apart_from_hand(table(1.35)) == list(range(8))


def test_a_concealed_kong_with_a_gap_inside_it_is_still_a_concealed_kong():
    # held-out handheld hand 32 (seed 0): a box drawn narrow opened a gap between the kong's two faces, the row's
    # groups were [back, 6s] [6s, back], and both backs were read as faces, stray
    b1, c1 = row(["2m", "3m", "4m", "5s", "6s", "7s", "9p", "9p", "9p", "E"], 0)
    b2, c2 = row(["E"], 460)
    b3, c3 = row(["back", "6s", "6s", "back"], 560, gap_after={1: 12})
    det = dets(b1 + b2 + b3, c1 + c2 + c3)
    reading = interpret(det, "nanjing", winner=0)
    assert reading.hand is not None
    assert reading.hand["melds"] == [{"type": "kong_concealed", "tiles": ["6s"] * 4, "from": None}]
    assert reading.hand["concealed"] == c1 and reading.hand["winning_tile"] == "E"


def test_a_concealed_kong_touching_a_meld_is_cut_out_of_it():
    # held-out pitch45 hand 2 (seed 1): a concealed kong laid edge to edge with a pung's sideways tile made one
    # group of five; both backs were taken for stray tiles and the hand was read as concealed tiles only
    b1, c1 = row(["1m", "2m", "3m", "4s", "5s", "6s", "9m"], 0)
    b2, c2 = row(["9m"], 340)
    b3, c3 = row(["back", "6m", "6m", "back", "7s", "7s", "7s"], 420, sideways={4})
    det = dets(b1 + b2 + b3, c1 + c2 + c3)
    reading = interpret(det, "nanjing", winner=0)
    assert reading.hand is not None
    assert sorted((m["type"], m["tiles"][0]) for m in reading.hand["melds"]) == [("kong_concealed", "6m"),
                                                                                  ("pung", "7s")]
    assert reading.hand["winning_tile"] == "9m"


def test_the_winning_tile_touching_an_exposed_kong_is_cut_off_it():
    # held-out pitch45 hand 2 (seed 1): the winning tile lay against a kong of East winds, one group of five
    b1, c1 = row(["1m", "2m", "3m", "4s", "5s", "6s", "2p", "3p", "4p", "9m"], 0)
    b2, c2 = row(["9m", "E", "E", "E", "E"], 460, sideways={2}, gap_after={0: 4})
    det = dets(b1 + b2, c1 + c2)
    reading = interpret(det, "nanjing", winner=0)
    assert reading.hand is not None
    assert reading.hand["melds"] == [{"type": "kong_exposed", "tiles": ["E"] * 4, "from": 2}]
    assert reading.hand["winning_tile"] == "9m" and reading.hand["concealed"] == c1


def test_the_photo_evaluation_names_a_missing_folder_in_one_line(tmp_path: Path) -> None:
    """``evaluation.photos --images`` given a path that is no folder (``../shared`` from another working folder)
    stops with one line naming the path, not a traceback."""
    from evaluation.photos import photo_files

    with pytest.raises(SystemExit, match="no folder of photos at .*nowhere"):
        photo_files(tmp_path / "nowhere")


def test_a_photo_whose_faces_are_right_but_boxes_not_counts_among_the_faces_right_only() -> None:
    """``evaluation.photos``: a reading naming each labelled tile as often and nothing more has its faces right,
    whatever its boxes (a tile at a slant boxed whole where the labeller drew a tighter box); a face missed, one
    too many or one misnamed has not."""
    from evaluation.photos import faces_right

    assert faces_right(["1m", "1m", "P"], ["P", "1m", "1m"])
    assert not faces_right(["1m", "1m", "P"], ["1m", "P"])
    assert not faces_right(["1m", "P"], ["1m", "P", "P"])
    assert not faces_right(["9m", "P"], ["5m", "P"])
