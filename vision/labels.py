"""Read YOLO label files (boxes or polygons) as pixel boxes and tile codes."""

from __future__ import annotations

from pathlib import Path

import numpy as np


def source_name(photo_name: str) -> str:
    """The source photo of an exported file name: the part before ".rf." (all augmented copies share it)."""
    return photo_name.split(".rf.")[0]


def read_yolo(path: Path, w: int, h: int, names: tuple[str, ...]) -> tuple[np.ndarray, list[str]]:
    """YOLO label rows (box or polygon) -> pixel boxes (x1, y1, x2, y2) and the codes ``names`` gives each class;
    no file means no boxes. A row's index here is the one classes.VALID_LABEL_FIXES refers to."""
    boxes, codes = [], []
    if path.exists():
        for line in path.read_text().split("\n"):
            p = line.split()
            if len(p) < 5:
                continue
            v = list(map(float, p[1:]))
            if len(v) == 4:
                x1, y1, x2, y2 = v[0] - v[2] / 2, v[1] - v[3] / 2, v[0] + v[2] / 2, v[1] + v[3] / 2
            else:
                x1, y1, x2, y2 = min(v[0::2]), min(v[1::2]), max(v[0::2]), max(v[1::2])
            boxes.append([x1 * w, y1 * h, x2 * w, y2 * h])
            codes.append(names[int(p[0])])
    return np.array(boxes, np.float32).reshape(-1, 4), codes
