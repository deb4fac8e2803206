"""The page never shows or records a wrong result (the nine problems seen in the browser, each reproduced).

Photos here are read by a stand-in for the tile finder that returns hand-made detections, so each test knows
exactly what the photo showed; the real model is tested in test_app.py and test_model.py.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from scoring import score_case
from tests.helpers import case
from tests.image_files import encoded, picture
from tests.test_vision_units import dets, row
from vision.classes import CLASS_INDEX
from vision.detections import Detections

APP = str(Path(__file__).resolve().parents[1] / "app.py")


def nanjing_photo() -> Detections:
    """A Nanjing winning hand with two flowers beside it, and a chow 2-3-4m fed by the left player."""
    b1, c1 = row(["1p", "2p", "3p", "4s", "5s", "6s", "7s", "8s", "9s", "E", "E"], 0)
    b2, c2 = row(["E"], 560)
    b3, c3 = row(["2m", "3m", "4m"], 700, sideways={0})
    b4, c4 = row(["f1", "f5"], 0, y=300)
    return dets(b1 + b2 + b3 + b4, c1 + c2 + c3 + c4)


def upload(at: AppTest, seed: int = 0) -> None:
    """A photo into the page's current uploader (each record gives a new, empty one)."""
    key = "upload" + str(at.session_state["tab"].uploads or "") if "tab" in at.session_state else "upload"
    at.file_uploader(key=key).set_value((f"hand{seed}.png", encoded("PNG", picture(seed=seed)),
                                              "image/png")).run()
    assert not at.exception


def set_ruleset(at: AppTest, name: str) -> None:
    at.selectbox(key="ruleset").set_value(name).run()
    assert not at.exception


# 1 ------------------------------------------------------------------------------------------------------------
def test_a_photo_read_under_one_ruleset_is_reinterpreted_under_another(page) -> None:
    at = page(nanjing_photo())
    upload(at)
    tb = at.session_state["tab"]
    assert tb.editor.hand.flowers == [] and tb.editor.hand.set_aside == ["f1", "f5"]  # nanning: set aside
    assert any("set aside" in w.value for w in at.warning)
    assert not any(m.type == "pung" and m.tiles == ["3m"] * 3 for m in tb.editor.hand.melds)
    set_ruleset(at, "nanjing")
    tb = at.session_state["tab"]
    assert tb.editor.hand.flowers == ["f1", "f5"] and not tb.editor.hand.set_aside
    assert tb.editor.hand.melds[0].type == "chow"  # read as a run: no chow in Nanjing, so the score says so
    assert "Valid win" not in "".join(s.value for s in at.success)


def test_the_flowers_and_the_right_total_appear_after_switching_to_nanjing(page) -> None:
    b1, c1 = row(["1p", "2p", "3p", "4s", "5s", "6s", "7s", "8s", "9s", "E", "E", "2m", "2m"], 0)
    b2, c2 = row(["E"], 640)
    b4, c4 = row(["f1", "f5"], 0, y=300)
    at = page(dets(b1 + b2 + b4, c1 + c2 + c4))
    upload(at)
    set_ruleset(at, "nanjing")
    want = score_case(case("nanjing", "123p 456s 789s EE 22m", "E", flowers="f1 f5"))
    assert want["valid"] and f"total: **{want['total']}**" in at.success[0].value
    assert "無花果" not in str(at.table[0].value)


# 2 ------------------------------------------------------------------------------------------------------------
def record_a_bloom_hand(at: AppTest) -> None:
    at.text_input(key="concealed_txt").input("123p 456s 789s E").run()
    at.text_input(key="winning_txt").input("E").run()
    at.number_input(key="meld_count").set_value(1).run()
    at.selectbox(key="meld0_type").set_value("kong_concealed").run()
    at.text_input(key="meld0_tiles").input("2222m").run()
    at.selectbox(key="winner").set_value(2).run()
    at.checkbox(key="replacement_kong").check().run()
    assert not at.exception and "Valid win" in at.success[0].value
    assert any("暗槓槓上花" in str(v) for v in at.table[0].value.iloc[:, 0])
    at.button(key="record").click().run()


def test_editing_a_recorded_hand_keeps_every_flag_and_the_dealer(page) -> None:
    at = page()
    at.selectbox(key="dealer").set_value(2).run()
    record_a_bloom_hand(at)
    rec = page.ledger().hands()[0]
    assert rec.case["context"]["replacement"] == "kong" and rec.case["context"]["dealer"] == 2
    at.selectbox(key="dealer").set_value(0).run()  # the table moved on
    at.selectbox(key="ledger_pick").set_value(rec.id).run()
    at.button(key="ledger_edit").click().run()
    assert any("Editing" in i.value for i in at.info)
    at.button(key="record").click().run()  # save without changing anything
    again = page.ledger().get(rec.id)
    assert again.case == rec.case and again.result["net"] == rec.result["net"] and again.version == 2


# 3 ------------------------------------------------------------------------------------------------------------
def test_edit_mode_has_cancel_and_a_new_photo_leaves_it(page) -> None:
    at = page(nanjing_photo())
    at.text_input(key="concealed_txt").input("123m 456s 23p 99m 789s").run()
    at.text_input(key="winning_txt").input("4p").run()
    at.button(key="record").click().run()
    hid = page.ledger().hands()[0].id
    at.button(key="ledger_edit").click().run()
    assert at.session_state["tab"].editing == hid
    at.button(key="cancel_edit").click().run()
    assert at.session_state["tab"].editing is None and at.text_input(key="concealed_txt").value == ""
    at.button(key="ledger_edit").click().run()
    upload(at)  # a new photo while editing: a new hand, the recorded one untouched
    assert at.session_state["tab"].editing is None
    assert page.ledger().get(hid).version == 1


# 4 ------------------------------------------------------------------------------------------------------------
def test_a_double_record_stores_once_and_delete_asks_and_can_be_undone(page) -> None:
    from webapp.panels.result import current, record
    from webapp.session import Table
    from webapp.state import Situation

    at = page()
    at.text_input(key="concealed_txt").input("123m 456s 23p 99m 789s").run()
    at.text_input(key="winning_txt").input("4p").run()
    tb = at.session_state["tab"]
    case_, result_ = current(tb, Table(), Situation(), None)
    led = page.ledger()
    entry = tb.entry
    record(tb, led, case_, result_, entry)  # two presses queued before the page reruns: the same entry
    record(tb, led, case_, result_, entry)
    assert len(led.hands()) == 1
    at.run()
    hid = led.hands()[0].id
    at.button(key="ledger_delete").click().run()
    assert [r.id for r in led.hands()] == [hid]  # nothing is deleted before the confirmation
    at.button(key="ledger_delete_yes").click().run()
    assert led.hands() == [] and led.totals() == [0, 0, 0, 0]
    at.button(key="undo_delete").click().run()
    assert [r.id for r in led.hands()] == [hid]


def test_recording_the_same_entry_twice_stores_it_once(page) -> None:
    at = page()
    at.text_input(key="concealed_txt").input("123m 456s 23p 99m 789s").run()
    at.text_input(key="winning_txt").input("4p").run()
    tb = at.session_state["tab"]
    entry = tb.entry
    at.button(key="record").click().run()
    led = page.ledger()
    first = led.hands()[0]
    assert led.record(first.case, first.result, key=entry) == first.id  # a second press of the same entry
    assert len(led.hands()) == 1


def test_saving_an_edit_of_a_hand_another_tab_deleted_says_so(page) -> None:
    at = page()
    at.text_input(key="concealed_txt").input("123m 456s 23p 99m 789s").run()
    at.text_input(key="winning_txt").input("4p").run()
    at.button(key="record").click().run()
    hid = page.ledger().hands()[0].id
    at.button(key="ledger_edit").click().run()
    page.ledger().delete(hid)  # another tab
    at.button(key="record").click().run()
    assert any(f"#{hid} no longer exists" in e.value for e in at.error)
    assert page.ledger().hands() == []


# 5 ------------------------------------------------------------------------------------------------------------
def test_a_failed_photo_or_an_invalid_edit_leaves_no_score_and_no_record_button(page) -> None:
    at = page()
    at.text_input(key="concealed_txt").input("123m 456s 23p 99m 789s").run()
    at.text_input(key="winning_txt").input("4p").run()
    assert "Valid win" in at.success[0].value
    at.file_uploader(key="upload").set_value(("x.png", b"not a photo", "image/png")).run()
    assert not at.success and not [b for b in at.button if b.key == "record"]
    at.text_input(key="concealed_txt").input("123m 456s 23p 99m 789s").run()
    at.text_input(key="winning_txt").input("4p").run()
    assert "Valid win" in at.success[0].value
    at.text_input(key="concealed_txt").input("123m 456s 23p 99m 78x").run()  # an unreadable edit
    assert not at.success and not [b for b in at.button if b.key == "record"]
    assert at.text_input(key="concealed_txt").value == "123m 456s 23p 99m 78x"  # the user's text is kept
    at.text_input(key="concealed_txt").input("1111m 456s 23p 99m 78s").run()  # readable, but impossible
    assert not at.success and not [b for b in at.button if b.key == "record"]


def test_an_empty_photo_clears_the_previous_score(page) -> None:
    at = page(dets([], []))
    at.text_input(key="concealed_txt").input("123m 456s 23p 99m 789s").run()
    at.text_input(key="winning_txt").input("4p").run()
    upload(at, seed=3)
    assert not at.success and not [b for b in at.button if b.key == "record"]


# 6 ------------------------------------------------------------------------------------------------------------
def test_the_page_scores_a_flower_kong_as_the_cli_does(page) -> None:
    at = page()
    set_ruleset(at, "nanjing")
    at.text_input(key="concealed_txt").input("234m 678p 345s 22s 67m").run()
    at.text_input(key="winning_txt").input("8m").run()
    at.text_input(key="flowers_txt").input("C C C C").run()
    want = score_case(case("nanjing", "234m 678p 345s 22s 67m", "8m", flowers="C C C C"))
    assert [m.value for m in at.metric][:4] == [str(n) for n in want["net"]]


def test_choosing_the_winner_after_a_photo_keeps_its_melds_valid(page) -> None:
    b1, c1 = row(["1m", "2m", "3m", "4s", "5s", "6s", "2p", "3p", "9m", "9m"], 0)
    b2, c2 = row(["4p"], 460)
    b3, c3 = row(["7p", "7p", "7p"], 560, sideways={0})
    at = page(dets(b1 + b2 + b3, c1 + c2 + c3))
    upload(at)
    for w in (3, 1, 0):
        at.selectbox(key="winner").set_value(w).run()
        assert "Valid win" in at.success[0].value, w


# 7 ------------------------------------------------------------------------------------------------------------
def test_two_tabs_share_one_ledger_and_agree_on_the_dealer(page) -> None:
    a, b = page(), page()
    for at, winner in ((a, 1), (b, 3)):
        at.text_input(key="concealed_txt").input("123m 456s 23p 99m 789s").run()
        at.text_input(key="winning_txt").input("4p").run()
        at.selectbox(key="winner").set_value(winner).run()
        at.button(key="record").click().run()
    a.run()
    b.run()
    led = page.ledger()
    assert [r.winner for r in led.hands()] == [1, 3] and led.dealer() == 3  # nanning: the winner deals next
    for at in (a, b):
        assert at.selectbox(key="dealer").value == 3
        assert [m.value for m in at.metric][-1] == at.session_state["table_copy"].names[3]
    b.button(key="ledger_delete").click().run()
    b.button(key="ledger_delete_yes").click().run()
    a.run()
    assert len(a.dataframe[0].value) == 1 and len(led.hands()) == 1


# 9 ------------------------------------------------------------------------------------------------------------
def test_the_model_is_loaded_with_the_first_view_before_any_photo(page) -> None:
    from webapp.reading import load_reader, shipped_models_dir

    page()
    if not (shipped_models_dir() / "detector.onnx").exists():
        pytest.skip("shipped models not built")
    assert not isinstance(load_reader(str(shipped_models_dir())), str)


def test_several_winners_on_one_discard_are_one_event(page) -> None:
    at = page()
    at.text_input(key="concealed_txt").input("123m 456s 23p 99m 789s").run()
    at.text_input(key="winning_txt").input("4p").run()
    at.selectbox(key="winner").set_value(1).run()
    at.radio(key="win_type").set_value("discard").run()
    at.selectbox(key="discarder").set_value(0).run()
    at.button(key="add_winner").click().run()
    assert at.selectbox(key="winner").value == 2 and at.selectbox(key="discarder").value == 0
    at.text_input(key="concealed_txt").input("123m 456p 789s 11p 46s").run()
    at.text_input(key="winning_txt").input("5s").run()
    at.button(key="record").click().run()
    rec = page.ledger().hands()[0]
    assert rec.kind == "multi" and rec.winners == [1, 2] and sum(rec.net) == 0 and rec.net[0] < 0


def test_a_drawn_hand_is_recorded_and_keeps_the_dealer(page) -> None:
    at = page()
    at.selectbox(key="dealer").set_value(2).run()
    at.button(key="record_draw").click().run()
    led = page.ledger()
    assert led.hands()[0].kind == "draw" and led.dealer() == 2 and led.totals() == [0, 0, 0, 0]
    assert os.environ["MAHJONG_LEDGER"]


def test_a_drawn_hand_asks_for_its_kongs_and_records_their_money(page) -> None:
    at = page()
    at.selectbox(key="dealer").set_value(1).run()
    at.number_input(key="draw_n").set_value(2).run()
    at.selectbox(key="draw0_seat").set_value(2).run()
    at.selectbox(key="draw0_kind").set_value("exposed").run()
    at.selectbox(key="draw0_from").set_value(0).run()
    at.selectbox(key="draw0_tile").set_value("5m").run()
    at.selectbox(key="draw1_seat").set_value(3).run()
    at.selectbox(key="draw1_kind").set_value("concealed").run()
    assert not at.exception
    shown = " ".join(m.value for m in at.markdown)
    assert "Kong money" in shown
    assert any("Next dealer" in c.value for c in at.caption)
    at.button(key="record_draw").click().run()
    led = page.ledger()
    rec = led.hands()[0]
    assert rec.kind == "draw" and led.dealer() == 1
    want = score_case({"ruleset": "nanning", "kind": "draw", "options": {}, "context": {"dealer": 1, "kong_events": [
        {"seat": 2, "kind": "exposed", "from": 0, "tile": "5m"}, {"seat": 3, "kind": "concealed", "tile": "2m"}]}})
    assert rec.results == [want] and led.totals() == want["net"] == [-2, -1, 0, 3]
    assert at.number_input(key="draw_n").value == 0  # a new entry after recording


def test_an_impossible_draw_is_said_in_the_players_language_and_not_recorded(page) -> None:
    at = page()
    at.selectbox(key="ruleset").set_value("nanjing").run()
    at.number_input(key="draw_n").set_value(4).run()
    for i in range(4):
        at.selectbox(key=f"draw{i}_kind").set_value("flower").run()
    assert any("not possible" in e.value for e in at.error)  # three dragons make at most three flower kongs
    assert not [b for b in at.button if b.key == "record_draw"]
    assert page.ledger().hands() == []


def test_the_page_shows_the_engines_next_dealer_and_records_it(page) -> None:
    at = page()
    at.selectbox(key="ruleset").set_value("nanjing").run()
    at.selectbox(key="dealer").set_value(0).run()
    at.selectbox(key="winner").set_value(1).run()
    at.text_input(key="concealed_txt").input("111m 333p 555s 777m N").run()
    at.text_input(key="winning_txt").input("N").run()
    def said() -> list[str]:  # the score's line first; the drawn-hand form below says the dealer stays
        return [c.value for c in at.caption if c.value.startswith("Next dealer: ")]

    assert said()[0] == "Next dealer: East"  # 對對胡 is a 大胡: seat 1's win keeps seat 0 (East) dealing
    at.text_input(key="concealed_txt").input("123m 456m 789p 11s 23s").run()
    at.text_input(key="winning_txt").input("4s").run()
    assert said()[0] == "Next dealer: South"  # a small hand by seat 1 passes the deal on
    at.text_input(key="concealed_txt").input("111m 333p 555s 777m N").run()
    at.text_input(key="winning_txt").input("N").run()
    at.button(key="record").click().run()
    assert page.ledger().dealer() == 0


def test_an_implied_flower_kong_is_a_line_the_player_sees(page) -> None:
    at = page()
    at.selectbox(key="ruleset").set_value("nanjing").run()
    at.text_input(key="concealed_txt").input("123m 456m 789p 11s 23s").run()
    at.text_input(key="winning_txt").input("4s").run()
    at.text_input(key="flowers_txt").input("C C C C f1").run()
    assert not at.exception
    assert any("flower kong of 中 counted: four 中 among the flowers" in i.value for i in at.info), \
        [i.value for i in at.info]


def test_a_table_url_sets_up_the_table_and_keeps_it(page, tmp_path: Path) -> None:
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update({"ruleset": "nanjing", "players": "Ann,Bo,Chen,Dai", "dealer": "1", "lang": "zh"})
    at.run()
    assert not at.exception
    tbl = at.session_state["table_copy"]
    assert (tbl.ruleset, tbl.names, tbl.dealer, tbl.lang) == ("nanjing", ["Ann", "Bo", "Chen", "Dai"], 1, "zh")
    assert page.ledger().settings()["names"] == ["Ann", "Bo", "Chen", "Dai"]  # every tab of the table sees it
    assert "南京" in at.expander[0].label and "計分" in at.title[0].value


def test_settle_up_squares_the_running_totals_on_the_page(page) -> None:
    at = page()
    for w in (1, 2):
        at.text_input(key="concealed_txt").input("123m 456s 23p 99m 789s").run()
        at.text_input(key="winning_txt").input("4p").run()
        at.selectbox(key="winner").set_value(w).run()
        at.button(key="record").click().run()
    lines = [m.value for m in at.markdown if "→" in m.value]
    totals = page.ledger().totals()
    assert lines and sum(totals) == 0 and len(lines) <= 3


def test_a_plain_hand_is_entered_in_under_20_taps_and_melds_by_type_then_tile(page) -> None:
    at = page()
    taps = 0
    for code in "1m 2m 3m 4p 5p 6p 7s 8s 9s E E E 9p".split():
        at.pills(key="palette").set_value(code).run()
        taps += 1
    at.radio(key="palette_to").set_value("winning").run()
    at.pills(key="palette").set_value("9p").run()
    taps += 2
    assert taps <= 20 and "Valid win" in at.success[0].value
    at.button(key="backspace").click().run()  # the winning tile first, then the hand's last tiles
    at.button(key="backspace").click().run()
    at.button(key="backspace").click().run()
    at.button(key="backspace").click().run()
    at.button(key="backspace").click().run()
    at.selectbox(key="new_meld_type").set_value("pung").run()
    at.button(key="add_meld").click().run()
    at.pills(key="palette").set_value("E").run()  # the meld being built takes the tapped tile
    at.radio(key="palette_to").set_value("concealed").run()
    at.pills(key="palette").set_value("9p").run()
    at.radio(key="palette_to").set_value("winning").run()
    at.pills(key="palette").set_value("9p").run()
    hand = at.session_state["tab"].editor.hand
    assert hand.melds[0].tiles == ["E", "E", "E"] and hand.concealed[-1] == "9p" and hand.winning == "9p"
    assert "Valid win" in at.success[0].value


def test_tap_a_tile_then_an_alternative_and_the_score_changes(page) -> None:
    b1, c1 = row(["1m", "2m", "3m", "4s", "5s", "6s", "2p", "3p", "9m", "9m", "E", "E", "E"], 0)
    b2, c2 = row(["4p"], 600)
    seen = dets(b1 + b2, c1 + c2, conf=0.7)
    seen.probs[13, CLASS_INDEX["5p"]] = 0.2  # the winning tile's second guess
    at = page(seen)
    upload(at)
    before = at.success[0].value
    assert "Valid win" in before
    at.pills(key="tap_tile").set_value(13).run()
    at.pills(key="alt13").set_value("5p").run()
    assert at.session_state["tab"].editor.fixes == {13: "5p"} and at.session_state["tab"].editor.hand.winning == "5p"
    assert not at.success and "Not a valid win" in at.error[0].value  # the score follows the tap


def test_the_result_card_is_a_png_of_sensible_size(page) -> None:
    from webapp.card import card_size, result_card
    from webapp.state import HandState

    at = page()
    at.text_input(key="concealed_txt").input("123m 456s 23p 99m 789s").run()
    at.text_input(key="winning_txt").input("4p").run()
    assert [b for b in at.get("download_button") if b.key == "result_card"]
    hand = HandState(["1m", "2m", "3m", "4s", "5s", "6s", "2p", "3p", "9m", "9m", "7s", "8s", "9s"], "4p")
    result = score_case(case("nanning", "123m 456s 23p 99m 789s", "4p"))
    png = result_card(hand, result, ["東", "South", "West", "North"], "Nanning (張)", "張", "zh")
    w, h = card_size(png)
    assert png[:4] == b"\x89PNG" and w == 720 and 150 < h < 900 and 5_000 < len(png) < 500_000


def test_house_rules_are_labelled_in_words_and_saved_for_the_table(page) -> None:
    at = page()
    set_ruleset(at, "nanning-fan")
    cap = at.number_input(key="opt_nanning-fan_fan_cap")
    assert cap.value is None and "cap on fan" in cap.label  # words, not the option's id
    cap.set_value(5).run()
    assert page.ledger().settings()["options"]["nanning-fan"] == {"fan_cap": 5}
    at.checkbox(key="opt_nanning-fan_ghost_pair_allowed").check().run()
    assert page.ledger().settings()["options"]["nanning-fan"] == {"fan_cap": 5, "ghost_pair_allowed": True}
