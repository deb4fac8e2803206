"""Streamlit page: photograph a winning hand, confirm the tiles, set the situation, see who pays whom, keep the ledger.

Run: streamlit run app.py   (phone on the same network: see README; camera access needs HTTPS or localhost)
The page is a composition of panels (webapp/panels); each reads and writes this tab's typed state
(webapp/panels.Page over webapp/session.py) and asks the ruleset for what it has: ``render(page)``.
"""

from __future__ import annotations

import dataclasses

import streamlit as st

from ledger.access import allowed
from webapp import access
from webapp.i18n import t
from webapp.layout import PHONE_CSS
from webapp.panels import Page, confirm, ledger, photo, result, setup, share, situation, waits
from webapp.reading import reader, reinterpret
from webapp.session import Table, load_table, open_ledger, tab

st.set_page_config(page_title="Mahjong scorer", page_icon="🀄", layout="wide")
st.html(PHONE_CSS)  # a compact header on a phone: the hand and its score come first
reader()  # load and warm the model once per server process, on the first view, before any photo

book, book_problem = open_ledger()
actor, policy = access.who(book)  # this tab at its table: "this device", or its token once shared
# a closed table's set-up is for its players: a watcher scores with this tab's own copy
tbl = load_table(book if allowed("read", actor, policy) else None, actor, allowed("settings", actor, policy))
tb = tab()
st.title(t("title", tbl.lang))
if book_problem:
    st.error(f"⚠️ {t('ledger_broken', tbl.lang)}: {book_problem}")
elif book is not None and book.read_only:
    st.warning(f"{t('ledger_read_only', tbl.lang)}: {book.where}")
# a recorded hand being edited is scored with its own ruleset, house rules and dealer
override = st.session_state.get("table_override") if tb.editing is not None else None
if override is None:
    st.session_state.pop("table_override", None)
hand_tbl: Table = dataclasses.replace(tbl, ruleset=override["ruleset"], options={override["ruleset"]:
                                      override["options"]}, dealer=override["dealer"]) if override else tbl
page = Page(tb, tbl, hand_tbl, book, book_problem, actor=actor, policy=policy)

setup.render(page)
share.render(page)
photo.render(page)
reinterpret(tb, hand_tbl.rules, hand_tbl.opts)  # the photo read for this hand's ruleset and house rules
confirm.render(page)
situation.render(page)
# the switch sits below, so the score comes first on a phone
(waits if st.session_state.get("waits_mode") else result).render(page)
st.toggle(t("what_wins_mode", tbl.lang), key="waits_mode")
ledger.render(page)
