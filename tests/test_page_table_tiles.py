"""Issue 39: one tap moves a group of the photo's tiles into the hand or out of it. Another player's pung the
reader left on the table comes into the hand with one tap, a group of the hand goes out with one, the player's
fixes stay, undo and redo take a tap back and forth, and the recorded evidence keeps each move."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from evaluation.hands import normal
from tests.test_chooser import TRUTH, table
from tests.test_page_integrity import upload
from tests.test_page_undo import fix, pung_photo
from webapp.reading import codes_now


def tap(at: AppTest, key: str) -> None:
    at.button(key=key).click().run()
    assert not at.exception


def hand_now(at: AppTest) -> dict:
    tb = at.session_state["tab"]
    return normal(tb.reading.hand)


def test_a_neighbours_pung_left_on_the_table_comes_into_the_hand_with_one_tap_and_goes_back_with_undo(page) -> None:
    det, codes = table(["E", "E", "E"], None)  # the neighbour's E pung at the left of the hand
    at = page(det)
    upload(at)
    tb = at.session_state["tab"]
    assert tb.reading.layout.apart == [0, 1, 2] and hand_now(at) == normal(TRUTH)
    expander = next(e for e in at.expander if "on the table" in e.label)
    assert "3 on the table" in expander.label
    assert [b.key for b in expander.button if b.key.startswith("into")] == ["into0"]  # one group: one tap
    tap(at, "into0")
    tb = at.session_state["tab"]
    assert tb.reading.layout.apart == [] and tb.editor.hand_tiles == tuple(range(len(codes)))
    assert ["E", "E", "E"] in [m.tiles for m in tb.editor.hand.melds]  # the player's choice is the hand now
    assert any("17" in w or "winning hand" in w for w in tb.reading.warnings)  # and it is no legal win: said
    assert tb.editor.step.log[-1]["what"] == "group" and tb.editor.step.log[-1]["to"] == "hand"
    tap(at, "undo_hand")
    tb = at.session_state["tab"]
    assert tb.editor.hand_tiles is None and tb.reading.layout.apart == [0, 1, 2] and hand_now(at) == normal(TRUTH)
    assert not any(m.tiles == ["E", "E", "E"] for m in tb.editor.hand.melds)
    tap(at, "redo_hand")
    tb = at.session_state["tab"]
    assert tb.reading.layout.apart == [] and ["E", "E", "E"] in [m.tiles for m in tb.editor.hand.melds]


def test_a_group_of_the_hand_goes_out_onto_the_table_and_back_keeping_the_players_fixes(page) -> None:
    at = page(pung_photo())
    upload(at)
    tb = at.session_state["tab"]
    pung = next(g for g in tb.reading.layout.groups if g.kind == "meld").tiles
    first = next(g for g in tb.reading.layout.groups if g.kind == "concealed").tiles[0]
    fix(at, first, "2p")  # a fix made before the move stays after it
    tap(at, f"out{pung[0]}")
    tb = at.session_state["tab"]
    assert sorted(tb.reading.layout.apart) == sorted(pung) and tb.editor.hand.melds == []
    assert codes_now(tb.reading, tb.editor.fixes)[first] == "2p" and tb.editor.hand.concealed[0] == "2p"
    assert f"into{pung[0]}" in [b.key for b in at.button]
    tap(at, f"into{pung[0]}")
    tb = at.session_state["tab"]
    assert tb.reading.layout.apart == [] and [m.tiles for m in tb.editor.hand.melds] == [["5m", "5m", "5m"]]
    assert tb.editor.hand.melds[0].feeder == "left" and tb.editor.hand.concealed[0] == "2p"
    assert [n["what"] for n in tb.editor.step.log] == ["tile", "group", "group"]


def test_a_new_photo_forgets_the_last_photos_choice_of_tiles(page) -> None:
    at = page(pung_photo())
    upload(at)
    pung = next(g for g in at.session_state["tab"].reading.layout.groups if g.kind == "meld").tiles
    tap(at, f"out{pung[0]}")
    assert at.session_state["tab"].editor.hand_tiles is not None
    det, _ = table(["E", "E", "E"], None)
    page.shows(det)
    upload(at, seed=1)
    tb = at.session_state["tab"]
    assert tb.editor.hand_tiles is None and tb.reading.layout.apart == [0, 1, 2] and hand_now(at) == normal(TRUTH)


def test_a_recorded_hand_keeps_which_tiles_were_on_the_table_and_each_move(page) -> None:
    """Evidence for a dispute: the recorded reading marks the tiles left on the table (group -1), the corrections
    list the move in words, and the kept picture draws those tiles grey."""
    import cv2
    import numpy as np

    from webapp.draw import ON_TABLE
    from webapp.evidence import seen_picture

    det, _ = table(["E", "E", "E"], None)
    at = page(det)
    upload(at)
    tap(at, "into0")
    tap(at, "undo_hand")  # back: the reader's hand, the E pung on the table; then put it in and out again
    tap(at, "into0")
    tap(at, "out0")
    at.radio(key="win_type").set_value("discard").run()
    at.selectbox(key="discarder").set_value(3).run()
    at.button(key="record").click().run()
    assert not at.exception
    (kept,) = page.ledger().evidence(page.ledger().hands()[0].id)
    ev = kept["evidence"]
    assert [t["group"] for t in ev.reading["tiles"][:3]] == [-1, -1, -1]
    assert all(t["group"] >= 0 for t in ev.reading["tiles"][3:])
    assert [(c["from"], c["to"]) for c in ev.corrections if c["what"] == "group"] == [("table", "hand"),
                                                                                        ("hand", "table")]
    shown = " ".join(str(m.value) for m in at.markdown)
    assert "on the table → in the hand" in shown and "in the hand → on the table" in shown
    # the kept picture: a tile on the table drawn grey, one of the hand green
    blank = cv2.imencode(".png", np.full((120, 240, 3), 255, np.uint8))[1].tobytes()
    shown_ev = type(ev)(blank, {"boxes_in_photo": [[20, 30, 60, 90], [140, 30, 180, 90]],
                                "tiles": [{"group": -1}, {"group": 0}]}, [])
    picture = seen_picture(shown_ev)
    assert picture is not None
    bgr = picture[..., ::-1]
    left_edge, right_edge = bgr[60, 20], bgr[60, 140]  # on each box's left side (the picture's margin holds it)
    assert tuple(int(v) for v in left_edge) == ON_TABLE and tuple(int(v) for v in right_edge) == (60, 180, 60)


def test_a_group_is_named_by_its_tiles_numbers_on_the_photo() -> None:
    """A button names exactly the tiles it moves: a range where they are numbered in a row, else each number."""
    from webapp.hand_or_table import group_text

    codes = ["E", "E", "E", "5m", "9p"]
    assert group_text([0, 1, 2], codes, {0: 15, 1: 16, 2: 17}, "en").startswith("#15–17 · ")
    assert group_text([3, 4], codes, {3: 18, 4: 21}, "en").startswith("#18 #21 · ")
