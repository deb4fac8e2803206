"""Decompression bombs: how fast each is refused and the process's peak memory (imports included).

    python benchmarks/bench_bombs.py [--with-opencv-alone]

Each bomb is read in a fresh process through the reader's file entry point (``vision.photo.load_for_reading``),
as `python -m vision` and the page do; the process prints the refusal time and its peak RSS (VmHWM, its own
high-water mark; ``resource.getrusage`` where /proc is absent). Bombs: a 30000x30000 TIFF (deflate strip), a
16383x16383 WebP, and PNG, GIF and BMP headers claiming 30000x30000; and a real, fully decodable 30000x30000 PNG
of 2.6 MB (made once, about 7 s, kept in build/bombs/), also given to OpenCV's decoder alone to show what the
header check prevents.
"""

from __future__ import annotations

import json
import struct
import subprocess
import sys
import tempfile
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.image_files import BOMBS  # noqa: E402

CHILD = """
import sys, time
sys.path.insert(0, {root!r})
from tests.image_files import peak_rss_mb
from vision.photo import PhotoError, load_for_reading
t = time.perf_counter()
try:
    load_for_reading({path!r})
    outcome = "decoded"
except PhotoError as e:
    outcome = str(e).split(": ", 1)[1]
print(__import__("json").dumps({{"seconds": round(time.perf_counter() - t, 4), "outcome": outcome,
      "peak_rss_mb": round(peak_rss_mb(), 1)}}))
"""


OPENCV_ALONE = """
import sys, time
sys.path.insert(0, {root!r})
import cv2, numpy as np
from tests.image_files import peak_rss_mb
data = open({path!r}, "rb").read()
t = time.perf_counter()
img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
print(__import__("json").dumps({{"seconds": round(time.perf_counter() - t, 2),
      "outcome": "decoded" if img is not None else "refused", "peak_rss_mb": round(peak_rss_mb(), 1)}}))
"""


def real_png_bomb(path: Path, side: int = 30000) -> Path:
    """A valid side x side RGB PNG of zeros (2.6 MB), streamed through zlib."""
    if path.exists():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    co = zlib.compressobj(9)
    row = b"\0" * (1 + 3 * side)
    idat = b"".join([co.compress(row) for _ in range(side)] + [co.flush()])
    ihdr = struct.pack(">IIBBBBB", side, side, 8, 2, 0, 0, 0)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) + chunk(b"IEND", b""))
    return path


def run(code: str, timeout: int = 120) -> dict:
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout)
    return json.loads(p.stdout) if p.returncode == 0 else {"error": p.stderr[-300:]}


def main() -> None:
    rows = {}
    real = real_png_bomb(ROOT / "build" / "bombs" / "real_30000x30000.png")
    rows["real_png"] = run(CHILD.format(root=str(ROOT), path=str(real)))
    rows["real_png"]["file_bytes"] = real.stat().st_size
    if "--with-opencv-alone" in sys.argv:
        rows["real_png_opencv_alone"] = run(OPENCV_ALONE.format(root=str(ROOT), path=str(real)), timeout=300)
    with tempfile.TemporaryDirectory() as tmp:
        for kind, make in sorted(BOMBS.items()):
            path = Path(tmp) / f"bomb.{kind}"
            path.write_bytes(make())
            row = run(CHILD.format(root=str(ROOT), path=str(path)))
            row["file_bytes"] = path.stat().st_size
            rows[kind] = row
    print(json.dumps(rows, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
