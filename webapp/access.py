"""Who this browser tab is at its table: nobody needs a token on an unshared table (the page acts as "this
device"); on a shared one, the tab holds the token it got by sharing the table or joining it with its code
(kept in this tab's session only, never in the URL or the ledger), and the ledger checks it on every write."""

from __future__ import annotations

import re

import streamlit as st

from ledger import AccessDenied, LedgerBase, LedgerError
from ledger.access import LOCAL, Actor, Policy

from .session import label, page_lang

TOKENS = "table_tokens"  # session key: table name -> bearer token of this tab


def tokens() -> dict[str, str]:
    """This tab's tokens, per table."""
    if TOKENS not in st.session_state:
        st.session_state[TOKENS] = {}
    return st.session_state[TOKENS]


def keep(table: str, token: str) -> None:
    """Hold ``token`` for ``table`` in this tab (after sharing, joining or pasting it)."""
    tokens()[table] = token


def forget(table: str) -> None:
    tokens().pop(table, None)


def who(book: LedgerBase | None) -> tuple[Actor | None, Policy]:
    """The tab's actor and the table's policy: the local actor on an unshared table; on a shared one the actor of
    the tab's token, or None (no token, or one revoked since: it is dropped)."""
    if book is None:
        return None, Policy()
    try:
        policy = book.policy()
    except LedgerError:
        return None, Policy()
    if not policy.shared:
        return Actor("local", book.table, LOCAL), policy
    token = tokens().get(book.table)
    actor = book.actor(token) if token else None
    if actor is None or actor.table != book.table:
        forget(book.table)
        return None, policy
    return actor, policy


def said(e: LedgerError) -> str:
    """A ledger's refusal in the page's language (its own English words, or the page's Chinese line)."""
    if isinstance(e, AccessDenied) and page_lang() == "zh":
        return label("not_allowed")
    return str(e)


def named(by: str) -> str:
    """How the ledger names a writer ("this device", "owner", "player #7: Ann"), in the page's language."""
    if by == LOCAL:
        return label("by_this_device")
    if by == "owner":
        return label("by_owner")
    m = re.fullmatch(r"player #(\d+): (.*)", by)
    return label("by_player").format(n=m[1], name=m[2]) if m else by
