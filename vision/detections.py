"""Detections: one typed array-of-boxes object passed between the reading stages (supervision-style)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .classes import BACK, CLASSIFIER_CODES

SPREAD_P, SPREAD_FACES = 0.005, 20  # a face not shown: this many faces over this probability
SQUASHED_RATIO = 0.35  # median short/long side of a photo's tiles below this: squashed (real tiles: ~0.7)


def box_areas(xyxy: np.ndarray) -> np.ndarray:
    """Area of each (x1, y1, x2, y2) box."""
    return (xyxy[:, 2] - xyxy[:, 0]) * (xyxy[:, 3] - xyxy[:, 1])


def aspects(xyxy: np.ndarray) -> np.ndarray:
    """Width over height of each (x1, y1, x2, y2) box."""
    return (xyxy[:, 2] - xyxy[:, 0]) / np.maximum(xyxy[:, 3] - xyxy[:, 1], 1e-6)


def intersections(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(len(a), len(b)) areas where each box of a overlaps each box of b (0 where they do not)."""
    iw = np.clip(np.minimum(a[:, None, 2], b[None, :, 2]) - np.maximum(a[:, None, 0], b[None, :, 0]), 0, None)
    ih = np.clip(np.minimum(a[:, None, 3], b[None, :, 3]) - np.maximum(a[:, None, 1], b[None, :, 1]), 0, None)
    return iw * ih


def lone_doubts(det: Detections, below: float, reach: float = 0.25) -> np.ndarray:
    """Which boxes the finder scored under ``below`` with no other box within ``reach`` of their own size around
    them: a doubtful box on its own (a dial of the table, the edge of a wall, a cup), where a tile the finder
    doubts in a row or a grid has neighbours (on the shared `valid` photos it drops 5 boxes, none a labelled
    tile; a cut at 0.35 for every box lost true tiles of hands turned 45 degrees)."""
    low = np.flatnonzero(det.confidence < below) if len(det) else np.zeros(0, int)
    out = np.zeros(len(det), bool)
    if not len(low):
        return out
    x1, y1, x2, y2 = det.xyxy[low].T
    w, h = x2 - x1, y2 - y1
    grown = np.stack([x1 - reach * w, y1 - reach * h, x2 + reach * w, y2 + reach * h], 1)
    touching = intersections(grown, det.xyxy) > 0
    touching[np.arange(len(low)), low] = False
    out[low] = ~touching.any(1)
    return out


def squashed(xyxy: np.ndarray, ratio: float = SQUASHED_RATIO) -> bool:
    """Whether boxes look like tiles of a photo stretched to a square (tiles about 3x thinner than real)."""
    if len(xyxy) == 0:
        return False
    sides = np.sort(np.stack([xyxy[:, 2] - xyxy[:, 0], xyxy[:, 3] - xyxy[:, 1]], 1), 1)
    return bool(np.median(sides[:, 0] / np.maximum(sides[:, 1], 1e-6)) < ratio)


@dataclass
class Detections:
    """Boxes in original-photo pixels with per-tile class probabilities.

    ``xyxy`` (n, 4) float32; ``confidence`` (n,) detector score; ``probs`` (n, 43) classifier
    probabilities over CLASSIFIER_CODES (42 faces + back); ``sideways`` (n,) bool.
    """

    xyxy: np.ndarray
    confidence: np.ndarray
    probs: np.ndarray = field(default_factory=lambda: np.zeros((0, len(CLASSIFIER_CODES)), np.float32))
    sideways: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))
    back_score: np.ndarray | None = None  # the finder's share of "face down" per box, when it has that class
    turned: int = 0  # quarter turns counter-clockwise the reader gave the photo to read it upright (boxes are in
    # the turned photo's pixels; orientation.turn_image turns the photo the same way)
    levelled: float = 0.0  # degrees the reader turned the photo in its plane first, so that its rows ran level
    # (orientation.as_read: the photo the boxes lie in; orientation.photo_boxes: the boxes in the photo's pixels)
    sharpened: bool = False  # the finder read the photo sharpened (``blur``): it was out of focus or shaken

    @classmethod
    def empty(cls) -> Detections:
        return cls(np.zeros((0, 4), np.float32), np.zeros(0, np.float32))

    @classmethod
    def boxes_of(cls, parts: list[Detections]) -> Detections:
        """The boxes of several finder passes (before classification) as one set: boxes, scores, back scores."""
        backs = [p.back_score for p in parts]
        return cls(np.concatenate([p.xyxy for p in parts]).astype(np.float32),
                   np.concatenate([p.confidence for p in parts]).astype(np.float32),
                   back_score=None if any(b is None for b in backs) else
                   np.concatenate([b for b in backs if b is not None]))

    def copy(self) -> Detections:
        """An independent copy (the interpretation of a reading changes its probabilities)."""
        return Detections(self.xyxy.copy(), self.confidence.copy(), self.probs.copy(), self.sideways.copy(),
                          None if self.back_score is None else self.back_score.copy(), turned=self.turned,
                          levelled=self.levelled, sharpened=self.sharpened)

    def __len__(self) -> int:
        return len(self.xyxy)

    def __getitem__(self, index: np.ndarray | list[int] | slice) -> Detections:
        return Detections(self.xyxy[index], self.confidence[index],
                          self.probs[index] if len(self.probs) else self.probs,
                          self.sideways[index] if len(self.sideways) else self.sideways,
                          None if self.back_score is None else self.back_score[index], self.turned, self.levelled,
                          self.sharpened)

    @property
    def class_id(self) -> np.ndarray:
        return self.probs.argmax(1) if len(self.probs) else np.zeros(0, int)

    @property
    def codes(self) -> list[str]:
        return [CLASSIFIER_CODES[i] for i in self.class_id]

    @property
    def face_down(self) -> np.ndarray:
        return self.class_id == BACK

    @property
    def unshown(self) -> np.ndarray:
        """Tiles whose face the photo does not show (glare): probability spread thin over many faces. The layout
        does not take such a tile for a flower, and the correction may give it any face."""
        if not len(self):
            return np.zeros(0, bool)
        return (self.probs > SPREAD_P).sum(1) >= SPREAD_FACES

    @property
    def tile_confidence(self) -> np.ndarray:
        """Probability of the chosen class times the detector's score."""
        if not len(self):
            return np.zeros(0, np.float32)
        return self.probs.max(1) * self.confidence

    @property
    def centers(self) -> np.ndarray:
        return np.stack([(self.xyxy[:, 0] + self.xyxy[:, 2]) / 2, (self.xyxy[:, 1] + self.xyxy[:, 3]) / 2], 1)

    @property
    def sizes(self) -> np.ndarray:
        return np.stack([self.xyxy[:, 2] - self.xyxy[:, 0], self.xyxy[:, 3] - self.xyxy[:, 1]], 1)

    def alternatives(self, i: int, k: int = 3) -> list[tuple[str, float]]:
        """Top-k (code, probability) of tile i."""
        order = np.argsort(-self.probs[i])[:k]
        return [(CLASSIFIER_CODES[j], float(self.probs[i, j])) for j in order]
