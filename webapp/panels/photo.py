"""Capture: camera, upload, or a tile palette to enter the hand by hand."""

from __future__ import annotations

import streamlit as st

from scoring import Ruleset
from scoring.rulesets.base import MELD_TEXT
from scoring.tiles import INDEX
from vision.said import in_lang

from ..i18n import tile_label, tile_name
from ..reading import PICKABLE, take_photo
from ..session import Tab, label, page_lang
from ..state import MeldState
from ..tile_art import tile_md
from . import Page


def add_manual(tb: Tab, where: str) -> None:
    """The palette: append the picked tile to the hand, make it the winning tile, or a flower."""
    code = st.session_state["manual_tile"]
    hand = tb.editor.edit()
    if where == "winning":
        hand.winning = code
    elif where == "flowers":
        hand.flowers.append(code)
    else:
        hand.concealed.append(code)
    tb.field_errors.clear()
    tb.editor.change(hand)


def tap_tile(tb: Tab, where_key: str) -> None:
    """The one-tap palette: the tapped tile goes where the 'to' switch says (hand, winning tile, flowers, or the
    meld being built); the palette is cleared for the next tap."""
    code = st.session_state.get("palette")
    if not code:
        return
    st.session_state["palette"] = None
    hand = tb.editor.edit()
    where = st.session_state.get(where_key, "concealed")
    if where == "winning":
        hand.winning = code
    elif where == "flowers":
        hand.flowers.append(code)
    elif where == "meld" and hand.melds:
        m = hand.melds[-1]
        full = 3 if m.type in ("pung", "chow") else 4
        m.tiles = (m.tiles + [code])[:full] if m.type == "chow" else [code] * full
    else:
        hand.concealed.append(code)
    tb.field_errors.clear()
    tb.editor.change(hand)


def start_meld(tb: Tab) -> None:
    """Add a meld of the chosen type; the next tap on the palette gives its tile(s)."""
    hand = tb.editor.edit()
    mtype = st.session_state.get("new_meld_type", "pung")
    hand.melds.append(MeldState(mtype, [], None if mtype == "kong_concealed" else "left"))
    tb.editor.change(hand)
    st.session_state["palette_to"] = "meld"


def backspace(tb: Tab) -> None:
    hand = tb.editor.edit()
    if hand.winning is not None:
        hand.winning = None
    elif hand.concealed:
        hand.concealed.pop()
    tb.editor.change(hand)


def render(page: Page) -> None:
    tb, rules = page.tab, page.hand.rules
    lang = page_lang()
    if tb.photo is None:
        st.subheader(label("capture"))
        box = st.container()
    else:  # a photo is read: the capture folds away, so the hand and its score come first on a phone
        box = st.expander(label("capture_again").format(name=tb.photo.name[:40]), expanded=False)
    with box:
        _capture(tb, rules, lang)


def _capture(tb: Tab, rules: Ruleset, lang: str) -> None:
    """The camera, the upload and the tile palette."""
    to_names = {w: label(f"to_{w}") for w in ("concealed", "winning", "flowers", "meld")}
    # the upload first: on a phone its picker offers the camera too, and the live camera box fills a screen
    tab_up, tab_cam, tab_manual = st.tabs([label("upload"), label("camera"), label("manual")])
    # a file uploader cannot be emptied: each record gives a new one ("upload", then "upload1", ...)
    gen = str(tb.uploads or "")
    with tab_cam:
        cam = st.camera_input(label("take_photo"), key="camera" + gen, help=label("lay_out"))
    with tab_up:
        up = st.file_uploader(label("choose_photo"), key="upload" + gen, help=label("lay_out"))
    photo = up if up is not None else cam
    if photo is not None:
        before = tb.photo
        with st.spinner(label("reading")):
            take_photo(tb, photo.getvalue(), getattr(photo, "name", "camera photo"))
        if tb.photo is not None and tb.photo is not before:
            st.rerun()  # drawn again with the capture folded away and the hand first
    with tab_manual:
        st.caption(label("manual_help"))
        targets = ["concealed", "winning"] + (["flowers"] if rules.allows_flowers else []) + \
            (["meld"] if tb.editor.hand.melds else [])
        if st.session_state.get("palette_to") not in targets:
            st.session_state["palette_to"] = "concealed"
        st.radio(label("palette_to"), targets, key="palette_to", horizontal=True,
                 format_func=to_names.__getitem__)
        st.pills(label("palette"), [c for c in PICKABLE if INDEX[c] in rules.tile_kinds()], key="palette",
                 format_func=lambda c: tile_md(c, f"{c}: {tile_name(c, lang)}"), on_change=tap_tile,
                 args=(tb, "palette_to"), label_visibility="collapsed")  # the faces as tile pictures
        n1, n2 = st.columns(2)
        n1.selectbox(label("meld_type"), [m for m in MELD_TEXT if m != "chow" or rules.allows_chow],
                     key="new_meld_type", format_func=lambda m: MELD_TEXT[m].get(lang))
        n2.button(label("add_meld"), key="add_meld", on_click=start_meld, args=(tb,))
        p1, p2, p3, p4, p5 = st.columns(5)
        p1.selectbox(label("tile_fix"), [c for c in PICKABLE if INDEX[c] in rules.tile_kinds()], key="manual_tile",
                     format_func=lambda c: tile_label(c, lang), label_visibility="collapsed")
        p2.button(label("add_tile"), key="add_concealed", on_click=add_manual, args=(tb, "concealed"))
        p3.button(label("winning_tile"), key="add_winning", on_click=add_manual, args=(tb, "winning"))
        if rules.allows_flowers:
            p4.button(label("flowers"), key="add_flower", on_click=add_manual, args=(tb, "flowers"))
        p5.button("⌫", key="backspace", on_click=backspace, args=(tb,), help=label("backspace"))
    if tb.photo_error_msg:
        st.error(f"{label('bad_photo')}: {in_lang(tb.photo_error_msg, page_lang())}")
