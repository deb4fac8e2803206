"""Tiny training runs of both stages, only where the `train` extra (torch, ultralytics) is installed."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from tests.helpers import SHARED

HAS_TORCH = importlib.util.find_spec("torch") is not None
HAS_ULTRA = importlib.util.find_spec("ultralytics") is not None
WEIGHTS = SHARED / "weights" / "mjdet_yolo11n.pt"


@pytest.mark.skipif(not HAS_TORCH, reason="torch not installed (pip install '.[train]')")
def test_classifier_trains_a_step_and_exports_to_onnx(tmp_path: Path):
    import onnxruntime as ort
    import torch
    import torch.nn.functional as F

    from training.train_classifier import TileNet, augment

    model = TileNet()
    x = torch.rand(8, 3, 64, 64)
    y = torch.randint(0, 43, (8,))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    loss0 = F.cross_entropy(model(augment(x, torch.Generator().manual_seed(0))), y)
    loss0.backward()
    opt.step()
    model.eval()
    path = tmp_path / "c.onnx"
    torch.onnx.export(model, x[:1], str(path), input_names=["crops"], output_names=["logits"],
                      dynamic_axes={"crops": {0: "n"}}, opset_version=17, dynamo=False)
    out = ort.InferenceSession(str(path)).run(None, {"crops": x.numpy()})[0]
    assert np.allclose(out, model(x).detach().numpy(), atol=1e-4)


@pytest.mark.skipif(not HAS_ULTRA, reason="ultralytics not installed (pip install '.[train]')")
@pytest.mark.skipif(not WEIGHTS.exists(), reason=f"{WEIGHTS} not found")
def test_detector_fine_tunes_for_one_tiny_epoch(tmp_path: Path):
    from training.train_detector import build_dataset, offline_env

    offline_env(tmp_path)
    from ultralytics import YOLO

    yaml = build_dataset(tmp_path, n_synth=2, seed=0)
    model = YOLO(str(WEIGHTS))
    model.train(data=str(yaml), epochs=1, imgsz=64, batch=4, workers=0, device="cpu", project=str(tmp_path),
                name="run", plots=False, amp=False, fraction=0.005, val=False)
    assert (tmp_path / "run" / "weights" / "last.pt").exists()


@pytest.mark.skipif(not HAS_TORCH, reason="torch not installed (pip install '.[train]')")
def test_the_shipped_classifier_loads_back_for_fine_tuning_and_conditions_augment() -> None:
    """The folded ONNX classifier gives the same logits as the network it is loaded into, and each photo condition
    changes the crops it is applied to and keeps them in [0, 1]."""
    import onnxruntime as ort
    import torch

    from training.train_classifier import Conditions, TileNet, augment, load_onnx_weights
    from vision.models import MODELS_DIR

    path = MODELS_DIR / "classifier.onnx"
    session = ort.InferenceSession(str(path))
    n_out = session.get_outputs()[0].shape[1]
    model = TileNet(n_out)
    pytest.importorskip("onnx")
    load_onnx_weights(model, str(path))
    model.eval()
    x = np.random.default_rng(0).random((4, 3, 64, 64), dtype=np.float32)
    want = session.run(None, {session.get_inputs()[0].name: x})[0]
    assert np.allclose(model(torch.from_numpy(x)).detach().numpy(), want, atol=1e-4)
    crops = torch.from_numpy(x)
    for name in ("glare", "motion", "low_light", "cast", "recolour"):
        out = augment(crops, torch.Generator().manual_seed(1), Conditions(**{name: 1.0}))
        plain = augment(crops, torch.Generator().manual_seed(1), Conditions())
        assert out.shape == crops.shape and 0 <= float(out.min()) and float(out.max()) <= 1
        assert not torch.allclose(out, plain), name


@pytest.mark.skipif(not HAS_TORCH, reason="torch not installed (pip install '.[train]')")
def test_recolour_keeps_white_and_grey_and_the_strokes_where_they_were() -> None:
    """Other inks, same face: a white tile stays white, a grey back stays grey, and the strokes keep their place
    (the crop's brightness pattern) while their colour changes."""
    import torch

    from training.train_classifier import recolour

    face = torch.ones(3, 3, 32, 32)
    face[:, :, 10:22, 14:18] = torch.tensor([0.8, 0.1, 0.1]).view(3, 1, 1)  # a red stroke on white
    face[1] = 0.5  # the second crop: plain grey
    out = recolour(face, torch.Generator().manual_seed(3), 1.0)
    assert torch.allclose(out[:, :, :10], face[:, :, :10], atol=1e-5)  # white ground untouched
    assert torch.allclose(out[1], face[1], atol=1e-5)
    stroke = out[[0, 2], :, 10:22, 14:18]
    assert not torch.allclose(stroke, face[[0, 2], :, 10:22, 14:18], atol=0.05)  # the ink changed colour
    assert float(stroke.mean(1).max()) < 0.7  # and is still darker than the ground


@pytest.mark.skipif(not (HAS_TORCH and HAS_ULTRA), reason="torch / ultralytics not installed (pip install '.[train]')")
@pytest.mark.skipif(not WEIGHTS.exists(), reason=f"{WEIGHTS} not found (set MAHJONG_SHARED)")
def test_the_shipped_finder_is_rebuilt_trainable_and_gives_the_same_boxes() -> None:
    """A new finder stage starts from the shipped ONNX file: the rebuilt model (batch norms unfolded) reads
    photos as the file does."""
    from training.data import load_split
    from training.finder_onnx import check, rebuild
    from vision.models import MODELS_DIR

    photos = [li.path for li in load_split("train")[:4]]
    model = rebuild(str(MODELS_DIR / "detector.onnx"), str(WEIGHTS), photos)
    assert check(model, str(MODELS_DIR / "detector.onnx"), [li.path for li in load_split("valid")[:2]]) < 1e-2
