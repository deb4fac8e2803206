"""The page records each hand with its evidence and shows it back: the photo as read (small, no EXIF) with its
boxes, the corrections made on the page, what scored it and the score as it was; a table that keeps no photos
keeps none."""

from __future__ import annotations

import cv2
import numpy as np

from tests.test_page_integrity import upload
from tests.test_page_undo import fix, pung_photo


def recorded_with_a_fix(page):  # noqa: ANN001, ANN201 - the page fixture and its AppTest
    at = page(pung_photo())
    upload(at)
    tb = at.session_state["tab"]
    first = next(g for g in tb.reading.layout.groups if g.kind == "concealed").tiles[0]
    fix(at, first, "7p")  # corrections the evidence must show: 1p -> 7p -> 4p (2p 3p 4p is a chow)
    fix(at, first, "4p")
    at.text_input(key="winning_txt").input("S").run()  # a field changed by hand after the photo, and back
    at.text_input(key="winning_txt").input("E").run()
    at.radio(key="win_type").set_value("discard").run()
    at.selectbox(key="discarder").set_value(3).run()
    at.button(key="record").click().run()
    assert not at.exception
    return at, first


def test_a_recorded_photo_hand_keeps_its_photo_reading_and_corrections(page) -> None:
    at, first = recorded_with_a_fix(page)
    hid = page.ledger().hands()[0].id
    (kept,) = page.ledger().evidence(hid)
    ev = kept["evidence"]
    assert ev.photo is not None and len(ev.photo) <= 100_000 and ev.photo[:3] == b"\xff\xd8\xff"
    assert b"Exif" not in ev.photo[:200]  # re-encoded: no EXIF block
    img = cv2.imdecode(np.frombuffer(ev.photo, np.uint8), cv2.IMREAD_COLOR)
    assert img is not None and max(img.shape[:2]) <= 1024
    boxes = ev.reading["boxes_in_photo"]
    assert len(boxes) == len(ev.reading["tiles"]) == 14
    k = img.shape[1] / ev.reading["as_read"]["width"]  # the boxes are in the kept JPEG's pixels
    assert all(np.allclose(b, np.array(t["box_as_read"]) * k, atol=0.2) for b, t in zip(boxes, ev.reading["tiles"]))
    tiles = [c for c in ev.corrections if c["what"] == "tile"]
    assert [(c["index"], c["to"]) for c in tiles] == [(first, "7p"), (first, "4p")] and tiles[1]["from"] == "7p"
    assert tiles[0]["read_as"] == "1p"
    assert [(c["from"], c["to"]) for c in ev.corrections if c["what"] == "winning"] == [("E", "S"), ("S", "E")]
    assert ev.scored_by["ruleset"] == "nanning" and ev.reading["codes_after_fixes"][first] == "4p"
    # what the page shows of it, on the ledger's hand
    body = " ".join(str(m.value) for m in at.markdown) + " ".join(str(c.value) for c in at.caption)
    assert f"What was seen: hand #{hid}" in " ".join(e.label for e in at.expander)
    assert any(f"#{tiles[1]['tile']}: 7p → 4p" in str(m.value) for m in at.markdown)
    assert "Scored with" in body and len(at.image) >= 1


def test_a_table_that_keeps_no_photos_records_none(page) -> None:
    at = page(pung_photo())
    at.checkbox(key="keep_photos").uncheck().run()
    upload(at)
    at.radio(key="win_type").set_value("discard").run()
    at.selectbox(key="discarder").set_value(3).run()
    at.button(key="record").click().run()
    (kept,) = page.ledger().evidence(page.ledger().hands()[0].id)
    assert kept["evidence"].photo is None and kept["evidence"].reading is not None
    assert any("No photo kept" in c.value for c in at.caption)
