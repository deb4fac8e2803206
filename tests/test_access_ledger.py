"""Who may change a table, in the ledger itself, on both stores: sharing, joining, tokens of another table,
players' rights, who-did-what in the hand, its history and the audit log, and schema migration with no hand lost."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from ledger import AccessDenied, LedgerError, open_ledger
from ledger.access import Actor, digest
from tests.postgres_server import fresh_database
from tests.test_ledger_contract import scored


@pytest.fixture(params=["sqlite", "postgres"])
def location(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "ledger.sqlite3")
    return fresh_database(request.getfixturevalue("postgres_server"))


def test_an_unshared_table_is_this_devices_and_a_shared_one_needs_its_tokens(location: str) -> None:
    led = open_ledger(location, table="home")
    hid = led.record(*scored(1))  # single-machine use: no set-up
    assert led.get(hid).by == "this device"
    owner_token, code = led.share()
    owner = led.actor(owner_token)
    assert owner is not None and owner.role == "owner" and owner.table == "home"
    with pytest.raises(AccessDenied, match="is shared") as e:
        led.record(*scored(2))  # the page without a token no longer writes
    assert e.value.why == "forbidden"
    with pytest.raises(AccessDenied) as e:
        led.check("record", None)
    assert e.value.why == "no_token"
    assert led.record(*scored(2), by=owner) > hid
    with pytest.raises(LedgerError, match="already shared"):
        led.share()


def test_tokens_are_kept_as_digests_and_a_token_of_another_table_gives_nothing(location: str) -> None:
    a, b = open_ledger(location, table="a"), open_ledger(location, table="b")
    ta, code_a = a.share()
    tb, _ = b.share()
    owner_a = a.actor(ta)
    with pytest.raises(AccessDenied, match="another table") as e:
        b.record(*scored(1), by=owner_a)
    assert e.value.why == "forbidden"
    with pytest.raises(AccessDenied):
        b.join(code_a, "Ann")  # a's code does not open b
    assert a.actor("mjt_not-a-token") is None and a.actor("") is None
    if not location.startswith("postgres"):
        db = sqlite3.connect(location)
        stored = [r[0] for r in db.execute("SELECT digest FROM table_tokens")]
        joins = [r[0] for r in db.execute("SELECT join_digest FROM table_access")]
        assert digest(ta) in stored and ta not in stored and tb not in stored
        assert code_a not in joins and all(len(j) == 64 for j in joins)


def test_players_record_and_set_up_and_edit_only_where_the_owner_allows(location: str) -> None:
    led = open_ledger(location, table="club")
    owner_token, code = led.share()
    owner = led.actor(owner_token)
    token, ann = led.join(code.lower().replace("-", " "), "Ann")  # as typed on a phone
    assert led.actor(token) == ann and ann.role == "player"
    hid = led.record(*scored(1), by=ann)
    led.save_settings({"names": ["Ann", "Bo", "Chen", "Dai"]}, by=ann)
    for act in (lambda: led.update(hid, *scored(2), by=ann), lambda: led.delete(hid, by=ann),
                lambda: led.set_policy(ann, players_edit=True)):
        with pytest.raises(AccessDenied, match="only the owner"):
            act()
    led.set_policy(owner, players_edit=True)
    led.update(hid, *scored(2), by=ann)
    led.delete(hid, by=ann)
    led.restore(hid, by=ann)
    rec = led.get(hid)
    assert rec.by == ann.name and rec.version == 2
    assert [h["by"] for h in led.history(hid)] == [ann.name]
    actions = [(e["action"], e["by"]) for e in reversed(led.audit())]
    assert actions == [("share", "this device"), ("join", ann.name), ("record", ann.name),
                       ("settings", ann.name), ("access", "owner"), ("edit", ann.name), ("delete", ann.name),
                       ("restore", ann.name)]
    led.revoke(ann.token_id, owner)
    assert led.actor(token) is None
    with pytest.raises(LedgerError, match="no player token"):
        led.revoke(owner.token_id, owner)  # the owner's own token stays


def test_a_new_join_code_replaces_the_old_one_and_reads_can_be_closed(location: str) -> None:
    led = open_ledger(location, table="closed")
    owner_token, code = led.share(public_reads=False)
    owner = led.actor(owner_token)
    assert not led.permits("read", None) and led.permits("read", owner)
    policy, new = led.set_policy(owner, new_code=True)
    assert new and new != code and not policy.public_reads
    with pytest.raises(AccessDenied):
        led.join(code)
    _, player = led.join(new)
    assert led.permits("read", player) and not led.permits("access", player)


def test_the_api_creates_only_new_tables(location: str) -> None:
    led = open_ledger(location, table="taken")
    led.record(*scored(1))
    with pytest.raises(LedgerError, match="already exists"):
        led.share(new_table=True)
    fresh = open_ledger(location, table="fresh")
    fresh.share(new_table=True)


def test_a_version_3_sqlite_ledger_migrates_with_no_hand_lost(tmp_path: Path) -> None:
    path = tmp_path / "v3.sqlite3"
    from ledger.store import MIGRATIONS, SCHEMA_VERSION

    db = sqlite3.connect(path)
    for v in (1, 2, 3):
        for statement in MIGRATIONS[v].split(";\n"):
            if statement.strip():
                db.execute(statement)
    c, r = scored(1)
    for table in ("main", "other"):
        db.execute("INSERT INTO hands (table_id, created, ruleset, case_json, result_json, net0, net1, net2, net3) "
                   "VALUES (?, '2026-11-01 10:00:00', 'nanning', ?, ?, 0, 3, -3, 0)",
                   (table, json.dumps([c]), json.dumps([r])))
    db.execute("PRAGMA user_version = 3")
    db.commit()
    db.close()
    led = open_ledger(str(path))
    assert [(h.case, h.by) for h in led.hands()] == [(c, "")] and open_ledger(str(path), "other").totals() == [
        0, 3, -3, 0]
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 5
    old = led.hands()[0].id
    assert led.evidence(old) == []  # a hand from before evidence was kept has none, and says so by its absence
    new = led.record(c, r)
    led.share()  # the new tables are there
    assert [e["evidence"].scored_by["ruleset"] for e in led.evidence(new)] == ["nanning"]


def test_a_version_1_postgresql_ledger_migrates_with_no_hand_lost(postgres_server: str) -> None:
    import psycopg

    from ledger.postgres import MIGRATIONS, SCHEMA_VERSION

    url = fresh_database(postgres_server)
    c, r = scored(1)
    with psycopg.connect(url) as db:
        for statement in MIGRATIONS[1].split(";\n"):
            db.execute(statement)
        db.execute("INSERT INTO hands (table_id, created, ruleset, case_json, result_json, net0, net1, net2, net3) "
                   "VALUES ('main', '2026-11-01 10:00:00', 'nanning', %s, %s, 0, 3, -3, 0)",
                   (json.dumps([c]), json.dumps([r])))
    led = open_ledger(url)
    assert [(h.case, h.by) for h in led.hands()] == [(c, "")]
    with psycopg.connect(url) as db:
        assert db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()[0] == SCHEMA_VERSION == 3
    assert led.evidence(led.hands()[0].id) == [] and led.evidence(led.record(c, r))[0]["version"] == 1
    token, _ = led.share()
    assert led.actor(token) == Actor("owner", "main", "owner", led.actor(token).token_id)
