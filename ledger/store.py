"""SQLite ledger of one table: every recorded hand with its full case and payments, the table set-up and dealer.

The ledger is the table's single source of truth, shared by every browser tab and phone:
- recording is idempotent (a key per reading: a double press stores the hand once), and passes the deal on as
  the ruleset says, in the same transaction;
- an edit keeps the earlier version (``history``), a delete is soft and can be undone (``restore``);
- a change counter (``changes``) lets open pages notice another tab's record within seconds;
- the schema carries a version (``PRAGMA user_version``) and migrates forward;
- a corrupt or unreadable file is a :class:`LedgerError` that names the file and the fix; a read-only file opens
  read-only; creating a new ledger is safe when several processes start at once.
"""

from __future__ import annotations

import csv
import io
import json
import os
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scoring import get_ruleset
from scoring.limits import MAX_AMOUNT

SCHEMA_VERSION = 2


def default_path() -> Path:
    """$MAHJONG_LEDGER, else <user data folder>/mahjong-reader/ledger.sqlite3."""
    env = os.environ.get("MAHJONG_LEDGER")
    if env:
        return Path(env).expanduser()
    base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "mahjong-reader" / "ledger.sqlite3"


def next_dealer(ruleset: str, dealer: int, winner: int | None) -> int:
    """Who deals next, as the ruleset says (``Ruleset.next_dealer``); after a draw (no winner) per the ruleset."""
    return get_ruleset(ruleset).next_dealer(dealer, [] if winner is None else [winner])


class LedgerError(RuntimeError):
    """The ledger cannot be used as asked: the message names the file, what is wrong and how to fix it."""


@dataclass
class Record:
    """One recorded event of the table: a win, several wins on one discard, or a drawn hand."""

    id: int
    created: str
    ruleset: str
    kind: str  # "win" | "multi" (several winners on one discard) | "draw"
    cases: list[dict[str, Any]]
    results: list[dict[str, Any]]
    net: list[int]
    version: int = 1
    deleted: bool = False
    dealer_before: int = 0

    @property
    def case(self) -> dict[str, Any]:
        """The (first) case: for a single win, the case."""
        return self.cases[0]

    @property
    def result(self) -> dict[str, Any]:
        return self.results[0]

    @property
    def winners(self) -> list[int]:
        return [int(c["context"]["winner"]) for c in self.cases if "winner" in c.get("context", {})]

    @property
    def winner(self) -> int | None:
        w = self.winners
        return w[0] if w else None

    @property
    def dealer(self) -> int:
        return self.dealer_before


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
}


class Ledger:
    """One table's ledger in a SQLite file."""

    def __init__(self, path: str | Path | None = None, read_only: bool | None = None) -> None:
        """Open (or create) the ledger; ``read_only`` None detects a file this user cannot write."""
        self.path = Path(path) if path else default_path()
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
    def _error(self, what: str) -> LedgerError:
        return LedgerError(f"ledger {self.path}: {what}. Move the file aside (it is kept as it is) or set "
                           "MAHJONG_LEDGER to another file, then reload the page.")

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

    @staticmethod
    def _bump(db: sqlite3.Connection) -> None:
        db.execute("UPDATE meta SET value = value + 1 WHERE key = 'changes'")

    # ------------------------------------------------------------ settings (the table: players, ruleset, dealer)
    def settings(self) -> dict[str, Any]:
        with self._tx() as db:
            return {k: json.loads(v) for k, v in db.execute("SELECT key, value FROM settings")}

    def save_settings(self, values: dict[str, Any]) -> None:
        with self._tx(write=True) as db:
            db.executemany("INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)",
                           [(k, json.dumps(v, ensure_ascii=False)) for k, v in values.items()])
            self._bump(db)

    def dealer(self) -> int:
        """The table's current dealer (0 for a new table)."""
        return int(self.settings().get("dealer", 0))

    def changes(self) -> int:
        """A counter that grows with every write: a page polls it to notice other tabs' changes."""
        with self._tx() as db:
            return int(db.execute("SELECT value FROM meta WHERE key = 'changes'").fetchone()[0])

    # ------------------------------------------------------------ hands
    def record(self, case: dict[str, Any], result: dict[str, Any], key: str | None = None) -> int:
        """Add a scored valid win and pass the deal on; with ``key`` (one per reading), a second call with the
        same key returns the first hand's id and stores nothing."""
        return self.record_event("win", [case], [result], key)

    def record_event(self, kind: str, cases: list[dict[str, Any]], results: list[dict[str, Any]],
                     key: str | None = None) -> int:
        """Add a win, several wins on one discard (``multi``, each settled against the discarder) or a drawn hand
        (``draw``: cases hold the ruleset and dealer, results are empty); the deal passes on per the ruleset."""
        if kind not in ("win", "multi", "draw"):
            raise ValueError(f"unknown kind of hand {kind!r}")
        if not cases:
            raise ValueError("a recorded hand needs its case")
        net = [0, 0, 0, 0]
        for r in results:
            for i, n in enumerate(self._net(r)):
                net[i] += n
        if any(abs(n) > MAX_AMOUNT for n in net):
            raise ValueError("a hand's net must fit a signed 64-bit integer")
        ruleset = str(cases[0]["ruleset"])
        rules = get_ruleset(ruleset)
        with self._tx(write=True) as db:
            if key is not None:
                row = db.execute("SELECT id FROM hands WHERE record_key = ?", (key,)).fetchone()
                if row:
                    return int(row[0])
            dealer = self._dealer(db, cases[0])
            winners = [int(c["context"]["winner"]) for c in cases if kind != "draw"]
            discarder = cases[0]["context"].get("discarder")
            nxt = rules.next_dealer(dealer, winners, discarder)
            cur = db.execute(
                "INSERT INTO hands (created, ruleset, case_json, result_json, net0, net1, net2, net3, kind, "
                "record_key, dealer_before) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (time.strftime("%Y-%m-%d %H:%M:%S"), ruleset, json.dumps(cases, ensure_ascii=False),
                 json.dumps(results, ensure_ascii=False), *net, kind, key, dealer))
            db.execute("INSERT OR REPLACE INTO settings (key, value) VALUES ('dealer', ?)", (json.dumps(nxt),))
            self._bump(db)
            return int(cur.lastrowid or 0)

    @staticmethod
    def _dealer(db: sqlite3.Connection, case: dict[str, Any]) -> int:
        """The dealer of the hand being recorded: the case's, else the table's."""
        d = case.get("context", {}).get("dealer")
        if d is not None:
            return int(d)
        row = db.execute("SELECT value FROM settings WHERE key = 'dealer'").fetchone()
        return int(json.loads(row[0])) if row else 0

    def update(self, hand_id: int, case: dict[str, Any], result: dict[str, Any]) -> None:
        """Replace a hand's case and result, keeping the earlier version in its history."""
        self.update_event(hand_id, [case], [result])

    def update_event(self, hand_id: int, cases: list[dict[str, Any]], results: list[dict[str, Any]]) -> None:
        net = [0, 0, 0, 0]
        for r in results:
            for i, n in enumerate(self._net(r)):
                net[i] += n
        with self._tx(write=True) as db:
            row = db.execute("SELECT version, case_json, result_json, deleted FROM hands WHERE id = ?",
                             (hand_id,)).fetchone()
            if row is None or row[3]:
                raise LedgerError(f"hand #{hand_id} no longer exists (deleted in another tab?): nothing was saved")
            version, old_case, old_result, _ = row
            db.execute("INSERT OR REPLACE INTO history (hand_id, version, replaced, case_json, result_json) "
                       "VALUES (?, ?, ?, ?, ?)", (hand_id, version, time.strftime("%Y-%m-%d %H:%M:%S"), old_case,
                                                  old_result))
            db.execute("UPDATE hands SET ruleset=?, case_json=?, result_json=?, net0=?, net1=?, net2=?, net3=?, "
                       "version=? WHERE id=?", (cases[0]["ruleset"], json.dumps(cases, ensure_ascii=False),
                                                json.dumps(results, ensure_ascii=False), *net, version + 1,
                                                hand_id))
            self._bump(db)

    def delete(self, hand_id: int) -> None:
        """Soft delete: the hand leaves the totals and the list; ``restore`` brings it back."""
        self._set_deleted(hand_id, True)

    def restore(self, hand_id: int) -> None:
        """Undo a delete."""
        self._set_deleted(hand_id, False)

    def _set_deleted(self, hand_id: int, deleted: bool) -> None:
        with self._tx(write=True) as db:
            cur = db.execute("UPDATE hands SET deleted = ? WHERE id = ?", (int(deleted), hand_id))
            if cur.rowcount == 0:
                raise LedgerError(f"hand #{hand_id} does not exist")
            self._bump(db)

    def history(self, hand_id: int) -> list[dict[str, Any]]:
        """Earlier versions of a hand, oldest first: {version, replaced, cases, results}."""
        with self._tx() as db:
            rows = db.execute("SELECT version, replaced, case_json, result_json FROM history WHERE hand_id = ? "
                              "ORDER BY version", (hand_id,)).fetchall()
        return [{"version": v, "replaced": t, "cases": json.loads(c), "results": json.loads(r)}
                for v, t, c, r in rows]

    def hands(self, include_deleted: bool = False) -> list[Record]:
        with self._tx() as db:
            rows = db.execute("SELECT id, created, ruleset, kind, case_json, result_json, net0, net1, net2, net3, "
                              "version, deleted, dealer_before FROM hands "
                              + ("" if include_deleted else "WHERE deleted = 0 ") + "ORDER BY id").fetchall()
        return [Record(r[0], r[1], r[2], r[3], json.loads(r[4]), json.loads(r[5]), list(r[6:10]), r[10],
                       bool(r[11]), r[12]) for r in rows]

    def get(self, hand_id: int) -> Record | None:
        """One hand (deleted ones too), or None."""
        return next((r for r in self.hands(include_deleted=True) if r.id == hand_id), None)

    def totals(self) -> list[int]:
        with self._tx() as db:
            row = db.execute("SELECT COALESCE(SUM(net0),0), COALESCE(SUM(net1),0), COALESCE(SUM(net2),0), "
                             "COALESCE(SUM(net3),0) FROM hands WHERE deleted = 0").fetchone()
        return [int(v) for v in row]

    def last(self) -> Record | None:
        hands = self.hands()
        return hands[-1] if hands else None

    @staticmethod
    def _net(result: dict[str, Any]) -> list[int]:
        if not result.get("valid"):
            raise ValueError("only a valid, scored hand can be recorded")
        net = [int(v) for v in result["net"]]
        if len(net) != 4 or sum(net) != 0:
            raise ValueError("a hand's net must be four amounts summing to zero")
        if any(abs(n) > MAX_AMOUNT for n in net):
            raise ValueError("a hand's net must fit a signed 64-bit integer")
        return net

    # ------------------------------------------------------------ export
    def export_json(self) -> str:
        return json.dumps([{"id": r.id, "created": r.created, "ruleset": r.ruleset, "kind": r.kind,
                            "cases": r.cases, "results": r.results, "net": r.net, "version": r.version}
                           for r in self.hands()], ensure_ascii=False, indent=1)

    def export_csv(self, names: list[str] | None = None) -> str:
        names = names or [f"seat {i}" for i in range(4)]
        buf = io.StringIO()
        w = csv.writer(buf)
        w.writerow(["id", "created", "ruleset", "kind", "winner", "dealer", "win_type", *names])
        for r in self.hands():
            w.writerow([r.id, r.created, r.ruleset, r.kind, " ".join(names[s] for s in r.winners),
                        names[r.dealer], r.case.get("context", {}).get("win_type", ""), *r.net])
        w.writerow(["total", "", "", "", "", "", "", *self.totals()])
        return buf.getvalue()
