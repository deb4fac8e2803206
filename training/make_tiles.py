"""Build the page's tile pictures (``webapp/tiles/*.png``, 96x128) from FluffyStuff's riichi-mahjong-tiles
(public domain, CC0; https://github.com/FluffyStuff/riichi-mahjong-tiles, commit 26e127b): each face's PNG export
laid on the set's tile front, and its back. The set has no flowers or seasons: those are drawn on the same
front by ``webapp.tile_art``. A dev-time step: the page only reads the committed PNGs.

    python -m training.make_tiles PATH/TO/riichi-mahjong-tiles
"""

from __future__ import annotations

import argparse
from pathlib import Path

import cv2
import numpy as np

OUT = Path(__file__).resolve().parents[1] / "webapp" / "tiles"
SIZE = (96, 128)
NAMES = {**{f"{n}m": f"Man{n}" for n in range(1, 10)}, **{f"{n}p": f"Pin{n}" for n in range(1, 10)},
         **{f"{n}s": f"Sou{n}" for n in range(1, 10)}, "E": "Ton", "S": "Nan", "W": "Shaa", "N": "Pei",
         "C": "Chun", "F": "Hatsu", "P": "Haku"}


def over(base: np.ndarray, top: np.ndarray) -> np.ndarray:
    """``top`` (BGRA) laid over ``base`` (BGRA) by its alpha."""
    a = top[..., 3:4].astype(np.float32) / 255
    out = base.astype(np.float32)
    out[..., :3] = top[..., :3] * a + out[..., :3] * (1 - a)
    out[..., 3:4] = np.maximum(out[..., 3:4], top[..., 3:4])
    return out.astype(np.uint8)


def flat(img: np.ndarray) -> np.ndarray:
    """BGRA on white, as BGR at the page's size."""
    a = img[..., 3:4].astype(np.float32) / 255
    bgr = (img[..., :3] * a + 255 * (1 - a)).astype(np.uint8)
    return cv2.resize(bgr, SIZE, interpolation=cv2.INTER_AREA)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("source", type=Path, help="a checkout of FluffyStuff/riichi-mahjong-tiles")
    src = ap.parse_args().source / "Export" / "Regular"
    front = cv2.imread(str(src / "Front.png"), cv2.IMREAD_UNCHANGED)
    OUT.mkdir(parents=True, exist_ok=True)
    for code, name in NAMES.items():
        face = cv2.imread(str(src / f"{name}.png"), cv2.IMREAD_UNCHANGED)
        cv2.imwrite(str(OUT / f"{code}.png"), flat(over(front, face)), [cv2.IMWRITE_PNG_COMPRESSION, 9])
    cv2.imwrite(str(OUT / "front.png"), flat(front), [cv2.IMWRITE_PNG_COMPRESSION, 9])
    cv2.imwrite(str(OUT / "back.png"), flat(cv2.imread(str(src / "Back.png"), cv2.IMREAD_UNCHANGED)),
                [cv2.IMWRITE_PNG_COMPRESSION, 9])
    print(f"{len(NAMES) + 2} pictures in {OUT}")


if __name__ == "__main__":
    main()
