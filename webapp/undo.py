"""Undo and redo of the tab's one history (``state.Editor``): a step that wrote to the ledger is taken back in
the ledger first (a record is deleted, an edit written back), so undoing a record never leaves the hand to be
recorded twice; where the ledger refuses, nothing moves and the page says why."""

from __future__ import annotations

import uuid

from ledger import LedgerBase, LedgerError
from ledger.access import Actor
from scoring import is_draw

from . import access, situation_form
from .case import state_from_case
from .session import Tab, label
from .state import LedgerChange


def _write(book: LedgerBase, change: LedgerChange, by: Actor | None, back: bool) -> str:
    """Take ``change`` back (``back``) or make it again; the line that says what happened."""
    if change.kind == "record":
        (book.delete if back else book.restore)(change.hand_id, by=by)
        return label("undo_record_done" if back else "redo_record_done").format(id=change.hand_id)
    version = change.before if back else change.after
    assert version is not None
    book.update_event(change.hand_id, *version, by=by)
    return label("undo_edit_done" if back else "redo_edit_done").format(id=change.hand_id)


def step(tb: Tab, book: LedgerBase | None, by: Actor | None, back: bool) -> None:
    """Undo (``back``) or redo one step of ``tb``, with its ledger write if it made one."""
    change = _pending(tb, back)
    if change is not None:
        if book is None:
            tb.flash.append(("error", label("ledger_broken")))
            return
        try:
            tb.flash.append(("success", _write(book, change, by, back)))
        except LedgerError as e:
            tb.flash.append(("error", access.said(e)))
            return
    (tb.editor.undo if back else tb.editor.redo)()
    situation_form.reset()
    if change is not None and back and change.shown is not None and not is_draw(change.shown):
        hand, sit, _ = state_from_case(change.shown)
        situation_form.show(sit, hand)  # the hand comes back as it was won, not with a fresh situation
    if change is not None:
        tb.entry = uuid.uuid4().hex  # the hand on screen is a new entry: recording it again is a new record
        tb.pending_multi = []
        tb.field_errors = {}


def _pending(tb: Tab, back: bool) -> LedgerChange | None:
    """The ledger write this undo (``back``) or redo must take back or make again first."""
    return tb.editor.pending_undo() if back else tb.editor.pending_redo()


def needs_edit_right(tb: Tab, back: bool) -> bool:
    """Whether this undo (``back``) or redo writes to the ledger, which needs the right to edit hands."""
    return _pending(tb, back) is not None
