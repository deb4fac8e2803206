"""The SQLite ledger: records, totals, edit, delete, export, dealer passing, persistence."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ledger import Ledger, next_dealer
from scoring import score_case

from .helpers import case


def scored(winner: int = 1) -> tuple[dict, dict]:
    c = case("nanning", "123m 456s 23p 99m 789s", "4p", winner=winner, dealer=0, win_type="discard",
             discarder=(winner + 1) % 4)
    return c, score_case(c)


def test_record_totals_and_persistence(tmp_path: Path):
    path = tmp_path / "l.sqlite3"
    led = Ledger(path)
    c, r = scored(1)
    led.record(c, r)
    led.record(*scored(3))
    again = Ledger(path)  # a restart / another tab
    assert len(again.hands()) == 2
    # hand 1: seat 2 paid seat 1 three; hand 2: seat 0 paid seat 3 three
    assert again.totals() == [-3, 3, -3, 3]


def test_edit_and_delete(tmp_path: Path):
    led = Ledger(tmp_path / "l.sqlite3")
    hid = led.record(*scored(1))
    c, r = scored(2)
    led.update(hid, c, r)
    assert led.hands()[0].winner == 2
    led.delete(hid)
    assert led.hands() == [] and led.totals() == [0, 0, 0, 0]


def test_invalid_results_are_refused(tmp_path: Path):
    led = Ledger(tmp_path / "l.sqlite3")
    c, _ = scored(1)
    with pytest.raises(ValueError):
        led.record(c, {"valid": False, "error": "not_a_winning_hand"})


def test_exports(tmp_path: Path):
    led = Ledger(tmp_path / "l.sqlite3")
    led.record(*scored(1))
    rows = led.export_csv(["A", "B", "C", "D"]).splitlines()
    assert rows[0].startswith("id,created,ruleset,winner") and ",B," in rows[1]
    data = json.loads(led.export_json())
    assert data[0]["net"] == [0, 3, -3, 0]


def test_settings_are_remembered(tmp_path: Path):
    Ledger(tmp_path / "l.sqlite3").save_settings({"ruleset": "nanjing", "names": ["甲", "乙", "丙", "丁"]})
    assert Ledger(tmp_path / "l.sqlite3").settings()["names"][0] == "甲"


def test_dealer_passing():
    assert next_dealer("nanning", 0, 2) == 2
    assert next_dealer("nanjing", 1, 1) == 1
    assert next_dealer("nanjing", 1, 3) == 2
    assert next_dealer("nanjing", 1, None) == 1
