"""Per-photo latency of the reading chain on 12-megapixel photos, at 1 and 2 threads, beside `mahjong-detector`.

    python benchmarks/bench_vision.py [--n 20] [--seed 1] [--turn K] [--askew DEGREES] [--blur SIGMA]

Photos: composed winning hands (real `valid`-split crops on real backgrounds, see evaluation.hands) saved
as 4032x3024 JPEGs. Latency = file -> hand (decode, detect, crop, classify, layout, correction), the model loaded
once as in `python -m vision A.jpg B.jpg ...`. Tiles right = multiset overlap of the codes read with the true
faces (flowers and face-down tiles excluded, which mahjong-detector cannot name). ``--turn K`` saves every photo
turned by K quarter turns counter-clockwise with no EXIF tag (the reader finds the turn itself); ``--askew D``
turns every photo by D degrees in its plane first (a phone held askew: the reader reads it levelled).
``--zoom-finder FILE`` reads the zoomed pass with another copy of the finder (e.g. ``detector_int8.onnx``).
``--blur S`` blurs every 12-MP photo by a Gaussian of sigma S px first (out of focus; ``--no-deblur``: the reader
without its sharpening of blurred photos).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evaluation.conditions import rotate  # noqa: E402
from evaluation.hands import table_groups, truth_case  # noqa: E402
from training.data import load_split  # noqa: E402
from training.synth import CropBank, compose  # noqa: E402
from vision.geometry import turn_image  # noqa: E402
from vision.models import session  # noqa: E402
from vision.pipeline import read_photo  # noqa: E402
from vision.reader import ReaderConfig, TileReader

RIICHI = {"chun": "C", "haku": "P", "hatsu": "F", "nan": "S", "pe": "N", "sha": "W", "tou": "E"}


def overlap(read: list[str], truth: list[str]) -> int:
    a, b = Counter(read), Counter(truth)
    return sum(min(a[k], b[k]) for k in b)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--turn", type=int, default=0, choices=range(4), help="quarter turns, no EXIF tag")
    ap.add_argument("--askew", type=float, default=0.0, help="degrees turned in the photo's plane")
    ap.add_argument("--no-deglare", action="store_true", help="without the glare veil's removal (ablation)")
    ap.add_argument("--blur", type=float, default=0.0, help="sigma (px of the 12-MP photo) of a Gaussian blur")
    ap.add_argument("--no-deblur", action="store_true", help="without the sharpening of blurred photos (ablation)")
    ap.add_argument("--zoom-finder", default=None,
                    help="the zoomed pass with this copy of the finder (a file of the models folder, e.g. the 8-bit "
                         "copy of training.quantize)")
    args = ap.parse_args()
    bank = CropBank.build(load_split("valid"), seed=args.seed)
    rng, nrng = random.Random(args.seed), np.random.default_rng(args.seed)
    tmp = Path(tempfile.mkdtemp(prefix="bench_vision_"))
    photos = []
    for k in range(args.n):
        ruleset = "nanning" if k % 2 else "nanning-fan"
        hand, winner = truth_case(rng, ruleset)
        img, placed = compose(table_groups(hand, winner, rng), bank, nrng, canvas=(4032, 3024), fit=True)
        if args.askew:
            img, _ = rotate(args.askew)(img, np.float32([[0, 0, 1, 1]]), nrng)
        if args.blur:
            img = cv2.GaussianBlur(img, (0, 0), args.blur)
        p = tmp / f"photo_{k:03d}.jpg"
        cv2.imwrite(str(p), turn_image(img, args.turn), [cv2.IMWRITE_JPEG_QUALITY, 90])
        faces = [t.code for t in placed if t.code != "back" and not t.code.startswith("f")]
        photos.append((p, ruleset, faces))
    report: dict[str, object] = {"photos": args.n, "size": "4032x3024", "quarter_turns": args.turn,
                                 "askew_degrees": args.askew, "blur_sigma": args.blur,
                                 "zoomed_pass_finder": args.zoom_finder or "detector.onnx"}
    truth_total = sum(len(f) for _, _, f in photos)
    for threads in (1, 2):
        session.cache_clear()
        reader = TileReader(threads=threads, zoom_finder=args.zoom_finder, config=ReaderConfig().but(
            deglare=not args.no_deglare, deblur=not args.no_deblur))
        read_photo(photos[0][0], reader)  # warm-up
        times, right, stages = [], 0, []
        for p, rs, faces in photos:
            t = time.perf_counter()
            r = read_photo(p, reader, rs, winning=True)
            times.append(1000 * (time.perf_counter() - t))
            stages.append(r.timing_ms)
            right += overlap([c for c in r.codes if c != "back" and not c.startswith("f")], faces)
        report[f"ours_{threads}_threads"] = {
            "median_ms": round(float(np.median(times)), 1), "p90_ms": round(float(np.percentile(times, 90)), 1),
            "tiles_right": round(right / truth_total, 4),
            "stage_median_ms": {k: round(float(np.median([s[k] for s in stages])), 1) for k in stages[0]
                                if k != "total_ms"}}
    try:
        from mahjong_detector import detect_tiles
    except ImportError:
        detect_tiles = None
    if detect_tiles is not None:
        detect_tiles(str(photos[0][0]))
        times, right = [], 0
        for p, _, faces in photos:
            t = time.perf_counter()
            codes = [RIICHI.get(c, c) for c in detect_tiles(str(p))]
            times.append(1000 * (time.perf_counter() - t))
            right += overlap(codes, faces)
        md = {"median_ms": round(float(np.median(times)), 1), "p90_ms": round(float(np.percentile(times, 90)), 1),
              "tiles_right": round(right / truth_total, 4)}
        report["mahjong_detector"] = md
        ours = report["ours_2_threads"]
        assert isinstance(ours, dict)
        report["speed_ratio_mahjong_detector_over_ours"] = round(md["median_ms"] / ours["median_ms"], 2)
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
