"""Sharing a table on the page (streamlit.testing): one phone shares it and sees the owner token once and the join
code as text, link and QR code; another phone watches until it joins with the code, then records under its own
name; a player edits only where the owner allows; a join link fills the code in for that phone only; a closed
table shows a watcher nothing; a removed player is a watcher again."""

from __future__ import annotations

import re
from pathlib import Path

import cv2
import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from ledger import open_ledger
from tests.page_fixture import opened as phone
from tests.test_app import enter
from webapp.panels.share import qr

HAND = ("123m 456m 789m 234m 5m", "5m")


@pytest.fixture
def where(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    path = str(tmp_path / "ledger.sqlite3")
    monkeypatch.setenv("MAHJONG_LEDGER", path)
    return path


def shared(at: AppTest) -> tuple[str, str]:
    """Press Share on ``at``: the join code and the owner token it shows."""
    at.button(key="share_now").click().run()
    assert not at.exception
    code = next(m for v in (x.value for x in at.markdown) if (m := re.search(r"`([A-Z0-9]{5}-[A-Z0-9]{5})`", v)))[1]
    token = next(c.value for c in at.code if c.value.startswith("mjt_"))
    link = next(c.value for c in at.code if "join=" in c.value)
    assert f"join={code}" in link and "table=main" in link
    return code, token


def test_share_then_a_second_phone_watches_joins_and_records_as_itself(where: str) -> None:
    owner = phone()
    enter(owner, *HAND)
    owner.button(key="record").click().run()  # an unshared table: this device records, no set-up
    code, token = shared(owner)
    assert any("shown only now" in w.value for w in owner.warning)
    book = open_ledger(where)
    assert book.policy().shared and book.actor(token).role == "owner"

    other = phone()
    assert any("you can watch it" in i.value for i in other.info)
    enter(other, *HAND)
    assert not [b for b in other.button if b.key == "record"]  # no Record button for a watcher
    assert any("Join the table" in c.value for c in other.caption)
    assert other.selectbox(key="dealer").disabled  # the set-up is shown, not changeable
    other.text_input(key="join_code").input("AAAAA-BBBBB").run()
    other.button(key="join_now").click().run()
    assert any("not this table's join code" in e.value for e in other.error)
    other.text_input(key="join_code").input(code.lower().replace("-", " ")).run()  # as typed from a phone
    other.text_input(key="join_name").input("Ann").run()
    other.button(key="join_now").click().run()
    assert any("You joined as player #2: Ann" in s.value for s in other.success)
    enter(other, "123m 456s 23p 99m 789s", "4p")
    other.button(key="record").click().run()
    assert any("#2" in s.value for s in other.success)
    assert [h.by for h in open_ledger(where).hands()] == ["this device", "player #2: Ann"]
    assert list(other.dataframe[0].value["Who"]) == ["this device", "player #2: Ann"]  # the page shows who
    assert other.button(key="undo_hand").disabled  # taking a record back is a delete: the owner's here
    assert not [b for b in other.button if b.key == "ledger_edit"]  # editing is the owner's by default
    assert any("only for the table's owner" in c.value or "for the table's owner" in c.value for c in other.caption)

    owner.run()
    assert [b for b in owner.button if b.key == "ledger_edit"]  # the owner edits and deletes
    owner.checkbox(key="share_edit_now").check().run()
    assert open_ledger(where).policy().players_edit
    other.run()
    assert [b for b in other.button if b.key == "ledger_edit"]  # now the player may too

    owner.button(key="share_revoke_2").click().run()
    other.run()
    assert any("you can watch it" in i.value for i in other.info) and not [b for b in other.button
                                                                            if b.key == "ledger_edit"]
    actions = [e["action"] for e in open_ledger(where).audit()]
    assert {"record", "share", "join", "access", "revoke"} <= set(actions)


def test_a_join_link_fills_the_code_in_and_leaves_the_url(where: str) -> None:
    code, _ = shared(phone())
    other = phone(join=code)
    assert other.text_input(key="join_code").value == code
    assert "join" not in other.query_params  # the code does not stay in the address bar or a bookmark
    other.text_input(key="join_name").input("Bo").run()
    other.button(key="join_now").click().run()
    assert any("Bo" in s.value for s in other.success)
    assert [k["label"] for k in open_ledger(where).tokens()] == ["owner", "Bo"]


def test_a_closed_table_shows_a_watcher_nothing_and_the_owner_token_returns_on_another_phone(where: str) -> None:
    owner = phone()
    enter(owner, *HAND)
    owner.button(key="record").click().run()
    _, token = shared(owner)
    owner.checkbox(key="share_public_now").uncheck().run()
    other = phone()
    assert any("for its players" in i.value for i in other.info)
    assert not other.dataframe and not other.metric  # no hands, no totals
    other.text_input(key="join_code").input(token).run()  # the owner's token, kept from the first phone
    other.button(key="join_now").click().run()
    assert other.metric and [m.value for m in other.metric][:4] == ["24", "-8", "-8", "-8"]
    assert [b for b in other.button if b.key == "share_new_code"]


def test_wrong_codes_on_the_page_are_throttled(where: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from webapp.panels import share

    share._guesses.clear()
    monkeypatch.setenv("MAHJONG_GUESS_LIMIT", "2/60")
    shared(phone())
    other = phone()
    for _ in range(3):
        other.text_input(key="join_code").input("AAAAA-BBBBB").run()
        other.button(key="join_now").click().run()
    assert any("Too many wrong codes" in e.value for e in other.error)
    share._guesses.clear()


def test_the_qr_code_decodes_to_the_link() -> None:
    link = "http://192.168.1.20:8501/?table=main&join=ABCDE-FGHJK"
    img = qr(link)
    assert img.dtype == np.uint8 and img.shape[0] == img.shape[1] >= 200
    text, _, _ = cv2.QRCodeDetector().detectAndDecode(cv2.cvtColor(img, cv2.COLOR_GRAY2BGR))
    assert text == link
