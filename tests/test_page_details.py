"""Small things a player notices: "1 point", not "1 points"; a discard win's discarder starts as the winner's
left (who discards just before the winner); a chow's "fed by" offers only the seats the ruleset allows."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from webapp.editing import amount, pay_lines

APP = str(Path(__file__).resolve().parents[1] / "app.py")


@pytest.fixture
def at(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AppTest:
    monkeypatch.setenv("MAHJONG_LEDGER", str(tmp_path / "ledger.sqlite3"))
    app = AppTest.from_file(APP, default_timeout=120)
    app.run()
    return app


def test_amounts_agree_with_their_number() -> None:
    assert amount(1, "points") == "1 point" and amount(-1, "points") == "-1 point" and amount(3, "points") == "3 points"
    assert amount(1, "分") == "1 分" and amount(2, "fan") == "2 fan"
    assert pay_lines([{"from": 3, "to": 0, "amount": 1}], ["E", "S", "W", "N"], "points") == ["N → E: 1 point"]


def test_the_discarder_starts_as_the_winners_left(at: AppTest) -> None:
    at.selectbox(key="winner").set_value(2).run()
    at.radio(key="win_type").set_value("discard").run()
    assert at.selectbox(key="discarder").value == 1  # seat 1 plays just before seat 2


def test_a_chow_is_fed_only_from_where_the_ruleset_allows(at: AppTest) -> None:
    at.selectbox(key="ruleset").set_value("nanning-fan").run()
    at.number_input(key="meld_count").set_value(1).run()
    at.selectbox(key="meld0_type").set_value("chow").run()
    assert len(at.selectbox(key="meld0_from").options) == 1  # the left player only (RULES.md: chow from the left)
    at.selectbox(key="meld0_type").set_value("pung").run()
    assert len(at.selectbox(key="meld0_from").options) == 3  # a pung from anyone


def test_the_engines_errors_are_in_the_players_words(at: AppTest) -> None:
    """A chow fed by the wrong player: the page names the field as it is labelled and the players by name, never
    ``hand.melds[0].from`` or a seat number."""
    at.selectbox(key="ruleset").set_value("nanning-fan").run()
    at.text_input(key="concealed_txt").input("123m 456s 99m 789s").run()
    at.text_input(key="winning_txt").input("4p").run()
    at.number_input(key="meld_count").set_value(1).run()
    at.selectbox(key="meld0_type").set_value("chow").run()
    at.text_input(key="meld0_tiles").input("234p").run()
    tb = at.session_state["tab"]
    tb.editor.hand.melds[0].feeder = "right"  # as a photo could read it
    at.run()
    said = " ".join(e.value for e in at.error)
    assert "Fed by 1: a Chow can only be claimed from the left player (North), got South" in said, said
    near = [e.value for e in at.error if "Fed by 1" in e.value]
    assert len(near) == 2 and near[0].startswith("The hand can't be scored yet")  # under the hand, then the result
    assert "hand.melds" not in said and "seat" not in said, said
