"""The ledger on PostgreSQL (optional extra ``[postgres]``: psycopg 3), for a parlour's many tables and replicas.

Same behaviour as the SQLite ledger (``ledger.base``): every write takes a per-table advisory lock inside its
transaction, so two API processes recording on one table pass the deal in order and never duplicate a keyed
record. The schema is created (or upgraded) under a global advisory lock, so replicas may start together.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from .base import DEFAULT_TABLE, LedgerBase, LedgerError

SCHEMA_VERSION = 1
SCHEMA = """
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
"""
SCHEMA_LOCK = 7_200_415  # advisory lock id for creating the schema


def redact(url: str) -> str:
    """The URL without its password, for messages."""
    return re.sub(r"(//[^:/@]+):[^@]*@", r"\1:***@", url)


class PostgresLedger(LedgerBase):
    """A ledger in a PostgreSQL database (``postgresql://...``), working on one table."""

    def __init__(self, url: str, table: str = DEFAULT_TABLE) -> None:
        try:
            import psycopg
        except ImportError:
            raise LedgerError("MAHJONG_LEDGER is a postgresql:// URL, but psycopg is not installed: "
                              'pip install ".[postgres]"') from None
        self._psycopg = psycopg
        self.url = url
        self.where = redact(url)
        self.table = table
        self.read_only = False
        with self._tx(write=False) as db:
            db.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
            for statement in SCHEMA.split(";\n"):
                if statement.strip():
                    db.execute(statement)

    def _error(self, what: str) -> LedgerError:
        return LedgerError(f"ledger {self.where}: {what}. Check the database or set MAHJONG_LEDGER to another "
                           "ledger, then reload the page.")

    def _q(self, db: Any, sql: str, params: tuple = ()) -> Any:
        return db.execute(sql.replace("?", "%s"), params)

    @contextmanager
    def _tx(self, write: bool = False) -> Iterator[Any]:
        """One transaction; a write first takes this table's advisory lock (writers of a table queue)."""
        psycopg = self._psycopg
        try:
            conn = psycopg.connect(self.url, connect_timeout=10)
        except psycopg.Error as e:
            raise self._error(f"cannot connect ({str(e).strip().splitlines()[0][:120]})") from None
        try:
            with conn.transaction():
                if write:
                    conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (self.table,))
                yield conn
        except psycopg.Error as e:
            raise self._error(f"the database reports: {str(e).strip().splitlines()[0][:120]}") from None
        finally:
            conn.close()
