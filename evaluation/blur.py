"""Where ``vision.blur.BLURRED`` comes from: `python -m evaluation.blur` prints ``edge_ratio``'s spread on real
`valid` photos and composed hands, one condition at a time."""

from __future__ import annotations

import argparse
import json

import cv2
import numpy as np

from evaluation.conditions import CONDITIONS
from evaluation.hands import composed_cases
from training.data import load_split
from training.synth import CropBank
from vision.blur import BLURRED, edge_ratio
from vision.finding import downscale


def main() -> None:
    """Print ``edge_ratio``'s spread (min, 10th, 50th, 90th percentile, max) on the finder's working copy of real
    `valid` photos (every ``--every``-th) and of composed hands, one condition at a time: where BLURRED comes from."""


    ap = argparse.ArgumentParser(prog="python -m evaluation.blur", description=main.__doc__)
    ap.add_argument("--every", type=int, default=10, help="every n-th real `valid` photo")
    ap.add_argument("--composed", type=int, default=20,
                    help="the first composed hands of `evaluation.hands --seed 0` (2,016 x 1,512)")
    ap.add_argument("--conditions", default="upright,blur2,motion,dim,lowres,jpeg25,glare,rot45,rot300")
    args = ap.parse_args()
    valid = load_split("valid")
    photos = [(cv2.imread(str(li.path)), li.boxes) for li in valid[::args.every]]
    bank = CropBank.build(valid, seed=0)

    def spread(ratios: list[float]) -> list[float]:
        return [round(float(v), 2) for v in np.percentile(ratios, [0, 10, 50, 90, 100])] if ratios else []

    out: dict[str, dict[str, list[float]]] = {}
    for name in args.conditions.split(","):
        real = [edge_ratio(downscale(CONDITIONS[name](img, boxes.copy(), np.random.default_rng(i))[0], 1248))
                for i, (img, boxes) in enumerate(photos)]
        composed = [edge_ratio(downscale(case[4], 1248)) for case in composed_cases(bank, args.composed, 0, name)]
        out[name] = {"real": spread(real), "composed": spread(composed)}
    print(json.dumps({"blurred_below": BLURRED, "edge_ratio_min_p10_p50_p90_max": out}, indent=1))


if __name__ == "__main__":
    main()
