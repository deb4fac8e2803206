"""The finder quantized to 8 bits, for its zoomed pass (the largest finder input): tried, not shipped.

    python -m training.quantize --model models/detector.onnx --out build/detector_int8.onnx   # ~3 min
    python benchmarks/bench_vision.py --zoom-finder ../build/detector_int8.onnx   # (a path from the models folder)

Static quantization (onnxruntime's QDQ format: weights per channel, activations per tensor, both 8 bits) with
activation ranges measured on the inputs the reader really gives the finder: 60 `train` photos and 40 composed
12-MP hands of `train` crops, read by the full-precision reader (first passes, squashed re-reads and zoomed passes
alike). The first convolution (``/model.0/``: quantized, it left 12 % of the tiles of composed hands misread or
missed) and the detection head's decoding and output convolutions stay in full precision. Read by the whole reader,
the 8-bit finder missed tiles of real photos (`valid` photos entirely right 71.3 -> 69.6 %); read by the zoomed
pass only (``TileReader(zoom_finder=...)``) it changed composed hands by noise (+4 / -7 of 1,260) for a gain within
this machine's drift, so the shipped reader keeps one full-precision finder. Needs ``onnx`` (the ``[train]``
extra).
"""

from __future__ import annotations

import argparse
import os
import random
import tempfile
from pathlib import Path

import numpy as np

# the finder's nodes left in full precision: the first convolution, and the head's decoding (not its cv2/cv3
# branches) and its last convolution of each branch (the scores and box distributions themselves)
HEAD = "/model.23/"
HEAD_OUTPUTS = tuple(f"cv{b}.{i}.2/Conv" for b in (2, 3) for i in range(3))


def finder_inputs(photos: int = 60, hands: int = 40, seed: int = 5) -> list[np.ndarray]:
    """Every input blob the full-precision reader gives the finder on ``photos`` `train` photos and ``hands``
    composed 12-MP hands of `train` crops (deterministic for a seed)."""
    import cv2

    from evaluation.hands import table_groups, truth_case
    from training.data import load_split
    from training.synth import CropBank, compose
    from vision.reader import TileReader

    reader = TileReader(threads=2, zoom_finder=None)
    blobs: list[np.ndarray] = []
    inner = reader.finder.model

    class Recorder:
        """The finder session, recording each input it is given."""

        def run(self, names: object, feed: dict[str, np.ndarray]) -> list[np.ndarray]:
            blobs.append(next(iter(feed.values())).copy())
            return inner.run(names, feed)

        def __getattr__(self, name: str) -> object:
            return getattr(inner, name)

    reader.finder.model = Recorder()  # type: ignore[assignment]
    train = load_split("train")
    rng, nrng = random.Random(seed), np.random.default_rng(seed)
    for labelled in rng.sample(train, photos):
        reader.read(cv2.imread(str(labelled.path)))
    bank = CropBank.build(train, seed=seed)
    for k in range(hands):
        hand, winner = truth_case(rng, ("nanning", "nanjing", "nanning-fan")[k % 3])
        img, _ = compose(table_groups(hand, winner, rng), bank, nrng, canvas=(4032, 3024), fit=True)
        reader.read(img)
    return blobs


def quantize(model: str, out: str, blobs: list[np.ndarray], samples: int = 120, seed: int = 0) -> list[str]:
    """Write the 8-bit copy of ``model`` to ``out``, its ranges measured on ``samples`` of ``blobs``; returns the
    nodes left in full precision."""
    import onnx
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    pick = np.random.default_rng(seed).choice(len(blobs), min(samples, len(blobs)), replace=False)

    class Feed(CalibrationDataReader):
        """The chosen blobs, one at a time."""

        def __init__(self) -> None:
            self.left = iter(pick)

        def get_next(self) -> dict[str, np.ndarray] | None:
            i = next(self.left, None)
            return None if i is None else {"images": blobs[i]}

    model, out = str(Path(model).resolve()), str(Path(out).resolve())
    here = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)  # onnxruntime's tools leave their scratch files in the working folder
        try:
            pre = str(Path(tmp) / "pre.onnx")
            quant_pre_process(model, pre, skip_symbolic_shape=True)
            graph = onnx.load(pre).graph
            keep = [n.name for n in graph.node
                    if n.name.startswith("/model.0/")
                    or (n.name.startswith(HEAD) and not ("/cv2." in n.name or "/cv3." in n.name))
                    or (n.name.startswith(HEAD) and n.name.endswith(HEAD_OUTPUTS))]
            quantize_static(pre, out, Feed(), quant_format=QuantFormat.QDQ, per_channel=True,
                            activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8, nodes_to_exclude=keep)
        finally:
            os.chdir(here)
    return keep


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default="models/detector.onnx")
    ap.add_argument("--out", default="build/detector_int8.onnx")
    ap.add_argument("--photos", type=int, default=60)
    ap.add_argument("--hands", type=int, default=40)
    ap.add_argument("--samples", type=int, default=120)
    args = ap.parse_args()
    blobs = finder_inputs(args.photos, args.hands)
    keep = quantize(args.model, args.out, blobs, args.samples)
    print(f"{len(blobs)} finder inputs seen, {args.samples} used; {len(keep)} nodes kept in full precision; "
          f"wrote {args.out}")


if __name__ == "__main__":
    main()
