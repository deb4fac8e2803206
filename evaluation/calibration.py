"""Fitting the reader's calibration (``vision.calibration``): temperature scaling of the face probabilities, the
sureness fit and the doubt threshold.

`python -m evaluation.calibration --fit` reads the shared `valid` photos, fits on the even-numbered photos (sorted
by name) and writes ``models/calibration.json``: one temperature for the face probabilities, then the
*sureness* (the chance a tile is read right, a logistic fit on its calibrated face probability and the finder's
score for its box) and the doubt threshold on it. The odd-numbered photos are never used to fit and give the
reported figures (expected calibration error, and the flag rates of the doubt threshold).
`python -m evaluation.calibration` only reports, with the shipped file.
"""

from __future__ import annotations

import argparse
import json
import math
from dataclasses import asdict, replace
from pathlib import Path

import numpy as np

from evaluation.photos import WIDEST, match, photo_files
from training.data import rf_dir
from training.labels import RF_CODES, fix_labels, read_yolo
from vision.calibration import (
    CALIBRATION_FILE,
    FLAG_RIGHT_AT_MOST,
    Calibration,
    finder_logit,
    logit,
    scale,
    sigmoid,
)
from vision.classes import CLASS_INDEX
from vision.correction import restrict
from vision.detections import squashed
from vision.geometry import photo_boxes
from vision.models import MODELS_DIR
from vision.photo import load_photo
from vision.reader import TileReader


def fit_sureness(face: np.ndarray, finder: np.ndarray, right: np.ndarray, l2: float = 1e-2
                 ) -> tuple[float, float, float]:
    """Logistic regression of "read right" on the logits of the face probability and of the finder's score
    (Newton steps, a light ridge so a set with no wrong tile stays finite): the weights face, finder, bias."""
    x = np.stack([logit(face), finder_logit(finder), np.ones(len(face))], 1)
    y = np.asarray(right, np.float64)
    w = np.array([1.0, 0.0, 0.0])
    for _ in range(50):
        q = sigmoid(x @ w)
        step = np.linalg.solve((x * (q * (1 - q))[:, None]).T @ x + l2 * np.eye(3), x.T @ (q - y) + l2 * w)
        w -= step
        if np.abs(step).max() < 1e-9:
            break
    return round(float(w[0]), 4), round(float(w[1]), 4), round(float(w[2]), 4)


def nll(probs: np.ndarray, truth: np.ndarray, temperature: float) -> float:
    """Mean negative log-likelihood of the true classes after temperature scaling."""
    p = scale(probs, temperature)[np.arange(len(truth)), truth]
    return float(-np.log(np.maximum(p, 1e-12)).mean())


def fit_temperature(probs: np.ndarray, truth: np.ndarray) -> float:
    """The temperature of least negative log-likelihood (a golden-section search over log T in [-2, 2.5])."""
    lo, hi = -2.0, 2.5
    g = (math.sqrt(5) - 1) / 2
    a, b = hi - g * (hi - lo), lo + g * (hi - lo)
    fa, fb = nll(probs, truth, math.exp(a)), nll(probs, truth, math.exp(b))
    for _ in range(40):
        if fa < fb:
            hi, b, fb = b, a, fa
            a = hi - g * (hi - lo)
            fa = nll(probs, truth, math.exp(a))
        else:
            lo, a, fa = a, b, fb
            b = lo + g * (hi - lo)
            fb = nll(probs, truth, math.exp(b))
    return round(math.exp((lo + hi) / 2), 4)


def expected_calibration_error(confidence: np.ndarray, correct: np.ndarray, bins: int = 15) -> float:
    """ECE: the mean gap between confidence and accuracy over equal-width confidence bins, weighted by size."""
    if not len(confidence):
        return 0.0
    edges = np.linspace(0, 1, bins + 1)
    which = np.clip(np.digitize(confidence, edges[1:-1]), 0, bins - 1)
    total = 0.0
    for b in range(bins):
        sel = which == b
        if sel.any():
            total += sel.sum() * abs(float(confidence[sel].mean()) - float(correct[sel].mean()))
    return float(total / len(confidence))


def flag_threshold(confidence: np.ndarray, correct: np.ndarray, right_at_most: float = FLAG_RIGHT_AT_MOST) -> float:
    """The highest threshold that flags (confidence below it) at most ``right_at_most`` of the right tiles."""
    right = np.sort(confidence[correct])
    if not len(right):
        return 0.5
    k = int(math.floor(right_at_most * len(right)))  # at most k right tiles may lie below the threshold
    return math.floor(float(right[k]) * 1e4) / 1e4 if k < len(right) else 1.0


def flag_rates(confidence: np.ndarray, correct: np.ndarray, below: float) -> dict[str, float]:
    """Share of right tiles flagged and of wrong tiles caught at a threshold."""
    flagged = confidence < below
    return {"right_flagged": round(float(flagged[correct].mean()) if correct.any() else 0.0, 4),
            "wrong_caught": round(float(flagged[~correct].mean()) if (~correct).any() else 1.0, 4),
            "right_tiles": int(correct.sum()), "wrong_tiles": int((~correct).sum())}


def valid_tiles(reader: object, images: Path, labels: Path, half: int, limit: int | None = None
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every labelled `valid` tile the reader found, in one half of the photos (0: even, 1: odd, sorted by name):
    its probabilities (every face of some ruleset), the true class, the finder's score for its box, and whether
    its photo is one the dataset's export squashed (no phone makes those). The mislabelled photos are left out
    and the fixed labels used, as in `evaluation.photos`."""
    files = photo_files(images)[half::2][:limit]
    probs, truth, finder, squash = [], [], [], []
    for p in files:
        img = load_photo(p)
        gt, codes = read_yolo(labels / (p.stem + ".txt"), img.shape[1], img.shape[0], RF_CODES)
        fix_labels(p.name, codes)
        det = reader.read(img)  # type: ignore[attr-defined]
        restrict(det, WIDEST)
        for i, j in match(gt, photo_boxes(det, img.shape)):
            probs.append(det.probs[j])
            truth.append(CLASS_INDEX[codes[i]])
            finder.append(det.confidence[j])
            squash.append(squashed(gt))
    n = len(CLASS_INDEX)
    return (np.array(probs, np.float32).reshape(-1, n), np.array(truth, int), np.array(finder, np.float32),
            np.array(squash, bool))


def report(probs: np.ndarray, truth: np.ndarray, finder: np.ndarray, cal: Calibration) -> dict[str, object]:
    """ECE before and after scaling, top-1 / top-3 accuracy, the sureness's ECE and the doubt flag's rates (and
    those of the face probability alone at its own threshold), for one set of tiles."""
    scaled = cal.apply(probs)
    correct = scaled.argmax(1) == truth
    top3 = (np.argsort(-scaled, 1)[:, :3] == truth[:, None]).any(1)
    sure = cal.sureness(scaled.max(1), finder)
    return {"tiles": len(truth), "top1": round(float(correct.mean()), 4), "top3": round(float(top3.mean()), 4),
            "ece_raw": round(expected_calibration_error(probs.max(1), probs.argmax(1) == truth), 4),
            "ece": round(expected_calibration_error(scaled.max(1), correct), 4),
            "sureness_ece": round(expected_calibration_error(sure, correct), 4),
            "flags": flag_rates(sure, correct, cal.flag_below)}


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m evaluation.calibration", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fit", action="store_true", help=f"fit on the even photos and write models/{CALIBRATION_FILE}")
    ap.add_argument("--models", type=Path, default=MODELS_DIR)
    ap.add_argument("--limit", type=int, default=None, help="photos per half (for a quick look)")
    args = ap.parse_args()
    valid = rf_dir() / "valid"
    raw = TileReader(args.models, calibration=Calibration())  # the model's own probabilities
    fit = valid_tiles(raw, valid / "images", valid / "labels", 0, args.limit)
    held_p, held_t, held_f, held_sq = held = valid_tiles(raw, valid / "images", valid / "labels", 1, args.limit)
    if args.fit:
        cal = fitted(*fit[:3])
        (args.models / CALIBRATION_FILE).write_text(json.dumps(
            {"temperature": cal.temperature, "flag_below": cal.flag_below,
             "sureness": {"face": cal.face, "finder": cal.finder, "bias": cal.bias},
             "fitted_on": "shared valid photos, even positions by name",
             "command": "python -m evaluation.calibration --fit"}, indent=1) + "\n")
    else:
        cal = Calibration.load(args.models)
    face_only = fitted(*fit[:2], np.full(len(fit[1]), 0.5, np.float32))
    print(json.dumps({"calibration": asdict(cal),
                      "fit_half": report(*fit[:3], cal), "held_out_half": report(*held[:3], cal),
                      "held_out_half_without_squashed_photos": report(held_p[~held_sq], held_t[~held_sq],
                                                                      held_f[~held_sq], cal),
                      "held_out_half_face_probability_alone": report(*held[:2], held_f, face_only),
                      "swapped": swapped(fit[:3], held[:3])}, indent=1))


def fitted(probs: np.ndarray, truth: np.ndarray, finder: np.ndarray) -> Calibration:
    """The temperature, sureness and doubt threshold fitted on one set of tiles (a finder score that never
    varies, such as 0.5 for all, fits the face probability alone)."""
    t = fit_temperature(probs, truth)
    scaled = scale(probs, t)
    right = scaled.argmax(1) == truth
    face, by_finder, bias = fit_sureness(scaled.max(1), finder, right) if finder.std() > 0 else (1.0, 0.0, 0.0)
    cal = Calibration(t, 0.5, face, by_finder, bias)
    return replace(cal, flag_below=flag_threshold(cal.sureness(scaled.max(1), finder), right))


def swapped(fit: tuple[np.ndarray, ...], held: tuple[np.ndarray, ...]) -> dict[str, object]:
    """The same method fitted on the other half and read on the fit half: one split's luck shows as a gap."""
    cal = fitted(*held)
    return {"calibration": asdict(cal), "read_on_fit_half": report(*fit, cal)}


if __name__ == "__main__":
    main()
