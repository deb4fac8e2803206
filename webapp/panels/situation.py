"""How the hand was won: winner, win type, discarder, and only the situation fields the ruleset asks."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

from scoring import Ruleset
from scoring.errors import InputError
from scoring.rulesets.base import REPLACEMENT_TEXT, WIN_TYPE_TEXT
from scoring.tiles import split_notation
from vision.said import Said

from ..editing import parse_kong_lines, parse_penalty_lines
from ..i18n import said_of
from ..session import label
from ..situation_form import kong_labels
from ..state import Situation
from . import Page


def render(page: Page) -> None:
    """The situation the widgets show, and why it cannot be used yet (None when it can)."""
    tb, tbl = page.tab, page.hand
    ss = st.session_state
    rules, lang, names = tbl.rules, tbl.lang, tbl.names
    opts = rules.parse_options(tbl.opts)
    seat = lambda s: "—" if s is None else f"{s}: {names[s]}"  # noqa: E731
    st.subheader(label("situation"))
    s1 = s2 = s3 = st.container(horizontal=True)  # winner, win type, discarder: no empty column on a phone
    if ss.get("winner") not in range(4):
        ss["winner"] = 0
    s1.selectbox(label("winner"), range(4), key="winner", format_func=seat)
    if ss.get("win_type") not in rules.win_types:
        ss["win_type"] = rules.win_types[0]
    s2.radio(label("win_type"), rules.win_types, key="win_type", horizontal=True,
             format_func=lambda w: WIN_TYPE_TEXT[w].get(lang))
    sit = Situation(winner=int(ss["winner"]), win_type=ss["win_type"])
    if sit.win_type != "self_draw":
        others = [s for s in range(4) if s != sit.winner]
        if ss.get("discarder") not in others:
            ss["discarder"] = (sit.winner + 3) % 4  # the winner's left: the player who discards just before
        s3.selectbox(label("discarder"), others, key="discarder", format_func=seat)
        sit.discarder = int(ss["discarder"])
    page.slots["context"] = st.empty()  # the engine's reason, when it is about the situation (result panel)
    field = rules.situation_field
    x1 = x2 = x3 = st.container(horizontal=True)  # flows into rows on a phone, no empty stacked columns
    labels = kong_labels(tb.editor.hand)
    if sit.win_type == "self_draw" and rules.asks("replacement", opts):
        _replacement(sit, rules, lang, labels, x1)
    for col, flag, when in ((x2, "after_kong", sit.win_type == "discard"),
                            (x2, "last_tile", sit.win_type in ("self_draw", "discard")),
                            (x3, "heavenly", sit.winner == tbl.dealer and sit.win_type == "self_draw"),
                            (x3, "earthly", sit.winner != tbl.dealer and sit.win_type in rules.earthly_win_types)):
        if when and rules.asks(flag, opts):
            setattr(sit, flag, col.checkbox(field(flag).label.get(lang), key=flag, help=field(flag).help.get(lang)))
    problem: Said | None = None
    with st.expander(label("more_situation")):
        other = st.text_area(label("other_kongs"), key="other_kongs") if rules.asks("kong_events", opts) else ""
        pens = st.text_area(f"{field('penalty_events').label.get(lang)}: {label('penalties')}", key="penalties") \
            if rules.asks("penalty_events", opts) else ""
        try:
            sit.other_kongs = parse_kong_lines(other or "")
            sit.penalties = parse_penalty_lines(pens or "")
        except InputError as e:
            problem = said_of(e)
    if rules.asks("previous_winner", opts):
        problem = _previous_winner(sit, rules, lang, seat) or problem
    page.situation, page.problem = sit, problem


def _replacement(sit: Situation, rules: Ruleset, lang: str, labels: list[str], x1: Any) -> None:
    """A self-draw on a replacement tile: which kind (the ruleset's), and for a kong which kong(s) it bloomed on."""
    field = rules.situation_field
    ss = st.session_state
    offered = [r for r in rules.replacements if r != "kong" or labels]
    if len(offered) > 1:
        if ss.get("replacement_pick") not in ["none", *offered]:
            ss["replacement_pick"] = "none"
        rep = x1.radio(field("replacement").label.get(lang), ["none", *offered], key="replacement_pick",
                       horizontal=True, help=field("replacement").help.get(lang),
                       format_func=lambda r: "—" if r == "none" else REPLACEMENT_TEXT[r].get(lang))
        sit.replacement = None if rep == "none" else rep
    elif offered and x1.checkbox(f"{field('replacement').label.get(lang)}: "
                                 f"{REPLACEMENT_TEXT[offered[0]].get(lang)}", key=f"replacement_{offered[0]}",
                                 help=field("replacement").help.get(lang)):
        sit.replacement = offered[0]
    if sit.replacement == "kong":
        if rules.uses("bloom_chain"):
            if not isinstance(ss.get("bloom_sel"), list) or not set(ss["bloom_sel"]) <= set(labels):
                ss["bloom_sel"] = labels[-1:]
            chosen = x1.multiselect(field("bloom_chain").label.get(lang), labels, key="bloom_sel",
                                    help=field("bloom_chain").help.get(lang))
        else:
            if ss.get("bloom_one") not in labels:
                ss["bloom_one"] = labels[-1]
            chosen = [x1.selectbox(field("bloom_kong").label.get(lang), labels, key="bloom_one",
                                   help=field("bloom_kong").help.get(lang))]
        sit.bloom = [labels.index(c) for c in chosen if c in labels]


def _previous_winner(sit: Situation, rules: Ruleset, lang: str, seat: Callable[[int | None], str]) -> Said | None:
    """The previous hand's winner and his fish tiles (釣魚), where the ruleset asks; what is wrong with them."""
    field = rules.situation_field
    ss = st.session_state
    d1, d2 = st.columns(2)
    if "previous_winner" not in ss:
        ss["previous_winner"] = None
    d1.selectbox(field("previous_winner").label.get(lang), [None, 0, 1, 2, 3], key="previous_winner",
                 format_func=seat, help=field("previous_winner").help.get(lang))
    d2.text_input(field("fish_tiles").label.get(lang), key="fish_txt", placeholder="4m 2p",
                  help=field("fish_tiles").help.get(lang))
    if ss["previous_winner"] is not None:
        sit.previous_winner = int(ss["previous_winner"])
        try:
            sit.fish_tiles = split_notation(ss.get("fish_txt") or "", field("fish_tiles").label.get(lang))
        except InputError as e:
            return said_of(e)
    return None
