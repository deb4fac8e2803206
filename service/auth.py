"""Who a request is: its ``Authorization: Bearer`` token, looked up in the ledger (``ledger.access``), with failed
guesses throttled per client; the HTTP form of a refusal (401 with ``WWW-Authenticate``, 403, 429)."""

from __future__ import annotations

from typing import NoReturn

from fastapi import HTTPException, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from ledger import AccessDenied, Actor, LedgerBase

from .limits import RateLimit

bearer = HTTPBearer(auto_error=False, description="A table's owner token (from POST /v1/tables) or a player token "
                    "(from POST /v1/tables/{table}/join).")
guesses = RateLimit.from_env("MAHJONG_GUESS_LIMIT", "10/60")


def client_of(request: Request) -> str:
    """The client's address, as rate limits count it."""
    return request.client.host if request.client else "unknown"


def too_many(wait: int, what: str) -> NoReturn:
    raise HTTPException(429, {"error": "too_many_requests", "message": f"too many {what}: try again in {wait} s"},
                        headers={"Retry-After": str(wait)})


def refuse(e: AccessDenied) -> NoReturn:
    """An access refusal as HTTP: 401 (no usable token: say how to authenticate) or 403."""
    if e.why == "no_token":
        raise HTTPException(401, {"error": "unauthorized", "message": str(e)},
                            headers={"WWW-Authenticate": 'Bearer realm="mahjong"'})
    raise HTTPException(403, {"error": "forbidden", "message": str(e)})


def guard_guessing(client: str) -> None:
    """429 for a client that has failed too many tokens or join codes lately, even if this one is right."""
    wait = guesses.wait(client)
    if wait:
        too_many(wait, "wrong tokens or join codes")


def actor_of(led: LedgerBase, request: Request, creds: HTTPAuthorizationCredentials | None) -> Actor | None:
    """The request's actor (None: no token sent); an unknown or revoked token is a 401 and counts as a guess."""
    if creds is None:
        return None
    client = client_of(request)
    guard_guessing(client)
    actor = led.actor(creds.credentials)
    if actor is None:
        guesses.take(client)
        refuse(AccessDenied("the token is unknown or was revoked", "no_token"))
    return actor


def needed(actor: Actor | None, table: str) -> Actor:
    """A write's actor: the API never writes as "this device", so no token is a 401."""
    if actor is None:
        refuse(AccessDenied(f"writing to table {table!r} needs one of its tokens (Authorization: Bearer)",
                            "no_token"))
    return actor
