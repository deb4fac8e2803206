"""The HTTP API against a real uvicorn server on loopback: read, score, read-and-score, waits, the ledger round
trip, a bad photo, a bad case, an oversize upload, the docs; and two replicas on one PostgreSQL ledger."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from scoring import score_case
from tests.helpers import SHARED, case
from tests.image_files import encoded, tiff_bomb
from tests.postgres_server import fresh_database

httpx = pytest.importorskip("httpx", reason="the API tests need the dev extra (httpx)")
pytest.importorskip("fastapi", reason="the API needs the [api] extra")

from tests.api_server import start, stop  # noqa: E402

GOOD = case("nanning", "123m 456s 23p 99m 789s", "4p", winner=1, win_type="discard", discarder=3)
VALID = SHARED / "data" / "chinese-mahjong-rf" / "valid" / "images"


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    proc, url = start(str(tmp_path_factory.mktemp("api") / "ledger.sqlite3"))
    yield url
    stop(proc)


def test_score_and_a_bad_case(api: str) -> None:
    r = httpx.post(api + "/v1/score", json=GOOD)
    assert r.status_code == 200 and r.json() == score_case(GOOD)
    bad = dict(GOOD, ruleset="riichi")
    r = httpx.post(api + "/v1/score", json=bad)
    assert r.status_code == 422 and r.json() == score_case(bad)  # the CLI's invalid_input object


def test_waits(api: str) -> None:
    q = case("nanning", "123m 456p 789s EE 23m", None)
    q["hand"]["winning_tile"] = None
    r = httpx.post(api + "/v1/waits", json=q)
    assert r.status_code == 200 and [w["tile"] for w in r.json()["waits"]] == ["1m", "4m"]


def test_read_a_photo_and_read_and_score(api: str) -> None:
    photo = next(VALID.glob("*.jpg"), None) if VALID.exists() else None
    data = photo.read_bytes() if photo else encoded("JPEG")
    r = httpx.post(api + "/v1/read", files={"photo": ("hand.jpg", data, "image/jpeg")},
                   params={"ruleset": "nanjing"}, timeout=60)
    assert r.status_code == 200
    body = r.json()
    assert {"tiles", "groups", "hand", "warnings", "corrections"} <= set(body)
    if photo:
        assert len(body["tiles"]) >= 5
    r = httpx.post(api + "/v1/read-and-score", files={"photo": ("hand.jpg", data, "image/jpeg")},
                   data={"ruleset": "nanning", "context": '{"winner": 0, "dealer": 0, "win_type": "self_draw"}'},
                   timeout=60)
    assert r.status_code == 200 and {"reading", "score"} <= set(r.json())


def test_a_bad_photo_is_a_400_with_the_pages_words(api: str) -> None:
    r = httpx.post(api + "/v1/read", files={"photo": ("x.tiff", tiff_bomb(), "image/tiff")})
    assert r.status_code == 400 and "megapixels, over the 50 MP limit" in r.json()["detail"]["message"]
    r = httpx.post(api + "/v1/read", files={"photo": ("notes.txt", b"hello", "text/plain")})
    assert r.status_code == 400 and "not an image file" in r.json()["detail"]["message"]


def test_an_oversize_upload_is_refused(api: str) -> None:
    big = b"\xff\xd8\xff" + b"\0" * (42 * 2**20)
    r = httpx.post(api + "/v1/read", files={"photo": ("big.jpg", big, "image/jpeg")}, timeout=60)
    assert r.status_code == 413


def owned(api: str, table: str, **access: bool) -> httpx.Client:
    """A client holding the owner token of a new table."""
    r = httpx.post(api + "/v1/tables", json={"table": table, **access})
    assert r.status_code == 201, r.text
    return httpx.Client(headers={"Authorization": f"Bearer {r.json()['owner_token']}"}, timeout=60)


def test_the_ledger_round_trip(api: str) -> None:
    t = api + "/v1/tables/parlour-7"
    c = owned(api, "parlour-7")
    r = c.post(t + "/hands", json={"case": GOOD, "key": "entry-1"})
    assert r.status_code == 201
    hid = r.json()["id"]
    assert c.post(t + "/hands", json={"case": GOOD, "key": "entry-1"}).json()["id"] == hid  # idempotent
    edited = case("nanning", "123m 456s 23p 99m 789s", "4p", winner=2, win_type="discard", discarder=3)
    r = c.put(f"{t}/hands/{hid}", json={"case": edited})
    assert r.status_code == 200 and r.json()["version"] == 2 and r.json()["by"] == "owner"
    assert [h["version"] for h in httpx.get(f"{t}/hands/{hid}/history").json()] == [1]
    state = httpx.get(t).json()
    assert state["totals"] == [0, 0, 3, -3] and state["dealer"] == 1 and state["settle_up"]  # an edit keeps the deal
    assert c.delete(f"{t}/hands/{hid}").status_code == 200
    assert httpx.get(t + "/hands").json() == []
    assert c.post(f"{t}/hands/{hid}/restore").status_code == 200
    assert len(httpx.get(t + "/hands").json()) == 1
    assert httpx.get(api + "/v1/tables/other-table/hands").json() == []  # tables are apart
    r = c.post(t + "/hands", json={"case": dict(GOOD, ruleset="x")})
    assert r.status_code == 422 and r.json()["error"] == "invalid_input"
    assert httpx.get(f"{t}/hands/999999").status_code == 404


def test_a_drawn_hand_is_settled_with_its_kongs_and_keeps_the_dealer(api: str) -> None:
    t = api + "/v1/tables/draw-table"
    c = owned(api, "draw-table")
    c.put(t + "/settings", json={"dealer": 2})
    body = {"ruleset": "nanning", "kong_events": [{"seat": 1, "kind": "exposed", "from": 3},
                                                  {"seat": 0, "kind": "concealed"}], "key": "d1"}
    r = c.post(t + "/draws", json=body)
    assert r.status_code == 201, r.text
    want = score_case({"ruleset": "nanning", "kind": "draw", "options": {},
                       "context": {"dealer": 2, "kong_events": body["kong_events"]}})
    assert r.json()["result"] == want and r.json()["dealer"] == 2
    assert c.post(t + "/draws", json=body).json()["id"] == r.json()["id"]  # idempotent per key
    state = httpx.get(t).json()
    assert state["totals"] == want["net"] == [3, 0, -1, -2] and state["dealer"] == 2
    bad = c.post(t + "/draws", json={"kong_events": [{"seat": 1, "kind": "added", "from": 3, "robbed": True}]})
    assert bad.status_code == 422 and "robbed" in bad.json()["message"]


def test_openapi_docs_are_served(api: str) -> None:
    assert httpx.get(api + "/docs").status_code == 200
    assert "/v1/read-and-score" in httpx.get(api + "/openapi.json").json()["paths"]


def test_two_replicas_on_one_postgresql_ledger_lose_and_duplicate_nothing(postgres_server: str) -> None:
    db = fresh_database(postgres_server)
    (p1, a), (p2, b) = start(db), start(db)
    token = owned(a, "hall").headers["Authorization"]
    try:
        errors: list[str] = []
        ids: list[int] = []
        lock = threading.Lock()

        def client(k: int) -> None:
            with httpx.Client(timeout=60, headers={"Authorization": token}) as c:
                for i in range(50):
                    base = (a, b)[(k + i) % 2]
                    w = 1 + (k + i) % 3
                    hand = case("nanning", "123m 456s 23p 99m 789s", "4p", winner=w, win_type="discard",
                                discarder=(w + 1) % 4)
                    body = {"case": hand, "key": f"c{k}-h{i}"}
                    r = c.post(base + "/v1/tables/hall/hands", json=body)
                    again = c.post((a, b)[(k + i + 1) % 2] + "/v1/tables/hall/hands", json=body)  # a retry
                    if r.status_code != 201 or again.json().get("id") != r.json().get("id"):
                        errors.append(f"{r.status_code} {r.text[:100]}")
                    with lock:
                        ids.append(r.json().get("id"))

        threads = [threading.Thread(target=client, args=(k,)) for k in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors
        assert len(ids) == 400 and len(set(ids)) == 400
        from_a = httpx.get(a + "/v1/tables/hall").json()
        from_b = httpx.get(b + "/v1/tables/hall").json()
        assert from_a["totals"] == from_b["totals"] and sum(from_a["totals"]) == 0
        assert len(httpx.get(a + "/v1/tables/hall/hands", timeout=60).json()) == 400
        assert from_a["dealer"] == from_b["dealer"]
    finally:
        stop(p1)
        stop(p2)


def test_the_api_is_not_needed_by_the_page_or_the_clis() -> None:
    import subprocess
    import sys

    code = ("import sys; import scoring.__main__, vision.__main__, webapp.panels.result, ledger; "
            "print(sorted(m for m in ('fastapi', 'uvicorn', 'psycopg') if m in sys.modules))")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       cwd=Path(__file__).resolve().parents[1], timeout=120)
    assert p.returncode == 0 and p.stdout.strip() == "[]", p.stdout + p.stderr


@pytest.mark.skipif(not (Path(__file__).resolve().parents[1] / "models" / "detector.onnx").exists(),
                    reason="shipped models not built")
def test_the_api_loads_its_models_before_the_first_request() -> None:
    """A parlour's first photo costs no model load: the process loads and warms the reader while starting."""
    from fastapi.testclient import TestClient

    from service import app as service_app

    service_app.reader.cache_clear()
    with TestClient(service_app.app):
        assert service_app.reader.cache_info().currsize == 1  # loaded, before any request was made
