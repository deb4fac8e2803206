"""中文 mode has no English left beyond tile codes: every panel rendered in Chinese, for each ruleset, through a
photo, a result, a recorded hand, the ledger, the beginners' wait table and the error messages."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from scoring import RULESETS
from tests.helpers import SHARED
from vision.models import MODELS_DIR

APP = str(Path(__file__).resolve().parents[1] / "app.py")
VALID = SHARED / "data" / "chinese-mahjong-rf" / "valid" / "images"
HAS_DATA = (MODELS_DIR / "detector.onnx").exists() and VALID.exists()

# ASCII that may stay in Chinese mode: tile codes and tile notation (5m, 123p, EEE, f1), the name of the other
# language in the language switch, and the names of file formats
TILE = re.compile(r"^(?:[1-9]+[mps]|[ESWNCFPG]+|f[1-8]|[1-9]+)+$")
ALLOWED = {"English", "JPEG", "PNG", "HEIC", "WebP", "GIF", "TIFF", "BMP", "CSV", "JSON", "MB"}


def shown_text(at: AppTest) -> list[tuple[str, str]]:
    """(kind, text) of everything the page shows or offers: texts, labels, options, help lines, tables."""
    out: list[tuple[str, str]] = []
    for kind in ("markdown", "caption", "warning", "error", "success", "info", "title", "header", "subheader",
                 "exception", "latex", "code"):
        out += [(kind, str(e.value)) for e in getattr(at, kind)]
    for m in at.metric:
        out += [("metric", m.label), ("metric", str(m.value))]
    for kind in ("button", "selectbox", "radio", "text_input", "number_input", "checkbox", "toggle", "multiselect",
                 "text_area", "expander", "tabs", "date_input", "slider", "select_slider"):
        for e in getattr(at, kind):
            p = e.proto
            out += [(f"{kind}.{f}", getattr(p, f)) for f in ("label", "help", "placeholder") if getattr(p, f, "")]
            out += [(f"{kind}.option", o) for o in getattr(p, "options", [])]
    for kind in ("table", "dataframe"):
        for e in getattr(at, kind):
            frame = e.value
            out += [(kind, str(c)) for c in frame.columns] + [(kind, str(v)) for v in frame.astype(str).values.ravel()]
    for e in at.get("download_button"):
        out.append(("download_button", e.proto.label))
    return out


def english(at: AppTest, also_allowed: set[str]) -> list[tuple[str, str]]:
    """Words of two or more ASCII letters that are not tile codes, a format's name or the user's own input."""
    found = []
    for kind, text in shown_text(at):
        text = re.sub(r":material/[a-z_]+:", "", text)  # an icon, not a word
        for word in re.findall(r"[A-Za-z0-9_]+", text):
            letters = re.sub(r"[^A-Za-z]", "", word)
            if len(letters) >= 2 and not TILE.match(word) and word not in ALLOWED | also_allowed:
                found.append((kind, word))
    return sorted(set(found))


@pytest.fixture
def zh_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[AppTest, set[str]]:
    ledger = tmp_path / "ledger.sqlite3"
    monkeypatch.setenv("MAHJONG_LEDGER", str(ledger))
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["lang"] = "zh"
    # the ledger's file path and the table's id (in the URL, "main" unless given) are identifiers, not words
    return at, set(re.findall(r"[A-Za-z0-9_]+", str(ledger))) | {"main"}


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_every_panel_in_chinese_has_no_english_beyond_tile_codes(zh_app: tuple[AppTest, set[str]], ruleset: str,
                                                                  tmp_path: Path) -> None:
    at, own = zh_app
    at.query_params["ruleset"] = ruleset
    at.run()
    assert not at.exception
    seen: list[tuple[str, str]] = english(at, own)  # the empty page
    if HAS_DATA:  # a photo: the reading, its warnings and corrections, the tiles, the result
        from tests.test_browser import composed_photo

        photo = tmp_path / "hand.jpg"
        composed_photo(photo)
        at.file_uploader(key="upload").set_value(("hand.jpg", photo.read_bytes(), "image/jpeg")).run()
        assert not at.exception and at.session_state["tab"].reading is not None
        own |= {"hand", "jpg"}  # the photo's own file name
    else:  # the same hand typed in
        at.text_input(key="concealed_txt").input("123m 456p 789s EEE 9p").run()
        at.text_input(key="winning_txt").input("9p").run()
    seen += english(at, own)
    record = [b for b in at.button if b.key == "record"]
    if ruleset == "nanning":
        assert record, "the plain hand is a valid Nanning win: it can be recorded"
    if record:
        record[0].click().run()  # the ledger: the recorded hand, totals, chart, settle-up, exports
        assert not at.exception
        seen += english(at, own)
    at.button(key="share_now").click().run()  # sharing: the codes shown once, the owner's view, who did what
    assert not at.exception
    secrets = [str(c.value) for c in at.code]  # the owner token, the join link and code are identifiers
    own |= {w for text in secrets for w in re.findall(r"[A-Za-z0-9_]+", text)}
    seen += english(at, own)
    at.button(key="share_hide").click().run()
    seen += english(at, own)
    at.toggle(key="waits_mode").set_value(True).run()  # the beginners' wait table
    seen += english(at, own)
    at.toggle(key="waits_mode").set_value(False).run()
    at.text_input(key="concealed_txt").input("5555m 123p 456s 7").run()  # errors: five of a tile, unreadable
    seen += english(at, own)
    at.text_input(key="concealed_txt").input("1111m 123p 456s 78s").run()
    at.text_input(key="winning_txt").input("1m").run()
    seen += english(at, own)
    assert not at.exception
    assert not sorted(set(seen)), f"English words in Chinese mode ({ruleset}): {sorted(set(seen))}"
