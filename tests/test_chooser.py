"""The rule-aware hand chooser: other players' melds in line with the hand are left out, reported as on the table;
and the correction never drops the winning tile to make a hand fit."""

from __future__ import annotations

import numpy as np
import pytest

from evaluation.hands import normal
from tests.helpers import SHARED
from tests.test_vision_units import dets, row
from vision.chooser import end_cuts
from vision.classes import CLASS_INDEX
from vision.correction import correct
from vision.layout import analyse
from vision.pipeline import interpret

HAND = ["1m", "2m", "3m", "4s", "5s", "6s", "2p", "3p", "9m", "9m"]  # + 4p apart, + a 7p pung fed by the left


def table(left: list[str] | None, right: list[str] | None) -> tuple:
    """The hand of HAND with another player's pung beside it on the left and/or the right (a sideways tile)."""
    boxes, codes = [], []
    if left:
        b, c = row(left, -200, sideways={1})
        boxes += b
        codes += c
    for part in (row(HAND, 0), row(["4p"], 460), row(["7p", "7p", "7p"], 560, sideways={0})):
        boxes += part[0]
        codes += part[1]
    if right:
        b, c = row(right, 740, sideways={2})
        boxes += b
        codes += c
    return dets(boxes, codes), codes


TRUTH = {"concealed": HAND, "winning_tile": "4p", "flowers": [],
         "melds": [{"type": "pung", "tiles": ["7p"] * 3, "from": 3}]}


@pytest.mark.parametrize("left, right", [(["E", "E", "E"], None), (None, ["5m", "5m", "5m"]),
                                         (["E", "E", "E"], ["8s", "8s", "8s", "8s"])])
def test_a_neighbours_pung_on_each_side_is_left_out_and_reported(left, right):
    det, codes = table(left, right)
    r = interpret(det, "nanning", True, 0)
    assert normal(r.hand) == normal(TRUTH)
    theirs = [i for i, c in enumerate(codes) if i < (3 if left else 0) or i >= len(codes) - (len(right or []))]
    assert sorted(r.layout.apart) == theirs  # on the table, out of every group
    grouped = {t for g in r.layout.groups for t in g.tiles}
    assert not grouped & set(theirs)
    said = [w for w in r.warnings if "beside the hand" in w]
    assert said and said[0].startswith(f"{len(theirs)} tile(s)")
    assert r.to_json()["tiles"][theirs[0]]["group"] == -1


def test_a_hand_that_is_legal_as_laid_out_is_left_as_it_is():
    det, _ = table(None, None)
    r = interpret(det, "nanning", True, 0)
    assert normal(r.hand) == normal(TRUTH) and r.layout.apart == [] and not any("beside" in w for w in r.warnings)


def test_the_cuts_take_whole_groups_from_the_ends_of_the_row():
    det, codes = table(["E", "E", "E"], ["5m", "5m", "5m"])
    n = len(codes)
    groups = [{0, 1, 2}, set(range(3, 13)), {13}, {14, 15, 16}, {17, 18, 19}]  # as the row lies, left to right
    assert n == 20
    cuts = [out for out, _ in end_cuts(det, list(range(n)))]
    ends = [set().union(*groups[:a], *groups[len(groups) - b:]) for a in range(3) for b in range(3) if a or b]
    assert sorted(map(sorted, cuts)) == sorted(map(sorted, ends))  # at most two groups at each end, nothing else


def test_the_correction_never_drops_the_winning_tile():
    # one tile too many in the concealed row, and the winning tile the least sure: a tile of the row goes instead
    b1, c1 = row(["1m", "2m", "3m", "4s", "5s", "6s", "2p", "3p", "9m", "9m", "9m"], 0)
    b2, c2 = row(["4p"], 500)
    b3, c3 = row(["7p", "7p", "7p"], 600, sideways={0})
    det = dets(b1 + b2 + b3, c1 + c2 + c3)
    det.confidence[len(c1)] = 0.2  # the winning tile's box is the least sure
    layout = analyse(det, "nanning")
    codes, corrections, warn = correct(det, layout, "nanning", True)
    assert not warn and codes[len(c1)] == "4p"  # the winning tile stays
    assert [c.to_code for c in corrections].count("remove") == 1 and codes.count("remove") == 1


@pytest.mark.skipif(not (SHARED / "data" / "chinese-mahjong-rf" / "valid").exists(), reason="shared data absent")
def test_composed_photos_with_neighbours_melds_read_the_hand():
    """Three hands composed from `valid` crops with other players' melds beside them (evaluation.scenes), read by
    the shipped models: each hand exactly, the melds on the table."""
    from evaluation.hands import composed_cases
    from training.data import load_split
    from training.synth import CropBank
    from vision.pipeline import read_image
    from vision.reader import TileReader

    bank = CropBank.build(load_split("valid")[:150], seed=0)
    reader = TileReader()
    right = 0
    for _, ruleset, hand, winner, img, _placed in composed_cases(bank, 3, 2, "neighbours"):
        r = read_image(img, reader, ruleset, True, winner)
        right += normal(r.hand) == normal(hand)
        assert r.layout.apart  # the other players' tiles are on the table, not in the hand
    assert right == 3


def test_tiles_on_the_table_are_drawn_dimmed_in_grey():
    from webapp.draw import ON_TABLE, annotate

    img = np.zeros((100, 200, 3), np.uint8)
    img[:] = (20, 200, 20)
    out = annotate(img, [{"box": [10, 10, 60, 80], "number": 1}, {"box": [120, 10, 170, 80], "on_table": True}])
    bgr = out[..., ::-1]
    assert tuple(int(v) for v in bgr[11, 165]) == ON_TABLE  # the grey box
    inside = bgr[45, 145].astype(int)
    assert abs(inside[0] - inside[1]) < 180 / 2  # the green table under it greyed: half its colour or less
    assert tuple(int(v) for v in bgr[45, 40]) == (20, 200, 20)  # a tile of the hand as it is


def test_the_hand_is_another_row_when_larger_discards_are_no_legal_hand():
    """Discards lying at a slant above the hand have larger boxes than its tiles, so the layout takes their row
    for the hand; no reading of it is a legal win, so the row that is one (nearest the camera) is the hand, and
    the discards are on the table (issue 39's discards: 9 of 11 failures at seed 0 were this or the like)."""
    discards = ["1s", "9p", "E", "3m", "7s", "N", "2p"]
    boxes, codes = row(list(discards), 0, y=0, w=52, h=60, gap_after={i: 14 for i in range(7)})
    for part in (row(HAND, 0, y=200), row(["4p"], 460, y=200), row(["7p", "7p", "7p"], 560, y=200, sideways={0})):
        boxes += part[0]
        codes += part[1]
    det = dets(boxes, codes)
    r = interpret(det, "nanning", True, 0)
    assert normal(r.hand) == normal(TRUTH)
    assert sorted(r.layout.apart) == list(range(len(discards)))
    assert any("lie away from the hand" in w for w in r.warnings)


def test_a_neighbours_pung_beyond_the_flowers_is_left_out_not_the_hands_pung_before_them():
    """The hand's flowers lie at its end: a pung between the hand and its flowers is the hand's, and another
    player's pung lies beyond them, whichever gap the finder's boxes make a little wider."""
    boxes, codes = [], []
    for part in (row(["4m", "4m", "4m"], -190, sideways={1}),  # the neighbour's, left of the hand
                 row(HAND, 0), row(["4p"], 460), row(["7p", "7p", "7p"], 540, sideways={0}),
                 row(["f1", "f2"], 720)):
        boxes += part[0]
        codes += part[1]
    det = dets(boxes, codes)
    cuts = {frozenset(out): cut for out, cut in end_cuts(det, list(range(len(codes))), frozenset({"f1", "f2"}))}
    pung = frozenset(i for i, c in enumerate(codes) if c == "7p")
    left = frozenset(range(3))
    flowers = {i for i, c in enumerate(codes) if c.startswith("f")}
    # the cut that takes the hand's pung (with the flowers beyond it, which stay) counts against it
    assert cuts[pung | flowers] < cuts[left]
    r = interpret(det, "nanning-fan", True, 0)
    assert sorted(r.layout.apart) == [0, 1, 2]
    assert [g for g in r.layout.groups if g.kind == "meld"][0].tiles == sorted(pung)


def test_the_hands_second_row_of_melds_stays_whatever_lies_beside_the_hand():
    """The hand's melds in a second row nearer the camera, another player's kongs in line with the concealed row
    on both sides a little apart: leaving out the second row would also make a legal hand (with the kongs as
    melds, fewer tiles out), but the row laid out under the hand is the hand's (found on a composed table)."""
    b, c = row(["E", "E", "E", "E"], -199, sideways={1})  # theirs, 0.5 tile widths from the hand
    b2, c2 = row(["1m", "1m", "1m", "1m", "2m", "3p", "3p"], 0)
    b3, c3 = row(["3m"], 320)
    b4, c4 = row(["1s", "1s", "1s", "1s"], 400)  # theirs, 1 tile width beyond the winning tile
    b5, c5 = row(["2p", "2p", "2p"], 0, y=170, sideways={0})
    b6, c6 = row(["6s", "6s", "6s"], 180, y=170, sideways={2})
    det = dets(b + b2 + b3 + b4 + b5 + b6, c + c2 + c3 + c4 + c5 + c6)
    r = interpret(det, "nanning", True, 0)
    truth = {"concealed": c2, "winning_tile": "3m", "flowers": [],
             "melds": [{"type": "pung", "tiles": ["2p"] * 3, "from": 3}, {"type": "pung", "tiles": ["6s"] * 3,
                                                                          "from": 1}]}
    assert normal(r.hand) == normal(truth)
    assert sorted(r.layout.apart) == [0, 1, 2, 3, 12, 13, 14, 15]


def test_the_players_choice_of_the_hands_tiles_is_kept_over_the_chooser():
    """The page's taps: tiles the player takes into the hand stay in it though no legal win results (the warning
    says so), and tiles the player puts out stay on the table; the reader's own choice needs no hand given."""
    det, codes = table(["E", "E", "E"], None)
    assert interpret(det, "nanning", True, 0).layout.apart == [0, 1, 2]
    taken = interpret(det, "nanning", True, 0, hand_tiles=list(range(len(codes))))
    assert taken.layout.apart == [] and {"type": "pung", "tiles": ["E"] * 3} in \
        [{k: m[k] for k in ("type", "tiles")} for m in taken.hand["melds"]]
    assert any("winning hand" in w for w in taken.warnings)
    out = interpret(det, "nanning", True, 0, hand_tiles=list(range(3, len(codes) - 3)))  # the 7p pung put out too
    assert out.layout.apart == [0, 1, 2, len(codes) - 3, len(codes) - 2, len(codes) - 1]
    assert out.hand["melds"] == [] and any(w.startswith("6 tile(s) on the table") for w in out.warnings)
    nothing = interpret(det, "nanning", True, 0, hand_tiles=[])  # every group put out: no hand, and no false reason
    assert nothing.hand is None and nothing.layout.apart == list(range(len(codes)))
    assert not any("face down" in w for w in nothing.warnings)


def test_a_flower_read_among_a_neighbours_meld_leaves_the_hand_with_its_meld():
    """Held-out neighbours hand 50: another player's pung beside the hand with one of its tiles read as a flower.
    The layout moves that flower out of its group to the flowers; when the chooser leaves the pung out as on the
    table, the flower goes with it: it is not the hand's (Nanjing counts flowers, so it would score)."""
    det, codes = table(["E", "E", "E"], None)
    det.probs[1] = 0.001
    det.probs[1, CLASS_INDEX["f6"]], det.probs[1, CLASS_INDEX["E"]] = 0.8, 0.2
    r = interpret(det, "nanjing", True, 0)
    assert r.hand is not None and r.hand["flowers"] == [] and normal(r.hand) == normal(TRUTH)
    assert sorted(r.layout.apart) == [0, 1, 2]


def test_rows_of_discards_just_above_the_hand_are_left_out_whole():
    """Held-out discards hand 42: discards lie in two rows just above the hand, each apart from the next, too near
    to be set apart as another part of the table. Leaving out fewer of them never makes a winning hand, and there
    are many such ways (none of the first 30 holds a winning hand's tile count); the chooser lays out every way
    (cheap) and searches only those that do, so it still reaches both rows left out whole."""
    from scoring import RULESETS
    from vision.chooser import choose_hand
    from vision.layout import sub_layout

    hand, codes = table(None, None)
    near, far = ["E", "S", "W", "N", "C"], ["1s", "9s", "1p", "9p", "5m"]
    b1, _ = row(near, 0, y=20, gap_after={k: 60 for k in range(5)})
    b2, _ = row(far, 30, y=-60, gap_after={k: 70 for k in range(5)})
    det = dets([tuple(x) for x in hand.xyxy.tolist()] + b1 + b2, codes + near + far)
    chosen = choose_hand(det, sub_layout(det, list(range(len(det))), "nanning"), RULESETS["nanning"])
    assert chosen is not None
    assert sorted(chosen[0].apart) == list(range(14, 24))
    assert sorted(t for g in chosen[0].groups for t in g.tiles) == list(range(14))


def test_a_kong_is_kept_over_another_players_pung_lying_as_far_from_the_hand():
    """Composed neighbours hand 12 (seed 1): another player's pung lies half a tile left of the hand, its concealed
    kong half a tile and a pixel right of its winning tile. Without either the rest is a winning hand; gaps a
    pixel apart are no evidence, so the cut leaving out fewer tiles wins: the pung is on the table."""
    b1, c1 = row(["E", "E", "E"], -20 - (40 + 1 + 56 + 1 + 40), sideways={1})  # (ends half a tile before the hand)
    b2, c2 = row(HAND, 0)
    b3, c3 = row(["4p"], 440)
    b4, c4 = row(["back", "8p", "8p", "back"], 440 + 40 + 21)
    det = dets(b1 + b2 + b3 + b4, c1 + c2 + c3 + c4)
    r = interpret(det, "nanning", True, 0)
    assert normal(r.hand) == normal({"concealed": HAND, "winning_tile": "4p", "flowers": [],
                                     "melds": [{"type": "kong_concealed", "tiles": ["8p"] * 4, "from": None}]})
    assert sorted(r.layout.apart) == [0, 1, 2]


def test_another_players_chow_is_never_taken_into_a_hand_of_a_ruleset_without_chows():
    """Held-out neighbours hand 47 (seed 6): another player's chow lies a third of a tile left of a Nanjing hand,
    another's kong right of it. Leaving out the kong and the hand's own last pung makes a hand of as many tiles as
    leaving out the chow and the kong, through gaps as narrow; but Nanjing has no chow, so a hand holding one is no
    legal hand, and the hand keeps its pung."""
    x = -14 - (40 + 1 + 40 + 1 + 56)
    parts = [row(["2p", "3p", "4p"], x, sideways={2}), row(["2m", "3m", "4m", "3s"], 0), row(["3s"], 161 + 30),
             row(["2m", "2m", "2m"], 191 + 40 + 15, sideways={1}), row(["back", "6p", "6p", "back"], 246 + 138 + 20),
             row(["5s", "5s", "5s"], 404 + 163 + 20, sideways={0}), row(["7s"] * 4, 587 + 138 + 20, sideways={2})]
    det = dets([b for p in parts for b in p[0]], [c for p in parts for c in p[1]])
    r = interpret(det, "nanjing", True, 0)
    assert normal(r.hand) == normal({"concealed": ["2m", "3m", "4m", "3s"], "winning_tile": "3s", "flowers": [],
                                     "melds": [{"type": "pung", "tiles": ["2m"] * 3, "from": 2},
                                               {"type": "kong_concealed", "tiles": ["6p"] * 4, "from": None},
                                               {"type": "pung", "tiles": ["5s"] * 3, "from": 3}]})
    assert sorted(r.layout.apart) == [0, 1, 2] + list(range(18, 22))
