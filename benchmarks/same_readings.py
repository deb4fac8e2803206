"""Whether two versions of the reader read the same: dump every reading of a set of photos, then compare dumps.

    python benchmarks/same_readings.py dump OUT.pkl PHOTO_OR_FOLDER...   (run in each version's checkout)
    python benchmarks/same_readings.py compare A.pkl B.pkl

A reading is kept whole: boxes, finder scores, probabilities, turns, codes, the hand, warnings, doubts. Uses only
``vision.pipeline.read_photo`` and ``vision.reader.TileReader``, which every version since the stages has.
A refactor of the reader should compare equal on every photo (arrays within 1e-4).
"""

from __future__ import annotations

import json
import pickle
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

PHOTO_SUFFIXES = {".jpg", ".jpeg", ".png"}


def photos(args: list[str]) -> list[Path]:
    out: list[Path] = []
    for a in map(Path, args):
        out += sorted(p for p in a.rglob("*") if p.suffix.lower() in PHOTO_SUFFIXES) if a.is_dir() else [a]
    return out


def dump(out: Path, sources: list[str]) -> None:
    sys.path.insert(0, str(Path.cwd()))
    from vision.pipeline import read_photo
    from vision.reader import TileReader

    reader = TileReader(threads=2)
    seen: dict[str, dict[str, Any]] = {}
    t0 = time.time()
    for p in photos(sources):
        r = read_photo(p, reader, "nanning", True, 0)
        d = r.det
        seen[str(p)] = {"xyxy": d.xyxy.copy(), "probs": d.probs.copy(), "confidence": d.confidence.copy(),
                        "turned": d.turned, "levelled": d.levelled, "sharpened": d.sharpened, "codes": list(r.codes),
                        "hand": json.dumps(r.hand, sort_keys=True), "warnings": [str(w) for w in r.warnings],
                        "width": r.width, "height": r.height, "doubts": list(r.doubts)}
    out.write_bytes(pickle.dumps(seen))
    print(f"{len(seen)} photos read in {time.time() - t0:.1f} s")


def compare(a_path: Path, b_path: Path) -> int:
    a, b = pickle.loads(a_path.read_bytes()), pickle.loads(b_path.read_bytes())
    differ = []
    for p in sorted(set(a) | set(b)):
        if p not in a or p not in b:
            differ.append((p, ["missing"]))
            continue
        keys = [k for k in a[p] if not (np.array_equal(np.shape(a[p][k]), np.shape(b[p][k]))
                                        and (np.allclose(a[p][k], b[p][k], atol=1e-4)
                                             if isinstance(a[p][k], np.ndarray) else a[p][k] == b[p][k]))]
        if keys:
            differ.append((p, keys))
    for p, keys in differ[:20]:
        print(f"{p}: {', '.join(keys)}")
    print(f"{len(a)} photos, {len(differ)} read differently")
    return 1 if differ else 0


def main() -> int:
    if len(sys.argv) >= 4 and sys.argv[1] == "dump":
        dump(Path(sys.argv[2]), sys.argv[3:])
        return 0
    if len(sys.argv) == 4 and sys.argv[1] == "compare":
        return compare(Path(sys.argv[2]), Path(sys.argv[3]))
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
