"""Synthetic tile faces for the classifier's training (fonts, drawn suits, Debian's mahjongg tile sets): every
face but the back, as 64-px crops the classifier reads the way it reads a real crop."""

from __future__ import annotations

import numpy as np
import pytest

from training.faces import SYNTH_CODES, font_faces, synth_faces
from vision.classes import CLASS_INDEX
from vision.crops import CROP_SIZE


@pytest.mark.skipif(not font_faces(), reason="no CJK font installed (fonts-wqy-zenhei)")
def test_synthetic_faces_cover_every_face_as_classifier_crops() -> None:
    xs, ys = synth_faces(2 * len(SYNTH_CODES), seed=0)
    assert xs.shape == (2 * len(SYNTH_CODES), CROP_SIZE, CROP_SIZE, 3) and xs.dtype == np.uint8
    assert sorted(set(ys.tolist())) == sorted(CLASS_INDEX[c] for c in SYNTH_CODES)
    assert CLASS_INDEX["back"] not in ys
    # a tile on a table: the face is brighter than the table around it, and no two crops are alike
    centre = xs[:, 16:48, 16:48].mean(axis=(1, 2, 3))
    assert (centre > 100).mean() > 0.9
    assert len({x.tobytes() for x in xs}) == len(xs)
    again, _ = synth_faces(2 * len(SYNTH_CODES), seed=0)
    assert np.array_equal(xs, again)  # deterministic for a seed
