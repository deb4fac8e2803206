"""Read the shared YOLO-labelled photos: boxes as RULES.md codes, source-photo ids, tile crops."""

from __future__ import annotations

import csv
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from training.labels import CAMERASH_CODES, RF_CODES, fix_labels, mislabelled, read_yolo, source_name
from vision.classes import CLASS_INDEX
from vision.crops import tile_crop
from vision.detections import squashed

EXPORT_SIZE = 640  # the export stretched every photo to 640 x 640


def shared_dir() -> Path:
    """../shared (from the repo root), overridable with MAHJONG_SHARED."""
    env = os.environ.get("MAHJONG_SHARED")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[1].parent / "shared"


def rf_dir() -> Path:
    return shared_dir() / "data" / "chinese-mahjong-rf"


# Tile sets of the shared photos, told apart by the photos' names (looked at on a sheet of three photos each):
# one photographer's IMG_2023mmdd days share an ivory set in a black tray; IMG_27xx is a red-and-green set on a
# pink mat (valid only); hand_ a green-backed set on a green table; the Facebook downloads (digits_digits_n)
# a thick set with blue marks; *_family_ a set on white; Screenshot- a squashed video set (valid only); the rest
# (random-letter names) web photos of mixed sets.
DESIGNS = (("IMG_2023", r"^IMG_2023\d{4}_"), ("IMG_27xx", r"^IMG_27\d\d"), ("hand", r"^hand_"),
           ("fb", r"^\d+_\d+_\d+_n"), ("family", r"_family_|^discards_|^one_bamboo"),
           ("screenshot", r"^Screenshot"))


def design(name: str) -> str:
    """The tile set a shared photo shows, from its file name (``web`` for the mixed rest)."""
    for label, pattern in DESIGNS:
        if re.search(pattern, name):
            return label
    return "web"


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
    def design(self) -> str:
        """The tile set this photo shows (``DESIGNS``)."""
        return design(self.path.name)

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
        if drop_bad and mislabelled(img.name):
            continue
        boxes, codes = read_yolo(root / split / "labels" / (img.stem + ".txt"), EXPORT_SIZE, EXPORT_SIZE, RF_CODES)
        if drop_bad and split == "valid":
            fix_labels(img.name, codes)
        out.append(LabelledImage(img, boxes, codes))
    return out


def labelled_tiles(split: str, drop_bad: bool = True, squashed: bool = True
                   ) -> Iterator[tuple[LabelledImage, np.ndarray, np.ndarray, str]]:
    """Each labelled tile of a split as (photo, its decoded image, box, code); boxes under 4 px either way are
    left out, and so are photos the export squashed unless ``squashed``."""
    for li in load_split(split, drop_bad=drop_bad):
        if len(li.boxes) == 0 or (li.squashed and not squashed):
            continue
        img = cv2.imread(str(li.path))
        if img is None:
            continue
        for box, code in zip(li.boxes, li.codes):
            if box[2] - box[0] >= 4 and box[3] - box[1] >= 4:
                yield li, img, box, code


def collect_camerash() -> tuple[np.ndarray, np.ndarray]:
    """The camerash single-tile crops (other tile designs) as classifier crops and class indices."""
    root = shared_dir() / "data" / "camerash-crops"
    xs, ys = [], []
    with open(root / "tiles-data" / "data.csv", encoding="utf-8-sig") as fh:
        for row in csv.DictReader(fh):
            img = cv2.imread(str(root / "tiles-resized" / row["image-name"]))
            code = CAMERASH_CODES.get(row["label-name"])
            if img is None or code is None:
                continue
            h, w = img.shape[:2]
            crop, _ = tile_crop(img, (0.04 * w, 0.04 * h, 0.96 * w, 0.96 * h))
            xs.append(crop)
            ys.append(CLASS_INDEX[code])
    return np.stack(xs), np.array(ys, np.int64)
