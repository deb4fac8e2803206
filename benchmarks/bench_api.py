"""Load on the HTTP API, loopback only and bounded.

    python benchmarks/bench_api.py [--reads 24] [--scores 400]
        /v1/read with 12-MP photos and /v1/score with generated cases, at 1, 4 and 16 concurrent clients, on 1
        and 2 API worker processes: throughput and p50 / p95.
    python benchmarks/bench_api.py --mixed [--clients 64] [--seconds 30] [--store sqlite|postgres|both]
        64 clients for 30 s on 2 workers, each looping over a random mix of score (50 %), record on one shared
        table (35 %, every record with its own retry key, retried on a dropped connection or a 5xx) and read
        (15 %). Then the table is checked against what the clients were told: hands lost (acknowledged but not
        in the ledger), duplicated (in the ledger twice, or not acknowledged), totals; and the count of 5xx,
        429 and 503 answers, p50 / p99 per kind. The rate limits are raised for the run (all clients share one
        loopback address) and the read queue is 64 per worker, so every answer is a real one.

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


MIX = (("score", 0.50), ("record", 0.35), ("read", 0.15))
MIXED_ENV = {"MAHJONG_READ_LIMIT": "1000000/60", "MAHJONG_CREATE_LIMIT": "1000/60", "MAHJONG_READ_QUEUE": "64"}


def pct(values: list[float], q: float) -> float:
    """The ``q`` quantile of ``values`` in ms (nearest rank)."""
    v = sorted(values)
    return round(1000 * v[min(len(v) - 1, int(q * len(v)))], 1) if v else float("nan")


def mixed(where: str, clients: int, seconds: float, pics: list[bytes], cases: list[dict]) -> dict:
    """``clients`` threads for ``seconds`` over the mix on one table; the ledger checked against the answers."""
    import httpx

    proc, url = start(where, workers=2, env=MIXED_ENV)
    lat: dict[str, list[float]] = {k: [] for k, _ in MIX}
    status: dict[str, dict[int, int]] = {k: {} for k, _ in MIX}
    acked: dict[str, int] = {}  # retry key -> hand id the API answered with
    errors: list[str] = []
    lock = threading.Lock()
    try:
        owner = httpx.post(url + "/v1/tables", json={"table": "bench"}).json()["owner_token"]
        auth = {"Authorization": f"Bearer {owner}"}
        for p in pics[:2]:  # load the model in both workers before timing
            httpx.post(url + "/v1/read", files={"photo": ("hand.jpg", p, "image/jpeg")}, timeout=120)
        end = time.perf_counter() + seconds

        def client(n: int) -> None:
            rng = random.Random(n)
            with httpx.Client(timeout=120) as c:
                i = 0
                while time.perf_counter() < end:
                    i += 1
                    kind = rng.choices([k for k, _ in MIX], [w for _, w in MIX])[0]
                    key = f"c{n}-{i}"
                    for _attempt in range(5):  # a record is retried with its key until it is answered
                        t = time.perf_counter()
                        try:
                            if kind == "read":
                                r = c.post(url + "/v1/read", files={"photo": ("h.jpg", rng.choice(pics), "image/jpeg")})
                            elif kind == "score":
                                r = c.post(url + "/v1/score", json=rng.choice(cases))
                            else:
                                r = c.post(url + "/v1/tables/bench/hands", headers=auth,
                                           json={"case": rng.choice(cases), "key": key})
                        except httpx.HTTPError as e:
                            with lock:
                                errors.append(f"{kind}: {type(e).__name__}")
                            continue
                        dt = time.perf_counter() - t
                        with lock:
                            lat[kind].append(dt)
                            status[kind][r.status_code] = status[kind].get(r.status_code, 0) + 1
                            if kind == "record" and r.status_code == 201:
                                if acked.setdefault(key, r.json()["id"]) != r.json()["id"]:
                                    errors.append(f"key {key} answered with two hand ids")
                        if kind != "record" or r.status_code < 500:
                            break

        threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
        t0 = time.perf_counter()
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        wall = time.perf_counter() - t0
        hands = httpx.get(url + "/v1/tables/bench/hands", headers=auth, timeout=60).json()
        state = httpx.get(url + "/v1/tables/bench", headers=auth, timeout=60).json()
    finally:
        stop(proc)
    ids = [h["id"] for h in hands]
    told = set(acked.values())
    summed = [sum(h["net"][i] for h in hands) for i in range(4)]
    answers = {k: sum(v.values()) for k, v in status.items()}
    return {"store": where.split(":")[0] if "://" in where else "sqlite", "clients": clients,
            "seconds": round(wall, 1), "answers": answers,
            "records_acknowledged": len(acked), "hands_in_ledger": len(ids),
            "lost": len(told - set(ids)), "duplicated": len(ids) - len(set(ids)) + len(set(ids) - told),
            "totals_match_hands": state["totals"] == summed,
            "5xx": sum(n for v in status.values() for code, n in v.items() if code >= 500),
            "429": sum(v.get(429, 0) for v in status.values()), "503": sum(v.get(503, 0) for v in status.values()),
            "other_non_2xx": {k: {c: n for c, n in v.items() if c >= 300 and c not in (429, 503) and c < 500}
                              for k, v in status.items()},
            "connection_errors": len(errors), "error_samples": errors[:5],
            "p50_ms": {k: pct(v, 0.50) for k, v in lat.items()}, "p99_ms": {k: pct(v, 0.99) for k, v in lat.items()}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reads", type=int, default=24)
    ap.add_argument("--scores", type=int, default=400)
    ap.add_argument("--mixed", action="store_true", help="the mixed load on one table (see above)")
    ap.add_argument("--clients", type=int, default=64)
    ap.add_argument("--seconds", type=float, default=30)
    ap.add_argument("--store", choices=("sqlite", "postgres", "both"), default="both")
    args = ap.parse_args()
    if args.mixed:
        run_mixed(args)
        return
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


def run_mixed(args: argparse.Namespace) -> None:
    """The mixed load on each store asked for; prints the JSON and the README's table."""
    from contextlib import ExitStack

    from scoring import score_case
    from tests.postgres_server import Unavailable, fresh_database, throwaway_postgres

    pics = photos(4)
    plain = [rs for rs in RULESETS if "ghost" not in RULESETS[rs].options]
    cases = [c for rs in plain for c in random_cases(60, rs, 3) if score_case(c).get("valid")]
    rows = []
    with ExitStack() as stack:
        for store in (("sqlite", "postgres") if args.store == "both" else (args.store,)):
            if store == "sqlite":
                where = str(Path(tempfile.mkdtemp()) / "ledger.sqlite3")
            else:
                try:
                    where = fresh_database(stack.enter_context(throwaway_postgres()))
                except Unavailable as e:
                    print(f"postgres skipped: {e}", file=sys.stderr)
                    continue
            rows.append(mixed(where, args.clients, args.seconds, pics, cases))
            print(json.dumps(rows[-1], indent=1), flush=True)
    print("\n| store | answers (score / record / read) | lost | duplicated | 5xx | 429 / 503 | "
          "p50 ms (score / record / read) | p99 ms (score / record / read) |\n|---|---|---|---|---|---|---|---|")
    for r in rows:
        a, p50, p99 = r["answers"], r["p50_ms"], r["p99_ms"]
        print(f"| {r['store']} | {a['score']} / {a['record']} / {a['read']} | {r['lost']} | {r['duplicated']} | "
              f"{r['5xx']} | {r['429']} / {r['503']} | {p50['score']} / {p50['record']} / {p50['read']} | "
              f"{p99['score']} / {p99['record']} / {p99['read']} |")


if __name__ == "__main__":
    main()
