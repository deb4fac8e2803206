"""The table's ledger: totals, next dealer, every hand (edited ones marked, history on demand), edit with cancel,
delete with confirmation and undo, drawn hands with their kongs, exports. Other tabs' records appear within
a few seconds."""

from __future__ import annotations

from typing import Any

import streamlit as st

from ledger import LedgerBase, LedgerError, settle_up
from ledger.access import Actor
from scoring import RULESETS, event_net, is_draw

from .. import access, situation_form
from ..case import state_from_case
from ..editing import amount
from ..evidence import seen_picture
from ..i18n import LABELS
from ..session import Tab, Table, label
from ..tile_art import PER_ROW, hand_picture
from . import Page
from . import drawn as drawn_panel


def load_for_edit(tb: Tab, ledger: LedgerBase, hand_id: int) -> None:
    """Load the complete stored case: tiles, every flag, the ruleset and its options, the dealer."""
    rec = ledger.get(hand_id)
    if rec is None or rec.deleted or rec.kind != "win":
        tb.flash.append(("error", label("cannot_edit").format(id=hand_id)))
        return
    hand, sit, dealer = state_from_case(rec.case)
    tb.new_entry(hand, editing=rec.id)
    st.session_state["table_override"] = {"ruleset": rec.ruleset, "options": rec.case.get("options", {}),
                                          "dealer": dealer}
    situation_form.reset()
    situation_form.show(sit, hand)


def ask_delete(tb: Tab, hand_id: int) -> None:
    tb.confirm_delete = hand_id


def delete(tb: Tab, ledger: LedgerBase, hand_id: int, by: Actor | None = None) -> None:
    try:
        ledger.delete(hand_id, by=by)
        tb.just_deleted = hand_id
    except LedgerError as e:
        tb.flash.append(("error", access.said(e)))
    tb.confirm_delete = None
    if tb.editing == hand_id:
        tb.new_entry()


def restore(tb: Tab, ledger: LedgerBase, hand_id: int, by: Actor | None = None) -> None:
    try:
        ledger.restore(hand_id, by=by)
    except LedgerError as e:
        tb.flash.append(("error", access.said(e)))
    tb.just_deleted = None


@st.fragment(run_every=3)
def watch(ledger: LedgerBase, seen: int) -> None:
    """Poll the ledger's change counter; another tab's record reruns this page."""
    try:
        now = ledger.changes()
    except LedgerError:
        return
    if now != seen:
        st.rerun()


def render(page: Page) -> None:
    tb, tbl, ledger, ledger_problem = page.tab, page.table, page.book, page.book_problem
    st.subheader(label("ledger"))
    if ledger is None:
        st.caption(ledger_problem or "")
        return
    if not page.may("read"):
        st.info(label("reads_closed"))
        return
    try:
        hands = ledger.hands()
        totals = ledger.totals()
        tb.seen_changes = ledger.changes()
    except LedgerError as e:
        st.error(str(e))
        return
    names = tbl.names
    cols = st.columns(5)
    for i in range(4):
        cols[i].metric(f"{label('totals')}: {names[i]}", totals[i])
    cols[4].metric(label("next_dealer"), names[tbl.dealer])
    if hands:
        _chart(hands, totals, tbl)
    writable = page.may("edit")
    if tb.just_deleted is not None and writable:
        u1, u2 = st.columns([3, 1])
        u1.info(label("deleted").format(id=tb.just_deleted))
        u2.button(label("undo_delete"), key="undo_delete", on_click=restore,
                  args=(tb, ledger, tb.just_deleted, page.actor))
    if not hands:
        st.caption(label("no_hands"))
    else:
        _hand_list(tb, tbl, ledger, hands, writable, page.actor)
        if page.actor is not None and page.actor.role == "player" and not writable:
            st.caption(label("edit_owner_only"))
    if page.may("record"):
        drawn_panel.render(page)
    d2, d3 = st.columns(2)
    # exported only when pressed: no extra ledger reads on every rerun
    d2.download_button(label("export_csv"), lambda: ledger.export_csv(list(names)), "mahjong-ledger.csv", "text/csv")
    d3.download_button(label("export_json"), ledger.export_json, "mahjong-ledger.json", "application/json")
    watch(ledger, tb.seen_changes)


def _what_was_seen(tbl: Table, ledger: LedgerBase, rec: Any, history: list[dict[str, Any]]) -> None:
    """A recorded hand's evidence, version by version: the photo as read with its boxes, the corrections made
    on the page, what scored it, and the score as it was (for a dispute the next day)."""
    try:
        kept = ledger.evidence(rec.id)
    except LedgerError as err:
        st.error(access.said(err))
        return
    versions = {h["version"]: h for h in history}
    versions[rec.version] = {"cases": rec.cases, "results": rec.results, "by": rec.by}
    with st.expander(label("what_was_seen").format(id=rec.id)):
        if not kept:
            st.caption(label("no_evidence"))
        for e in kept:
            ev, v = e["evidence"], versions.get(e["version"], {})
            who = access.named(v["by"]) if v.get("by") else ""
            st.markdown(f"**v{e['version']}** · {e['created']}" + (f" · {who}" if who else ""))
            hand_tiles = _hand_tiles(v.get("cases"))
            if hand_tiles is not None:
                st.image(hand_tiles, caption=label("hand_as_tiles"))
            picture = seen_picture(ev)
            if picture is not None:
                st.image(picture, caption=label("seen_photo"))
            else:
                st.caption(label("no_photo_kept"))
            for c in ev.corrections:
                moved = c.get("what") == "group"  # a group between the hand and the table: its places in words
                was, now = (label(f"moved_{c.get(k)}") if moved else c.get(k) for k in ("from", "to"))
                st.write(f"{_corrected(c)}: {was or '—'} → {now or '—'} ({c.get('at', '')})")
            if not ev.corrections:
                st.caption(label("no_corrections"))
            rules = RULESETS.get(str(ev.scored_by.get("ruleset")))
            st.caption(f"{label('scored_with')}: {rules.title.get(tbl.lang) if rules else ev.scored_by.get('ruleset')}"
                       f" · {label('engine')} {ev.scored_by.get('engine', '?')}")
            if v.get("cases"):
                net = _net(v["cases"], v["results"])
                st.write(", ".join(f"{tbl.names[i]} {n:+d}" for i, n in enumerate(net)))


def _hand_tiles(cases: list[dict] | None) -> Any:
    """A recorded version's winning hand as tile pictures (the last winner's, for several on one discard)."""
    if not cases or is_draw(cases[-1]):
        return None
    try:
        hand, _, _ = state_from_case(cases[-1])
    except (KeyError, TypeError, ValueError):
        return None
    return hand_picture(hand, PER_ROW)


def _corrected(c: dict[str, Any]) -> str:
    """What a correction changed, in the page's words: a tile by its number, or the field."""
    what = str(c.get("what", ""))
    if what == "tile":
        return f"#{c.get('tile', '?')}"
    if what == "group":  # a group moved between the hand and the table, by its tiles' numbers
        return " ".join(f"#{n}" for n in c.get("tiles") or []) or what
    if what.startswith("meld") and "_" in what:
        n, part = what[4:].split("_", 1)
        key = {"type": "meld_type", "tiles": "meld_tiles", "from": "meld_from"}.get(part)
        return f"{label(key)} {int(n) + 1}" if key and n.isdigit() else what
    return label("field_" + what) if "field_" + what in LABELS else what


def _net(cases: list[dict], results: list[dict]) -> list[int]:
    """An earlier version's net, summed as the ledger sums it."""
    try:
        return event_net(cases, results)
    except (ValueError, KeyError, TypeError):  # a version recorded by an older engine: its results' nets
        return [sum(r.get("net", [0] * 4)[i] for r in results) for i in range(4)]


def _chart(hands: list[Any], totals: list[int], tbl: Table) -> None:
    """The running totals as a chart, and the transfers that square them."""
    names = tbl.names
    running, series = [0, 0, 0, 0], []
    for r in hands:
        running = [a + b for a, b in zip(running, r.net)]
        series.append({names[i]: running[i] for i in range(4)})
    with st.expander(label("chart_and_settle")):
        st.line_chart(series)
        moves = settle_up(totals)
        st.caption(label("settle_up"))
        for m in moves:
            st.write(f"{names[m['from']]} → {names[m['to']]}: {amount(m['amount'], tbl.rules.unit.get(tbl.lang))}")
        if not moves:
            st.write(label("all_square"))


def _hand_list(tb: Tab, tbl: Table, ledger: LedgerBase, hands: list[Any], writable: bool,
               by: Actor | None) -> None:
    """The recorded hands as a table; one picked to edit, delete (asked twice) or see its earlier versions."""
    names = tbl.names
    rows = [{"#": r.id, label("time"): r.created,
             label("ruleset"): RULESETS[r.ruleset].title.get(tbl.lang) if r.ruleset in RULESETS else r.ruleset,
             label("winner"): " ".join(names[w] for w in r.winners) or label("drawn"),
             label("edited"): "✎" if r.version > 1 else "", **{names[i]: r.net[i] for i in range(4)},
             label("who"): access.named(r.by)}
            for r in hands]
    st.dataframe(rows, hide_index=True)
    ids = [r.id for r in hands]
    if st.session_state.get("ledger_pick") not in ids:
        st.session_state["ledger_pick"] = ids[-1]
    e1, e2, e3 = st.columns(3)
    pick = e1.selectbox("#", ids, key="ledger_pick")
    if writable:
        e2.button(label("edit"), key="ledger_edit", on_click=load_for_edit, args=(tb, ledger, pick))
        e3.button(label("delete"), key="ledger_delete", on_click=ask_delete, args=(tb, pick))
    if tb.confirm_delete is not None and writable:
        c1, c2 = st.columns(2)
        c1.button(label("confirm_delete").format(id=tb.confirm_delete), key="ledger_delete_yes", type="primary",
                  on_click=delete, args=(tb, ledger, tb.confirm_delete, by))
        c2.button(label("cancel"), key="ledger_delete_no", on_click=lambda: setattr(tb, "confirm_delete", None))
    history = ledger.history(pick)
    _what_was_seen(tbl, ledger, next(r for r in hands if r.id == pick), history)
    if history:
        with st.expander(label("history").format(id=pick, n=len(history))):
            for h in history:
                wrote = f", {access.named(h['by'])}" if h.get("by") else ""
                st.write(f"v{h['version']} ({h['replaced']}{wrote}): " + ", ".join(
                    f"{names[i]} {n:+d}" for i, n in enumerate(_net(h["cases"], h["results"]))))
