"""Finder training scenes in made-up tile designs, as a phone at a real table sees them (training only).

Why: the shipped finder learnt tiles from a few photographed sets, so on a design it never saw it boxes a bamboo
tile's groups of sticks as tiles of their own, joins two tiles drawn edge to edge and misses others. Here every
scene has a design of its own: faces from ``training.faces`` (CJK fonts, dots and sticks in random colours, the
Debian mahjongg sets where installed) on a body of random shape (rim, corner radius, the near side's depth and
colours), laid out as a hand with melds, sometimes with other tiles lying about at any angle, on a plain or
textured table; then a phone's view of it: a pinhole camera pitched 0-50 degrees (the tiles squat, the far row
smaller), turned in the plane, shaken, glared, dim, at close range or far. Every box is the true warped box.

The held-out evaluation draws its own design (the page's CC0 tile pictures), bodies and tables in its own code;
nothing here reads them.

    python -m training.designs --n 12 --out build/design_scenes.png   # a sheet to look at
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

import cv2
import numpy as np

from evaluation.conditions import homography
from training.faces import FACE_H, FACE_W, draw_face, tileset_faces, tinted
from training.synth import FACE_CODES, random_table_groups
from training.table_aug import glare, low_light, shake

Boxes = np.ndarray


@dataclass
class Body:
    """One scene's tile body: colours and proportions shared by all its tiles."""

    ivory: np.ndarray
    back: np.ndarray
    side: float  # the near side's height, a share of the face's height
    radius: float  # corner radius, a share of the width
    rim: float  # a darker rim around the face, a share of the width
    tileset: bool  # faces from an installed tile set rather than drawn

    @classmethod
    def random(cls, rng: np.random.Generator) -> Body:
        ivory = np.array([rng.uniform(185, 250), rng.uniform(205, 252), rng.uniform(210, 255)], np.float32)
        if rng.random() < 0.25:  # white plastic
            ivory = np.full(3, rng.uniform(215, 252), np.float32)
        back = rng.uniform(20, 230, 3).astype(np.float32)
        return cls(ivory, back, float(rng.uniform(0.0, 0.3)), float(rng.uniform(0.02, 0.16)),
                   float(rng.uniform(0.0, 0.06)), bool(rng.random() < 0.35))


def rounded(w: int, h: int, r: float) -> np.ndarray:
    """A w x h float mask of a rectangle with corners of radius ``r`` px."""
    m = np.zeros((h, w), np.uint8)
    ri = int(max(0, min(r, w / 2 - 1, h / 2 - 1)))
    cv2.rectangle(m, (ri, 0), (w - 1 - ri, h - 1), 255, -1)
    cv2.rectangle(m, (0, ri), (w - 1, h - 1 - ri), 255, -1)
    for cx, cy in ((ri, ri), (w - 1 - ri, ri), (ri, h - 1 - ri), (w - 1 - ri, h - 1 - ri)):
        cv2.circle(m, (cx, cy), ri, 255, -1, cv2.LINE_AA)
    return m.astype(np.float32) / 255


def face_of(code: str, body: Body, rng: np.random.Generator) -> np.ndarray:
    """A face picture for ``code`` in this scene's design (drawn, or from an installed tile set)."""
    sets = tileset_faces() if body.tileset else {}
    if code in sets:
        return cv2.resize(tinted(sets[code][int(rng.integers(len(sets[code])))], rng), (FACE_W, FACE_H))
    face = draw_face(code, rng).astype(np.float32)
    bg = face[2, 2].copy()
    return np.clip(face - bg + body.ivory, 0, 255).astype(np.uint8)  # the design's own ivory


def tile_rgba(code: str, w: int, h: int, body: Body, rng: np.random.Generator) -> np.ndarray:
    """A w x h tile picture with alpha (BGRA float): face (or back) on top, the near side at the bottom."""
    face_h = max(4, int(round(h / (1 + body.side))))
    out = np.zeros((h, w, 4), np.float32)
    out[..., :3] = body.back * 0.85
    out[face_h:face_h + max(1, (h - face_h) // 2), :, :3] = body.ivory * 0.88
    if code == "back":
        top = np.ones((face_h, w, 3), np.float32) * body.back
    else:
        top = cv2.resize(face_of(code, body, rng), (w, face_h), interpolation=cv2.INTER_AREA).astype(np.float32)
        rim = int(round(body.rim * w))
        if rim:
            top[:rim], top[-rim:], top[:, :rim], top[:, -rim:] = (body.ivory * 0.8,) * 4
    shade = np.linspace(rng.uniform(1.0, 1.1), rng.uniform(0.85, 1.0), face_h, dtype=np.float32)[:, None, None]
    out[:face_h, :, :3] = top * shade
    out[..., 3] = rounded(w, h, body.radius * w)
    return out


def paste(canvas: np.ndarray, pic: np.ndarray, x: int, y: int, angle: float = 0.0) -> tuple[float, ...] | None:
    """Pastes a BGRA picture at (x, y), turned ``angle`` degrees about its centre, with a soft shadow; returns the
    box of what lands on the canvas (None when too little of it does)."""
    h, w = pic.shape[:2]
    if angle:
        c, s = abs(np.cos(np.radians(angle))), abs(np.sin(np.radians(angle)))
        nw, nh = int(w * c + h * s) + 2, int(w * s + h * c) + 2
        m = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
        m[:, 2] += ((nw - w) / 2, (nh - h) / 2)
        pic = cv2.warpAffine(pic, m, (nw, nh), flags=cv2.INTER_LINEAR, borderValue=(0, 0, 0, 0))
        x, y, h, w = x - (nw - w) // 2, y - (nh - h) // 2, nh, nw
    ch, cw = canvas.shape[:2]
    x1, y1, x2, y2 = max(0, x), max(0, y), min(cw, x + w), min(ch, y + h)
    if x2 - x1 < 0.6 * w or y2 - y1 < 0.6 * h:
        return None
    sub = pic[y1 - y:y2 - y, x1 - x:x2 - x]
    a = sub[..., 3:]
    shadow = cv2.GaussianBlur(a, (0, 0), max(1.0, 0.06 * w))
    if shadow.ndim == 2:
        shadow = shadow[..., None]
    region = canvas[y1:y2, x1:x2]
    region *= 1 - 0.35 * shadow
    region[:] = a * sub[..., :3] + (1 - a) * region
    ys, xs = np.nonzero(a[..., 0] > 0.5)
    if not len(xs):
        return None
    return (float(x1 + xs.min()), float(y1 + ys.min()), float(x1 + xs.max() + 1), float(y1 + ys.max() + 1))


def table(w: int, h: int, rng: np.random.Generator) -> np.ndarray:
    """A plain, mottled, striped or speckled table (float BGR), with uneven light."""
    base = rng.uniform(10, 220, 3).astype(np.float32)
    img = np.ones((h, w, 3), np.float32) * base
    kind = rng.random()
    if kind < 0.3:
        noise = cv2.resize(rng.normal(0, 1, (max(2, h // 40), max(2, w // 40))).astype(np.float32), (w, h))
        img += noise[..., None] * rng.uniform(5, 25)
    elif kind < 0.5:
        period = rng.uniform(4, 40)
        ang = rng.uniform(0, np.pi)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        img += (np.sin((xx * np.cos(ang) + yy * np.sin(ang)) / period * 2 * np.pi) * rng.uniform(5, 30))[..., None]
    elif kind < 0.7:
        img += rng.normal(0, rng.uniform(3, 20), (h, w, 1)).astype(np.float32)
    light = np.linspace(rng.uniform(0.7, 1.1), rng.uniform(0.9, 1.3), w, dtype=np.float32)[None, :, None]
    return img * light + rng.normal(0, 3, (h, w, 3)).astype(np.float32)


def pitched(img: np.ndarray, boxes: Boxes, degrees: float, turn: float, fov: float = 69.0,
            bg: np.ndarray | None = None) -> tuple[np.ndarray, Boxes]:
    """The table seen by a pinhole camera pitched ``degrees`` toward the near side about the tiles' centre and
    turned ``turn`` degrees in the plane, scaled so that the tiles keep their spread; boxes as their tiles'
    warped corners' boxes. What the view shows beyond the drawn table is ``bg`` (the bare table) mirrored, never
    mirrored tiles, which would be tiles without boxes."""
    h, w = img.shape[:2]
    f = (w / 2) / np.tan(np.radians(fov / 2))
    cx, cy = ((boxes[:, 0].min() + boxes[:, 2].max()) / 2, (boxes[:, 1].min() + boxes[:, 3].max()) / 2) \
        if len(boxes) else (w / 2, h / 2)
    t = np.radians(degrees)
    cam = np.array([cx, cy + f * np.sin(t), f * np.cos(t)])
    fwd, right = np.array([0, -np.sin(t), -np.cos(t)]), np.array([1.0, 0, 0])
    down = np.array([0, np.cos(t), -np.sin(t)])  # the photo's y axis: the camera's down, square to its view

    def project(pts: np.ndarray) -> np.ndarray:
        d = np.c_[pts, np.zeros(len(pts))] - cam
        z = d @ fwd
        return np.c_[f * (d @ right) / z, f * (d @ down) / z]

    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    m = cv2.getPerspectiveTransform(src, project(src.astype(np.float64)).astype(np.float32))
    if len(boxes):
        spread = np.float64([[boxes[:, 0].min(), cy], [boxes[:, 2].max(), cy]])
        p = cv2.perspectiveTransform(spread.reshape(-1, 1, 2), m).reshape(-1, 2)
        scale = (spread[1, 0] - spread[0, 0]) / max(1e-6, p[1, 0] - p[0, 0])
    else:
        scale = 1.0
    centre = cv2.perspectiveTransform(np.float64([[[cx, cy]]]), m).reshape(2)
    r = cv2.getRotationMatrix2D((0, 0), turn, scale)
    r[:, 2] = np.array([cx, cy]) - r[:, :2] @ centre
    full = np.vstack([r, [0, 0, 1]]) @ m
    out, boxes = homography(img, boxes, full)
    if bg is not None:
        inside = cv2.warpPerspective(np.ones((h, w), np.float32), full, (w, h), flags=cv2.INTER_LINEAR)[..., None]
        beyond = cv2.warpPerspective(bg, full, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
        out = (inside * out + (1 - inside) * beyond).astype(img.dtype)
    return out, boxes


def scene(rng: np.random.Generator, canvas: tuple[int, int] | None = None,
          backgrounds: list[np.ndarray] | None = None, close: float = 0.12, mid: float = 0.0,
          one_suit: float = 0.0) -> tuple[np.ndarray, Boxes, list[int]]:
    """One training photo in a design of its own: the photo (BGR uint8), its tiles' boxes, their classes
    (0 a tile face up, 1 face down). ``backgrounds``: tile-free patches of real photos, the table in half the
    scenes (patterned cloths and trays, which a finder must not take for tiles). ``close``: the chance that the
    scene is a close-up of a few big tiles; ``mid``: the chance that the tiles are 6-14 % of the width, the hand
    running off the photo's edges (what the reader's zoomed pass sees); ``one_suit``: the chance that the hand is
    of one suit (a flush: a row of bamboo tiles whose stick groups must not be boxed apart)."""
    if canvas is None:
        canvas = [(640, 640), (640, 480), (480, 640), (640, 360)][int(rng.integers(4))]
    cw, ch = canvas
    body = Body.random(rng)
    if backgrounds and rng.random() < 0.5:
        patch = backgrounds[int(rng.integers(len(backgrounds)))]
        img = cv2.resize(patch, (cw, ch), interpolation=cv2.INTER_LINEAR).astype(np.float32)
    else:
        img = table(cw, ch, rng)
    bare = np.clip(img, 0, 255).astype(np.uint8)
    groups = random_table_groups(rng)
    if one_suit and rng.random() < one_suit:
        groups = flush(groups, rng)
    n_tiles = sum(len(g) for g in groups) + 0.6 * len(groups)
    is_close = rng.random() < close
    spread = rng.uniform(0.5, 1.0) if rng.random() < 0.8 else rng.uniform(1.0, 1.6)  # the hand across the photo
    tile_w = int(rng.uniform(0.18, 0.4) * cw) if is_close else int(cw * spread / n_tiles)
    if not is_close and mid and rng.random() < mid:
        tile_w, spread = int(rng.uniform(0.06, 0.14) * cw), 1.0 + rng.random()  # starts off the left edge
    tile_w = max(tile_w, 10)
    tile_h = int(tile_w * rng.uniform(1.3, 1.55) * (1 + body.side))
    boxes: list[tuple[float, ...]] = []
    classes: list[int] = []
    two_rows = rng.random() < 0.35 and len(groups) > 2
    rows = [groups[:2], groups[2:]] if two_rows else [groups]
    y = int(rng.uniform(0.15, 0.75) * ch) if not is_close else int(rng.uniform(0.1, 0.5) * ch)
    touching = rng.random() < 0.5
    for row in rows:
        x = int(rng.uniform(0.02, 0.2) * cw) if spread < 1 and not is_close else int(rng.uniform(-0.3, 0.05) * cw)
        for g in row:
            for code, sideways in g:
                tw, th = (tile_h, int(tile_w * (1 + body.side * 0.5))) if sideways else (tile_w, tile_h)
                pic = tile_rgba(code, tile_w, tile_h, body, rng)
                if sideways:
                    pic = cv2.resize(np.rot90(pic, 1 if rng.random() < 0.5 else 3).copy(), (tw, th))
                b = paste(img, pic, x, y + tile_h - th)
                if b is not None:
                    boxes.append(b)
                    classes.append(1 if code == "back" else 0)
                x += tw + (0 if touching else int(rng.uniform(0, 0.08) * tile_w))
            x += int(rng.uniform(0.3, 1.0) * tile_w)
        y -= int(tile_h * rng.uniform(1.3, 2.2))  # the second row (melds) further away
    if rng.random() < 0.4 and not is_close:  # other tiles lying about: discards at any angle
        for _ in range(int(rng.integers(3, 14))):
            s = rng.uniform(0.75, 1.0)
            code = FACE_CODES[int(rng.integers(len(FACE_CODES)))]
            pic = tile_rgba(code, int(tile_w * s), int(tile_h * s), body, rng)
            bx, by = int(rng.uniform(0, cw - tile_w)), int(rng.uniform(0, ch - tile_h))
            overlaps = any(bx < b[2] and bx + tile_w * 1.4 > b[0] and by < b[3] and by + tile_h * 1.4 > b[1]
                           for b in boxes)
            if not overlaps:
                b = paste(img, pic, bx, by, float(rng.uniform(-180, 180)))
                if b is not None:
                    boxes.append(b)
                    classes.append(0)
    arr = np.array(boxes, np.float32).reshape(-1, 4)
    img, arr = view(np.clip(img, 0, 255).astype(np.uint8), arr, rng, bare)
    return img, arr, classes


def flush(groups: list[list[tuple[str, bool]]], rng: np.random.Generator) -> list[list[tuple[str, bool]]]:
    """The same layout with every face of one suit (backs and flowers kept; a meld stays one face)."""
    suit = "mps"[int(rng.integers(3))]
    out = []
    for g in groups:
        if len({c for c, _ in g if c != "back"}) == 1 and len(g) >= 3:  # a meld: one new face for all of it
            face = f"{int(rng.integers(1, 10))}{suit}"
            out.append([(c if c == "back" else face, side) for c, side in g])
        else:
            out.append([(c if c == "back" or c.startswith("f") else f"{int(rng.integers(1, 10))}{suit}", side)
                        for c, side in g])
    return out


def view(img: np.ndarray, boxes: Boxes, rng: np.random.Generator, bg: np.ndarray) -> tuple[np.ndarray, Boxes]:
    """What a phone makes of the table (``bg``: the same without tiles): pitch and turn, then some of shake,
    glare, dim light, focus, JPEG."""
    if rng.random() < 0.75:
        img, boxes = pitched(img, boxes, float(rng.uniform(0, 50) if rng.random() < 0.7 else rng.uniform(35, 52)),
                             float(rng.uniform(-12, 12)), fov=float(rng.uniform(55, 80)), bg=bg)
    for p, change in ((0.35, shake), (0.2, glare), (0.2, low_light)):
        if rng.random() < p:
            img, boxes = change(img, boxes, rng)
    if rng.random() < 0.3:
        img = cv2.GaussianBlur(img, (0, 0), float(rng.uniform(0.5, 1.8)))
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(50, 95))])
    return (cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else img), boxes


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=12)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="build/design_scenes.png")
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    tiles = []
    for _ in range(args.n):
        img, boxes, _cls = scene(rng, (640, 480))
        for b in boxes.astype(int):
            cv2.rectangle(img, (b[0], b[1]), (b[2], b[3]), (0, 0, 255), 1)
        tiles.append(img)
    rows = [np.hstack(tiles[i:i + 3]) for i in range(0, len(tiles) - len(tiles) % 3, 3)]
    cv2.imwrite(args.out, np.vstack(rows))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
