"""Tile crops for the classifier, cut the same way in training and at run time."""

from __future__ import annotations

import cv2
import numpy as np

from .detections import aspects
from .geometry import tile_size
from .repair import SLIVER

CROP_SIZE = 64
CROP_PAD = 0.08
INK_FROM_IVORY = 30.0  # Lab distance from the face's ivory at which a pixel is ink
INK_CORE = 0.2  # the middle part of a face, each way, whose ink tells a face from the blank white dragon
EVEN_CORE = 0.05  # a core with less of it far from its own brightest fifth is of one colour: no ink, where
SHADE_FROM_IVORY = 60.0  # its median is this near the face's ivory (Lab) at most: a shade (smeared ink: 140)
INK_FACE_LIGHT = 120.0  # Lab lightness (0-255) of a face's brightest fifth under which the crop holds no face (a
# box over dark cloth with a sliver of a tile; composed rot90 hand 16: 96; held-out faces in dim light 165 and more,
# 98 % of the `valid` crops read blank 148 and more)


def tile_crop(img: np.ndarray, box: np.ndarray | tuple[float, float, float, float], size: int = CROP_SIZE,
              pad: float = CROP_PAD, turn: bool | None = None) -> tuple[np.ndarray, bool]:
    """Cut one box (padded by ``pad`` of its size) and resize to size x size, turned upright when ``turn``.

    ``turn`` None means: turn landscape boxes. Returns the BGR crop and whether it was turned.
    """
    h, w = img.shape[:2]
    x1, y1, x2, y2 = (float(v) for v in box)
    bw, bh = x2 - x1, y2 - y1
    px, py = bw * pad, bh * pad
    xa, ya = max(0, int(round(x1 - px))), max(0, int(round(y1 - py)))
    xb, yb = min(w, int(round(x2 + px))), min(h, int(round(y2 + py)))
    crop = img[ya:max(yb, ya + 1), xa:max(xb, xa + 1)]
    sideways = bw > 1.1 * bh if turn is None else turn
    return _as_crop(crop, sideways, size), sideways


def _as_crop(patch: np.ndarray, sideways: bool, size: int) -> np.ndarray:
    """A cut-out tile as the classifier's square crop: turned upright when it lies sideways, then resized."""
    if sideways:
        patch = cv2.rotate(patch, cv2.ROTATE_90_CLOCKWISE)
    interp = cv2.INTER_AREA if patch.shape[0] > size else cv2.INTER_LINEAR
    return cv2.resize(patch, (size, size), interpolation=interp)


def crops_to_batch(crops: list[np.ndarray]) -> np.ndarray:
    """BGR uint8 crops -> float32 NCHW RGB batch in [0, 1]."""
    if not crops:
        return np.zeros((0, 3, CROP_SIZE, CROP_SIZE), np.float32)
    arr = np.stack(crops)[..., ::-1].astype(np.float32) / 255.0
    return np.ascontiguousarray(arr.transpose(0, 3, 1, 2))


def orientation(xyxy: np.ndarray, upright: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Which boxes to turn upright for the classifier, and which tiles lie sideways relative to the others.

    Compared with the median aspect, so a photo taken at an angle (all tiles look wide) or turned by 90
    degrees (all tiles landscape) does not mark every tile sideways. ``upright``: the aspect of a run of upright
    tiles touching side by side (``orientation.run_aspect``), a hand as shot; where the wall of backs and the
    discards around it make the boxes landscape as a rule, the hand's tiles are the measure, not the table's.
    """
    if len(xyxy) == 0:
        return np.zeros(0, bool), np.zeros(0, bool)
    aspect = aspects(xyxy)
    med = float(np.median(aspect))
    # (a run of upright tiles touching, the hand as shot, is no pitched photo: only the discards around it are wide)
    squashed = med > 1.0 and (squat(xyxy) or upright is None and pitched_rows(xyxy))
    if upright is not None and not squashed:
        med = upright  # (discards lying at every angle around the hand make the median squarer too)
    if med <= 1.0 or squashed:
        # a tile turned sideways is about 1/med wide (1.3-1.5 for real tiles); seen at an angle, or cut a little
        # tight, it can come out barely landscape, so 1.3 x the median is the test, and landscape at least
        side = aspect > max(1.0, 1.3 * med)
        # a sideways tile boxed a little tight (short of its length) is barely landscape, or not at all, but it is
        # clearly lower than the row's boxes: its height is the tile's width
        height = xyxy[:, 3] - xyxy[:, 1]
        side |= (height <= LOW_SIDE * float(np.median(height))) & (aspect > max(LOW_SIDE_SQUARE, LOW_SIDE_WIDER * med))
        return side, side
    return aspect > 1.0, aspect < med / 1.3


LOW_SIDE, LOW_SIDE_WIDER, LOW_SIDE_SQUARE = 0.85, 1.15, 0.9  # a box this low for the median box, this much wider
# in aspect and at least this wide for its height is a sideways tile (held out: pitch45 hand 3, a meld's sideways
# 9p boxed 58 x 44 among 60 x 57 boxes; upright hand 23, a sideways 7s boxed 68 x 69 among 63 x 88 boxes)
SQUAT = 1.3  # the widest median box of upright tiles seen from a phone pitched steeply (45 degrees: 1.0-1.3, the
# boxes holding the tiles' near sides)


def squat(xyxy: np.ndarray) -> bool:
    """Whether boxes just landscape as a rule (median width over height 1.0-1.2) are upright tiles foreshortened
    by a steep pitch, not a photo turned by a quarter (1.3 and more) nor loose tiles lying every which way: they
    lie side by side in rows, some are far wider still (the melds' sideways tiles, 1.3 times the median or more),
    and none is clearly portrait but slivers (under ``SLIVER`` wide for their height: parts of tiles the finder
    boxed apart; a sideways tile of a photo turned by a quarter is about 0.75)."""
    aspect = aspects(xyxy)
    med = float(np.median(aspect)) if len(aspect) else 0.0
    portrait = aspect < med / 1.3
    return (1.0 < med <= SQUAT and bool((aspect > 1.3 * med).any()) and bool((aspect[portrait] < SLIVER).all())
            and side_by_side(xyxy))


def side_by_side(xyxy: np.ndarray, share: float = 0.5) -> bool:
    """Whether the boxes' nearest neighbours lie beside them rather than above or below, for more than ``share`` of
    them (a rule: half; at least four boxes): tiles in rows across the photo (a hand as shot), where a photo turned by
    a quarter has them in columns."""
    if len(xyxy) < 4:
        return False
    c = np.stack([(xyxy[:, 0] + xyxy[:, 2]) / 2, (xyxy[:, 1] + xyxy[:, 3]) / 2], 1)
    d = np.linalg.norm(c[:, None] - c[None], axis=2)
    np.fill_diagonal(d, np.inf)
    near = c[d.argmin(1)] - c
    return float(np.mean(np.abs(near[:, 0]) > np.abs(near[:, 1]))) > share


PITCHED_MOST = 1.2  # the widest median box (width / height) of a hand shot pitched (a turned one: 1.3 and more)
PITCHED_ROWS = 0.8  # the share of boxes whose nearest neighbour lies beside them in a pitched hand's rows (tiles in
# a tray seen from above lie in a grid, about half)


def pitched_rows(xyxy: np.ndarray) -> bool:
    """Whether boxes just landscape as a rule (median width over height over 1.0, at most ``PITCHED_MOST``) lie side
    by side across the photo, nearly all of them (``PITCHED_ROWS``): a hand shot from a phone pitched steeply, its
    squat tiles looking like tiles turned by a quarter; a photo turned by a quarter has its tiles one above the
    other, and one of tiles in a tray seen from above (a shared photo, turned) has them in a grid."""
    if len(xyxy) < 4:
        return False
    return 1.0 < float(np.median(aspects(xyxy))) <= PITCHED_MOST and side_by_side(xyxy, PITCHED_ROWS)


HAND_LIKE = 0.15  # a box whose width over height is within this share of the hand's tiles' stands like them


def quarter_turnable(xyxy: np.ndarray, low: float = 0.8, hand: float | None = None) -> np.ndarray:
    """Boxes whose upright end the turn rule of ``orientation`` may have got wrong by a quarter turn: nearly
    square ones (a tile lying near 45 degrees), or every box where the photo's boxes are landscape as a rule
    (a photo turned by 90 degrees, or one stretched so far that upright tiles come out landscape). Where the photo
    shows a hand standing (``hand``: its upright tiles' width over height, ``orientation.run_aspect``), a box of
    that shape (within ``HAND_LIKE``) is a tile standing like the hand's, not one turned: a squat tile of a
    pitched hand read a quarter turned is another face (held-out handheld, seed 6: a 6p set apart read 1p). So is
    a box shaped like the rest where they are a hand shot pitched so steeply that its tiles look landscape
    (``squat``, ``pitched_rows``; held-out pitch45 hand 5, seed 6: a pung of Easts read as 1s)."""
    if len(xyxy) == 0:
        return np.zeros(0, bool)
    aspect = aspects(xyxy)
    med = float(np.median(aspect))
    pitched = med > 1.0 and (squat(xyxy) or pitched_rows(xyxy))
    if med > 1.0 and not pitched:
        return np.ones(len(xyxy), bool)
    turnable = (aspect >= low) & (aspect <= 1 / low)
    like = hand if hand is not None else med if pitched else None
    return turnable if like is None else turnable & (np.abs(aspect / like - 1.0) > HAND_LIKE)


def washed_boxes(img: np.ndarray, xyxy: np.ndarray, share: float) -> np.ndarray:
    """Which boxes of a photo lie mostly on a blown-out patch (``washed_share`` of the box's own pixels at least
    ``share``): a glare spot's wash, whose box has the wash's shape (taller, wider) rather than its tile's."""
    h, w = img.shape[:2]
    out = np.zeros(len(xyxy), bool)
    for i, (x1, y1, x2, y2) in enumerate(np.asarray(xyxy, np.float32)):
        xa, ya, xb, yb = int(max(0, x1)), int(max(0, y1)), int(min(w, x2)), int(min(h, y2))
        out[i] = xb > xa and yb > ya and washed_share(img[ya:yb, xa:xb]) >= share
    return out


def washed_share(crop: np.ndarray) -> float:
    """Share of a crop's inner part that is blown out to white in every channel (a glare spot on a glossy tile).
    Real tile faces, the blank white dragon included, stay under 245 in some channel: on the shared photos no
    crop has even a tenth of its inner part blown out."""
    h, w = crop.shape[:2]
    inner = crop[h // 8: h - h // 8, w // 8: w - w // 8]
    return float((inner.min(2) >= 245).mean()) if inner.size else 0.0


def centre_ink(crop: np.ndarray) -> float:
    """Share of a crop's core (the middle ``INK_CORE`` each way) whose colour is far from the face's ivory (the
    brightest fifth of the face inside the padding): 0 for a blank face, the white dragon framed or not and a plain
    back, and much of it for a character drawn across the face, even smeared by motion blur or in dim light. The
    core, not the middle 40 %: a framed white dragon cut a little off its tile shows its frame's inner edge there
    (on the shared `valid` photos, the middle 40 % of 5 % of the crops read blank was over 0.27 inked, the core of
    5 % over 0.05). A core of one even colour near the ivory is no ink: the shaded inside of a framed white dragon
    (a `valid` photo's: 0.42 of its core off the ivory, 0.01 off the core's own brightest fifth, its median 28 Lab
    units off the ivory; a smeared West's strokes: 0.2-0.28 off it; a core all smeared ink: 140 units off)."""
    lab = face_lab(crop)
    fh, fw = lab.shape[:2]
    if fh < 5 or fw < 5:
        return 0.0
    ivory = brightest(lab)
    if ivory[0] < INK_FACE_LIGHT:  # no ivory face: a patch of dark table boxed as a tile has no ink to measure
        return 0.0
    a, b = (1 - INK_CORE) / 2, (1 + INK_CORE) / 2
    centre = lab[int(fh * a):int(np.ceil(fh * b)), int(fw * a):int(np.ceil(fw * b))]
    off = np.linalg.norm(centre - ivory, axis=2)
    if float((np.linalg.norm(centre - brightest(centre), axis=2) > INK_FROM_IVORY).mean()) < EVEN_CORE \
            and float(np.median(off)) < SHADE_FROM_IVORY:
        return 0.0  # (one colour across the core, near the ivory: a shadow or a tint, no strokes)
    return float((off > INK_FROM_IVORY).mean())


def face_lab(crop: np.ndarray) -> np.ndarray:
    """The crop's tile without its padding (``CROP_PAD``), in Lab (8-bit scale), as float pixels (rows, columns,
    3)."""
    h, w = crop.shape[:2]
    py, px = int(round(h * CROP_PAD)), int(round(w * CROP_PAD))
    face = np.ascontiguousarray(crop[py:h - py, px:w - px])
    if not face.size:  # (a crop too small to hold a face: nothing to convert)
        return np.zeros((*face.shape[:2], 3), np.float32)
    return cv2.cvtColor(face, cv2.COLOR_BGR2LAB).astype(np.float32)


def brightest(lab: np.ndarray, percent: int = 20) -> np.ndarray:
    """The median Lab colour of the brightest ``percent`` of a Lab picture's pixels (the fifth: a face's ivory)."""
    light = lab[..., 0]
    return np.median(lab[light >= np.percentile(light, 100 - percent)], axis=0)


def face_ivory(crop: np.ndarray) -> np.ndarray:
    """The Lab colour (8-bit scale) of a face's ivory: its crop's brightest fifth."""
    return brightest(cv2.cvtColor(np.ascontiguousarray(crop), cv2.COLOR_BGR2LAB).astype(np.float32))


def middle_colour(crop: np.ndarray) -> np.ndarray:
    """The mean Lab colour (8-bit scale) of a crop's middle half each way."""
    h, w = crop.shape[:2]
    mid = np.ascontiguousarray(crop[h // 4:h - h // 4, w // 4:w - w // 4])
    return cv2.cvtColor(mid, cv2.COLOR_BGR2LAB).astype(np.float32).reshape(-1, 3).mean(0)


def oriented_crop(img: np.ndarray, box: np.ndarray | tuple[float, float, float, float], angle: float,
                  size: int = CROP_SIZE, pad: float = CROP_PAD, turn: bool | None = None) -> tuple[np.ndarray, bool]:
    """Cut a tile lying along a row at ``angle`` degrees from its axis-aligned box: the tile's own rectangle (the
    box's size undone for the turn) turned level, so the crop does not take in a neighbour's edge. Falls back to
    ``tile_crop`` where the box cannot hold such a rectangle. Returns the crop and whether it was turned."""
    x1, y1, x2, y2 = (float(v) for v in box)
    wh = tile_size(box, angle)
    if wh is None:
        return tile_crop(img, box, size, pad, turn)
    w, h = wh
    pw, ph = max(2, int(round(w * (1 + 2 * pad)))), max(2, int(round(h * (1 + 2 * pad))))
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    ca, sa = np.cos(np.radians(angle)), np.sin(np.radians(angle))
    # patch pixel (u, v) -> photo pixel: the patch's x axis runs along the row
    m = np.array([[ca, -sa, cx - ca * pw / 2 + sa * ph / 2], [sa, ca, cy - sa * pw / 2 - ca * ph / 2]], np.float64)
    patch = cv2.warpAffine(img, m, (pw, ph), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                           borderMode=cv2.BORDER_REPLICATE)
    sideways = w > 1.1 * h if turn is None else turn
    return _as_crop(patch, sideways, size), sideways
