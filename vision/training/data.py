"""Read the shared YOLO-labelled photos: boxes as RULES.md codes, source-photo ids, tile crops."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..classes import BAD_VALID_PHOTOS, RF_CODES
from ..detections import squashed


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
        return self.path.name.split(".rf.")[0]

    @property
    def squashed(self) -> bool:
        """The export stretched this photo so much that its tiles look 3x thinner than real ones."""
        return squashed(self.boxes)


def read_labels(label_path: Path, width: int, height: int) -> tuple[np.ndarray, list[str]]:
    """YOLO rows (box or polygon) -> pixel boxes and codes."""
    boxes, codes = [], []
    if not label_path.exists():
        return np.zeros((0, 4), np.float32), []
    for line in label_path.read_text().splitlines():
        parts = line.split()
        if len(parts) < 5:
            continue
        cls = int(parts[0])
        vals = list(map(float, parts[1:]))
        if len(vals) == 4:
            cx, cy, w, h = vals
            x1, y1, x2, y2 = cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2
        else:
            xs, ys = vals[0::2], vals[1::2]
            x1, y1, x2, y2 = min(xs), min(ys), max(xs), max(ys)
        boxes.append([x1 * width, y1 * height, x2 * width, y2 * height])
        codes.append(RF_CODES[cls])
    return np.array(boxes, np.float32).reshape(-1, 4), codes


def load_split(split: str, drop_bad: bool = True, root: Path | None = None) -> list[LabelledImage]:
    """Every image of a split (`train` / `valid`) with its boxes; mislabelled valid photos dropped."""
    root = root or rf_dir()
    out = []
    for img in sorted((root / split / "images").glob("*.jpg")):
        if drop_bad and any(img.name.startswith(b + "_") for b in BAD_VALID_PHOTOS):
            continue
        boxes, codes = read_labels(root / split / "labels" / (img.stem + ".txt"), 640, 640)
        out.append(LabelledImage(img, boxes, codes))
    return out
