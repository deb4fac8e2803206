"""Tiles read as flowers where a flower cannot be (issue 39: the held-out design's 1 of bamboo, a bird, is read as
a plant): named as the ruleset's faces only when the reading as it stands makes no legal win, always flagged."""

from __future__ import annotations

from scoring import RULESETS
from vision.classes import CLASS_INDEX
from vision.pipeline import interpret

from .test_vision_units import dets, row

HAND = ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "1s", "1s", "1s", "9p"]


def misread(codes: list[str], tiles: list[int], flower: str, face: str, p_face: float = 0.3):
    """The hand's row and its winning tile apart, where ``tiles`` were read as ``flower`` with ``face`` second."""
    b1, _ = row(codes, 0)
    b2, _ = row(["9p"], 700)
    shown = [flower if i in tiles else c for i, c in enumerate(codes)]
    det = dets(b1 + b2, shown + ["9p"])
    for i in tiles:
        det.probs[i] = 0.001
        det.probs[i, CLASS_INDEX[flower]] = 1 - p_face
        det.probs[i, CLASS_INDEX[face]] = p_face
    return det


def test_a_tile_read_as_a_flower_in_nanning_is_read_as_its_face_and_flagged():
    """Nanning's set holds no flowers: a 1s of a pung read as f8 leaves no legal win; as 1s it makes one."""
    seen = misread(HAND, [11], "f8", "1s")
    reading = interpret(seen, "nanning", winner=0)
    assert reading.hand is not None and sorted(reading.hand["concealed"]) == sorted(HAND)
    assert reading.hand["flowers"] == [] and reading.set_aside == []
    fixed = [c for c in reading.corrections if c.from_code == "f8"]
    assert [(c.tile, c.to_code) for c in fixed] == [(11, "1s")]
    assert "played without flowers" in fixed[0].reason and "legal win" in fixed[0].reason
    assert 11 in reading.doubts  # always shown as a doubt: the player checks it
    assert seen.codes[11] == "f8"  # what the photo showed is not changed


def test_a_flower_among_the_faces_in_nanjing_is_a_face_but_flowers_apart_stay_flowers():
    """Nanjing has flowers, and a player sets them apart: the one read among the hand's faces is re-read, the two
    lying apart stay flowers."""
    seen = misread(HAND, [10], "f2", "1s")
    b3, c3 = row(["f5", "f6"], 0, y=300)
    both = dets(list(seen.xyxy) + b3, seen.codes + c3)
    both.probs[:len(seen)] = seen.probs
    reading = interpret(both, "nanjing", winner=0)
    assert reading.hand is not None and sorted(reading.hand["concealed"]) == sorted(HAND)
    assert sorted(reading.hand["flowers"]) == ["f5", "f6"]
    assert [(c.tile, c.from_code, c.to_code) for c in reading.corrections if c.from_code == "f2"] == [(10, "f2", "1s")]
    assert "sets flowers apart" in next(c.reason for c in reading.corrections if c.from_code == "f2")


def test_flowers_stay_flowers_where_naming_them_faces_makes_no_legal_win():
    """The re-reading is only taken when it is a legal win: otherwise the reading, its flowers and its warning stay."""
    orphans = ["1m", "4m", "7m", "1p", "4p", "7p", "1s", "4s", "7s", "E", "S", "W", "N"]
    seen = misread(orphans, [6], "f8", "1s")  # (no legal win within three changes, whatever the flower is)
    reading = interpret(seen, "nanning", winner=0)
    assert reading.set_aside == ["f8"] and not any(c.from_code == "f8" for c in reading.corrections)
    assert any("no reading" in w for w in reading.warnings)


def test_a_legal_hand_keeps_its_flowers_as_read():
    """A legal win as read is never second-guessed: its flowers lying apart are set aside in Nanning."""
    b1, c1 = row(HAND, 0)
    b2, c2 = row(["9p"], 700)
    b3, c3 = row(["f1"], 0, y=300)
    reading = interpret(dets(b1 + b2 + b3, c1 + c2 + c3), "nanning", winner=0)
    assert reading.set_aside == ["f1"] and not any(c.from_code == "f1" for c in reading.corrections)


def test_a_kongs_tile_read_as_a_flower_in_nanning_is_its_face_though_the_rest_is_a_legal_win():
    """Held-out motion15 hand 27: a kong of 1s whose sideways tile is read as f8 (1s second). As read, the flower
    is moved out of the meld and the rest (a pung) is a legal win too, but Nanning's set holds no flowers: a
    flower lying among faces is a misread face, and as 1s the kong makes a legal win, so that is the reading."""
    concealed = ["2m", "3m", "4m", "7m", "7m", "8p", "8p", "8p", "W", "W"]
    b1, c1 = row(concealed, 0)
    b2, _ = row(["W"], 460)
    b3, _ = row(["1s", "1s", "1s", "1s"], 560, sideways={3})
    seen = dets(b1 + b2 + b3, c1 + ["W", "1s", "1s", "1s", "f8"])
    seen.probs[14] = 0.001
    seen.probs[14, CLASS_INDEX["f8"]], seen.probs[14, CLASS_INDEX["1s"]] = 0.7, 0.2
    reading = interpret(seen, "nanning", winner=0)
    assert reading.hand is not None and reading.set_aside == []
    assert reading.hand["melds"][0]["tiles"] == ["1s"] * 4
    assert [(c.tile, c.from_code, c.to_code) for c in reading.corrections if c.from_code == "f8"] == [(14, "f8", "1s")]
    assert 14 in reading.doubts
    nanjing = interpret(seen, "nanjing", winner=0)  # Nanjing's set has flowers: with a legal win as read, the
    assert nanjing.hand is not None and nanjing.hand["flowers"] == ["f8"]  # flower stays one (moved to the flowers)


def test_a_face_lying_with_the_flowers_is_set_aside_with_the_true_reason():
    """Held-out handheld hand 35 (Nanjing, whose dragons are flowers): a pung of West read as a blank dragon, a 1p
    and a West lies with the flowers; the two faces are set aside, and the warning says they are no flower of
    Nanjing, not that Nanjing is played without flowers (it is not)."""
    from vision.pipeline import set_aside

    hand = {"flowers": ["P", "1p", "W"]}
    warnings: list[str] = []
    assert set_aside(hand, RULESETS["nanjing"], warnings) == ["1p", "W"]
    assert hand["flowers"] == ["P"]
    assert warnings == ["2 tile(s) lying with the flowers are no flower of nanjing (1p W): set aside; check them"]
    hand, warnings = {"flowers": ["f1"]}, []
    assert set_aside(hand, RULESETS["nanning"], warnings) == ["f1"] and "played without flowers" in warnings[0]


def test_the_winning_tile_apart_read_as_a_flower_is_read_as_its_face_where_no_face_lies_apart():
    """Held-out dim hand 11 (Nanjing): the winning 1s set apart, dim, is read as f8. As read, no face lies apart
    and the 13 tiles make no win; the lone flower is where the winning tile lies, and as its second face it makes a
    legal win: that is the reading, flagged with that reason."""
    b1, c1 = row(HAND, 0)
    b2, _ = row(["9p"], 700)
    seen = dets(b1 + b2, c1 + ["f8"])
    seen.probs[13] = 0.001
    seen.probs[13, CLASS_INDEX["f8"]], seen.probs[13, CLASS_INDEX["9p"]] = 0.7, 0.2
    reading = interpret(seen, "nanjing", winner=0)
    assert reading.hand is not None and reading.hand["winning_tile"] == "9p" and reading.hand["flowers"] == []
    fixed = [c for c in reading.corrections if c.from_code == "f8"]
    assert [(c.tile, c.to_code) for c in fixed] == [(13, "9p")] and "lies alone where the winning" in fixed[0].reason
    assert 13 in reading.doubts


def test_a_lone_flower_stays_a_flower_where_a_face_lies_apart_as_the_winning_tile():
    """A face set apart is the winning tile; a flower lying alone elsewhere is then a flower, even where the hand
    is a tile short (a tile missed): it is not made up into the missing tile."""
    b1, c1 = row(HAND[:-1], 100)
    b2, _ = row(["9p"], 700)
    b3, _ = row(["f8"], 0)
    seen = dets(b1 + b2 + b3, c1 + ["9p", "f8"])
    seen.probs[13] = 0.001
    seen.probs[13, CLASS_INDEX["f8"]], seen.probs[13, CLASS_INDEX["9p"]] = 0.7, 0.2
    reading = interpret(seen, "nanjing", winner=0)
    assert reading.hand is not None and reading.hand["flowers"] == ["f8"]
    assert not any(c.from_code == "f8" for c in reading.corrections)
