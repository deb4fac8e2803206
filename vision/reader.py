"""Photo -> Detections: the ONNX tile finder, then the crop classifier on full-resolution crops.

Both ONNX sessions are created once per process (cached) with a fixed thread count.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
import onnxruntime as ort

from .blur import blurred, sharpened
from .calibration import Calibration
from .classes import BACK, CLASS_INDEX, CLASSIFIER_CODES
from .crops import (
    ROW_ANGLE_MAX,
    ROW_ANGLE_MIN,
    SQUAT,
    crops_to_batch,
    level_rotation,
    levelled,
    moved,
    orientation,
    oriented_crop,
    quarter_turnable,
    row_angle,
    row_direction,
    rows_across,
    side_by_side,
    tile_crop,
    washed_share,
)
from .detections import Detections, box_areas, intersections
from .glare import take_off, veil_map, veil_of_boxes
from .orientation import (
    edge_slant,
    landscape,
    level_boxes,
    level_image,
    tilted_boxes,
    turn_boxes,
    turn_image,
    turned_shape,
    upside_down,
)
from .repair import repair_rows

# (x factor, y factor) tried when the finder is unsure of a photo: un-stretching a squashed photo
ASPECT_RETRIES = ((1.0, 0.5), (1.0, 0.25), (1.0, 0.125), (0.5, 1.0), (0.25, 1.0), (0.125, 1.0))

BLANK = CLASS_INDEX["P"]  # the blank white dragon: a plain face
WASHED_FROM, WASHED_ALL = 0.1, 0.5  # blown-out share of a crop where its face starts to be, and is, unreadable


SMALL_PHOTO = 1000  # px on the long side: a photo this small may be enlarged by the zoomed pass (``zoom_small``)


VEILED = 0.3  # the mean veil strength over a tile from which its de-glared crop is read too
WASHED_MIX = 0.9  # the most a washed face's reading is spread
GLARE_T = 3.0  # temperature of the reading of a de-glared crop: a hint among faces, never a confident answer


def unsure_where_washed(probs: np.ndarray, washed: np.ndarray, hint: np.ndarray | None = None) -> np.ndarray:
    """A face washed out by glare is not read as the blank white dragon it looks like: where a crop is blown out
    and read as blank (or unsure), its probabilities are mixed with a spread over the faces in proportion to how
    much is blown out (up to 90 %), so the rule-aware correction leans on the hand and the page flags the tile
    instead of a confident guess. The spread is even, or half even and half ``hint`` (per row: the flattened
    reading of the crop with the glare veil taken off, ``glare.take_off``), so that among the faces the hand
    allows, the one the washed face still shows traces of comes first."""
    mix = np.clip((washed - WASHED_FROM) / (WASHED_ALL - WASHED_FROM), 0.0, 1.0) * WASHED_MIX
    if not len(probs) or not mix.any():
        return probs
    # a face still read clearly is a bright photo, not a lost face: only a blank reading or an unsure one spreads
    mix *= (probs.argmax(1) == CLASS_INDEX["P"]) | (probs.max(1) < 0.6)
    even = np.ones(probs.shape[1], np.float32)
    even[BACK] = 0.0
    even /= even.sum()
    spread = np.broadcast_to(even, probs.shape)
    if hint is not None:
        h = hint.copy()
        h[:, BACK] = 0.0
        spread = 0.5 * spread + 0.5 * h / np.maximum(h.sum(1, keepdims=True), 1e-9)
    return ((1 - mix[:, None]) * probs + mix[:, None] * spread).astype(np.float32)


def with_finder_backs(probs: np.ndarray, back_score: np.ndarray) -> np.ndarray:
    """The classifier's probabilities with the finder's "face down" score let in: where the finder saw a tile's
    back, that outvotes a face the classifier guessed on a plain back, except a blank white dragon the classifier
    is sure of (to the finder a plain ivory face and a plain back look alike; the classifier sees the back's
    colour: on composed hands, 2 of the 10 hands glare broke at seed 1 were blank dragons read as backs)."""
    p_back = np.maximum(probs[:, BACK], back_score * (1 - probs[:, BLANK]))
    rest = probs.copy()
    rest[:, BACK] = 0
    rest *= ((1 - p_back) / np.maximum(rest.sum(1), 1e-6))[:, None]
    rest[:, BACK] = p_back
    return rest.astype(np.float32)


TURNED_TILE = 1.8  # the widest median box (width / height) taken for a tile turned by a quarter
PITCHED_MARGIN = 1.15  # how much surer a photo that looks shot pitched must read turned to be taken as turned
LOOSE_ROWS = 10.0  # degrees within which a low-resolution first pass's neighbour pairs must agree on a slant
LEVEL_STEEPEST = 75.0  # degrees: the steepest rows read levelled (steeper, a photo turned by a quarter and held askew)
WEAK_FIRST_PASS = 8  # sure boxes: a first pass with fewer (and no rows) has the photo's edges measured for a slant
ZOOM_MIN_SURE = 2  # sure boxes (0.5 or more) a zoomed pass needs to place its region and size its tiles
EDGE_FIRST_SIZE = 2.0  # a photo levelled by its edges' slant: its first pass reads it at twice the usual size
EDGE_SLANT_MATCH = 10.0  # degrees: rows steeper than ROW_ANGLE_MAX count when the edges' slant is this close
EDGE_AGREEMENT = 0.15  # how well the edges must agree on a slant (a hand's tiles give 0.2-0.6)
SQUARISH = 1.15  # the widest median box taken for tiles tilted in the photo's plane rather than turned by a quarter
DARK_BELOW, BRIGHT_TO = 90.0, 125.0  # mean grey level of a dim photo, and the level it is brought up to


def brightened(img: np.ndarray) -> np.ndarray:
    """A dim photo (mean grey under ``DARK_BELOW``) brought up to a normal exposure by a gamma curve, as a phone's
    own auto-exposure would: the finder, trained on well-lit tables, misses tiles in the dark. Others as they are."""
    step = max(1, max(img.shape[:2]) // 256)  # every step-th pixel: a mean needs no smoothing
    small = img[::step, ::step]
    mean = float(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY).mean()) if small.ndim == 3 else float(small.mean())
    if not 8.0 < mean < DARK_BELOW:
        return img
    gamma = float(np.log(BRIGHT_TO / 255.0) / np.log(mean / 255.0))
    lut = np.clip(255.0 * (np.arange(256) / 255.0) ** gamma, 0, 255).astype(np.uint8)
    return cv2.LUT(img, lut)


def shipped_models_dir() -> Path:
    """Where the ONNX models are: $MAHJONG_MODELS_DIR, else the source tree's models/, else the installed copy
    (``pip install .`` installs the folder as the package ``mahjong_models``)."""
    env = os.environ.get("MAHJONG_MODELS_DIR")
    if env:
        return Path(env).expanduser()
    tree = Path(__file__).resolve().parents[1] / "models"
    if (tree / "detector.onnx").exists():
        return tree
    try:
        import mahjong_models  # the installed package data

        return Path(mahjong_models.__file__).resolve().parent
    except ImportError:
        return tree


MODELS_DIR = shipped_models_dir()


class ModelMissing(FileNotFoundError):
    """A model file is missing, empty or damaged: the message says which file and what to do, in one line."""


@lru_cache(maxsize=8)
def session(path: str, threads: int) -> ort.InferenceSession:
    """One cached onnxruntime session per (model, thread count); ModelMissing when the file is not a model."""
    p = Path(path)
    if not p.exists():
        raise ModelMissing(f"model file {path} not found (reinstall the package, or set MAHJONG_MODELS_DIR to the "
                           "folder with detector.onnx and classifier.onnx)")
    if p.stat().st_size == 0:
        raise ModelMissing(f"model file {path} is empty (reinstall the package or restore the file)")
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    # no busy-waiting between runs: the finder's and the classifier's thread pools take turns on the same cores,
    # and a pool left spinning after its run slowed the other's (12-MP photo: 262-289 ms spinning, 179-208 not)
    so.add_session_config_entry("session.intra_op.allow_spinning", "0")
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    try:
        return ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    except Exception as e:  # onnxruntime raises its own exception types for a damaged or foreign file
        first = str(e).strip().splitlines()[0][:120] if str(e).strip() else type(e).__name__
        raise ModelMissing(f"model file {path} is damaged or not an ONNX model ({first}); reinstall the package "
                           "or restore the file") from None


def letterbox(img: np.ndarray, size: int, stride: int = 0, scale: float | None = None
              ) -> tuple[np.ndarray, float, tuple[float, float]]:
    """Resize keeping the aspect ratio to fit size x size and pad (grey 114); returns the NCHW batch, scale, padding.

    With ``stride`` (a detector that takes any input shape) the padding only rounds each side up to a multiple
    of the stride, so a wide strip of tiles costs no more than its own area. ``scale`` fixes the resize factor
    (with a fixed input the image must then fit size x size; with ``stride`` the input may be larger).
    """
    h, w = img.shape[:2]
    r = min(size / w, size / h) if scale is None else scale
    nw, nh = int(round(w * r)), int(round(h * r))
    if not stride:
        nw, nh = min(size, nw), min(size, nh)
    src = img
    while src.shape[1] > 4 * nw:  # Gaussian halving first: as smooth as area averaging, several times faster
        src = cv2.pyrDown(src)
    resized = cv2.resize(src, (nw, nh), interpolation=cv2.INTER_AREA if r < 1 else cv2.INTER_LINEAR)
    cw, ch = (-(-nw // stride) * stride, -(-nh // stride) * stride) if stride else (size, size)
    canvas = np.full((ch, cw, 3), 114, np.uint8)
    px, py = (cw - nw) // 2, (ch - nh) // 2
    canvas[py:py + nh, px:px + nw] = resized
    blob = canvas[..., ::-1].transpose(2, 0, 1)[None].astype(np.float32) / 255.0
    return np.ascontiguousarray(blob), r, (px, py)


def downscale(img: np.ndarray, max_side: int) -> np.ndarray:
    """A copy no larger than max_side on its long side (Gaussian halving, then area averaging); small photos as is.
    (A light blur and bilinear resampling is 4x faster for the last step, but read 3 fewer of 480 turned hands
    right: ``TileReader`` keeps area averaging.)"""
    h, w = img.shape[:2]
    if max(h, w) <= max_side:
        return img
    src = img
    while max(src.shape[:2]) >= 2 * max_side:
        src = cv2.pyrDown(src)
    r = max_side / max(h, w)
    return cv2.resize(src, (max(1, round(w * r)), max(1, round(h * r))), interpolation=cv2.INTER_AREA)


def levelled_region(small: np.ndarray, held: np.ndarray, tile: float, angle: float
                    ) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]:
    """The region of ``small`` around the boxes ``held``, turned so that rows running at ``angle`` degrees (a phone
    turned in its plane) run level: there the finder sees upright tiles side by side, as it was trained to. Also
    the map of boxes found there back to ``small``'s pixels, each as the axis-aligned box of its tile turned by
    ``angle`` (the box the oriented crops and the layout undo)."""
    # photo -> level: turned so that rows at +angle run level, then the region's corner shifted to 0
    lx, ly = moved(level_rotation(angle), (held[:, 0] + held[:, 2]) / 2, (held[:, 1] + held[:, 3]) / 2)
    m = level_rotation(angle, (float(lx.min() - 2 * tile), float(ly.min() - 2 * tile)))
    width, height = int(lx.max() - lx.min() + 4 * tile), int(ly.max() - ly.min() + 4 * tile)
    level = cv2.warpAffine(small, m, (max(width, 8), max(height, 8)), flags=cv2.INTER_LINEAR,
                           borderMode=cv2.BORDER_REPLICATE)
    inverse = cv2.invertAffineTransform(m)
    return level, lambda xyxy: tilted_boxes(xyxy, inverse, angle, small.shape)


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
    if trusted and not landscape(best, least=SQUARISH) and ROW_ANGLE_MIN <= abs(rows) <= LEVEL_STEEPEST:
        slant = rows
    sure = best[best.confidence >= 0.5]
    if abs(slant) < slant_from and len(sure) < WEAK_FIRST_PASS and not trusted:
        edges, agree = edge_slant(small, sure.xyxy) if len(sure) >= 3 else (0.0, 0.0)
        if agree < EDGE_AGREEMENT:  # (around a few boxes the faces' strokes weigh more: the whole photo)
            edges, agree = edge_slant(small)
        slant = edges if agree >= EDGE_AGREEMENT else 0.0
    return slant if abs(slant) >= slant_from else 0.0


def confident_mass(det: Detections, threshold: float = 0.5) -> float:
    """Sum of the finder scores of the boxes it is fairly sure of: compares readings of one photo."""
    c = det.confidence
    return float(c[c >= threshold].sum())


def suppress_contained(boxes: np.ndarray, scores: np.ndarray, idx: np.ndarray, ratio: float = 0.6,
                       covered: float = 0.9) -> np.ndarray:
    """Drop duplicates NMS leaves: a box lying mostly (``ratio`` of its area) inside one higher-scoring box
    (half a tile), or mostly (``covered``) inside two or more of them (a box straddling two neighbours)."""
    order = idx[np.argsort(-scores[idx])]
    keep: list[int] = []
    for i in order:
        area = max(float(box_areas(boxes[i:i + 1])[0]), 1e-6)
        if keep:
            inter = intersections(boxes[i:i + 1], boxes[keep])[0]
            if np.any(inter > ratio * np.minimum(area, box_areas(boxes[keep]))) or inter.sum() > covered * area:
                continue
        keep.append(int(i))
    return np.array(sorted(keep), int)


class TileReader:
    """Reads the tiles of a photo: detector boxes + classifier probabilities, as one Detections object."""

    def __init__(self, models_dir: str | Path = MODELS_DIR, threads: int = 2, conf: float = 0.3, iou: float = 0.5,
                 batch: int = 64, retry_below: float = 0.6, zoom_below: float = 40.0, zoom_to: float = 80.0,
                 zoom_max: float = 3.0, zoom_conf: float = 0.4, zoom_area: float = 2.0, tta_below: float = 0.9,
                 quarter_turn_margin: float | None = 0.25, quarter_below: float = 0.9, photo_turn: bool = True,
                 repair: bool = True, not_tile_above: float = 0.5, calibration: Calibration | None = None,
                 oriented: bool = True, zoom_small: float = 2.0, zoom_adds: bool = True,
                 deglare: bool = True, turn_zoom: bool = True, level_from: float = 12.0,
                 zoom_after_retry: bool = True, level_photo_from: float = 15.0, zoom_finder: str | None = None,
                 deblur: bool = True) -> None:
        self.models_dir = Path(models_dir)
        # the shipped temperature (models/calibration.json) unless given; Calibration() keeps the raw probabilities
        self.calibration = Calibration.load(self.models_dir) if calibration is None else calibration
        self.threads = threads
        self.conf = conf
        self.iou = iou
        self.batch = batch
        self.retry_below = retry_below
        self.zoom_below = zoom_below
        self.zoom_to = zoom_to
        self.zoom_max = zoom_max
        self.zoom_conf = zoom_conf
        self.zoom_area = zoom_area
        self.tta_below = tta_below
        self.quarter_turn_margin = quarter_turn_margin
        self.quarter_below = quarter_below
        self.photo_turn = photo_turn
        self.repair = repair
        self.not_tile_above = not_tile_above
        self.oriented = oriented
        self.zoom_small = zoom_small
        self.zoom_adds = zoom_adds
        self.deglare = deglare
        self.deblur = deblur  # a photo the finder is unsure of is also read sharpened (``blur``), kept when surer
        self.turn_zoom = turn_zoom
        self.zoom_after_retry = zoom_after_retry
        self.level_from = level_from  # rows at this slant (degrees) or more: the zoomed pass reads them turned level
        self.level_photo_from = level_photo_from  # rows at this slant or more: the whole photo is read turned level
        self.detector = session(str(self.models_dir / "detector.onnx"), threads)
        self.classifier = session(str(self.models_dir / "classifier.onnx"), threads)
        # the zoomed pass (the largest input, most of the finder's time) may read with another copy of the finder,
        # a file of the models folder: vision.training.quantize's 8-bit copy was tried and not shipped (model card)
        self.zoom_detector = session(str(self.models_dir / zoom_finder), threads) if zoom_finder else self.detector
        shape = self.detector.get_inputs()[0].shape
        # a fixed input (e.g. 416 x 416), or any shape (exported with dynamic axes): then the size trained at
        self.stride = 0 if isinstance(shape[2], int) else 32
        meta = self.detector.get_modelmeta().custom_metadata_map
        trained = int(meta.get("imgsz", "[416]").strip("[]").split(",")[0])
        self.imgsz = shape[2] if isinstance(shape[2], int) else trained

    def detect(self, img: np.ndarray) -> Detections:
        """Tile boxes in image pixels (class-agnostic NMS with OpenCV); see ``_find``."""
        return self._find(img)[0]

    def _find(self, img: np.ndarray, slant_from: float = 0.0, first_size: float = 1.0, sharp: bool | None = None
              ) -> tuple[Detections, int, np.ndarray | None, float | None]:
        """Tile boxes in image pixels (class-agnostic NMS with OpenCV), the quarter turns (0 or 3) the photo was
        read at when its tiles lay landscape as a rule, and the photo's glare veil (``glare.veil_map``, None
        without a blown-out spot or with ``deglare`` off): the finder reads the photo with the veil taken off.

        When the finder is unsure of a photo (nothing found, or mean score below ``retry_below``), the photo
        is also read squashed 2x, 4x and 8x along either axis and the surest reading is kept (``_unstretched``):
        exported datasets stretch photos to a square, which can make tiles ten times taller than wide.
        When the tiles come out small (under ``zoom_below`` input pixels: a whole hand across a large photo), the
        region holding them is read again enlarged, at up to ``zoom_to`` pixels per tile. Last, with ``repair``,
        tiles cut in two are joined and phantom boxes in the gaps of a row dropped (``repair.repair_rows``).
        With ``slant_from``, a first pass whose rows run at that slant or more is returned as it is, with the slant
        as the last item (None otherwise): ``read`` reads such a photo levelled instead. So is a first pass that saw
        little and no rows, where the photo's edges run at that slant or more (``orientation.edge_slant``: tiles
        turned 30-60 degrees in a small hand, which the finder hardly sees). ``first_size`` enlarges the first
        pass's input (a levelled photo whose tiles the usual first pass sees too small to find).
        A first pass the finder is unsure of (and whose rows run level), of a photo that measures blurred
        (``blur.blurred``: out of focus or shaken), is read again sharpened, and the sharpened photo is read from
        then on when its mass of sure boxes is clearly larger (1.5x + 0.5; ``det.sharpened``). ``sharp`` True
        sharpens it without asking (the same photo levelled), False never.
        """
        small = downscale(img, self.zoom_max * self.imgsz)
        veil = veil_map(small) if self.deglare else None  # the same map for the photo: it is smooth
        small = take_off(small, veil)  # tiles under a highlight get their edges back
        small = sharpened(small) if sharp else small
        first_scale = None if first_size == 1.0 or not self.stride else first_size * self.imgsz / max(small.shape[:2])
        best = self._detect_at(small, 1.0, 1.0, first_scale)
        slant = first_pass_slant(small, best, slant_from) if slant_from else 0.0
        if slant:
            best = self._to_photo(best, (small.shape[1] / img.shape[1], small.shape[0] / img.shape[0]), img.shape)
            best.sharpened = bool(sharp)
            return best, 0, veil, slant
        if sharp is None and self.deblur and self._unsure(best) and blurred(small):
            sharp_small = sharpened(small)
            again = self._detect_at(sharp_small, 1.0, 1.0, first_scale)
            sharp = confident_mass(again) >= 1.5 * confident_mass(best) + 0.5
            small, best = (sharp_small, again) if sharp else (small, best)
        k, zoomed = 0, None
        unsure = self._unsure(best)
        # boxes just landscape (up to SQUAT) whose neighbours lie side by side across the photo are likely upright
        # tiles seen from a phone pitched steeply (a photo turned by a quarter has its tiles one above the other):
        # read turned, such a photo must then be clearly surer to be taken as turned
        pitched = not landscape(best, most=TURNED_TILE, least=SQUAT) and side_by_side(best.xyxy[best.confidence >= 0.5])
        margin = PITCHED_MARGIN if pitched else 1.0
        if self.photo_turn and landscape(best, most=TURNED_TILE):
            # tiles landscape as a rule, as real tiles are when turned: a photo turned by a quarter (a photo the
            # export stretched has far wider boxes). Its rows run up the picture, where the finder, the zoomed pass
            # and the row repair expect them across: read it turned (which way does not matter)
            upright = turn_image(small, 3)
            if not unsure and self.zoom_to and self.turn_zoom:
                # small tiles: the zoomed pass over the turned photo, placed by the first pass's boxes turned, is
                # the reading (one finder pass fewer); it must show the tiles upright, as a full turned pass must
                guess = best.copy()
                guess.xyxy = turn_boxes(best.xyxy, small.shape, 3)
                # (the finder is less sure of tiles lying sideways: the region holds all its boxes)
                zoomed = self._zoom(upright, guess, reach=self.conf)
                # (and hold as many boxes as the first: a tile it lost was maybe one the first pass was unsure of)
                if (zoomed is not None and not landscape(zoomed) and len(zoomed) >= len(best)
                        and confident_mass(zoomed) >= margin * confident_mass(best)):
                    small, best, k = upright, zoomed, 3
                else:
                    zoomed = None
            if not k:
                turned = self._detect_at(upright, 1.0, 1.0)
                if len(turned) and not landscape(turned) and confident_mass(turned) >= margin * confident_mass(best):
                    small, best, k = upright, turned, 3
                    unsure = self._unsure(best)
        shape = turned_shape(img.shape, k)
        scale = (small.shape[1] / shape[1], small.shape[0] / shape[0])
        if zoomed is None:  # (not read already, turned and enlarged)
            first = best
            if unsure:
                best = self._unstretched(small, best)
            # a photo the finder was unsure of that no squashing helped (tiles turned in the plane, dim, blurred)
            # is read enlarged as well: the zoomed pass shows its tiles at the size the finder is surest of
            if self.zoom_to and (not unsure or self.zoom_after_retry and best is first):
                # (all the unsure pass's boxes place the region, and the enlarged pass must find as many)
                zoomed = self._zoom(small, best, reach=self.conf if unsure else 0.5)
                best = best if zoomed is None else zoomed
        best = self._to_photo(best, scale, shape)
        best = repair_rows(best) if self.repair else best
        best.xyxy = turn_boxes(best.xyxy, shape, -k)  # back in the photo's own pixels
        best.sharpened = bool(sharp)
        return best, k, veil, None

    def _find_levelled(self, img: np.ndarray, det: Detections, angle: float, quarter: int = 0,
                       sharp: bool | None = None) -> tuple[np.ndarray, Detections, int, np.ndarray | None]:
        """The photo turned so that rows at ``angle`` degrees run level, and ``_find``'s reading of it (boxes in its
        own pixels, the quarter turns it is read at, its glare veil). Where the slanted reading ``det`` (of a photo
        read turned by ``quarter``) holds small tiles, one zoomed pass over the levelled region they place, turned
        by ``quarter`` (the levelled photo's corners make it larger, so a first pass there sees its tiles
        smaller still); else a full ``_find`` (``sharp`` as there, unless the slanted reading was sharpened)."""
        level = level_image(img, angle)
        if self.zoom_to:
            small = downscale(level, self.zoom_max * self.imgsz)
            veil = veil_map(small) if self.deglare else None  # (of the photo as it lies, as ``_find`` measures it)
            small = turn_image(take_off(small, veil), quarter)
            small = sharpened(small) if det.sharpened else small
            shape = turned_shape(level.shape, quarter)
            guess = det.copy()
            boxes = level_boxes(det.xyxy, img.shape, angle)
            guess.xyxy = turn_boxes(boxes, level.shape, quarter) * np.float32(small.shape[1] / shape[1])
            # (the region reaches further along the rows: the slanted first pass misses tiles at their ends)
            zoomed = self._zoom(small, guess, reach=self.conf, along=3.0)
            if zoomed is not None:
                found = self._to_photo(zoomed, (small.shape[1] / shape[1], small.shape[0] / shape[0]), shape)
                found = repair_rows(found) if self.repair else found
                found.xyxy = turn_boxes(found.xyxy, shape, -quarter)
                found.sharpened = det.sharpened
                return level, found, quarter, veil
        # (no region placed: the slant came from the photo's edges, or the slanted first pass was sure of fewer than
        # 2 boxes, its tiles too small to be sure of; the larger levelled photo shows its tiles smaller still, so
        # its first pass reads it at twice the usual size)
        weak = int((det.confidence >= 0.5).sum()) < ZOOM_MIN_SURE
        found, turns, veil, _ = self._find(level, first_size=EDGE_FIRST_SIZE if weak else 1.0,
                                           sharp=det.sharpened or sharp)
        return level, found, turns, veil

    def _unsure(self, det: Detections) -> bool:
        """Whether the finder is unsure of a reading (nothing found, or mean score under ``retry_below``)."""
        return bool(self.retry_below) and (not len(det) or float(det.confidence.mean()) < self.retry_below)

    def _unstretched(self, small: np.ndarray, first: Detections) -> Detections:
        """The surest reading of a photo the finder was unsure of, among it squashed 2x, 4x and 8x along either
        axis. A squashed reading replaces the first pass only when its mass of confident boxes is clearly larger
        (1.5x + 0.5); of the readings with at least 0.6 of the largest mass, the one with the highest mean score
        is kept: squashed too little, a tile's groups of bamboo sticks pass for tiles of their own (more boxes,
        more mass, each less sure)."""
        first_mass = confident_mass(first)
        readings = [(det, confident_mass(det)) for det in (self._detect_at(small, fx, fy) for fx, fy in ASPECT_RETRIES)]
        most = max(mass for _, mass in readings)
        if most < 1.5 * first_mass + 0.5:
            return first
        strong = [det for det, mass in readings if mass >= 0.6 * most]
        return max(strong, key=lambda det: float(det.confidence.mean()))

    def _zoom(self, small: np.ndarray, det: Detections, reach: float = 0.5, along: float = 1.5
              ) -> Detections | None:
        """Read the tiles' region again, enlarged, when the tiles were small in the first pass; None when it
        was not read again (tiles large enough, no detail to give) or the enlarged pass went wrong. The region
        holds the first pass's boxes scored ``reach`` or more (its size and count come from those scored 0.5+), and
        ``along`` tiles more at the ends of its rows (1.5 tiles above and below).

        One pass over the region at ``zoom_to`` input pixels per tile (never beyond ``small``'s own resolution,
        nor over ``zoom_area`` times the first pass's input area); needs a detector that takes any input shape.
        """
        sure = det[det.confidence >= 0.5]
        if len(sure) < ZOOM_MIN_SURE or not self.stride:
            return None
        h, w = small.shape[:2]
        first = self.imgsz / max(h, w)  # first pass: input pixels per ``small`` pixel
        tile = float(np.median(np.sqrt(np.prod(sure.sizes, 1))))  # a tile's size in ``small`` pixels
        if tile * first >= self.zoom_below:
            return None
        held = det.xyxy[det.confidence >= min(reach, 0.5)]
        x1, y1 = int(max(held[:, 0].min() - along * tile, 0)), int(max(held[:, 1].min() - 1.5 * tile, 0))
        x2, y2 = int(min(held[:, 2].max() + along * tile, w)), int(min(held[:, 3].max() + 1.5 * tile, h))
        area = float((x2 - x1) * (y2 - y1))
        # a small photo (a chat app's copy) may be enlarged beyond its own pixels, when its tiles have a real
        # tile's shape (1.1-1.5 times as tall as wide; the export's squashed photos come out 1.6-1.7)
        tall = float(np.median(sure.sizes[:, 1] / np.maximum(sure.sizes[:, 0], 1e-6)))
        beyond = self.zoom_small if max(h, w) < SMALL_PHOTO and 1.1 <= tall <= 1.5 else 1.0
        scale = min(self.zoom_to / tile, beyond,
                    float(np.sqrt(self.zoom_area * self.imgsz ** 2 / max(area, 1.0))))
        if scale < 2 * first:  # not worth a second pass (or the photo has no more detail to give)
            return None
        angle = row_angle(held) if self.level_from else 0.0
        if abs(angle) >= max(self.level_from, 1e-6):
            region, back_to_small = levelled_region(small, held, tile, angle)
        else:
            region = small[y1:y2, x1:x2]

            def back_to_small(xyxy: np.ndarray) -> np.ndarray:
                return xyxy + np.array([x1, y1, x1, y1], np.float32)
        part = self._detect_at(region, 1.0, 1.0, scale, finder=self.zoom_detector)
        # the enlarged tiles are the size the finder is surest of, so its doubtful boxes there are mostly clutter
        part = part[part.confidence >= self.zoom_conf]
        # tiles lying in a row: a box mostly covered by its neighbours is a duplicate straddling them
        part = part[suppress_contained(part.xyxy, part.confidence, np.arange(len(part)), covered=0.7)]
        if len(part) < 0.75 * len(held):  # the enlarged pass went wrong (rare): keep the first
            return None
        part.xyxy = back_to_small(part.xyxy)
        # the enlarged pass adds to the first, not replaces it: a sure first-pass tile that no enlarged box
        # overlaps (a blank white dragon or a face-down tile the enlarged pass scored under its cut) is kept
        if self.zoom_adds:  # (part holds at least one box here: sure has two or more)
            lost = intersections(sure.xyxy, part.xyxy).max(1) < 0.3 * box_areas(sure.xyxy)
            if lost.any():
                part = Detections.boxes_of([part, sure[lost]])
        return part

    def _nms(self, boxes: np.ndarray, scores: np.ndarray) -> np.ndarray:
        """Indices kept by OpenCV's NMS and the duplicate suppression."""
        xywh = np.stack([boxes[:, 0], boxes[:, 1], boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]], 1)
        idx = cv2.dnn.NMSBoxes(xywh.tolist(), scores.tolist(), self.conf, self.iou)
        return suppress_contained(boxes, scores, np.array(idx, int).reshape(-1))

    def _detect_at(self, small: np.ndarray, fx: float, fy: float, scale: float | None = None,
                   finder: ort.InferenceSession | None = None) -> Detections:
        """One finder pass on ``small`` resized by (fx, fy) (and letterboxed at ``scale``); boxes in its pixels.
        ``finder``: another session of the same finder (the zoomed pass's ``zoom_finder``); the finder otherwise."""
        finder = finder or self.detector
        h, w = small.shape[:2]
        src = small if fx == fy == 1.0 else cv2.resize(
            small, (max(8, round(w * fx)), max(8, round(h * fy))), interpolation=cv2.INTER_AREA)
        blob, r, (px, py) = letterbox(src, self.imgsz, self.stride, scale)
        out = finder.run(None, {finder.get_inputs()[0].name: blob})[0][0]  # (4 + nc, N)
        scores = out[4:].max(0)
        keep = scores >= self.conf
        if not keep.any():
            return Detections.empty()
        cx, cy, bw, bh = out[0, keep], out[1, keep], out[2, keep], out[3, keep]
        s = scores[keep]
        sx, sy = r * src.shape[1] / w, r * src.shape[0] / h
        boxes = np.stack([(cx - bw / 2 - px) / sx, (cy - bh / 2 - py) / sy, (cx + bw / 2 - px) / sx,
                          (cy + bh / 2 - py) / sy], 1)
        boxes[:, [0, 2]] = boxes[:, [0, 2]].clip(0, w)
        boxes[:, [1, 3]] = boxes[:, [1, 3]].clip(0, h)
        idx = self._nms(boxes, s)
        det = Detections(boxes[idx].astype(np.float32), s[idx].astype(np.float32))
        if out.shape[0] == 6:  # our two-class finder: (tile, back) scores
            cls = out[4:, keep][:, idx]
            det.back_score = (cls[1] / np.maximum(cls.sum(0), 1e-6)).astype(np.float32)
        return det

    @staticmethod
    def _to_photo(det: Detections, scale: tuple[float, float], shape: tuple[int, ...]) -> Detections:
        """Boxes from the downscaled copy's pixels to the photo's."""
        if len(det):
            det.xyxy[:, [0, 2]] = (det.xyxy[:, [0, 2]] / scale[0]).clip(0, shape[1])
            det.xyxy[:, [1, 3]] = (det.xyxy[:, [1, 3]] / scale[1]).clip(0, shape[0])
        return det

    def classify(self, img: np.ndarray, det: Detections, quarter: int = 0, veil: np.ndarray | None = None,
                 measured: bool = False) -> Detections:
        """Fill in class probabilities from crops of the (full-resolution) image; sideways crops are turned.
        With a classifier that has a last class "not a tile", boxes it gives over ``not_tile_above`` are dropped.
        When the boxes are landscape as a rule and the classifier is surer of the crops turned upright, the
        photo is taken as turned by a quarter: ``det.turned`` says so (``read`` turns the boxes). ``quarter`` (3):
        the finder already read the photo turned, so its crops are turned without reading them both ways.
        Where the rows run at a slant (a photo turned in its plane), each tile is cut along its row (``oriented``).
        With ``deglare``, a tile under the photo's glare veil is read from its crop with the veil taken off as
        well, and so is a washed-out face; ``measured``: ``veil`` is the photo's ``glare.veil_map`` already (None
        for a photo without a blown-out spot), as ``read`` passes it; otherwise it is measured here.
        """
        angle = row_angle(det.xyxy) if self.oriented else 0.0
        # which tiles to turn upright, from each tile's own shape along its row (a box around a slanted tile
        # is squarer than the tile)
        turn, side = orientation(levelled(det.xyxy, angle))

        def cut(box: np.ndarray, tb: bool, src: np.ndarray = img) -> np.ndarray:
            return (oriented_crop(src, box, angle, turn=tb) if angle else tile_crop(src, box, turn=tb))[0]

        def cut_at(i: int, src: np.ndarray) -> np.ndarray:  # tile i as the reader cuts it, from another photo
            return cut(det.xyxy[i], bool(turn[i]), src)

        crops = [cut(box, bool(tb)) for box, tb in zip(det.xyxy, turn)]
        logp = self._logp(crops)
        det.turned = quarter
        if not quarter and self.photo_turn and len(det) >= 3 and turn.mean() > 0.5:
            # boxes landscape as a rule: a photo turned by 90 degrees, or stretched until upright tiles look
            # landscape; the classifier's surer reading of the whole photo decides which
            kept = [cut(box, False) for box in det.xyxy]
            logp_kept = self._logp(kept)
            if logp_kept.max(1).sum() > logp.max(1).sum():
                crops, logp, turn = kept, logp_kept, np.zeros(len(det), bool)
            else:
                det.turned = 3  # the crops were turned clockwise: so is the photo (3 counter-clockwise turns)
        if self.deglare and not measured:
            veil = veil_map(img)
        veiled = np.flatnonzero(veil_of_boxes(veil, img.shape, det.xyxy) >= VEILED)
        washed = np.array([washed_share(c) for c in crops])
        # the photo with the veil taken off, made only when a tile needs it (a 12-MP copy costs)
        clear = take_off(img, veil) if len(veiled) or (veil is not None and (washed > WASHED_FROM).any()) else None
        if len(veiled):
            # tiles under a glare veil (faces and backs the veil turned pale): read the de-glared crop as well
            logp[veiled] = (logp[veiled] + self._logp([cut_at(i, clear) for i in veiled])) / 2
        det.probs = self._classify_crops(crops, quarter_turnable(det.xyxy), logp)
        n = len(CLASSIFIER_CODES)
        not_tile = None
        if det.probs.shape[1] == n + 1:  # a classifier with the last class "not a tile" (table, tray, cloth)
            not_tile = det.probs[:, n].copy()
            det.probs = (det.probs[:, :n] / np.maximum(det.probs[:, :n].sum(1, keepdims=True), 1e-6)).astype(
                np.float32)
        if det.back_score is not None and len(det):
            det.probs = with_finder_backs(det.probs, det.back_score)
        det.sideways = np.array(side, bool)
        det.probs = self.calibration.apply(det.probs)
        hint = self._deglared_hint(cut_at, img, washed, clear)
        det.probs = unsure_where_washed(det.probs, washed, hint)
        if not_tile is not None and self.not_tile_above:
            det = det[not_tile <= self.not_tile_above]
        return det

    def _deglared_hint(self, cut_at: Callable[[int, np.ndarray], np.ndarray], img: np.ndarray,
                       washed: np.ndarray, clear: np.ndarray | None) -> np.ndarray | None:
        """For the crops glare washed out (``washed`` over ``WASHED_FROM``): the classifier's reading of the same
        crops (``cut_at(i, photo)``) cut from ``clear``, the photo with the glare veil taken off, flattened by
        ``GLARE_T`` (a hint, see ``unsure_where_washed``); rows of other crops are even. None when no crop is
        washed out or there is no de-glared photo."""
        idx = np.flatnonzero(washed > WASHED_FROM)
        if clear is None or clear is img or not len(idx):
            return None
        logp = self._logp([cut_at(int(i), clear) for i in idx])[:, :len(CLASSIFIER_CODES)] / GLARE_T
        hint = np.ones((len(washed), len(CLASSIFIER_CODES)), np.float32)
        e = np.exp(logp - logp.max(1, keepdims=True))
        hint[idx] = e / e.sum(1, keepdims=True)
        return hint

    def _logp(self, crops: list[np.ndarray]) -> np.ndarray:
        """Classifier log-probabilities of crops, in batches."""
        name = self.classifier.get_inputs()[0].name
        out = []
        for i in range(0, len(crops), self.batch):
            logits = self.classifier.run(None, {name: crops_to_batch(crops[i:i + self.batch])})[0]
            logp = logits - logits.max(1, keepdims=True)
            out.append(logp - np.log(np.exp(logp).sum(1, keepdims=True)))
        return np.concatenate(out) if out else np.zeros((0, len(CLASSIFIER_CODES)), np.float32)

    def _classify_crops(self, crops: list[np.ndarray], turnable: np.ndarray | None = None,
                        logp: np.ndarray | None = None) -> np.ndarray:
        """Class probabilities per crop (``logp``: their log-probabilities, when already computed), with test-time
        turns for the crops the classifier is not sure of. A crop whose top probability is under ``tta_below`` is
        also read turned by 180 degrees and the log-probabilities averaged: a second look that lowers the
        confidence of a reading only one view supports (and raises it where the turned view is surer). One under
        ``quarter_below`` that is ``turnable`` is read a quarter turned both ways too, and that pair replaces the
        first when its top log-probability is higher by more than ``quarter_turn_margin`` (None: never). The
        crop's upright end is chosen from its box's shape, which fails for a tile lying near 45 degrees (a square
        box) and for photos stretched so far that upright tiles come out landscape."""
        logp = self._logp(crops) if logp is None else logp.copy()
        top = np.exp(logp.max(1)) if len(logp) else np.zeros(0)
        unsure = np.flatnonzero(top < self.tta_below)
        if len(unsure):
            may = top[unsure] < self.quarter_below
            if turnable is not None:
                may &= turnable[unsure]
            if self.quarter_turn_margin is None:
                may[:] = False
            quarters = unsure[may]
            # every turned view in one batch: the half turns, then both quarter turns of the turnable ones
            views = [(i, 2) for i in unsure] + [(i, 1) for i in quarters] + [(i, 3) for i in quarters]
            out = self._logp([np.ascontiguousarray(np.rot90(crops[i], k)) for i, k in views])
            upright = (logp[unsure] + out[:len(unsure)]) / 2
            if len(quarters):
                quarter = (out[len(unsure):len(unsure) + len(quarters)] + out[len(unsure) + len(quarters):]) / 2
                better = quarter.max(1) > upright[may].max(1) + self.quarter_turn_margin
                rows = np.flatnonzero(may)[better]
                upright[rows] = quarter[better]
            logp[unsure] = upright
        e = np.exp(logp - logp.max(1, keepdims=True))
        return (e / e.sum(1, keepdims=True)).astype(np.float32)

    def warm(self) -> None:
        """Run both models once at the shapes a phone photo gives (onnxruntime's first run of a shape allocates),
        so that the first photo a user takes is as fast as the later ones."""
        for w, h in ((1600, 1200), (1200, 1600), (2016, 1512)):
            self._detect_at(np.full((h, w, 3), 128, np.uint8), 1.0, 1.0)
        name = self.classifier.get_inputs()[0].name
        blank = [np.full((64, 64, 3), 200, np.uint8)]
        for n in (1, 14, self.batch):
            self.classifier.run(None, {name: crops_to_batch(blank * n)})

    def _level(self, img: np.ndarray, det: Detections, quarter: int, veil: np.ndarray | None, early: float | None
               ) -> tuple[np.ndarray, Detections, int, np.ndarray | None, float]:
        """``_find``'s reading, or, where its rows run at ``level_photo_from`` degrees or more (a phone held askew),
        the reading of the photo turned level (``_find_levelled``) when that is as sure, with its rows level and its
        tiles upright: the photo read, its boxes, quarter turns and glare veil, and the degrees it was levelled by.
        ``early``: ``det`` is a first pass alone, with the slant ``_find`` measured (from its rows, or from the
        photo's edges where it saw little), read in full when the levelled reading is not kept."""
        if not self.level_photo_from:
            return img, det, quarter, veil, 0.0
        # the rows' direction alone (boxes around tilted tiles come out squarer or longer than tiles, so the shapes'
        # check of ``row_angle`` would rule out many), in the frame the finder read (a photo turned by a quarter as
        # it read it)
        rows = turn_boxes(det.xyxy, img.shape, quarter) if quarter else det.xyxy
        by_rows = row_direction(rows, LOOSE_ROWS if early is not None else 5.0, LEVEL_STEEPEST)
        by_rows = by_rows if steep_rows_agree(img, det.xyxy, by_rows) else 0.0
        slant = by_rows if early is None else early
        if abs(slant) < self.level_photo_from and landscape(Detections(rows, det.confidence)):
            # tiles lying landscape in the frame read, with no rows across it: a photo turned by a quarter and held
            # askew the other way, whose rows run 50-75 degrees up the picture, which the finder did not read
            # turned; in the frame turned by one more quarter its rows run at a slant
            steep = row_direction(turn_boxes(det.xyxy, img.shape, (quarter + 1) % 4), 5.0, LEVEL_STEEPEST)
            if abs(steep) >= self.level_photo_from and steep_rows_agree(img, det.xyxy, steep):
                slant, quarter = steep, (quarter + 1) % 4
        if abs(slant) < self.level_photo_from:
            return img, det, quarter, veil, 0.0
        # a slant from the photo's edges holds modulo a quarter turn, and the first pass's few boxes place no region
        by_edges = early is not None and abs(by_rows) < self.level_photo_from
        # the boxes around tilted tiles overlap and hide which tiles lie sideways, so the layout cannot group them;
        # the whole photo is read again turned level, where its tiles stand upright as the finder, the crops and the
        # layout expect. Turns in the plane add up in any order, so a photo also turned by a quarter is levelled by
        # the slant its turned rows show, and read turned by the same quarter
        # (where only the edges gave the slant, it holds modulo a quarter turn: the photo is levelled both ways and
        # the surer reading kept)
        kept: tuple[np.ndarray, Detections, int, np.ndarray | None, float] | None = None
        before = confident_mass(det)
        for angle in (slant, slant - np.copysign(90.0, slant)) if by_edges else (slant,):
            # (the two ways are compared by their sure boxes: neither is read sharpened, which would tip the scale)
            level, again, turns, level_veil = self._find_levelled(img, Detections.empty() if by_edges else det,
                                                                  float(angle), quarter, False if by_edges else None)
            upright = Detections(turn_boxes(again.xyxy, level.shape, turns), again.confidence)
            # (about as sure as the slanted reading: its own zoomed pass read the rows levelled, at another size;
            # its tiles upright, not those of a photo turned by a quarter whose columns side by side looked
            # slanted; where only the edges gave the slant, clearly surer than the first pass that saw little)
            mass = confident_mass(again)
            if ((mass >= 1.2 * before + 1.0 if by_edges else turns == quarter and mass >= 0.7 * before)
                    and len(again) >= 0.9 * len(det)
                    and abs(row_direction(upright.xyxy)) < self.level_photo_from and not landscape(upright)
                    and (kept is None or mass > confident_mass(kept[1]))):
                kept = level, again, turns, level_veil, float(angle)
        if kept is not None:
            return kept
        if early is not None:  # the levelled reading went wrong: the slanted photo read in full, as before (and
            # levelled by the rows of that reading, if they run at a slant)
            return self._level(img, *self._find(img))
        return img, det, quarter, veil, 0.0

    def read(self, img: np.ndarray, timing: dict[str, float] | None = None) -> Detections:
        """Detect and classify every tile of a decoded photo, and find which way up it is: the boxes come back
        in the pixels of the photo levelled by ``det.levelled`` degrees and turned by ``det.turned`` quarter turns
        (``orientation.as_read``)."""
        t = time.perf_counter()
        img = brightened(img)
        # the finder reads the photo with any glare veil taken off (tile edges under a highlight come back); the
        # classifier reads the photo as it is, and de-glared crops only for veiled tiles and washed-out faces
        # (a first pass whose rows run at a slant comes back as it is: the slanted photo's own retries and zoomed
        # pass are then not needed)
        img, det, quarter, veil, level_by = self._level(img, *self._find(img, self.level_photo_from))
        t2 = time.perf_counter()
        det = self.classify(img, det, quarter, veil, measured=True)
        det.levelled = level_by
        if self.photo_turn:
            det.xyxy = turn_boxes(det.xyxy, img.shape, det.turned)
            if upside_down(det):  # the classifier reads a tile upside down as well: the layout tells
                det.xyxy = turn_boxes(det.xyxy, turned_shape(img.shape, det.turned), 2)
                det.turned = (det.turned + 2) % 4
        if timing is not None:
            timing["detect_ms"] = 1000 * (t2 - t)
            timing["classify_ms"] = 1000 * (time.perf_counter() - t2)
        return det
