"""A photo whose rows run at a slant (a phone held askew) is read turned level in its plane, where its tiles stand
upright as the finder, the crops and the layout expect them."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .detections import Detections
from .finder import SURE, confident_mass
from .finding import LEVEL_STEEPEST, LOOSE_ROWS, Found, Search, from_copy, steep_rows_agree
from .geometry import level_boxes, level_image, row_direction, turn_boxes, turn_image, turned_shape
from .orientation import landscape
from .repair import repair_rows
from .zoom import ZOOM_MIN_SURE

EDGE_FIRST_SIZE = 2.0  # a photo levelled by its edges' slant: its first pass reads it at twice the usual size


@dataclass(frozen=True)
class LevelConfig:
    """``level_photo_from``: rows at this slant (degrees) or more have the whole photo read turned level (0: never)."""

    level_photo_from: float = 15.0


@dataclass
class Levelled:
    """The photo as the finder read it (turned level, or as it was), its ``Found``, and the degrees it was turned."""

    img: np.ndarray
    found: Found
    angle: float = 0.0


class Levelling:
    """Reads a photo levelled where its rows run at a slant, with the search ``search``."""

    def __init__(self, search: Search, config: LevelConfig | None = None) -> None:
        self.search = search
        self.config = config or LevelConfig()

    def read(self, img: np.ndarray) -> Levelled:
        """The photo's reading: ``Search.find``'s, or where its rows run at ``level_photo_from`` degrees or more, that
        of the photo turned level when that is as sure (a first pass whose rows run at a slant comes back as it is:
        the slanted photo's own retries and zoomed pass are then not needed)."""
        return self._level(img, self.search.find(img, self.config.level_photo_from))

    def _slant(self, img: np.ndarray, found: Found) -> tuple[float, float, int]:
        """The slant to level the photo by (0: none), the slant its rows alone show, and the quarter turns to read
        it at. The rows' direction alone counts (boxes around tilted tiles come out squarer or longer than tiles,
        so ``row_angle``'s check of their shapes would rule out many), in the frame the finder read."""
        det, quarter, early = found.det, found.quarter, found.slant
        photo_from = self.config.level_photo_from
        rows = turn_boxes(det.xyxy, img.shape, quarter) if quarter else det.xyxy
        by_rows = row_direction(rows, LOOSE_ROWS if early is not None else 5.0, LEVEL_STEEPEST)
        by_rows = by_rows if steep_rows_agree(img, det.xyxy, by_rows) else 0.0
        slant = by_rows if early is None else early
        if abs(slant) < photo_from and landscape(Detections(rows, det.confidence)):
            # tiles lying landscape in the frame read, with no rows across it: a photo turned by a quarter and held
            # askew the other way, whose rows run 50-75 degrees up the picture, which the finder did not read
            # turned; in the frame turned by one more quarter its rows run at a slant
            steep = row_direction(turn_boxes(det.xyxy, img.shape, (quarter + 1) % 4), 5.0, LEVEL_STEEPEST)
            if abs(steep) >= photo_from and steep_rows_agree(img, det.xyxy, steep):
                slant, quarter = steep, (quarter + 1) % 4
        return (slant if abs(slant) >= photo_from else 0.0), by_rows, quarter

    def _level(self, img: np.ndarray, found: Found) -> Levelled:
        """``found``, or the reading of the photo turned level when its rows run at a slant and that is as sure.
        Turns in the plane add up in any order, so a photo also turned by a quarter is levelled by the slant its
        turned rows show, and read turned by the same quarter. A slant from the photo's edges alone holds modulo a
        quarter turn: the photo is levelled both ways and the surer reading kept. ``found.slant``: ``found`` is a
        first pass alone, read in full when the levelled reading is not kept."""
        if not self.config.level_photo_from:
            return Levelled(img, found)
        slant, by_rows, quarter = self._slant(img, found)
        if not slant:
            return Levelled(img, Found(found.det, quarter, found.veil))
        det, early = found.det, found.slant
        by_edges = early is not None and abs(by_rows) < self.config.level_photo_from
        kept: Levelled | None = None
        before = confident_mass(det)
        for angle in (slant, slant - np.copysign(90.0, slant)) if by_edges else (slant,):
            # (the two ways are compared by their sure boxes: neither is read sharpened, which would tip the scale)
            level, again = self.levelled(img, Detections.empty() if by_edges else det, float(angle), quarter,
                                         False if by_edges else None)
            if self._as_sure(again, level, det, quarter, before, by_edges) and (
                    kept is None or confident_mass(again.det) > confident_mass(kept.found.det)):
                kept = Levelled(level, again, float(angle))
        if kept is not None:
            return kept
        if early is not None:  # the levelled reading went wrong: the slanted photo read in full, as before (and
            # levelled by the rows of that reading, if they run at a slant)
            return self._level(img, self.search.find(img))
        return Levelled(img, Found(det, quarter, found.veil))

    def _as_sure(self, again: Found, level: np.ndarray, det: Detections, quarter: int, before: float,
                 by_edges: bool) -> bool:
        """Whether a levelled reading is kept: about as sure as the slanted reading (its own zoomed pass read the
        rows levelled, at another size), with as many boxes, its rows level and its tiles upright (not those of a
        photo turned by a quarter whose columns side by side looked slanted); where only the edges gave the slant,
        clearly surer than the first pass that saw little."""
        upright = Detections(turn_boxes(again.det.xyxy, level.shape, again.quarter), again.det.confidence)
        mass = confident_mass(again.det)
        return bool((mass >= 1.2 * before + 1.0 if by_edges else again.quarter == quarter and mass >= 0.7 * before)
                    and len(again.det) >= 0.9 * len(det)
                    and abs(row_direction(upright.xyxy)) < self.config.level_photo_from and not landscape(upright))

    def levelled(self, img: np.ndarray, det: Detections, angle: float, quarter: int = 0, sharp: bool | None = None
                 ) -> tuple[np.ndarray, Found]:
        """The photo turned so that rows at ``angle`` degrees run level, and its reading (boxes in its own pixels).
        Where the slanted reading ``det`` (of a photo read turned by ``quarter``) holds small tiles, one zoomed pass
        over the levelled region they place, turned by ``quarter`` (the levelled photo's corners make it larger, so
        a first pass there sees its tiles smaller still); else a full ``find`` (``sharp`` as there, unless the
        slanted reading was sharpened)."""
        level = level_image(img, angle)
        search = self.search
        if search.zoom.on:
            # (the veil of the photo as it lies, as ``find`` measures it; quarter turns and the sharpening commute)
            small, veil = search.working_copy(level, det.sharpened)
            small = turn_image(small, quarter)
            shape = turned_shape(level.shape, quarter)
            guess = det.copy()
            boxes = level_boxes(det.xyxy, img.shape, angle)
            guess.xyxy = turn_boxes(boxes, level.shape, quarter) * np.float32(small.shape[1] / shape[1])
            # (the region reaches further along the rows: the slanted first pass misses tiles at their ends)
            zoomed = search.zoom.read(small, guess, reach=search.finder.config.conf, along=3.0)
            if zoomed is not None:
                found = from_copy(zoomed, (small.shape[1] / shape[1], small.shape[0] / shape[0]), shape)
                found = repair_rows(found) if search.config.repair else found
                found.xyxy = turn_boxes(found.xyxy, shape, -quarter)
                found.sharpened = det.sharpened
                return level, Found(found, quarter, veil)
        # (no region placed: the slant came from the photo's edges, or the slanted first pass was sure of fewer than
        # 2 boxes, its tiles too small to be sure of; the larger levelled photo shows its tiles smaller still, so
        # its first pass reads it at twice the usual size)
        weak = int((det.confidence >= SURE).sum()) < ZOOM_MIN_SURE
        return level, search.find(level, first_size=EDGE_FIRST_SIZE if weak else 1.0, sharp=det.sharpened or sharp)
