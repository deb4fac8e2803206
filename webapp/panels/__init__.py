"""The page's panels: each is a module with ``render(page: Page) -> None``, reading and writing the typed state
of one page view (``Page``) and asking the ruleset for what it has, never its name. ``app.py`` composes them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from ledger import LedgerBase
from ledger.access import Action, Actor, Policy, allowed

from ..session import Tab, Table
from ..state import Situation


@dataclass
class Page:
    """One run of the page: this tab's work (``tab``), the table as set up (``table``), the table this hand is
    scored with (``hand``: a recorded hand being edited keeps its own ruleset, house rules and dealer), the
    table's ledger (None: none could be opened, ``book_problem`` says why), and the situation as entered (the
    situation panel fills ``situation`` and ``problem``, what is wrong with it, for the panels after it). ``actor``
    is who this tab is at the table (``webapp.access``) and ``policy`` the table's access: every write passes
    ``by=page.actor``, and a panel shows a button only where ``may`` says the ledger would take it."""

    tab: Tab
    table: Table
    hand: Table
    book: LedgerBase | None = None
    book_problem: str | None = None
    situation: Situation | None = None
    problem: str | None = None
    actor: Actor | None = None
    policy: Policy = field(default_factory=Policy)
    slots: dict[str, Any] = field(default_factory=dict)  # "hand", "context": where an engine error about them goes

    def may(self, action: Action) -> bool:
        """Whether this tab may do ``action`` on its table (a read-only ledger file takes no write)."""
        book = self.book
        if book is None or (action != "read" and book.read_only):
            return False
        if self.actor is not None and self.actor.table != book.table:
            return False
        return allowed(action, self.actor, self.policy)


class Panel(Protocol):
    """A panel module."""

    def render(self, page: Page) -> None: ...
