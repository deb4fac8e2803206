"""SQLite ledger of one table: every recorded hand with its payments; survives restarts, shared by browser tabs.

Each write is one transaction; WAL mode lets a second tab read while another writes.
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


@dataclass
class Record:
    id: int
    created: str
    ruleset: str
    case: dict[str, Any]
    result: dict[str, Any]
    net: list[int]

    @property
    def winner(self) -> int:
        return int(self.case["context"]["winner"])

    @property
    def dealer(self) -> int:
        return int(self.case["context"]["dealer"])


SCHEMA = """
CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS hands (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created TEXT NOT NULL,
    ruleset TEXT NOT NULL,
    case_json TEXT NOT NULL,
    result_json TEXT NOT NULL,
    net0 INTEGER NOT NULL, net1 INTEGER NOT NULL, net2 INTEGER NOT NULL, net3 INTEGER NOT NULL
);
"""


class Ledger:
    """One table's ledger in a SQLite file."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path else default_path()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._tx() as db:
            db.executescript(SCHEMA)

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        db = sqlite3.connect(self.path, timeout=10)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            with db:  # one transaction: commit on success, roll back on error
                yield db
        finally:
            db.close()

    # ------------------------------------------------------------ settings
    def settings(self) -> dict[str, Any]:
        with self._tx() as db:
            return {k: json.loads(v) for k, v in db.execute("SELECT key, value FROM settings")}

    def save_settings(self, values: dict[str, Any]) -> None:
        with self._tx() as db:
            db.executemany("INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)",
                           [(k, json.dumps(v, ensure_ascii=False)) for k, v in values.items()])

    # ------------------------------------------------------------ hands
    def record(self, case: dict[str, Any], result: dict[str, Any]) -> int:
        """Add a scored valid hand; returns its id."""
        net = self._net(result)
        with self._tx() as db:
            cur = db.execute(
                "INSERT INTO hands (created, ruleset, case_json, result_json, net0, net1, net2, net3) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (time.strftime("%Y-%m-%d %H:%M:%S"), case["ruleset"], json.dumps(case, ensure_ascii=False),
                 json.dumps(result, ensure_ascii=False), *net))
            return int(cur.lastrowid or 0)

    def update(self, hand_id: int, case: dict[str, Any], result: dict[str, Any]) -> None:
        net = self._net(result)
        with self._tx() as db:
            db.execute("UPDATE hands SET ruleset=?, case_json=?, result_json=?, net0=?, net1=?, net2=?, net3=? "
                       "WHERE id=?", (case["ruleset"], json.dumps(case, ensure_ascii=False),
                                      json.dumps(result, ensure_ascii=False), *net, hand_id))

    def delete(self, hand_id: int) -> None:
        with self._tx() as db:
            db.execute("DELETE FROM hands WHERE id=?", (hand_id,))

    def hands(self) -> list[Record]:
        with self._tx() as db:
            rows = db.execute("SELECT id, created, ruleset, case_json, result_json, net0, net1, net2, net3 "
                              "FROM hands ORDER BY id").fetchall()
        return [Record(r[0], r[1], r[2], json.loads(r[3]), json.loads(r[4]), list(r[5:9])) for r in rows]

    def totals(self) -> list[int]:
        with self._tx() as db:
            row = db.execute("SELECT COALESCE(SUM(net0),0), COALESCE(SUM(net1),0), COALESCE(SUM(net2),0), "
                             "COALESCE(SUM(net3),0) FROM hands").fetchone()
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
        return net

    # ------------------------------------------------------------ export
    def export_json(self) -> str:
        return json.dumps([{"id": r.id, "created": r.created, "ruleset": r.ruleset, "case": r.case,
                            "result": r.result, "net": r.net} for r in self.hands()], ensure_ascii=False, indent=1)

    def export_csv(self, names: list[str] | None = None) -> str:
        names = names or [f"seat {i}" for i in range(4)]
        buf = io.StringIO()
        w = csv.writer(buf)
        w.writerow(["id", "created", "ruleset", "winner", "dealer", "win_type", *names])
        for r in self.hands():
            w.writerow([r.id, r.created, r.ruleset, names[r.winner], names[r.dealer],
                        r.case["context"].get("win_type"), *r.net])
        return buf.getvalue()
