"""Calibrated tile confidence: the fitting on made-up data, and the shipped calibration on held-out real photos."""

from __future__ import annotations

import numpy as np
import pytest

from vision.calibration import (
    Calibration,
    expected_calibration_error,
    fit_temperature,
    flag_rates,
    flag_threshold,
    report,
    scale,
    valid_tiles,
)
from vision.reader import MODELS_DIR, TileReader

from .helpers import SHARED

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


@pytest.mark.skipif(not VALID.exists(), reason=f"{VALID} not found (set MAHJONG_SHARED)")
def test_shipped_calibration_holds_on_photos_it_was_not_fitted_on() -> None:
    """The odd-numbered `valid` photos were never used to fit the temperature: there the shipped probabilities
    mean what they say (ECE under 3 %), where the raw ones did not."""
    cal = Calibration.load(MODELS_DIR)
    assert (MODELS_DIR / "calibration.json").exists() and cal.temperature != 1.0
    probs, truth, _ = valid_tiles(TileReader(calibration=Calibration()), VALID / "images", VALID / "labels", 1, 70)
    assert len(truth) > 500
    held = report(probs, truth, cal)
    assert held["ece"] <= 0.03
    assert held["ece"] < held["ece_raw"]
    assert held["flags"]["right_flagged"] <= 0.08  # fitted at 5 % on the other half
