"""A table link (``?ruleset=…&players=…&dealer=…&lang=…``) never changes a table that is already set up or
playing without this phone saying so, and a value it cannot use is named, not dropped without a word."""

from __future__ import annotations

from pathlib import Path

import pytest

from ledger import Ledger
from scoring import score_case
from tests.helpers import case
from tests.page_fixture import opened


@pytest.fixture
def playing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Ledger:
    """A Nanning table with names and one hand recorded."""
    monkeypatch.setenv("MAHJONG_LEDGER", str(tmp_path / "ledger.sqlite3"))
    led = Ledger(tmp_path / "ledger.sqlite3")
    led.save_settings({"ruleset": "nanning", "names": ["Ann", "Bo", "Cy", "Di"], "dealer": 0, "lang": "en"})
    c = case("nanning", "123m 456s 23p 99m 789s", "4p", winner=1, win_type="discard", discarder=3)
    led.record(c, score_case(c))
    return led


def test_an_old_link_asks_before_it_changes_a_playing_table(playing: Ledger) -> None:
    at = opened(ruleset="nanjing", players="Wu,Xi,Yu,Zo")
    assert playing.settings()["ruleset"] == "nanning"  # nothing changed by opening the link
    assert any("sets the table up differently" in i.value and "Wu, Xi, Yu, Zo" in i.value for i in at.info)
    assert at.query_params["ruleset"] == ["nanning"] or at.query_params["ruleset"] == "nanning"  # the URL tells
    at.button(key="url_keep").click().run()
    assert playing.settings()["ruleset"] == "nanning" and not [b for b in at.button if b.key == "url_apply"]
    other = opened(ruleset="nanjing", players="Wu,Xi,Yu,Zo")
    other.button(key="url_apply").click().run()
    assert playing.settings()["ruleset"] == "nanjing" and playing.settings()["names"] == ["Wu", "Xi", "Yu", "Zo"]
    assert playing.dealer() == 1  # a playing table keeps its dealer, whatever the link says


def test_values_a_link_cannot_use_are_named(playing: Ledger) -> None:
    at = opened(ruleset="nanjin", dealer="7", players="Ann,Bo")
    said = " ".join(w.value for w in at.warning)
    assert "ruleset=nanjin" in said and "players=Ann,Bo" in said and "four names" in said
    assert playing.settings()["ruleset"] == "nanning"
    at.run()
    assert not [w for w in at.warning if "cannot be used" in w.value]  # said once


def test_a_new_table_takes_the_links_set_up(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MAHJONG_LEDGER", str(tmp_path / "ledger.sqlite3"))
    at = opened(ruleset="nanjing", players="Wu,Xi,Yu,Zo", dealer="2")
    led = Ledger(tmp_path / "ledger.sqlite3")
    assert led.settings()["ruleset"] == "nanjing" and led.dealer() == 2 and not at.info
