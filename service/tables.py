"""The tables' ledgers over HTTP: creating and joining a table, its hands, draws, set-up, access and audit log.

Writes need a token of the table (``Authorization: Bearer``): any player records hands and draws and saves the
set-up; editing, deleting and restoring a hand take the owner, or a player where the table allows it; access
(policy, join code, tokens) is the owner's. Reads are public or token-only, as the table is set.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from fastapi import APIRouter, Body, Depends, HTTPException, Request
from fastapi.responses import JSONResponse
from fastapi.security import HTTPAuthorizationCredentials

from ledger import AccessDenied, Actor, Evidence, LedgerBase, LedgerError, open_ledger
from ledger.access import Action
from scoring import DEFAULT, score_case

from .auth import actor_of, bearer, client_of, guard_guessing, guesses, needed, refuse, too_many
from .limits import RateLimit

router = APIRouter(prefix="/v1/tables", tags=["tables"])
creates = RateLimit.from_env("MAHJONG_CREATE_LIMIT", "20/3600")
TABLE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


@lru_cache(maxsize=256)
def ledger(table: str) -> LedgerBase:
    """The ledger of one table (every process opens the same $MAHJONG_LEDGER)."""
    return open_ledger(table=table)


def ledger_or_error(table: str) -> LedgerBase:
    if not table or len(table) > 64:
        raise HTTPException(422, "a table id has 1 to 64 characters")
    try:
        return ledger(table)
    except LedgerError as e:
        raise HTTPException(503, str(e)) from None


@dataclass
class At:
    """One request at one table: its ledger and who asks (None: no token)."""

    table: str
    led: LedgerBase
    actor: Actor | None

    def may(self, action: Action) -> At:
        """Refuse (401/403) unless the actor may do ``action`` here; for writes the ledger checks again inside
        the write's transaction."""
        try:
            self.led.check(action, self.actor)
        except AccessDenied as e:
            refuse(e)
        except LedgerError as e:
            raise HTTPException(503, str(e)) from None
        return self

    @property
    def by(self) -> Actor:
        return needed(self.actor, self.table)


def at(table: str, request: Request,
       creds: HTTPAuthorizationCredentials | None = Depends(bearer)) -> At:  # noqa: B008
    led = ledger_or_error(table)
    return At(table, led, actor_of(led, request, creds))


def _ledger_call(fn: Any, *args: Any, missing: int = 404, **kw: Any) -> Any:
    """A ledger write as HTTP: refusals as 401/403, the ledger's own refusals as ``missing``."""
    try:
        return fn(*args, **kw)
    except AccessDenied as e:
        refuse(e)
    except LedgerError as e:
        raise HTTPException(missing, {"error": "ledger", "message": str(e)}) from None


@router.post("", status_code=201, summary="Create a shared table: its owner token and join code (shown once)")
def create_table(request: Request, body: dict[str, Any] = Body(default={})) -> dict[str, Any]:  # noqa: B008
    """Body: ``{"table"?: name, "public_reads"?: true, "players_edit"?: false}``. The tokens are not kept, only
    their digests: keep the owner token; give the join code to the players."""
    wait = creates.take(client_of(request))
    if wait:
        too_many(wait, "new tables")
    name = body.get("table") or f"t-{secrets.token_hex(4)}"
    if not isinstance(name, str) or not TABLE_NAME.fullmatch(name):
        raise HTTPException(422, "a table id has 1 to 64 letters, digits, '.', '_' or '-', starting with a letter "
                            "or digit")
    flags = {k: body.get(k, d) for k, d in (("public_reads", True), ("players_edit", False))}
    if not all(isinstance(v, bool) for v in flags.values()):
        raise HTTPException(422, "public_reads and players_edit are true or false")
    token, code = _ledger_call(ledger_or_error(name).share, new_table=True, missing=409, **flags)
    return {"table": name, "owner_token": token, "join_code": code, "access": ledger(name).policy().to_json()}


@router.post("/{table}/join", status_code=201, summary="Trade the table's join code for a player token")
def join_table(table: str, request: Request, body: dict[str, Any] = Body(...)) -> dict[str, Any]:  # noqa: B008
    """Body: ``{"code": "XXXXX-XXXXX", "name"?: "Ann"}``. Wrong codes are throttled per client (429)."""
    client = client_of(request)
    guard_guessing(client)
    code, name = body.get("code"), body.get("name") or ""
    if not isinstance(code, str) or not isinstance(name, str) or len(code) > 40:
        raise HTTPException(422, "code (the table's join code) and name are strings")
    try:
        token, actor = ledger_or_error(table).join(code, name)
    except AccessDenied as e:
        guesses.take(client)
        refuse(e)
    return {"table": table, "token": token, "role": actor.role, "name": actor.name}


@router.get("/{table}", summary="A table's set-up, dealer, running totals and settle-up transfers")
def table_state(here: At = Depends(at)) -> dict[str, Any]:  # noqa: B008
    led = here.may("read").led
    return {"table": here.table, "settings": led.settings(), "dealer": led.dealer(), "totals": led.totals(),
            "settle_up": led.settle_up(), "changes": led.changes(), "access": led.policy().to_json()}


@router.put("/{table}/settings", summary="Save (part of) a table's set-up")
def save_settings(settings: dict[str, Any] = Body(...), here: At = Depends(at)) -> Any:  # noqa: B008
    """Body: the keys to set (``ruleset``, ``options``, ``names``, ``dealer``, ``lang``, ``keep_photos``: false
    keeps no photo with new hands and erases those kept)."""
    try:
        _ledger_call(here.led.save_settings, settings, by=here.by, missing=503)
    except ValueError as e:  # a value the ledger cannot keep
        return JSONResponse({"valid": False, "error": "invalid_input", "message": str(e)}, status_code=422)
    return {"table": here.table, "settings": here.led.settings()}


@router.get("/{table}/access", summary="The table's access policy and tokens (owner only; never the secrets)")
def get_access(here: At = Depends(at)) -> dict[str, Any]:  # noqa: B008
    led = here.may("access").led
    return {"table": here.table, "access": led.policy().to_json(), "tokens": led.tokens()}


@router.put("/{table}/access", summary="Change who may read and edit, or replace the join code (owner only)")
def set_access(body: dict[str, Any] = Body(...), here: At = Depends(at)) -> dict[str, Any]:  # noqa: B008
    """Body: ``{"public_reads"?: bool, "players_edit"?: bool, "new_join_code"?: bool}``."""
    flags = {k: body.get(k) for k in ("public_reads", "players_edit")}
    if not all(v is None or isinstance(v, bool) for v in flags.values()) or not isinstance(
            body.get("new_join_code", False), bool):
        raise HTTPException(422, "public_reads, players_edit and new_join_code are true or false")
    policy, code = _ledger_call(here.led.set_policy, here.by, public_reads=flags["public_reads"],
                                players_edit=flags["players_edit"], new_code=bool(body.get("new_join_code")))
    return {"table": here.table, "access": policy.to_json(), **({"join_code": code} if code else {})}


@router.delete("/{table}/tokens/{token_id}", summary="Revoke a player's token (owner only)")
def revoke_token(token_id: int, here: At = Depends(at)) -> dict[str, Any]:  # noqa: B008
    _ledger_call(here.led.revoke, token_id, here.by)
    return {"revoked": token_id}


@router.get("/{table}/audit", summary="Who did what at the table, newest first")
def audit(here: At = Depends(at)) -> list[dict[str, Any]]:  # noqa: B008
    return here.may("read").led.audit()


@router.get("/{table}/hands", summary="The table's recorded hands")
def list_hands(include_deleted: bool = False, here: At = Depends(at)) -> list[dict[str, Any]]:  # noqa: B008
    return [r.to_json() for r in here.may("read").led.hands(include_deleted)]


def _evidence(body: dict[str, Any]) -> Evidence | JSONResponse | None:
    """The body's ``evidence`` (``{"photo_jpeg_base64"?, "reading"?, "corrections"?}``), or the 422 saying why it
    cannot be kept."""
    if body.get("evidence") is None:
        return None
    try:
        return Evidence.from_json(body["evidence"])
    except LedgerError as e:
        return JSONResponse({"valid": False, "error": "invalid_input", "message": str(e)}, status_code=422)


def _score_and_record(here: At, kind: str, case: Any, key: Any, evidence: Any = None) -> JSONResponse:
    """Score a case with the engine and record it under the retry ``key``, with its evidence: 422 for a case the
    engine refuses, a bad key or evidence that cannot be kept, 409 where the ledger refuses, else 201 with the id,
    the result and the dealer the engine named."""
    by = here.may("record").by
    result = score_case(case)
    if not result.get("valid"):
        return JSONResponse(result, status_code=422)
    if key is not None and (not isinstance(key, str) or len(key) > 200):
        return JSONResponse({"valid": False, "error": "invalid_input", "message": "key: a string of at most 200 "
                             "characters"}, status_code=422)
    if isinstance(evidence, JSONResponse):
        return evidence
    try:
        hid = here.led.record_event(kind, [case], [result], key=key, by=by, evidence=evidence)
    except AccessDenied as e:
        refuse(e)
    except (LedgerError, ValueError) as e:
        return JSONResponse({"error": "ledger", "message": str(e)}, status_code=409)
    return JSONResponse({"id": hid, "result": result, "dealer": here.led.dealer()}, status_code=201)


@router.post("/{table}/hands", status_code=201, summary="Score and record a hand (idempotent per key)")
def record_hand(body: dict[str, Any] = Body(...), here: At = Depends(at)) -> JSONResponse:  # noqa: B008
    """Body: ``{"case", "key"?, "evidence"?}``; ``evidence`` is kept with the hand for disputes: a JPEG of at
    most 100 KB as ``photo_jpeg_base64`` (unless the table keeps no photos), the ``reading`` of
    ``/v1/read``, and the ``corrections`` made to it (``{"what", "from", "to", "at", ...}`` each)."""
    return _score_and_record(here, "win", body.get("case"), body.get("key"), _evidence(body))


@router.post("/{table}/draws", status_code=201, summary="Score and record a drawn hand (荒莊) with its kongs")
def record_draw(body: dict[str, Any] = Body(...), here: At = Depends(at)) -> JSONResponse:  # noqa: B008
    """Body: ``{"ruleset"?, "options"?, "dealer"?, "kong_events"?, "penalty_events"?, "key"?}`` or the draw case
    itself under ``case``. The engine settles every kong's money (RULES.md D-C13) and keeps the dealer."""
    if isinstance(body.get("case"), dict):
        case = dict(body["case"])
    else:
        ctx: dict[str, Any] = {"dealer": body.get("dealer", here.may("record").led.dealer())}
        for k in ("kong_events", "penalty_events"):
            if body.get(k) is not None:
                ctx[k] = body[k]
        case = {"ruleset": body.get("ruleset", DEFAULT), "options": body.get("options") or {}, "context": ctx}
    case["kind"] = "draw"
    return _score_and_record(here, "draw", case, body.get("key"))


def _hand_or_404(led: LedgerBase, hand_id: int) -> dict[str, Any]:
    rec = led.get(hand_id)
    if rec is None:
        raise HTTPException(404, f"hand #{hand_id} does not exist")
    return rec.to_json()


@router.get("/{table}/hands/{hand_id}", summary="One recorded hand")
def get_hand(hand_id: int, here: At = Depends(at)) -> dict[str, Any]:  # noqa: B008
    return _hand_or_404(here.may("read").led, hand_id)


@router.put("/{table}/hands/{hand_id}", summary="Edit a hand (the earlier version is kept)")
def edit_hand(hand_id: int, body: dict[str, Any] = Body(...),  # noqa: B008
              here: At = Depends(at)) -> JSONResponse:  # noqa: B008
    """Body: ``{"case", "evidence"?}``: the new version keeps its own evidence, the earlier ones theirs."""
    by = here.may("edit").by
    result = score_case(body.get("case"))
    if not result.get("valid"):
        return JSONResponse(result, status_code=422)
    evidence = _evidence(body)
    if isinstance(evidence, JSONResponse):
        return evidence
    _ledger_call(here.led.update, hand_id, body["case"], result, by=by, evidence=evidence)
    return JSONResponse(_hand_or_404(here.led, hand_id))


@router.get("/{table}/hands/{hand_id}/evidence", summary="What a hand was recorded with, version by version")
def hand_evidence(hand_id: int, here: At = Depends(at)) -> dict[str, Any]:  # noqa: B008
    """The photo (base64 JPEG, or null), the reading, the corrections and what scored it, per version; with
    each version's case and result, so that a dispute sees the score as it was."""
    led = here.may("read").led
    rec = led.get(hand_id)
    if rec is None:
        raise HTTPException(404, f"hand #{hand_id} does not exist")
    scored = {h["version"]: h for h in led.history(hand_id)}
    scored[rec.version] = {"cases": rec.cases, "results": rec.results, "by": rec.by}
    return {"id": hand_id, "deleted": rec.deleted, "versions": [
        {"version": e["version"], "created": e["created"], "by": scored.get(e["version"], {}).get("by"),
         "cases": scored.get(e["version"], {}).get("cases"), "results": scored.get(e["version"], {}).get("results"),
         **e["evidence"].to_json()} for e in led.evidence(hand_id)]}


@router.delete("/{table}/hands/{hand_id}", summary="Delete a hand (soft: it can be restored)")
def delete_hand(hand_id: int, here: At = Depends(at)) -> dict[str, Any]:  # noqa: B008
    _ledger_call(here.led.delete, hand_id, by=here.by)
    return {"deleted": hand_id}


@router.post("/{table}/hands/{hand_id}/restore", summary="Undo a delete")
def restore_hand(hand_id: int, here: At = Depends(at)) -> dict[str, Any]:  # noqa: B008
    _ledger_call(here.led.restore, hand_id, by=here.by)
    return _hand_or_404(here.led, hand_id)


@router.get("/{table}/hands/{hand_id}/history", summary="Earlier versions of a hand, with who wrote each")
def hand_history(hand_id: int, here: At = Depends(at)) -> list[dict[str, Any]]:  # noqa: B008
    led = here.may("read").led
    _hand_or_404(led, hand_id)
    return led.history(hand_id)
