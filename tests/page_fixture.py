"""The ``page`` fixture: a factory of Streamlit pages (``AppTest``) on one ledger, whose photos are "read" as
hand-made detections, so that each test knows exactly what the photo showed."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from ledger import Ledger
from vision.detections import Detections
from vision.geometry import PhotoFrame
from vision.pipeline import Photo, Seen

APP = str(Path(__file__).resolve().parents[1] / "app.py")


def opened(**query: str) -> AppTest:
    """The page opened at a URL with ``query`` (on $MAHJONG_LEDGER), run once, with no exception."""
    at = AppTest.from_file(APP, default_timeout=120)
    for k, v in query.items():
        at.query_params[k] = v
    at.run()
    assert not at.exception
    return at


@pytest.fixture
def page(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A page factory on one ledger; photos are 'read' as the detections given to ``shows``."""
    monkeypatch.setenv("MAHJONG_LEDGER", str(tmp_path / "ledger.sqlite3"))
    seen: dict[str, Detections] = {}

    def fake_see(photo: Photo, reader: object) -> Seen:  # stands in for vision.pipeline.see
        det = seen["det"].copy()
        return Seen(photo, det, PhotoFrame.of(photo.image.shape, photo.scale, det), {})

    monkeypatch.setattr("webapp.reading.see", fake_see)

    def make(det: Detections | None = None) -> AppTest:
        if det is not None:
            seen["det"] = det
        at = AppTest.from_file(APP, default_timeout=120)
        at.run()
        assert not at.exception
        return at

    make.shows = lambda det: seen.__setitem__("det", det)  # type: ignore[attr-defined]
    make.ledger = lambda: Ledger(tmp_path / "ledger.sqlite3")  # type: ignore[attr-defined]
    return make
