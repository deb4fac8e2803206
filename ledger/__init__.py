"""The table's ledger: recorded hands, running totals, dealer and previous winner, in SQLite."""

from .store import Ledger, LedgerError, Record, default_path, next_dealer

__all__ = ["Ledger", "LedgerError", "Record", "default_path", "next_dealer"]
