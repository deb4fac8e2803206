"""Load on the HTTP API, loopback only and bounded: /v1/read with 12-MP photos and /v1/score with generated cases,
at 1, 4 and 16 concurrent clients, on 1 and 2 API worker processes.

    python benchmarks/bench_api.py [--reads 24] [--scores 400]

Needs the `[api]` extra. Photos are composed winning hands from the shared `valid` crops (4032x3024 JPEG),
or, without ../shared, a 12-MP JPEG of a plain table (decode and finder cost the same). Each configuration
sends a fixed number of requests and prints throughput (requests/s) and p50 / p95 latency (ms).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scoring import RULESETS  # noqa: E402
from scoring.generate import random_cases  # noqa: E402
from tests.api_server import start, stop  # noqa: E402


def photos(n: int) -> list[bytes]:
    import cv2

    try:
        from evaluation.hands import table_groups, truth_case
        from training.data import load_split
        from training.synth import CropBank, compose

        bank = CropBank.build(load_split("valid")[:150], seed=7)
        rng, nrng = random.Random(7), np.random.default_rng(7)
        out = []
        for _ in range(n):
            hand, winner = truth_case(rng, "nanning")
            img, _ = compose(table_groups(hand, winner, rng), bank, nrng, canvas=(4032, 3024), fit=True)
            out.append(cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 90])[1].tobytes())
        return out
    except (FileNotFoundError, OSError):
        img = np.full((3024, 4032, 3), (40, 120, 40), np.uint8)
        return [cv2.imencode(".jpg", img)[1].tobytes()] * n


def load(url: str, clients: int, jobs: list, kind: str) -> dict[str, float]:
    """Send every job once, from ``clients`` threads; throughput and latency percentiles."""
    import httpx

    lat: list[float] = []
    lock = threading.Lock()
    queue = list(enumerate(jobs))

    def worker() -> None:
        with httpx.Client(timeout=120) as c:
            while True:
                with lock:
                    if not queue:
                        return
                    _, job = queue.pop()
                t = time.perf_counter()
                if kind == "read":
                    r = c.post(url + "/v1/read", files={"photo": ("hand.jpg", job, "image/jpeg")})
                else:
                    r = c.post(url + "/v1/score", json=job)
                dt = time.perf_counter() - t
                assert r.status_code in (200, 422), r.text[:200]
                with lock:
                    lat.append(dt)

    t0 = time.perf_counter()
    threads = [threading.Thread(target=worker) for _ in range(clients)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    wall = time.perf_counter() - t0
    lat.sort()
    return {"requests": len(lat), "per_s": round(len(lat) / wall, 1), "p50_ms": round(1000 * lat[len(lat) // 2], 1),
            "p95_ms": round(1000 * lat[int(len(lat) * 0.95)], 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reads", type=int, default=24)
    ap.add_argument("--scores", type=int, default=400)
    args = ap.parse_args()
    pics = photos(min(args.reads, 6))
    reads = [pics[i % len(pics)] for i in range(args.reads)]
    plain = [rs for rs in RULESETS if "ghost" not in RULESETS[rs].options]  # ghost-free rulesets: cheap cases
    cases = [c for rs in plain for c in random_cases(args.scores // len(plain), rs, 1)]
    report: dict = {}
    for workers in (1, 2):
        proc, url = start(str(Path(tempfile.mkdtemp()) / "ledger.sqlite3"), workers=workers)
        try:
            load(url, 2, reads[:4], "read")  # load the model in every worker before timing
            for clients in (1, 4, 16):
                report[f"{workers}_worker(s)/read/{clients}_clients"] = load(url, clients, reads, "read")
                report[f"{workers}_worker(s)/score/{clients}_clients"] = load(url, clients, cases, "score")
        finally:
            stop(proc)
    for kind in ("read", "score"):
        one = report[f"1_worker(s)/{kind}/16_clients"]["per_s"]
        two = report[f"2_worker(s)/{kind}/16_clients"]["per_s"]
        report[f"{kind}_scaling_1_to_2_workers"] = round(two / one, 2)
    print(json.dumps(report, indent=1))
    print("\n| workers | clients | /v1/read req/s (p50 / p95 ms) | /v1/score req/s (p50 / p95 ms) |\n|---|---|---|---|")
    for workers in (1, 2):
        for clients in (1, 4, 16):
            r, s = (report[f"{workers}_worker(s)/{k}/{clients}_clients"] for k in ("read", "score"))
            print(f"| {workers} | {clients} | {r['per_s']} ({r['p50_ms']} / {r['p95_ms']}) | "
                  f"{s['per_s']} ({s['p50_ms']} / {s['p95_ms']}) |")


if __name__ == "__main__":
    main()
