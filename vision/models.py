"""Where the shipped ONNX models are, and one cached onnxruntime session per model file and thread count."""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

import onnxruntime as ort


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
