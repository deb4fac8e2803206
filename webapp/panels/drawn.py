"""A drawn hand (荒莊): the kongs every player declared, drawn as tiles, and the penalties; the engine settles their
money (RULES.md D-C13) and the page records the draw with those payments. The dealer stays, as the engine says."""

from __future__ import annotations

from typing import Any

import numpy as np
import streamlit as st

from ledger import LedgerBase, LedgerError
from ledger.access import Actor
from scoring import parse_draw
from scoring.errors import InputError
from scoring.rulesets.base import relative_seat
from scoring.tiles import CODES
from vision.said import in_lang

from .. import access, situation_form
from ..editing import parse_penalty_lines, pay_lines
from ..i18n import said_of
from ..session import Tab, Table, label
from ..state import LedgerChange
from ..tile_art import SIDEWAYS_AT, kong_tiles, row_of
from . import Page

KINDS = ("concealed", "exposed", "added", "flower")
MAX_KONGS = 16  # four players, four kongs each


def kinds_of(tbl: Table) -> tuple[str, ...]:
    """The kong kinds this ruleset has (a flower kong only where it has them)."""
    return KINDS if tbl.rules.flower_kong_kinds else KINDS[:3]


def tile_choices(tbl: Table, kind: str) -> list[str]:
    """The faces a kong of this kind can show: the playing tiles, or the flowers that make a flower kong."""
    if kind == "flower":
        return [CODES[k] for kinds in tbl.rules.flower_kong_kinds for k in sorted(kinds)]
    return [CODES[k] for k in tbl.rules.playing_kinds]


def draw_case(tbl: Table, events: list[dict[str, Any]], penalties: list[dict[str, Any]]) -> dict[str, Any]:
    """The drawn-hand case the engine scores: the dealer, every kong and (where the ruleset has them) penalties."""
    ctx: dict[str, Any] = {"dealer": tbl.dealer, "kong_events": events}
    if tbl.rules.uses("penalty_events"):
        ctx["penalty_events"] = penalties
    return {"ruleset": tbl.ruleset, "kind": "draw", "options": tbl.opts, "context": ctx}


def kong_widgets(i: int, tbl: Table) -> dict[str, Any]:
    """One kong's seat, kind, feeder and face; the event as kong_events holds it (its face kept beside it)."""
    ss = st.session_state
    names = tbl.names
    row = st.container(horizontal=True)
    if ss.get(f"draw{i}_seat") not in range(4):
        ss[f"draw{i}_seat"] = 0
    seat = int(row.selectbox(label("draw_kong_by"), range(4), key=f"draw{i}_seat",
                             format_func=lambda s: f"{s}: {names[s]}"))
    kinds = kinds_of(tbl)
    if ss.get(f"draw{i}_kind") not in kinds:
        ss[f"draw{i}_kind"] = kinds[0]
    kind = row.selectbox(label("draw_kong_kind"), kinds, key=f"draw{i}_kind",
                         format_func=lambda k: label(f"kong_{k}"))
    event: dict[str, Any] = {"seat": seat, "kind": kind}
    if kind in ("exposed", "added"):
        others = [s for s in range(4) if s != seat]
        if ss.get(f"draw{i}_from") not in others:
            ss[f"draw{i}_from"] = others[0]
        event["from"] = int(row.selectbox(label("draw_kong_from"), others, key=f"draw{i}_from",
                                          format_func=lambda s: f"{s}: {names[s]}"))
    faces = tile_choices(tbl, kind)
    if ss.get(f"draw{i}_tile") not in faces:
        ss[f"draw{i}_tile"] = faces[i % len(faces)]  # each new kong starts on another face
    event["tile"] = row.selectbox(label("draw_kong_tile"), faces, key=f"draw{i}_tile")
    return event


def kongs_picture(events: list[dict[str, Any]]) -> np.ndarray | None:
    """Every kong as four tiles in the pictures of the hand: a concealed kong face down at the ends, the fed
    tile sideways on the feeder's side as the kong's maker sees it."""
    tiles: list[np.ndarray] = []
    gaps: list[bool] = []
    for e in events:
        sideways = SIDEWAYS_AT[relative_seat(e["seat"], e["from"])] if e.get("from") is not None else None
        for k, t in enumerate(kong_tiles(e["tile"], e["kind"] == "concealed", sideways)):
            tiles.append(t)
            gaps.append(k == 0 and bool(tiles[:-1]))
    return row_of(tiles, gaps) if tiles else None


def record(tb: Tab, ledger: LedgerBase, case: dict[str, Any], by: Actor | None = None) -> None:
    """Record the draw with its kong money, as ``by``; the dealer stays (the engine's next_dealer)."""
    try:
        hid = ledger.record_draw(case, key=f"draw-{tb.entry}", by=by)
        done = LedgerChange("record", hid)
        tb.flash.append(("success", f"{label('draw_recorded')} #{hid}"))
    except LedgerError as e:
        tb.flash.append(("error", access.said(e)))
        return
    except ValueError as e:
        tb.flash.append(("error", str(e)))
        return
    for k in [k for k in st.session_state if str(k).startswith("draw")]:
        del st.session_state[k]
    tb.new_entry(ledger=done)
    situation_form.reset()


def render(page: Page) -> None:
    """The drawn-hand form: its kongs and penalties, their payments as the engine settles them, and Record
    (the ledger panel shows it only on a ledger it may write)."""
    tb, tbl, ledger = page.tab, page.table, page.book
    if ledger is None:
        return
    lang, names = tbl.lang, tbl.names
    with st.expander(label("record_draw")):
        st.caption(label("draw_explained"))
        n = int(st.number_input(label("draw_kongs"), 0, MAX_KONGS, key="draw_n", step=1))
        events = [kong_widgets(i, tbl) for i in range(n)]
        picture = kongs_picture(events)
        if picture is not None:
            st.image(picture, caption=label("draw_kongs_as_tiles"))
        problem = None
        penalties: list[dict[str, Any]] = []
        if tbl.rules.uses("penalty_events"):
            text = st.text_area(label("penalties"), key="draw_penalties")
            try:
                penalties = parse_penalty_lines(text or "")
            except InputError as e:
                problem = in_lang(said_of(e), lang)
        case = draw_case(tbl, events, penalties)
        if problem is None:
            try:
                rules, opts, draw = parse_draw(case)
                result = rules.score_draw(draw, opts).to_json()
            except InputError as e:
                problem = in_lang(said_of(e), lang)
        if problem is not None:
            st.error(f"{label('draw_invalid')}: {problem}")
            return
        unit = tbl.rules.unit.get(lang)
        shown = False
        for key in ("kong_payments", "penalty_payments"):
            if result.get(key):
                shown = True
                st.markdown(f"**{label(key)}**")
                for line in pay_lines(result[key], names, unit):
                    st.write(line)
        if not shown:
            st.write(label("draw_no_payments"))
        st.caption(f"{label('next_dealer')}: {names[result['next_dealer']]}")
        st.button(label("record_draw_now"), key="record_draw", type="primary", on_click=record,
                  args=(tb, ledger, case, page.actor))
