"""What wins? For beginners: the tiles that complete the hand on screen, each with its value, sorted by value; or
how far the hand is from ready and which draws and discards bring it closer."""

from __future__ import annotations

import copy

import streamlit as st

from scoring.waits import waits

from ..case import build_case
from ..editing import amount
from ..i18n import tile_label
from ..score_view import show_result
from ..session import label
from ..tile_art import row_of, tile
from . import Page


def render(page: Page) -> None:
    """The wait table of the hand on screen (its winning tile, if any, counts as one of its tiles)."""
    tb, tbl, sit = page.tab, page.hand, page.situation
    if sit is None:
        return
    st.subheader(label("what_wins"))
    hand = copy.deepcopy(tb.editor.hand)
    if hand.winning is not None:
        hand.concealed.append(hand.winning)
        hand.winning = None
    if not hand.concealed:
        st.caption(label("what_wins_help"))
        return
    case = build_case(tbl.rules, tbl.opts, hand, sit, tbl.dealer)
    table = waits(case)
    unit = tbl.rules.unit.get(tbl.lang)
    if not table.get("valid"):
        detail = table.get("message", "") if tbl.lang == "en" else label("input_unreadable")
        st.warning(f"{label('bad_hand')}: {detail}")
        return
    if "discards" in table:
        st.write(label("best_discards") + ": " + " ".join(tile_label(c) for c in table["best_discards"]))
        st.table([{label("discard"): tile_label(o["discard"]), label("tiles_from_ready"): o["tiles_from_ready"],
                   label("waits"): " ".join(o["waits"]), label("live"): o["live"]} for o in table["discards"]])
        return
    if not table["ready"]:
        st.info(label("not_ready").format(n=table["tiles_from_ready"]))
        draws = table.get("improving_draws", [])
        if draws:
            st.table([{label("draw"): tile_label(d["draw"]), label("live"): d["live"],
                       label("discard"): tile_label(d["then_discard"]),
                       label("tiles_from_ready"): d["tiles_from_ready"]} for d in draws[:12]])
        return
    st.success(label("ready").format(n=len(table["waits"])))
    st.image(row_of([tile(w["tile"]) for w in table["waits"]], [False] * len(table["waits"])),
             caption=" · ".join(tile_label(w["tile"]) for w in table["waits"]))  # the winning tiles as tiles
    for w in table["waits"]:
        by = w["best"]["by"]
        who = label("self_draw_word") if by == "self_draw" else tbl.names[int(by.split("_")[1])]
        with st.expander(f"{tile_label(w['tile'])} · {amount(w['best']['amount'], unit)} ({who}) · "
                         f"{label('live')} {w['live']}", expanded=False):
            show_result(w["results"][by], tbl)
    for n in table["completes_but_does_not_score"]:
        st.warning(f"{tile_label(n['tile'])}: {label('no_score')} — "
                   f"{tbl.rules.error_text(n['error']).get(tbl.lang)}")
