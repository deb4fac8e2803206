"""The score of the current hand and the buttons that record it. A score exists only for the current, valid hand:
an empty hand, an unreadable field or an invalid case shows why, and no Record button."""

from __future__ import annotations

import copy

import streamlit as st

from ledger import LedgerBase, LedgerError
from ledger.access import Actor
from scoring import score_case
from scoring.api import parse_case
from scoring.errors import InputError
from vision.said import in_lang

from .. import access, situation_form
from ..card import result_card
from ..case import build_case
from ..evidence import of_tab
from ..score_view import show_result
from ..session import Tab, Table, label
from ..state import HandState, LedgerChange, Situation
from ..words import players_words
from . import Page


def current(tb: Tab, tbl: Table, sit: Situation, problem: str | None) -> tuple[dict | None, dict | None]:
    """The case and result of the hand on screen, or (None, None) when there is none to score."""
    if tb.field_errors or problem or tb.editor.hand.empty:
        return None, None
    try:
        case = build_case(tbl.rules, tbl.opts, tb.editor.hand, sit, tbl.dealer)
        parse_case(case)  # the engine's own checks, raised here so that the page has their Chinese too
    except InputError as e:
        return None, {"valid": False, "error": "invalid_input", "message": str(e),
                      **({"message_zh": e.zh} if e.zh else {})}
    return case, score_case(case)


def record(tb: Tab, ledger: LedgerBase, case: dict, result: dict, entry: str, by: Actor | None = None) -> None:
    """Record the shown hand, or save the edit, as ``by``; then start a new entry. ``entry`` is the hand's key as
    the button was drawn, so a second press queued before the page reruns stores nothing new. The write is one
    step of the tab's undo history: undo takes it back in the ledger."""
    if entry != tb.entry:
        return  # a second press of a button drawn for a hand already recorded
    try:
        if tb.editing is not None:
            hid = tb.editing
            rec = ledger.get(hid)
            ledger.update(hid, case, result, by=by, evidence=of_tab(tb))  # says so if another tab deleted it
            assert rec is not None
            done = LedgerChange("edit", hid, case, (rec.cases, rec.results), ([case], [result]))
            tb.flash.append(("success", f"{label('saved')} #{hid}"))
        elif tb.pending_multi:
            cases = [c for c, _ in tb.pending_multi] + [case]
            ctxs = [c["context"] for c in cases]
            if len({c.get("discarder") for c in ctxs}) > 1 or len({c["winner"] for c in ctxs}) < len(ctxs) or \
                    any(c["win_type"] != "discard" for c in ctxs):
                raise ValueError(label("multi_mismatch"))
            hid = ledger.record_event("multi", cases, [r for _, r in tb.pending_multi] + [result], key=entry,
                                      by=by, evidence=of_tab(tb))
            done = LedgerChange("record", hid, case)
            tb.flash.append(("success", f"{label('recorded')} #{hid}"))
        else:
            hid = ledger.record(case, result, key=entry, by=by, evidence=of_tab(tb))
            done = LedgerChange("record", hid, case)
            tb.flash.append(("success", f"{label('recorded')} #{hid}"))
    except LedgerError as e:
        tb.flash.append(("error", access.said(e)))  # the hand stays on screen: nothing entered is lost
        return
    except ValueError as e:
        tb.flash.append(("error", str(e)))
        return
    tb.new_entry(HandState(), ledger=done)  # the hand, its photo and the uploader are cleared
    tb.uploads += 1
    tb.reading, tb.derived_for = None, None
    situation_form.reset({"winner": case["context"]["winner"]})
    for k in ("concealed_txt", "winning_txt", "flowers_txt"):
        st.session_state.pop(k, None)


def add_winner(tb: Tab, case: dict, result: dict) -> None:
    """Several winners on one discard: keep this win and enter the next winner's hand, same discarder."""
    tb.pending_multi.append((case, result))
    entry = tb.entry
    tb.editor.change(HandState())
    tb.entry = entry
    d = case["context"]["discarder"]
    done = {c["context"]["winner"] for c, _ in tb.pending_multi}
    winner = next((d + k) % 4 for k in (1, 2, 3) if (d + k) % 4 not in done)
    situation_form.reset({"winner": winner, "win_type": "discard", "discarder": d})


def cancel_edit(tb: Tab) -> None:
    tb.new_entry(HandState())
    situation_form.reset()


def render(page: Page) -> None:
    """The score of the hand on screen: its total, then Record (so both fit on a phone's first screens), then
    the elements, the payments and the nets."""
    tb, tbl, sit, problem = page.tab, page.hand, page.situation, page.problem
    if sit is None:
        return
    st.subheader(label("result"))
    for kind, msg in tb.flash:
        (st.success if kind == "success" else st.error)(msg)
    tb.flash.clear()
    if problem:
        st.warning(f"{label('bad_hand')}: {in_lang(problem, tbl.lang)}")
    case, result = current(tb, tbl, sit, problem)
    if tb.pending_multi:
        st.info(label("multi_pending").format(n=len(tb.pending_multi),
                                              who=", ".join(tbl.names[c["context"]["winner"]]
                                                            for c, _ in tb.pending_multi)))
    if result is None:
        st.caption(label("nothing_to_score"))
        _buttons(page, None, None)
    else:
        _next_to_the_field(page, result)
        show_result(result, tbl, after_total=lambda: _buttons(page, case, result))


def _next_to_the_field(page: Page, result: dict) -> None:
    """An engine error about the hand or the situation, also said where that is entered (not only down here)."""
    message = str(result.get("message") or "")
    if result.get("valid") or result.get("error") != "invalid_input" or not message:
        return
    slot = page.slots.get(message.split(".", 1)[0]) if message.startswith(("hand.", "context.")) else None
    if slot is not None:
        said = result.get("message_zh") if page.hand.lang == "zh" and result.get("message_zh") else \
            players_words(message, page.hand)
        slot.error(f"{label('bad_hand')}: {said}")


def _buttons(page: Page, case: dict | None, result: dict | None) -> None:
    """Record (or save the edit), another winner on this discard, cancel the edit, the result card."""
    tb, tbl, ledger, sit = page.tab, page.hand, page.book, page.situation
    assert sit is not None
    ok = result is not None and result.get("valid") and case is not None
    writable = page.may("edit" if tb.editing is not None else "record")
    b1, b2, b3 = st.columns(3)
    if ok and not writable and ledger is not None and not ledger.read_only:
        st.caption(label("edit_owner_only") if tb.editing is not None and page.actor else label("record_needs_join"))
    if ok and writable:
        assert case is not None and result is not None and ledger is not None
        if tb.editing is not None:
            b1.button(label("update_record"), key="record", type="primary", on_click=record,
                      args=(tb, ledger, case, result, tb.entry, page.actor))
        else:
            text = label("record_multi").format(n=len(tb.pending_multi) + 1) if tb.pending_multi else label("record")
            b1.button(text, key="record", type="primary", on_click=record,
                      args=(tb, ledger, case, result, tb.entry, page.actor))
            if sit.win_type == "discard" and len(tb.pending_multi) < 2:
                b2.button(label("add_winner"), key="add_winner", on_click=add_winner, args=(tb, case, result))
    if tb.editing is not None:
        b3.button(label("cancel_edit"), key="cancel_edit", on_click=cancel_edit, args=(tb,))
    elif ok:
        assert result is not None
        args = (copy.deepcopy(tb.editor.hand), result, list(tbl.names), tbl.rules.title.get(tbl.lang),
                tbl.rules.unit.get(tbl.lang), tbl.lang)
        # drawn only when pressed (about 30 ms): not on every rerun of the page
        b3.download_button(label("result_card"), lambda: result_card(*args), "mahjong-result.png", "image/png",
                           key="result_card")
