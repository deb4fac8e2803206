"""The Streamlit page through streamlit.testing: manual entry, photo upload, fixes, bad input, ledger."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from tests.helpers import SHARED
from vision.models import MODELS_DIR

APP = str(Path(__file__).resolve().parents[1] / "app.py")
VALID = SHARED / "data" / "chinese-mahjong-rf" / "valid" / "images"
HAS_MODEL = (MODELS_DIR / "detector.onnx").exists() and (MODELS_DIR / "classifier.onnx").exists()


@pytest.fixture
def app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AppTest:
    monkeypatch.setenv("MAHJONG_LEDGER", str(tmp_path / "ledger.sqlite3"))
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    assert not at.exception
    return at


def enter(at: AppTest, concealed: str, winning: str) -> None:
    at.text_input(key="concealed_txt").input(concealed)
    at.text_input(key="winning_txt").input(winning)
    at.run()


def test_manual_entry_scores_and_shows_who_pays(app: AppTest):
    enter(app, "123m 456s 23p 99m 789s", "4p")
    app.radio(key="win_type").set_value("discard").run()
    app.selectbox(key="discarder").set_value(3).run()
    assert not app.exception
    assert "Valid win" in app.success[0].value
    assert any("推倒胡" in str(v) for v in app.table[0].value.iloc[:, 0])
    lines = [m.value for m in app.markdown]
    assert any("North → East: 3" in v for v in lines)
    assert [m.value for m in app.metric][:4] == ["3", "0", "0", "-3"]


def test_manual_tile_picker_builds_the_hand(app: AppTest):
    for code in ["1m", "2m", "3m"]:
        app.selectbox(key="manual_tile").set_value(code).run()
        app.button(key="add_concealed").click().run()
    app.selectbox(key="manual_tile").set_value("9s").run()
    app.button(key="add_winning").click().run()
    assert app.text_input(key="concealed_txt").value == "123m"
    assert app.text_input(key="winning_txt").value == "9s"
    app.button(key="backspace").click().run()  # the winning tile goes first, then the hand's last tile
    app.button(key="backspace").click().run()
    assert app.text_input(key="concealed_txt").value == "12m" and app.text_input(key="winning_txt").value == ""


def test_record_persists_across_a_new_session(app: AppTest, tmp_path: Path):
    enter(app, "123m 456m 789m 234m 5m", "5m")
    app.button(key="record").click().run()
    assert any("#1" in c.value for c in app.success)
    fresh = AppTest.from_file(APP, default_timeout=120)  # a reload / second tab on the same ledger file
    fresh.run()
    assert [m.value for m in fresh.metric][:4] == ["24", "-8", "-8", "-8"]
    assert len(fresh.dataframe[0].value) == 1


def test_impossible_hand_is_a_friendly_message(app: AppTest):
    enter(app, "1111m 456s 23p 99m 78s", "1m")
    assert not app.exception
    assert "invalid" in app.error[0].value.lower() or "not possible" in app.error[0].value


def test_unreadable_tiles_text_is_a_friendly_warning(app: AppTest):
    enter(app, "123x", "4p")
    assert not app.exception and "cannot read" in app.error[0].value  # under the field it names
    fields = next(e for e in app.expander if e.label == "Edit the tiles as text")
    assert any("cannot read" in e.value for e in fields.error)


def test_non_image_upload_is_refused_clearly(app: AppTest):
    app.file_uploader(key="upload").set_value(("notes.txt", b"hello, not a photo", "text/plain")).run()
    assert not app.exception
    assert "not an image" in app.error[0].value


def test_a_truncated_jpeg_is_read_with_a_damage_warning(app: AppTest):
    from tests.image_files import encoded, picture

    data = encoded("JPEG", picture(640, 480))
    app.file_uploader(key="upload").set_value(("cut.jpg", data[: len(data) // 2], "image/jpeg")).run()
    assert not app.exception
    assert any("damaged" in w.value for w in app.warning) or any("damaged" in e.value for e in app.error)


def test_chinese_labels(app: AppTest):
    app.radio(key="lang").set_value("zh").run()
    assert "計分" in app.title[0].value


@pytest.mark.skipif(not HAS_MODEL, reason="models/detector.onnx and models/classifier.onnx not built")
@pytest.mark.skipif(not VALID.exists(), reason=f"{VALID} not found (set MAHJONG_SHARED)")
def test_upload_a_real_photo_and_fix_a_tile_with_the_picker(app: AppTest):
    photo = sorted(VALID.glob("hand_*.jpg"))[0]
    app.file_uploader(key="upload").set_value((photo.name, photo.read_bytes(), "image/jpeg")).run()
    assert not app.exception
    tb = app.session_state["tab"]
    # the photo and its own crops; the hand as read is the pills of tile pictures to tap
    assert len(tb.reading.codes) >= 5 and len(app.image) == 2
    assert len(app.pills(key="tap_tile").options) == len(tb.reading.codes)
    group = next(g for g in tb.reading.layout.groups if g.kind == "concealed" and g.tiles)
    tile = group.tiles[0]
    new = "E" if tb.reading.codes[tile] != "E" else "S"
    app.selectbox(key="pick_tile").set_value(tile).run()
    app.selectbox(key="pick_code").set_value(new).run()
    app.button(key="pick_ok").click().run()
    assert not app.exception
    assert app.session_state["tab"].editor.fixes[tile] == new
    assert new in app.text_input(key="concealed_txt").value


@pytest.mark.skipif(not HAS_MODEL, reason="models/detector.onnx and models/classifier.onnx not built")
@pytest.mark.skipif(not VALID.exists(), reason=f"{VALID} not found (set MAHJONG_SHARED)")
def test_photo_of_a_winning_hand_scores_and_a_fix_rescores(app: AppTest, tmp_path: Path):
    from tests.test_browser import composed_photo

    photo = tmp_path / "hand.jpg"
    composed_photo(photo)
    app.file_uploader(key="upload").set_value(("hand.jpg", photo.read_bytes(), "image/jpeg")).run()
    assert not app.exception
    assert "Valid win" in app.success[0].value  # read, corrected, grouped and scored with no typing
    app.radio(key="win_type").set_value("discard").run()
    app.selectbox(key="discarder").set_value(2).run()
    assert [m.value for m in app.metric][2] == str(-int(app.metric[0].value))
    # one wrong tile via the picker makes the hand invalid; undo makes it valid again
    tb = app.session_state["tab"]
    tile = tb.reading.layout.groups[0].tiles[0]
    before = tb.reading.codes[tile]
    app.selectbox(key="pick_tile").set_value(tile).run()
    app.selectbox(key="pick_code").set_value("P" if before != "P" else "N").run()
    app.button(key="pick_ok").click().run()
    assert app.error and "Not a valid win" in app.error[0].value
    assert app.selectbox(key="pick_tile").value == tile  # the picker stays on the tile just fixed
    app.button(key="undo_hand").click().run()
    assert "Valid win" in app.success[0].value
    app.button(key="redo_hand").click().run()
    assert "Not a valid win" in app.error[0].value


@pytest.mark.skipif(not HAS_MODEL, reason="models/detector.onnx and models/classifier.onnx not built")
@pytest.mark.skipif(not VALID.exists(), reason=f"{VALID} not found (set MAHJONG_SHARED)")
def test_the_photo_numbers_each_tile_as_the_tap_list_does(app: AppTest, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch):
    """Tile #3 on the photo is the #3 the player taps (the reading's order, not the finder's), and the boxes drawn
    red are the tiles the tap list marks "?"."""
    import webapp.reading as page_reading
    from tests.test_browser import composed_photo

    photo = tmp_path / "hand.jpg"
    composed_photo(photo)
    app.file_uploader(key="upload").set_value(("hand.jpg", photo.read_bytes(), "image/jpeg")).run()
    assert not app.exception
    tb = app.session_state["tab"]
    order = page_reading.tile_order(tb.reading)
    assert order != sorted(order)  # the finder's order is not the page's: the numbers must be mapped
    drawn: list[list[dict]] = []
    real = page_reading.annotate
    monkeypatch.setattr(page_reading, "annotate",
                        lambda img, tiles, **kw: drawn.append(tiles) or real(img, tiles, **kw))
    shown = page_reading.numbered_photo(tb.photo, tb.reading, {order[0]})
    tiles = drawn[0]
    assert [tiles[i]["number"] for i in order] == list(range(1, len(order) + 1))
    assert [i for i, t in enumerate(tiles) if t["doubt"]] == [order[0]]
    assert shown.shape == tb.photo.clean.shape  # drawn on the photo as read, at the page's size


@pytest.mark.skipif(not HAS_MODEL, reason="models/detector.onnx and models/classifier.onnx not built")
@pytest.mark.skipif(not VALID.exists(), reason=f"{VALID} not found (set MAHJONG_SHARED)")
def test_a_12_megapixel_phone_photo_is_read_and_drawn_in_its_own_pixels(app: AppTest, tmp_path: Path):
    """Decoded at half scale for speed, but boxes are reported in the photo's pixels and drawn where the tiles are."""
    from tests.test_browser import composed_photo
    from webapp.draw import annotate

    photo = tmp_path / "phone.jpg"
    composed_photo(photo, (4032, 3024))
    app.file_uploader(key="upload").set_value(("phone.jpg", photo.read_bytes(), "image/jpeg")).run()
    assert not app.exception
    assert "Valid win" in app.success[0].value
    reading = app.session_state["tab"].reading.to_json()
    assert (reading["width"], reading["height"]) == (4032, 3024)
    box = reading["tiles"][0]["box"]
    blank = np.zeros((1512, 2016, 3), np.uint8)  # the half-scale image the page draws on
    drawn = annotate(blank, reading["tiles"][:1], max_side=2016, box_scale=2.0)
    ys, xs = np.nonzero(drawn.any(2))
    assert abs(xs.min() - box[0] / 2) <= 3 and abs(ys.max() - box[3] / 2) <= 3
    # the evidence kept with it: at most 100 KB, its boxes on the tiles of its own small picture
    import cv2

    from webapp.evidence import of_tab

    ev = of_tab(app.session_state["tab"])
    assert ev.photo is not None and len(ev.photo) <= 100_000
    small = cv2.imdecode(np.frombuffer(ev.photo, np.uint8), cv2.IMREAD_COLOR)
    k = small.shape[1] / 4032
    assert np.allclose(ev.reading["boxes_in_photo"][0], np.array(box) * k, atol=1.0)


@pytest.mark.skipif(not HAS_MODEL, reason="models/detector.onnx and models/classifier.onnx not built")
@pytest.mark.skipif(not VALID.exists(), reason=f"{VALID} not found (set MAHJONG_SHARED)")
def test_a_photo_taken_askew_is_shown_levelled_and_scored(app: AppTest, tmp_path: Path):
    """A phone held 30 degrees askew: the page reads the photo levelled, says so in the user's language, shows the
    levelled photo its boxes lie in, and scores the hand."""
    import cv2

    from evaluation.conditions import rotate
    from tests.test_browser import composed_photo
    from vision.geometry import read_shape

    photo = tmp_path / "askew.jpg"
    composed_photo(photo)
    askew, _ = rotate(30)(cv2.imread(str(photo)), np.float32([[0, 0, 1, 1]]), np.random.default_rng(0))
    cv2.imwrite(str(photo), askew)
    app.file_uploader(key="upload").set_value(("askew.jpg", photo.read_bytes(), "image/jpeg")).run()
    assert not app.exception
    assert "Valid win" in app.success[0].value
    seen = app.session_state["tab"].photo
    assert abs(seen.det.levelled + 30) <= 3
    assert (seen.height, seen.width) == read_shape(askew.shape, seen.det)
    reading = app.session_state["tab"].reading.to_json()  # what the JSON says of the frame its boxes lie in
    assert reading["levelled"] == round(seen.det.levelled, 1) and reading["turned"] == 0
    said = f"{abs(seen.det.levelled):.0f}"  # (the rows' slant as measured: 30 degrees, give or take a few)
    assert any(f"read turned {said} degrees clockwise" in w.value for w in app.warning)
    # the photo shown is the levelled one's part around the tiles (its grey corners show nothing), every box in it
    from webapp.reading import numbered_photo

    tb = app.session_state["tab"]
    shown = numbered_photo(seen, tb.reading, set())
    assert shown.shape[0] * shown.shape[1] < 0.7 * seen.clean.shape[0] * seen.clean.shape[1]
    boxes = tb.reading.det.xyxy * (seen.clean.shape[1] / seen.width)
    assert boxes[:, 2].max() - boxes[:, 0].min() < shown.shape[1]
    assert boxes[:, 3].max() - boxes[:, 1].min() < shown.shape[0]
    app.radio(key="lang").set_value("zh").run()
    assert any(f"順時針轉了 {said} 度" in w.value for w in app.warning)


@pytest.mark.skipif(not HAS_MODEL, reason="models/detector.onnx and models/classifier.onnx not built")
@pytest.mark.skipif(not VALID.exists(), reason=f"{VALID} not found (set MAHJONG_SHARED)")
def test_the_pages_models_are_loaded_once_per_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every phone at the table shares one reader per server process: loaded (and warmed) on the first view, not
    again for another phone's session, a rerun or a photo."""
    import webapp.reading as reading
    from tests.test_browser import composed_photo

    made: list[int] = []

    class Counted(reading.TileReader):  # type: ignore[name-defined,misc]
        def __init__(self, *args: object, **kwargs: object) -> None:
            made.append(1)
            super().__init__(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(reading, "TileReader", Counted)
    monkeypatch.setenv("MAHJONG_LEDGER", str(tmp_path / "ledger.sqlite3"))
    reading.load_reader.clear()
    try:
        photo = tmp_path / "hand.jpg"
        composed_photo(photo)
        for _ in range(2):  # two phones: two sessions of the page
            at = AppTest.from_file(APP, default_timeout=120)
            at.run()
            at.file_uploader(key="upload").set_value(("hand.jpg", photo.read_bytes(), "image/jpeg")).run()
            assert not at.exception and "Valid win" in at.success[0].value
        assert made == [1]
    finally:
        reading.load_reader.clear()  # the next test's page loads the real reader again
