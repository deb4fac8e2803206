"""FastAPI application: the same reading, scoring and ledger as the page and the CLIs, over HTTP JSON.

Errors are the CLI's and the page's: a malformed case is a 422 with the ``invalid_input`` object, a bad photo a
400 with the page's words, an upload over the photo limit a 413. The API keeps no state that matters outside
the ledger ($MAHJONG_LEDGER: SQLite file or postgresql:// URL), so several processes can serve one parlour.
"""

from __future__ import annotations

import json
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import lru_cache
from typing import Any

from fastapi import Body, FastAPI, File, Form, HTTPException, Query, UploadFile
from fastapi.responses import JSONResponse

from ledger import LedgerBase, LedgerError, open_ledger
from scoring import DEFAULT, RULESETS, score_case
from scoring.waits import waits
from vision import pipeline
from vision.models import ModelMissing
from vision.photo import MAX_BYTES, PhotoError
from vision.pipeline import Photo
from vision.reader import TileReader

_reader_lock = threading.Lock()


@lru_cache(maxsize=1)
def reader() -> TileReader:
    """One tile reader per API process (loaded and warmed at start-up, ``lifespan``)."""
    return TileReader(threads=1)


@asynccontextmanager
async def lifespan(_: FastAPI) -> AsyncIterator[None]:
    """The models are loaded and warmed before the process accepts a request, so no photo waits for them. Without
    a model the API still starts: scoring and the ledger serve, and /v1/read answers 503 with the reason."""
    try:
        reader().warm()
    except ModelMissing:
        reader.cache_clear()
    yield


app = FastAPI(title="Mahjong hand reader & scorer", version="1", lifespan=lifespan,
              description="Read a photographed hand, score it under Nanning / Nanjing rules, keep tables' ledgers.")


class BodyLimit:
    """ASGI middleware: a request body over the photo limit (plus room for form fields) is refused with 413
    before it is read into memory."""

    def __init__(self, inner: Any, limit: int = MAX_BYTES + 1_000_000) -> None:
        self.inner, self.limit = inner, limit

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.inner(scope, receive, send)
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.limit:
            return await _too_large(send, self.limit)
        seen = 0

        async def counted() -> dict:
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > self.limit:
                raise HTTPException(413, f"the upload is over the {self.limit // 2**20} MB limit")
            return message

        return await self.inner(scope, counted, send)


async def _too_large(send: Any, limit: int) -> None:
    body = json.dumps({"error": "too_large", "message": f"the upload is over the {limit // 2**20} MB limit for a "
                       "photo"}).encode()
    await send({"type": "http.response.start", "status": 413,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


app.add_middleware(BodyLimit)


@lru_cache(maxsize=256)
def ledger(table: str) -> LedgerBase:
    """The ledger of one table (every process opens the same $MAHJONG_LEDGER)."""
    return open_ledger(table=table)


def _ledger_or_error(table: str) -> LedgerBase:
    if not table or len(table) > 64:
        raise HTTPException(422, "a table id has 1 to 64 characters")
    try:
        return ledger(table)
    except LedgerError as e:
        raise HTTPException(503, str(e)) from None


def _json_field(raw: str | None, name: str) -> Any:
    if raw is None or raw == "":
        return None
    try:
        return json.loads(raw)
    except json.JSONDecodeError as e:
        raise HTTPException(422, {"valid": False, "error": "invalid_input",
                                  "message": f"{name}: malformed JSON ({e.msg})"}) from None


async def _photo(photo: UploadFile) -> Photo:
    data = await photo.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise HTTPException(413, f"the photo is over the {MAX_BYTES // 2**20} MB limit")
    name = photo.filename or "photo"
    try:
        return Photo.decode(data, name)
    except PhotoError as e:
        raise HTTPException(400, {"error": "bad_photo", "message": str(e)}) from None


def _read(photo: Photo, ruleset: str, winner: int) -> dict[str, Any]:
    if ruleset not in RULESETS:
        raise HTTPException(422, {"valid": False, "error": "invalid_input",
                                  "message": f"ruleset: unknown ruleset {ruleset!r} (known: {', '.join(RULESETS)})"})
    try:
        with _reader_lock:  # one reading at a time per process: the model uses the process's cores
            r = pipeline.read(photo, reader(), ruleset, True, winner)
    except ModelMissing as e:
        raise HTTPException(503, {"error": "model_missing", "message": str(e)}) from None
    return r.to_json()


def _scored(case: Any) -> JSONResponse:
    result = score_case(case)
    return JSONResponse(result, status_code=422 if result.get("error") == "invalid_input" else 200)


@app.post("/v1/read", summary="Read a photo into tiles, groups and a hand (as `python -m vision --json`)")
async def read(photo: UploadFile = File(...), ruleset: str = Query(DEFAULT),  # noqa: B008
               winner: int = Query(0, ge=0, le=3)) -> dict[str, Any]:
    return _read(await _photo(photo), ruleset, winner)


@app.post("/v1/score", summary="Score a case (RULES.md §0.2-0.3) into the §0.4 result")
def score(case: Any = Body(...)) -> JSONResponse:  # noqa: B008
    return _scored(case)


@app.post("/v1/waits", summary="What wins a 13-tile hand, and for how much")
def wait_table(case: Any = Body(...)) -> JSONResponse:  # noqa: B008
    out = waits(case)
    return JSONResponse(out, status_code=422 if out.get("error") == "invalid_input" else 200)


@app.post("/v1/read-and-score", summary="Read a photo and score the hand read in the given situation")
async def read_and_score(photo: UploadFile = File(...), ruleset: str = Form(DEFAULT),  # noqa: B008
                         context: str = Form('{"winner": 0, "dealer": 0, "win_type": "self_draw"}'),
                         options: str | None = Form(None)) -> JSONResponse:
    ctx = _json_field(context, "context") or {}
    opts = _json_field(options, "options") or {}
    winner = ctx.get("winner", 0) if isinstance(ctx, dict) and ctx.get("winner") in (0, 1, 2, 3) else 0
    reading = _read(await _photo(photo), ruleset, winner)
    if reading["hand"] is None:
        result: dict[str, Any] = {"valid": False, "error": "invalid_input", "message": "the hand could not be read"}
    else:
        result = score_case({"ruleset": ruleset, "options": opts, "hand": reading["hand"], "context": ctx})
    return JSONResponse({"reading": reading, "score": result})


# ---------------------------------------------------------------- ledgers


@app.get("/v1/tables/{table}", summary="A table's set-up, dealer, running totals and settle-up transfers")
def table_state(table: str) -> dict[str, Any]:
    led = _ledger_or_error(table)
    return {"table": table, "settings": led.settings(), "dealer": led.dealer(), "totals": led.totals(),
            "settle_up": led.settle_up(), "changes": led.changes()}


@app.put("/v1/tables/{table}/settings", summary="Save (part of) a table's set-up")
def save_settings(table: str, settings: dict[str, Any] = Body(...)) -> dict[str, Any]:  # noqa: B008
    led = _ledger_or_error(table)
    led.save_settings(settings)
    return {"table": table, "settings": led.settings()}


@app.get("/v1/tables/{table}/hands", summary="The table's recorded hands")
def list_hands(table: str, include_deleted: bool = False) -> list[dict[str, Any]]:
    return [r.to_json() for r in _ledger_or_error(table).hands(include_deleted)]


def _score_and_record(led: LedgerBase, kind: str, case: Any, key: Any) -> JSONResponse:
    """Score a case with the engine and record it under the retry ``key``: 422 for a case the engine refuses or
    a bad key, 409 where the ledger refuses, else 201 with the id, the result and the dealer the engine named."""
    result = score_case(case)
    if not result.get("valid"):
        return JSONResponse(result, status_code=422)
    if key is not None and (not isinstance(key, str) or len(key) > 200):
        return JSONResponse({"valid": False, "error": "invalid_input", "message": "key: a string of at most 200 "
                             "characters"}, status_code=422)
    try:
        hid = led.record_event(kind, [case], [result], key=key)
    except (LedgerError, ValueError) as e:
        return JSONResponse({"error": "ledger", "message": str(e)}, status_code=409)
    return JSONResponse({"id": hid, "result": result, "dealer": led.dealer()}, status_code=201)


@app.post("/v1/tables/{table}/hands", status_code=201, summary="Score and record a hand (idempotent per key)")
def record_hand(table: str, body: dict[str, Any] = Body(...)) -> JSONResponse:  # noqa: B008
    return _score_and_record(_ledger_or_error(table), "win", body.get("case"), body.get("key"))


@app.post("/v1/tables/{table}/draws", status_code=201, summary="Score and record a drawn hand (荒莊) with its kongs")
def record_draw(table: str, body: dict[str, Any] = Body(...)) -> JSONResponse:  # noqa: B008
    """Body: ``{"ruleset"?, "options"?, "dealer"?, "kong_events"?, "penalty_events"?, "key"?}`` or the draw case
    itself under ``case``. The engine settles every kong's money (RULES.md D-C13) and keeps the dealer."""
    led = _ledger_or_error(table)
    if isinstance(body.get("case"), dict):
        case = dict(body["case"])
    else:
        ctx: dict[str, Any] = {"dealer": body.get("dealer", led.dealer())}
        for k in ("kong_events", "penalty_events"):
            if body.get(k) is not None:
                ctx[k] = body[k]
        case = {"ruleset": body.get("ruleset", DEFAULT), "options": body.get("options") or {}, "context": ctx}
    case["kind"] = "draw"
    return _score_and_record(led, "draw", case, body.get("key"))


def _hand_or_404(led: LedgerBase, hand_id: int) -> dict[str, Any]:
    rec = led.get(hand_id)
    if rec is None:
        raise HTTPException(404, f"hand #{hand_id} does not exist")
    return rec.to_json()


@app.get("/v1/tables/{table}/hands/{hand_id}", summary="One recorded hand")
def get_hand(table: str, hand_id: int) -> dict[str, Any]:
    return _hand_or_404(_ledger_or_error(table), hand_id)


@app.put("/v1/tables/{table}/hands/{hand_id}", summary="Edit a hand (the earlier version is kept)")
def edit_hand(table: str, hand_id: int, body: dict[str, Any] = Body(...)) -> JSONResponse:  # noqa: B008
    led = _ledger_or_error(table)
    result = score_case(body.get("case"))
    if not result.get("valid"):
        return JSONResponse(result, status_code=422)
    try:
        led.update(hand_id, body["case"], result)
    except LedgerError as e:
        return JSONResponse({"error": "ledger", "message": str(e)}, status_code=404)
    return JSONResponse(_hand_or_404(led, hand_id))


@app.delete("/v1/tables/{table}/hands/{hand_id}", summary="Delete a hand (soft: it can be restored)")
def delete_hand(table: str, hand_id: int) -> dict[str, Any]:
    led = _ledger_or_error(table)
    try:
        led.delete(hand_id)
    except LedgerError as e:
        raise HTTPException(404, str(e)) from None
    return {"deleted": hand_id}


@app.post("/v1/tables/{table}/hands/{hand_id}/restore", summary="Undo a delete")
def restore_hand(table: str, hand_id: int) -> dict[str, Any]:
    led = _ledger_or_error(table)
    try:
        led.restore(hand_id)
    except LedgerError as e:
        raise HTTPException(404, str(e)) from None
    return _hand_or_404(led, hand_id)


@app.get("/v1/tables/{table}/hands/{hand_id}/history", summary="Earlier versions of a hand")
def hand_history(table: str, hand_id: int) -> list[dict[str, Any]]:
    led = _ledger_or_error(table)
    _hand_or_404(led, hand_id)
    return led.history(hand_id)
