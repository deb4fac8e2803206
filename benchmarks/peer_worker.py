"""One reader's whole process over a list of photos, for `bench_vision.py --vs`: stdlib only beside the reader,
so it runs in the peer's own venv too. Prints one JSON object: per-photo wall and CPU milliseconds, and stages.

    python peer_worker.py ours|mahjong-detector LIST.json
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path


def peak_mb() -> float:
    """This process's peak resident memory (Linux: VmHWM, which starts afresh at exec, unlike the rusage of a
    forked child, which keeps the parent's peak from before the exec)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main() -> None:
    who, listing = sys.argv[1], Path(sys.argv[2])
    photos = json.loads(listing.read_text())
    t0, c0 = time.perf_counter(), time.process_time()
    if who == "ours":
        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
        from vision.pipeline import read
        from vision.reader import TileReader

        reader = TileReader(threads=2)

        def one(path: str) -> tuple[list[str], dict[str, float]]:
            r = read(path, reader, "nanning")
            return r.codes, r.timing_ms
    else:
        from mahjong_detector import detect_tiles

        def one(path: str) -> tuple[list[str], dict[str, float]]:
            return detect_tiles(path), {}
    load_ms = 1000 * (time.perf_counter() - t0)
    rows = []
    for path in photos:
        t, c = time.perf_counter(), time.process_time()
        codes, stages = one(path)
        wall, cpu = 1000 * (time.perf_counter() - t), 1000 * (time.process_time() - c)
        rows.append({"path": path, "wall_ms": wall, "cpu_ms": cpu, "codes": codes, "stages": stages})
    print(json.dumps({"who": who, "load_ms": load_ms, "photos": rows, "peak_mb": peak_mb(),
                      "process_wall_ms": 1000 * (time.perf_counter() - t0),
                      "process_cpu_ms": 1000 * (time.process_time() - c0)}))


if __name__ == "__main__":
    main()
