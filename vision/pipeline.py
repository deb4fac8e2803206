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
from .chooser import changes, choose_hand, choose_row
from .classes import CLASS_INDEX
from .correction import Correction, correct, face_up_stray_backs, flowers_misread, restrict, without_flowers
from .detections import Detections
from .geometry import PhotoFrame
from .layout import Layout, analyse, chosen_layout, to_hand
from .photo import decode_for_reading, read_bytes
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
    frame: PhotoFrame | None = None  # the photo as sent and how it was read (``width``/``height``: as read)

    def face_probability(self, i: int) -> float:
        """The calibrated probability of the face shown for tile i (after the rule-aware correction); 0 for a
        tile the correction left out of the hand (a surplus copy: always worth a look)."""
        code = self.codes[i]
        return float(self.det.probs[i, CLASS_INDEX[code]]) if code in CLASS_INDEX else 0.0

    def to_json(self) -> dict[str, Any]:
        """The reading as JSON. Boxes (``box``, and ``corners``: the box as read, four points) are in the pixels of
        the photo as sent (EXIF orientation applied), whatever the reader turned; ``width``/``height`` are that
        photo's. ``as_read`` says how it was read (levelled by ``levelled`` degrees, then ``turned`` quarter turns
        counter-clockwise), and ``box_as_read`` is each box in that frame, as the page draws it."""
        group_of = self.layout.group_of(len(self.det))
        frame = self.frame or PhotoFrame(self.width, self.height, (self.height, self.width))
        photo = frame.to_photo(self.det.xyxy)
        corners = frame.corners_in_photo(self.det.xyxy)
        tiles = []
        for i in range(len(self.det)):
            code = self.codes[i]
            tiles.append({
                "code": code,
                "box": [round(float(v), 1) for v in photo[i]],
                "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in corners[i]],
                "box_as_read": [round(float(v), 1) for v in self.det.xyxy[i]],
                "confidence": round(float(self.det.tile_confidence[i]), 4),
                "alternatives": [{"code": c, "p": round(p, 4)} for c, p in self.det.alternatives(i, 3)],
                "face": "down" if code == "back" else "up",
                "sideways": bool(self.det.sideways[i]),
                "group": group_of[i],
                "doubt": i in self.doubts,
            })
        return {"path": self.path, "width": frame.width, "height": frame.height,
                "orig_shape": list(frame.orig_shape), "turned": self.det.turned,
                "levelled": round(float(self.det.levelled), 1), "sharpened": self.det.sharpened,
                "as_read": {"width": self.width, "height": self.height, "turned": self.det.turned,
                            "levelled": round(float(self.det.levelled), 1)},
                "tiles": tiles, "groups": [g.to_json() for g in self.layout.groups], "hand": self.hand,
                "corrections": [c.to_json() for c in self.corrections], "warnings": self.warnings,
                "warnings_zh": [in_lang(w, "zh") for w in self.warnings],
                "set_aside": self.set_aside,
                "timing_ms": {k: round(v, 1) for k, v in self.timing_ms.items()}}


def interpret(seen: Detections, rules: Ruleset | str = DEFAULT, winning: bool = True, winner: int = 0,
              path: str = "", width: int = 0, height: int = 0, timing: dict[str, float] | None = None,
              photo_warnings: list[str] | None = None, calibration: Calibration | None = None,
              frame: PhotoFrame | None = None, hand_tiles: list[int] | None = None) -> Reading:
    """Layout and rule-aware correction of detections for one ruleset (the detections are not changed).
    Flowers stay flowers in every ruleset; one without flowers sets them aside with a warning. Only where the hand
    as read is no legal win are tiles read as flowers where none can lie named as faces (``flowers_as_faces``).
    A tile whose shown face and box are less sure than the ``calibration``'s bar (default: the shipped one) is a
    doubt, and so is each flower named as a face.
    ``frame``: the photo's frame (``see``), which gives the size as read and maps the boxes to the photo as sent.
    ``hand_tiles``: the tiles the player says are the hand (the page's group taps); the rest are on the table and no
    hand chooser overrides that choice."""
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
    layout, codes, more, warn = hand_as_laid_out(det, rules, winning, hand_tiles)
    reread: list[int] = []
    if winning and hand_tiles is None and (warn or (not rules.flower_kinds and layout.flowers_among_faces)):
        # (no legal win; or flowers lying among faces where the set holds none: misread faces if that is legal too,
        # with no more changes)
        tiles, most = (None, None) if warn else (layout.flowers_among_faces, changes(more))
        again = flowers_as_faces(det, layout, rules, tiles, most)
        if again is not None:
            det, (layout, codes, more, warn), reread = again
    corrections += more
    hand = to_hand(det, layout, winner, codes) if len(det) else None
    aside = set_aside(hand, rules, warnings)
    if len(det) and hand is None and any(g.tiles for g in layout.groups):  # (none: every tile on the table)
        warnings.append(Said("some tiles are face down outside a concealed kong or a kong shows no face: enter them",
                             "有背面朝上的牌不在暗槓中，或暗槓看不到牌面：請手動輸入"))
    timing["layout_correct_ms"] = 1000 * (time.perf_counter() - t)
    if frame is not None:
        width, height = frame.read_size()
    reading = Reading(path, width, height, det, layout, codes, hand, corrections,
                      warnings + layout.warnings + warn, timing, aside, frame=frame)
    cal = shipped_calibration() if calibration is None else calibration
    face = np.array([reading.face_probability(i) for i in range(len(codes))])
    doubtful = cal.doubtful(face, det.confidence[:len(codes)])
    reading.doubts = sorted({int(i) for i in np.flatnonzero(doubtful)} | set(reread))  # (re-read: always a doubt)
    return reading


def set_aside(hand: dict[str, Any] | None, rules: Ruleset, warnings: list[str]) -> list[str]:
    """The hand's flowers that are no flower of the ruleset, taken out of it (in place) with a warning: in one
    played without flowers, every flower read; in one with flowers, a tile lying with them named as a face."""
    if hand is None:
        return []
    aside = [c for c in hand["flowers"] if INDEX[c] not in rules.flower_kinds]
    if not aside:
        return []
    hand["flowers"] = [c for c in hand["flowers"] if INDEX[c] in rules.flower_kinds]
    n, codes = len(aside), " ".join(aside)
    warnings.append(Said(f"{n} flower tile(s) set aside ({codes}): {rules.name} is played without flowers",
                         f"已把 {n} 張花牌放在一邊（{codes}）：{rules.title.zh}不用花牌") if not rules.flower_kinds else
                    Said(f"{n} tile(s) lying with the flowers are no flower of {rules.name} ({codes}): set aside; "
                         "check them",
                         f"有 {n} 張和花牌放在一起的牌不是{rules.title.zh}的花牌（{codes}）：已放在一邊，請核對"))
    return aside


def flowers_as_faces(det: Detections, layout: Layout, rules: Ruleset, tiles: list[int] | None = None,
                     most: int | None = None
                     ) -> tuple[Detections, tuple[Layout, list[str], list[Correction], list[str]], list[int]] | None:
    """A reading read again with its likely misread flowers (``tiles``, default ``flowers_misread``: one lying
    among the hand's faces, or any in a ruleset without flowers; a 1s's bird looks like a plant) named as the
    ruleset's faces: the detections, ``hand_as_laid_out``'s result with a correction for each, and those tiles,
    when that is a legal win (with at most ``most`` changes, where given); else None."""
    reread = flowers_misread(det, layout, rules) if tiles is None else tiles
    if not reread:
        return None
    lone = set(layout.lone_flowers)
    again = without_flowers(det, reread, rules)
    layout, codes, more, warn = hand_as_laid_out(again, rules, True, None)
    if warn or (most is not None and changes(more) > most):
        return None
    why = ("a player sets flowers apart", "花牌應放在一邊") if rules.flower_kinds else \
        (f"{rules.name} is played without flowers", f"{rules.title.zh}不用花牌")
    alone = ("it lies alone where the winning tile is set apart", "它單獨放在胡牌的位置")
    was = det.codes
    named = [Correction(i, was[i], codes[i], Said(
        f"read as the flower {was[i]}, but {(alone if i in lone else why)[0]}, and as {codes[i]} the hand is a "
        "legal win; check it",
        f"看來像花牌 {was[i]}，但{(alone if i in lone else why)[1]}；當作 {codes[i]} 才是合法的胡牌，請核對"))
        for i in reread if codes[i] != was[i]]
    return again, (layout, codes, named + more, warn), reread


def hand_as_laid_out(det: Detections, rules: Ruleset, winning: bool, hand_tiles: list[int] | None
             ) -> tuple[Layout, list[str], list[Correction], list[str]]:
    """The layout of a reading and its rule-aware correction: the codes, the corrections and any warning. Where the
    tiles as laid out make no legal win, or only by dropping tiles, the hand choosers try other players' tiles
    left out and another row as the hand (``chooser``); the player's own choice (``hand_tiles``) is kept."""
    layout = analyse(det, rules) if hand_tiles is None else chosen_layout(det, hand_tiles, rules)
    codes, more, warn = correct(det, layout, rules, winning) if len(det) else ([], [], [])
    if winning and len(det) and hand_tiles is None and (warn or "remove" in codes):
        # no legal win as laid out, or only by dropping tiles: other players' tiles beside the hand? The groups
        # at the rows' ends left out make a legal win with fewer changes
        first = layout
        chosen = choose_hand(det, layout, rules)
        if chosen is not None and (warn or changes(chosen[2]) < changes(more)):
            layout, codes, more, warn = chosen
        # no legal win, or only by changing tiles: the hand is maybe another row (discards at a slant look larger)
        other = choose_row(det, first, rules) if warn or changes(more) else None
        if other is not None and (warn or changes(other[2]) < changes(more)):
            layout, codes, more, warn = other
    return layout, codes, more, warn


@dataclass
class Photo:
    """A photo decoded for reading: the image (BGR, EXIF orientation applied; a large JPEG decoded reduced), the
    photo's pixels per image pixel, what the decoder noticed, its name, and the decoding's milliseconds."""

    image: np.ndarray
    scale: float = 1.0
    warnings: list[str] = field(default_factory=list)
    name: str = ""
    decode_ms: float = 0.0

    @classmethod
    def decode(cls, data: bytes, name: str = "photo") -> Photo:
        """Decode a photo's bytes (PhotoError, with the reason in the user's words, when they are not a photo)."""
        t = time.perf_counter()
        img, scale, warnings = decode_for_reading(data, name)
        return cls(img, scale, warnings, name, 1000 * (time.perf_counter() - t))

    @classmethod
    def load(cls, path: str | Path) -> Photo:
        """Read and decode a photo file (PhotoError when it is missing, too large or not a photo)."""
        t = time.perf_counter()
        photo = cls.decode(read_bytes(path), str(path))
        photo.decode_ms = 1000 * (time.perf_counter() - t)
        return photo


@dataclass
class Seen:
    """What a photo shows, before any ruleset: the detections (boxes in the frame as read, at the photo's scale),
    the frame (``geometry.PhotoFrame``: how to map them to the photo as sent), and the photo. The page keeps this
    and interprets it again, in milliseconds, whenever the ruleset or house rules change."""

    photo: Photo
    det: Detections
    frame: PhotoFrame
    timing_ms: dict[str, float] = field(default_factory=dict)


def see(photo: Photo, reader: TileReader) -> Seen:
    """Detect and classify the tiles of a decoded photo: per-stage milliseconds in ``timing_ms`` (decode, detect,
    classify)."""
    timing = {"decode_ms": photo.decode_ms}
    det = reader.read(photo.image, timing)
    frame = PhotoFrame.of(photo.image.shape, photo.scale, det)
    det.xyxy *= np.float32(photo.scale)
    return Seen(photo, det, frame, timing)


def read(source: Photo | bytes | str | Path, reader: TileReader, ruleset: Ruleset | str = DEFAULT,
         winning: bool = True, winner: int = 0, name: str | None = None) -> Reading:
    """The one way in for every front end (CLI, page, API): decode (a file's path or bytes; PhotoError when they
    are not a readable photo), see, interpret for ``ruleset``. ``timing_ms`` holds each stage and the total."""
    if isinstance(source, Photo):
        photo = source
    elif isinstance(source, bytes):
        photo = Photo.decode(source, name or "photo")
    else:
        photo = Photo.load(source)
    t = time.perf_counter()  # (after decoding: its milliseconds are the photo's own, counted once)
    seen = see(photo, reader)
    reading = interpret(seen.det, ruleset, winning, winner, name or photo.name, timing=seen.timing_ms,
                        photo_warnings=photo.warnings, frame=seen.frame)
    reading.timing_ms["total_ms"] = photo.decode_ms + 1000 * (time.perf_counter() - t)
    return reading


def read_image(img: np.ndarray, reader: TileReader, ruleset: Ruleset | str = DEFAULT, winning: bool = True,
               winner: int = 0, path: str = "") -> Reading:
    """Read an image already decoded (BGR, in the photo's own pixels) into a Reading."""
    return read(Photo(img, name=path), reader, ruleset, winning, winner)


def read_photo(path: str | Path, reader: TileReader, ruleset: Ruleset | str = DEFAULT, winning: bool = True,
               winner: int = 0) -> Reading:
    """Decode and read a photo file; raises PhotoError for files that are not readable photos."""
    return read(path, reader, ruleset, winning, winner)
