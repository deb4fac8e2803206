"""What one browser tab holds between runs (one typed object in st.session_state), and the table it sits at.

The table (ruleset, options, names, dealer, language) lives in the ledger, so every tab and phone at the table
agrees on it; the tab keeps only its own work: the hand being entered with its undo stack, the photo's
detections, the situation, and which recorded hand it is editing.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import streamlit as st

from ledger import DEFAULT_TABLE, LedgerBase, LedgerError
from ledger import open_ledger as open_ledger_at
from ledger.access import Actor
from scoring import DEFAULT, RULESETS, Ruleset
from vision.detections import Detections
from vision.geometry import PhotoFrame
from vision.pipeline import Reading

from .i18n import t
from .state import Editor, HandState, LedgerChange

DEFAULT_NAMES = ["East", "South", "West", "North"]
SEAT_NAMES = {"en": DEFAULT_NAMES, "zh": ["東", "南", "西", "北"]}  # a player's name until the table gives one


@dataclass
class Table:
    """The table's set-up, kept in the ledger's settings."""

    ruleset: str = DEFAULT
    options: dict[str, dict[str, Any]] = field(default_factory=dict)  # per ruleset: only values off the default
    names: list[str] = field(default_factory=lambda: list(DEFAULT_NAMES))
    dealer: int = 0
    lang: str = "en"
    keep_photos: bool = True  # a small photo kept with each recorded hand, as its evidence

    @property
    def rules(self) -> Ruleset:
        return RULESETS[self.ruleset]

    @property
    def opts(self) -> dict[str, Any]:
        """The active ruleset's house rules (off-default values only, as a case carries them)."""
        return dict(self.options.get(self.ruleset, {}))

    @classmethod
    def from_settings(cls, saved: dict[str, Any]) -> Table:
        tbl = cls()
        if saved.get("ruleset") in RULESETS:
            tbl.ruleset = saved["ruleset"]
        if isinstance(saved.get("options"), dict):
            tbl.options = {k: v for k, v in saved["options"].items() if isinstance(v, dict)}
        names = saved.get("names")
        if isinstance(names, list) and len(names) == 4:
            tbl.names = [str(n)[:40] or DEFAULT_NAMES[i] for i, n in enumerate(names)]
        if saved.get("dealer") in (0, 1, 2, 3):
            tbl.dealer = int(saved["dealer"])
        if saved.get("lang") in ("en", "zh"):
            tbl.lang = saved["lang"]
        if isinstance(saved.get("keep_photos"), bool):
            tbl.keep_photos = saved["keep_photos"]
        return tbl.seat_names_in_lang()

    def seat_names_in_lang(self) -> Table:
        """Players still called by their seat's default name (in either language) are called so in the table's."""
        for i, n in enumerate(self.names):
            if any(n == names[i] for names in SEAT_NAMES.values()):
                self.names[i] = SEAT_NAMES[self.lang][i]
        return self

    def settings(self) -> dict[str, Any]:
        return {"ruleset": self.ruleset, "options": self.options, "names": self.names, "dealer": self.dealer,
                "lang": self.lang, "keep_photos": self.keep_photos}


@dataclass
class PhotoSeen:
    """What a photo showed, before any ruleset: the detections and the picture to draw on (the user's fixes are
    the tab's undo history's, ``Editor.fixes``)."""

    digest: str
    name: str
    det: Detections
    image: np.ndarray  # RGB, annotated, for display
    frame: PhotoFrame  # the photo as sent and how it was read (boxes to the photo's pixels)
    warnings: list[str]
    timing_ms: dict[str, float]
    clean: np.ndarray | None = None  # the photo downsized like ``image``, without boxes: the tiles' own crops

    @property
    def scale(self) -> float:
        """Photo pixels per pixel of the image the reader got (a large JPEG is decoded at half scale)."""
        return self.frame.scale

    @property
    def width(self) -> int:
        """Width of the photo as read (levelled, turned upright), in the photo's pixels."""
        return self.frame.read_size()[0]

    @property
    def height(self) -> int:
        """Height of the photo as read, in the photo's pixels."""
        return self.frame.read_size()[1]


@dataclass
class Tab:
    """One tab's work in progress."""

    editor: Editor = field(default_factory=Editor)  # the hand, fixes, photo and edited hand, with one undo history
    photo_error: str | None = None  # digest of the last file that could not be read
    taken: str | None = None  # digest of the file last taken from the uploader or the camera (taken once)
    uploads: int = 0  # the uploader's generation: a record gives a new, empty one
    photo_error_msg: str | None = None
    reading: Reading | None = None
    derived_for: tuple | None = None  # (digest, ruleset, options, hand tiles) the reading was interpreted for
    entry: str = field(default_factory=lambda: uuid.uuid4().hex)  # one per hand entered: idempotent recording
    field_errors: dict[str, str] = field(default_factory=dict)  # widget key -> why its text cannot be read
    pending_multi: list[tuple[dict[str, Any], dict[str, Any]]] = field(default_factory=list)
    confirm_delete: int | None = None
    just_deleted: int | None = None
    flash: list[tuple[str, str]] = field(default_factory=list)  # (kind, message) shown once
    seen_changes: int = -1

    @property
    def photo(self) -> PhotoSeen | None:
        """The photo of the hand on screen (part of the undo history)."""
        return self.editor.step.photo

    @property
    def editing(self) -> int | None:
        """The recorded hand being edited (part of the undo history)."""
        return self.editor.step.editing

    def new_entry(self, hand: HandState | None = None, photo: PhotoSeen | None = None, editing: int | None = None,
                  ledger: LedgerChange | None = None) -> None:
        """Start a new hand (a new photo, a record, a cancel, a hand to edit), one undo step from the old one;
        ``ledger``: the write that ended the old one, which undo takes back."""
        self.entry = uuid.uuid4().hex
        self.pending_multi = []
        self.field_errors = {}
        self.editor.change(hand if hand is not None else HandState(), fixes={}, photo=photo, editing=editing,
                           ledger=ledger)


def tab() -> Tab:
    """This tab's state (created on its first run)."""
    if "tab" not in st.session_state:
        st.session_state["tab"] = Tab()
    return st.session_state["tab"]


def open_ledger() -> tuple[LedgerBase | None, str | None]:
    """The table's ledger ($MAHJONG_LEDGER: a SQLite file or a postgresql:// URL; the table from the page's URL,
    ``?table=...``), or None and the reason (a banner names the ledger, the problem and the fix)."""
    table = str(st.query_params.get("table", DEFAULT_TABLE))[:64] or DEFAULT_TABLE
    try:
        return open_ledger_at(table=table), None
    except LedgerError as e:
        return None, str(e)


URL_KEYS = ("ruleset", "players", "dealer", "lang")


def from_url(tbl: Table, params: dict[str, str]) -> tuple[Table | None, list[str]]:
    """The set-up a table URL gives (``?ruleset=nanjing&players=Ann,Bo,Chen,Dai&dealer=1&lang=zh``), or None
    when it gives nothing new; and the URL's keys whose values cannot be used (said to the user, not dropped
    without a word)."""
    new = Table(**{**tbl.__dict__, "names": list(tbl.names), "options": dict(tbl.options)})
    bad = []
    if "ruleset" in params:
        if params["ruleset"] in RULESETS:
            new.ruleset = params["ruleset"]
        else:
            bad.append("ruleset")
    if "players" in params:
        players = [p.strip()[:40] for p in str(params["players"]).split(",")]
        if len(players) == 4 and all(players):
            new.names = players
        else:
            bad.append("players")
    if "dealer" in params:
        if str(params["dealer"]) in ("0", "1", "2", "3"):
            new.dealer = int(params["dealer"])
        else:
            bad.append("dealer")
    if "lang" in params:
        if params["lang"] in ("en", "zh"):
            new.lang = params["lang"]
        else:
            bad.append("lang")
    new.seat_names_in_lang()
    return (None if new == tbl else new), bad


def load_table(ledger: LedgerBase | None, by: Actor | None = None, may_save: bool = True) -> Table:
    """The table from the ledger (every tab sees the same), else this tab's own copy. A table URL's set-up is
    read once, when the tab opens it: a new table takes it; a table already set up or playing is changed only
    when this phone says so (``url_offer``, asked by the table bar), and never by a watcher of a shared table;
    values that cannot be used are named (``url_bad``). The URL then shows the table's set-up, to bookmark."""
    tbl = st.session_state.get("table_copy") or Table()
    saved: dict[str, Any] = {}
    if ledger is not None:
        try:
            saved = ledger.settings()
            tbl = Table.from_settings(saved)
        except LedgerError:
            pass
    if "url_applied" not in st.session_state:
        st.session_state["url_applied"] = True
        params = {k: str(v) for k in URL_KEYS if (v := st.query_params.get(k)) is not None}
        playing = ledger is not None and _has_hands(ledger)
        if playing:
            params.pop("dealer", None)  # a table already playing keeps its dealer; a new one starts from the URL
        new, bad = from_url(tbl, params)
        st.session_state["url_bad"] = [(k, params[k]) for k in bad]
        if new is not None and may_save:
            if ledger is None or not (saved or playing):
                save_table(ledger, new, by)
                tbl = new
            else:
                st.session_state["url_offer"] = new.settings()
    st.session_state["table_copy"] = tbl
    url = {"ruleset": tbl.ruleset, "players": ",".join(tbl.names), "dealer": str(tbl.dealer), "lang": tbl.lang}
    if any(st.query_params.get(k) != v for k, v in url.items()):
        st.query_params.update(url)  # the URL always shows the table's set-up: bookmark or share it
    return tbl


def _has_hands(ledger: LedgerBase) -> bool:
    try:
        return ledger.last() is not None
    except LedgerError:
        return False


def save_table(ledger: LedgerBase | None, tbl: Table, by: Actor | None = None) -> None:
    """Write the set-up where every tab reads it, as ``by`` (this tab only, when the ledger cannot be written)."""
    st.session_state["table_copy"] = tbl
    if ledger is not None and not ledger.read_only:
        try:
            ledger.save_settings(tbl.settings(), by=by)
        except LedgerError as e:
            tab().flash.append(("error", str(e)))


def page_lang() -> str:
    """The table's language ("en" or "zh"), read once per render: a widget's format function must not read the
    session later (it is also called outside the page's run)."""
    tbl: Table = st.session_state.get("table_copy") or Table()
    return tbl.lang


def label(key: str) -> str:
    """A page label in the table's language."""
    return t(key, page_lang())

