"""Streamlit page: photograph a winning hand, confirm the tiles, set the situation, see who pays whom, keep the ledger.

Run: streamlit run app.py   (phone on the same network: see README, camera access needs HTTPS or localhost)
"""

from __future__ import annotations

import hashlib
import json
import time
from typing import Any

import streamlit as st

from ledger import Ledger, LedgerError, default_path
from scoring import DEFAULT, RULESETS, score_case
from scoring.errors import InputError
from scoring.rulesets.base import MELD_TEXT, REPLACEMENT_TEXT, WIN_TYPE_TEXT
from scoring.tiles import CODES, GLYPHS, INDEX
from vision.photo import PhotoError, decode_for_reading
from vision.pipeline import read_image
from vision.reader import ModelMissing, TileReader
from webapp.draw import annotate
from webapp.editing import (
    MELD_TYPES,
    compact,
    fields_from_hand,
    hand_from_fields,
    parse_kong_lines,
    parse_penalty_lines,
    pay_lines,
    winner_kong_events,
)
from webapp.i18n import t

st.set_page_config(page_title="Mahjong scorer", page_icon="🀄", layout="wide")
ss = st.session_state
PICKER = [c for c in CODES if c != "G"]


@st.cache_resource
def get_reader() -> TileReader | None:
    """One tile reader (ONNX sessions) per server process."""
    try:
        return TileReader(threads=2)
    except ModelMissing:
        return None


def get_ledger(path: str) -> Ledger | None:
    """The table's ledger, or None with a banner that names the file, the problem and the fix."""
    try:
        return Ledger(path)
    except LedgerError as e:
        st.error(f"⚠️ {t('ledger_broken', ss.get('lang', 'en'))}: {e}")
        return None


ledger = get_ledger(str(default_path()))
if ledger is not None and ledger.read_only:
    st.warning(f"{t('ledger_read_only', ss.get('lang', 'en'))}: {ledger.path}")


def saved_settings() -> dict[str, Any]:
    try:
        return ledger.settings() if ledger is not None else {}
    except LedgerError:
        return {}


# ------------------------------------------------------------------ remembered table set-up
if "initialised" not in ss:
    saved = saved_settings()
    ss.lang = saved.get("lang", "en")
    ss.ruleset = saved.get("ruleset") if saved.get("ruleset") in RULESETS else DEFAULT
    for i in range(4):
        ss[f"name{i}"] = saved.get("names", ["East", "South", "West", "North"])[i]
    ss.dealer = saved.get("dealer", 0)
    for rs, opts in saved.get("options", {}).items():
        for k, v in opts.items():
            ss[f"opt_{rs}_{k}"] = v if not isinstance(v, (dict, list)) and v is not None else json.dumps(v)
    ss.codes = []
    ss.initialised = True

lang = ss.lang


def L(key: str) -> str:  # noqa: N802 - short label helper
    return t(key, ss.get("lang", "en"))


def names() -> list[str]:
    return [ss.get(f"name{i}") or f"seat {i}" for i in range(4)]


def seat_labeller() -> Any:
    """A format_func for seats that does not read session state (AppTest calls it outside the script)."""
    labels = names()
    return lambda s: "—" if s is None else f"{s}: {labels[s]}"


def tile_label(c: str) -> str:
    return f"{GLYPHS.get(c, '')} {c}"


# ------------------------------------------------------------------ sidebar: set-up
with st.sidebar:
    st.radio(L("language"), ["en", "zh"], key="lang", format_func=lambda x: "English" if x == "en" else "中文",
             horizontal=True)
    st.header(L("setup"))
    lang_now = ss.lang
    st.selectbox(L("ruleset"), list(RULESETS), key="ruleset", format_func=lambda r: RULESETS[r].title.get(lang_now))
    rules = RULESETS[ss.ruleset]
    options: dict[str, Any] = {}
    option_error = None
    with st.expander(L("options")):
        for name, opt in rules.options.items():
            key = f"opt_{ss.ruleset}_{name}"
            choices = getattr(opt.check, "choices", None)
            bounds = getattr(opt.check, "bounds", (None, None))
            helptext = opt.text().get(ss.lang)
            if isinstance(opt.default, bool):
                val: Any = st.checkbox(name, value=opt.default, key=key, help=helptext)
            elif choices:
                val = st.selectbox(name, list(choices), key=key, help=helptext)
            elif isinstance(opt.default, int):
                val = st.number_input(name, value=opt.default, min_value=bounds[0], max_value=bounds[1], step=1,
                                      key=key, help=helptext)
            else:
                raw = st.text_input(name, value=json.dumps(opt.default), key=key, help=helptext + " (JSON)")
                try:
                    val = json.loads(raw) if raw.strip() else None
                except json.JSONDecodeError as e:
                    option_error = f"{name}: not valid JSON ({e.msg})"
                    val = opt.default
            if val != opt.default:
                options[name] = int(val) if isinstance(opt.default, int) and not isinstance(val, bool) else val
    st.caption(L("players"))
    for i in range(4):
        st.text_input(f"seat {i}", key=f"name{i}")
    st.selectbox(L("dealer"), range(4), key="dealer", format_func=seat_labeller())
    st.caption(f"{L('ledger_file')}: `{ledger.path if ledger else '—'}`")
    remembered = {"lang": ss.lang, "ruleset": ss.ruleset, "names": names(), "dealer": ss.dealer,
                  "options": {**saved_settings().get("options", {}), ss.ruleset: options}}
    if remembered != ss.get("_remembered") and ledger is not None and not ledger.read_only:
        ledger.save_settings(remembered)
        ss._remembered = remembered

st.title("🀄 " + L("title"))
if option_error:
    st.error(option_error)

# ------------------------------------------------------------------ 1. capture
st.header(L("capture"))
tab_cam, tab_up, tab_manual = st.tabs([L("camera"), L("upload"), L("manual")])
with tab_cam:
    cam = st.camera_input(L("take_photo"), key="camera", resolution="1080p")  # the highest preset
with tab_up:
    up = st.file_uploader(L("choose_photo"), key="upload")


def add_manual(where: str) -> None:
    """The tile picker of the manual path: append the picked tile to the hand, or make it the winning tile."""
    code = ss.manual_tile
    if where == "winning":
        ss.winning_txt = code
    else:
        key = "flowers_txt" if where == "flowers" else "concealed_txt"
        ss[key] = ((ss.get(key) or "") + " " + code).strip()


with tab_manual:
    st.caption(L("manual_help"))
    p1, p2, p3, p4 = st.columns(4)
    p1.selectbox(L("tile_fix"), PICKER, key="manual_tile", format_func=tile_label, label_visibility="collapsed")
    p2.button(L("add_tile"), key="add_concealed", on_click=add_manual, args=("concealed",))
    p3.button(L("winning_tile"), key="add_winning", on_click=add_manual, args=("winning",))
    if rules.allows_flowers:
        p4.button(L("flowers"), key="add_flower", on_click=add_manual, args=("flowers",))


def set_fields(hand: dict[str, Any]) -> None:
    for k, v in fields_from_hand(hand).items():
        ss[k] = v


def load_photo_bytes(data: bytes, name: str) -> None:
    """Read a new photo once; edits afterwards never re-run detection."""
    digest = hashlib.sha1(data).hexdigest()
    if ss.get("photo_hash") == digest:
        return
    ss.photo_hash = digest
    ss.photo_error = None
    ss.reading = None
    t0 = time.perf_counter()
    try:
        img, scale, photo_warnings = decode_for_reading(data, name)
    except PhotoError as e:
        ss.photo_error = str(e)
        return
    reader = get_reader()
    if reader is None:
        ss.photo_error = L("model_missing")
        return
    reading = read_image(img, reader, ss.ruleset, True, int(ss.get("winner", 0) or 0), name, scale=scale,
                         photo_warnings=photo_warnings)
    ss.reading = reading.to_json()
    ss.reading["timing_ms"]["page_read_ms"] = round(1000 * (time.perf_counter() - t0), 1)
    ss.annotated = annotate(img, ss.reading["tiles"], box_scale=scale)
    ss.codes = list(reading.codes)
    if reading.hand is not None:
        set_fields(reading.hand)


photo = up if up is not None else cam
if photo is not None:
    load_photo_bytes(photo.getvalue(), getattr(photo, "name", "camera photo"))
if ss.get("photo_error"):
    st.error(f"{L('bad_photo')}: {ss.photo_error}")
reading = ss.get("reading")

# ------------------------------------------------------------------ 2. confirm / correct
st.header(L("confirm"))


def regroup(tile: int) -> None:
    """Rewrite the text of the group that holds tile from the current codes."""
    groups = reading["groups"] if reading else []
    meld_no = -1
    for g in groups:
        if g["kind"] == "meld":
            meld_no += 1
        if tile not in g["tiles"]:
            continue
        codes = [ss.codes[i] for i in g["tiles"] if ss.codes[i] != "remove"]
        if g["kind"] == "concealed":
            ss.concealed_txt = compact(codes)
        elif g["kind"] == "winning_tile":
            ss.winning_txt = codes[0] if codes else ""
        elif g["kind"] == "flowers":
            ss.flowers_txt = compact(codes)
        else:
            faces = [c for c in codes if c != "back"]
            ss[f"meld{meld_no}_tiles"] = compact(faces[:1] * 4 if "back" in codes and faces else faces)


def fix_tile(tile: int, code: str) -> None:
    ss.codes[tile] = code
    regroup(tile)


def on_pill(tile: int) -> None:
    choice = ss.get(f"pill{tile}")
    if choice:
        fix_tile(tile, choice)


def on_pick() -> None:
    fix_tile(int(ss.pick_tile), ss.pick_code)


if reading:
    left, right = st.columns([3, 2])
    with left:
        ms = reading["timing_ms"].get("page_read_ms", 0)
        st.image(ss.annotated, caption=f"{len(reading['tiles'])} tiles · {ms:.0f} ms")
    with right:
        if not reading["tiles"]:
            st.warning(L("no_tiles"))
        for w in reading["warnings"]:
            st.warning(w)
        unsure = [i for i, tl in enumerate(reading["tiles"]) if tl["confidence"] < 0.9]
        if unsure:
            st.caption(L("uncertain"))
            for i in unsure:
                alts = [a["code"] for a in reading["tiles"][i]["alternatives"]]
                st.pills(f"#{i} ({reading['tiles'][i]['confidence']:.0%})", alts, key=f"pill{i}",
                         format_func=tile_label, on_change=on_pill, args=(i,))
        if reading["corrections"]:
            st.caption(L("corrections"))
            for k, c in enumerate(reading["corrections"]):
                cols = st.columns([4, 1])
                cols[0].write(f"#{c['tile']}: {tile_label(c['from'])} → {tile_label(c['to'])} — {c['reason']}")
                cols[1].button(L("undo"), key=f"undo{k}", on_click=fix_tile, args=(c["tile"], c["from"]))
        if reading["tiles"]:
            with st.expander(L("tile_fix")):
                now = list(ss.codes)
                st.selectbox("#", range(len(reading["tiles"])), key="pick_tile",
                             format_func=lambda i: f"#{i}: {tile_label(now[i])}")
                st.selectbox(L("meld_tiles"), PICKER + ["back", "remove"], key="pick_code", format_func=tile_label)
                st.button("OK", key="pick_ok", on_click=on_pick)

c1, c2 = st.columns([3, 1])
c1.text_input(L("concealed"), key="concealed_txt", placeholder="123m 456p 789s 11s 23m")
c2.text_input(L("winning_tile"), key="winning_txt", placeholder="4m")
if rules.allows_flowers:
    st.text_input(L("flowers"), key="flowers_txt", placeholder="f1 f5 C")
st.number_input(L("meld_count"), min_value=0, max_value=4, step=1, key="meld_count")
for i in range(int(ss.get("meld_count", 0) or 0)):
    m1, m2, m3 = st.columns([2, 3, 2])
    allowed = MELD_TYPES if rules.allows_chow else [m for m in MELD_TYPES if m != "chow"]
    if ss.get(f"meld{i}_type") not in allowed:
        ss[f"meld{i}_type"] = "pung"
    m1.selectbox(f"{L('meld_type')} {i + 1}", allowed, key=f"meld{i}_type",
                 format_func=lambda m: MELD_TEXT[m].get(lang_now))
    m2.text_input(f"{L('meld_tiles')} {i + 1}", key=f"meld{i}_tiles", placeholder="777p")
    if ss.get(f"meld{i}_type") != "kong_concealed":
        m3.selectbox(f"{L('meld_from')} {i + 1}", [0, 1, 2, 3], key=f"meld{i}_from", format_func=seat_labeller())

# ------------------------------------------------------------------ 3. situation
st.header(L("situation"))
s1, s2, s3 = st.columns(3)
s1.selectbox(L("winner"), range(4), key="winner", format_func=seat_labeller())
if ss.get("win_type") not in rules.win_types:
    ss.win_type = rules.win_types[0]
s2.radio(L("win_type"), rules.win_types, key="win_type", horizontal=True,
         format_func=lambda w: WIN_TYPE_TEXT[w].get(lang_now))
winner = int(ss.winner)
if ss.win_type != "self_draw":
    others = [s for s in range(4) if s != winner]
    if ss.get("discarder") not in others:
        ss.discarder = others[0]
    s3.selectbox(L("discarder"), others, key="discarder", format_func=seat_labeller())

context: dict[str, Any] = {"winner": winner, "dealer": int(ss.dealer), "win_type": ss.win_type}
if ss.win_type != "self_draw":
    context["discarder"] = int(ss.discarder)
hand_error = None
hand: dict[str, Any] | None = None
try:
    hand = hand_from_fields(ss)
    if ss.win_type == "quick_shot":
        hand["winning_tile"] = None
except InputError as e:
    hand_error = str(e)

x1, x2, x3 = st.columns(3)
kongs = [m for m in (hand or {}).get("melds", []) if m["type"].startswith("kong")]
try:
    opts_now = rules.parse_options(options)
except InputError as e:
    option_error = option_error or str(e)
    opts_now = rules.parse_options({})


def field_label(name: str) -> str:
    """The ruleset's words for a situation field, in the page's language."""
    return rules.situation_field(name).label.get(lang_now)


def field_help(name: str) -> str:
    return rules.situation_field(name).help.get(lang_now)


if ss.win_type == "self_draw" and rules.asks("replacement", opts_now):
    offered = [r for r in rules.replacements if r != "kong" or kongs]
    if len(offered) > 1:
        rep = x1.radio(field_label("replacement"), ["none", *offered], key="replacement_pick", horizontal=True,
                       help=field_help("replacement"),
                       format_func=lambda r: "—" if r == "none" else REPLACEMENT_TEXT[r].get(lang_now))
        if rep != "none":
            context["replacement"] = rep
    elif offered and x1.checkbox(f"{field_label('replacement')}: {REPLACEMENT_TEXT[offered[0]].get(lang_now)}",
                                 key=f"replacement_{offered[0]}", help=field_help("replacement")):
        context["replacement"] = offered[0]
    if context.get("replacement") == "kong" and kongs:
        labels = [f"{i}: {MELD_TEXT[m['type']].get(lang_now)} {compact(m['tiles'])}" for i, m in enumerate(kongs)]
        chain_field = "bloom_chain" if rules.uses("bloom_chain") else "bloom_kong"
        if chain_field == "bloom_chain":
            chosen = x1.multiselect(field_label(chain_field), labels, default=labels[-1:], key="bloom_sel",
                                    help=field_help(chain_field))
        else:
            chosen = [x1.selectbox(field_label(chain_field), labels, index=len(labels) - 1, key="bloom_one",
                                   help=field_help(chain_field))]
        kind = {"kong_exposed": "exposed", "kong_added": "added", "kong_concealed": "concealed"}
        chain = [{"kind": kind[kongs[labels.index(c)]["type"]], "from": kongs[labels.index(c)]["from"]}
                 for c in chosen if c is not None]
        if chain_field == "bloom_chain":
            context["bloom_chain"] = chain
        elif chain:
            context["bloom_kong"] = chain[-1]
if ss.win_type == "discard" and rules.asks("after_kong", opts_now) and \
        x2.checkbox(field_label("after_kong"), key="after_kong", help=field_help("after_kong")):
    context["after_kong"] = True
if ss.win_type in ("self_draw", "discard") and rules.asks("last_tile", opts_now) and \
        x2.checkbox(field_label("last_tile"), key="last_tile", help=field_help("last_tile")):
    context["last_tile"] = True
if winner == int(ss.dealer) and ss.win_type == "self_draw" and rules.asks("heavenly", opts_now) and \
        x3.checkbox(field_label("heavenly"), key="heavenly", help=field_help("heavenly")):
    context["heavenly"] = True
if winner != int(ss.dealer) and ss.win_type in rules.earthly_win_types and rules.asks("earthly", opts_now) and \
        x3.checkbox(field_label("earthly"), key="earthly", help=field_help("earthly")):
    context["earthly"] = True
with st.expander(L("other_kongs")):
    other_kongs = st.text_area(L("other_kongs"), key="other_kongs", label_visibility="collapsed")
    penalties = st.text_area(field_label("penalty_events") + ": " + L("penalties"), key="penalties") \
        if rules.asks("penalty_events", opts_now) else ""
last = ledger.last() if ledger is not None else None
if rules.asks("previous_winner", opts_now):
    d1, d2 = st.columns(2)
    if "previous_winner" not in ss:
        ss.previous_winner = last.winner if last else None
    d1.selectbox(field_label("previous_winner"), [None, 0, 1, 2, 3], key="previous_winner",
                 format_func=seat_labeller(), help=field_help("previous_winner"))
    d2.text_input(field_label("fish_tiles"), key="fish_txt", placeholder="4m 2p", help=field_help("fish_tiles"))
    if ss.previous_winner is not None:
        context["previous_winner"] = ss.previous_winner
        context["fish_tiles"] = (ss.get("fish_txt") or "").split()
try:
    others = parse_kong_lines(other_kongs or "")
    if hand is not None and others:  # without other kongs the engine's own default (the winner's) applies
        flowers = [INDEX[c] for c in hand.get("flowers", []) if c in INDEX]
        context["kong_events"] = winner_kong_events(hand, winner) + others + \
            [{"seat": winner, "kind": "flower"}] * rules.flower_kongs(flowers, opts_now)
        if penalties:
            context["penalty_events"] = parse_penalty_lines(penalties)
except InputError as e:
    hand_error = str(e)

# ------------------------------------------------------------------ 4. result
st.header(L("result"))
case = {"ruleset": ss.ruleset, "options": options, "hand": hand, "context": context}
result: dict[str, Any] | None = None
if hand_error:
    st.warning(f"{L('bad_hand')}: {hand_error}")
elif hand is not None and (hand["concealed"] or hand["melds"]):
    t0 = time.perf_counter()
    result = score_case(case)
    ss.score_ms = 1000 * (time.perf_counter() - t0)
    lang = ss.lang
    if result["valid"]:
        head = [f"**{L('valid')}**"]
        for key in ("fan", "points", "total"):
            if key in result:
                head.append(f"{key}: **{result[key]}**")
        st.success(" · ".join(head))
        rows = []
        for e in result["elements"]:
            val = e.get("value", e.get("fan"))
            shown = f"×{e['multiplier']}" if "multiplier" in e else str(val)
            if "items" in e and e["items"]:
                shown += " (" + ", ".join(f"{i['id']}×{i['count']}" for i in e["items"]) + ")"
            rows.append({L("element"): f"{e['zh']} {e['en']}" if lang == "en" else e["zh"],
                         L("value"): shown, L("reason"): e["reason_zh"] if lang == "zh" else e["reason"]})
        st.table(rows)
        s = result["settlement"]
        if s["mode"] == "each":
            st.write(f"{L('settlement')}: {L('each_pays')} **{s['amount']}**")
        else:
            st.write(f"{L('settlement')}: {names()[s['payer']]} {L('single_pays')} **{s['amount']}**")
        if result["liability"]:
            st.write(f"{L('liability')}: {result['liability']['type']} → {names()[result['liability']['liable']]}")
        for key in ("hand_payments", "kong_payments", "penalty_payments"):
            if result.get(key):
                st.markdown(f"**{L(key)}**")
                for line in pay_lines(result[key], names()):
                    st.write(line)
        cols = st.columns(4)
        for i in range(4):
            cols[i].metric(names()[i], result["net"][i])
    else:
        msg = rules.error_text(result["error"]).get(lang)
        st.error(f"{L('invalid')}: {msg}" + (f" — {result['message']}" if result.get("message") else ""))


def record_hand() -> None:
    """Record (or update) the shown hand; the deal passes on per the ruleset."""
    if result is None or not result.get("valid") or ledger is None:
        return
    try:
        if ss.get("editing_id"):
            ledger.update(int(ss.editing_id), case, result)
            ss.last_recorded = int(ss.editing_id)
            ss.editing_id = None
        else:
            key = hashlib.sha1(json.dumps(case, sort_keys=True).encode()).hexdigest() + str(ss.get("entry", 0))
            ss.last_recorded = ledger.record(case, result, key=key)
            ss.dealer = ledger.dealer()
            ss.previous_winner = int(case["context"]["winner"])
    except (LedgerError, ValueError) as e:
        ss.record_error = str(e)


if ss.get("record_error"):
    st.error(ss.pop("record_error"))
if result is not None and result.get("valid") and ledger is not None and not ledger.read_only:
    st.button(L("update_record") if ss.get("editing_id") else L("record"), key="record", type="primary",
              on_click=record_hand)
if ss.get("last_recorded"):
    st.caption(f"{L('recorded')} #{ss.last_recorded}")

# ------------------------------------------------------------------ 5. ledger
st.header(L("ledger"))
try:
    hands = ledger.hands() if ledger is not None else []
    totals = ledger.totals() if ledger is not None else [0, 0, 0, 0]
    dealer_now = ledger.dealer() if ledger is not None else int(ss.dealer)
except LedgerError as e:
    st.error(str(e))
    hands, totals, dealer_now = [], [0, 0, 0, 0], int(ss.dealer)
cols = st.columns(5)
for i in range(4):
    cols[i].metric(f"{L('totals')}: {names()[i]}", totals[i])
cols[4].metric(L("next_dealer"), names()[dealer_now])
if not hands or ledger is None:
    st.caption(L("no_hands"))
else:
    st.dataframe([{"#": r.id, "time": r.created, "rules": r.ruleset,
                   L("winner"): " ".join(names()[w] for w in r.winners) or "—",
                   L("win_type"): r.case.get("context", {}).get("win_type", ""),
                   **{names()[i]: r.net[i] for i in range(4)}} for r in hands], hide_index=True)
    e1, e2, e3 = st.columns(3)
    chosen = e1.selectbox("#", [r.id for r in hands], key="ledger_pick")

    def load_for_edit() -> None:
        rec = next(r for r in ledger.hands() if r.id == ss.ledger_pick)
        set_fields(rec.case["hand"])
        ss.ruleset = rec.ruleset
        ss.winner = rec.winner
        ss.win_type = rec.case["context"]["win_type"]
        if "discarder" in rec.case["context"]:
            ss.discarder = rec.case["context"]["discarder"]
        ss.editing_id = rec.id

    e2.button(L("edit"), key="ledger_edit", on_click=load_for_edit)
    e3.button(L("delete"), key="ledger_delete", on_click=lambda: ledger.delete(int(ss.ledger_pick)))
    d1, d2 = st.columns(2)
    d1.download_button(L("export_csv"), ledger.export_csv(names()), "mahjong-ledger.csv", "text/csv")
    d2.download_button(L("export_json"), ledger.export_json(), "mahjong-ledger.json", "application/json")
