"""Capture: camera, upload, or a tile palette to enter the hand by hand."""

from __future__ import annotations

import streamlit as st

from scoring import Ruleset
from scoring.tiles import GLYPHS, INDEX

from ..reading import PICKABLE, take_photo
from ..session import Tab, label


def tile_label(c: str) -> str:
    return f"{GLYPHS.get(c, '')} {c}"


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


def backspace(tb: Tab) -> None:
    hand = tb.editor.edit()
    if hand.winning is not None:
        hand.winning = None
    elif hand.concealed:
        hand.concealed.pop()
    tb.editor.change(hand)


def render(tb: Tab, rules: Ruleset) -> None:
    st.subheader(label("capture"))
    tab_cam, tab_up, tab_manual = st.tabs([label("camera"), label("upload"), label("manual")])
    with tab_cam:
        cam = st.camera_input(label("take_photo"), key="camera")
    with tab_up:
        up = st.file_uploader(label("choose_photo"), key="upload")
    photo = up if up is not None else cam
    if photo is not None:
        with st.spinner(label("reading")):
            take_photo(tb, photo.getvalue(), getattr(photo, "name", "camera photo"))
    with tab_manual:
        st.caption(label("manual_help"))
        p1, p2, p3, p4, p5 = st.columns(5)
        p1.selectbox(label("tile_fix"), [c for c in PICKABLE if INDEX[c] in rules.tile_kinds()], key="manual_tile",
                     format_func=tile_label, label_visibility="collapsed")
        p2.button(label("add_tile"), key="add_concealed", on_click=add_manual, args=(tb, "concealed"))
        p3.button(label("winning_tile"), key="add_winning", on_click=add_manual, args=(tb, "winning"))
        if rules.allows_flowers:
            p4.button(label("flowers"), key="add_flower", on_click=add_manual, args=(tb, "flowers"))
        p5.button("⌫", key="backspace", on_click=backspace, args=(tb,), help=label("backspace"))
    if tb.photo_error_msg:
        st.error(f"{label('bad_photo')}: {tb.photo_error_msg}")
