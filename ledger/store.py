"""The embedded ledger: SQLite in one file (the single-machine default; ``ledger.postgres`` serves a parlour).

Beyond the shared behaviour (``ledger.base``): the schema carries a version (``PRAGMA user_version``) and
migrates forward; a corrupt or unreadable file is a :class:`LedgerError` that names the file and the fix; a
read-only file opens read-only; creating a new ledger is safe when several processes start at once.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .base import DEFAULT_TABLE, LedgerBase, Record, settle_up
from .errors import LedgerError

SCHEMA_VERSION = 5

__all__ = ["Ledger", "LedgerError", "Record", "default_path", "settle_up"]


def default_path() -> Path:
    """$MAHJONG_LEDGER, else <user data folder>/mahjong-reader/ledger.sqlite3."""
    env = os.environ.get("MAHJONG_LEDGER")
    if env:
        return Path(env).expanduser()
    base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "mahjong-reader" / "ledger.sqlite3"


MIGRATIONS: dict[int, str] = {
    1: """
CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS hands (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created TEXT NOT NULL,
    ruleset TEXT NOT NULL,
    case_json TEXT NOT NULL,
    result_json TEXT NOT NULL,
    net0 INTEGER NOT NULL, net1 INTEGER NOT NULL, net2 INTEGER NOT NULL, net3 INTEGER NOT NULL
);
""",
    2: """
ALTER TABLE hands ADD COLUMN kind TEXT NOT NULL DEFAULT 'win';
ALTER TABLE hands ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
ALTER TABLE hands ADD COLUMN deleted INTEGER NOT NULL DEFAULT 0;
ALTER TABLE hands ADD COLUMN record_key TEXT;
ALTER TABLE hands ADD COLUMN dealer_before INTEGER NOT NULL DEFAULT 0;
CREATE UNIQUE INDEX IF NOT EXISTS hands_record_key ON hands (record_key) WHERE record_key IS NOT NULL;
CREATE TABLE IF NOT EXISTS history (
    hand_id INTEGER NOT NULL, version INTEGER NOT NULL, replaced TEXT NOT NULL,
    case_json TEXT NOT NULL, result_json TEXT NOT NULL, PRIMARY KEY (hand_id, version)
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
INSERT OR IGNORE INTO meta (key, value) VALUES ('changes', 0);
UPDATE hands SET dealer_before = CAST(json_extract(case_json, '$.context.dealer') AS INTEGER)
    WHERE json_extract(case_json, '$.context.dealer') IS NOT NULL;
UPDATE hands SET case_json = '[' || case_json || ']', result_json = '[' || result_json || ']';
""",
    3: """
ALTER TABLE hands ADD COLUMN table_id TEXT NOT NULL DEFAULT 'main';
CREATE INDEX IF NOT EXISTS hands_table ON hands (table_id, id);
CREATE TABLE IF NOT EXISTS table_settings (
    table_id TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (table_id, key)
);
INSERT OR IGNORE INTO table_settings (table_id, key, value) SELECT 'main', key, value FROM settings;
DROP TABLE settings;
""",
    4: """
ALTER TABLE hands ADD COLUMN by_actor TEXT NOT NULL DEFAULT '';
ALTER TABLE history ADD COLUMN by_actor TEXT NOT NULL DEFAULT '';
CREATE TABLE IF NOT EXISTS table_access (
    table_id TEXT PRIMARY KEY, join_digest TEXT NOT NULL, public_reads INTEGER NOT NULL DEFAULT 1,
    players_edit INTEGER NOT NULL DEFAULT 0, created TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS table_tokens (
    id INTEGER PRIMARY KEY AUTOINCREMENT, digest TEXT NOT NULL UNIQUE, table_id TEXT NOT NULL, role TEXT NOT NULL,
    label TEXT NOT NULL, created TEXT NOT NULL, revoked INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS table_tokens_table ON table_tokens (table_id);
CREATE TABLE IF NOT EXISTS audit (
    id INTEGER PRIMARY KEY AUTOINCREMENT, table_id TEXT NOT NULL, at TEXT NOT NULL, actor TEXT NOT NULL,
    action TEXT NOT NULL, hand_id INTEGER, detail TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS audit_table ON audit (table_id, id);
DROP INDEX IF EXISTS hands_record_key;
CREATE UNIQUE INDEX IF NOT EXISTS hands_table_key ON hands (table_id, record_key) WHERE record_key IS NOT NULL;
""",
    5: """
CREATE TABLE IF NOT EXISTS evidence (
    hand_id INTEGER NOT NULL, version INTEGER NOT NULL, photo BLOB, reading TEXT,
    corrections TEXT NOT NULL DEFAULT '[]', scored_by TEXT NOT NULL DEFAULT '{}', created TEXT NOT NULL,
    PRIMARY KEY (hand_id, version)
);
""",
}


class Ledger(LedgerBase):
    """A ledger in a SQLite file, working on one table (``table``, default "main")."""

    def __init__(self, path: str | Path | None = None, read_only: bool | None = None,
                 table: str = DEFAULT_TABLE) -> None:
        """Open (or create) the ledger; ``read_only`` None detects a file this user cannot write."""
        self.path = Path(path) if path else default_path()
        self.where = str(self.path)
        self.table = table
        self.read_only = bool(read_only)
        if read_only is None:
            self.read_only = self.path.exists() and not os.access(self.path, os.W_OK)
        if not self.read_only:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as e:
                raise self._error(f"its folder cannot be created ({e.strerror})") from None
        elif not self.path.exists():
            raise self._error("the file does not exist and cannot be created read-only")
        try:
            self._migrate()
        except sqlite3.DatabaseError as e:
            raise self._error(self._why(e)) from None

    # ------------------------------------------------------------ opening, errors, migration
    @staticmethod
    def _why(e: sqlite3.DatabaseError) -> str:
        text = str(e)
        if "not a database" in text or "malformed" in text:
            return "the file is not a ledger or is damaged"
        if "readonly" in text or "read-only" in text:
            return "the file is read-only"
        if "unable to open" in text:
            return "the file cannot be opened (check its folder's permissions)"
        return f"the database reports: {text[:120]}"

    def _connect(self) -> sqlite3.Connection:
        if self.read_only:
            return sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, timeout=10)
        return sqlite3.connect(self.path, timeout=10)

    @contextmanager
    def _tx(self, write: bool = False) -> Iterator[sqlite3.Connection]:
        """One transaction; a write begins IMMEDIATE so that concurrent writers queue instead of failing."""
        if write and self.read_only:
            raise self._error("the file is read-only, so nothing can be recorded")
        try:
            db = self._connect()
        except sqlite3.DatabaseError as e:
            raise self._error(self._why(e)) from None
        try:
            if write:
                db.execute("BEGIN IMMEDIATE")
            yield db
            if write:
                db.commit()
        except sqlite3.DatabaseError as e:
            db.rollback()
            raise self._error(self._why(e)) from None
        finally:
            db.close()

    def _migrate(self) -> None:
        """Create or upgrade the schema to SCHEMA_VERSION; safe when several processes do it at once."""
        for attempt in range(50):
            try:
                self._migrate_once()
                return
            except sqlite3.OperationalError as e:
                if "locked" not in str(e) and "busy" not in str(e):
                    raise
                time.sleep(0.02 * (attempt + 1))
        raise self._error("another program keeps the file locked")

    def _migrate_once(self) -> None:
        db = self._connect()
        try:
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise self._error(f"it was written by a newer version of this program (schema {version})")
            if version == SCHEMA_VERSION:
                db.execute("SELECT COUNT(*) FROM hands").fetchone()  # a damaged file fails here
                return
            if self.read_only:
                raise self._error(f"the file is read-only and its schema (version {version}) needs an upgrade")
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("BEGIN IMMEDIATE")
            version = db.execute("PRAGMA user_version").fetchone()[0]  # another process may have migrated
            if version == 0 and db.execute("SELECT name FROM sqlite_master WHERE name='hands'").fetchone():
                version = 1  # a ledger of the first release, before versions were written
            for v in range(version + 1, SCHEMA_VERSION + 1):
                for statement in MIGRATIONS[v].split(";\n"):
                    if statement.strip():
                        db.execute(statement)
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            db.commit()
        except BaseException:
            if db.in_transaction:
                db.rollback()
            raise
        finally:
            db.close()

