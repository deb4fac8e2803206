"""The ledger on PostgreSQL (optional extra ``[postgres]``: psycopg 3 and psycopg_pool), for a parlour's many
tables and replicas.

Same behaviour as the SQLite ledger (``ledger.base``): every write takes a per-table advisory lock inside its
transaction, so two API processes recording on one table pass the deal in order and never duplicate a keyed
record. The schema is created (or upgraded, ``MIGRATIONS``) under a global advisory lock, so replicas may start
together. Connections come from one pool per database per process, ``$MAHJONG_PG_POOL`` connections at most
(default 8): a burst of requests waits for a connection instead of opening hundreds.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from .base import DEFAULT_TABLE, LedgerBase
from .errors import LedgerError

SCHEMA_VERSION = 3
MIGRATIONS: dict[int, str] = {
    1: """
CREATE TABLE IF NOT EXISTS hands (
    id BIGSERIAL PRIMARY KEY, table_id TEXT NOT NULL, created TEXT NOT NULL, ruleset TEXT NOT NULL,
    case_json TEXT NOT NULL, result_json TEXT NOT NULL,
    net0 BIGINT NOT NULL, net1 BIGINT NOT NULL, net2 BIGINT NOT NULL, net3 BIGINT NOT NULL,
    kind TEXT NOT NULL DEFAULT 'win', version INTEGER NOT NULL DEFAULT 1, deleted INTEGER NOT NULL DEFAULT 0,
    record_key TEXT UNIQUE, dealer_before INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS hands_table ON hands (table_id, id);
CREATE TABLE IF NOT EXISTS history (
    hand_id BIGINT NOT NULL, version INTEGER NOT NULL, replaced TEXT NOT NULL, case_json TEXT NOT NULL,
    result_json TEXT NOT NULL, PRIMARY KEY (hand_id, version)
);
CREATE TABLE IF NOT EXISTS table_settings (
    table_id TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (table_id, key)
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value BIGINT NOT NULL);
INSERT INTO meta (key, value) VALUES ('changes', 0) ON CONFLICT (key) DO NOTHING;
INSERT INTO meta (key, value) VALUES ('schema', 1) ON CONFLICT (key) DO NOTHING
""",
    2: """
ALTER TABLE hands ADD COLUMN IF NOT EXISTS by_actor TEXT NOT NULL DEFAULT '';
ALTER TABLE history ADD COLUMN IF NOT EXISTS by_actor TEXT NOT NULL DEFAULT '';
CREATE TABLE IF NOT EXISTS table_access (
    table_id TEXT PRIMARY KEY, join_digest TEXT NOT NULL, public_reads INTEGER NOT NULL DEFAULT 1,
    players_edit INTEGER NOT NULL DEFAULT 0, created TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS table_tokens (
    id BIGSERIAL PRIMARY KEY, digest TEXT NOT NULL UNIQUE, table_id TEXT NOT NULL, role TEXT NOT NULL,
    label TEXT NOT NULL, created TEXT NOT NULL, revoked INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS table_tokens_table ON table_tokens (table_id);
CREATE TABLE IF NOT EXISTS audit (
    id BIGSERIAL PRIMARY KEY, table_id TEXT NOT NULL, at TEXT NOT NULL, actor TEXT NOT NULL,
    action TEXT NOT NULL, hand_id BIGINT, detail TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS audit_table ON audit (table_id, id);
ALTER TABLE hands DROP CONSTRAINT IF EXISTS hands_record_key_key;
CREATE UNIQUE INDEX IF NOT EXISTS hands_table_key ON hands (table_id, record_key)
""",
    3: """
CREATE TABLE IF NOT EXISTS evidence (
    hand_id BIGINT NOT NULL, version INTEGER NOT NULL, photo BYTEA, reading TEXT,
    corrections TEXT NOT NULL DEFAULT '[]', scored_by TEXT NOT NULL DEFAULT '{}', created TEXT NOT NULL,
    PRIMARY KEY (hand_id, version)
)
""",
}
SCHEMA_LOCK = 7_200_415  # advisory lock id for creating the schema
_pools: dict[str, Any] = {}
_pools_lock = threading.Lock()


def redact(url: str) -> str:
    """The URL without its password, for messages."""
    return re.sub(r"(//[^:/@]+):[^@]*@", r"\1:***@", url)


def pool_size() -> int:
    """Connections per database per process: $MAHJONG_PG_POOL (1 to 100, default 8)."""
    raw = os.environ.get("MAHJONG_PG_POOL", "8")
    if not raw.isdigit() or not 1 <= int(raw) <= 100:
        raise LedgerError(f"MAHJONG_PG_POOL must be a number of connections from 1 to 100, not {raw!r}")
    return int(raw)


def _pool(url: str) -> Any:
    """This process's pool for ``url`` (opened on first use; connections are checked before they are lent)."""
    with _pools_lock:
        if url not in _pools:
            from psycopg_pool import ConnectionPool

            size = pool_size()
            _pools[url] = ConnectionPool(url, min_size=1, max_size=size, timeout=10, open=True,
                                         kwargs={"connect_timeout": 10}, check=ConnectionPool.check_connection,
                                         name=f"mahjong-{len(_pools)}")
        return _pools[url]


class PostgresLedger(LedgerBase):
    """A ledger in a PostgreSQL database (``postgresql://...``), working on one table."""

    def __init__(self, url: str, table: str = DEFAULT_TABLE) -> None:
        try:
            import psycopg
            import psycopg_pool  # noqa: F401
        except ImportError:
            raise LedgerError("MAHJONG_LEDGER is a postgresql:// URL, but psycopg or psycopg_pool is not installed: "
                              'pip install ".[postgres]"') from None
        self._psycopg = psycopg
        self.url = url
        self.where = redact(url)
        self.table = table
        self.read_only = False
        self._migrate()

    def _migrate(self) -> None:
        """Bring the schema to SCHEMA_VERSION, under a global lock (replicas may start together)."""
        with self._tx(write=False) as db:
            db.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
            have = db.execute("SELECT to_regclass('meta') IS NOT NULL").fetchone()[0]
            version = db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()[0] if have else 0
            if version > SCHEMA_VERSION:
                raise self._error(f"it was written by a newer version of this program (schema {version})")
            for v in range(version + 1, SCHEMA_VERSION + 1):
                for statement in MIGRATIONS[v].split(";\n"):
                    if statement.strip():
                        db.execute(statement)
            db.execute("UPDATE meta SET value = %s WHERE key = 'schema'", (SCHEMA_VERSION,))

    def _error(self, what: str) -> LedgerError:
        return LedgerError(f"ledger {self.where}: {what}. Check the database or set MAHJONG_LEDGER to another "
                           "ledger, then reload the page.")

    def _q(self, db: Any, sql: str, params: tuple = ()) -> Any:
        return db.execute(sql.replace("?", "%s"), params)

    @contextmanager
    def _tx(self, write: bool = False) -> Iterator[Any]:
        """One transaction on a pooled connection; a write first takes this table's advisory lock (writers of a
        table queue). A connection that cannot be had within 10 s, or a database error, is a ``LedgerError``."""
        psycopg = self._psycopg
        try:
            with _pool(self.url).connection() as conn, conn.transaction():
                if write:
                    conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (self.table,))
                yield conn
        except psycopg.Error as e:  # psycopg_pool.PoolTimeout is one
            raise self._error(f"the database reports: {str(e).strip().splitlines()[0][:120]}") from None
