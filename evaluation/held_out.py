"""Winning hands in a tile design and on tables the models never saw, under issue 39's conditions (evaluation).

    python -m vision.evaluate_hands --condition NAME[,NAME...]|all [--n 80] [--seed 0]
    (the same as ``python -m evaluation.held_out``)

Why: ``evaluation.hands`` composes its photos with the training synthesis (``training.synth.compose``) from crops
of the designs the models were trained on, so it measures the synthesis. Here everything a photo is made of is
held out of training and drawn by this file alone:

* **the design**: FluffyStuff's public-domain tile art (``webapp/tiles/``, CC0; see its SOURCE.md), which neither
  model was trained on (training uses the shared photo crops, the kmahjongg/gnome-mahjongg sets and fonts), given
  a body here: the face's rounded ivory top, the near side seen as an ivory layer over the back's colour, a soft
  shadow; face-down tiles in the same body;
* **the tables**: felt cloth and wood grain drawn here, not cut from any photo;
* **the layout**: a player's hand as it lies (concealed row, the winning tile apart, melds with their sideways
  tile, concealed kongs with two backs, in three photos of ten the melds in a second row), light from one side,
  camera blur, sensor noise and JPEG.

The conditions, with issue 39's parameters: ``upright`` (re-encoded as JPEG 85); ``neighbours`` and ``discards``
(``evaluation.scenes``, in this design); ``pitch45``, ``pitch30`` (a pinhole camera, 69 degrees across the width,
pitched about the hand's centre toward the near side, scaled so the hand keeps its width); ``handheld`` (tilt
20-35 degrees by the same camera, in-plane turn of +-8 degrees, motion blur 5-8 % of a tile width, dim light or
tungsten, JPEG 70); ``motion15`` (motion blur 15 % of a tile width, random direction); ``glare`` (an additive spot,
peak +230, sigma 0.9 tile widths, on one tile); ``rot90``, ``rot270`` (no EXIF), ``blur2`` (sigma 2), ``dim``,
``rot10``. Flowers are not drawn (the design has none), so no hand holds any.
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from evaluation.conditions import (
    blur,
    dim,
    encoded,
    glare_spot,
    handheld,
    motion_of,
    pitch,
    quarter,
    rotate,
)
from evaluation.hands import evaluate, table_groups, truth_case
from evaluation.photos import settings
from evaluation.scenes import SCENES
from scoring import RULESETS
from scoring.tiles import CODES
from vision.models import MODELS_DIR
from vision.reader import ReaderConfig, TileReader

DESIGN = Path(__file__).resolve().parents[1] / "webapp" / "tiles"
FACE_CODES = [f"{r}{s}" for s in "mps" for r in range(1, 10)] + list("ESWNCFP")
# the backs' plastic (BGR): green, blue, orange, dark red, teal
BACKS = ((60, 140, 40), (170, 110, 30), (40, 130, 230), (50, 40, 150), (130, 130, 30))
ASPECT = 4 / 3  # a face's height over its width
Boxes = np.ndarray


@dataclass
class Placed:
    """One tile of the composed hand: its code ("back" face down), its box in the photo, and its group."""

    code: str
    box: tuple[float, float, float, float]
    sideways: bool
    group: int


def rounded_mask(w: int, h: int, radius: float) -> np.ndarray:
    """A w x h mask (0..1, float) of a rectangle with rounded corners, anti-aliased."""
    big = np.zeros((h * 4, w * 4), np.uint8)
    r = max(1, int(radius * 4))
    cv2.rectangle(big, (r, 0), (w * 4 - 1 - r, h * 4 - 1), 255, -1)
    cv2.rectangle(big, (0, r), (w * 4 - 1, h * 4 - 1 - r), 255, -1)
    for cx, cy in ((r, r), (w * 4 - 1 - r, r), (r, h * 4 - 1 - r), (w * 4 - 1 - r, h * 4 - 1 - r)):
        cv2.circle(big, (cx, cy), r, 255, -1)
    return cv2.resize(big, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0


class TileSet:
    """The held-out design's tiles for one photo: one back colour, one side depth, faces drawn at any size."""

    def __init__(self, faces: dict[str, np.ndarray], rng: np.random.Generator) -> None:
        self.faces = faces
        self.colour = np.array(BACKS[int(rng.integers(len(BACKS)))], np.float32) * rng.uniform(0.8, 1.1)
        self.side = float(rng.uniform(0.10, 0.18))  # the near side's height, a share of the face's height
        self.ivory = np.array((205, 228, 238), np.float32) * rng.uniform(0.9, 1.05)
        self.crops = {c: [self.tile(c, 96, 148, rng)] for c in faces}  # what evaluation.scenes pastes

    def _body(self, w: int, face_h: int, top: np.ndarray) -> np.ndarray:
        """A tile picture: ``top`` (w x face_h, the face or the back seen from above) over its near side."""
        band = max(2, int(round(self.side * face_h)))
        out = np.zeros((face_h + band, w, 3), np.float32)
        out[:face_h + band // 2] = self.ivory * 0.78  # the body's edge around the rounded top
        out[face_h + band // 2:] = self.colour * 0.85  # the back's plastic
        out[face_h:face_h + band // 2] = self.ivory * 0.9  # the ivory layer
        mask = rounded_mask(w, face_h, 0.1 * w)[..., None]
        out[:face_h] = mask * top + (1 - mask) * out[:face_h]
        return out

    def tile(self, code: str, w: int, h: int, rng: np.random.Generator | None = None) -> np.ndarray:
        """``code`` (or "back") as a w x h tile picture, face up, the near side at the bottom."""
        face_h = max(4, int(round(h / (1 + self.side))))
        if code == "back":
            top = np.ones((face_h, w, 3), np.float32) * self.colour
            top *= np.linspace(1.08, 0.92, face_h, dtype=np.float32)[:, None, None]
        else:
            top = cv2.resize(self.faces[code], (w, face_h), interpolation=cv2.INTER_AREA).astype(np.float32)
        pic = self._body(w, face_h, top)
        return np.clip(cv2.resize(pic, (w, h), interpolation=cv2.INTER_AREA), 0, 255).astype(np.uint8)

    def back(self, w: int, h: int, rng: np.random.Generator) -> np.ndarray:
        """A face-down tile of this set (``evaluation.scenes`` asks the bank for its backs)."""
        return self.tile("back", w, h)

    def sideways(self, code: str, face_w: int, face_h: int) -> np.ndarray:
        """``code`` lying sideways (a meld's claimed tile): the face turned a quarter, the long side nearest."""
        top = cv2.resize(self.faces[code], (face_w, face_h), interpolation=cv2.INTER_AREA)
        top = np.ascontiguousarray(np.rot90(top, 1)).astype(np.float32)
        return np.clip(self._body(face_h, face_w, top), 0, 255).astype(np.uint8)


def load_design(folder: Path = DESIGN) -> dict[str, np.ndarray]:
    """The design's faces by code (BGR)."""
    faces = {}
    for code in FACE_CODES:
        img = cv2.imread(str(folder / f"{code}.png"), cv2.IMREAD_COLOR)
        if img is None:
            raise SystemExit(f"held-out design: {folder / (code + '.png')} is missing")
        faces[code] = img
    return faces


def table(w: int, h: int, rng: np.random.Generator) -> np.ndarray:
    """A table drawn here: felt cloth (a colour with fibre noise and slow shading) or wood grain."""
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    if rng.random() < 0.6:
        base = np.array([(70, 120, 40), (110, 70, 30), (40, 40, 110), (90, 90, 90), (60, 90, 120)][
            int(rng.integers(5))], np.float32) * rng.uniform(0.7, 1.2)
        noise = cv2.GaussianBlur(rng.normal(0, 1, (h // 4 + 1, w // 4 + 1)).astype(np.float32), (0, 0), 2)
        noise = cv2.resize(noise, (w, h))[..., None] * 10 + rng.normal(0, 4, (h, w, 1)).astype(np.float32)
        img = base + noise
    else:
        base = np.array((60, 100, 150), np.float32) * rng.uniform(0.6, 1.2)
        angle = rng.uniform(-0.3, 0.3)
        along = yy * np.cos(angle) + xx * np.sin(angle)
        warp = cv2.resize(rng.normal(0, 1, (8, 8)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
        grain = np.sin(along / rng.uniform(6, 14) + 3 * warp) * 0.5 + 0.5
        img = base[None, None] * (0.8 + 0.3 * grain[..., None]) + rng.normal(0, 3, (h, w, 1))
    shade = 0.85 + 0.3 * (xx / w * rng.uniform(-1, 1) + yy / h * rng.uniform(-1, 1) + 1) / 2
    return np.clip(img * shade[..., None], 0, 255).astype(np.float32)


def lay_out(groups: list[list[tuple[str, bool]]], tiles: TileSet, rng: np.random.Generator,
            canvas: tuple[int, int]) -> tuple[np.ndarray, list[Placed]]:
    """The hand laid out as a player lays it, on a drawn table: every group's tiles touching, gaps between
    groups, the winning tile apart, the melds in a second row in three photos of ten."""
    w, h = canvas
    rows = [groups] if rng.random() >= 0.3 or len(groups) <= 2 else [groups[:2], groups[2:]]
    units = [sum(ASPECT + 0.02 if side else 1.02 for g in row for _, side in g) + 1.0 * len(row) for row in rows]
    tw = int(rng.uniform(0.55, 0.85) * w / max(units))
    fh = int(tw * ASPECT)
    th = fh + max(2, int(round(tiles.side * fh)))
    img = table(w, h, rng)
    placed: list[Placed] = []
    total_h = len(rows) * th + (len(rows) - 1) * 0.5 * th
    y0 = rng.uniform(0.3, 0.7) * (h - total_h)
    gi = 0
    for r, row in enumerate(rows):
        base = y0 + r * 1.5 * th + th  # the row's base line: the tiles' bottoms
        x = rng.uniform(0.3, 0.7) * (w - units[rows.index(row)] * tw)
        for k, g in enumerate(row):
            for code, side in g:
                pic = tiles.sideways(code, tw, fh) if side else tiles.tile(code, tw, th)
                y = base - pic.shape[0]
                paste(img, pic, x, y, rng)
                placed.append(Placed(code, (x, y, x + pic.shape[1], y + pic.shape[0]), side, gi))
                x += pic.shape[1] + rng.uniform(0, 0.02) * tw
            x += rng.uniform(0.5, 1.0) * tw if k == 0 else rng.uniform(0.3, 0.7) * tw
            gi += 1
    return lit(img, placed, rng), placed


def paste(img: np.ndarray, pic: np.ndarray, x: float, y: float, rng: np.random.Generator) -> None:
    """A tile picture pasted at (x, y) with a soft shadow cast toward the far side."""
    h, w = pic.shape[:2]
    xi, yi = int(round(x)), int(round(y))
    if xi < 0 or yi < 0 or xi + w > img.shape[1] or yi + h > img.shape[0]:
        raise ValueError("a tile would lie off the photo")
    pad = max(2, w // 6)
    y1, y2 = max(0, yi - pad), min(img.shape[0], yi + h + pad)
    x1, x2 = max(0, xi - pad), min(img.shape[1], xi + w + pad)
    shadow = np.zeros((y2 - y1, x2 - x1), np.float32)
    cv2.rectangle(shadow, (xi - x1 + pad // 3, yi - y1 - pad // 3), (xi - x1 + w + pad // 3, yi - y1 + h - pad // 3),
                  1.0, -1)
    shadow = cv2.GaussianBlur(shadow, (0, 0), max(1.0, pad / 2))
    img[y1:y2, x1:x2] *= (1 - 0.45 * shadow)[..., None]
    img[yi:yi + h, xi:xi + w] = pic


def lit(img: np.ndarray, placed: list[Placed], rng: np.random.Generator) -> np.ndarray:
    """Light from one side, a phone camera's softness and noise, as 8-bit."""
    h, w = img.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    cx, cy = rng.uniform(-0.5, 1.5) * w, rng.uniform(-0.5, 1.5) * h
    light = 1.1 - 0.25 * np.sqrt(((xx - cx) / w) ** 2 + ((yy - cy) / h) ** 2)
    out = img * light[..., None] * rng.uniform(0.9, 1.05, 3).astype(np.float32)
    out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.5, 1.0))
    out += rng.normal(0, rng.uniform(1.5, 3.5), out.shape).astype(np.float32)
    return np.clip(out, 0, 255).astype(np.uint8)


CONDITIONS: dict[str, Callable[[np.ndarray, Boxes, np.random.Generator], tuple[np.ndarray, Boxes]]] = {
    "upright": lambda img, boxes, rng: (encoded(img, 85), boxes),
    "pitch30": pitch(30), "pitch45": pitch(45), "handheld": handheld,
    "motion15": motion_of((0.15, 0.15)), "glare": glare_spot,
    "rot90": quarter(1), "rot270": quarter(3), "blur2": blur, "dim": dim, "rot10": rotate(10),
}
NAMES = ["upright", "neighbours", "discards", *[c for c in CONDITIONS if c != "upright"]]


def held_out_cases(n: int, seed: int, condition: str = "upright", size: tuple[int, int] = (2016, 1512)
                   ) -> Iterator[tuple[int, str, dict[str, Any], int, np.ndarray, list[Placed]]]:
    """The held-out sequence of hands for one seed (the same hands and tables for every condition), with the
    condition applied: the hand's number, ruleset, true hand and winner, the photo and its tiles."""
    faces = load_design()
    rng, nrng = random.Random(seed), np.random.default_rng(seed)
    crng = np.random.default_rng(seed + 1)
    for k in range(n):
        ruleset = tuple(RULESETS)[k % 3]
        hand, winner = truth_case(rng, ruleset)
        hand["flowers"] = []  # the design has no flower tiles
        tiles = TileSet(faces, nrng)
        img, placed = lay_out(table_groups(hand, winner, rng), tiles, nrng, size)
        boxes = np.array([p.box for p in placed], np.float32)
        if condition in SCENES:  # other players' tiles around the hand, in the same set
            playing = frozenset(CODES[i] for i in RULESETS[ruleset].playing_kinds)
            img, boxes = SCENES[condition](img, boxes, [p.code for p in placed], tiles, crng, playing)
            img = encoded(img, 85)
        else:
            img, boxes = CONDITIONS[condition](img, boxes, crng)
        for p, b in zip(placed, boxes):
            p.box = (float(b[0]), float(b[1]), float(b[2]), float(b[3]))
        yield k, ruleset, hand, winner, img, placed


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m vision.evaluate_hands", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=80)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--size", default="2016x1512", help="photo size WxH")
    ap.add_argument("--models", default=str(MODELS_DIR))
    ap.add_argument("--save", default=None, help="folder to write the composed photos and truths to")
    ap.add_argument("--condition", default="upright", help=f"{', '.join(NAMES)}; all, or several with commas")
    ap.add_argument("--but", action="append", default=[], metavar="NAME=VALUE",
                    help="change one reader setting (vision.reader.ReaderConfig.but); repeatable")
    args = ap.parse_args()
    names = NAMES if args.condition == "all" else args.condition.split(",")
    unknown = [c for c in names if c not in NAMES]
    if unknown:
        ap.error(f"unknown condition {', '.join(unknown)}; known: {', '.join(NAMES)}, all")
    try:
        config = ReaderConfig().but(**dict(settings(args.but)))
    except (TypeError, ValueError, SyntaxError) as e:
        ap.error(f"--but: {e}")
    if args.save:
        Path(args.save).mkdir(parents=True, exist_ok=True)
    reader = TileReader(args.models, threads=2, config=config)
    w, h = (int(v) for v in args.size.split("x"))
    rows = {}
    for name in names:
        r = evaluate(args, reader, None, name, held_out_cases(args.n, args.seed, name, (w, h)))
        rows[name] = r
        if len(names) == 1:
            print(json.dumps(r, indent=1, ensure_ascii=False))
    if len(names) > 1:
        print("| condition | hands exact | groups right | tiles right | ms per photo | other tiles in / hand tiles "
              "out |\n|---|---|---|---|---|---|")
        for name, r in rows.items():
            hc = r["hand_chooser"]
            print(f"| {name} | {100 * r['hands_right_after_correction']:.1f} % | {100 * r['groups_right']:.1f} % | "
                  f"{100 * r['tiles_right_after_correction']:.1f} % | {r['median_read_ms']} | "
                  f"{100 * hc['photos_with_other_tiles_in_hand']:.1f} / "
                  f"{100 * hc['photos_with_hand_tiles_left_out']:.1f} % |")


if __name__ == "__main__":
    main()
