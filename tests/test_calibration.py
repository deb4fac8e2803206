"""Calibrated tile confidence: the fitting on made-up data, and the shipped calibration on held-out real photos."""

from __future__ import annotations

import numpy as np
import pytest

from evaluation.calibration import (
    expected_calibration_error,
    fit_sureness,
    fit_temperature,
    fitted,
    flag_rates,
    flag_threshold,
    report,
    valid_tiles,
)
from tests.helpers import SHARED
from vision.calibration import Calibration, scale
from vision.models import MODELS_DIR
from vision.reader import TileReader

VALID = SHARED / "data" / "chinese-mahjong-rf" / "valid"


def overconfident(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Probabilities of a model that is right 80 % of the time but always says about 0.99."""
    truth = rng.integers(0, 5, n)
    shown = np.where(rng.random(n) < 0.8, truth, (truth + rng.integers(1, 5, n)) % 5)
    probs = np.full((n, 5), 0.0025, np.float32)
    probs[np.arange(n), shown] = 0.99
    return probs, truth


def test_temperature_softens_an_overconfident_model_until_its_confidence_is_its_accuracy() -> None:
    probs, truth = overconfident(4000, np.random.default_rng(0))
    assert expected_calibration_error(probs.max(1), probs.argmax(1) == truth) > 0.15
    t = fit_temperature(probs, truth)
    assert t > 1.5
    scaled = scale(probs, t)
    assert (scaled.argmax(1) == probs.argmax(1)).all()  # scaling never changes the reading
    assert expected_calibration_error(scaled.max(1), scaled.argmax(1) == truth) < 0.02


def test_a_class_the_rules_ruled_out_stays_out_after_scaling() -> None:
    probs = np.array([[0.6, 0.4, 0.0]], np.float32)
    assert scale(probs, 3.0)[0, 2] == 0.0
    assert scale(probs, 3.0).sum() == pytest.approx(1.0)


@pytest.mark.parametrize("seed", range(5))
def test_the_flag_threshold_flags_at_most_one_right_tile_in_twenty(seed: int) -> None:
    rng = np.random.default_rng(seed)
    conf = rng.random(500).astype(np.float32)
    correct = rng.random(500) < conf  # surer tiles are more often right
    below = flag_threshold(conf, correct)
    rates = flag_rates(conf, correct, below)
    assert rates["right_flagged"] <= 0.05
    assert rates["wrong_caught"] > rates["right_flagged"]


def finder_doubts(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Tiles whose face looks sure either way, but a wrong one sits in a box the finder doubts (half a tile)."""
    right = rng.random(n) < 0.9
    face = np.where(right, rng.uniform(0.9, 1.0, n), rng.uniform(0.85, 1.0, n))
    finder = np.where(right, rng.uniform(0.6, 0.95, n), rng.uniform(0.2, 0.7, n))
    return face, finder, right


def test_the_sureness_leans_on_the_finder_where_the_face_alone_cannot_tell() -> None:
    face, finder, right = finder_doubts(4000, np.random.default_rng(0))
    a, b, _ = fit_sureness(face, finder, right)
    assert a > 0 and b > 0  # both a surer face and a surer box make a right reading likelier
    cal = Calibration(1.0, 0.5, a, b, _)
    sure = cal.sureness(face, finder)
    assert expected_calibration_error(sure, right) < 0.03  # the fitted sureness means what it says
    held_face, held_finder, held_right = finder_doubts(4000, np.random.default_rng(1))
    face_alone = flag_rates(held_face, held_right, flag_threshold(face, right))
    both = flag_rates(cal.sureness(held_face, held_finder), held_right, flag_threshold(sure, right))
    assert both["right_flagged"] <= 0.06 and face_alone["right_flagged"] <= 0.06
    assert both["wrong_caught"] > face_alone["wrong_caught"] + 0.2


def test_without_a_finder_score_the_sureness_is_the_face_probability() -> None:
    probs, truth = overconfident(2000, np.random.default_rng(2))
    cal = fitted(probs, truth, np.full(len(truth), 0.5, np.float32))
    assert (cal.face, cal.finder, cal.bias) == (1.0, 0.0, 0.0)
    face = cal.apply(probs).max(1)
    assert np.allclose(cal.sureness(face, np.full(len(face), 0.3)), face, atol=1e-5)
    assert (cal.doubtful(face, np.full(len(face), 0.3)) == (face < cal.flag_below)).all()


@pytest.mark.skipif(not VALID.exists(), reason=f"{VALID} not found (set MAHJONG_SHARED)")
def test_shipped_calibration_holds_on_photos_it_was_not_fitted_on() -> None:
    """The odd-numbered `valid` photos were never used to fit: there the shipped probabilities and the sureness
    mean what they say (ECE under 3 %), where the raw ones did not, and the doubt flag catches most wrong tiles
    while flagging few right ones."""
    cal = Calibration.load(MODELS_DIR)
    assert (MODELS_DIR / "calibration.json").exists() and cal.temperature != 1.0 and cal.finder > 0
    probs, truth, finder, _ = valid_tiles(TileReader(calibration=Calibration()), VALID / "images",
                                          VALID / "labels", 1, 70)
    assert len(truth) > 500
    held = report(probs, truth, finder, cal)
    assert held["ece"] <= 0.03 and held["sureness_ece"] <= 0.03
    assert held["ece"] < held["ece_raw"]
    flags = held["flags"]
    assert isinstance(flags, dict)
    assert flags["right_flagged"] <= 0.08  # fitted at 5 % on the other half
    assert flags["wrong_caught"] >= 0.75
