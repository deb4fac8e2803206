"""Page latency through streamlit.testing: photo upload -> score on the page, and one correction click -> new score.

    python benchmarks/bench_app.py [--n 5]

Uses composed winning-hand photos (1600x1200 and 4032x3024) from `valid`-split crops; the AppTest run time
includes the whole script (reading, scoring, ledger, rendering to protobuf), not the browser's drawing. The first
photo after start is timed apart: the page's first view loads the model, so that photo should cost no more
than the later ones (the first view's time is printed too).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evaluation.hands import table_groups, truth_case  # noqa: E402
from training.data import load_split  # noqa: E402
from training.synth import CropBank, compose  # noqa: E402

APP = str(Path(__file__).resolve().parents[1] / "app.py")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=5)
    args = ap.parse_args()
    os.environ["MAHJONG_LEDGER"] = str(Path(tempfile.mkdtemp()) / "ledger.sqlite3")
    from streamlit.testing.v1 import AppTest

    bank = CropBank.build(load_split("valid"), seed=5)
    rng, nrng = random.Random(5), np.random.default_rng(5)
    report: dict = {}
    # the first photo after the server starts: the page's first view loads and warms the model, before any photo
    hand, winner = truth_case(rng, "nanning")
    img, _ = compose(table_groups(hand, winner, rng), bank, nrng, canvas=(1600, 1200), fit=True)
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 90])
    at = AppTest.from_file(APP, default_timeout=120)
    t = time.perf_counter()
    at.run()
    first_view = 1000 * (time.perf_counter() - t)
    at.file_uploader(key="upload").set_value(("hand.jpg", buf.tobytes(), "image/jpeg"))
    t = time.perf_counter()
    at.run()
    report["first_view_ms"] = round(first_view, 1)
    report["first_photo_after_start_ms"] = round(1000 * (time.perf_counter() - t), 1)
    for size in ((1600, 1200), (4032, 3024)):
        upload, click = [], []
        for _ in range(args.n):
            hand, winner = truth_case(rng, "nanning")
            img, _ = compose(table_groups(hand, winner, rng), bank, nrng, canvas=size, fit=True)
            ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 90])
            at = AppTest.from_file(APP, default_timeout=120)
            at.run()
            at.file_uploader(key="upload").set_value(("hand.jpg", buf.tobytes(), "image/jpeg"))
            t = time.perf_counter()
            at.run()
            upload.append(1000 * (time.perf_counter() - t))
            tab = at.session_state["tab"]
            codes = tab.reading.codes if tab.reading else []
            if codes:
                at.selectbox(key="pick_tile").set_value(0)
                at.selectbox(key="pick_code").set_value(codes[0] if codes[0] != "remove" else "1m")
                at.run()
                t = time.perf_counter()
                at.button(key="pick_ok").click().run()
                click.append(1000 * (time.perf_counter() - t))
        report[f"{size[0]}x{size[1]}"] = {
            "photo_to_score_ms": {"median": round(float(np.median(upload)), 1), "max": round(max(upload), 1)},
            "correction_click_ms": {"median": round(float(np.median(click)), 1), "max": round(max(click), 1)}
            if click else None}
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
