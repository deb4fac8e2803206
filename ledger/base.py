"""The ledger's behaviour, written once for both stores (SQLite embedded, PostgreSQL for a parlour).

A ledger holds many tables (a table id on every record and setting); a :class:`LedgerBase` object works on one.
- recording is idempotent (a key per entry: a double press, or a retried request, stores the hand once) and
  passes the deal on as the ruleset says, in the same transaction;
- an edit keeps the earlier version (``history``), a delete is soft and can be undone (``restore``);
- a change counter (``changes``) lets open pages notice other clients' records within seconds.
Stores supply a connection, the write lock and the schema; the SQL here is portable (``?`` placeholders).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

from scoring import InputError, event_net, get_ruleset, is_draw, next_dealer_of, score_case
from scoring.limits import MAX_AMOUNT

from .access import Actor
from .errors import LedgerError
from .evidence import Evidence, Evidencing
from .sharing import Sharing, now

DEFAULT_TABLE = "main"


def settle_up(totals: list[int]) -> list[dict[str, int]]:
    """Transfers that square the running totals: the largest debtor pays the largest creditor, repeatedly
    (at most three transfers for four players)."""
    bal = list(totals)
    out: list[dict[str, int]] = []
    while True:
        debtor = min(range(len(bal)), key=lambda i: bal[i])
        creditor = max(range(len(bal)), key=lambda i: bal[i])
        amount = min(-bal[debtor], bal[creditor])
        if amount <= 0:
            return out
        out.append({"from": debtor, "to": creditor, "amount": amount})
        bal[debtor] += amount
        bal[creditor] -= amount


@dataclass
class Record:
    """One recorded event of a table: a win, several wins on one discard, or a drawn hand."""

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
    by: str = ""  # who wrote this version (an owner, a player, "this device"; "" before who-did-what was kept)

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

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "created": self.created, "ruleset": self.ruleset, "kind": self.kind,
                "cases": self.cases, "results": self.results, "net": self.net, "version": self.version,
                "deleted": self.deleted, "dealer_before": self.dealer_before, "by": self.by}


def net_of(cases: list[dict[str, Any]], results: list[dict[str, Any]]) -> list[int]:
    """The net of an event as the engine sums it (``scoring.event_net``: a kong paid once however many winners);
    refuses invalid results and amounts beyond 64 bits."""
    for r in results:
        if not r.get("valid"):
            raise ValueError("only a valid, scored hand can be recorded")
        n = [int(v) for v in r["net"]]
        if len(n) != 4 or sum(n) != 0:
            raise ValueError("a hand's net must be four amounts summing to zero")
    try:
        net = event_net(cases, results)
    except InputError as e:
        raise ValueError(f"a case of this hand cannot be scored: {e}") from None
    if any(abs(v) > MAX_AMOUNT for v in net):
        raise ValueError("a hand's net must fit a signed 64-bit integer")
    return net


HAND_COLUMNS = ("id, created, ruleset, kind, case_json, result_json, net0, net1, net2, net3, version, deleted, "
                "dealer_before, by_actor")


class LedgerBase(Sharing, Evidencing):
    """A ledger's operations on one table; subclasses give ``_tx`` (a transaction), ``_lock`` and ``where``.

    Every write takes ``by``, who makes it (``ledger.access.Actor``; None: the page on the machine that holds
    the ledger), checks inside its transaction that the table lets them (``AccessDenied`` if not), and names them
    in the hand, its history and the table's audit log."""

    table: str = DEFAULT_TABLE
    read_only: bool = False
    where: str = ""  # what the messages call this ledger (a file path, a database URL without password)

    # ------------------------------------------------------------ store hooks
    def _tx(self, write: bool = False) -> AbstractContextManager[Any]:  # pragma: no cover - interface
        raise NotImplementedError

    def _error(self, what: str) -> LedgerError:
        return LedgerError(f"ledger {self.where}: {what}. Move the file aside (it is kept as it is) or set "
                           "MAHJONG_LEDGER to another ledger, then reload the page.")

    def _changed(self, db: Any) -> None:
        self._q(db, "UPDATE meta SET value = value + 1 WHERE key = 'changes'")

    # ------------------------------------------------------------ settings: the table's set-up and dealer
    def settings(self) -> dict[str, Any]:
        with self._tx() as db:
            rows = self._q(db, "SELECT key, value FROM table_settings WHERE table_id = ?", (self.table,)).fetchall()
        return {k: json.loads(v) for k, v in rows}

    def save_settings(self, values: dict[str, Any], by: Actor | None = None) -> None:
        """Save (part of) the table's set-up: ruleset, house rules, names, dealer, language, ``keep_photos``
        (False: new hands keep no photo, and the photos kept so far are erased)."""
        if "keep_photos" in values and not isinstance(values["keep_photos"], bool):
            raise ValueError("keep_photos: true or false")
        with self._tx(write=True) as db:
            who = self._authorise(db, "settings", by)
            for k, v in values.items():
                self._set(db, k, v)
            if values.get("keep_photos") is False:
                self._erase_photos(db)
            self._audit(db, who, "settings", None, ", ".join(sorted(values)))
            self._changed(db)

    def _set(self, db: Any, key: str, value: Any) -> None:
        self._q(db, "INSERT INTO table_settings (table_id, key, value) VALUES (?, ?, ?) ON CONFLICT (table_id, key) "
                "DO UPDATE SET value = excluded.value", (self.table, key, json.dumps(value, ensure_ascii=False)))

    def dealer(self) -> int:
        """The table's current dealer (0 for a new table)."""
        return int(self.settings().get("dealer", 0))

    def changes(self) -> int:
        """A counter that grows with every write: a page polls it to notice other clients' changes."""
        with self._tx() as db:
            return int(self._q(db, "SELECT value FROM meta WHERE key = 'changes'").fetchone()[0])

    # ------------------------------------------------------------ hands
    def record(self, case: dict[str, Any], result: dict[str, Any], key: str | None = None,
               by: Actor | None = None, evidence: Evidence | None = None) -> int:
        """Add a scored valid win and pass the deal on; a second call with the same ``key`` stores nothing and
        returns the first hand's id."""
        return self.record_event("win", [case], [result], key, by=by, evidence=evidence)

    def record_draw(self, case: dict[str, Any], key: str | None = None, by: Actor | None = None) -> int:
        """Score a drawn-hand case (``kind: "draw"``, RULES.md D-C13) and record it with its kong money and
        penalties; an impossible draw is refused with the engine's message."""
        result = score_case({**case, "kind": "draw"})
        if not result.get("valid"):
            raise ValueError(result.get("message", "the drawn hand cannot be scored"))
        return self.record_event("draw", [{**case, "kind": "draw"}], [result], key, by=by)

    def record_event(self, kind: str, cases: list[dict[str, Any]], results: list[dict[str, Any]],
                     key: str | None = None, by: Actor | None = None, evidence: Evidence | None = None) -> int:
        """Add a win, several wins on one discard (``multi``) or a drawn hand (``draw``, its case and result),
        with its ``evidence``; the next dealer is the engine's (``next_dealer`` of the results), never worked out
        here."""
        if evidence is not None:
            evidence.checked()  # refused before anything is written
        if kind not in ("win", "multi", "draw"):
            raise ValueError(f"unknown kind of hand {kind!r}")
        if not cases:
            raise ValueError("a recorded hand needs its case")
        if (kind == "draw") != all(is_draw(c) for c in cases) or (kind != "multi" and len(cases) != 1):
            raise ValueError(f"a recorded {kind} needs {'one drawn-hand case' if kind == 'draw' else 'its win'}")
        net = net_of(cases, results)
        nxt = next_dealer_of(cases, results)
        ruleset = str(cases[0]["ruleset"])
        get_ruleset(ruleset)  # an unknown ruleset is refused before anything is written
        with self._tx(write=True) as db:
            who = self._authorise(db, "record", by)
            if key is not None:
                row = self._q(db, "SELECT id FROM hands WHERE table_id = ? AND record_key = ?",
                               (self.table, key)).fetchone()
                if row:
                    return int(row[0])
            dealer = self._dealer(db, cases[0])
            row = self._q(db, "INSERT INTO hands (table_id, created, ruleset, case_json, result_json, net0, net1, "
                          "net2, net3, kind, record_key, dealer_before, by_actor) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, "
                          "?, ?, ?, ?) RETURNING id", (self.table, now(), ruleset,
                                                       json.dumps(cases, ensure_ascii=False),
                                                       json.dumps(results, ensure_ascii=False), *net, kind, key,
                                                       dealer, who)).fetchone()
            self._set(db, "dealer", nxt)
            self._keep_evidence(db, int(row[0]), 1, evidence, cases, now())
            self._audit(db, who, "record", int(row[0]), kind)
            self._changed(db)
            return int(row[0])

    def _dealer(self, db: Any, case: dict[str, Any]) -> int:
        """The dealer of the hand being recorded: the case's, else the table's."""
        d = case.get("context", {}).get("dealer")
        if d is not None:
            return int(d)
        row = self._q(db, "SELECT value FROM table_settings WHERE table_id = ? AND key = 'dealer'",
                      (self.table,)).fetchone()
        return int(json.loads(row[0])) if row else 0

    def update(self, hand_id: int, case: dict[str, Any], result: dict[str, Any], by: Actor | None = None,
               evidence: Evidence | None = None) -> None:
        """Replace a hand's case and result, keeping the earlier version (and its evidence) in its history."""
        self.update_event(hand_id, [case], [result], by=by, evidence=evidence)

    def update_event(self, hand_id: int, cases: list[dict[str, Any]], results: list[dict[str, Any]],
                     by: Actor | None = None, evidence: Evidence | None = None) -> None:
        if evidence is not None:
            evidence.checked()  # refused before anything is written
        net = net_of(cases, results)
        with self._tx(write=True) as db:
            who = self._authorise(db, "edit", by)
            row = self._q(db, "SELECT version, case_json, result_json, deleted, by_actor FROM hands WHERE id = ? "
                          "AND table_id = ?", (hand_id, self.table)).fetchone()
            if row is None or row[3]:
                raise LedgerError(f"hand #{hand_id} no longer exists (deleted in another tab?): nothing was saved")
            version, old_case, old_result, _, old_by = row
            self._q(db, "INSERT INTO history (hand_id, version, replaced, case_json, result_json, by_actor) VALUES "
                    "(?, ?, ?, ?, ?, ?)", (hand_id, version, now(), old_case, old_result, old_by))
            self._q(db, "UPDATE hands SET ruleset=?, case_json=?, result_json=?, net0=?, net1=?, net2=?, net3=?, "
                    "version=?, by_actor=? WHERE id=?", (cases[0]["ruleset"], json.dumps(cases, ensure_ascii=False),
                                                         json.dumps(results, ensure_ascii=False), *net, version + 1,
                                                         who, hand_id))
            self._keep_evidence(db, hand_id, version + 1, evidence, cases, now())
            self._audit(db, who, "edit", hand_id, f"version {version + 1}")
            self._changed(db)

    def delete(self, hand_id: int, by: Actor | None = None) -> None:
        """Soft delete: the hand leaves the totals and the list; ``restore`` brings it back."""
        self._set_deleted(hand_id, True, by)

    def restore(self, hand_id: int, by: Actor | None = None) -> None:
        """Undo a delete."""
        self._set_deleted(hand_id, False, by)

    def _set_deleted(self, hand_id: int, deleted: bool, by: Actor | None) -> None:
        with self._tx(write=True) as db:
            who = self._authorise(db, "edit", by)
            cur = self._q(db, "UPDATE hands SET deleted = ? WHERE id = ? AND table_id = ?",
                          (int(deleted), hand_id, self.table))
            if cur.rowcount == 0:
                raise LedgerError(f"hand #{hand_id} does not exist")
            self._audit(db, who, "delete" if deleted else "restore", hand_id, "")
            self._changed(db)

    def history(self, hand_id: int) -> list[dict[str, Any]]:
        """Earlier versions of a hand, oldest first: {version, replaced, cases, results, by}."""
        with self._tx() as db:
            rows = self._q(db, "SELECT h.version, h.replaced, h.case_json, h.result_json, h.by_actor FROM history h "
                           "JOIN hands x ON x.id = h.hand_id WHERE h.hand_id = ? AND x.table_id = ? ORDER BY "
                           "h.version", (hand_id, self.table)).fetchall()
        return [{"version": v, "replaced": t, "cases": json.loads(c), "results": json.loads(r), "by": b}
                for v, t, c, r, b in rows]

    def _records(self, rows: Iterator[tuple]) -> list[Record]:
        return [Record(int(r[0]), str(r[1]), r[2], r[3], json.loads(r[4]), json.loads(r[5]),
                       [int(v) for v in r[6:10]], int(r[10]), bool(r[11]), int(r[12]), str(r[13] or ""))
                for r in rows]

    def hands(self, include_deleted: bool = False) -> list[Record]:
        with self._tx() as db:
            rows = self._q(db, f"SELECT {HAND_COLUMNS} FROM hands WHERE table_id = ? "
                           + ("" if include_deleted else "AND deleted = 0 ") + "ORDER BY id", (self.table,)).fetchall()
        return self._records(rows)

    def get(self, hand_id: int) -> Record | None:
        """One hand (deleted ones too), or None."""
        with self._tx() as db:
            rows = self._q(db, f"SELECT {HAND_COLUMNS} FROM hands WHERE id = ? AND table_id = ?",
                           (hand_id, self.table)).fetchall()
        recs = self._records(rows)
        return recs[0] if recs else None

    def totals(self) -> list[int]:
        with self._tx() as db:
            row = self._q(db, "SELECT COALESCE(SUM(net0),0), COALESCE(SUM(net1),0), COALESCE(SUM(net2),0), "
                          "COALESCE(SUM(net3),0) FROM hands WHERE deleted = 0 AND table_id = ?",
                          (self.table,)).fetchone()
        return [int(v) for v in row]

    def last(self) -> Record | None:
        hands = self.hands()
        return hands[-1] if hands else None

    def settle_up(self) -> list[dict[str, int]]:
        """Transfers that square this table's running totals."""
        return settle_up(self.totals())

    # ------------------------------------------------------------ export
    def export_json(self) -> str:
        """Every hand with its evidence, each version's (the photos as base64)."""
        out = []
        for r in self.hands():
            out.append({**r.to_json(), "evidence": [{"version": e["version"], "created": e["created"],
                                                     **e["evidence"].to_json()} for e in self.evidence(r.id)]})
        return json.dumps(out, ensure_ascii=False, indent=1)

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
