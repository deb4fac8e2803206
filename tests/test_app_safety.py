"""The page under bad input: hostile uploads and a broken ledger give a clear message, never a traceback, and
scoring by hand keeps working."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

from tests.image_files import BOMBS, encoded

APP = str(Path(__file__).resolve().parents[1] / "app.py")


def page(ledger: Path) -> AppTest:
    import os

    os.environ["MAHJONG_LEDGER"] = str(ledger)
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    return at


def score_by_hand(at: AppTest) -> None:
    at.text_input(key="concealed_txt").input("123m 456s 23p 99m 789s").run()
    at.text_input(key="winning_txt").input("4p").run()


def test_a_corrupt_ledger_is_a_banner_and_scoring_still_works(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    bad = tmp_path / "ledger.sqlite3"
    bad.write_bytes(b"garbage, not a database" * 200)
    monkeypatch.setenv("MAHJONG_LEDGER", str(bad))
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    assert not at.exception
    banner = at.error[0].value
    assert str(bad) in banner and "damaged" in banner and "MAHJONG_LEDGER" in banner
    score_by_hand(at)
    assert not at.exception and "Valid win" in at.success[0].value
    assert not [b for b in at.button if b.key == "record"]  # nothing can be recorded into a broken ledger
    assert bad.read_bytes().startswith(b"garbage")  # the file is left as it was


def test_a_read_only_ledger_is_shown_read_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    from ledger import Ledger

    path = tmp_path / "ledger.sqlite3"
    Ledger(path)
    monkeypatch.setattr("ledger.store.os.access", lambda p, mode: False)  # as for a user without write rights
    monkeypatch.setenv("MAHJONG_LEDGER", str(path))
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    assert not at.exception and "read-only" in at.warning[0].value
    score_by_hand(at)
    assert "Valid win" in at.success[0].value and not [b for b in at.button if b.key == "record"]


UPLOADS = [encoded("PNG")[:200], encoded("JPEG")[:-500], b"GIF89a" + b"\xff" * 40, b"II*\0" + b"\x08\0\0\0" * 3,
           b"RIFF\0\0\0\0WEBPVP8X" + b"\xff" * 20] + [make() for make in BOMBS.values()]


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(UPLOADS), st.integers(0, 2**32 - 1))
def test_hostile_uploads_give_a_clear_message_and_no_traceback(tmp_path_factory, data: bytes, seed: int) -> None:
    import random

    blob = bytearray(data)
    rng = random.Random(seed)
    if len(blob) > 40 and rng.random() < 0.5:
        blob[rng.randrange(12, len(blob))] ^= rng.randrange(1, 256)
    at = page(tmp_path_factory.mktemp("l") / "ledger.sqlite3")
    at.file_uploader(key="upload").set_value(("upload.bin", bytes(blob), "application/octet-stream")).run()
    assert not at.exception
    shown = [e.value for e in at.error] + [w.value for w in at.warning]
    assert shown and all("Traceback" not in s for s in shown)


def test_a_damaged_model_is_an_error_panel_and_entry_by_hand_still_works(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch):
    models = tmp_path / "models"
    models.mkdir()
    (models / "detector.onnx").write_bytes(b"not a model")
    (models / "classifier.onnx").write_bytes(b"")
    monkeypatch.setenv("MAHJONG_MODELS_DIR", str(models))
    monkeypatch.setenv("MAHJONG_LEDGER", str(tmp_path / "ledger.sqlite3"))
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    assert not at.exception
    at.file_uploader(key="upload").set_value(("hand.png", encoded("PNG"), "image/png")).run()
    assert not at.exception and any("detector.onnx is damaged" in e.value for e in at.error)
    score_by_hand(at)
    assert "Valid win" in at.success[0].value
