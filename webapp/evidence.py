"""The evidence the page keeps with a hand it records (``ledger.Evidence``), and the "what was seen" picture of
it: the photo as read, small (at most 100 KB, re-encoded so no EXIF or location goes with it), with the reader's
boxes in its pixels, what the reader saw, and the corrections made on the page."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np

from ledger import Evidence
from ledger.evidence import MAX_PHOTO_BYTES

from .draw import ON_TABLE
from .reading import codes_now, tile_numbers
from .session import Tab

MAX_SIDE = 1024


def small_jpeg(rgb: np.ndarray, limit: int = MAX_PHOTO_BYTES) -> tuple[bytes, float]:
    """``rgb`` as a JPEG of at most ``limit`` bytes (smaller and lower quality until it fits), and the factor its
    pixels are of the image's."""
    h, w = rgb.shape[:2]
    f = min(1.0, MAX_SIDE / max(h, w))
    bgr = np.ascontiguousarray(rgb[..., ::-1])
    while True:
        img = cv2.resize(bgr, (max(1, int(w * f)), max(1, int(h * f))), interpolation=cv2.INTER_AREA) \
            if f < 1 else bgr
        for q in (80, 65, 50):
            data = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, q])[1].tobytes()
            if len(data) <= limit:
                return data, f
        f *= 0.75


def of_tab(tb: Tab) -> Evidence:
    """What the hand on screen is recorded with: its photo and reading (when it came from a photo) and the
    corrections made to it."""
    log = list(tb.editor.step.log)
    seen, reading = tb.photo, tb.reading
    if seen is None or reading is None or seen.clean is None:
        return Evidence(None, None, log)
    data, f = small_jpeg(seen.clean)
    k = f * seen.clean.shape[1] / max(1, seen.width)  # photo pixels (as read) -> the JPEG's pixels
    read: dict[str, Any] = reading.to_json()
    read["boxes_in_photo"] = [[round(float(v) * k, 1) for v in box] for box in reading.det.xyxy]
    read["codes_after_fixes"] = codes_now(reading, tb.editor.fixes)
    number = tile_numbers(reading)
    read["numbers"] = [number.get(i, i + 1) for i in range(len(reading.det))]  # as the page numbered them
    return Evidence(data, read, log)


def seen_picture(ev: Evidence) -> np.ndarray | None:
    """The kept photo with each tile's box and number (red where a correction changed it, grey where the tile was on
    the table, not in the hand), RGB; None without."""
    if ev.photo is None:
        return None
    img = cv2.imdecode(np.frombuffer(ev.photo, np.uint8), cv2.IMREAD_COLOR)
    if img is None:
        return None
    boxes = (ev.reading or {}).get("boxes_in_photo") or []
    numbers = (ev.reading or {}).get("numbers") or list(range(1, len(boxes) + 1))
    fixed = {int(c["index"]) for c in ev.corrections if c.get("what") == "tile" and "index" in c}
    tiles = (ev.reading or {}).get("tiles") or []
    table = {i for i, t in enumerate(tiles) if isinstance(t, dict) and t.get("group") == -1}  # left out of the hand
    thick = max(1, round(max(img.shape[:2]) / 400))
    for i, box in enumerate(boxes):
        x1, y1, x2, y2 = (int(round(v)) for v in box)
        colour = (40, 40, 220) if i in fixed else ON_TABLE if i in table else (60, 180, 60)
        cv2.rectangle(img, (x1, y1), (x2, y2), colour, thick)
        text = str(numbers[i] if i < len(numbers) else i + 1)
        cv2.putText(img, text, (x1 + 2, max(10, y1 - 3)), cv2.FONT_HERSHEY_SIMPLEX, 0.4 * thick, colour, thick)
    return _around(img, boxes)[..., ::-1]


def _around(img: np.ndarray, boxes: list[list[float]]) -> np.ndarray:
    """The picture cut to its tiles and the table around them (a margin of half their height), so that a phone
    shows the tiles large; the whole picture where no box is kept."""
    if not boxes:
        return img
    b = np.array(boxes, float)
    x1, y1, x2, y2 = b[:, 0].min(), b[:, 1].min(), b[:, 2].max(), b[:, 3].max()
    m = 0.5 * (y2 - y1) + 10
    h, w = img.shape[:2]
    return img[max(0, int(y1 - m)):min(h, int(y2 + m)), max(0, int(x1 - m)):min(w, int(x2 + m))]
