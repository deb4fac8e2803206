"""Photo -> Detections: the ONNX tile finder, then the crop classifier on full-resolution crops.

Both ONNX sessions are created once per process (cached) with a fixed thread count.
"""

from __future__ import annotations

import os
import time
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
import onnxruntime as ort

from .classes import BACK
from .crops import crops_to_batch, orientation, tile_crop
from .detections import Detections

MODELS_DIR = Path(os.environ.get("MAHJONG_MODELS_DIR", Path(__file__).resolve().parents[1] / "models"))


class ModelMissing(FileNotFoundError):
    """The shipped ONNX model files are not where they should be."""


@lru_cache(maxsize=8)
def session(path: str, threads: int) -> ort.InferenceSession:
    """One cached onnxruntime session per (model, thread count)."""
    if not Path(path).exists():
        raise ModelMissing(f"model file {path} not found (set MAHJONG_MODELS_DIR or run the training stage)")
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    return ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])


def letterbox(img: np.ndarray, size: int) -> tuple[np.ndarray, float, tuple[float, float]]:
    """Resize keeping the aspect ratio, pad to size x size (grey 114); returns the NCHW batch, scale, padding."""
    h, w = img.shape[:2]
    r = min(size / w, size / h)
    nw, nh = int(round(w * r)), int(round(h * r))
    src = img
    while src.shape[1] > 4 * nw:  # Gaussian halving first: as smooth as area averaging, several times faster
        src = cv2.pyrDown(src)
    resized = cv2.resize(src, (nw, nh), interpolation=cv2.INTER_AREA if r < 1 else cv2.INTER_LINEAR)
    canvas = np.full((size, size, 3), 114, np.uint8)
    px, py = (size - nw) // 2, (size - nh) // 2
    canvas[py:py + nh, px:px + nw] = resized
    blob = canvas[..., ::-1].transpose(2, 0, 1)[None].astype(np.float32) / 255.0
    return np.ascontiguousarray(blob), r, (px, py)


def suppress_contained(boxes: np.ndarray, scores: np.ndarray, idx: np.ndarray, ratio: float = 0.6) -> np.ndarray:
    """Drop a box that lies mostly (ratio of its area) inside a higher-scoring one: half-tile duplicates."""
    order = idx[np.argsort(-scores[idx])]
    keep: list[int] = []
    for i in order:
        b = boxes[i]
        area = max((b[2] - b[0]) * (b[3] - b[1]), 1e-6)
        dup = False
        for j in keep:
            k = boxes[j]
            iw = min(b[2], k[2]) - max(b[0], k[0])
            ih = min(b[3], k[3]) - max(b[1], k[1])
            if iw > 0 and ih > 0 and iw * ih > ratio * min(area, (k[2] - k[0]) * (k[3] - k[1])):
                dup = True
                break
        if not dup:
            keep.append(int(i))
    return np.array(sorted(keep), int)


class TileReader:
    """Reads the tiles of a photo: detector boxes + classifier probabilities, as one Detections object."""

    def __init__(self, models_dir: str | Path = MODELS_DIR, threads: int = 2, conf: float = 0.3, iou: float = 0.5,
                 batch: int = 64) -> None:
        self.models_dir = Path(models_dir)
        self.threads = threads
        self.conf = conf
        self.iou = iou
        self.batch = batch
        self.detector = session(str(self.models_dir / "detector.onnx"), threads)
        self.classifier = session(str(self.models_dir / "classifier.onnx"), threads)
        self.imgsz = int(self.detector.get_inputs()[0].shape[2])

    def detect(self, img: np.ndarray) -> Detections:
        """Tile boxes in image pixels (class-agnostic NMS with OpenCV)."""
        blob, r, (px, py) = letterbox(img, self.imgsz)
        out = self.detector.run(None, {self.detector.get_inputs()[0].name: blob})[0][0]  # (4 + nc, N)
        scores = out[4:].max(0)
        keep = scores >= self.conf
        if not keep.any():
            return Detections.empty()
        cx, cy, bw, bh = out[0, keep], out[1, keep], out[2, keep], out[3, keep]
        s = scores[keep]
        boxes = np.stack([(cx - bw / 2 - px) / r, (cy - bh / 2 - py) / r, (cx + bw / 2 - px) / r,
                          (cy + bh / 2 - py) / r], 1)
        h, w = img.shape[:2]
        boxes[:, [0, 2]] = boxes[:, [0, 2]].clip(0, w)
        boxes[:, [1, 3]] = boxes[:, [1, 3]].clip(0, h)
        xywh = np.stack([boxes[:, 0], boxes[:, 1], boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]], 1)
        idx = cv2.dnn.NMSBoxes(xywh.tolist(), s.tolist(), self.conf, self.iou)
        idx = suppress_contained(boxes, s, np.array(idx, int).reshape(-1))
        det = Detections(boxes[idx].astype(np.float32), s[idx].astype(np.float32))
        if out.shape[0] == 6:  # our two-class finder: (tile, back) scores
            cls = out[4:, keep][:, idx]
            det.back_score = (cls[1] / np.maximum(cls.sum(0), 1e-6)).astype(np.float32)
        return det

    def classify(self, img: np.ndarray, det: Detections) -> Detections:
        """Fill in class probabilities from crops of the (full-resolution) image; sideways crops are turned."""
        turn, side = orientation(det.xyxy)
        crops = [tile_crop(img, box, turn=bool(tb))[0] for box, tb in zip(det.xyxy, turn)]
        probs = []
        name = self.classifier.get_inputs()[0].name
        half = max(1, self.batch // 2)
        for i in range(0, len(crops), half):
            part = crops[i:i + half]
            # test-time augmentation: each crop and its 180-degree turn, log-probabilities averaged
            batch = crops_to_batch(part + [np.ascontiguousarray(c[::-1, ::-1]) for c in part])
            logits = self.classifier.run(None, {name: batch})[0]
            logp = logits - logits.max(1, keepdims=True)
            logp -= np.log(np.exp(logp).sum(1, keepdims=True))
            avg = (logp[:len(part)] + logp[len(part):]) / 2
            e = np.exp(avg - avg.max(1, keepdims=True))
            probs.append(e / e.sum(1, keepdims=True))
        det.probs = np.concatenate(probs).astype(np.float32) if probs else np.zeros((0, 43), np.float32)
        if det.back_score is not None and len(det):
            # the finder saw the tile's back: let that outvote a face the classifier guessed on a plain back
            p_back = np.maximum(det.probs[:, BACK], det.back_score)
            rest = det.probs.copy()
            rest[:, BACK] = 0
            rest *= ((1 - p_back) / np.maximum(rest.sum(1), 1e-6))[:, None]
            rest[:, BACK] = p_back
            det.probs = rest.astype(np.float32)
        det.sideways = np.array(side, bool)
        return det

    def read(self, img: np.ndarray, timing: dict[str, float] | None = None) -> Detections:
        """Detect and classify every tile of a decoded photo."""
        t = time.perf_counter()
        det = self.detect(img)
        t2 = time.perf_counter()
        det = self.classify(img, det)
        if timing is not None:
            timing["detect_ms"] = 1000 * (t2 - t)
            timing["classify_ms"] = 1000 * (time.perf_counter() - t2)
        return det
