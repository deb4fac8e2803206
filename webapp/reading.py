"""The page's photo reading: detect once per photo, interpret for the active ruleset whenever it changes.

The model is loaded once per server process, on the first page view (before any photo), and warmed with one
read, so the first photo is as fast as the later ones.
"""

from __future__ import annotations

import hashlib
import json
import time

import numpy as np
import streamlit as st

from scoring import Ruleset
from scoring.tiles import INDEX
from vision.calibration import shipped_calibration
from vision.geometry import as_read
from vision.layout import meld_tiles
from vision.models import ModelMissing, shipped_models_dir
from vision.photo import PhotoError
from vision.pipeline import Photo, Reading, interpret, see
from vision.reader import TileReader

from .draw import annotate
from .session import PhotoSeen, Tab
from .state import HandState, MeldState

PICKABLE = [c for c in INDEX if c != "G"]


@st.cache_resource(show_spinner=False)
def load_reader(models_dir: str) -> TileReader | str:
    """One tile reader per server process and models folder, warmed with a blank read; or the error line."""
    try:
        reader = TileReader(models_dir, threads=2)
    except ModelMissing as e:
        return str(e)
    reader.warm()
    import pandas  # noqa: F401 - the first score table imports them: done here, before the first photo
    import pyarrow  # noqa: F401
    return reader


def reader() -> TileReader | str:
    """The shared reader (or why there is none)."""
    return load_reader(str(shipped_models_dir()))


def detect_photo(data: bytes, name: str) -> PhotoSeen:
    """Decode and detect a photo (PhotoError when it cannot be read, ModelMissing without a model)."""
    t0 = time.perf_counter()
    photo = Photo.decode(data, name)
    r = reader()
    if isinstance(r, str):
        raise ModelMissing(r)
    seen = see(photo, r)
    det, timing, scale, warnings = seen.det, seen.timing_ms, photo.scale, photo.warnings
    img = as_read(photo.image, det)  # shown (and cut into tile crops) the way it was read: upright, rows level
    timing["page_read_ms"] = 1000 * (time.perf_counter() - t0)
    # before any ruleset: a doubt of the face the reader sees likeliest
    doubtful = shipped_calibration().doubtful(det.probs.max(1), det.confidence) if len(det) else np.zeros(0, bool)
    tiles = [{"box": [float(v) for v in det.xyxy[i]], "doubt": bool(doubtful[i])} for i in range(len(det))]
    return PhotoSeen(hashlib.sha1(data).hexdigest(), name, det, annotate(img, tiles, box_scale=scale), seen.frame,
                     warnings, timing, clean=annotate(img, [], box_scale=scale))


def take_photo(tb: Tab, data: bytes, name: str) -> None:
    """A new photo from the uploader or the camera, taken once: read it, leave edit mode, start a new hand (one
    undo step); an unreadable photo clears the hand and says why."""
    digest = hashlib.sha1(data).hexdigest()
    if tb.taken == digest:
        return  # the widget still holds the file already taken (undo may have put another hand on screen)
    tb.taken = digest
    try:
        seen = detect_photo(data, name)
    except (PhotoError, ModelMissing) as e:
        tb.reading, tb.derived_for = None, None
        tb.photo_error, tb.photo_error_msg = digest, getattr(e, "said", str(e))
        tb.new_entry(HandState())
        return
    tb.photo_error, tb.photo_error_msg, tb.derived_for = None, None, None
    tb.new_entry(HandState(), photo=seen)


def reinterpret(tb: Tab, rules: Ruleset, options: dict) -> None:
    """Interpret the photo for the active ruleset and house rules when either changed (milliseconds). A new
    photo's hand fills its own undo step; a change of ruleset regroups the hand (one undo step); a photo brought
    back by undo is interpreted again, keeping the hand it comes back with."""
    if tb.photo is None:
        tb.reading, tb.derived_for = None, None
        return
    key = (tb.photo.digest, rules.name, json.dumps(options, sort_keys=True), tb.editor.hand_tiles)
    if key == tb.derived_for:
        return
    seen = tb.photo
    before = tb.derived_for
    tb.reading = interpret_photo(seen, rules, tb.editor.hand_tiles)
    tb.derived_for = key
    if before is not None and before[:3] == key[:3]:
        return  # undo or redo brought back another choice of the hand's tiles: the hand comes back with it
    hand = hand_from_reading(tb.reading, tb.editor.fixes, rules)
    if before is None and tb.editor.hand.empty and not tb.editor.fixes:
        tb.editor.replace(hand)  # the photo just taken
    elif before is not None and before[0] == seen.digest:
        tb.editor.change(hand)  # the same photo under other rules


def interpret_photo(seen: PhotoSeen, rules: Ruleset, hand_tiles: tuple[int, ...] | None) -> Reading:
    """The photo's reading for ``rules``, with the hand the reader chose or the tiles the player chose."""
    return interpret(seen.det, rules, True, 0, seen.name, timing=dict(seen.timing_ms), photo_warnings=seen.warnings,
                     frame=seen.frame, hand_tiles=None if hand_tiles is None else list(hand_tiles))


def move_group(tb: Tab, rules: Ruleset, tiles: list[int], into: bool) -> None:
    """One tap: the photo's tiles ``tiles`` (a group) go into the hand (``into``) or out of it onto the table; the
    hand is regrouped from the tiles now chosen, with the player's fixes kept (one undo step, logged)."""
    if tb.photo is None or tb.reading is None:
        return
    table = set(tb.reading.layout.apart)
    now = {i for i in range(len(tb.reading.det)) if i not in table}
    chosen = tuple(sorted(now | set(tiles) if into else now - set(tiles)))
    number = tile_numbers(tb.reading)
    note = {"what": "group", "from": "table" if into else "hand", "to": "hand" if into else "table",
            "tiles": [number.get(i, i) for i in tiles],
            "indices": list(tiles), "at": time.strftime("%Y-%m-%d %H:%M:%S")}
    reading = interpret_photo(tb.photo, rules, chosen)
    tb.editor.change(hand_from_reading(reading, tb.editor.fixes, rules), hand_tiles=chosen, note=note)
    tb.reading = reading
    if tb.derived_for is not None:
        tb.derived_for = (*tb.derived_for[:3], chosen)


def codes_now(reading: Reading, fixes: dict[int, str]) -> list[str]:
    """The reading's codes with the user's fixes on top."""
    return [fixes.get(i, c) for i, c in enumerate(reading.codes)]


def hand_from_reading(reading: Reading, fixes: dict[int, str], rules: Ruleset) -> HandState:
    """The hand state of a reading's groups, with feeders relative to the winner and flowers the ruleset does not
    use set aside."""
    codes = codes_now(reading, fixes)
    hand = HandState()
    for g in reading.layout.groups:
        tiles = [codes[i] for i in g.tiles if codes[i] != "remove"]
        if not tiles:
            continue
        if g.kind == "concealed":
            hand.concealed = tiles
        elif g.kind == "winning_tile":
            hand.winning = tiles[0]
        elif g.kind == "flowers":
            hand.flowers = [c for c in tiles if INDEX.get(c) in rules.flower_kinds]
            hand.set_aside = [c for c in tiles if INDEX.get(c) not in rules.flower_kinds]
        else:
            mtype = g.meld_type or "pung"
            hand.melds.append(MeldState(mtype, meld_tiles(mtype, tiles),
                                        None if mtype == "kong_concealed" else g.feeder or "left"))
    return hand


def fix_tile(tb: Tab, rules: Ruleset, tile: int, code: str) -> None:
    """The user's choice for one tile of the photo; the hand is regrouped from it (one undo step). A pung's or
    kong's faces are one face: fixing one of its tiles fixes its other face-up tiles too."""
    if tb.photo is None or tb.reading is None:
        return
    fixes = dict(tb.editor.fixes)
    fixes[tile] = code
    codes = codes_now(tb.reading, tb.editor.fixes)
    if code not in ("remove", "back"):
        for g in tb.reading.layout.groups:
            if tile in g.tiles and g.kind == "meld" and (g.meld_type or "pung") != "chow":
                fixes.update({i: code for i in g.tiles if codes[i] not in ("back", "remove")})
    note = {"what": "tile", "tile": tile_numbers(tb.reading).get(tile, tile), "index": tile, "from": codes[tile],
            "to": code, "read_as": tb.reading.codes[tile], "at": time.strftime("%Y-%m-%d %H:%M:%S")}
    tb.editor.change(hand_from_reading(tb.reading, fixes, rules), fixes=fixes, note=note)


def shown_groups(reading: Reading) -> list[list[int]]:
    """The reading's groups in the order the page draws them: concealed tiles, winning tile, melds, flowers."""
    rank = {"concealed": 0, "winning_tile": 1, "meld": 2, "flowers": 3}
    return [g.tiles for g in sorted(reading.layout.groups, key=lambda g: rank.get(g.kind, 4))]


def tile_order(reading: Reading) -> list[int]:
    """The reading's tiles in the order the page shows and numbers them (as the photo's crops are drawn), then
    any tile left out of the groups."""
    order = [i for g in shown_groups(reading) for i in g]
    placed = set(order)
    return order + [i for i in range(len(reading.codes)) if i not in placed]


def tile_numbers(reading: Reading) -> dict[int, int]:
    """Each tile's number on the page, from 1 in ``tile_order``: the tap list, the picker and the photo's boxes."""
    return {i: k + 1 for k, i in enumerate(tile_order(reading))}


def numbered_photo(seen: PhotoSeen, reading: Reading, doubts: set[int]) -> np.ndarray:
    """The photo with each tile's box numbered as the page numbers it (``tile_order``, from 1) and red where the
    reading flags it, so that tile #3 on the photo is the #3 the player taps; the detection-time picture when the
    clean photo is not kept."""
    if seen.clean is None:
        return seen.image
    number = tile_numbers(reading)
    table = set(reading.layout.apart)  # tiles left out of the hand: on the table, drawn dimmed
    tiles = [{"box": [float(v) for v in reading.det.xyxy[i]], "doubt": i in doubts, "number": number[i],
              "on_table": i in table} for i in range(len(reading.det))]
    # (``clean`` is RGB, downsized from the photo as read; ``annotate`` draws on BGR and gives RGB back)
    box_scale = seen.width / max(seen.clean.shape[1], 1)
    drawn = annotate(np.ascontiguousarray(seen.clean[..., ::-1]), tiles, box_scale=box_scale)
    return around_tiles(drawn, reading.det.xyxy / box_scale) if reading.det.levelled else drawn


LEVELLED_MARGIN = 3.0  # tile heights of table kept around the tiles of a photo shown levelled


def around_tiles(img: np.ndarray, xyxy: np.ndarray) -> np.ndarray:
    """The part of a levelled photo around its tiles (``LEVELLED_MARGIN`` tile heights on each side): turned level
    on a larger canvas, a hand shot askew is small on a phone's screen, and the canvas's grey corners show nothing."""
    if not len(xyxy):
        return img
    pad = LEVELLED_MARGIN * float(np.median(xyxy[:, 3] - xyxy[:, 1]))
    h, w = img.shape[:2]
    x1, y1 = max(int(xyxy[:, 0].min() - pad), 0), max(int(xyxy[:, 1].min() - pad), 0)
    x2, y2 = min(int(xyxy[:, 2].max() + pad), w), min(int(xyxy[:, 3].max() + pad), h)
    return img[y1:y2, x1:x2] if x2 > x1 and y2 > y1 else img
