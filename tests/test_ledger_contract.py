"""One contract for the ledger, run against both stores: SQLite (the embedded default) and a real PostgreSQL."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from ledger import LedgerBase, LedgerError, open_ledger, settle_up
from scoring import score_case
from tests.helpers import case
from tests.postgres_server import fresh_database


@pytest.fixture(params=["sqlite", "postgres"])
def location(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "ledger.sqlite3")
    return fresh_database(request.getfixturevalue("postgres_server"))


def scored(winner: int = 1, dealer: int = 0) -> tuple[dict, dict]:
    c = case("nanning", "123m 456s 23p 99m 789s", "4p", winner=winner, dealer=dealer, win_type="discard",
             discarder=(winner + 1) % 4)
    return c, score_case(c)


def test_record_totals_dealer_and_idempotency(location: str) -> None:
    led = open_ledger(location)
    c, r = scored(1)
    first = led.record(c, r, key="k1")
    assert led.record(c, r, key="k1") == first
    led.record(*scored(3, dealer=1))
    again = open_ledger(location)
    assert [h.winner for h in again.hands()] == [1, 3] and again.totals() == [-3, 3, -3, 3]
    assert again.dealer() == 3 and again.changes() >= 2


def test_edit_history_soft_delete_and_restore(location: str) -> None:
    led = open_ledger(location)
    hid = led.record(*scored(1))
    led.update(hid, *scored(2))
    assert led.get(hid).version == 2 and [h["version"] for h in led.history(hid)] == [1]
    led.delete(hid)
    assert led.hands() == [] and led.get(hid).deleted
    with pytest.raises(LedgerError, match="no longer exists"):
        led.update(hid, *scored(1))
    led.restore(hid)
    assert led.totals() == [0, 0, 3, -3]


def test_tables_are_apart(location: str) -> None:
    a, b = open_ledger(location, table="t1"), open_ledger(location, table="t2")
    a.record(*scored(1))
    a.save_settings({"names": ["A", "B", "C", "D"]})
    assert b.hands() == [] and b.totals() == [0, 0, 0, 0] and "names" not in b.settings()
    assert a.get(a.hands()[0].id) is not None and b.get(a.hands()[0].id) is None


def test_a_record_key_belongs_to_its_table(location: str) -> None:
    """Two tables' clients may use the same key: each records its own hand, neither gets the other's id."""
    a, b = open_ledger(location, table="t1"), open_ledger(location, table="t2")
    first = a.record(*scored(1), key="hand-1")
    other = b.record(*scored(2), key="hand-1")
    assert other != first and b.record(*scored(2), key="hand-1") == other
    assert [h.winner for h in a.hands()] == [1] and [h.winner for h in b.hands()] == [2]


def test_draws_several_winners_and_settle_up(location: str) -> None:
    led = open_ledger(location)
    led.save_settings({"dealer": 2})
    led.record_draw({"ruleset": "nanjing", "context": {"dealer": 2}})
    assert led.dealer() == 2
    a = case("nanning", "123m 456s 23p 99m 789s", "4p", winner=1, dealer=2, win_type="discard", discarder=0)
    b = case("nanning", "123m 456p 789s 11p 46s", "5s", winner=3, dealer=2, win_type="discard", discarder=0)
    led.record_event("multi", [a, b], [score_case(a), score_case(b)])
    assert led.totals() == [-6, 3, 0, 3] and led.dealer() == 1
    transfers = led.settle_up()
    bal = led.totals()
    for t in transfers:
        bal[t["from"]] += t["amount"]
        bal[t["to"]] -= t["amount"]
    assert bal == [0, 0, 0, 0] and len(transfers) <= 3


def test_concurrent_writers_lose_and_duplicate_nothing(location: str) -> None:
    open_ledger(location)
    errors: list[str] = []

    def work(k: int) -> None:
        try:
            led = open_ledger(location)
            for i in range(10):
                c, r = scored(1 + (k + i) % 3)
                led.record(c, r, key=f"w{k}-{i}")
                led.record(c, r, key=f"w{k}-{i}")  # a retried request
        except Exception as e:  # reported below
            errors.append(repr(e))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    led = open_ledger(location)
    assert len(led.hands()) == 60 and sum(led.totals()) == 0


def test_settle_up_squares_any_totals() -> None:
    from hypothesis import given
    from hypothesis import strategies as st

    @given(st.lists(st.integers(-10**6, 10**6), min_size=3, max_size=3))
    def check(three: list[int]) -> None:
        totals = three + [-sum(three)]
        bal = list(totals)
        moves = settle_up(totals)
        for m in moves:
            assert m["amount"] > 0 and m["from"] != m["to"]
            bal[m["from"]] += m["amount"]
            bal[m["to"]] -= m["amount"]
        assert bal == [0, 0, 0, 0] and len(moves) <= 3

    check()


def test_both_stores_are_one_interface(location: str) -> None:
    assert isinstance(open_ledger(location), LedgerBase)


def jpeg(side: int = 64, seed: int = 0) -> bytes:
    import cv2
    import numpy as np

    img = np.random.default_rng(seed).integers(0, 255, (side, side, 3), dtype=np.uint8)
    return cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 80])[1].tobytes()


def test_evidence_is_kept_per_version_through_edits_deletes_and_restores(location: str) -> None:
    from ledger import Evidence

    led = open_ledger(location)
    reading = {"tiles": [{"code": "4p", "box": [1, 2, 3, 4], "alternatives": [{"code": "5p", "p": 0.1}]}]}
    fix = {"what": "tile", "tile": 1, "from": "5p", "to": "4p", "at": "2026-12-04 10:00:00"}
    hid = led.record(*scored(1), evidence=Evidence(jpeg(), reading, [fix]))
    (first,) = led.evidence(hid)
    assert first["version"] == 1 and first["evidence"].photo == jpeg() and first["evidence"].reading == reading
    assert first["evidence"].corrections == [fix]
    assert first["evidence"].scored_by["ruleset"] == "nanning" and first["evidence"].scored_by["engine"]
    edit = {"what": "situation", "from": "winner East", "to": "winner South", "at": "2026-12-04 10:05:00"}
    led.update(hid, *scored(2), evidence=Evidence(None, None, [edit]))
    v1, v2 = led.evidence(hid)
    assert v1["evidence"].photo == jpeg() and v1["evidence"].corrections == [fix]  # version 1 keeps its own
    assert v2["version"] == 2 and v2["evidence"].photo is None and v2["evidence"].corrections == [edit]
    led.delete(hid)
    assert len(led.evidence(hid)) == 2  # a deleted hand keeps its evidence, for the dispute about deleting it
    led.restore(hid)
    assert [e["version"] for e in led.evidence(hid)] == [1, 2]
    exported = [h for h in __import__("json").loads(led.export_json()) if h["id"] == hid][0]
    assert [e["version"] for e in exported["evidence"]] == [1, 2] and exported["evidence"][0]["photo_jpeg_base64"]
    other = open_ledger(location, table="elsewhere")
    assert other.evidence(hid) == []  # another table's hand shows nothing


def test_a_table_that_keeps_no_photos_keeps_none_and_erases_those_it_had(location: str) -> None:
    from ledger import Evidence

    led = open_ledger(location)
    before = led.record(*scored(1), evidence=Evidence(jpeg(), {"tiles": []}, []))
    led.save_settings({"keep_photos": False})
    assert led.evidence(before)[0]["evidence"].photo is None and led.evidence(before)[0]["evidence"].reading
    after = led.record(*scored(2), evidence=Evidence(jpeg(seed=1), {"tiles": []}, []))
    assert led.evidence(after)[0]["evidence"].photo is None
    led.save_settings({"keep_photos": True})
    again = led.record(*scored(3), evidence=Evidence(jpeg(seed=2), None, []))
    assert led.evidence(again)[0]["evidence"].photo == jpeg(seed=2)


def test_evidence_that_cannot_be_kept_is_refused_and_nothing_is_written(location: str) -> None:
    from ledger import Evidence

    led = open_ledger(location)
    for bad, why in ((Evidence(b"GIF89a...", None, []), "must be a JPEG"),
                     (Evidence(b"\xff\xd8\xff" + b"0" * 120_000, None, []), "at most 100 KB"),
                     (Evidence(None, None, ["not an object"]), "corrections")):  # type: ignore[list-item]
        with pytest.raises(LedgerError, match=why):
            led.record(*scored(1), evidence=bad)
    assert led.hands() == [] and led.dealer() == 0
