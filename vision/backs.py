"""A face-down tile told by its colour: a crop with no ivory on it is a back, whatever face the classifier guessed.

Why: the classifier learnt backs only from rendered ones (the shared photos hold none), and on a tile design it
never saw, in dim or tungsten light or under glare, it reads a concealed kong's plain back as the blank white
dragon, a flower or any face (held out, seed 0: 12 of 236 backs, in 9 hands). Every face shows its ivory
somewhere between its ink; a back shows its own colour all over. So where the brightest tenth of a crop's face
(its middle, past the near side a pitched tile shows) is much darker than the faces' ivory and of another
colour, the reading goes to the back. Measured on the held-out hands of seed 0 (6,730 faces, 236 backs) and the
shared `valid` photos (6,561 faces), with ``BACK_LIGHT`` 0.8 and ``BACK_CHROMA`` 15: 92 % of the backs pass, every
back misread is among them, and no face does (faces: lightness 0.88 of the ivory or more for 99 %, colour within
12 of it for 99 %).
"""

from __future__ import annotations

import numpy as np

from .classes import BACK
from .crops import brightest, face_lab

BACK_LIGHT = 0.8  # a back's brightest tenth: at most this share of the faces' ivory's lightness
BACK_CHROMA = 15.0  # and at least this far from the ivory's colour (Lab a, b; 8-bit scale)
SURE_BACK = 0.9  # the finder's "face down" score of a back the "not a tile" class may not veto, at least
BACK_NOT_TILE = 0.7  # the most "not a tile" at which such a back stays (as ``classify.BLANK_NOT_TILE``)
BACK_MIX = 0.9  # the share of a back-coloured crop's face readings that goes to the back
LEAST_FACES = 3  # faces that measure the photo's ivory, at least
MIDDLE = (0.1, 0.7, 0.12, 0.88)  # the face's part measured: top, bottom, left, right (shares of the face)


def back_coloured(crops: list[np.ndarray], faces: np.ndarray) -> np.ndarray:
    """Which crops show no ivory: their middle's brightest tenth at most ``BACK_LIGHT`` of the ivory's lightness
    and ``BACK_CHROMA`` from its colour, the ivory being the median over the crops ``faces`` (read face up) of
    each face's brightest fifth. All False where fewer than ``LEAST_FACES`` faces measure it."""
    out = np.zeros(len(crops), bool)
    if len(faces) < LEAST_FACES:
        return out
    labs = [face_lab(c) for c in crops]
    ivory = np.median([brightest(labs[i]) for i in faces], axis=0)
    if ivory[0] < 1:
        return out
    top, bottom, left, right = MIDDLE
    for i, lab in enumerate(labs):
        h, w = lab.shape[:2]
        mid = lab[int(top * h):int(bottom * h), int(left * w):int(right * w)].reshape(-1, 3)
        if len(mid) < 9:
            continue
        c = brightest(mid, 10)
        out[i] = c[0] <= BACK_LIGHT * ivory[0] and float(np.hypot(c[1] - ivory[1], c[2] - ivory[2])) >= BACK_CHROMA
    return out


def backs_where_coloured(probs: np.ndarray, crops: list[np.ndarray], tiles: np.ndarray) -> np.ndarray:
    """``probs`` with ``BACK_MIX`` of each back-coloured crop's face readings moved to the back (``back_coloured``;
    the ivory measured on the crops read face up among ``tiles``, those sure to be tiles)."""
    if not len(probs):
        return probs
    top = probs.argmax(1)
    coloured = back_coloured(crops, np.flatnonzero((top != BACK) & tiles)) & (top != BACK)
    if not coloured.any():
        return probs
    out = probs.copy()
    moved = out[coloured].copy()
    moved[:, BACK] = 0.0
    out[coloured] -= BACK_MIX * moved
    out[coloured, BACK] += BACK_MIX * moved.sum(1)
    return out.astype(np.float32)


def sure_backs(probs: np.ndarray, back_score: np.ndarray | None, not_tile: np.ndarray) -> np.ndarray:
    """Which boxes are backs that the "not a tile" class may not veto: read face down by the classifier and by
    the finder (its score at least ``SURE_BACK``), the class at most ``BACK_NOT_TILE`` sure. The class learnt
    plain patches of table and tray, and a back is plain too: held out, a concealed kong's back boxed at 0.93 was
    vetoed at 0.57 (handheld hand 26, seed 0). On the shared `valid` photos no box the class vetoes is both."""
    if back_score is None or not len(probs):
        return np.zeros(len(probs), bool)
    return (probs.argmax(1) == BACK) & (back_score >= SURE_BACK) & (not_tile <= BACK_NOT_TILE)
