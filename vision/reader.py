"""Photo -> Detections: the reading stages composed, each with its own config.

brighten -> find (levelled where rows run at a slant; ``Levelling`` over ``Search`` over ``Zoom`` over ``Finder``)
-> white-balance where a coloured light tinted the faces (``balance.balanced``) -> classify (``Classifier``)
-> which way up (``orientation.upside_down``). Both ONNX sessions are created once per process (cached) with a
fixed thread count.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from .balance import balanced
from .calibration import Calibration
from .classify import Classifier, ClassifyConfig
from .crops import crops_to_batch
from .detections import Detections
from .finder import Finder, FinderConfig
from .finding import Search, SearchConfig
from .geometry import turn_boxes, turned_shape
from .levelling import LevelConfig, Levelling
from .models import MODELS_DIR, session
from .orientation import upside_down
from .zoom import Zoom, ZoomConfig

DARK_BELOW, BRIGHT_TO = 90.0, 125.0  # mean grey level of a dim photo, and the level it is brought up to
FACES_AT, FACES_TO = 1.0, 225.0  # the brightest percent of a dim photo (its tiles' faces), and its level brought up
DIM_AT, FACES_DIM = 0.1, 200.0  # the photo's brightest 0.1 % after the gamma under this: shot in dim light (held
# out: a third of the light 163-192; lit photos of dark tables, which the gamma lifts as well, 217 and up, where
# the brightest percent alone is as low as 143 when few of the pixels are faces)


def brightened(img: np.ndarray) -> np.ndarray:
    """A dim photo (mean grey under ``DARK_BELOW``) brought up to a normal exposure by a gamma curve, as a phone's
    own auto-exposure would: the finder, trained on well-lit tables, misses tiles in the dark. The gamma alone
    leaves the tile faces grey (a third of the light), so where even the brightest ``DIM_AT`` percent is still
    under ``FACES_DIM`` the levels above the mean are stretched until the brightest ``FACES_AT`` percent reaches
    ``FACES_TO``, a lit face's ivory. A photo of a dark table in good light is lifted by the gamma only. Others
    as they are."""
    step = max(1, max(img.shape[:2]) // 256)  # every step-th pixel: a mean needs no smoothing
    small = img[::step, ::step]
    grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY) if small.ndim == 3 else small
    mean = float(grey.mean())
    if not 8.0 < mean < DARK_BELOW:
        return img
    gamma = float(np.log(BRIGHT_TO / 255.0) / np.log(mean / 255.0))
    lut = np.clip(255.0 * (np.arange(256) / 255.0) ** gamma, 0, 255).astype(np.uint8)
    lifted = cv2.LUT(small, lut)  # (the grey of the lifted colours: brighter than the lifted grey)
    lifted = cv2.cvtColor(lifted, cv2.COLOR_BGR2GRAY) if lifted.ndim == 3 else lifted
    mid, top = float(lifted.mean()), float(np.percentile(lifted, 100.0 - FACES_AT))
    if mid < top and float(np.percentile(lifted, 100.0 - DIM_AT)) < FACES_DIM:
        x = lut.astype(np.float32)
        lut = np.clip(np.where(x > mid, mid + (x - mid) * (FACES_TO - mid) / (top - mid), x), 0, 255).astype(np.uint8)
    return cv2.LUT(img, lut)


@dataclass(frozen=True)
class ReaderConfig:
    """Every stage's config. ``but(name=value)`` changes one setting by its name in whichever stages have it
    (``photo_turn`` and ``deglare`` are the search's and the classifier's alike); an unknown name is an error."""

    finder: FinderConfig = field(default_factory=FinderConfig)
    search: SearchConfig = field(default_factory=SearchConfig)
    zoom: ZoomConfig = field(default_factory=ZoomConfig)
    level: LevelConfig = field(default_factory=LevelConfig)
    classify: ClassifyConfig = field(default_factory=ClassifyConfig)

    def but(self, **changes: Any) -> ReaderConfig:
        """A copy with the named settings changed in every stage config that has them."""
        parts = {f.name: getattr(self, f.name) for f in fields(self)}
        left = set(changes)
        for name, part in parts.items():
            mine = {k: v for k, v in changes.items() if k in {f.name for f in fields(part)}}
            parts[name] = replace(part, **mine)
            left -= set(mine)
        if left:
            raise TypeError(f"no reader setting {', '.join(sorted(left))}")
        return ReaderConfig(**parts)


class TileReader:
    """Reads the tiles of a photo: finder boxes + classifier probabilities, as one Detections object.
    ``zoom_finder``: another copy of the finder (a file of the models folder) for the zoomed pass, the largest
    input: training.quantize's 8-bit copy was tried and not shipped (model card)."""

    def __init__(self, models_dir: str | Path = MODELS_DIR, threads: int = 2, config: ReaderConfig | None = None,
                 calibration: Calibration | None = None, zoom_finder: str | None = None) -> None:
        self.models_dir = Path(models_dir)
        self.config = config or ReaderConfig()
        # the shipped temperature (models/calibration.json) unless given; Calibration() keeps the raw probabilities
        self.calibration = Calibration.load(self.models_dir) if calibration is None else calibration
        c = self.config
        self.finder = Finder(session(str(self.models_dir / "detector.onnx"), threads), c.finder)
        zoom_model = session(str(self.models_dir / zoom_finder), threads) if zoom_finder else None
        self.zoom = Zoom(Finder(zoom_model, c.finder) if zoom_model else self.finder, c.zoom)
        self.search = Search(self.finder, self.zoom, c.search)
        self.levelling = Levelling(self.search, c.level)
        self.classifier = Classifier(session(str(self.models_dir / "classifier.onnx"), threads), self.calibration,
                                     c.classify)

    def read(self, img: np.ndarray, timing: dict[str, float] | None = None) -> Detections:
        """Detect and classify every tile of a decoded photo, and find which way up it is: the boxes come back
        in the pixels of the photo levelled by ``det.levelled`` degrees and turned by ``det.turned`` quarter turns
        (``geometry.as_read``; ``geometry.PhotoFrame`` maps them back to the photo as sent)."""
        t = time.perf_counter()
        img = brightened(img)
        # the finder reads the photo with any glare veil taken off (tile edges under a highlight come back); the
        # classifier reads the photo as it is, and de-glared crops only for veiled tiles and washed-out faces
        seen = self.levelling.read(img)
        img, found = seen.img, seen.found
        t2 = time.perf_counter()
        if self.config.classify.balance:  # (a photo under a coloured light: its faces' ivory given back)
            img = balanced(img, found.det)
        det = self.classifier.classify(img, found.det, found.quarter, found.veil, measured=True)
        det.levelled = seen.angle
        if self.config.classify.photo_turn:
            det.xyxy = turn_boxes(det.xyxy, img.shape, det.turned)
            if upside_down(det):  # the classifier reads a tile upside down as well: the layout tells
                det.xyxy = turn_boxes(det.xyxy, turned_shape(img.shape, det.turned), 2)
                det.turned = (det.turned + 2) % 4
        if timing is not None:
            timing["detect_ms"] = 1000 * (t2 - t)
            timing["classify_ms"] = 1000 * (time.perf_counter() - t2)
        return det

    def detect(self, img: np.ndarray) -> Detections:
        """Tile boxes in image pixels, before classification (``Search.find``)."""
        return self.search.find(img).det

    def warm(self) -> None:
        """Run both models once at the shapes a phone photo gives (onnxruntime's first run of a shape allocates),
        so that the first photo a user takes is as fast as the later ones."""
        for w, h in ((1600, 1200), (1200, 1600), (2016, 1512)):
            self.finder.find(np.full((h, w, 3), 128, np.uint8))
        name = self.classifier.model.get_inputs()[0].name
        blank = [np.full((64, 64, 3), 200, np.uint8)]
        for n in (1, 14, self.classifier.config.batch):
            self.classifier.model.run(None, {name: crops_to_batch(blank * n)})
