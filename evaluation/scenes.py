"""Other players' tiles around a composed hand, as issue 39 states the hidden conditions (evaluation only).

``neighbours``: other players' exposed melds in line with the hand's row, at its scale, 0.5-1.5 tile widths left
and/or right of it (3-4 tile pungs, chows and kongs, some with a sideways tile); in half the photos 3-8 standing
tile backs seen edge-on, 1-2.5 tile heights beyond the hand. ``discards``: 8-20 face-up tiles at any rotation,
0.75-1.0 of the hand's scale, from one tile height above the hand; in half the photos a straight wall of 8-17
backs. The faces are real crops of the evaluation's crop bank, never more copies of a face than a set holds.
This code is not the training synthesis: it places whole melds and table objects around a finished photo.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import cv2
import numpy as np

from training.synth import CropBank, render_back

Boxes = np.ndarray
FACES = [f"{r}{s}" for s in "mps" for r in range(1, 10)] + list("ESWNCFP")


def hand_row(boxes: Boxes) -> np.ndarray:
    """Indices of the hand's longest row (boxes whose vertical centres lie within half a tile of each other)."""
    cy = (boxes[:, 1] + boxes[:, 3]) / 2
    th = float(np.median(boxes[:, 3] - boxes[:, 1]))
    rows: list[list[int]] = []
    for i in np.argsort(cy):
        if rows and abs(cy[i] - np.mean(cy[rows[-1]])) < 0.5 * th:
            rows[-1].append(int(i))
        else:
            rows.append([int(i)])
    return np.array(max(rows, key=len))


class Scene:
    """Pastes tiles onto a photo where nothing else lies; remembers what it covered."""

    def __init__(self, img: np.ndarray, boxes: Boxes, bank: CropBank, codes: list[str], rng: np.random.Generator,
                 playing: frozenset[str] = frozenset(FACES)):
        self.playing = playing
        self.out = img.copy()
        self.taken = [b.astype(np.float64) for b in boxes]
        self.bank, self.rng = bank, rng
        self.held = Counter(c for c in codes if c != "back")

    def free(self, x1: float, y1: float, x2: float, y2: float) -> bool:
        h, w = self.out.shape[:2]
        return 0 <= x1 and 0 <= y1 and x2 <= w and y2 <= h and all(
            x2 <= t[0] or x1 >= t[2] or y2 <= t[1] or y1 >= t[3] for t in self.taken)

    def face(self, code: str, w: int, h: int) -> np.ndarray | None:
        """A tile of ``code`` at w x h: a crop of the bank's (a held-out design's bank draws its own backs)."""
        if code == "back":
            return getattr(self.bank, "back", render_back)(w, h, self.rng)
        pool = self.bank.crops.get(code)
        if not pool:
            return None
        return cv2.resize(pool[int(self.rng.integers(len(pool)))], (w, h), interpolation=cv2.INTER_AREA)

    def paste_all(self, pieces: list[tuple[np.ndarray, float, float]]) -> bool:
        """Paste every (picture, x, y) or none (when any would lie off the photo or over another tile)."""
        if not all(self.free(x, y, x + p.shape[1], y + p.shape[0]) for p, x, y in pieces):
            return False
        for p, x, y in pieces:
            xi, yi = int(round(x)), int(round(y))
            self.out[yi:yi + p.shape[0], xi:xi + p.shape[1]] = p
            self.taken.append(np.array([x - 1, y - 1, x + p.shape[1] + 1, y + p.shape[0] + 1]))
        return True

    def available(self, code: str, n: int) -> bool:
        return self.held[code] + n <= 4

    def take(self, codes: list[str]) -> None:
        self.held.update(c for c in codes if c != "back")


def meld_codes(scene: Scene, rng: np.random.Generator) -> list[str] | None:
    """A random exposed meld of another player (pung, chow or kong) whose faces the set still has, of tiles
    that are played in the hand's ruleset (in Nanjing the dragons are flowers, never melded)."""
    for _ in range(40):
        kind = rng.random()
        if kind < 0.3:  # chow
            s, r = "mps"[int(rng.integers(3))], int(rng.integers(1, 8))
            codes = [f"{r + k}{s}" for k in range(3)]
            if all(scene.available(c, 1) for c in codes):
                return codes
        else:
            n = 4 if kind > 0.75 else 3
            c = FACES[int(rng.integers(len(FACES)))]
            if scene.available(c, n) and c in scene.playing:
                return [c] * n
    return None


def shrunk(img: np.ndarray, boxes: Boxes, factor: float) -> tuple[np.ndarray, Boxes]:
    """The photo scaled by ``factor`` about its centre on a canvas of its own size (the border mirrored), and its
    boxes: room around a hand that filled the frame (a phone held a little farther off)."""
    h, w = img.shape[:2]
    small = cv2.resize(img, (int(w * factor), int(h * factor)), interpolation=cv2.INTER_AREA)
    top, left = (h - small.shape[0]) // 2, (w - small.shape[1]) // 2
    out = cv2.copyMakeBorder(small, top, h - small.shape[0] - top, left, w - small.shape[1] - left,
                             cv2.BORDER_REFLECT)
    return out, (boxes * factor + np.array([left, top, left, top], np.float32)).astype(np.float32)


def neighbours(img: np.ndarray, boxes: Boxes, codes: list[str], bank: CropBank, rng: np.random.Generator,
               playing: frozenset[str] = frozenset(FACES)) -> tuple[np.ndarray, Boxes]:
    """Other players' exposed melds beside the hand's row, and in half the photos standing backs beyond it; the
    true boxes stay the hand's. A photo with no room for a meld beside the hand is taken a little farther off."""
    if len(boxes) < 3:
        return img, boxes
    for _ in range(4):
        out = place_neighbours(img, boxes, codes, bank, rng, playing)
        if out is not None:
            return out, boxes
        img, boxes = shrunk(img, boxes, 0.8)
    return img, boxes


def place_neighbours(img: np.ndarray, boxes: Boxes, codes: list[str], bank: CropBank, rng: np.random.Generator,
                     playing: frozenset[str]) -> np.ndarray | None:
    """The photo with the neighbours' melds (and maybe backs) pasted, or None where no meld fits beside it."""
    scene = Scene(img, boxes, bank, codes, rng, playing)
    placed = 0
    row = boxes[hand_row(boxes)]
    upright = row[(row[:, 3] - row[:, 1]) >= (row[:, 2] - row[:, 0])]
    th = float(np.median(upright[:, 3] - upright[:, 1])) if len(upright) else float(np.median(row[:, 3] - row[:, 1]))
    tw = float(np.median(upright[:, 2] - upright[:, 0])) if len(upright) else th / 1.35
    cx, bottom = (row[:, 0] + row[:, 2]) / 2, row[:, 3]
    slope, base = np.polyfit(cx, bottom, 1) if len(row) >= 2 else (0.0, float(bottom.mean()))
    sides = [("left",), ("right",), ("left", "right")][int(rng.integers(3))]
    for side in sides:
        edge = float(row[:, 0].min()) if side == "left" else float(row[:, 2].max())
        gap = rng.uniform(0.5, 1.5) * tw
        for _ in range(int(rng.integers(1, 3))):  # one or two melds on this side
            meld = meld_codes(scene, rng)
            if meld is None:
                break
            turned = int(rng.integers(len(meld))) if rng.random() < 0.6 else -1
            pics = []
            for k, c in enumerate(meld):
                face = scene.face(c, int(tw), int(th))
                if face is None:
                    break
                pics.append(np.ascontiguousarray(np.rot90(face, 1 if rng.random() < 0.5 else 3)) if k == turned
                            else face)
            if len(pics) != len(meld):
                break
            width = sum(p.shape[1] for p in pics)
            x = edge - gap - width if side == "left" else edge + gap
            pieces = []
            for p in pics:
                y = slope * (x + p.shape[1] / 2) + base - p.shape[0]  # on the row's base line
                pieces.append((p, x, y))
                x += p.shape[1]
            if not scene.paste_all(pieces):
                break
            placed += 1
            scene.take(meld)
            edge = pieces[0][1] if side == "left" else x
            gap = rng.uniform(0.4, 0.8) * tw  # the next meld of the same player
    if rng.random() < 0.5:  # standing tile backs seen edge-on, beyond the hand
        n = int(rng.integers(3, 9))
        bh = max(4, int(tw * rng.uniform(0.55, 0.7)))
        top = float(boxes[:, 1].min())
        y = top - rng.uniform(1.0, 2.5) * th - bh
        x = rng.uniform(float(boxes[:, 0].min()), max(float(boxes[:, 0].min()) + 1, float(boxes[:, 2].max()) - n * tw))
        back = scene.face("back", int(tw), bh)
        assert back is not None
        scene.paste_all([(back, x + k * int(tw), y) for k in range(n)])
    return scene.out if placed else None


def discards(img: np.ndarray, boxes: Boxes, codes: list[str], bank: CropBank, rng: np.random.Generator,
             playing: frozenset[str] = frozenset(FACES)) -> tuple[np.ndarray, Boxes]:
    """8-20 discards at any rotation above the hand, at 0.75-1.0 of its scale, from one tile height above it; in
    half the photos a straight wall of 8-17 backs above them. The true boxes stay the hand's."""
    if len(boxes) < 3:
        return img, boxes
    scene = Scene(img, boxes, bank, codes, rng, playing)
    th = float(np.median(np.maximum(boxes[:, 3] - boxes[:, 1], boxes[:, 2] - boxes[:, 0])))
    tw = th / 1.35
    top = float(boxes[:, 1].min())
    x_lo, x_hi = float(boxes[:, 0].min()) - 2 * tw, float(boxes[:, 2].max()) + 2 * tw
    floor = top - th  # the discards start one tile height above the hand
    for _ in range(int(rng.integers(8, 21))):
        c = FACES[int(rng.integers(len(FACES)))]
        if not scene.available(c, 1) or c not in playing:
            continue
        s = rng.uniform(0.75, 1.0)
        face = scene.face(c, max(4, int(tw * s)), max(4, int(th * s)))
        if face is None:
            continue
        angle = rng.uniform(0, 360)
        m = cv2.getRotationMatrix2D((face.shape[1] / 2, face.shape[0] / 2), angle, 1.0)
        cos, sin = abs(m[0, 0]), abs(m[0, 1])
        nw, nh = int(face.shape[0] * sin + face.shape[1] * cos), int(face.shape[0] * cos + face.shape[1] * sin)
        m[0, 2] += nw / 2 - face.shape[1] / 2
        m[1, 2] += nh / 2 - face.shape[0] / 2
        turned = cv2.warpAffine(face, m, (nw, nh), borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0))
        mask = cv2.warpAffine(np.full(face.shape[:2], 255, np.uint8), m, (nw, nh)) > 0
        for _ in range(30):
            x = rng.uniform(max(0.0, x_lo), max(1.0, min(scene.out.shape[1] - nw, x_hi)))
            y = rng.uniform(max(0.0, floor - 4 * th), max(1.0, floor - nh))
            if scene.free(x, y, x + nw, y + nh):
                region = scene.out[int(y):int(y) + nh, int(x):int(x) + nw]
                region[mask[:region.shape[0], :region.shape[1]]] = turned[:region.shape[0], :region.shape[1]][
                    mask[:region.shape[0], :region.shape[1]]]
                scene.taken.append(np.array([x, y, x + nw, y + nh]))
                scene.take([c])
                break
    if rng.random() < 0.5:  # a straight wall of backs above the discards
        n = int(rng.integers(8, 18))
        bw, bh = int(tw), int(th * rng.uniform(0.55, 0.75))
        lowest = min([t[1] for t in scene.taken[len(boxes):]] + [floor])
        y = lowest - bh - rng.uniform(0.2, 0.8) * th
        x = rng.uniform(0, max(1.0, scene.out.shape[1] - n * bw))
        back = scene.face("back", bw, bh)
        assert back is not None
        scene.paste_all([(back, x + k * bw, y) for k in range(n)])
    return scene.out, boxes


SCENES: dict[str, Callable[..., tuple[np.ndarray, Boxes]]] = {"neighbours": neighbours, "discards": discards}
