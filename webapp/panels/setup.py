"""The table bar at the top: ruleset, house rules, four names, dealer and language, kept in the ledger."""

from __future__ import annotations

import json
from typing import Any

import streamlit as st

from scoring import RULESETS
from scoring.errors import InputError

from ..session import Table, label, save_table
from . import Page


def _write(page: Page, tbl: Table, **changes: Any) -> None:
    for k, v in changes.items():
        setattr(tbl, k, v)
    save_table(page.book if page.may("read") else None, tbl.seat_names_in_lang(), page.actor)


def _options(page: Page, tbl: Table, locked: bool) -> None:
    """House rules of the active ruleset; each change is validated by the ruleset and saved at once."""
    rules = tbl.rules
    current = tbl.opts
    for name, opt in rules.options.items():
        key = f"opt_{rules.name}_{name}"
        value = current.get(name, opt.default)
        title = opt.text().get(tbl.lang)  # the option's words are its label; its id (for the JSON) in the help
        helptext = f"`{name}`" if tbl.lang == "en" else None
        choices = getattr(opt.check, "choices", None)
        lo, hi = getattr(opt.check, "bounds", (None, None))

        def changed(name: str = name, key: str = key, default: Any = opt.default, json_text: bool = False) -> None:
            raw = st.session_state[key]
            try:
                val = (json.loads(raw) if raw.strip() else None) if json_text else raw
                new = dict(tbl.opts)
                if val == default:
                    new.pop(name, None)
                else:
                    new[name] = val
                rules.parse_options(new)
            except (ValueError, InputError) as e:
                st.session_state[f"{key}_error"] = f"{name}: {e}"
                return
            st.session_state.pop(f"{key}_error", None)
            _write(page, tbl, options={**tbl.options, rules.name: new})

        if isinstance(opt.default, bool):
            st.session_state[key] = bool(value)
            st.checkbox(title, key=key, help=helptext, on_change=changed, disabled=locked)
        elif choices:
            st.session_state[key] = value
            st.selectbox(title, list(choices), key=key, help=helptext, on_change=changed, disabled=locked,
                         format_func=lambda v, opt=opt, lang=tbl.lang: opt.choice_text(v, lang))
        elif lo is not None and (isinstance(opt.default, int) or opt.default is None):
            st.session_state[key] = None if value is None else int(value)
            st.number_input(title, min_value=lo, max_value=hi, step=1, key=key, help=helptext, on_change=changed,
                            disabled=locked,
                            placeholder="—")
        else:
            if f"{key}_error" not in st.session_state:
                st.session_state[key] = json.dumps(value)
            st.text_input(title, key=key, help=f"{helptext or ''} (JSON)", on_change=changed, disabled=locked,
                          kwargs={"json_text": True})
        if st.session_state.get(f"{key}_error"):
            st.error(st.session_state[f"{key}_error"])


def _from_link(page: Page) -> None:
    """What the page's link asked of the table: values it could not use, and a set-up that differs from the
    table's, applied only when this phone says so (it changes the table for every phone)."""
    for key, value in st.session_state.pop("url_bad", []):  # said once, when the link is opened
        st.warning(label("url_bad").format(key=key, value=value[:40], want=label(f"url_want_{key}")))
    offer = st.session_state.get("url_offer")
    if not offer:
        return
    new = Table.from_settings(offer)
    st.info(label("url_offer").format(rules=new.rules.title.get(page.table.lang),
                                      dealer=new.names[new.dealer], names=", ".join(new.names)))
    c1, c2 = st.columns(2)
    c1.button(label("url_apply"), key="url_apply", type="primary", on_click=_answer, args=(page, new))
    c2.button(label("url_keep"), key="url_keep", on_click=_answer, args=(page, None))


def _answer(page: Page, new: Table | None) -> None:
    st.session_state.pop("url_offer", None)
    if new is not None:
        save_table(page.book, new, page.actor)


def render(page: Page) -> None:
    """The compact table bar; it opens to edit."""
    ledger, tbl = page.book, page.table
    locked = page.policy.shared and page.actor is None and page.may("read")  # a watcher sees, does not change
    rules = tbl.rules
    summary = f"{rules.title.get(tbl.lang)} · {label('dealer')}: {tbl.names[tbl.dealer]} · " + \
        " · ".join(tbl.names)
    _from_link(page)
    # keyed, so that it stays open while its own summary changes with each choice made in it
    with st.expander(summary, expanded=False, key="table_bar"):
        st.session_state["lang"] = tbl.lang
        st.radio(label("language"), ["en", "zh"], key="lang", horizontal=True, disabled=locked,
                 format_func=lambda x: "English" if x == "en" else "中文",
                 on_change=lambda: _write(page, tbl, lang=st.session_state["lang"]))
        st.session_state["ruleset"] = tbl.ruleset
        st.selectbox(label("ruleset"), list(RULESETS), key="ruleset", disabled=locked,
                     format_func=lambda r: RULESETS[r].title.get(tbl.lang),
                     on_change=lambda: _write(page, tbl, ruleset=st.session_state["ruleset"]))
        cols = st.columns(4)
        for i in range(4):
            key = f"name{i}"
            st.session_state[key] = tbl.names[i]

            def renamed(i: int = i, key: str = key) -> None:
                names = list(tbl.names)
                names[i] = (st.session_state[key] or "").strip()[:40] or f"{label('seat')} {i}"
                _write(page, tbl, names=names)

            cols[i].text_input(f"{label('seat')} {i}", key=key, on_change=renamed, disabled=locked)
        st.session_state["dealer"] = tbl.dealer
        st.selectbox(label("dealer"), range(4), key="dealer", format_func=lambda s: f"{s}: {tbl.names[s]}",
                     disabled=locked,
                     on_change=lambda: _write(page, tbl, dealer=int(st.session_state["dealer"])))
        st.session_state["keep_photos"] = tbl.keep_photos
        st.checkbox(label("keep_photos"), key="keep_photos", disabled=locked,
                    on_change=lambda: _write(page, tbl, keep_photos=bool(st.session_state["keep_photos"])))
        st.caption(f"{label('ledger_file')}: `{ledger.where if ledger else '—'}` · {label('table')}: "
                   f"`{ledger.table if ledger else '—'}`")
    with st.expander(f"{label('options')} · {rules.unit.get(tbl.lang)}"):
        _options(page, tbl, locked)
