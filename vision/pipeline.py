"""The whole reading chain for one photo: decode -> detect + classify -> layout -> rule-aware correction -> hand."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from scoring import DEFAULT, Ruleset, as_ruleset
from scoring.tiles import INDEX

from .calibration import Calibration, shipped_calibration
from .chooser import changes, choose_hand
from .classes import CLASS_INDEX
from .correction import Correction, correct, face_up_stray_backs, restrict
from .detections import Detections
from .geometry import read_shape
from .layout import Layout, analyse, to_hand
from .photo import load_for_reading
from .reader import TileReader
from .said import Said, in_lang

TURN_WARNING = {k: Said(f"the photo was read turned by {90 * (4 - k)} degrees clockwise: its tiles lay that way",
                     f"照片順時針轉了 {90 * (4 - k)} 度來讀：牌是這樣擺的") for k in (1, 2, 3)}

BLUR_WARNING = Said("the photo is blurred (out of focus or shaken): it was read sharpened; check every tile, or retake "
                    "it with the phone held still",
                    "照片模糊（沒對焦或手震）：已銳化後再讀；請逐張核對，或把手機拿穩重拍")


def level_warning(degrees: float) -> Said:
    """What the page says when the reader turned a photo in its plane (``det.levelled``) to read its rows level."""
    way, way_zh = ("clockwise", "順時針") if degrees < 0 else ("counter-clockwise", "逆時針")
    return Said(f"the photo was read turned {abs(degrees):.0f} degrees {way}: its rows of tiles ran at a slant",
                f"照片{way_zh}轉了 {abs(degrees):.0f} 度來讀：牌排是斜的")


@dataclass
class Reading:
    """Everything read from one photo, ready for JSON or the correction page."""

    path: str
    width: int
    height: int
    det: Detections
    layout: Layout
    codes: list[str]
    hand: dict[str, Any] | None
    corrections: list[Correction] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    timing_ms: dict[str, float] = field(default_factory=dict)
    set_aside: list[str] = field(default_factory=list)  # flowers the ruleset does not use
    doubts: list[int] = field(default_factory=list)  # tiles read right with a calibrated chance under the bar

    def face_probability(self, i: int) -> float:
        """The calibrated probability of the face shown for tile i (after the rule-aware correction); 0 for a
        tile the correction left out of the hand (a surplus copy: always worth a look)."""
        code = self.codes[i]
        return float(self.det.probs[i, CLASS_INDEX[code]]) if code in CLASS_INDEX else 0.0

    def to_json(self) -> dict[str, Any]:
        group_of = self.layout.group_of(len(self.det))
        tiles = []
        for i in range(len(self.det)):
            code = self.codes[i]
            tiles.append({
                "code": code,
                "box": [round(float(v), 1) for v in self.det.xyxy[i]],
                "confidence": round(float(self.det.tile_confidence[i]), 4),
                "alternatives": [{"code": c, "p": round(p, 4)} for c, p in self.det.alternatives(i, 3)],
                "face": "down" if code == "back" else "up",
                "sideways": bool(self.det.sideways[i]),
                "group": group_of[i],
                "doubt": i in self.doubts,
            })
        # the boxes, width and height are those of the photo as read: levelled by "levelled" degrees (rows that ran
        # at a slant), then turned by "turned" quarter turns counter-clockwise (vision.orientation.as_read)
        return {"path": self.path, "width": self.width, "height": self.height, "turned": self.det.turned,
                "levelled": round(float(self.det.levelled), 1), "sharpened": self.det.sharpened, "tiles": tiles,
                "groups": [g.to_json() for g in self.layout.groups], "hand": self.hand,
                "corrections": [c.to_json() for c in self.corrections], "warnings": self.warnings,
                "warnings_zh": [in_lang(w, "zh") for w in self.warnings],
                "set_aside": self.set_aside,
                "timing_ms": {k: round(v, 1) for k, v in self.timing_ms.items()}}


def detect(img: np.ndarray, reader: TileReader, timing: dict[str, float] | None = None,
           scale: float = 1.0) -> Detections:
    """What the photo shows, before any ruleset: boxes (in the photo's pixels), per-tile probabilities, geometry.
    The page keeps this and interprets it again, in milliseconds, whenever the ruleset or house rules change."""
    det = reader.read(img, timing if timing is not None else {})
    det.xyxy *= np.float32(scale)
    return det


def interpret(seen: Detections, rules: Ruleset | str = DEFAULT, winning: bool = True, winner: int = 0,
              path: str = "", width: int = 0, height: int = 0, timing: dict[str, float] | None = None,
              photo_warnings: list[str] | None = None, calibration: Calibration | None = None) -> Reading:
    """Layout and rule-aware correction of detections for one ruleset (the detections are not changed).
    Flowers stay flowers in every ruleset; one without flowers sets them aside with a warning. A tile whose
    shown face and box are less sure than the ``calibration``'s bar (default: the shipped one) is a doubt."""
    rules = as_ruleset(rules)
    timing = timing if timing is not None else {}
    det = seen.copy()
    t = time.perf_counter()
    warnings: list[str] = list(photo_warnings or [])
    if seen.turned:
        warnings.append(TURN_WARNING[seen.turned])
    if seen.levelled:
        warnings.append(level_warning(seen.levelled))
    if seen.sharpened:
        warnings.append(BLUR_WARNING)
    corrections = restrict(det, rules) + face_up_stray_backs(det)
    if len(det) == 0:
        warnings.append(Said("no tiles found in the photo: retake it closer and well lit, or enter the hand by hand",
                             "照片中找不到牌：請靠近一點、在明亮處重拍，或手動輸入"))
    layout = analyse(det, rules)
    codes, more, warn = correct(det, layout, rules, winning) if len(det) else ([], [], [])
    if winning and len(det) and (warn or "remove" in codes):
        # no legal win as laid out, or only by dropping tiles: other players' tiles beside the hand? The groups
        # at the rows' ends left out make a legal win with fewer changes
        chosen = choose_hand(det, layout, rules)
        if chosen is not None and (warn or changes(chosen[2]) < changes(more)):
            layout, codes, more, warn = chosen
    corrections += more
    hand = to_hand(det, layout, winner, codes) if len(det) else None
    aside: list[str] = []
    if hand is not None:
        aside = [c for c in hand["flowers"] if INDEX[c] not in rules.flower_kinds]
        if aside:
            hand["flowers"] = [c for c in hand["flowers"] if INDEX[c] in rules.flower_kinds]
            warnings.append(Said(f"{len(aside)} flower tile(s) set aside ({' '.join(aside)}): {rules.name} is "
                                 "played without flowers",
                                 f"已把 {len(aside)} 張花牌放在一邊（{' '.join(aside)}）：{rules.title.zh}不用花牌"))
    if len(det) and hand is None:
        warnings.append(Said("some tiles are face down outside a concealed kong or a kong shows no face: enter them",
                             "有背面朝上的牌不在暗槓中，或暗槓看不到牌面：請手動輸入"))
    timing["layout_correct_ms"] = 1000 * (time.perf_counter() - t)
    reading = Reading(path, width, height, det, layout, codes, hand, corrections,
                      warnings + layout.warnings + warn, timing, aside)
    cal = shipped_calibration() if calibration is None else calibration
    face = np.array([reading.face_probability(i) for i in range(len(codes))])
    reading.doubts = [int(i) for i in np.flatnonzero(cal.doubtful(face, det.confidence[:len(codes)]))]
    return reading


def read_image(img: np.ndarray, reader: TileReader, ruleset: Ruleset | str = DEFAULT, winning: bool = True,
               winner: int = 0, path: str = "", timing: dict[str, float] | None = None, scale: float = 1.0,
               photo_warnings: list[str] | None = None) -> Reading:
    """Read a decoded photo (BGR) into a Reading; ``scale`` maps the image's pixels to the photo's (when it was
    decoded at reduced size), so boxes, width and height are in the photo's pixels, turned upright when the
    reader found the photo turned (``det.turned``) and levelled when its rows ran at a slant (``det.levelled``)."""
    timing = timing if timing is not None else {}
    det = detect(img, reader, timing, scale)
    h, w = read_shape(img.shape, det)
    return interpret(det, ruleset, winning, winner, path, round(w * scale), round(h * scale), timing,
                     photo_warnings)


def read_photo(path: str | Path, reader: TileReader, ruleset: Ruleset | str = DEFAULT, winning: bool = True,
               winner: int = 0) -> Reading:
    """Decode and read a photo file; raises PhotoError for files that are not readable photos."""
    t = time.perf_counter()
    img, scale, photo_warnings = load_for_reading(path)
    timing = {"decode_ms": 1000 * (time.perf_counter() - t)}
    reading = read_image(img, reader, ruleset, winning, winner, str(path), timing, scale, photo_warnings)
    timing["total_ms"] = 1000 * (time.perf_counter() - t)
    return reading
