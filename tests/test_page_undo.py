"""One undo history on the page (issue 38's repros, each written to fail on the old page): undo after Record
takes the hand back out of the ledger instead of leaving it to be recorded twice; undo of a photo tile fix
undoes the fix itself; fixing one tile of a pung fixes its faces; a record clears the photo and the uploader."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from tests.test_page_integrity import upload
from tests.test_vision_units import dets, row
from vision.detections import Detections
from webapp.reading import codes_now

HAND = ("123m 456s 23p 99m 789s", "4p")


def pung_photo() -> Detections:
    """A Nanning win: 123p 456s 789s E, the winning E apart, and a pung of 5m fed by the left player."""
    b1, c1 = row(["1p", "2p", "3p", "4s", "5s", "6s", "7s", "8s", "9s", "E"], 0)
    b2, c2 = row(["E"], 520)
    b3, c3 = row(["5m", "5m", "5m"], 660, sideways={0})
    return dets(b1 + b2 + b3, c1 + c2 + c3)


def typed(at: AppTest) -> None:
    at.text_input(key="concealed_txt").input(HAND[0]).run()
    at.text_input(key="winning_txt").input(HAND[1]).run()
    at.radio(key="win_type").set_value("discard").run()
    at.selectbox(key="discarder").set_value(3).run()


def fix(at: AppTest, tile: int, code: str) -> None:
    at.selectbox(key="pick_tile").set_value(tile).run()
    at.selectbox(key="pick_code").set_value(code).run()
    at.button(key="pick_ok").click().run()
    assert not at.exception


def test_undo_after_record_takes_the_hand_out_of_the_ledger_and_record_again_stores_it_once(page) -> None:
    at = page()
    typed(at)
    at.button(key="record").click().run()
    assert [h.id for h in page.ledger().hands()] == [1]
    at.button(key="undo_hand").click().run()
    assert not at.exception
    assert page.ledger().hands() == [] and page.ledger().get(1).deleted  # taken back, kept as deleted
    assert any("taken back out of the ledger" in s.value for s in at.success)
    assert at.session_state["tab"].editor.hand.winning == "4p"  # the hand is on screen again
    assert at.radio(key="win_type").value == "discard" and at.selectbox(key="discarder").value == 3
    at.button(key="record").click().run()  # recording it again: one live hand, not two
    live = page.ledger().hands()
    assert len(live) == 1 and page.ledger().totals() == [3, 0, 0, -3]  # as won: the situation came back too
    at.button(key="undo_hand").click().run()
    at.button(key="redo_hand").click().run()  # redo restores that record
    assert len(page.ledger().hands()) == 1 and page.ledger().totals() == [3, 0, 0, -3]


def test_undo_of_a_saved_edit_writes_the_earlier_version_back(page) -> None:
    at = page()
    typed(at)
    at.button(key="record").click().run()
    at.button(key="ledger_edit").click().run()
    at.selectbox(key="discarder").set_value(2).run()  # the edit: the West player fed it, not the North
    at.button(key="record").click().run()
    assert page.ledger().get(1).version == 2 and page.ledger().totals() == [3, 0, -3, 0]
    at.button(key="undo_hand").click().run()
    rec = page.ledger().get(1)
    assert rec.version == 3 and page.ledger().totals() == [3, 0, 0, -3]  # the earlier payments, as a new version
    assert at.session_state["tab"].editing == 1  # back in the edit, as it was before Save
    assert len(page.ledger().hands()) == 1


def test_undo_of_a_photo_fix_undoes_the_fix_and_a_later_fix_does_not_bring_it_back(page) -> None:
    at = page(pung_photo())
    upload(at)
    tb = at.session_state["tab"]
    first = next(g for g in tb.reading.layout.groups if g.kind == "concealed").tiles[0]
    was = tb.reading.codes[first]
    fix(at, first, "5s")
    assert codes_now(tb.reading, tb.editor.fixes)[first] == "5s"
    at.button(key="undo_hand").click().run()
    tb = at.session_state["tab"]
    assert tb.editor.fixes == {} and codes_now(tb.reading, tb.editor.fixes)[first] == was
    assert tb.editor.hand.concealed[0] == was
    other = next(g for g in tb.reading.layout.groups if g.kind == "concealed").tiles[5]
    fix(at, other, "1s")
    tb = at.session_state["tab"]
    assert codes_now(tb.reading, tb.editor.fixes)[first] == was  # the undone fix stays undone
    assert set(tb.editor.fixes) == {other}


def test_fixing_one_tile_of_a_pung_fixes_its_other_faces(page) -> None:
    at = page(pung_photo())
    upload(at)
    tb = at.session_state["tab"]
    pung = next(g for g in tb.reading.layout.groups if g.kind == "meld")
    fix(at, pung.tiles[1], "6m")
    tb = at.session_state["tab"]
    assert [codes_now(tb.reading, tb.editor.fixes)[i] for i in pung.tiles] == ["6m", "6m", "6m"]
    assert tb.editor.hand.melds[0].tiles == ["6m", "6m", "6m"]


def test_a_record_clears_the_photo_its_warnings_and_the_uploader(page) -> None:
    at = page(pung_photo())
    upload(at)
    assert at.session_state["tab"].photo is not None
    at.radio(key="win_type").set_value("discard").run()
    at.selectbox(key="discarder").set_value(3).run()
    at.button(key="record").click().run()
    tb = at.session_state["tab"]
    assert tb.photo is None and tb.reading is None and tb.editor.hand.empty
    assert not [u for u in at.get("file_uploader") if u.proto.id and u.value is not None]
    assert at.file_uploader(key="upload1").value is None  # a new, empty uploader
    assert not at.warning and at.session_state["tab"].editor.fixes == {}
    at.button(key="undo_hand").click().run()  # undo brings the photo and its hand back, out of the ledger
    tb = at.session_state["tab"]
    assert tb.photo is not None and not tb.editor.hand.empty and page.ledger().hands() == []


def test_any_face_is_two_taps_away(page) -> None:
    """Tap the tile's picture, tap a face in the grid by suit: the tile is that face (a red dragon here)."""
    at = page(pung_photo())
    upload(at)
    tb = at.session_state["tab"]
    first = next(g for g in tb.reading.layout.groups if g.kind == "concealed").tiles[0]
    at.pills(key="tap_tile").set_value(first).run()
    grid = at.pills(key=f"any{first}_z")
    shown = [o.split("]")[0].lstrip("![").split(":")[0] for o in grid.options]  # each a tile picture, by its alt
    assert "C" in shown and "f1" not in shown  # nanning has no flowers: the grid offers none
    grid.set_value("C").run()
    tb = at.session_state["tab"]
    assert codes_now(tb.reading, tb.editor.fixes)[first] == "C" and at.session_state["tap_tile"] is None
