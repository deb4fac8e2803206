"""The tile finder: one ONNX detector behind an adapter per model family, giving ``Detections``.

An adapter turns a model's raw output into boxes in the letterboxed input's pixels, with scores (and, for a
two-class head, each box's share of "face down"). ``Finder`` owns the rest, the same for every family: the
letterbox, the map back to the image's pixels, and the non-maximum suppression. The thresholds a finder's
scores are read with live here, named once.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

import cv2
import numpy as np
import onnxruntime as ort

from .detections import Detections, box_areas, intersections

SURE = 0.5  # a finder score from which a box counts as sure: it places zoomed regions and weighs readings


@dataclass(frozen=True)
class FinderConfig:
    """How a finder's boxes are kept: the score cut (``conf``) and the overlap NMS merges at (``iou``)."""

    conf: float = 0.3
    iou: float = 0.5


@dataclass
class RawBoxes:
    """One finder pass's boxes in the letterboxed input's pixels, before NMS: (n, 4) xyxy, scores, back shares."""

    xyxy: np.ndarray
    scores: np.ndarray
    back_share: np.ndarray | None = None


class FinderAdapter(ABC):
    """Turns the raw output of one model family into ``RawBoxes`` scored ``conf`` or more."""

    @abstractmethod
    def boxes(self, outputs: list[np.ndarray], conf: float) -> RawBoxes:
        """The boxes of a batch of one, in input pixels."""


def _no_boxes() -> RawBoxes:
    return RawBoxes(np.zeros((0, 4), np.float32), np.zeros(0, np.float32))


class YoloHead(FinderAdapter):
    """An Ultralytics detection head exported without NMS: (1, 4 + classes, anchors) of centre, size and class
    scores. The shipped finder has two classes, tile and back; its back share is back / (tile + back). A one-class
    head (tile) gives no back share."""

    def boxes(self, outputs: list[np.ndarray], conf: float) -> RawBoxes:
        out = outputs[0][0]
        scores = out[4:].max(0)
        keep = scores >= conf
        if not keep.any():
            return _no_boxes()
        cx, cy, bw, bh = out[0, keep], out[1, keep], out[2, keep], out[3, keep]
        xyxy = np.stack([cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2], 1)
        back = None
        if out.shape[0] == 6:  # (tile, back) scores
            cls = out[4:, keep]
            back = cls[1] / np.maximum(cls.sum(0), 1e-6)
        return RawBoxes(xyxy, scores[keep], back)


class NmsInGraph(FinderAdapter):
    """A detector exported with NMS in its graph (Ultralytics ``nms=True`` / end-to-end heads): (1, boxes, 6) of
    x1, y1, x2, y2, score, class. Class 1 is a back when the model has two classes (``backs``)."""

    def __init__(self, backs: bool = True) -> None:
        self.backs = backs

    def boxes(self, outputs: list[np.ndarray], conf: float) -> RawBoxes:
        out = outputs[0][0]
        keep = out[:, 4] >= conf
        if not keep.any():
            return _no_boxes()
        back = (out[keep, 5] == 1).astype(np.float32) if self.backs else None
        return RawBoxes(out[keep, :4], out[keep, 4], back)


def adapter_for(model: ort.InferenceSession) -> FinderAdapter:
    """The adapter for a detector session, from its output's shape and metadata: (1, n, 6) with n not 6, or an
    ``nms``/``end2end`` export, is NMS in the graph; otherwise a YOLO head."""
    meta = model.get_modelmeta().custom_metadata_map
    shape = model.get_outputs()[0].shape
    in_graph = meta.get("end2end") == "True" or "'nms': True" in meta.get("args", "")
    if in_graph or (len(shape) == 3 and shape[2] == 6 and shape[1] != 6):
        names = meta.get("names", "")
        return NmsInGraph(backs="back" in names or not names)
    return YoloHead()


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
    # RGB planes scaled to 0-1, each channel written once straight into the batch (the same values as a transposed
    # copy divided by 255, at half the cost)
    blob = np.empty((1, 3, ch, cw), np.float32)
    for c in range(3):
        np.divide(canvas[..., 2 - c], np.float32(255.0), out=blob[0, c], dtype=np.float32)
    return blob, r, (px, py)


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


def confident_mass(det: Detections, threshold: float = SURE) -> float:
    """Sum of the finder scores of the boxes it is fairly sure of: compares readings of one photo."""
    c = det.confidence
    return float(c[c >= threshold].sum())


class Finder:
    """One detector session and its adapter: ``find`` is one pass over an image, boxes in its pixels."""

    def __init__(self, model: ort.InferenceSession, config: FinderConfig | None = None,
                 adapter: FinderAdapter | None = None) -> None:
        self.model = model
        self.config = config or FinderConfig()
        self.adapter = adapter or adapter_for(model)
        shape = model.get_inputs()[0].shape
        # a fixed input (e.g. 416 x 416), or any shape (exported with dynamic axes): then the size trained at
        self.stride = 0 if isinstance(shape[2], int) else 32
        meta = model.get_modelmeta().custom_metadata_map
        trained = int(meta.get("imgsz", "[416]").strip("[]").split(",")[0])
        self.imgsz = shape[2] if isinstance(shape[2], int) else trained

    def largest_scale(self, shape: tuple[int, ...], scale: float) -> float:
        """``scale``, or for a fixed-input finder the largest that still fits an image of ``shape`` in its input
        (a zoomed region is then read at the size the input allows instead of not at all)."""
        return scale if self.stride else min(scale, self.imgsz / max(shape[:2]))

    def find(self, small: np.ndarray, fx: float = 1.0, fy: float = 1.0, scale: float | None = None) -> Detections:
        """One pass on ``small`` resized by (fx, fy) (and letterboxed at ``scale``); boxes in its pixels."""
        h, w = small.shape[:2]
        src = small if fx == fy == 1.0 else cv2.resize(
            small, (max(8, round(w * fx)), max(8, round(h * fy))), interpolation=cv2.INTER_AREA)
        blob, r, (px, py) = letterbox(src, self.imgsz, self.stride, scale)
        raw = self.adapter.boxes(self.model.run(None, {self.model.get_inputs()[0].name: blob}), self.config.conf)
        if not len(raw.scores):
            return Detections.empty()
        sx, sy = r * src.shape[1] / w, r * src.shape[0] / h
        boxes = np.stack([(raw.xyxy[:, 0] - px) / sx, (raw.xyxy[:, 1] - py) / sy, (raw.xyxy[:, 2] - px) / sx,
                          (raw.xyxy[:, 3] - py) / sy], 1)
        boxes[:, [0, 2]] = boxes[:, [0, 2]].clip(0, w)
        boxes[:, [1, 3]] = boxes[:, [1, 3]].clip(0, h)
        idx = self.nms(boxes, raw.scores)
        det = Detections(boxes[idx].astype(np.float32), raw.scores[idx].astype(np.float32))
        if raw.back_share is not None:
            det.back_score = raw.back_share[idx].astype(np.float32)
        return det

    def nms(self, boxes: np.ndarray, scores: np.ndarray) -> np.ndarray:
        """Indices kept by OpenCV's NMS and the duplicate suppression."""
        xywh = np.stack([boxes[:, 0], boxes[:, 1], boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]], 1)
        idx = cv2.dnn.NMSBoxes(xywh.tolist(), scores.tolist(), self.config.conf, self.config.iou)
        return suppress_contained(boxes, scores, np.array(idx, int).reshape(-1))
