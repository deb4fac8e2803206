"""A trainable tile finder rebuilt from the shipped ONNX file, so that a new finder stage starts from the shipped
one (its training checkpoints are not kept in the repository).

    python -m training.finder_onnx --onnx models/detector.onnx --out build/detector_shipped.pt

The export folded every batch norm into the convolution before it (a weight and a bias). Each norm is rebuilt so
that it gives back exactly the folded convolution, in training as in evaluation: its running statistics are
measured on training photos (the convolution's own output without bias), and its scale and shift undo them
(``scale = sqrt(var + eps)``, ``shift = mean + bias``). Checked: the rebuilt model's outputs match the ONNX file's.
"""

from __future__ import annotations

import argparse
import ast
from pathlib import Path

import numpy as np


def rebuild(onnx_path: str, base_weights: str, photos: list[Path], imgsz: int = 416) -> object:
    """The Ultralytics DetectionModel of ``base_weights``' architecture with the ONNX file's classes and weights."""
    import onnx
    import torch
    from onnx import numpy_helper
    from ultralytics import YOLO
    from ultralytics.nn.modules.conv import Conv
    from ultralytics.nn.tasks import DetectionModel

    graph = onnx.load(onnx_path)
    inits = {t.name: numpy_helper.to_array(t) for t in graph.graph.initializer}
    meta = {p.key: p.value for p in graph.metadata_props}
    names = ast.literal_eval(meta["names"])  # a dict literal written by the exporter, e.g. {0: 'tile', 1: 'back'}
    base = YOLO(base_weights).model
    cfg = dict(base.yaml)
    cfg["nc"] = len(names)
    model = DetectionModel(cfg, nc=len(names), verbose=False)
    model.names = names
    convs = {name: m for name, m in model.named_modules() if isinstance(m, Conv)}
    with torch.no_grad():
        done = set()
        for name, m in convs.items():
            m.conv.weight.copy_(torch.from_numpy(inits[f"{name}.conv.weight"].copy()))
            done.add(f"{name}.conv.weight")
        for key, value in model.state_dict().items():
            if key in inits and key not in done:
                value.copy_(torch.from_numpy(inits[key].copy()))
                done.add(key)
        missing = [k for k in model.state_dict() if k not in done and ".bn." not in k]
        if missing:
            raise SystemExit(f"{onnx_path}: weights not in the file: {missing[:5]}")
        # first the plain fold (each norm a bias: unit scale, zero mean, unit variance), to measure each
        # convolution's output statistics on training photos
        stats: dict[str, list] = {name: [] for name in convs}
        for name, m in convs.items():
            m.bn.weight.fill_(1.0)
            m.bn.bias.copy_(torch.from_numpy(inits[f"{name}.conv.bias"].copy()))
            m.bn.running_mean.zero_()
            m.bn.running_var.fill_(1.0 - m.bn.eps)

        def hook(name: str):
            def record(_mod, _inp, out):
                x = out.double()
                stats[name].append((x.mean((0, 2, 3)), (x * x).mean((0, 2, 3))))
            return record

        handles = [m.conv.register_forward_hook(hook(name)) for name, m in convs.items()]
        model.eval()
        for batch in _batches(photos, imgsz):
            model(batch)
        for h in handles:
            h.remove()
        for name, m in convs.items():
            mean = torch.stack([s[0] for s in stats[name]]).mean(0)
            var = (torch.stack([s[1] for s in stats[name]]).mean(0) - mean ** 2).clamp_min(1e-6)
            bias = torch.from_numpy(inits[f"{name}.conv.bias"].copy()).double()
            m.bn.running_mean.copy_(mean.float())
            m.bn.running_var.copy_(var.float())
            m.bn.weight.copy_(torch.sqrt(var + m.bn.eps).float())
            m.bn.bias.copy_((mean + bias).float())
    return model


def _batches(photos: list[Path], imgsz: int, size: int = 8):
    """Letterboxed photos as float tensors (N, 3, imgsz, imgsz), RGB 0..1."""
    import cv2
    import torch

    from vision.finder import letterbox

    for i in range(0, len(photos), size):
        blobs = []
        for p in photos[i:i + size]:
            img = cv2.imread(str(p))
            if img is not None:
                blobs.append(letterbox(img, imgsz)[0])
        if blobs:
            yield torch.from_numpy(np.concatenate(blobs))


def check(model: object, onnx_path: str, photos: list[Path], imgsz: int = 416) -> float:
    """Largest absolute difference between the rebuilt model's raw outputs and the ONNX file's, on a few photos."""
    import onnxruntime as ort
    import torch

    sess = ort.InferenceSession(onnx_path, providers=["CPUExecutionProvider"])
    model.eval()  # type: ignore[attr-defined]
    worst = 0.0
    for batch in _batches(photos, imgsz, size=1):
        with torch.no_grad():
            out = model(batch)  # type: ignore[operator]
        ours = (out[0] if isinstance(out, (list, tuple)) else out).numpy()
        theirs = sess.run(None, {sess.get_inputs()[0].name: batch.numpy()})[0]
        worst = max(worst, float(np.abs(ours - theirs).max()))
    return worst


def main() -> None:
    import torch

    from training.data import load_split, shared_dir

    ap = argparse.ArgumentParser(prog="python -m training.finder_onnx", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--onnx", default="models/detector.onnx")
    ap.add_argument("--base", default=str(shared_dir() / "weights" / "mjdet_yolo11n.pt"),
                    help="a checkpoint of the same architecture (only its layout is used)")
    ap.add_argument("--photos", type=int, default=64, help="training photos to measure the norms on")
    ap.add_argument("--out", default="build/detector_shipped.pt")
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    train = load_split("train")
    photos = [train[i].path for i in rng.choice(len(train), min(args.photos, len(train)), replace=False)]
    model = rebuild(args.onnx, args.base, photos)
    valid = [li.path for li in load_split("valid")[:4]]
    diff = check(model, args.onnx, valid)
    print(f"largest difference from {args.onnx} on 4 valid photos: {diff:.2e}", flush=True)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    torch.save({"model": model, "train_args": {}, "epoch": -1, "best_fitness": None, "optimizer": None,
                "date": None, "version": "rebuilt from " + args.onnx}, args.out)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
