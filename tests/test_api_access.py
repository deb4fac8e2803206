"""Who may change a table over HTTP, on a real server per store (SQLite and PostgreSQL): every write without a
token is a 401, with another table's token a 403; the owner may do everything, a player records and edits only
where the table allows; closed tables' reads; who did what; and guessing tokens, join codes and reading photos
in a loop are throttled with 429 and Retry-After."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import case
from tests.postgres_server import fresh_database

httpx = pytest.importorskip("httpx", reason="the API tests need the dev extra (httpx)")
pytest.importorskip("fastapi", reason="the API needs the [api] extra")

from tests.api_server import start, stop  # noqa: E402

HAND = case("nanning", "123m 456s 23p 99m 789s", "4p", winner=1, win_type="discard", discarder=3)
EDITED = case("nanning", "123m 456s 23p 99m 789s", "4p", winner=2, win_type="discard", discarder=3)
LIMITS = {"MAHJONG_GUESS_LIMIT": "5/60", "MAHJONG_READ_LIMIT": "3/60"}


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def api(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server with low guessing and reading limits, on each store."""
    if request.param == "postgres":
        where = fresh_database(request.getfixturevalue("postgres_server"))
    else:
        where = str(tmp_path_factory.mktemp("access") / "ledger.sqlite3")
    proc, url = start(where, env=LIMITS)
    yield url
    stop(proc)


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def create(api: str, table: str, **access: bool) -> dict:
    r = httpx.post(api + "/v1/tables", json={"table": table, **access})
    assert r.status_code == 201, r.text
    return r.json()


def join(api: str, table: str, code: str, name: str) -> tuple[dict[str, str], str]:
    """A player's token as headers, and the name their writes are kept under."""
    r = httpx.post(f"{api}/v1/tables/{table}/join", json={"code": code, "name": name})
    assert r.status_code == 201, r.text
    assert r.json()["role"] == "player" and r.json()["name"].endswith(f": {name}")
    return bearer(r.json()["token"]), r.json()["name"]


def writes(api: str, table: str, hand_id: int) -> list[tuple[str, str, dict | None]]:
    """Every write endpoint of a table (method, URL, JSON body)."""
    t = f"{api}/v1/tables/{table}"
    return [("PUT", t + "/settings", {"dealer": 1}),
            ("POST", t + "/hands", {"case": HAND, "key": "w1"}),
            ("POST", t + "/draws", {"ruleset": "nanning", "key": "d1"}),
            ("PUT", f"{t}/hands/{hand_id}", {"case": EDITED}),
            ("DELETE", f"{t}/hands/{hand_id}", None),
            ("POST", f"{t}/hands/{hand_id}/restore", None),
            ("PUT", t + "/access", {"players_edit": True}),
            ("GET", t + "/access", None),
            ("DELETE", t + "/tokens/1", None)]


def send(method: str, url: str, body: dict | None, headers: dict[str, str] | None = None) -> httpx.Response:
    return httpx.request(method, url, json=body, headers=headers, timeout=60)


def test_every_write_needs_a_token_of_that_table(api: str) -> None:
    a, b = create(api, "table-a"), create(api, "table-b")
    owner_a = bearer(a["owner_token"])
    r = httpx.post(api + "/v1/tables/table-a/hands", json={"case": HAND, "key": "first"}, headers=owner_a)
    assert r.status_code == 201, r.text
    hid = r.json()["id"]
    before = httpx.get(api + "/v1/tables/table-a").json()
    for method, url, body in writes(api, "table-a", hid):
        r = send(method, url, body)
        assert r.status_code == 401, (method, url, r.status_code, r.text)
        assert r.headers["WWW-Authenticate"].startswith("Bearer"), url
        r = send(method, url, body, bearer(b["owner_token"]))  # table B's owner has nothing on table A
        assert r.status_code == 403, (method, url, r.status_code, r.text)
        assert "another table" in r.json()["detail"]["message"]
    assert httpx.get(api + "/v1/tables/table-a").json() == before  # nothing changed
    assert len(httpx.get(api + "/v1/tables/table-a/hands").json()) == 1
    unshared = send("POST", api + "/v1/tables/never-created/hands", {"case": HAND})
    assert unshared.status_code == 401 and "POST /v1/tables" in unshared.json()["detail"]["message"]


def test_the_owner_may_do_everything(api: str) -> None:
    t = create(api, "owned")
    owner = bearer(t["owner_token"])
    first = send("POST", api + "/v1/tables/owned/hands", {"case": HAND, "key": "first"}, owner)
    assert first.status_code == 201, first.text
    statuses = []
    for method, url, body in writes(api, "owned", first.json()["id"]):
        if method == "DELETE" and "/tokens/" in url:
            player, _ = join(api, "owned", t["join_code"], "Bo")
            tokens = send("GET", api + "/v1/tables/owned/access", None, owner).json()["tokens"]
            url = url.rsplit("/", 1)[0] + f"/{max(k['id'] for k in tokens)}"
        r = send(method, url, body, owner)
        statuses.append(r.status_code)
        assert r.status_code in (200, 201), (method, url, r.status_code, r.text)
    assert statuses.count(201) == 2  # a hand and a draw recorded
    assert send("POST", api + "/v1/tables/owned/hands", {"case": HAND}, player).status_code == 401  # revoked


def test_a_player_records_and_edits_only_where_the_table_allows(api: str) -> None:
    t = create(api, "club")
    owner, (ann, who) = bearer(t["owner_token"]), join(api, "club", t["join_code"], "Ann")
    base = api + "/v1/tables/club"
    r = send("POST", base + "/hands", {"case": HAND, "key": "k1"}, ann)
    assert r.status_code == 201
    hid = r.json()["id"]
    assert send("POST", base + "/draws", {"ruleset": "nanning", "key": "k2"}, ann).status_code == 201
    assert send("PUT", base + "/settings", {"names": ["Ann", "Bo", "Cy", "Di"]}, ann).status_code == 200
    refused = [("PUT", f"{base}/hands/{hid}", {"case": EDITED}), ("DELETE", f"{base}/hands/{hid}", None),
               ("POST", f"{base}/hands/{hid}/restore", None), ("PUT", base + "/access", {"players_edit": True}),
               ("GET", base + "/access", None)]
    for method, url, body in refused:
        r = send(method, url, body, ann)
        assert r.status_code == 403 and "only the owner" in r.json()["detail"]["message"], (method, url, r.text)
    assert send("PUT", base + "/access", {"players_edit": True}, owner).json()["access"]["players_edit"] is True
    r = send("PUT", f"{base}/hands/{hid}", {"case": EDITED}, ann)
    assert r.status_code == 200 and r.json()["by"] == who and r.json()["version"] == 2
    assert send("DELETE", f"{base}/hands/{hid}", None, ann).status_code == 200
    assert send("POST", f"{base}/hands/{hid}/restore", None, ann).status_code == 200
    assert send("PUT", base + "/access", {"public_reads": False}, ann).status_code == 403  # access stays the owner's
    history = httpx.get(f"{base}/hands/{hid}/history").json()
    assert [h["by"] for h in history] == [who]  # version 1 was Ann's record
    actions = {(e["by"], e["action"]) for e in httpx.get(base + "/audit").json()}
    assert {(who, "record"), (who, "edit"), (who, "delete"), (who, "restore"), ("owner", "access")} <= actions


def test_a_closed_tables_reads_need_its_token(api: str) -> None:
    t, other = create(api, "closed", public_reads=False), create(api, "open-one")
    base = api + "/v1/tables/closed"
    bo, _ = join(api, "closed", t["join_code"], "Bo")
    for url in (base, base + "/hands", base + "/audit"):
        assert httpx.get(url).status_code == 401, url
        assert httpx.get(url, headers=bearer(other["owner_token"])).status_code == 403, url
        assert httpx.get(url, headers=bo).status_code == 200, url
    assert httpx.get(api + "/v1/tables/open-one/hands").status_code == 200  # public by default
    assert httpx.post(api + "/v1/score", json=HAND).status_code == 200  # scoring needs no table, no token


def test_the_openapi_docs_show_the_bearer_token(api: str) -> None:
    spec = httpx.get(api + "/openapi.json").json()
    schemes = spec["components"]["securitySchemes"]
    assert any(s["type"] == "http" and s["scheme"] == "bearer" for s in schemes.values())
    for path, method in (("/v1/tables/{table}/hands", "post"), ("/v1/tables/{table}/hands/{hand_id}", "delete"),
                         ("/v1/tables/{table}/settings", "put"), ("/v1/tables/{table}/draws", "post")):
        assert spec["paths"][path][method].get("security"), (path, method)
    assert "security" not in spec["paths"]["/v1/score"]["post"]


def test_reading_photos_in_a_loop_is_throttled(api: str) -> None:
    codes = [httpx.post(api + "/v1/read", files={"photo": ("notes.txt", b"hello", "text/plain")}).status_code
             for _ in range(4)]
    assert codes[:3] == [400, 400, 400]  # counted before decoding: a bad photo costs a request too
    r = httpx.post(api + "/v1/read-and-score", files={"photo": ("n.txt", b"hello", "text/plain")})
    assert codes[3] == 429 and r.status_code == 429 and int(r.headers["Retry-After"]) >= 1
    assert httpx.post(api + "/v1/score", json=HAND).status_code == 200  # scoring is not held up


def test_guessing_tokens_and_join_codes_is_throttled(api: str) -> None:
    """Runs last: it spends the client's guesses (5 a minute on this server)."""
    t = create(api, "guessed")
    base = api + "/v1/tables/guessed"
    wrong: list[tuple[int, int]] = []  # (expected refusal, status), wrong join codes and unknown tokens in turn
    for i in range(8):
        if i % 2:
            wrong.append((401, httpx.get(base + "/hands", headers=bearer(f"mjt_guess{i}")).status_code))
        else:
            wrong.append((403, httpx.post(base + "/join", json={"code": f"AAAAA-BBBB{i}"}).status_code))
        if wrong[-1][1] == 429:
            break
    refused = [status for status, _ in wrong[:-1]]
    assert wrong[-1][1] == 429 and [got for _, got in wrong[:-1]] == refused  # a revoked token above was a guess
    assert 3 <= len(refused) <= 5, wrong
    r = httpx.post(base + "/join", json={"code": t["join_code"]})  # even the right code waits now
    assert r.status_code == 429 and int(r.headers["Retry-After"]) >= 1
    r = httpx.post(base + "/hands", json={"case": HAND}, headers=bearer(t["owner_token"]))
    assert r.status_code == 429 and "wrong tokens" in r.json()["detail"]["message"]
    assert httpx.get(base + "/hands").status_code == 200  # public reads without a token go on


def test_tokens_are_kept_only_as_digests(tmp_path: Path) -> None:
    from ledger import open_ledger

    led = open_ledger(str(tmp_path / "l.sqlite3"), table="t")
    token, code = led.share()
    import sqlite3

    with sqlite3.connect(tmp_path / "l.sqlite3") as db:
        dump = "\n".join(db.iterdump())
    assert token not in dump and code not in dump and code.replace("-", "") not in dump
    assert led.actor(token) is not None and led.actor(token + "x") is None
