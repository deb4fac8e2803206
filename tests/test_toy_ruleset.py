"""A fourth ruleset defined inside the tests (tests/toy_ruleset.py) runs through the divider, the reader's
rule-aware correction (on hand-made detections and a real photo), the page (AppTest) and the ledger, with no
change outside its own file; and no code outside scoring/rulesets compares a ruleset's name."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from ledger import Ledger
from scoring import RULESETS, register, score_case
from tests.helpers import SHARED
from tests.test_vision_units import dets, row
from tests.toy_ruleset import FlatWin, toy_case
from vision.classes import CLASS_INDEX
from vision.correction import correct, restrict
from vision.layout import analyse, to_hand
from vision.models import MODELS_DIR
from vision.photo import load_photo
from vision.pipeline import read_image
from vision.reader import TileReader

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app.py")


@pytest.fixture
def toy() -> Iterator[FlatWin]:
    rules = FlatWin()
    register(rules)
    yield rules
    del RULESETS[rules.name]


def test_the_toy_scores_through_the_engine(toy: FlatWin) -> None:
    r = score_case(toy_case())
    assert r["valid"] is True and r["settlement"] == {"mode": "single", "payer": 3, "amount": 10}
    assert r["net"] == [10, 0, 0, -10] and r["elements"][0]["reason_zh"]
    r = score_case({**toy_case(), "options": {"flat": 25}})
    assert r["settlement"]["amount"] == 25
    bad = toy_case()
    bad["hand"]["flowers"] = ["f1"]
    assert "has no flowers" in score_case(bad)["message"]
    assert score_case(toy_case(win_type="rob_kong"))["error"] == "invalid_input"  # not among its win types
    nowin = toy_case()
    nowin["hand"]["winning_tile"] = "S"
    assert score_case(nowin)["error"] == "not_a_winning_hand"


def test_the_reader_forms_a_chow_from_any_seat_only_under_the_toy(toy: FlatWin) -> None:
    b1, c1 = row(["4p", "5p", "6p", "7s", "8s", "9s", "E", "E", "E", "N"], 0)
    b2, c2 = row(["N"], 460)
    b3, c3 = row(["1m", "2m", "3m"], 560, sideways={1})  # the middle tile sideways: fed from opposite
    det = dets(b1 + b2 + b3, c1 + c2 + c3)
    lay = analyse(det, toy)
    meld = next(g for g in lay.groups if g.kind == "meld")
    assert meld.meld_type == "chow" and meld.feeder == "opposite"
    hand = to_hand(det, lay, winner=0)
    assert hand is not None and hand["melds"] == [{"type": "chow", "tiles": ["1m", "2m", "3m"], "from": 2}]
    case = toy_case()
    case["hand"] = hand
    assert score_case(case)["valid"] is True
    under_nanning = analyse(det, RULESETS["nanning"])  # the run is still read as it is, with a warning
    assert any("nanning has no chow" in w for w in under_nanning.warnings)


def test_the_rule_aware_correction_uses_the_toys_tiles(toy: FlatWin) -> None:
    b1, c1 = row(["4p", "5p", "6p", "7s", "8s", "9s", "E", "E", "E", "N"], 0)
    b2, c2 = row(["N"], 460)
    b3, c3 = row(["1m", "2m", "3m"], 560, sideways={1})  # a chow fed from opposite: only the toy has it
    det = dets(b1 + b2 + b3, c1 + c2 + c3, conf=0.6)
    det.probs[3] *= 0  # 7s read as 9s at first: the toy's completeness test makes it a win again
    det.probs[3, CLASS_INDEX["9s"]] = 0.55
    det.probs[3, CLASS_INDEX["7s"]] = 0.40
    assert restrict(det, toy) == [] and det.codes[3] == "9s"
    lay = analyse(det, toy)
    codes, changes, warnings = correct(det, lay, toy, winning=True)
    assert codes[3] == "7s" and changes and not warnings


@pytest.mark.skipif(not (MODELS_DIR / "detector.onnx").exists(), reason="shipped models not built")
def test_the_reader_reads_a_real_photo_under_the_toy(toy: FlatWin) -> None:
    images = SHARED / "data" / "chinese-mahjong-rf" / "valid" / "images"
    if not images.exists():
        pytest.skip(f"{images} not found (set MAHJONG_SHARED)")
    path = next(images.glob("IMG_20231106_111921_jpg*"))
    reading = read_image(load_photo(path), TileReader(threads=2), toy, winning=True, winner=0)
    assert len(reading.codes) >= 10
    assert not any(c.startswith("f") for c in reading.codes)  # the toy has no flowers: none is read
    assert reading.layout.groups and reading.to_json()["tiles"]


def test_the_page_and_the_ledger_run_the_toy(toy: FlatWin, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MAHJONG_LEDGER", str(tmp_path / "ledger.sqlite3"))
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.selectbox(key="ruleset").set_value(toy.name).run()
    assert not at.exception
    assert list(at.radio(key="win_type").options) == ["Self-draw", "On a discard"]
    assert not [c for c in at.checkbox if c.key in ("last_tile", "after_kong")]  # fields the toy never asks
    at.text_input(key="concealed_txt").input("456p 789s EEE N").run()
    at.text_input(key="winning_txt").input("N").run()
    at.number_input(key="meld_count").set_value(1).run()
    at.selectbox(key="meld0_type").set_value("chow").run()
    at.text_input(key="meld0_tiles").input("123m").run()
    at.selectbox(key="meld0_from").set_value("opposite").run()
    assert "Valid win" in at.success[0].value
    at.button(key="record").click().run()
    assert not at.exception
    assert "Recorded as hand #1" in at.success[0].value
    hands = Ledger(tmp_path / "ledger.sqlite3").hands()
    assert len(hands) == 1 and hands[0].ruleset == toy.name and hands[0].result["net"][0] == 30
    assert Ledger(tmp_path / "ledger.sqlite3").dealer() == 0  # the toy's winner deals next


NAMES = r"""["'](nanning|nanning-fan|nanjing)["']"""
COMPARED = re.compile(rf"""(==|!=|\bin\s*[(\[{{]?[^#]*?){NAMES}|{NAMES}\s*(==|!=|\bin\b)""")


def test_no_code_outside_the_rulesets_compares_a_ruleset_name() -> None:
    """Consumers ask the ruleset object; only scoring/rulesets (and the tests) may test a ruleset's name."""
    offenders = []
    for path in ROOT.rglob("*.py"):
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith(("scoring/rulesets/", "tests/", "build/", ".")) or "/." in rel:
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if COMPARED.search(line):
                offenders.append(f"{rel}:{n}: {line.strip()}")
    assert not offenders, "\n".join(offenders)
