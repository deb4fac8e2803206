"""The SQLite ledger: records, totals, edit, delete, export, dealer passing, persistence."""

from __future__ import annotations

import json
import multiprocessing
import os
import sqlite3
from pathlib import Path

import pytest

from ledger import Ledger, LedgerError
from ledger.store import SCHEMA_VERSION
from scoring import score_case
from tests.helpers import case


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
    assert rows[0].startswith("id,created,ruleset,kind,winner") and ",B," in rows[1]
    assert rows[-1].startswith("total,") and rows[-1].endswith("0,3,-3,0")
    data = json.loads(led.export_json())
    assert data[0]["net"] == [0, 3, -3, 0]


def test_settings_are_remembered(tmp_path: Path):
    Ledger(tmp_path / "l.sqlite3").save_settings({"ruleset": "nanjing", "names": ["甲", "乙", "丙", "丁"]})
    assert Ledger(tmp_path / "l.sqlite3").settings()["names"][0] == "甲"


def test_dealer_passing_comes_from_the_engine(tmp_path: Path):
    led = Ledger(tmp_path / "l.sqlite3")
    led.record(*scored(2))
    assert led.dealer() == 2  # nanning: the winner deals next
    small = case("nanjing", "123m 456m 789p 11s 23s", "4s", winner=3, dealer=1, win_type="self_draw")
    led.record(small, score_case(small))
    assert score_case(small)["next_dealer"] == 2 and led.dealer() == 2  # a non-dealer's small hand passes it on
    own = case("nanjing", "123m 456m 789p 11s 23s", "4s", winner=2, dealer=2, win_type="self_draw")
    led.record(own, score_case(own))
    assert led.dealer() == 2  # the dealer's own win keeps the deal
    led.record_draw({"ruleset": "nanjing", "context": {"dealer": 2}})
    assert led.dealer() == 2


def test_a_results_next_dealer_is_required(tmp_path: Path):
    led = Ledger(tmp_path / "l.sqlite3")
    c, r = scored(1)
    r = {k: v for k, v in r.items() if k != "next_dealer"}
    with pytest.raises(ValueError, match="next_dealer"):
        led.record(c, r)


def test_recording_is_idempotent_and_passes_the_deal(tmp_path: Path):
    led = Ledger(tmp_path / "l.sqlite3")
    c, r = scored(1)
    first = led.record(c, r, key="reading-abc")
    assert led.record(c, r, key="reading-abc") == first  # a double press
    assert len(led.hands()) == 1 and led.dealer() == 1  # nanning: the winner deals next
    assert led.changes() >= 1


def test_delete_is_soft_and_undone(tmp_path: Path):
    led = Ledger(tmp_path / "l.sqlite3")
    hid = led.record(*scored(1))
    led.delete(hid)
    assert led.hands() == [] and led.totals() == [0, 0, 0, 0] and led.get(hid).deleted
    led.restore(hid)
    assert led.totals() == [0, 3, -3, 0]


def test_an_edit_keeps_the_earlier_version(tmp_path: Path):
    led = Ledger(tmp_path / "l.sqlite3")
    c1, r1 = scored(1)
    hid = led.record(c1, r1)
    led.update(hid, *scored(2))
    rec = led.get(hid)
    assert rec.version == 2 and rec.winner == 2
    hist = led.history(hid)
    assert [h["version"] for h in hist] == [1] and hist[0]["cases"][0] == c1


def test_saving_over_a_deleted_hand_says_so(tmp_path: Path):
    led = Ledger(tmp_path / "l.sqlite3")
    hid = led.record(*scored(1))
    Ledger(tmp_path / "l.sqlite3").delete(hid)  # another tab
    with pytest.raises(LedgerError, match=f"hand #{hid} no longer exists"):
        led.update(hid, *scored(2))


def test_a_drawn_hand_and_several_winners_on_one_discard(tmp_path: Path):
    led = Ledger(tmp_path / "l.sqlite3")
    led.save_settings({"dealer": 2})
    led.record_draw({"ruleset": "nanjing", "context": {"dealer": 2}})
    assert led.dealer() == 2 and led.totals() == [0, 0, 0, 0]  # a draw without kongs keeps the dealer, pays nothing
    a = case("nanning", "123m 456s 23p 99m 789s", "4p", winner=1, dealer=2, win_type="discard", discarder=0)
    b = case("nanning", "123m 456p 789s 11p 46s", "5s", winner=3, dealer=2, win_type="discard", discarder=0)
    led.record_event("multi", [a, b], [score_case(a), score_case(b)])
    rec = led.last()
    assert rec.kind == "multi" and rec.winners == [1, 3]
    assert led.totals() == [-6, 3, 0, 3] and led.dealer() == 1  # the first winner after the discarder deals


def test_a_corrupt_ledger_is_a_clear_error(tmp_path: Path):
    path = tmp_path / "l.sqlite3"
    path.write_bytes(b"this is not a database at all" * 100)
    with pytest.raises(LedgerError) as e:
        Ledger(path)
    assert str(path) in str(e.value) and "damaged" in str(e.value) and "MAHJONG_LEDGER" in str(e.value)


def test_a_read_only_ledger_reads_and_refuses_writes(tmp_path: Path):
    path = tmp_path / "l.sqlite3"
    Ledger(path).record(*scored(1))
    led = Ledger(path, read_only=True)
    assert led.read_only and led.totals() == [0, 3, -3, 0]
    with pytest.raises(LedgerError, match="read-only"):
        led.record(*scored(2))


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write any file, so a read-only file cannot be detected")
def test_a_file_without_write_permission_opens_read_only(tmp_path: Path):
    path = tmp_path / "l.sqlite3"
    Ledger(path).record(*scored(1))
    path.chmod(0o444)
    assert Ledger(path).read_only


def test_an_old_ledger_is_migrated_forward(tmp_path: Path):
    path = tmp_path / "old.sqlite3"
    c, r = scored(1)
    db = sqlite3.connect(path)  # the first release's schema, with no version written
    db.executescript("""CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE hands (id INTEGER PRIMARY KEY AUTOINCREMENT, created TEXT NOT NULL, ruleset TEXT NOT NULL,
        case_json TEXT NOT NULL, result_json TEXT NOT NULL, net0 INTEGER NOT NULL, net1 INTEGER NOT NULL,
        net2 INTEGER NOT NULL, net3 INTEGER NOT NULL);""")
    db.execute("INSERT INTO hands (created, ruleset, case_json, result_json, net0, net1, net2, net3) "
               "VALUES ('2026-01-01 10:00:00', 'nanning', ?, ?, 0, 3, -3, 0)", (json.dumps(c), json.dumps(r)))
    db.commit()
    db.close()
    led = Ledger(path)
    rec = led.hands()[0]
    assert rec.case == c and rec.kind == "win" and rec.version == 1 and rec.dealer == 0
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def _open_and_record(args: tuple[str, int]) -> str:
    path, i = args
    try:
        c, r = scored(1 + i % 3)
        Ledger(path).record(c, r, key=f"k{i}")
        return "ok"
    except Exception as e:  # reported back to the test
        return f"{type(e).__name__}: {e}"


def test_many_processes_creating_one_new_ledger_at_once(tmp_path: Path):
    for trial in range(5):
        path = str(tmp_path / f"new{trial}.sqlite3")
        with multiprocessing.get_context("fork").Pool(8) as pool:
            out = pool.map(_open_and_record, [(path, i) for i in range(8)])
        assert out == ["ok"] * 8, out
        assert len(Ledger(path).hands()) == 8


def test_an_amount_beyond_64_bits_never_reaches_storage(tmp_path: Path):
    led = Ledger(tmp_path / "l.sqlite3")
    c, r = scored(1)
    r = dict(r, net=[0, 2**63, -(2**63), 0])
    with pytest.raises(ValueError, match="64-bit"):
        led.record(c, r)
