"""Copy-paste synthesis: real tile crops laid out as a table hand (rows, melds apart, sideways and face-down
tiles, flowers aside) on real backgrounds cut from tile-free parts of real photos.

Used twice: training images for the tile finder (crops from the `train` split) and the whole-chain
evaluation set of winning hands (crops from the `valid` split only).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from training.data import LabelledImage
from vision.detections import box_areas, intersections


@dataclass
class CropBank:
    """Upright-ish tile crops per code, cut from labelled photos."""

    crops: dict[str, list[np.ndarray]] = field(default_factory=dict)
    backgrounds: list[np.ndarray] = field(default_factory=list)

    @classmethod
    def build(cls, images: list[LabelledImage], max_per_code: int = 400, seed: int = 0,
              max_overlap: float = 0.08, pad: float = 0.06) -> CropBank:
        """Crops of single upright tiles at their real shape; photos the export squashed are left out.

        A tile is about 1.3-1.5 times as tall as wide (up to ~1.9 seen at an angle); a box much taller holds two
        tiles or comes from a photo stretched to a square, and pasted at a tile's shape it would not look real.
        A box that overlaps a neighbour's by more than ``max_overlap`` of its area (tiles standing in a rack seen
        at an angle) carries a sliver of that neighbour, which pasted alone looks like an extra tile. Crops keep
        ``pad`` of real margin on each side: the tile's own edge, without which a blank white dragon pasted on
        a table would be a borderless white rectangle that no real tile looks like.
        """
        rng = np.random.default_rng(seed)
        bank = cls()
        for li in images:
            img = cv2.imread(str(li.path))
            if img is None or li.squashed:
                continue
            crowded = overlap_share(li.boxes) > max_overlap
            for (x1, y1, x2, y2), code, close in zip(li.boxes, li.codes, crowded):
                w, h = x2 - x1, y2 - y1
                if not 1.15 * w <= h <= 1.9 * w or w < 12 or close:  # single portrait tiles, nothing of a neighbour
                    continue
                px, py = pad * w, pad * h
                crop = img[max(0, int(y1 - py)):int(y2 + py), max(0, int(x1 - px)):int(x2 + px)]
                if crop.size == 0:
                    continue
                lst = bank.crops.setdefault(code, [])
                if len(lst) < max_per_code:
                    lst.append(crop)
            bg = tile_free_patch(img, li.boxes, rng)
            if bg is not None:
                bank.backgrounds.append(bg)
        return bank


def overlap_share(boxes: np.ndarray) -> np.ndarray:
    """For each box, the largest share of its area that another box of the photo covers."""
    if len(boxes) < 2:
        return np.zeros(len(boxes))
    b = boxes.astype(np.float64)
    inter = intersections(b, b)
    np.fill_diagonal(inter, 0)
    return inter.max(1) / np.maximum(box_areas(b), 1e-9)


def tile_free_patch(img: np.ndarray, boxes: np.ndarray, rng: np.random.Generator) -> np.ndarray | None:
    """A random rectangle of the photo that touches no labelled tile (a real table background)."""
    h, w = img.shape[:2]
    for _ in range(30):
        pw, ph = int(rng.integers(120, 400)), int(rng.integers(120, 400))
        if pw >= w or ph >= h:
            continue
        x, y = int(rng.integers(0, w - pw)), int(rng.integers(0, h - ph))
        if len(boxes) == 0 or not np.any((boxes[:, 0] < x + pw) & (boxes[:, 2] > x) & (boxes[:, 1] < y + ph)
                                         & (boxes[:, 3] > y)):
            patch = img[y:y + ph, x:x + pw]
            hsv = cv2.cvtColor(patch, cv2.COLOR_BGR2HSV)
            # unlabelled tiles (white faces) in the patch would teach the finder to ignore tiles
            if np.mean((hsv[..., 2] > 170) & (hsv[..., 1] < 50)) < 0.08:
                return patch.copy()
    return None


# coloured plastic backs only: a white or grey "back" would look like the blank white dragon (P)
BACK_COLOURS = ((40, 120, 30), (150, 90, 20), (30, 100, 200), (20, 60, 150), (60, 160, 220))


def render_back(w: int, h: int, rng: np.random.Generator) -> np.ndarray:
    """A face-down tile: coloured plastic back with a lighter edge band, shading and noise."""
    base = np.array(BACK_COLOURS[int(rng.integers(len(BACK_COLOURS)))], np.float32)
    base = np.clip(base * rng.uniform(0.7, 1.2), 0, 255)
    tile = np.ones((h, w, 3), np.float32) * base
    grad = np.linspace(rng.uniform(0.8, 1.0), rng.uniform(1.0, 1.2), h, dtype=np.float32)[:, None, None]
    tile *= grad
    band = max(1, int(h * rng.uniform(0.05, 0.2)))
    tile[h - band:] = rng.uniform(200, 245)
    tile += rng.normal(0, 6, tile.shape)
    cv2.rectangle(tile, (0, 0), (w - 1, h - 1), tuple(float(c) * 0.6 for c in base), max(1, w // 25))
    return np.clip(tile, 0, 255).astype(np.uint8)


@dataclass
class PlacedTile:
    code: str  # tile code, or "back"
    box: tuple[float, float, float, float]
    sideways: bool
    group: int


def compose(groups: list[list[tuple[str, bool]]], bank: CropBank, rng: np.random.Generator,
            canvas: tuple[int, int] = (640, 640), tile_h: int | None = None, two_rows: bool = False,
            fit: bool = True) -> tuple[np.ndarray, list[PlacedTile]]:
    """Lay out groups of (code, sideways) left to right with gaps between groups, on a real background.

    ``code`` "back" renders a face-down tile. Groups wrap to a second row when ``two_rows``.
    With ``fit`` the tile size is chosen so the whole layout fits; otherwise it is random and tiles
    running off the canvas are left out. Returns the image and every tile's box in image pixels.
    """
    cw, ch = canvas
    bg = bank.backgrounds[int(rng.integers(len(bank.backgrounds)))] if bank.backgrounds else \
        np.full((64, 64, 3), rng.integers(40, 200, 3), np.uint8)
    img = cv2.resize(bg, (cw, ch), interpolation=cv2.INTER_LINEAR)
    rows = [groups]
    if two_rows and len(groups) > 1:
        cut = max(1, len(groups) // 2)
        rows = [groups[:cut], groups[cut:]]
    widest = max(sum(len(g) + 0.35 * sum(s for _, s in g) for g in r) + 0.6 * len(r) for r in rows)
    if tile_h is None and fit:
        tw_max = cw * rng.uniform(0.55, 0.78) / max(widest, 1)
        tile_h = int(min(tw_max * 1.35, ch / (len(rows) * 1.6)))
    elif tile_h is None:  # training: tiles of any size, those that do not fit are left out
        tile_h = int(rng.uniform(0.05, 0.16) * ch)
    tile_h = max(tile_h, 14)
    tile_w = int(tile_h / 1.35)
    placed: list[PlacedTile] = []
    total_h = len(rows) * tile_h * 1.3
    margin = 0.1 if fit else 0.02
    y0 = rng.uniform(margin * ch, max((margin + 0.01) * ch, ch - total_h - margin * ch))
    gid = 0
    for r, row in enumerate(rows):
        row_w = sum(len(g) * tile_w for g in row) + 0.6 * tile_w * (len(row) - 1) + sum(
            (tile_h - tile_w) for g in row for _, s in g if s)
        x = rng.uniform(0.1 * cw, max(0.11 * cw, cw - row_w - 0.1 * cw)) if fit else rng.uniform(-0.3, 0.2) * cw
        y = y0 + r * tile_h * 1.3
        for g in row:
            for code, sideways in g:
                if code == "back":
                    face = render_back(tile_w, tile_h, rng)
                else:
                    pool = bank.crops.get(code)
                    if not pool:
                        continue
                    face = cv2.resize(pool[int(rng.integers(len(pool)))], (tile_w, tile_h))
                if sideways:
                    face = cv2.rotate(face, cv2.ROTATE_90_CLOCKWISE if rng.random() < 0.5 else
                                      cv2.ROTATE_90_COUNTERCLOCKWISE)
                fh, fw = face.shape[:2]
                yy = int(y + (tile_h - fh))  # sideways tiles sit on the same base line
                xx = int(x)
                if xx + fw > cw or yy + fh > ch or xx < 0 or yy < 0 or (not fit and rng.random() < 0.03):
                    x += fw
                    continue
                img[yy:yy + fh, xx:xx + fw] = face
                placed.append(PlacedTile(code, (xx, yy, xx + fw, yy + fh), sideways, gid))
                x += fw + rng.uniform(0, 0.06) * tile_w
            x += 0.6 * tile_w
            gid += 1
    img, placed = photometric(img, placed, rng)
    return img, placed


def photometric(img: np.ndarray, placed: list[PlacedTile], rng: np.random.Generator
                ) -> tuple[np.ndarray, list[PlacedTile]]:
    """Mild perspective tilt, lighting change, blur and JPEG, with boxes carried through the warp."""
    h, w = img.shape[:2]
    d = 0.06 * w
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    dst = src + rng.uniform(-d, d, (4, 2)).astype(np.float32)
    m = cv2.getPerspectiveTransform(src, dst)
    img = cv2.warpPerspective(img, m, (w, h), borderMode=cv2.BORDER_REFLECT)
    out = []
    for p in placed:
        x1, y1, x2, y2 = p.box
        pts = cv2.perspectiveTransform(np.float32([[[x1, y1], [x2, y1], [x2, y2], [x1, y2]]]), m)[0]
        bx = (float(max(0, pts[:, 0].min())), float(max(0, pts[:, 1].min())), float(min(w, pts[:, 0].max())),
              float(min(h, pts[:, 1].max())))
        if bx[2] - bx[0] > 4 and bx[3] - bx[1] > 4:
            out.append(PlacedTile(p.code, bx, p.sideways, p.group))
    img = img.astype(np.float32) * rng.uniform(0.6, 1.3) + rng.uniform(-30, 30)
    img = img * rng.uniform(0.9, 1.1, 3)[None, None, :]
    img = np.clip(img, 0, 255).astype(np.uint8)
    if rng.random() < 0.3:
        img = cv2.GaussianBlur(img, (3, 3), 0)
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(60, 95))])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR), out


FACE_CODES = tuple(f"{r}{s}" for s in "mps" for r in range(1, 10)) + tuple("ESWNCFP")
FLOWER_CODES = tuple(f"f{i}" for i in range(1, 9))


def random_table_groups(rng: np.random.Generator) -> list[list[tuple[str, bool]]]:
    """A random hand-like layout for detector training: concealed row, 0-4 melds (sideways / face-down), flowers."""
    n_melds = int(rng.integers(0, 5))
    groups: list[list[tuple[str, bool]]] = []
    for _ in range(n_melds):
        t = FACE_CODES[int(rng.integers(len(FACE_CODES)))]
        kind = rng.random()
        if kind < 0.25:  # concealed kong: two face down at the ends, or all four
            g = [("back", False), (t, False), (t, False), ("back", False)] if rng.random() < 0.6 else \
                [("back", False)] * 4
        else:
            size = 4 if kind < 0.45 else 3
            g = [(t, False)] * size
            side = int(rng.integers(0, size))
            g[side] = (t, True)
        groups.append(g)
    n_conc = 14 - 3 * n_melds
    conc = [(FACE_CODES[int(rng.integers(len(FACE_CODES)))], False) for _ in range(n_conc)]
    groups.insert(0, conc[:-1])
    groups.insert(1, conc[-1:])  # winning tile set apart
    if rng.random() < 0.4:
        groups.append([(FLOWER_CODES[int(rng.integers(8))], False) for _ in range(int(rng.integers(1, 5)))])
    return groups
