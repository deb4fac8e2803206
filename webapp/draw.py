"""The photo with numbered boxes: red for the reader's calibrated doubts, green for the rest, and the tiles left
out of the hand (other players' tiles on the table) dimmed, in grey."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np

ON_TABLE = (150, 150, 150)  # BGR: a tile left out of the hand


def colour(doubt: bool) -> tuple[int, int, int]:
    """BGR: red for a tile worth checking, green for one the reader is sure of."""
    return (40, 40, 230) if doubt else (60, 180, 60)


def annotate(img: np.ndarray, tiles: list[dict[str, Any]], max_side: int = 1600, box_scale: float = 1.0
             ) -> np.ndarray:
    """RGB image (downsized to max_side) with each tile's box and number drawn on it; boxes are in the photo's
    pixels, ``box_scale`` times the image's (a photo decoded at reduced size). A tile's "number" is the one the
    page gives it (its place in the reading); without one, its index."""
    h, w = img.shape[:2]
    s = min(1.0, max_side / max(h, w))
    out = cv2.resize(img, (int(w * s), int(h * s)), interpolation=cv2.INTER_AREA) if s < 1 else img.copy()
    thick = max(2, int(round(max(out.shape[:2]) / 500)))
    for i, tile in enumerate(tiles):
        x1, y1, x2, y2 = (int(round(v * s / box_scale)) for v in tile["box"])
        c = colour(bool(tile.get("doubt")))
        if tile.get("on_table"):  # not in the hand: dimmed, with a grey box and number (the tap list's)
            part = out[max(0, y1):y2, max(0, x1):x2]
            part[:] = (0.45 * part + 0.55 * 128).astype(out.dtype)
            c = ON_TABLE
        cv2.rectangle(out, (x1, y1), (x2, y2), c, thick)
        label = str(tile.get("number", i))
        scale = max(0.5, (x2 - x1) / 60)
        (tw, th), _ = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, scale, thick)
        cv2.rectangle(out, (x1, max(0, y1 - th - 6)), (x1 + tw + 6, y1), c, -1)
        cv2.putText(out, label, (x1 + 3, y1 - 4), cv2.FONT_HERSHEY_SIMPLEX, scale, (255, 255, 255), thick)
    return out[..., ::-1]
