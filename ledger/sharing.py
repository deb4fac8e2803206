"""The ledger's side of access (``ledger.access``): a table's policy, its tokens' digests, joining, and the
audit log of who did what. Written once for both stores, with the SQL of ``ledger.base`` (``?`` placeholders)."""

from __future__ import annotations

import time
from contextlib import AbstractContextManager
from typing import Any

from .access import LOCAL, Action, Actor, Policy, allowed, digest, join_digest, new_join_code, new_token, same
from .errors import AccessDenied, LedgerError

OWNER = "owner"


def now() -> str:
    """The time a write is stamped with."""
    return time.strftime("%Y-%m-%d %H:%M:%S")


class Sharing:
    """Access operations of one table's ledger (mixed into ``LedgerBase``, which gives ``_tx`` and ``table``)."""

    table: str

    def _tx(self, write: bool = False) -> AbstractContextManager[Any]:  # pragma: no cover - interface
        raise NotImplementedError

    def _q(self, db: Any, sql: str, params: tuple = ()) -> Any:
        """Run one statement (``?`` placeholders)."""
        return db.execute(sql, params)

    # ------------------------------------------------------------ policy and checks
    def _policy(self, db: Any) -> Policy:
        row = self._q(db, "SELECT public_reads, players_edit FROM table_access WHERE table_id = ?",
                      (self.table,)).fetchone()
        return Policy() if row is None else Policy(True, bool(row[0]), bool(row[1]))

    def policy(self) -> Policy:
        """The table's access settings (an unshared table: ``Policy()``)."""
        with self._tx() as db:
            return self._policy(db)

    def _authorise(self, db: Any, action: Action, by: Actor | None) -> str:
        """Inside a write's transaction: refuse with ``AccessDenied`` unless ``by`` may do ``action`` here; the
        name the write is kept under."""
        actor = by if by is not None else Actor("local", self.table, LOCAL)
        self.check(action, actor, self._policy(db))
        return actor.name

    def check(self, action: Action, actor: Actor | None, policy: Policy | None = None) -> None:
        """Refuse with ``AccessDenied`` (saying what would let them) unless ``actor`` may do ``action`` here."""
        policy = policy if policy is not None else self.policy()
        if actor is not None and actor.table != self.table:
            raise AccessDenied(f"this token is for another table, not table {self.table!r}", "forbidden")
        if allowed(action, actor, policy):
            return
        if actor is None:
            raise AccessDenied(f"table {self.table!r} needs a token of its own for this (Authorization: Bearer)"
                               if policy.shared else f"table {self.table!r} is not shared: create it first "
                               "(POST /v1/tables) to get its owner token", "no_token")
        if actor.role == "local":
            raise AccessDenied(f"table {self.table!r} is shared: join it with its code to change it", "forbidden")
        raise AccessDenied(f"only the owner of table {self.table!r} may do this"
                           + (" (the owner can let players edit hands)" if action == "edit" else ""), "forbidden")

    def permits(self, action: Action, actor: Actor | None) -> bool:
        """``check`` as a yes or no (the page greys out what it may not do)."""
        try:
            self.check(action, actor)
        except AccessDenied:
            return False
        return True

    # ------------------------------------------------------------ sharing, joining, tokens
    def share(self, public_reads: bool = True, players_edit: bool = False, new_table: bool = False,
              by: Actor | None = None) -> tuple[str, str]:
        """Make this table shared: its owner token and join code (shown once; only their digests are kept).
        ``new_table``: refuse a table that already has hands or a set-up (the API creates tables only)."""
        token, code = new_token(), new_join_code()
        with self._tx(write=True) as db:
            if self._policy(db).shared:
                raise LedgerError(f"table {self.table!r} is already shared: its owner holds its token")
            if new_table and (self._q(db, "SELECT 1 FROM hands WHERE table_id = ? LIMIT 1", (self.table,)).fetchone()
                              or self._q(db, "SELECT 1 FROM table_settings WHERE table_id = ? LIMIT 1",
                                         (self.table,)).fetchone()):
                raise LedgerError(f"table {self.table!r} already exists: choose another name")
            self._q(db, "INSERT INTO table_access (table_id, join_digest, public_reads, players_edit, created) "
                    "VALUES (?, ?, ?, ?, ?)", (self.table, join_digest(self.table, code), int(public_reads),
                                               int(players_edit), now()))
            self._q(db, "INSERT INTO table_tokens (digest, table_id, role, label, created) VALUES (?, ?, ?, ?, ?)",
                    (digest(token), self.table, "owner", OWNER, now()))
            self._audit(db, by.name if by else LOCAL, "share", None, "")
        return token, code

    def actor(self, token: str) -> Actor | None:
        """Who a bearer token is (its table may be another one), or None for an unknown or revoked token."""
        if not token or len(token) > 200:
            return None
        want = digest(token)
        with self._tx() as db:
            row = self._q(db, "SELECT id, table_id, role, label, digest FROM table_tokens WHERE digest = ? AND "
                          "revoked = 0", (want,)).fetchone()
        if row is None or not same(str(row[4]), want):
            return None
        return Actor(row[2], str(row[1]), str(row[3]), int(row[0]))

    def join(self, code: str, label: str = "") -> tuple[str, Actor]:
        """Trade the table's join code for a player token (``label``: the player's name); ``AccessDenied`` for a
        wrong code or an unshared table."""
        token = new_token()
        with self._tx(write=True) as db:
            row = self._q(db, "SELECT join_digest FROM table_access WHERE table_id = ?", (self.table,)).fetchone()
            if row is None or not same(str(row[0]), join_digest(self.table, code or "")):
                raise AccessDenied(f"that is not the join code of table {self.table!r}", "forbidden")
            name = " ".join(str(label).split())[:40]
            row = self._q(db, "INSERT INTO table_tokens (digest, table_id, role, label, created) VALUES "
                          "(?, ?, ?, ?, ?) RETURNING id", (digest(token), self.table, "player", name or "player",
                                                           now())).fetchone()
            actor = Actor("player", self.table, name or "player", int(row[0]))
            self._audit(db, actor.name, "join", None, "")
        return token, actor

    def set_policy(self, by: Actor | None, public_reads: bool | None = None, players_edit: bool | None = None,
                   new_code: bool = False) -> tuple[Policy, str | None]:
        """The owner changes who may read and edit, or replaces the join code (the new one is returned once;
        players who joined keep their tokens)."""
        code = new_join_code() if new_code else None
        with self._tx(write=True) as db:
            self._authorise(db, "access", by)
            old = self._policy(db)
            self._q(db, "UPDATE table_access SET public_reads = ?, players_edit = ? WHERE table_id = ?",
                    (int(old.public_reads if public_reads is None else public_reads),
                     int(old.players_edit if players_edit is None else players_edit), self.table))
            if code:
                self._q(db, "UPDATE table_access SET join_digest = ? WHERE table_id = ?",
                        (join_digest(self.table, code), self.table))
            self._audit(db, by.name if by else LOCAL, "access", None, "new join code" if code else "")
            return self._policy(db), code

    def tokens(self) -> list[dict[str, Any]]:
        """The table's tokens as the owner sees them (never the secret): id, role, label, created, revoked."""
        with self._tx() as db:
            rows = self._q(db, "SELECT id, role, label, created, revoked FROM table_tokens WHERE table_id = ? "
                           "ORDER BY id", (self.table,)).fetchall()
        return [{"id": int(i), "role": r, "label": lb, "created": c, "revoked": bool(v)} for i, r, lb, c, v in rows]

    def revoke(self, token_id: int, by: Actor | None) -> None:
        """The owner takes a player's token back (the owner's own cannot be revoked: it would lock the table)."""
        with self._tx(write=True) as db:
            self._authorise(db, "access", by)
            cur = self._q(db, "UPDATE table_tokens SET revoked = 1 WHERE id = ? AND table_id = ? AND role = 'player'",
                          (token_id, self.table))
            if cur.rowcount == 0:
                raise LedgerError(f"table {self.table!r} has no player token #{token_id}")
            self._audit(db, by.name if by else LOCAL, "revoke", None, f"token #{token_id}")

    # ------------------------------------------------------------ who did what
    def _audit(self, db: Any, who: str, action: str, hand_id: int | None, detail: str) -> None:
        self._q(db, "INSERT INTO audit (table_id, at, actor, action, hand_id, detail) VALUES (?, ?, ?, ?, ?, ?)",
                (self.table, now(), who, action, hand_id, detail[:200]))

    def audit(self, limit: int = 500) -> list[dict[str, Any]]:
        """The table's writes, newest first: when, who, what, which hand."""
        with self._tx() as db:
            rows = self._q(db, "SELECT at, actor, action, hand_id, detail FROM audit WHERE table_id = ? ORDER BY id "
                           "DESC LIMIT ?", (self.table, int(limit))).fetchall()
        return [{"at": a, "by": w, "action": x, "hand": None if h is None else int(h), "detail": d}
                for a, w, x, h, d in rows]
