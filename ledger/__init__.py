"""The table's ledger: recorded hands, running totals, dealer and set-up, in SQLite or PostgreSQL."""

from __future__ import annotations

import os

from .access import Actor, Policy
from .base import DEFAULT_TABLE, LedgerBase, Record, settle_up
from .errors import AccessDenied, LedgerError
from .evidence import Evidence
from .store import Ledger, default_path


def open_ledger(location: str | None = None, table: str = DEFAULT_TABLE) -> LedgerBase:
    """The ledger at ``location`` ($MAHJONG_LEDGER by default): a ``postgresql://`` URL opens PostgreSQL (the
    ``[postgres]`` extra), anything else is a SQLite file."""
    loc = location if location is not None else os.environ.get("MAHJONG_LEDGER") or str(default_path())
    if loc.startswith(("postgresql://", "postgres://")):
        from .postgres import PostgresLedger

        return PostgresLedger(loc, table)
    return Ledger(loc, table=table)


__all__ = ["AccessDenied", "Actor", "DEFAULT_TABLE", "Evidence", "Ledger", "LedgerBase", "LedgerError", "Policy",
           "Record", "default_path", "open_ledger", "settle_up"]
