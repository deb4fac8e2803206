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

from fastapi import Body, FastAPI, File, Form, HTTPException, Query, Request, UploadFile
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool

from scoring import DEFAULT, RULESETS, score_case
from scoring.waits import waits
from vision import pipeline
from vision.models import ModelMissing
from vision.photo import MAX_BYTES, PhotoError
from vision.pipeline import Photo
from vision.reader import TileReader

from .auth import client_of, too_many
from .limits import RateLimit, Slots
from .tables import ledger, router

_reader_lock = threading.Lock()  # one reading at a time per process: the model uses the process's cores
_in_memory = threading.BoundedSemaphore(2)  # photos decoded at once: one being read, the next one decoding
reads = RateLimit.from_env("MAHJONG_READ_LIMIT", "30/60")
read_queue = Slots.from_env("MAHJONG_READ_QUEUE", 8)
__all__ = ["app", "ledger", "reader"]


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
              description="Read a photographed hand, score it under Nanning / Nanjing rules, keep tables' ledgers. "
              "Reading and scoring are open; a table's writes need one of its tokens (`Authorization: Bearer`): "
              "`POST /v1/tables` gives the owner token and a join code, `POST /v1/tables/{table}/join` a player "
              "token. Photo reads are limited per client (429 with Retry-After) and queued per worker (503 "
              "with Retry-After when the queue is full).")


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


def _json_field(raw: str | None, name: str) -> Any:
    if raw is None or raw == "":
        return None
    try:
        return json.loads(raw)
    except json.JSONDecodeError as e:
        raise HTTPException(422, {"valid": False, "error": "invalid_input",
                                  "message": f"{name}: malformed JSON ({e.msg})"}) from None


def _decode(photo: UploadFile) -> Photo:
    data = photo.file.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise HTTPException(413, f"the photo is over the {MAX_BYTES // 2**20} MB limit")
    try:
        return Photo.decode(data, photo.filename or "photo")
    except PhotoError as e:
        raise HTTPException(400, {"error": "bad_photo", "message": str(e)}) from None


def _read_now(photo: UploadFile, ruleset: str, winner: int) -> dict[str, Any]:
    """In a worker thread: decode (two photos in memory at most) and read (one at a time)."""
    with _in_memory:
        decoded = _decode(photo)
        try:
            with _reader_lock:
                r = pipeline.read(decoded, reader(), ruleset, True, winner)
        except ModelMissing as e:
            raise HTTPException(503, {"error": "model_missing", "message": str(e)}) from None
    return r.to_json()


async def _read(request: Request, photo: UploadFile, ruleset: str, winner: int) -> dict[str, Any]:
    """A photo read within the client's rate (429) and the worker's queue (503), off the event loop so that
    scoring and the ledger keep answering while photos are read."""
    if ruleset not in RULESETS:
        raise HTTPException(422, {"valid": False, "error": "invalid_input",
                                  "message": f"ruleset: unknown ruleset {ruleset!r} (known: {', '.join(RULESETS)})"})
    wait = reads.take(client_of(request))
    if wait:
        too_many(wait, "photos")
    if not read_queue.enter():
        raise HTTPException(503, {"error": "busy", "message": f"{read_queue.size} photos are already waiting on "
                                  "this server: try again in a few seconds"}, headers={"Retry-After": "2"})
    try:
        return await run_in_threadpool(_read_now, photo, ruleset, winner)
    finally:
        read_queue.leave()


def _scored(case: Any) -> JSONResponse:
    result = score_case(case)
    return JSONResponse(result, status_code=422 if result.get("error") == "invalid_input" else 200)


@app.post("/v1/read", summary="Read a photo into tiles, groups and a hand (as `python -m vision --json`)")
async def read(request: Request, photo: UploadFile = File(...), ruleset: str = Query(DEFAULT),  # noqa: B008
               winner: int = Query(0, ge=0, le=3)) -> dict[str, Any]:
    return await _read(request, photo, ruleset, winner)


@app.post("/v1/score", summary="Score a case (RULES.md §0.2-0.3) into the §0.4 result")
def score(case: Any = Body(...)) -> JSONResponse:  # noqa: B008
    return _scored(case)


@app.post("/v1/waits", summary="What wins a 13-tile hand, and for how much")
def wait_table(case: Any = Body(...)) -> JSONResponse:  # noqa: B008
    out = waits(case)
    return JSONResponse(out, status_code=422 if out.get("error") == "invalid_input" else 200)


@app.post("/v1/read-and-score", summary="Read a photo and score the hand read in the given situation")
async def read_and_score(request: Request, photo: UploadFile = File(...),  # noqa: B008
                         ruleset: str = Form(DEFAULT),
                         context: str = Form('{"winner": 0, "dealer": 0, "win_type": "self_draw"}'),
                         options: str | None = Form(None)) -> JSONResponse:
    ctx = _json_field(context, "context") or {}
    opts = _json_field(options, "options") or {}
    winner = ctx.get("winner", 0) if isinstance(ctx, dict) and ctx.get("winner") in (0, 1, 2, 3) else 0
    reading = await _read(request, photo, ruleset, winner)
    if reading["hand"] is None:
        result: dict[str, Any] = {"valid": False, "error": "invalid_input", "message": "the hand could not be read"}
    else:
        result = score_case({"ruleset": ruleset, "options": opts, "hand": reading["hand"], "context": ctx})
    return JSONResponse({"reading": reading, "score": result})


app.include_router(router)
