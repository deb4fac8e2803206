"""A score on the page (the result panel, the wait table's entries): the engine's result in the player's words."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

from scoring.rulesets.base import LIABILITY_TEXT

from .editing import amount, pay_lines
from .session import Table, label
from .words import players_words


def show_result(result: dict[str, Any], tbl: Table, after_total: Callable[[], None] | None = None) -> None:
    """A score as the page shows it: the total (then ``after_total``: the result panel's Record), the elements
    and their reasons, who pays whom, the nets."""
    rules, lang, names = tbl.rules, tbl.lang, tbl.names
    if not result["valid"]:
        msg = rules.error_text(result["error"]).get(lang)
        detail = result.get("message_zh") if lang == "zh" else players_words(str(result.get("message") or ""), tbl)
        st.error(f"{label('invalid')}: {msg}" + (f" — {detail}" if detail else ""))
        if after_total is not None:
            after_total()
        return
    unit = rules.unit.get(lang)
    head = [f"**{label('valid')}**"] + [f"{label(k)}: **{result[k]}**" for k in ("fan", "points", "total")
                                         if k in result]
    if "total" not in result:  # a ruleset without a total (Nanning): the payment itself is the headline
        s = result["settlement"]
        head.append(f"{label('each_pays')} **{amount(s['amount'], unit)}**" if s["mode"] == "each" else
                    f"{names[s['payer']]} {label('single_pays')} **{amount(s['amount'], unit)}**")
    st.success(" · ".join(head) + f" · {rules.title.get(lang)}")
    if after_total is not None:
        after_total()
    rows = []
    for e in result["elements"]:
        # an element's items (Nanjing's soft flowers) are named in its reason
        shown = f"×{e['multiplier']}" if "multiplier" in e else f"{e.get('value', e.get('fan'))}"
        rows.append({label("element"): e["zh"] if lang == "zh" else f"{e['zh']} {e['en']}", label("value"): shown,
                     label("reason"): e["reason_zh"] if lang == "zh" else e["reason"]})
    st.table(rows)
    for e in result.get("implied_events", []):  # D-C10: a kong the tiles prove, counted without being entered
        st.info(f"{label('implied')}: {e['reason_zh'] if lang == 'zh' else e['reason']}")
    s = result["settlement"]
    liab = result.get("liability")
    if liab:
        text = LIABILITY_TEXT.get(liab["type"])
        st.write(f"{label('liability')}: {text.get(lang) if text else liab['type']} → {names[liab['liable']]}")
    if liab and s["mode"] == "each" and len({p["from"] for p in result["hand_payments"]}) == 1:
        st.write(f"{label('settlement')}: {names[liab['liable']]} {label('pays_for_all')} "
                 f"**{amount(sum(p['amount'] for p in result['hand_payments']), unit)}**")
    elif s["mode"] == "each":
        st.write(f"{label('settlement')}: {label('each_pays')} **{amount(s['amount'], unit)}**")
    else:
        st.write(f"{label('settlement')}: {names[s['payer']]} {label('single_pays')} **{amount(s['amount'], unit)}**")
    for key in ("hand_payments", "kong_payments", "penalty_payments"):
        if result.get(key):
            st.markdown(f"**{label(key)}**")
            for line in pay_lines(result[key], names, unit):
                st.write(line)
    nets = st.container(horizontal=True)  # the four nets side by side, on a phone too
    for i in range(4):
        nets.metric(names[i], result["net"][i])
    if "next_dealer" in result:  # the engine's: a Nanjing 大胡 keeps the deal (D-J17)
        st.caption(f"{label('next_dealer')}: {names[result['next_dealer']]}")


