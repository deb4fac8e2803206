"""Which of the photo's tiles are the hand: one tap moves a group of tiles on the table into the hand, or a group of
the hand out onto the table (another player's meld the reader took in, or one of the player's own it left out)."""

from __future__ import annotations

import streamlit as st

from scoring import Ruleset
from vision.layout import table_groups
from vision.pipeline import Reading

from .i18n import tile_label
from .reading import move_group, shown_groups
from .session import Tab, label, page_lang


def group_text(tiles: list[int], codes: list[str], number: dict[int, int], lang: str) -> str:
    """A group as its buttons name it: its tiles' numbers on the photo, then their faces."""
    nums = sorted(number.get(i, i + 1) for i in tiles)
    run = len(nums) > 2 and nums[-1] - nums[0] == len(nums) - 1  # numbered in a row: as a range
    where = f"#{nums[0]}–{nums[-1]}" if run else " ".join(f"#{n}" for n in nums)
    return f"{where} · {' '.join(tile_label(codes[i], lang) for i in tiles)}"


def render(tb: Tab, rules: Ruleset, reading: Reading, codes: list[str], number: dict[int, int]) -> None:
    """The groups on the table, each with its tap into the hand, and the hand's groups, each with its tap out;
    open when tiles lie on the table (the photo shows them dimmed)."""
    lang = page_lang()
    out = table_groups(reading.det, reading.layout.apart)
    mine = [g for g in shown_groups(reading) if g]
    if not out and not mine:
        return
    n_out = sum(len(g) for g in out)
    title = label("hand_or_table") + (" · " + label("on_table_n").format(n=n_out) if n_out else "")
    with st.expander(title, expanded=bool(out)):
        st.caption(label("hand_or_table_help"))
        if out:
            st.caption(label("on_table_groups"))
        row = st.container(horizontal=True)
        for g in out:
            row.button(group_text(g, codes, number, lang), key=f"into{g[0]}", on_click=move_group,
                       args=(tb, rules, g, True), help=label("into_hand"), icon=":material/add_circle:")
        st.caption(label("hand_groups"))
        row = st.container(horizontal=True)
        for g in mine:
            row.button(group_text(g, codes, number, lang), key=f"out{g[0]}", on_click=move_group,
                       args=(tb, rules, g, False), help=label("out_of_hand"), icon=":material/remove_circle:")
