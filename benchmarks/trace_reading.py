"""The photo's trip through the reader's files: which `vision/` modules one read calls into, in order.

    python benchmarks/trace_reading.py [PHOTO]   (default: a composed hand of the shared `valid` crops)

A *stop* is a call from one module of `vision/` into another. The modules import each other without a circle
(tests/test_structure.py), so each call goes down the import order: from a stage to the stages and helpers it
composes. A *return to a file already left* is a call back up that order: into a module that imports (directly
or not) the one calling it, which only a callback handed down can make. ``trip`` lists the stage modules in the
order the read first enters them.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from types import FrameType
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.pipeline import Photo, read  # noqa: E402
from vision.reader import TileReader  # noqa: E402

SHARED_VOCABULARY = {"detections", "geometry", "said", "classes"}


def photo() -> Photo:
    from evaluation.hands import table_groups, truth_case
    from training.data import load_split
    from training.synth import CropBank, compose

    bank = CropBank.build(load_split("valid")[:120], seed=3)
    rng = random.Random(5)
    hand, winner = truth_case(rng, "nanning")
    img, _ = compose(table_groups(hand, winner, rng), bank, np.random.default_rng(5), canvas=(2016, 1512))
    return Photo(img, name="composed")


def upstream(g: dict[str, set[str]]) -> dict[str, set[str]]:
    """For each module, every module that imports it, directly or through others."""
    above: dict[str, set[str]] = {m: set() for m in g}
    for m in g:
        todo, seen = [m], set()
        while todo:
            for dep in g.get(todo.pop(), ()):
                if dep not in seen:
                    seen.add(dep)
                    todo.append(dep)
        for dep in seen:
            above.setdefault(dep, set()).add(m)
    return above


def trace(source: Any, reader: TileReader) -> dict[str, Any]:
    from tests.test_structure import graph

    above = upstream({k.split(".", 1)[1]: {d.split(".", 1)[1] for d in v if d.startswith("vision.")}
                      for k, v in graph().items() if k.startswith("vision.")})
    calls: list[tuple[str, str]] = []

    def module_of(frame: FrameType | None) -> str | None:
        name = frame.f_globals.get("__name__", "") if frame is not None else ""
        return name.split(".", 1)[1] if name.startswith("vision.") else None

    def profile(frame: FrameType, event: str, arg: object) -> None:
        if event == "call":
            callee, caller = module_of(frame), module_of(frame.f_back)
            if callee and caller and callee != caller:
                calls.append((caller, callee))

    sys.setprofile(profile)
    try:
        read(source, reader, "nanning")
    finally:
        sys.setprofile(None)
    back = [(a, b) for a, b in calls if b in above.get(a, set())]  # b imports a: a call back up
    trip: list[str] = []
    for a, b in calls:
        for m in (a, b):
            if m not in SHARED_VOCABULARY and m not in trip:
                trip.append(m)
    return {"stops": len(calls), "returns_to_a_file_left": len(back), "calls_back_up": sorted(set(back)),
            "trip": trip}


def main() -> None:
    reader = TileReader()
    source = Path(sys.argv[1]) if len(sys.argv) > 1 else photo()
    print(json.dumps(trace(source, reader), indent=1))


if __name__ == "__main__":
    main()
