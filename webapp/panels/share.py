"""Sharing the table between phones: the owner shares it (an owner token, shown once, and a join code shown as
text, link and QR code), the other phones join with the code (``?join=CODE`` in the link fills it in, for this
phone only), and the owner sets who may read and edit, makes a new code, and removes players. A phone holding no
token of a shared table is told that it watches and how to join."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode, urlsplit

import cv2
import numpy as np
import streamlit as st

from ledger import LedgerBase, LedgerError
from ledger.access import TOKEN_PREFIX

from .. import access
from ..i18n import LABELS
from ..session import label
from . import Page

SHOWN = "share_shown"  # session: (table, owner token or None, join code) to show once, after sharing or a new code


@st.cache_resource
def _guesses() -> Any:
    """Wrong join codes and tokens typed on this page server, per phone ($MAHJONG_GUESS_LIMIT, as the API)."""
    from service.limits import RateLimit  # the limits module is the standard library only, no [api] extra

    return RateLimit.from_env("MAHJONG_GUESS_LIMIT", "10/60")


def _client() -> str:
    """The phone's address as the page server sees it ("page" where there is none: behind a proxy, a test)."""
    try:
        ip = st.context.ip_address
    except (AttributeError, RuntimeError):
        return "page"
    return ip if isinstance(ip, str) and ip else "page"


def qr(text: str, px: int = 8) -> np.ndarray:
    """``text`` as a QR code image (black on white, with its quiet zone), ``px`` pixels a module."""
    code = cv2.QRCodeEncoder.create().encode(text)
    code = cv2.copyMakeBorder(code, 4, 4, 4, 4, cv2.BORDER_CONSTANT, value=255)
    return cv2.resize(code, None, fx=px, fy=px, interpolation=cv2.INTER_NEAREST)


def join_link(table: str, code: str) -> str:
    """The page's address for another phone: this table, its code filled in."""
    try:
        url = st.context.url
    except (AttributeError, RuntimeError):
        url = ""
    url = url if isinstance(url, str) else ""
    parts = urlsplit(url)
    base = f"{parts.scheme}://{parts.netloc}{parts.path or '/'}" if parts.netloc else "http://localhost:8501/"
    return f"{base}?{urlencode({'table': table, 'join': code})}"


def share(book: LedgerBase, public_reads: bool, players_edit: bool) -> None:
    try:
        token, code = book.share(public_reads=public_reads, players_edit=players_edit)
    except LedgerError as e:
        st.session_state["share_error"] = str(e)
        return
    access.keep(book.table, token)
    st.session_state[SHOWN] = (book.table, token, code)


def join(book: LedgerBase) -> None:
    """The code (or an owner or player token) typed on this phone: this tab holds the token it gives."""
    typed = str(st.session_state.get("join_code", "")).strip()
    name = str(st.session_state.get("join_name", "")).strip()
    if not typed:
        return
    wait = _guesses().wait(_client())
    if wait:
        st.session_state["share_error"] = label("join_wait").format(s=wait)
        return
    if typed.startswith(TOKEN_PREFIX):
        actor = book.actor(typed)
        if actor is None or actor.table != book.table:
            _guesses().take(_client())
            st.session_state["share_error"] = label("join_wrong")
            return
        access.keep(book.table, typed)
    else:
        try:
            token, actor = book.join(typed, name)
        except LedgerError:
            _guesses().take(_client())
            st.session_state["share_error"] = label("join_wrong")
            return
        access.keep(book.table, token)
    st.session_state.pop("join_code", None)
    st.session_state["share_flash"] = label("joined_as").format(name=access.named(actor.name))


def set_policy(page: Page, **change: Any) -> None:
    assert page.book is not None
    try:
        if "new_code" in change:
            _, code = page.book.set_policy(page.actor, new_code=True)
            st.session_state[SHOWN] = (page.book.table, None, code)
        else:
            page.book.set_policy(page.actor, **{k: bool(st.session_state[v]) for k, v in change.items()})
    except LedgerError as e:
        st.session_state["share_error"] = str(e)


def revoke(page: Page, token_id: int) -> None:
    assert page.book is not None
    try:
        page.book.revoke(token_id, page.actor)
    except LedgerError as e:
        st.session_state["share_error"] = str(e)


def _shown(book: LedgerBase) -> None:
    """The owner token (once) and the join code, its link and its QR code."""
    shown = st.session_state.get(SHOWN)
    if not shown or shown[0] != book.table:
        return
    _, token, code = shown
    link = join_link(book.table, code)
    st.markdown(f"**{label('join_code_is')}** `{code}`")
    st.image(qr(link), caption=label("scan_to_join"), width=240)
    st.code(link, language=None)
    if token:
        st.warning(label("owner_token_once"))
        st.code(token, language=None)
    st.button(label("hide_codes"), key="share_hide", on_click=lambda: st.session_state.pop(SHOWN, None))


def render(page: Page) -> None:
    """The sharing bar under the table set-up (nothing without a ledger)."""
    book, policy, actor = page.book, page.policy, page.actor
    if book is None or book.read_only:
        return
    if "join" in st.query_params:  # a join link: the code goes into this phone's form, and out of the URL
        st.session_state["join_code"] = str(st.query_params["join"])[:40]
        del st.query_params["join"]
    if not policy.shared:
        title = label("share_title_unshared")
    elif actor is None:
        title = label("share_title_none")
        st.info(label("watching_shared") if policy.public_reads else label("reads_closed"))
    elif actor.role == "owner":
        title = label("share_title_owner")
    else:
        title = label("share_title_player").format(name=access.named(actor.name))
    for key, show in (("share_error", st.error), ("share_flash", st.success)):
        if st.session_state.get(key):
            show(st.session_state.pop(key))
    opened = bool(st.session_state.get(SHOWN)) or (policy.shared and actor is None)
    with st.expander(title, expanded=opened):
        if not policy.shared:
            st.caption(label("share_explained"))
            st.checkbox(label("share_public"), value=True, key="share_public")
            st.checkbox(label("share_players_edit"), value=False, key="share_players_edit")
            st.button(label("share_now"), key="share_now", type="primary", on_click=lambda: share(
                book, bool(st.session_state.get("share_public", True)),
                bool(st.session_state.get("share_players_edit", False))))
            return
        _shown(book)
        if actor is None:
            st.text_input(label("join_code"), key="join_code", placeholder="XXXXX-XXXXX")
            st.text_input(label("your_name"), key="join_name", max_chars=40)
            st.button(label("join_now"), key="join_now", type="primary", on_click=join, args=(book,))
            return
        if actor.role == "owner":
            _owner(page)
        st.button(label("leave"), key="share_leave", on_click=access.forget, args=(book.table,))


def _owner(page: Page) -> None:
    """What only the owner sees: who may read and edit, a new join code, the players, who did what."""
    book, policy = page.book, page.policy
    assert book is not None
    st.session_state["share_public_now"] = policy.public_reads
    st.checkbox(label("share_public"), key="share_public_now", on_change=set_policy, args=(page,),
                kwargs={"public_reads": "share_public_now"})
    st.session_state["share_edit_now"] = policy.players_edit
    st.checkbox(label("share_players_edit"), key="share_edit_now", on_change=set_policy, args=(page,),
                kwargs={"players_edit": "share_edit_now"})
    st.button(label("new_join_code"), key="share_new_code", on_click=set_policy, args=(page,),
              kwargs={"new_code": True})
    try:
        players = [k for k in book.tokens() if k["role"] == "player"]
        log = book.audit(limit=20)
    except LedgerError as e:
        st.error(str(e))
        return
    st.markdown(f"**{label('players_tokens')}**")
    if not players:
        st.caption("—")
    for k in players:
        c1, c2 = st.columns([3, 1])
        c1.write(f"#{k['id']} {k['label']} · {k['created']}" + (f" · {label('revoked')}" if k["revoked"] else ""))
        if not k["revoked"]:
            c2.button(label("revoke"), key=f"share_revoke_{k['id']}", on_click=revoke, args=(page, k["id"]))
    with st.expander(label("audit_title")):
        st.dataframe([{label("time"): e["at"], label("who"): access.named(e["by"]), label("what"): _action(e["action"]),
                       "#": e["hand"] if e["hand"] is not None else ""} for e in log], hide_index=True)


def _action(action: str) -> str:
    """An audit line's action in the page's language."""
    return label(f"act_{action}") if f"act_{action}" in LABELS else action
