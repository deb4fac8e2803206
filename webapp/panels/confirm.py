"""Confirm or correct the hand: the photo with numbered boxes, one-click fixes, and the hand's fields.

The fields render from the tab's hand state and write back to it; a text that cannot be read stays as the user
typed it, with the reason, and the score disappears until it is fixed (no stale result).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import streamlit as st

from scoring import Ruleset
from scoring.errors import InputError
from scoring.rulesets.base import MELD_TEXT
from scoring.tiles import INDEX, split_notation
from vision.said import in_lang

from .. import hand_or_table, undo
from ..editing import compact
from ..i18n import said_of, tile_label, tile_name
from ..reading import (
    PICKABLE,
    codes_now,
    fix_tile,
    hand_from_reading,
    numbered_photo,
    shown_groups,
    tile_numbers,
    tile_order,
)
from ..session import Tab, label, page_lang
from ..state import FEEDERS, HandState, MeldState
from ..tile_art import PER_ROW, hand_picture, photo_crops, tile_md
from . import Page

FEEDER_LABEL = {"left": "feeder_left", "opposite": "feeder_opposite", "right": "feeder_right"}


def _field(tb: Tab, key: str, text: str) -> None:
    """Show the state's text unless the user's own unreadable text is waiting to be fixed."""
    if key not in tb.field_errors:
        st.session_state[key] = text


def _parsed(tb: Tab, key: str, apply: Callable[[HandState, str], None]) -> None:
    """on_change of a hand field: parse the text into the state, or keep the text and say why not."""
    hand = tb.editor.edit()
    try:
        apply(hand, st.session_state[key] or "")
    except InputError as e:
        tb.field_errors[key] = said_of(e)
        return
    tb.field_errors.pop(key, None)
    # after a photo, a field changed by hand corrects the reading: it is logged with the hand's evidence
    note = {"what": key.removesuffix("_txt"), "from": hand_text(tb.editor.hand, key), "to": hand_text(hand, key),
            "at": time.strftime("%Y-%m-%d %H:%M:%S")} if tb.photo is not None else None
    tb.editor.change(hand, note=note if note and note["from"] != note["to"] else None)


def _said(tb: Tab, key: str, where: Any) -> None:
    """Why the text in field ``key`` cannot be read, right under the field (in the page's language)."""
    if key in tb.field_errors:
        where.error(in_lang(tb.field_errors[key], page_lang()))


def hand_text(hand: HandState, key: str) -> str:
    """The part of the hand a field shows, as text (the corrections log's from and to)."""
    if key.startswith("meld"):
        i, what = int(key[4:].split("_")[0]), key.split("_")[1]
        if i >= len(hand.melds):
            return ""
        m = hand.melds[i]
        return {"type": m.type, "tiles": compact(m.tiles), "from": str(m.feeder)}[what]
    return {"concealed_txt": compact(hand.concealed), "winning_txt": hand.winning or "",
            "flowers_txt": compact(hand.flowers)}.get(key, "")


def _set_concealed(hand: HandState, text: str) -> None:
    hand.concealed = split_notation(text, label("concealed"))


def _set_winning(hand: HandState, text: str) -> None:
    tiles = split_notation(text, label("winning_tile"))
    if len(tiles) > 1:
        raise InputError(f"{label('winning_tile')}: {len(tiles)} tiles, one expected")
    hand.winning = tiles[0] if tiles else None


def _set_flowers(hand: HandState, text: str) -> None:
    hand.flowers = split_notation(text, label("flowers"))


def _meld_setter(i: int, what: str) -> Callable[[HandState, str], None]:
    def apply(hand: HandState, value: str) -> None:
        m = hand.melds[i]
        if what == "tiles":
            m.tiles = split_notation(value, f"{label('meld_tiles')} {i + 1}")
        elif what == "type":
            m.type = value
            m.feeder = None if value == "kong_concealed" else (m.feeder or "left")
        else:
            m.feeder = value
    return apply


def _meld_count(tb: Tab) -> None:
    hand = tb.editor.edit()
    n = int(st.session_state["meld_count"] or 0)
    hand.melds = hand.melds[:n] + [MeldState("pung", [], "left") for _ in range(n - len(hand.melds))]
    tb.editor.change(hand)


GROUP_ICON = {"winning_tile": ":material/star: ", "meld": ":material/link: ", "flowers": ":material/local_florist: "}


def _group_icons(reading: Any) -> dict[int, str]:
    """The icon that marks where the winning tile, each meld and the flowers start in the tap list."""
    return {g.tiles[0]: GROUP_ICON[g.kind] for g in reading.layout.groups if g.tiles and g.kind in GROUP_ICON}


def _other_faces(tb: Tab, rules: Ruleset, picked: int, codes: list[str], number: int) -> None:
    """The tapped tile's likeliest other faces as pictures, then every face by suit: any face is two taps away."""
    assert tb.reading is not None
    lang = page_lang()
    alts = [c for c, _ in tb.reading.det.alternatives(picked, 4) if c != codes[picked]]

    def choose(key: str, i: int = picked) -> None:
        code = st.session_state.get(key)
        if code:
            fix_tile(tb, rules, i, code)
            st.session_state["tap_tile"] = None

    def face(c: str) -> str:
        return tile_label(c, lang) if c == "remove" else tile_md(c, f"{tile_label(c, lang)}: {tile_name(c, lang)}")

    st.pills(label("alternatives").format(i=number), alts + ["remove"], key=f"alt{picked}", format_func=face,
             on_change=choose, args=(f"alt{picked}",))
    kinds = rules.tile_kinds()
    for suit, codes_of in (("m", "m"), ("p", "p"), ("s", "s"), ("z", "")):
        faces = [c for c in PICKABLE + ["back"] if (c == "back" or INDEX[c] in kinds) and c != codes[picked]
                 and (c.endswith(codes_of) if codes_of else c[-1] not in "mps" or c == "back")]
        if faces:
            st.pills(label(f"faces_{suit}"), faces, key=f"any{picked}_{suit}", format_func=face, on_change=choose,
                     args=(f"any{picked}_{suit}",))


def photo_view(tb: Tab, rules: Ruleset) -> None:
    """The photo (folded away on a phone), its warnings, and the ways to change a tile: unsure tiles as one-tap
    choices, any tile then its alternatives, the reader's corrections with undo, and a picker of every face."""
    reading, seen = tb.reading, tb.photo
    if reading is None or seen is None:
        return
    lang = page_lang()

    def tl(c: str) -> str:
        return tile_label(c, lang)

    codes = codes_now(reading, tb.editor.fixes)
    if not codes:
        st.warning(label("no_tiles"))
    for w in reading.warnings:
        st.warning(in_lang(w, lang))
    # the reader's calibrated doubts (vision.calibration: about 1 right tile in 20 flagged, most misreads caught)
    unsure = [i for i in reading.doubts if i not in tb.editor.fixes and i < len(codes)]
    with st.expander(f"{label('photo')} · {len(codes)} {label('tiles')} · "
                     f"{seen.timing_ms.get('page_read_ms', 0):.0f} {label('ms')}"):
        st.image(numbered_photo(seen, reading, set(unsure)))
    if not codes:
        return
    hand_or_table.render(tb, rules, reading, codes, tile_numbers(reading))
    # every tile one tap away, in view, numbered as the crops above are drawn: "?" marks a real doubt; the tapped
    # tile's likeliest other faces follow
    doubt = set(unsure)
    order = [i for i in tile_order(reading) if i < len(codes)]
    number = tile_numbers(reading)
    icon = _group_icons(reading)
    sideways = reading.det.sideways

    def picture(i: int) -> str:  # the tile as the hand shows it, the group it starts marked by an icon
        return icon.get(i, "") + tile_md(codes[i], f"#{number[i]} {tl(codes[i])}: {tile_name(codes[i], lang)}",
                                         bool(sideways[i]), i in doubt)

    # the hand's tiles are what one taps to fix: a tap opens the tile's likeliest other faces and every face
    st.pills(label("tap_tile") + (" · " + label("uncertain").format(n=len(unsure)) if unsure else ""),
             order, key="tap_tile", format_func=picture)
    st.caption(label("tiles_legend"))
    picked = st.session_state.get("tap_tile")
    if picked is not None and picked < len(codes):
        _other_faces(tb, rules, picked, codes, number.get(picked, picked))
    with st.expander(label("change_tiles")):
        for k, c in enumerate(reading.corrections):
            cols = st.columns([4, 1])
            cols[0].write(f"{label('corrections')}: #{number.get(c.tile, c.tile)} {tl(c.from_code)} → "
                          f"{tl(c.to_code)} — {in_lang(c.reason, lang)}")
            cols[1].button(label("undo"), key=f"undo{k}", on_click=fix_tile, args=(tb, rules, c.tile, c.from_code))
        st.caption(label("tile_fix"))
        now = st.session_state.get("pick_tile", 0)
        if not isinstance(now, int) or not 0 <= now < len(codes):  # the browser may hand back the shown text
            st.session_state["pick_tile"] = 0
        p1, p2, p3 = st.columns([2, 2, 1])
        p1.selectbox("#", order, key="pick_tile", format_func=lambda i: f"#{number[i]}: {tl(codes[i])}")
        p2.selectbox(label("meld_tiles"), PICKABLE + ["back", "remove"], key="pick_code", format_func=tl)
        p3.button(label("ok"), key="pick_ok", on_click=lambda: fix_tile(tb, rules, int(st.session_state["pick_tile"]),
                                                              st.session_state["pick_code"]))


def _undo_row(page: Page) -> None:
    """Undo and redo, in one row on a phone too (columns stack there)."""
    tb = page.tab
    row = st.container(horizontal=True)
    for back, key, text, stack in ((True, "undo_hand", "↶ " + label("undo"), tb.editor.undo_stack),
                                   (False, "redo_hand", "↷ " + label("redo"), tb.editor.redo_stack)):
        # a step that wrote to the ledger is taken back there: that needs the right to edit recorded hands
        barred = undo.needs_edit_right(tb, back) and not page.may("edit")
        row.button(text, key=key, on_click=undo.step, args=(tb, page.book, page.actor, back),
                   disabled=not stack or barred, help=label("edit_owner_only") if barred else None)


def _meld_fields(tb: Tab, fields: Any, rules: Ruleset, lang: str) -> None:
    """Each meld's type, tiles and feeder, offering only what the ruleset allows."""
    allowed = [m for m in MELD_TEXT if m != "chow" or rules.allows_chow]
    feeder_names = {f: label(FEEDER_LABEL[f]) for f in FEEDERS}
    for i, m in enumerate(tb.editor.hand.melds):
        m1, m2, m3 = fields.columns([2, 3, 2])
        st.session_state[f"meld{i}_type"] = m.type if m.type in allowed else "pung"
        m1.selectbox(f"{label('meld_type')} {i + 1}", allowed, key=f"meld{i}_type",
                     format_func=lambda t: MELD_TEXT[t].get(lang), on_change=_parsed,
                     args=(tb, f"meld{i}_type", _meld_setter(i, "type")))
        _field(tb, f"meld{i}_tiles", compact(m.tiles))
        m2.text_input(f"{label('meld_tiles')} {i + 1}", key=f"meld{i}_tiles", placeholder="777p", on_change=_parsed,
                      args=(tb, f"meld{i}_tiles", _meld_setter(i, "tiles")))
        _said(tb, f"meld{i}_tiles", m2)
        if m.type != "kong_concealed":
            # only the seats the ruleset lets feed this meld (a chow: the winner's left in nanning-fan); a seat
            # read from the photo that the ruleset forbids stays shown, so that the engine's reason makes sense
            feeders = [f for f in FEEDERS if m.type != "chow" or f in rules.chow_from or f == m.feeder] \
                or list(FEEDERS)
            st.session_state[f"meld{i}_from"] = m.feeder if m.feeder in feeders else feeders[0]
            m3.selectbox(f"{label('meld_from')} {i + 1}", feeders, key=f"meld{i}_from",
                         format_func=feeder_names.__getitem__, on_change=_parsed,
                         args=(tb, f"meld{i}_from", _meld_setter(i, "from")))


def render(page: Page) -> None:
    tb, tbl = page.tab, page.hand
    rules = tbl.rules
    st.subheader(label("confirm"))
    if tb.editing is not None:
        st.info(f"{label('editing')} #{tb.editing}")
    hand = tb.editor.hand
    # rows that wrap: large tiles on a phone. After a photo, its tiles to tap are the hand's picture (below),
    # unless the hand was changed by hand since (then the picture shows the hand as it now is)
    as_read = tb.reading is not None and hand == hand_from_reading(tb.reading, tb.editor.fixes, rules)
    picture = None if as_read else hand_picture(hand, PER_ROW)
    if picture is not None:
        st.image(picture)
        st.caption(label("tiles_legend"))  # the groups in table order, named by icon
    if tb.photo is not None and tb.reading is not None and tb.photo.clean is not None:
        crops = photo_crops(tb.photo.clean, tb.reading.det.xyxy, shown_groups(tb.reading),
                            (tb.photo.width, tb.photo.height), PER_ROW)
        if crops is not None:
            with st.expander(label("your_tiles")):  # folded: the score comes first on a phone
                st.image(crops)
    photo_view(tb, rules)
    page.slots["hand"] = st.empty()  # the engine's reason, when it is about the hand, shows here (result panel)
    _undo_row(page)
    fields_open = tb.photo is None or bool(tb.field_errors)
    fields = st.expander(label("edit_as_text"), expanded=fields_open)
    c1, c2 = fields.columns([3, 1])
    _field(tb, "concealed_txt", compact(hand.concealed))
    c1.text_input(label("concealed"), key="concealed_txt", placeholder="123m 456p 789s 11s 23m",
                  on_change=_parsed, args=(tb, "concealed_txt", _set_concealed))
    _said(tb, "concealed_txt", c1)
    _field(tb, "winning_txt", hand.winning or "")
    c2.text_input(label("winning_tile"), key="winning_txt", placeholder="4m", on_change=_parsed,
                  args=(tb, "winning_txt", _set_winning))
    _said(tb, "winning_txt", c2)
    if rules.allows_flowers:
        _field(tb, "flowers_txt", compact(hand.flowers))
        fields.text_input(label("flowers"), key="flowers_txt", placeholder="f1 f5 C", on_change=_parsed,
                      args=(tb, "flowers_txt", _set_flowers))
        _said(tb, "flowers_txt", fields)
    if hand.set_aside:
        st.caption(f"{label('set_aside')}: {' '.join(hand.set_aside)}")
    st.session_state["meld_count"] = len(hand.melds)
    fields.number_input(label("meld_count"), min_value=0, max_value=4, step=1, key="meld_count", on_change=_meld_count,
                    args=(tb,))
    _meld_fields(tb, fields, rules, tbl.lang)
    if tb.field_errors and not fields_open:  # folded away: say so where it shows
        st.warning(label("bad_hand") + ": " + "; ".join(in_lang(w, tbl.lang) for w in tb.field_errors.values()))
