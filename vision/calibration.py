"""Calibrated tile confidence: temperature scaling of the reader's face probabilities, and the doubt flag.

`python -m evaluation.calibration --fit` reads the shared `valid` photos, fits on the even-numbered photos (sorted
by name) and writes ``models/calibration.json``: one temperature for the face probabilities, then the
*sureness* (the chance a tile is read right, a logistic fit on its calibrated face probability and the finder's
score for its box) and the doubt threshold on it. The odd-numbered photos are never used to fit and give the
reported figures (expected calibration error, and the flag rates of the doubt threshold).
`python -m evaluation.calibration` only reports, with the shipped file. A shown probability of 0.9 then means
that about 9 tiles in 10 shown so are right, and the page flags a tile only when it is a real doubt.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from .models import MODELS_DIR

CALIBRATION_FILE = "calibration.json"
FINDER_SCORE_BOUND = 0.01
FLAG_RIGHT_AT_MOST = 0.05  # the doubt threshold flags at most this share of the tiles read right (on the fit half)


@dataclass(frozen=True)
class Calibration:
    """How the reader's probabilities are made to mean what they say, and when a tile is a doubt."""

    temperature: float = 1.0
    flag_below: float = 0.5  # a tile whose sureness is under this is flagged
    # sureness = sigmoid(face * logit(face probability) + finder * logit(finder score) + bias); the defaults make
    # it the face probability itself
    face: float = 1.0
    finder: float = 0.0
    bias: float = 0.0

    @classmethod
    def load(cls, models_dir: str | Path) -> Calibration:
        """The calibration shipped beside the models; none (temperature 1) when the file is absent."""
        path = Path(models_dir) / CALIBRATION_FILE
        if not path.exists():
            return cls()
        data = json.loads(path.read_text())
        sure = data.get("sureness", {})
        return cls(float(data["temperature"]), float(data["flag_below"]), float(sure.get("face", 1.0)),
                   float(sure.get("finder", 0.0)), float(sure.get("bias", 0.0)))

    def apply(self, probs: np.ndarray) -> np.ndarray:
        """Temperature-scaled probabilities (rows renormalised): p ** (1 / T)."""
        return scale(probs, self.temperature)

    def sureness(self, face: np.ndarray, finder: np.ndarray) -> np.ndarray:
        """The chance each tile is read right, from the calibrated probability of its shown face and the finder's
        score for its box: a box the finder doubts (half a tile, a tile under glare, a tile in a blur) is a doubt
        even when its crop looks like one face. The finder's score counts within 0.01-0.99 (real boxes score
        0.3-0.95), so no box, whatever its score, makes a face under about 0.8 sure."""
        return sigmoid(self.face * logit(face) + self.finder * finder_logit(finder) + self.bias)

    def doubtful(self, face: np.ndarray, finder: np.ndarray) -> np.ndarray:
        """Which tiles the page flags for the player to check (sureness under the threshold)."""
        return self.sureness(np.asarray(face, np.float64), np.asarray(finder, np.float64)) < self.flag_below


@lru_cache(maxsize=1)
def shipped_calibration() -> Calibration:
    """The calibration shipped with the models (its temperature and its doubt flag)."""
    return Calibration.load(MODELS_DIR)


def logit(p: np.ndarray) -> np.ndarray:
    """log(p / (1 - p)), bounded for p of 0 or 1."""
    p = np.clip(np.asarray(p, np.float64), 1e-6, 1 - 1e-6)
    return np.log(p / (1 - p))


def finder_logit(score: np.ndarray) -> np.ndarray:
    """The logit of the finder's score for a box, bounded (a box set by hand or by a repair may say 1)."""
    return logit(np.clip(score, FINDER_SCORE_BOUND, 1 - FINDER_SCORE_BOUND))


def sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-z))


def scale(probs: np.ndarray, temperature: float) -> np.ndarray:
    """Probabilities p ** (1 / T), renormalised per row (T > 1 softens an over-confident model)."""
    if not len(probs) or temperature == 1.0:
        return probs
    logp = np.log(np.maximum(probs.astype(np.float64), 1e-12)) / temperature
    e = np.exp(logp - logp.max(1, keepdims=True))
    e *= probs > 0  # a class the rules ruled out stays out
    return (e / np.maximum(e.sum(1, keepdims=True), 1e-300)).astype(np.float32)
