"""The finder seam: one adapter per model family turns its output into the same ``Detections``."""

from __future__ import annotations

import numpy as np
import pytest

from vision.finder import Finder, FinderConfig, NmsInGraph, YoloHead, adapter_for
from vision.models import MODELS_DIR, session

needs_model = pytest.mark.skipif(not (MODELS_DIR / "detector.onnx").exists(), reason="shipped models not built")


class _Meta:
    def __init__(self, meta: dict[str, str]) -> None:
        self.custom_metadata_map = meta


class _Port:
    def __init__(self, name: str, shape: list) -> None:
        self.name, self.shape = name, shape


class NmsExport:
    """A stand-in for a detector exported with NMS in its graph: the shipped finder's head, decoded and
    suppressed inside the "model", giving (1, boxes, 6) rows of x1, y1, x2, y2, score, class."""

    def __init__(self, inner: object, keep: int = 300) -> None:
        self.inner, self.keep = inner, keep

    def get_inputs(self) -> list:
        return self.inner.get_inputs()  # type: ignore[attr-defined]

    def get_outputs(self) -> list:
        return [_Port("output0", [1, self.keep, 6])]

    def get_modelmeta(self) -> _Meta:
        meta = dict(self.inner.get_modelmeta().custom_metadata_map)  # type: ignore[attr-defined]
        meta["args"] = meta.get("args", "").replace("'nms': False", "'nms': True")
        return _Meta(meta)

    def run(self, names: object, feed: dict[str, np.ndarray]) -> list[np.ndarray]:
        out = self.inner.run(names, feed)[0][0]  # type: ignore[attr-defined]
        cx, cy, w, h = out[:4]
        scores, cls = out[4:].max(0), out[4:].argmax(0)
        order = np.argsort(-scores)[: self.keep]
        rows = np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2, scores, cls], 1)[order]
        return [rows[None].astype(np.float32)]


@needs_model
def test_each_family_gets_its_adapter() -> None:
    """The shipped finder (an Ultralytics head exported without NMS) reads through ``YoloHead``; an export with
    NMS in the graph through ``NmsInGraph``, chosen from its output shape and metadata."""
    model = session(str(MODELS_DIR / "detector.onnx"), 1)
    assert isinstance(adapter_for(model), YoloHead)
    assert isinstance(adapter_for(NmsExport(model)), NmsInGraph)  # type: ignore[arg-type]


@needs_model
def test_a_finder_with_nms_in_its_graph_finds_the_same_tiles(tmp_path: object) -> None:
    """The same boxes and scores from the same network behind either output layout: the thresholds, the map back
    to the image and the duplicate suppression are the finder's, the same for every family."""
    import cv2

    from tests.test_frame import _composed

    path = tmp_path / "hand.jpg"  # type: ignore[operator]
    _composed(path)
    img = cv2.imread(str(path))
    model = session(str(MODELS_DIR / "detector.onnx"), 1)
    head = Finder(model, FinderConfig())
    in_graph = Finder(NmsExport(model), FinderConfig())  # type: ignore[arg-type]
    a, b = head.find(img), in_graph.find(img)
    assert len(a) >= 14
    pairs = [(i, int(np.argmin(np.abs(b.xyxy - box).sum(1)))) for i, box in enumerate(a.xyxy)]
    assert len(a) == len(b) and all(np.abs(a.xyxy[i] - b.xyxy[j]).max() < 1.0 for i, j in pairs)
    assert all(abs(float(a.confidence[i]) - float(b.confidence[j])) < 1e-5 for i, j in pairs)
    # the head gives each box's share of "face down"; the export only its class, as 0 or 1
    assert a.back_score is not None and b.back_score is not None
    assert all((a.back_score[i] > 0.5) == (b.back_score[j] > 0.5) for i, j in pairs)


class _FixedInput:
    """A finder exported at a fixed 416 x 416 input that finds nothing; it records the inputs it is given."""

    def __init__(self) -> None:
        self.inputs: list[tuple[int, ...]] = []

    def get_inputs(self) -> list:
        return [_Port("images", [1, 3, 416, 416])]

    def get_outputs(self) -> list:
        return [_Port("output0", [1, 6, 3549])]

    def get_modelmeta(self) -> _Meta:
        return _Meta({"imgsz": "[416, 416]"})

    def run(self, names: object, feed: dict[str, np.ndarray]) -> list[np.ndarray]:
        blob = next(iter(feed.values()))
        self.inputs.append(blob.shape)
        return [np.zeros((1, 6, 3549), np.float32)]


def test_a_fixed_input_finder_still_reads_the_zoomed_pass() -> None:
    """A finder without dynamic axes reads a small hand's region enlarged as far as its input allows, where the
    zoomed pass used to be silently off for it."""
    from vision.detections import Detections
    from vision.zoom import Zoom

    model = _FixedInput()
    finder = Finder(model, FinderConfig())  # type: ignore[arg-type]
    assert finder.stride == 0 and finder.imgsz == 416
    xs = 800 + 22 * np.arange(14, dtype=np.float32)  # 14 small tiles across a 2,000-px photo
    boxes = np.stack([xs, np.full(14, 700), xs + 20, np.full(14, 728)], 1).astype(np.float32)
    det = Detections(boxes, np.full(14, 0.8, np.float32))
    Zoom(finder).read(np.zeros((1500, 2000, 3), np.uint8), det)
    assert model.inputs == [(1, 3, 416, 416)]  # one zoomed pass, at the input's fixed size
