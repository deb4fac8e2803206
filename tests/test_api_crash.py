"""An API process killed (SIGKILL) in the middle of recording a hand leaves the ledger as it was, on both
stores: no half-written hand, audit line or dealer change; the client's retry with the same key records the
hand once."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from tests.helpers import case
from tests.postgres_server import fresh_database

httpx = pytest.importorskip("httpx", reason="the API tests need the dev extra (httpx)")
pytest.importorskip("fastapi", reason="the API needs the [api] extra")

from tests.api_server import free_port, start, stop  # noqa: E402

HAND = case("nanning", "123m 456s 23p 99m 789s", "4p", winner=1, win_type="discard", discarder=3)
OTHER = case("nanning", "123m 456s 23p 99m 789s", "4p", winner=2, win_type="discard", discarder=3)  # moves the deal


@pytest.fixture(params=["sqlite", "postgres"])
def where(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "postgres":
        return fresh_database(request.getfixturevalue("postgres_server"))
    return str(tmp_path / "ledger.sqlite3")


def snapshot(url: str, table: str, token: str) -> dict:
    """What a player sees of the table: its state, hands, totals, dealer and audit."""
    base = f"{url}/v1/tables/{table}"
    auth = {"Authorization": f"Bearer {token}"}
    return {"state": httpx.get(base, headers=auth).json(), "hands": httpx.get(base + "/hands", headers=auth).json(),
            "audit": httpx.get(base + "/audit", headers=auth).json()}


def test_a_worker_killed_mid_record_leaves_the_ledger_whole(where: str, tmp_path: Path) -> None:
    proc, url = start(where)
    try:
        t = httpx.post(url + "/v1/tables", json={"table": "crash", "public_reads": False}).json()
        auth = {"Authorization": f"Bearer {t['owner_token']}"}
        first = httpx.post(url + "/v1/tables/crash/hands", json={"case": HAND, "key": "before"}, headers=auth)
        assert first.status_code == 201
        before = snapshot(url, "crash", t["owner_token"])
    finally:
        stop(proc)

    marker = tmp_path / "inside-the-transaction"
    port = free_port()
    faulty, furl = start(where, env={"MAHJONG_FAULT_MARKER": str(marker)}, module="tests.fault_worker", port=port)
    try:
        sent: list[BaseException] = []

        def post() -> None:
            try:
                httpx.post(furl + "/v1/tables/crash/hands", json={"case": OTHER, "key": "retried"}, headers=auth,
                           timeout=60)
            except httpx.HTTPError as e:  # the server dies under the request
                sent.append(e)

        client = threading.Thread(target=post)
        client.start()
        deadline = time.time() + 30
        while not marker.exists() and time.time() < deadline:
            time.sleep(0.05)
        assert marker.exists(), "the faulty worker never reached the middle of the record"
        faulty.kill()  # SIGKILL: no cleanup, no rollback by the process
        faulty.wait(timeout=20)
        client.join(timeout=30)
        assert sent, "the client should see the connection drop, not an answer"
    finally:
        if faulty.poll() is None:
            faulty.kill()

    proc, url = start(where)
    try:
        assert snapshot(url, "crash", t["owner_token"]) == before  # no trace of the half-made record
        retry = [httpx.post(url + "/v1/tables/crash/hands", json={"case": OTHER, "key": "retried"}, headers=auth)
                 for _ in range(2)]
        assert [r.status_code for r in retry] == [201, 201] and retry[0].json()["id"] == retry[1].json()["id"]
        after = snapshot(url, "crash", t["owner_token"])
        assert len(after["hands"]) == 2 and after["state"]["dealer"] == retry[0].json()["dealer"] == 2
        assert before["state"]["dealer"] == 1
        assert [e["action"] for e in after["audit"]].count("record") == 2
    finally:
        stop(proc)
