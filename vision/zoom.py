"""The zoomed pass: where the first pass found the tiles small, their region is read again enlarged."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from .detections import Detections, box_areas, intersections
from .finder import SURE, Finder, suppress_contained
from .geometry import level_rotation, moved, row_angle, tilted_boxes

SMALL_PHOTO = 1000  # px on the long side: a photo this small may be enlarged by the zoomed pass (``zoom_small``)
ZOOM_MIN_SURE = 2  # sure boxes a zoomed pass needs to place its region and size its tiles


@dataclass(frozen=True)
class ZoomConfig:
    """When and how far the tiles' region is read again enlarged.

    ``zoom_below``: a tile under this many input pixels is small; ``zoom_to``: input pixels per tile in the zoomed pass;
    ``zoom_max``: the finder's working copy is at most this many times its input size; ``zoom_conf``: the zoomed pass's
    score cut; ``zoom_area``: its input area is at most this many times the first pass's; ``zoom_small``: how far a
    small photo may be enlarged beyond its pixels; ``zoom_adds``: sure first-pass tiles the zoomed pass lost are kept;
    ``level_from``: rows at this slant (degrees) or more are read turned level."""

    zoom_below: float = 40.0
    zoom_to: float = 80.0
    zoom_max: float = 3.0
    zoom_conf: float = 0.4
    zoom_area: float = 2.0
    zoom_small: float = 2.0
    zoom_adds: bool = True
    zoom_margin: float = 1.5
    level_from: float = 12.0


def levelled_region(small: np.ndarray, held: np.ndarray, tile: float, angle: float
                    ) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]:
    """The region of ``zoom_small`` around the boxes ``held``, turned so that rows running at ``angle`` degrees (a phone
    turned in its plane) run level: there the finder sees upright tiles side by side, as it was trained to. Also
    the map of boxes found there back to ``zoom_small``'s pixels, each as the axis-aligned box of its tile turned by
    ``angle`` (the box the oriented crops and the layout undo)."""
    # photo -> level: turned so that rows at +angle run level, then the region's corner shifted to 0
    lx, ly = moved(level_rotation(angle), (held[:, 0] + held[:, 2]) / 2, (held[:, 1] + held[:, 3]) / 2)
    m = level_rotation(angle, (float(lx.min() - 2 * tile), float(ly.min() - 2 * tile)))
    width, height = int(lx.max() - lx.min() + 4 * tile), int(ly.max() - ly.min() + 4 * tile)
    level = cv2.warpAffine(small, m, (max(width, 8), max(height, 8)), flags=cv2.INTER_LINEAR,
                           borderMode=cv2.BORDER_REPLICATE)
    inverse = cv2.invertAffineTransform(m)
    return level, lambda xyxy: tilted_boxes(xyxy, inverse, angle, small.shape)


class Zoom:
    """The zoomed pass of one finder (``finder``: the finder itself, or another copy of it for this pass)."""

    def __init__(self, finder: Finder, config: ZoomConfig | None = None) -> None:
        self.finder = finder
        self.config = config or ZoomConfig()

    @property
    def on(self) -> bool:
        """Whether a zoomed pass is read at all (``zoom_to`` 0 turns it off)."""
        return bool(self.config.zoom_to)

    def work_side(self) -> float:
        """The long side of the finder's working copy of a photo."""
        return self.config.zoom_max * self.finder.imgsz

    def _scale(self, small: np.ndarray, sure: Detections, tile: float, area: float) -> float:
        """The enlargement of the region: ``zoom_to`` input pixels per tile, never beyond ``small``'s own resolution
        (a small photo with real tiles' shapes: ``zoom_small`` times), nor over ``zoom_area`` times the first pass's
        input."""
        c = self.config
        h, w = small.shape[:2]
        # a small photo (a chat app's copy) may be enlarged beyond its own pixels, when its tiles have a real
        # tile's shape (1.1-1.5 times as tall as wide; the export's squashed photos come out 1.6-1.7)
        tall = float(np.median(sure.sizes[:, 1] / np.maximum(sure.sizes[:, 0], 1e-6)))
        beyond = c.zoom_small if max(h, w) < SMALL_PHOTO and 1.1 <= tall <= 1.5 else 1.0
        return min(c.zoom_to / tile, beyond, float(np.sqrt(c.zoom_area * self.finder.imgsz ** 2 / max(area, 1.0))))

    def read(self, small: np.ndarray, det: Detections, reach: float = SURE, along: float = 1.5
             ) -> Detections | None:
        """Read the tiles' region again, enlarged, when the tiles were small in the first pass; None when it
        was not read again (tiles large enough, no detail to give) or the enlarged pass went wrong. The region
        holds the first pass's boxes scored ``reach`` or more (its size and count come from the sure ones), and
        ``along`` tiles more at the ends of its rows (``zoom_margin`` tiles above and below)."""
        sure = det[det.confidence >= SURE]
        if len(sure) < ZOOM_MIN_SURE:
            return None
        h, w = small.shape[:2]
        first = self.finder.imgsz / max(h, w)  # first pass: input pixels per ``zoom_small`` pixel
        tile = float(np.median(np.sqrt(np.prod(sure.sizes, 1))))  # a tile's size in ``zoom_small`` pixels
        if tile * first >= self.config.zoom_below:
            return None
        held = det.xyxy[det.confidence >= min(reach, SURE)]
        up = self.config.zoom_margin * tile
        x1, y1 = int(max(held[:, 0].min() - along * tile, 0)), int(max(held[:, 1].min() - up, 0))
        x2, y2 = int(min(held[:, 2].max() + along * tile, w)), int(min(held[:, 3].max() + up, h))
        scale = self._scale(small, sure, tile, float((x2 - x1) * (y2 - y1)))
        if scale < 2 * first:  # not worth a second pass (or the photo has no more detail to give)
            return None
        angle = row_angle(held) if self.config.level_from else 0.0
        if abs(angle) >= max(self.config.level_from, 1e-6):
            region, back_to_small = levelled_region(small, held, tile, angle)
        else:
            region = small[y1:y2, x1:x2]

            def back_to_small(xyxy: np.ndarray) -> np.ndarray:
                return xyxy + np.array([x1, y1, x1, y1], np.float32)
        scale = self.finder.largest_scale(region.shape, scale)
        if scale < 2 * first:  # a fixed-input finder cannot enlarge this region enough
            return None
        part = self.finder.find(region, 1.0, 1.0, scale)
        return self._kept(part, held, sure, back_to_small)

    def _kept(self, part: Detections, held: np.ndarray, sure: Detections,
              back_to_small: Callable[[np.ndarray], np.ndarray]) -> Detections | None:
        """The zoomed pass's boxes in ``small``'s pixels, with the sure first-pass tiles it lost (``zoom_adds``); None
        when it went wrong (fewer than 3/4 of the boxes it was to read again)."""
        # the enlarged tiles are the size the finder is surest of, so its doubtful boxes there are mostly clutter
        part = part[part.confidence >= self.config.zoom_conf]
        # tiles lying in a row: a box mostly covered by its neighbours is a duplicate straddling them
        part = part[suppress_contained(part.xyxy, part.confidence, np.arange(len(part)), covered=0.7)]
        if len(part) < 0.75 * len(held):  # the enlarged pass went wrong (rare): keep the first
            return None
        part.xyxy = back_to_small(part.xyxy)
        # the enlarged pass adds to the first, not replaces it: a sure first-pass tile that no enlarged box
        # overlaps (a blank white dragon or a face-down tile the enlarged pass scored under its cut) is kept
        if self.config.zoom_adds:  # (part holds at least one box here: sure has two or more)
            lost = intersections(sure.xyxy, part.xyxy).max(1) < 0.3 * box_areas(sure.xyxy)
            if lost.any():
                part = Detections.boxes_of([part, sure[lost]])
        return part
