"""A recorded hand's evidence, for disputes: a small JPEG of its photo, what the reader saw, every correction
made before it was recorded, and what scored it (ruleset, options, engine version). Kept per version of the
hand, so an edit keeps the earlier version's evidence; written in the record's own transaction."""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass, field
from typing import Any

from .errors import LedgerError

MAX_PHOTO_BYTES = 100_000  # the stored JPEG (the page makes it; an API client's is refused above this)
MAX_READING_CHARS = 300_000
MAX_CORRECTIONS = 500


@dataclass
class Evidence:
    """What one version of a hand is kept with. ``photo``: JPEG bytes (no EXIF: re-encoded), or None;
    ``reading``: the reader's JSON (boxes, faces, probabilities; ``boxes_in_photo`` in the stored JPEG's
    pixels); ``corrections``: {"what", "from", "to", "at", ...} each; ``scored_by`` is filled by the ledger."""

    photo: bytes | None = None
    reading: dict[str, Any] | None = None
    corrections: list[dict[str, Any]] = field(default_factory=list)
    scored_by: dict[str, Any] = field(default_factory=dict)

    def checked(self) -> Evidence:
        """This evidence, or ``LedgerError`` saying what is wrong with it (nothing is stored then)."""
        if self.photo is not None:
            if not isinstance(self.photo, bytes | bytearray) or not bytes(self.photo[:3]) == b"\xff\xd8\xff":
                raise LedgerError("evidence: the photo must be a JPEG")
            if len(self.photo) > MAX_PHOTO_BYTES:
                raise LedgerError(f"evidence: the photo is {len(self.photo) // 1000} KB, at most "
                                  f"{MAX_PHOTO_BYTES // 1000} KB are kept")
        if self.reading is not None and (not isinstance(self.reading, dict)
                                         or len(json.dumps(self.reading)) > MAX_READING_CHARS):
            raise LedgerError("evidence: the reading must be a JSON object of at most 300,000 characters")
        if not isinstance(self.corrections, list) or len(self.corrections) > MAX_CORRECTIONS or \
                not all(isinstance(c, dict) for c in self.corrections):
            raise LedgerError(f"evidence: corrections must be a list of at most {MAX_CORRECTIONS} objects")
        return self

    def to_json(self) -> dict[str, Any]:
        """As the API and the export give it (the photo as base64)."""
        return {"photo_jpeg_base64": base64.b64encode(self.photo).decode() if self.photo else None,
                "reading": self.reading, "corrections": self.corrections, "scored_by": self.scored_by}

    @classmethod
    def from_json(cls, data: Any) -> Evidence:
        """An API client's evidence (``photo_jpeg_base64``, ``reading``, ``corrections``); ``LedgerError`` when
        it cannot be used."""
        if not isinstance(data, dict):
            raise LedgerError("evidence: a JSON object is expected")
        raw = data.get("photo_jpeg_base64")
        try:
            photo = base64.b64decode(raw, validate=True) if raw else None
        except (ValueError, TypeError):
            raise LedgerError("evidence: photo_jpeg_base64 is not base64") from None
        return cls(photo, data.get("reading"), data.get("corrections") or []).checked()


class Evidencing:
    """The ledger's side of evidence (mixed into ``LedgerBase``, which gives ``_tx``, ``_q`` and ``table``)."""

    table: str

    def _tx(self, write: bool = False) -> Any:  # pragma: no cover - interface
        raise NotImplementedError

    def _q(self, db: Any, sql: str, params: tuple = ()) -> Any:  # pragma: no cover - interface
        raise NotImplementedError

    def _keeps_photos(self, db: Any) -> bool:
        row = self._q(db, "SELECT value FROM table_settings WHERE table_id = ? AND key = 'keep_photos'",
                      (self.table,)).fetchone()
        return True if row is None else bool(json.loads(row[0]))

    def _keep_evidence(self, db: Any, hand_id: int, version: int, evidence: Evidence | None,
                       cases: list[dict[str, Any]], at: str) -> None:
        """Inside a record's or an edit's transaction: this version's evidence, checked by the caller before the
        transaction (the photo only where the table keeps photos), with what scored it."""
        from scoring import ENGINE_VERSION

        ev = evidence or Evidence()
        scored_by = {"ruleset": cases[0].get("ruleset"), "options": cases[0].get("options", {}),
                     "engine": ENGINE_VERSION}
        photo = ev.photo if ev.photo is not None and self._keeps_photos(db) else None
        self._q(db, "INSERT INTO evidence (hand_id, version, photo, reading, corrections, scored_by, created) VALUES "
                "(?, ?, ?, ?, ?, ?, ?)", (hand_id, version, photo, json.dumps(ev.reading, ensure_ascii=False),
                                          json.dumps(ev.corrections, ensure_ascii=False),
                                          json.dumps(scored_by, ensure_ascii=False), at))

    def _erase_photos(self, db: Any) -> None:
        """The table no longer keeps photos: the ones kept so far go too."""
        self._q(db, "UPDATE evidence SET photo = NULL WHERE photo IS NOT NULL AND hand_id IN (SELECT id FROM hands "
                "WHERE table_id = ?)", (self.table,))

    def evidence(self, hand_id: int) -> list[dict[str, Any]]:
        """A hand's evidence, one entry per version kept, oldest first: {version, created, evidence}; a hand
        recorded before evidence was kept has none."""
        with self._tx() as db:
            rows = self._q(db, "SELECT e.version, e.created, e.photo, e.reading, e.corrections, e.scored_by FROM "
                           "evidence e JOIN hands h ON h.id = e.hand_id WHERE e.hand_id = ? AND h.table_id = ? "
                           "ORDER BY e.version", (hand_id, self.table)).fetchall()
        return [{"version": int(v), "created": c,
                 "evidence": Evidence(bytes(p) if p is not None else None, json.loads(r) if r else None,
                                      json.loads(k), json.loads(s))} for v, c, p, r, k, s in rows]
