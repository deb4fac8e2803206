"""Read the shared YOLO-labelled photos: boxes as RULES.md codes, source-photo ids, tile crops."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..classes import BAD_VALID_PHOTOS, RF_CODES, fix_labels
from ..detections import squashed
from ..labels import read_yolo, source_name

EXPORT_SIZE = 640  # the export stretched every photo to 640 x 640


def shared_dir() -> Path:
    """../shared (from the repo root), overridable with MAHJONG_SHARED."""
    env = os.environ.get("MAHJONG_SHARED")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[2].parent / "shared"


def rf_dir() -> Path:
    return shared_dir() / "data" / "chinese-mahjong-rf"


@dataclass
class LabelledImage:
    """One photo and its boxes in pixels (x1, y1, x2, y2) with tile codes."""

    path: Path
    boxes: np.ndarray  # (n, 4) float32 pixels
    codes: list[str]

    @property
    def source(self) -> str:
        """The source photo id (all augmented copies share it)."""
        return source_name(self.path.name)

    @property
    def squashed(self) -> bool:
        """The export stretched this photo so much that its tiles look 3x thinner than real ones."""
        return squashed(self.boxes)


def load_split(split: str, drop_bad: bool = True, root: Path | None = None) -> list[LabelledImage]:
    """Every image of a split (`train` / `valid`) with its boxes; mislabelled valid photos dropped and the single
    mislabelled boxes of classes.VALID_LABEL_FIXES named as the face they show (with ``drop_bad``)."""
    root = root or rf_dir()
    out = []
    for img in sorted((root / split / "images").glob("*.jpg")):
        if drop_bad and any(img.name.startswith(b + "_") for b in BAD_VALID_PHOTOS):
            continue
        boxes, codes = read_yolo(root / split / "labels" / (img.stem + ".txt"), EXPORT_SIZE, EXPORT_SIZE, RF_CODES)
        if drop_bad and split == "valid":
            fix_labels(img.name, codes)
        out.append(LabelledImage(img, boxes, codes))
    return out
