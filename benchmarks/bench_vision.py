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

``--vs mahjong-detector``: both readers in one run, each as a whole process (model load included) over the same
photos, 12-MP and phone-sized (1600 x 1200), in alternating order over ``--rounds`` rounds; per photo the median
and p90 wall and CPU milliseconds, our per-stage medians, each process's wall, CPU and peak memory, and the ratios.
The peer is installed by this script into its own venv (build/peer-venv, `pip install mahjong-detector==0.0.6`).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

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
    ap.add_argument("--vs", choices=["mahjong-detector"], default=None,
                    help="both readers in one run, whole processes, alternating order (see above)")
    ap.add_argument("--rounds", type=int, default=2, help="with --vs: rounds of both readers")
    args = ap.parse_args()
    if args.vs:
        head_to_head(args)
        return
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


ROOT = Path(__file__).resolve().parents[1]
PEER_VENV = ROOT / "build" / "peer-venv"
PEER = "mahjong-detector==0.0.6"
SIZES = {"12 MP": (4032, 3024), "phone-sized": (1600, 1200)}


def peer_python() -> Path:
    """The peer's venv (made and filled on first use): its own numpy, Pillow and onnxruntime, none of ours."""
    py = PEER_VENV / "bin" / "python"
    if not py.exists():
        subprocess.run([sys.executable, "-m", "venv", str(PEER_VENV)], check=True)
    if subprocess.run([str(py), "-c", "import mahjong_detector"], capture_output=True).returncode:
        subprocess.run([str(py), "-m", "pip", "install", "-q", PEER], check=True)
    return py


def composed_photos(n: int, seed: int, out: Path) -> list[tuple[str, str, list[str]]]:
    """``n`` composed winning hands at each size of ``SIZES``: (path, size name, the true faces)."""
    bank = CropBank.build(load_split("valid"), seed=seed)
    rng, nrng = random.Random(seed), np.random.default_rng(seed)
    photos = []
    for size, canvas in SIZES.items():
        for k in range(n):
            hand, winner = truth_case(rng, "nanning")
            img, placed = compose(table_groups(hand, winner, rng), bank, nrng, canvas=canvas, fit=True)
            p = out / f"{size.split()[0]}_{k:03d}.jpg"
            cv2.imwrite(str(p), img, [cv2.IMWRITE_JPEG_QUALITY, 90])
            photos.append((str(p), size, [t.code for t in placed if t.code != "back" and not t.code.startswith("f")]))
    return photos


def run_worker(python: Path, who: str, listing: Path) -> dict[str, Any]:
    """One reader's whole process: its own report, and the process's wall, CPU and peak memory from the OS."""
    env = dict(os.environ, OMP_NUM_THREADS="2")
    t = time.perf_counter()
    proc = subprocess.Popen([str(python), str(Path(__file__).with_name("peer_worker.py")), who, str(listing)],
                            stdout=subprocess.PIPE, env=env, cwd=ROOT)
    out = proc.stdout.read() if proc.stdout else b""
    _, status, usage = os.wait4(proc.pid, 0)
    if status:
        raise SystemExit(f"{who}: the worker failed (status {status})")
    report = json.loads(out)
    report["os_wall_ms"] = 1000 * (time.perf_counter() - t)
    report["os_cpu_ms"] = 1000 * (usage.ru_utime + usage.ru_stime)
    return report


def head_to_head(args: argparse.Namespace) -> None:
    """``--vs``: the table of both readers on the same photos, whole processes in alternating order."""
    tmp = Path(tempfile.mkdtemp(prefix="bench_vs_"))
    photos = composed_photos(args.n, args.seed, tmp)
    listing = tmp / "photos.json"
    listing.write_text(json.dumps([p for p, _, _ in photos]))
    runners = {"ours": Path(sys.executable), args.vs: peer_python()}
    runs: dict[str, list[dict[str, Any]]] = {who: [] for who in runners}
    for r in range(args.rounds):
        for who in (list(runners) if r % 2 == 0 else list(runners)[::-1]):
            runs[who].append(run_worker(runners[who], who, listing))
    size_of = {p: s for p, s, _ in photos}
    truth = {p: f for p, _, f in photos}
    table: dict[str, Any] = {"photos_per_size": args.n, "rounds": args.rounds, "readers": {}}
    for who, reports in runs.items():
        rows = [row for rep in reports for row in rep["photos"]]
        entry: dict[str, Any] = {
            "process_wall_s": round(float(np.median([rep["os_wall_ms"] for rep in reports])) / 1000, 2),
            "process_cpu_s": round(float(np.median([rep["os_cpu_ms"] for rep in reports])) / 1000, 2),
            "peak_mb": round(max(rep["peak_mb"] for rep in reports), 1)}
        for size in SIZES:
            mine = [row for row in rows if size_of[row["path"]] == size]
            wall, cpu = [row["wall_ms"] for row in mine], [row["cpu_ms"] for row in mine]
            codes = [[RIICHI.get(c, c) for c in row["codes"] if c != "back" and not c.startswith("f")] for row in mine]
            right = sum(overlap(c, truth[row["path"]]) for c, row in zip(codes, mine))
            entry[size] = {"median_ms": round(float(np.median(wall)), 1),
                           "p90_ms": round(float(np.percentile(wall, 90)), 1),
                           "cpu_median_ms": round(float(np.median(cpu)), 1),
                           "tiles_right": round(right / max(sum(len(truth[row["path"]]) for row in mine), 1), 4)}
            if mine and mine[0]["stages"]:
                entry[size]["stage_median_ms"] = {k: round(float(np.median([row["stages"][k] for row in mine])), 1)
                                                  for k in mine[0]["stages"]}
        table["readers"][who] = entry
    ours, peer = table["readers"]["ours"], table["readers"][args.vs]
    table["ratio_peer_over_ours"] = {
        **{f"{size} median": round(peer[size]["median_ms"] / ours[size]["median_ms"], 2) for size in SIZES},
        **{f"{size} cpu": round(peer[size]["cpu_median_ms"] / ours[size]["cpu_median_ms"], 2) for size in SIZES},
        "process wall": round(peer["process_wall_s"] / ours["process_wall_s"], 2),
        "process cpu": round(peer["process_cpu_s"] / ours["process_cpu_s"], 2),
        "peak memory": round(peer["peak_mb"] / ours["peak_mb"], 2)}
    print(json.dumps(table, indent=1))
    print("\n| reader | size | median ms | p90 ms | CPU median ms | tiles right |\n|---|---|---|---|---|---|")
    for who, entry in table["readers"].items():
        for size in SIZES:
            e = entry[size]
            print(f"| {who} | {size} | {e['median_ms']} | {e['p90_ms']} | {e['cpu_median_ms']} | "
                  f"{100 * e['tiles_right']:.1f} % |")
    print("\n| reader | process wall s | process CPU s | peak MB |\n|---|---|---|---|")
    for who, entry in table["readers"].items():
        print(f"| {who} | {entry['process_wall_s']} | {entry['process_cpu_s']} | {entry['peak_mb']} |")
    print("\nratios (peer / ours; over 1: ours faster or smaller): " + ", ".join(
        f"{k} {v}" for k, v in table["ratio_peer_over_ours"].items()))


if __name__ == "__main__":
    main()
