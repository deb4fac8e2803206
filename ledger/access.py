"""Who may change a table: its owner token, its players' tokens, and the table's access policy.

A table becomes shared when someone creates it (the API's ``POST /v1/tables``, the page's "Share this table"):
that returns an owner token and a join code, and the ledger keeps only their SHA-256 digests. A player trades the
join code for a player token. Every write names its actor (``Actor.name``), kept with the hand, its history and
the table's audit log. A table nobody shared has no owner: the page on the machine that holds the ledger writes
to it as "this device" (single-machine use needs no set-up); the API refuses to write to it.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from typing import Literal

Role = Literal["owner", "player", "local"]
JOIN_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"  # no 0/O, 1/I/L: read aloud or typed from a phone
JOIN_LENGTH = 10  # ~50 bits: with guessing throttled, out of reach
TOKEN_PREFIX = "mjt_"
LOCAL = "this device"


def digest(secret: str) -> str:
    """The stored form of a token (its SHA-256): a ledger file or dump gives no usable token."""
    return hashlib.sha256(secret.encode()).hexdigest()


def join_digest(table: str, code: str) -> str:
    """The stored form of a join code, bound to its table (the same code on two tables has two digests)."""
    return digest(f"{table}\n{normalise_code(code)}")


def normalise_code(code: str) -> str:
    """A join code as typed: case, spaces and dashes do not matter."""
    return "".join(ch for ch in code.upper() if ch.isalnum())


def new_token() -> str:
    """A bearer token (192 random bits)."""
    return TOKEN_PREFIX + secrets.token_urlsafe(24)


def new_join_code() -> str:
    """A join code for players, shown as XXXXX-XXXXX (and as a QR code on the page)."""
    raw = "".join(secrets.choice(JOIN_ALPHABET) for _ in range(JOIN_LENGTH))
    return f"{raw[:5]}-{raw[5:]}"


def same(a: str, b: str) -> bool:
    """Constant-time comparison of two digests."""
    return hmac.compare_digest(a.encode(), b.encode())


@dataclass(frozen=True)
class Actor:
    """Who makes a request of a table: its owner, one of its players, or the page on an unshared table."""

    role: Role
    table: str
    label: str  # "owner", the player's name, or "this device"
    token_id: int | None = None

    @property
    def name(self) -> str:
        """How the hand's history and the audit log name this actor."""
        if self.role == "player":
            return f"player #{self.token_id}: {self.label}"
        return self.label


@dataclass(frozen=True)
class Policy:
    """A table's access settings: ``shared`` once it has an owner; reads open to anyone or to its tokens; whether
    a player token may edit, delete and restore recorded hands (recording and the set-up are every player's)."""

    shared: bool = False
    public_reads: bool = True
    players_edit: bool = False

    def to_json(self) -> dict[str, bool]:
        return {"shared": self.shared, "public_reads": self.public_reads, "players_edit": self.players_edit}


Action = Literal["read", "record", "settings", "edit", "access"]
ACTIONS: tuple[Action, ...] = ("read", "record", "settings", "edit", "access")


def allowed(action: Action, actor: Actor | None, policy: Policy) -> bool:
    """May ``actor`` (None: no token) do ``action`` on a table with ``policy``? ``edit`` covers editing, deleting
    and restoring a recorded hand; ``access`` the policy itself, the join code and the tokens."""
    if action == "read" and (policy.public_reads or not policy.shared):
        return True
    if actor is None:
        return False
    if actor.role == "local" or not policy.shared:
        return actor.role == "local" and not policy.shared
    if actor.role == "owner":
        return True
    return action in ("read", "record", "settings") or (action == "edit" and policy.players_edit)
