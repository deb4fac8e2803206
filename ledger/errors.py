"""The ledger's errors: what went wrong, in words a player or an operator can act on."""

from __future__ import annotations

from typing import Literal


class LedgerError(RuntimeError):
    """The ledger cannot be used as asked: the message names the ledger, what is wrong and how to fix it."""


class AccessDenied(LedgerError):
    """The table does not let this caller do this: ``why`` is "no_token" (none, unknown or revoked: 401 on the
    API) or "forbidden" (a token of another table, or a role the table does not allow: 403)."""

    def __init__(self, message: str, why: Literal["no_token", "forbidden"]) -> None:
        super().__init__(message)
        self.why = why
