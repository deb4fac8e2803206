"""A hand's evidence over HTTP: recorded with the hand (photo, reading, corrections), each version's own after an
edit, with the score as it was, in the export; bad evidence is a 422 with nothing recorded; a table that keeps
no photos keeps none."""

from __future__ import annotations

import base64
from collections.abc import Iterator

import pytest

from tests.helpers import case
from tests.test_ledger_contract import jpeg

httpx = pytest.importorskip("httpx", reason="the API tests need the dev extra (httpx)")
pytest.importorskip("fastapi", reason="the API needs the [api] extra")

from tests.api_server import start, stop  # noqa: E402

HAND = case("nanning", "123m 456s 23p 99m 789s", "4p", winner=1, win_type="discard", discarder=3)
EDITED = case("nanning", "123m 456s 23p 99m 789s", "4p", winner=1, win_type="discard", discarder=2)


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    proc, url = start(str(tmp_path_factory.mktemp("evidence") / "ledger.sqlite3"))
    yield url
    stop(proc)


def table(api: str, name: str) -> tuple[str, dict[str, str]]:
    t = httpx.post(api + "/v1/tables", json={"table": name}).json()
    return f"{api}/v1/tables/{name}", {"Authorization": f"Bearer {t['owner_token']}"}


def test_evidence_is_recorded_with_the_hand_and_each_version_keeps_its_own(api: str) -> None:
    base, auth = table(api, "disputed")
    photo = base64.b64encode(jpeg()).decode()
    reading = {"tiles": [{"code": "5p", "box": [10, 10, 40, 60]}]}
    fix = {"what": "tile", "tile": 1, "from": "5p", "to": "4p", "at": "2026-12-04 21:00:00"}
    r = httpx.post(base + "/hands", headers=auth, json={"case": HAND, "key": "h1", "evidence": {
        "photo_jpeg_base64": photo, "reading": reading, "corrections": [fix]}})
    assert r.status_code == 201, r.text
    hid = r.json()["id"]
    r = httpx.put(f"{base}/hands/{hid}", headers=auth, json={"case": EDITED, "evidence": {"corrections": [
        {"what": "situation", "from": "discarder 3", "to": "discarder 2", "at": "2026-12-05 09:00:00"}]}})
    assert r.status_code == 200, r.text
    ev = httpx.get(f"{base}/hands/{hid}/evidence").json()
    v1, v2 = ev["versions"]
    assert v1["photo_jpeg_base64"] == photo and v1["reading"] == reading and v1["corrections"] == [fix]
    assert v1["results"][0]["net"] == [0, 3, 0, -3] and v1["by"] == "owner"  # the score as it was
    assert v2["photo_jpeg_base64"] is None and v2["results"][0]["net"] == [0, 3, -3, 0]
    assert v1["scored_by"]["ruleset"] == "nanning" and v1["scored_by"]["engine"]
    assert httpx.get(f"{base}/hands/999999/evidence").status_code == 404


def test_evidence_that_cannot_be_kept_is_a_422_and_nothing_is_recorded(api: str) -> None:
    base, auth = table(api, "strict")
    for bad in ({"photo_jpeg_base64": "not base64!"}, {"photo_jpeg_base64": base64.b64encode(b"GIF89a").decode()},
                {"corrections": "fixed"}):
        r = httpx.post(base + "/hands", headers=auth, json={"case": HAND, "evidence": bad})
        assert r.status_code == 422, (bad, r.text)
    assert httpx.get(base + "/hands").json() == []
    assert httpx.put(base + "/settings", headers=auth, json={"keep_photos": "no"}).status_code == 422


def test_a_table_that_keeps_no_photos_keeps_none(api: str) -> None:
    base, auth = table(api, "private")
    assert httpx.put(base + "/settings", headers=auth, json={"keep_photos": False}).status_code == 200
    r = httpx.post(base + "/hands", headers=auth, json={"case": HAND, "evidence": {
        "photo_jpeg_base64": base64.b64encode(jpeg()).decode(), "reading": {"tiles": []}}})
    (v1,) = httpx.get(f"{base}/hands/{r.json()['id']}/evidence").json()["versions"]
    assert v1["photo_jpeg_base64"] is None and v1["reading"] == {"tiles": []}
