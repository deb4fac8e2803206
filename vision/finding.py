"""Finding the tiles of a photo: the finder's first pass, and the transforms of the photo tried where it is
unsure (sharpened, turned by a quarter, un-stretched, enlarged). Boxes come back in the photo's own pixels."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .apart import lost_at_row_ends
from .blur import blurred, sharpened
from .crops import PITCHED_MOST, side_by_side
from .detections import Detections, aspects, box_areas, intersections, squashed
from .ends import past_row_ends
from .finder import SURE, Finder, confident_mass
from .gaps import filled_holes
from .geometry import ROW_ANGLE_MAX, ROW_ANGLE_MIN, rows_across, turn_boxes, turn_image, turned_shape
from .glare import take_off, veil_map
from .orientation import edge_slant, landscape, upright_run
from .regrid import regridded
from .repair import join_parts, repair_rows
from .zoom import Zoom

# (x factor, y factor) tried when the finder is unsure of a photo: un-stretching a squashed photo
ASPECT_RETRIES = ((1.0, 0.5), (1.0, 0.25), (1.0, 0.125), (0.5, 1.0), (0.25, 1.0), (0.125, 1.0))
TURNED_TILE = 1.8  # the widest median box (width / height) taken for a tile turned by a quarter
PITCHED_MARGIN = 1.15  # how much surer a photo that looks shot pitched must read turned to be taken as turned
LOOSE_ROWS = 10.0  # degrees within which a low-resolution first pass's neighbour pairs must agree on a slant
LEVEL_STEEPEST = 75.0  # degrees: the steepest rows read levelled (steeper, a photo turned by a quarter and held askew)
WEAK_FIRST_PASS = 8  # sure boxes: a first pass with fewer (and no rows) has the photo's edges measured for a slant
EDGE_SLANT_MATCH = 10.0  # degrees: rows steeper than ROW_ANGLE_MAX count when the edges' slant is this close
EDGE_AGREEMENT = 0.15  # how well the edges must agree on a slant (a hand's tiles give 0.2-0.6)
SQUARISH = 1.15  # the widest median box taken for tiles tilted in the photo's plane rather than turned by a quarter
CLOSE_UP = 80.0  # input pixels along a tile (its long side) from which the first pass is read again halved
INSIDE = 0.7  # the share of a box's area inside a larger box from which it is a part of that box's tile
PART = 0.45  # the largest part of a tile, a share of its box's area (a bamboo tile's column of sticks: a third)
# a close-up still read in parts is read smaller, at these shares of the first pass's input, until its boxes are
# whole tiles (the finder learnt tiles 20-60 input pixels across; a tile filling a quarter of the frame is 100+)
CLOSE_UP_SHARES = (1 / 3, 1 / 4, 1 / 6)
UPRIGHT_TILE = (0.5, 0.95)  # width / height of a box that is a whole tile standing up (a column of sticks: 0.2-0.4)
SIDEWAYS_TILE = (1.05, 2.0)  # width / height of a box that is a whole tile lying sideways
MOST_PARTS = 4  # parts of one close-up tile the finder boxes apart at most (a 9 of bamboo's columns: 3)
SPANS = 0.75  # a part spans this much of its tile's height or width at least


@dataclass(frozen=True)
class SearchConfig:
    """Which transforms of the photo the search tries. ``retry_below``: a mean finder score under it is unsure
    (0: never); ``photo_turn``: a photo of landscape tiles is read turned by a quarter; ``turn_zoom``: that read is
    the zoomed pass over the turned photo; ``zoom_after_retry``: an unsure photo no squashing helped is read
    enlarged too; ``repair``: tiles cut in two joined, phantoms dropped; ``deglare``: read with the glare veil taken
    off; ``deblur``: a blurred photo the finder is unsure of is read sharpened too; ``blurred_linear``: the
    working copy is shrunk by a blur and bilinear resampling rather than area averaging (``downscale``);
    ``close_up``: a close-up's tiles read as parts are made whole (``Search.is_close_up``: a pass at half
    the size, ``whole_tiles``, and ``repair.join_parts``); other photos never; ``row_ends``: the ends of rows seen
    from a pitched phone are read again (``ends.past_row_ends``); ``fill_holes``: a hole in a row of touching
    tiles that looks like its tiles, not the table, is filled with tiles (``gaps.filled_holes``); ``regrid``: the
    fewest touching boxes around a standing box wider than its neighbours that, with a tile-coloured hole beside
    them, span one tile more than they are boxes, a run of touching narrow boxes that spans one tile fewer, and a
    wide box touching a narrow one over as many tiles as boxes, are boxed again one tile at a time, and a narrow box
    with the rest of its tile beside it grows over it (``regrid.regridded``); ``set_apart``: a tile-coloured patch
    of a tile's size past a row's right end where no box lies, the table around it, is boxed as the tile set apart
    (``apart.tile_set_apart``); ``end_tiles``: a tile-coloured patch touching a row's end, a standing or a sideways
    tile's size, where no box lies, is boxed as the row's end tile (``apart.end_tiles``)."""

    retry_below: float = 0.6
    photo_turn: bool = True
    turn_zoom: bool = True
    zoom_after_retry: bool = True
    repair: bool = True
    deglare: bool = True
    deblur: bool = True
    blurred_linear: bool = False
    close_up: bool = True
    row_ends: bool = True
    fill_holes: bool = True
    regrid: bool = True
    set_apart: bool = True
    end_tiles: bool = True


@dataclass
class Found:
    """What the search found: boxes in the photo's pixels, the quarter turns (0 or 3) the photo was read at, the
    photo's glare veil (``glare.veil_map``: None without a blown-out spot), and, for a first pass returned early
    because its rows run at a slant, that slant (None otherwise)."""

    det: Detections
    quarter: int = 0
    veil: np.ndarray | None = None
    slant: float | None = None


def downscale(img: np.ndarray, max_side: float, blurred_linear: bool = False) -> np.ndarray:
    """A copy no larger than max_side on its long side (Gaussian halving, then area averaging); small photos as is.
    ``blurred_linear``: the last step a Gaussian blur matched to the shrink and bilinear resampling instead (a
    2016-px photo to 1248: about 4 ms instead of 12)."""
    h, w = img.shape[:2]
    if max(h, w) <= max_side:
        return img
    src = img
    while max(src.shape[:2]) >= 2 * max_side:
        src = cv2.pyrDown(src)
    r = max_side / max(src.shape[:2])
    size = (max(1, round(w * max_side / max(h, w))), max(1, round(h * max_side / max(h, w))))
    if blurred_linear:
        return cv2.resize(cv2.GaussianBlur(src, (0, 0), 0.5 * (1 / r - 1) + 0.3), size, interpolation=cv2.INTER_LINEAR)
    return cv2.resize(src, size, interpolation=cv2.INTER_AREA)


def steep_rows_agree(img: np.ndarray, xyxy: np.ndarray, slant: float) -> bool:
    """Whether rows found running steeper than ``ROW_ANGLE_MAX`` are a hand's: the photo's edges around the boxes
    run the same way, modulo a quarter turn (``orientation.edge_slant``). Loose tiles lying every which way and
    columns side by side give steep "rows" that the tiles' own edges do not."""
    if abs(slant) <= ROW_ANGLE_MAX:
        return True
    edges, agree = edge_slant(img, xyxy)
    return agree >= EDGE_AGREEMENT and abs((slant - edges + 45.0) % 90.0 - 45.0) <= EDGE_SLANT_MATCH


def first_pass_slant(small: np.ndarray, best: Detections, slant_from: float) -> float:
    """The slant of a first pass's rows, or where it saw little and no rows, of the photo's edges (modulo a quarter
    turn): the photo is read levelled by it when it is ``slant_from`` degrees or more; else 0."""
    # (the low-resolution pass places tilted tiles loosely, so its pairs need only agree within 10 degrees; steep
    # rows the edges deny are no rows)
    rows = rows_across(best.xyxy, LOOSE_ROWS, LEVEL_STEEPEST)
    trusted = rows is not None and steep_rows_agree(small, best.xyxy, rows)
    slant = 0.0
    # (not a photo turned by a quarter: its rows run up the picture, and two of them side by side look slanted; its
    # tiles' boxes are clearly landscape, where those of tiles tilted 20-30 degrees are about square)
    if trusted and rows is not None and not landscape(best, least=SQUARISH) \
            and ROW_ANGLE_MIN <= abs(rows) <= LEVEL_STEEPEST:
        slant = rows
    sure = best[best.confidence >= SURE]
    if abs(slant) < slant_from and len(sure) < WEAK_FIRST_PASS and not trusted:
        edges, agree = edge_slant(small, sure.xyxy) if len(sure) >= 3 else (0.0, 0.0)
        if agree < EDGE_AGREEMENT:  # (around a few boxes the faces' strokes weigh more: the whole photo)
            edges, agree = edge_slant(small)
        slant = edges if agree >= EDGE_AGREEMENT else 0.0
    return slant if abs(slant) >= slant_from else 0.0


def whole_tiles(det: Detections, halved: Detections) -> Detections:
    """The first pass with each tile it cut into parts made whole: a sure box of the halved reading that holds two
    or more first-pass boxes (each ``INSIDE`` it or more, and at most ``PART`` of it) replaces them (a close-up's
    bamboo groups, dots and characters read as tiles of their own); every other first-pass box stays."""
    sure = halved[halved.confidence >= SURE]
    if not len(det) or not len(sure):
        return det
    area = np.maximum(box_areas(det.xyxy), 1e-6)[:, None]
    # (a part is well inside the whole and at most PART of it: two whole tiles of a loose pile are not merged)
    inside = (intersections(det.xyxy, sure.xyxy) >= INSIDE * area) & (area <= PART * box_areas(sure.xyxy)[None])
    holds = inside.sum(0) >= 2
    if not holds.any():
        return det
    parts = inside[:, holds].any(1)
    return Detections.boxes_of([det[~parts], sure[holds]])


def tile_shaped(det: Detections) -> bool:
    """Whether every sure box has a whole tile's shape, upright or sideways (not a sliver: a part of a tile)."""
    sure = det[det.confidence >= SURE]
    if not len(sure):
        return False
    r = aspects(sure.xyxy)
    upright = (r >= UPRIGHT_TILE[0]) & (r <= UPRIGHT_TILE[1])
    return bool((upright | ((r >= SIDEWAYS_TILE[0]) & (r <= SIDEWAYS_TILE[1]))).all())


def mean_score(det: Detections) -> float:
    """The finder's mean score over a reading's boxes (0 for none): how sure it is of each."""
    return float(det.confidence.mean()) if len(det) else 0.0


def parts_of_tiles(parts: np.ndarray, tiles: np.ndarray) -> bool:
    """Whether the boxes ``parts`` are parts of the boxes ``tiles`` as a close-up's tile is cut by the finder: each
    lies within one tile (``INSIDE`` of its area), spans most of that tile's height or width (a column of sticks,
    a row of dots), and no tile holds more than ``MOST_PARTS``. Tiles of a photo stretched to a square, read so small
    that several run together, hold many shorter slivers."""
    if not len(parts) or not len(tiles):
        return False
    inter = intersections(parts, tiles)
    owner = inter.argmax(1)
    if not bool((inter.max(1) >= INSIDE * np.maximum(box_areas(parts), 1e-6)).all()):
        return False
    if np.bincount(owner, minlength=len(tiles)).max() > MOST_PARTS:
        return False
    ps = np.stack([parts[:, 2] - parts[:, 0], parts[:, 3] - parts[:, 1]], 1)
    ts = np.stack([tiles[:, 2] - tiles[:, 0], tiles[:, 3] - tiles[:, 1]], 1)[owner]
    return bool((ps >= SPANS * ts).any(1).all())


def in_rows(turned: Detections, pitched: bool) -> bool:
    """Whether a photo read turned by a quarter shows its tiles side by side in rows, as a hand turned back upright
    does; asked only of a photo that looked shot pitched (its tiles side by side across it already): turned, a
    pitched hand's row runs up the picture, its tiles one above the other, though the finder may be surer of them."""
    return not pitched or side_by_side(turned.xyxy[turned.confidence >= SURE])


def from_copy(det: Detections, scale: tuple[float, float], shape: tuple[int, ...]) -> Detections:
    """Boxes from the downscaled copy's pixels to the photo's."""
    if len(det):
        det.xyxy[:, [0, 2]] = (det.xyxy[:, [0, 2]] / scale[0]).clip(0, shape[1])
        det.xyxy[:, [1, 3]] = (det.xyxy[:, [1, 3]] / scale[1]).clip(0, shape[0])
    return det


class Search:
    """The finder's passes over one photo (``find``), with the zoomed pass ``zoom``."""

    def __init__(self, finder: Finder, zoom: Zoom, config: SearchConfig | None = None) -> None:
        self.finder = finder
        self.zoom = zoom
        self.config = config or SearchConfig()

    def unsure(self, det: Detections) -> bool:
        """Whether the finder is unsure of a reading (nothing found, or mean score under ``retry_below``)."""
        below = self.config.retry_below
        return bool(below) and mean_score(det) < below

    def working_copy(self, img: np.ndarray, sharp: bool | None) -> tuple[np.ndarray, np.ndarray | None]:
        """The finder's working copy of a photo (at most ``zoom.work_side`` long), with the glare veil taken off
        (tiles under a highlight get their edges back) and sharpened when ``sharp``; and the veil (the same map
        serves the photo: it is smooth)."""
        small = downscale(img, self.zoom.work_side(), self.config.blurred_linear)
        veil = veil_map(small) if self.config.deglare else None
        small = take_off(small, veil)
        return (sharpened(small) if sharp else small), veil

    def find(self, img: np.ndarray, slant_from: float = 0.0, first_size: float = 1.0, sharp: bool | None = None
             ) -> Found:
        """Tile boxes in the photo's pixels, the quarter turns it was read at and its glare veil (``Found``).

        An unsure first pass is read again squashed along either axis (``unstretched``: exported datasets stretch
        photos to a square), sharpened where the photo measures blurred (``deblurred``), turned by a quarter where
        its tiles lie landscape (``turned``); small tiles are read again enlarged (``Zoom``); last, with ``repair``,
        tiles cut in two are joined and phantom boxes in a row's gaps dropped (``repair.repair_rows``).
        With ``slant_from``, a first pass whose rows (or, where it saw little, the photo's edges) run at that slant
        or more is returned as it is, with its slant: the reader reads such a photo levelled instead.
        ``first_size`` enlarges the first pass's input (a levelled photo whose tiles it would see too small);
        ``sharp`` True sharpens without asking (the same photo levelled), False never."""
        small, veil = self.working_copy(img, sharp)
        first_scale = None if first_size == 1.0 or not self.finder.stride else \
            first_size * self.finder.imgsz / max(small.shape[:2])
        best = self.finder.find(small, 1.0, 1.0, first_scale)
        close = self.config.close_up and self.is_close_up(small, best, first_scale)
        if close:  # a close-up: tiles the first pass cut into parts made whole by a pass at half the size
            best = whole_tiles(best, self.finder.find(small, 1.0, 1.0, self.input_scale(small, first_scale) / 2))
        if self.config.close_up and self.is_close_up(small, best, first_scale, slivers=True) and \
                not tile_shaped(best):
            smaller = self.smaller(small, best, first_scale)
            if smaller is not None and squashed(best.xyxy) and \
                    mean_score(self.unstretched(small, best)) > mean_score(smaller):
                smaller = None  # a photo stretched to a square: its un-stretched re-read is surer of each box
            close = close or smaller is not None
            best = best if smaller is None else smaller
        slant = first_pass_slant(small, best, slant_from) if slant_from else 0.0
        if slant:
            best = from_copy(best, (small.shape[1] / img.shape[1], small.shape[0] / img.shape[0]), img.shape)
            best.sharpened = bool(sharp)
            return Found(best, 0, veil, slant)
        if sharp is None and self.config.deblur and self.unsure(best) and blurred(small):
            small, best, sharp = self.deblurred(small, best, first_scale)
        small, best, k, zoomed = self.turned(small, best)
        shape = turned_shape(img.shape, k)
        scale = (small.shape[1] / shape[1], small.shape[0] / shape[0])
        if zoomed is None:  # (not read already, turned and enlarged)
            best = self.enlarged(small, best)
        if self.config.row_ends:
            best = past_row_ends(self.finder, small, best)
        if self.config.fill_holes:
            best = filled_holes(small, best)
        if self.config.regrid:
            best = regridded(small, best)
        best = lost_at_row_ends(small, best, self.config.end_tiles, self.config.set_apart)
        best = from_copy(best, scale, shape)
        best = repair_rows(best) if self.config.repair else best
        best = join_parts(best) if close else best
        best.xyxy = turn_boxes(best.xyxy, shape, -k)  # back in the photo's own pixels
        best.sharpened = bool(sharp)
        return Found(best, k, veil)

    def input_scale(self, small: np.ndarray, first_scale: float | None) -> float:
        """The first pass's input pixels per pixel of ``small``."""
        return first_scale or self.finder.imgsz / max(small.shape[:2])

    def is_close_up(self, small: np.ndarray, best: Detections, first_scale: float | None, slivers: bool = False
                    ) -> bool:
        """Whether the first pass saw the tiles longer than ``CLOSE_UP`` input pixels (a close-up: the finder
        learnt tiles of 20-60 across, and reads a larger one's groups of sticks or dots as tiles of their own; the
        long side, since those parts are as tall as the tile). A reading of slivers only (a photo stretched to a
        square, or a close-up read in columns of sticks) counts with ``slivers``."""
        sure = best[best.confidence >= SURE]
        if not len(sure) or (not slivers and squashed(best.xyxy)):
            return False
        return float(np.median(sure.sizes.max(1))) * self.input_scale(small, first_scale) >= CLOSE_UP

    def smaller(self, small: np.ndarray, best: Detections, first_scale: float | None) -> Detections | None:
        """A close-up still read in parts, read smaller (``CLOSE_UP_SHARES`` of the first pass's size) until the
        finder boxes whole tiles, surely (mean score ``SURE`` or more), with the sure boxes of ``best`` as their parts
        (``parts_of_tiles``): that reading, or None where no size does (a photo stretched to a square stays slivers,
        or runs its tiles together; the un-stretched re-read takes it)."""
        scale = self.input_scale(small, first_scale)
        sure = best[best.confidence >= SURE].xyxy
        for share in CLOSE_UP_SHARES:
            det = self.finder.find(small, 1.0, 1.0, scale * share)
            if mean_score(det) < SURE or not tile_shaped(det):
                continue
            return det if parts_of_tiles(sure, det.xyxy) else None
        return None

    def deblurred(self, small: np.ndarray, best: Detections, first_scale: float | None
                  ) -> tuple[np.ndarray, Detections, bool]:
        """A blurred photo's first pass read again sharpened (``blur``): the sharpened copy and its pass when its
        mass of sure boxes is clearly larger (1.5x + 0.5), else the copy and pass as they were; and which."""
        sharp_small = sharpened(small)
        again = self.finder.find(sharp_small, 1.0, 1.0, first_scale)
        sharp = confident_mass(again) >= 1.5 * confident_mass(best) + 0.5
        return (sharp_small, again, True) if sharp else (small, best, False)

    def enlarged(self, small: np.ndarray, best: Detections) -> Detections:
        """The first pass (``best``) un-stretched where it is unsure, then read enlarged where its tiles are small:
        a photo the finder was unsure of that no squashing helped (tiles turned in the plane, dim, blurred) is read
        enlarged as well, at the size the finder is surest of."""
        unsure = self.unsure(best)
        first = best
        if unsure:
            best = self.unstretched(small, best)
        if self.zoom.on and (not unsure or self.config.zoom_after_retry and best is first):
            # (all the unsure pass's boxes place the region, and the enlarged pass must find as many)
            zoomed = self.zoom.read(small, best, reach=self.finder.config.conf if unsure else SURE)
            best = best if zoomed is None else zoomed
        return best

    def turned(self, small: np.ndarray, best: Detections
               ) -> tuple[np.ndarray, Detections, int, Detections | None]:
        """Where the tiles lie landscape as a rule, as real tiles do when turned, the photo turned by a quarter (its
        rows run up the picture, where the finder, the zoomed pass and the row repair expect them across; which way
        does not matter) when that reads surer: the copy and boxes read, the quarter turns (0 or 3), and the zoomed
        pass when that was the reading (one finder pass fewer)."""
        # (a run of upright tiles touching side by side is a hand as shot, whatever lies landscape around it)
        if not (self.config.photo_turn and landscape(best, most=TURNED_TILE)) or upright_run(best):
            return small, best, 0, None
        # boxes just landscape (to PITCHED_MOST) whose neighbours lie side by side across the photo are likely upright
        # tiles seen from a phone pitched steeply (a photo turned by a quarter has its tiles one above the other):
        # read turned, such a photo must then be clearly surer to be taken as turned
        pitched = not landscape(best, most=TURNED_TILE, least=PITCHED_MOST) and \
            side_by_side(best.xyxy[best.confidence >= SURE])
        margin = PITCHED_MARGIN if pitched else 1.0
        upright = turn_image(small, 3)
        if not self.unsure(best) and self.zoom.on and self.config.turn_zoom:
            # small tiles: the zoomed pass over the turned photo, placed by the first pass's boxes turned
            guess = best.copy()
            guess.xyxy = turn_boxes(best.xyxy, small.shape, 3)
            # (the finder is less sure of tiles lying sideways: the region holds all its boxes)
            zoomed = self.zoom.read(upright, guess, reach=self.finder.config.conf)
            # (it must show the tiles upright, and hold as many boxes as the first: a tile it lost was maybe one
            # the first pass was unsure of)
            if (zoomed is not None and not landscape(zoomed) and len(zoomed) >= len(best)
                    and confident_mass(zoomed) >= margin * confident_mass(best) and in_rows(zoomed, pitched)):
                return upright, zoomed, 3, zoomed
        turned = self.finder.find(upright, 1.0, 1.0)
        if len(turned) and not landscape(turned) and confident_mass(turned) >= margin * confident_mass(best) \
                and in_rows(turned, pitched):
            return upright, turned, 3, None
        return small, best, 0, None

    def unstretched(self, small: np.ndarray, first: Detections) -> Detections:
        """The surest reading of a photo the finder was unsure of, among it squashed 2x, 4x and 8x along either
        axis. A squashed reading replaces the first pass only when its mass of confident boxes is clearly larger
        (1.5x + 0.5); of the readings with at least 0.6 of the largest mass, the one with the highest mean score
        is kept: squashed too little, a tile's groups of bamboo sticks pass for tiles of their own (more boxes,
        more mass, each less sure)."""
        first_mass = confident_mass(first)
        passes = (self.finder.find(small, fx, fy) for fx, fy in ASPECT_RETRIES)
        readings = [(det, confident_mass(det)) for det in passes]
        most = max(mass for _, mass in readings)
        if most < 1.5 * first_mass + 0.5:
            return first
        strong = [det for det, mass in readings if mass >= 0.6 * most]
        return max(strong, key=mean_score)
