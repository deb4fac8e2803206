"""Synthetic tile faces in designs the shared photos lack: character, wind, dragon and flower tiles written in the
CJK fonts the machine has (many fonts, weights and ink colours), dots and bamboo drawn with varied colours and
stick shapes, on ivory or white tiles with a coloured back, print blur and a little perspective.

Real crops stay dominant in training (``--synth-faces N`` adds N of these); the character tiles differ between
sets mostly in the font, which is what a classifier that has seen few sets gets wrong (2m read as 3m).

    python -m training.faces --n 60 --out build/faces.png   # a sheet to look at
"""

from __future__ import annotations

import argparse
import glob
import gzip
import shutil
import subprocess
import tempfile
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from vision.classes import CLASS_INDEX
from vision.crops import tile_crop

NUMERALS = "一二三四五六七八九"
WINDS = {"E": "東", "S": "南", "W": "西", "N": "北"}
FLOWERS = {"f1": "春", "f2": "夏", "f3": "秋", "f4": "冬", "f5": "梅", "f6": "蘭", "f7": "菊", "f8": "竹"}
FONT_GLOBS = ("/usr/share/fonts/truetype/wqy/*.tt[cf]", "/usr/share/fonts/truetype/arphic/*.tt[cf]",
              "/usr/share/fonts/opentype/noto/*CJK*.tt[cf]", "/usr/share/fonts/truetype/arphic-*/*.tt[cf]")
# ink colours (BGR): dark blue, black, dark green, red, green, blue
BLUE, BLACK, GREEN, RED = (120, 40, 10), (25, 25, 25), (60, 110, 20), (40, 30, 200)
FACE_W, FACE_H = 120, 160


@lru_cache(maxsize=1)
def font_faces() -> tuple[tuple[str, int], ...]:
    """(font file, face index) of every CJK font found; a .ttc holds several faces (weights, regions)."""
    found = []
    for pattern in FONT_GLOBS:
        for path in sorted(glob.glob(pattern)):
            n = 1
            if path.endswith(".ttc"):
                n = 0
                while n < 12:
                    try:
                        ImageFont.truetype(path, 20, index=n)
                    except OSError:
                        break
                    n += 1
            found.extend((path, i) for i in range(n))
    return tuple(found)


def _jitter(colour: tuple[int, int, int], rng: np.random.Generator) -> tuple[int, int, int]:
    return tuple(int(np.clip(c + rng.integers(-30, 31), 0, 255)) for c in colour)  # type: ignore[return-value]


def _glyph(face: np.ndarray, text: str, box: tuple[float, float, float, float], colour: tuple[int, int, int],
           font: tuple[str, int], rng: np.random.Generator, bold: bool = False) -> None:
    """Write ``text`` (one or two characters, stacked) to fill ``box`` (fractions of the face) in place."""
    h, w = face.shape[:2]
    x1, y1, x2, y2 = box[0] * w, box[1] * h, box[2] * w, box[3] * h
    size = int(min((x2 - x1), (y2 - y1) / len(text)) * rng.uniform(0.85, 1.05))
    pil_font = ImageFont.truetype(font[0], max(size, 8), index=font[1])
    img = Image.fromarray(face)
    draw = ImageDraw.Draw(img)
    rgb = colour  # the face array is BGR and PIL writes the tuple as given, so BGR in is BGR out
    line = (y2 - y1) / len(text)
    for i, ch in enumerate(text):
        left, top, right, bottom = draw.textbbox((0, 0), ch, font=pil_font)
        cx, cy = (x1 + x2) / 2, y1 + line * (i + 0.5)
        pos = (cx - (left + right) / 2, cy - (top + bottom) / 2)
        draw.text(pos, ch, font=pil_font, fill=rgb, stroke_width=int(bold) * max(1, size // 28),
                  stroke_fill=rgb)
    face[:] = np.asarray(img)


DOTS = {
    2: [(0.5, 0.27), (0.5, 0.73)], 3: [(0.24, 0.2), (0.5, 0.5), (0.76, 0.8)],
    4: [(0.3, 0.27), (0.7, 0.27), (0.3, 0.73), (0.7, 0.73)],
    5: [(0.27, 0.22), (0.73, 0.22), (0.5, 0.5), (0.27, 0.78), (0.73, 0.78)],
    6: [(0.3, 0.18), (0.7, 0.18), (0.3, 0.55), (0.7, 0.55), (0.3, 0.84), (0.7, 0.84)],
    7: [(0.2, 0.12), (0.5, 0.22), (0.8, 0.32), (0.3, 0.6), (0.7, 0.6), (0.3, 0.86), (0.7, 0.86)],
    8: [(x, y) for y in (0.13, 0.38, 0.62, 0.87) for x in (0.3, 0.7)],
    9: [(x, y) for y in (0.18, 0.5, 0.82) for x in (0.2, 0.5, 0.8)],
}
DOT_RADIUS = {2: 0.2, 3: 0.15, 4: 0.17, 5: 0.15, 6: 0.13, 7: 0.11, 8: 0.11, 9: 0.12}


def _dot(face: np.ndarray, cx: float, cy: float, r: float, outer: tuple, inner: tuple, rng: np.random.Generator
         ) -> None:
    c = (int(cx), int(cy))
    cv2.circle(face, c, int(r), outer, -1, cv2.LINE_AA)
    cv2.circle(face, c, int(r * rng.uniform(0.7, 0.82)), (235, 240, 245), -1, cv2.LINE_AA)
    cv2.circle(face, c, int(r * rng.uniform(0.45, 0.62)), inner, -1, cv2.LINE_AA)
    if rng.random() < 0.6:
        cv2.circle(face, c, max(1, int(r * 0.18)), (235, 240, 245), -1, cv2.LINE_AA)


def draw_dots(face: np.ndarray, n: int, rng: np.random.Generator) -> None:
    """The dots suit: circles in the usual places, ringed, in blue, green and red."""
    h, w = face.shape[:2]
    if n == 1:
        r = w * rng.uniform(0.36, 0.44)
        for k, col in enumerate((GREEN, RED, BLUE, RED)):
            cv2.circle(face, (w // 2, h // 2), int(r * (1 - 0.22 * k)), _jitter(col, rng), max(2, int(r * 0.1)),
                       cv2.LINE_AA)
        _dot(face, w / 2, h / 2, r * 0.3, _jitter(RED, rng), _jitter(BLUE, rng), rng)
        return
    scheme = [GREEN, BLUE, RED]
    rng.shuffle(scheme)
    for i, (x, y) in enumerate(DOTS[n]):
        if n == 5 and i == 2 or n in (6, 7) and i >= (2 if n == 6 else 3) or n == 9 and 3 <= i < 6:
            outer = RED
        else:
            outer = scheme[0] if n in (4, 8) or i % 2 == 0 else scheme[1]
        r = DOT_RADIUS[n] * w * rng.uniform(0.9, 1.1)
        _dot(face, 0.12 * w + 0.76 * w * x, 0.1 * h + 0.8 * h * y, r, _jitter(outer, rng),
             _jitter(BLUE if outer != BLUE else GREEN, rng), rng)


STICKS = {
    2: [(0.5, 0.28), (0.5, 0.72)], 3: [(0.5, 0.28), (0.3, 0.72), (0.7, 0.72)],
    4: [(0.3, 0.28), (0.7, 0.28), (0.3, 0.72), (0.7, 0.72)],
    5: [(0.22, 0.28), (0.78, 0.28), (0.5, 0.5), (0.22, 0.72), (0.78, 0.72)],
    6: [(x, y) for y in (0.28, 0.72) for x in (0.2, 0.5, 0.8)],
    7: [(0.5, 0.17)] + [(x, y) for y in (0.5, 0.83) for x in (0.2, 0.5, 0.8)],
    8: [(x, y) for y in (0.28, 0.72) for x in (0.14, 0.38, 0.62, 0.86)],
    9: [(x, y) for y in (0.18, 0.5, 0.82) for x in (0.2, 0.5, 0.8)],
}


def _stick(face: np.ndarray, cx: float, cy: float, sw: float, sh: float, angle: float, colour: tuple) -> None:
    rect = ((cx, cy), (sw, sh), angle)
    pts = cv2.boxPoints(rect).astype(np.int32)
    cv2.fillConvexPoly(face, pts, colour, cv2.LINE_AA)
    dark = tuple(int(c * 0.55) for c in colour)
    for t in (-0.5, 0.0, 0.5):  # the nodes of the bamboo
        dx, dy = -np.sin(np.radians(angle)) * sh * t / 2 * 0.9, np.cos(np.radians(angle)) * sh * t / 2 * 0.9
        cv2.line(face, (int(cx + dx - sw / 2), int(cy + dy)), (int(cx + dx + sw / 2), int(cy + dy)), dark,
                 max(1, int(sw * 0.25)), cv2.LINE_AA)


def draw_bamboo(face: np.ndarray, n: int, rng: np.random.Generator) -> None:
    """The bamboo suit: green sticks with nodes (red ones where sets usually put them); 1s a made-up bird."""
    h, w = face.shape[:2]
    green, red, blue = _jitter(GREEN, rng), _jitter(RED, rng), _jitter(BLUE, rng)
    if n == 1:
        body = (int(w * rng.uniform(0.42, 0.58)), int(h * rng.uniform(0.5, 0.6)))
        cv2.ellipse(face, body, (int(w * 0.22), int(h * 0.16)), rng.uniform(-30, 30), 0, 360, green, -1,
                    cv2.LINE_AA)
        cv2.circle(face, (body[0] + int(w * 0.12), body[1] - int(h * 0.2)), int(w * 0.1), red, -1, cv2.LINE_AA)
        tail = np.array([[body[0] - int(w * 0.15), body[1]], [int(w * 0.12), int(h * 0.2)],
                         [int(w * 0.3), int(h * 0.28)]], np.int32)
        cv2.fillConvexPoly(face, tail, blue, cv2.LINE_AA)
        cv2.line(face, (body[0], body[1] + int(h * 0.15)), (body[0], int(h * 0.9)), red, 3, cv2.LINE_AA)
        return
    sh = h * (0.34 if n in (2, 3, 4, 5, 6, 8) else 0.26) * rng.uniform(0.85, 1.0)
    sw = w * (0.1 if n >= 6 else 0.13) * rng.uniform(0.8, 1.1)
    for i, (x, y) in enumerate(STICKS[n]):
        colour = green
        if n == 5 and i == 2 or n == 7 and i == 0 or n == 9 and i % 3 == 1 and rng.random() < 0.8:
            colour = red
        elif n in (3, 6, 9) and i % 2 and rng.random() < 0.3:
            colour = blue
        angle = 0.0
        if n == 8:
            angle = (20 if i % 4 in (0, 2) else -20) * (1 if i < 4 else -1)
        _stick(face, 0.1 * w + 0.8 * w * x, 0.08 * h + 0.84 * h * y, sw, sh, angle, colour)


def draw_flower(face: np.ndarray, code: str, font: tuple[str, int], rng: np.random.Generator) -> None:
    """A flower or season: a made-up picture (petals and leaves), its character and its number 1-4."""
    h, w = face.shape[:2]
    for _ in range(int(rng.integers(4, 9))):
        c = (int(rng.uniform(0.2, 0.8) * w), int(rng.uniform(0.35, 0.85) * h))
        col = _jitter([RED, GREEN, BLUE, (30, 140, 220)][int(rng.integers(4))], rng)
        cv2.ellipse(face, c, (int(w * rng.uniform(0.05, 0.14)), int(h * rng.uniform(0.03, 0.09))),
                    rng.uniform(0, 180), 0, 360, col, -1, cv2.LINE_AA)
    _glyph(face, FLOWERS[code], (0.05, 0.03, 0.42, 0.3), _jitter(BLACK, rng), font, rng)
    _glyph(face, str((int(code[1]) - 1) % 4 + 1), (0.65, 0.03, 0.95, 0.25), _jitter(RED, rng), font, rng)


def draw_face(code: str, rng: np.random.Generator) -> np.ndarray:
    """One tile face (BGR, FACE_W x FACE_H) for a RULES.md code, in a random font, ink and tile colour."""
    ivory = (int(rng.integers(200, 245)), int(rng.integers(225, 250)), int(rng.integers(232, 256)))
    face = np.empty((FACE_H, FACE_W, 3), np.uint8)
    face[:] = ivory
    fonts = font_faces()
    if not fonts:
        raise RuntimeError("no CJK font found (install fonts-wqy-zenhei, fonts-arphic-ukai or fonts-noto-cjk)")
    font = fonts[int(rng.integers(len(fonts)))]
    bold = bool(rng.random() < 0.5)
    if code[-1] == "m":
        ink = _jitter(BLUE if rng.random() < 0.6 else BLACK, rng)
        split = rng.uniform(0.4, 0.5)
        _glyph(face, NUMERALS[int(code[0]) - 1], (0.12, 0.04, 0.88, split), ink, font, rng, bold)
        wan = "萬" if rng.random() < 0.85 else "万"
        _glyph(face, wan, (0.1, split, 0.9, 0.97), _jitter(RED, rng), font, rng, bold)
    elif code[-1] == "p":
        draw_dots(face, int(code[0]), rng)
    elif code[-1] == "s":
        draw_bamboo(face, int(code[0]), rng)
    elif code in WINDS:
        ink = _jitter(BLUE if rng.random() < 0.5 else BLACK, rng)
        _glyph(face, WINDS[code], (0.08, 0.12, 0.92, 0.88), ink, font, rng, bold)
    elif code == "C":
        _glyph(face, "中", (0.06, 0.12, 0.94, 0.88), _jitter(RED, rng), font, rng, bold)
    elif code == "F":
        _glyph(face, "發" if rng.random() < 0.85 else "发", (0.06, 0.12, 0.94, 0.88), _jitter(GREEN, rng), font, rng,
               bold)
    elif code == "P":
        m = rng.uniform(0.1, 0.2)
        col = _jitter(BLUE if rng.random() < 0.8 else BLACK, rng)
        t = int(rng.integers(3, 9))
        cv2.rectangle(face, (int(m * FACE_W), int(m * FACE_H * 0.8)),
                      (int((1 - m) * FACE_W), int((1 - m * 0.8) * FACE_H)), col, t, cv2.LINE_AA)
        if rng.random() < 0.5:
            k = t + int(rng.integers(3, 7))
            cv2.rectangle(face, (int(m * FACE_W) + k, int(m * FACE_H * 0.8) + k),
                          (int((1 - m) * FACE_W) - k, int((1 - m * 0.8) * FACE_H) - k), col, 2, cv2.LINE_AA)
    else:
        draw_flower(face, code, font, rng)
    return face


SYNTH_CODES = tuple(c for c in CLASS_INDEX if c != "back")

# Debian's mahjongg games: KMahjongg's SVG tile sets (faces by element id) and GNOME Mahjongg's sprite strip
KMAHJONGG = Path("/usr/share/kmahjongglib/tilesets")
KMAHJONGG_SETS = ("default", "traditional")  # the others are not Chinese tiles or do not render by element
KMAHJONGG_IDS = {**{f"{n}m": f"CHARACTER_{n}" for n in range(1, 10)}, **{f"{n}p": f"ROD_{n}" for n in range(1, 10)},
                 **{f"{n}s": f"BAMBOO_{n}" for n in range(1, 10)}, "N": "WIND_1", "S": "WIND_2", "E": "WIND_3",
                 "W": "WIND_4", "P": "DRAGON_1", "F": "DRAGON_2", "C": "DRAGON_3",
                 **{f"f{n}": f"SEASON_{n}" for n in range(1, 5)}, **{f"f{n + 4}": f"FLOWER_{n}" for n in range(1, 5)}}
GNOME_STRIP = Path("/usr/share/gnome-mahjongg/themes/smooth.png")
GNOME_ORDER = ([f"{n}p" for n in range(1, 10)] + ["N", "W", "S", "E", "C", "F"] + [f"{n}m" for n in range(1, 10)]
               + [f"{n}s" for n in range(1, 10)] + ["f6", "f7", "f5", "f8", "P", "f1", "f2", "f3", "f4"])


def _on_ivory(rgba: np.ndarray) -> np.ndarray:
    if rgba.ndim == 2:
        rgba = cv2.cvtColor(rgba, cv2.COLOR_GRAY2BGR)
    if rgba.shape[2] == 3:
        return rgba
    a = rgba[..., 3:].astype(np.float32) / 255
    return (rgba[..., :3] * a + np.array([225, 240, 245]) * (1 - a)).astype(np.uint8)


@lru_cache(maxsize=1)
def tileset_faces() -> dict[str, tuple[np.ndarray, ...]]:
    """Faces of every code from the mahjongg tile sets installed (none when the packages are absent)."""
    faces: dict[str, list[np.ndarray]] = {}
    if GNOME_STRIP.exists():
        strip = cv2.imread(str(GNOME_STRIP), cv2.IMREAD_UNCHANGED)
        w = strip.shape[1] // 43
        for i, code in enumerate(GNOME_ORDER):
            tile = _on_ivory(strip[:strip.shape[0] // 2, i * w:(i + 1) * w])
            faces.setdefault(code, []).append(tile[4:-12, 4:-10])  # the face, without the tile's bevel
    if shutil.which("rsvg-convert"):
        with tempfile.TemporaryDirectory() as tmp:
            for name in KMAHJONGG_SETS:
                src = KMAHJONGG / f"{name}.svgz"
                if not src.exists():
                    continue
                svg = Path(tmp) / f"{name}.svg"
                svg.write_bytes(gzip.decompress(src.read_bytes()))
                for code, element in KMAHJONGG_IDS.items():
                    out = Path(tmp) / f"{name}_{element}.png"
                    subprocess.run(["rsvg-convert", f"--export-id={element}", "-h", "150", str(svg), "-o", str(out)],
                                   check=False, capture_output=True)
                    img = cv2.imread(str(out), cv2.IMREAD_UNCHANGED)
                    if img is not None and img.ndim == 3 and img.shape[2] == 4 and img[..., 3].any():
                        ys_, xs_ = np.nonzero(img[..., 3] > 20)  # the drawing's own extent, not the element's box
                        img = img[ys_.min():ys_.max() + 1, xs_.min():xs_.max() + 1]
                        face = np.empty((160, 120, 3), np.uint8)
                        face[:] = (225, 240, 245)
                        inner = cv2.resize(_on_ivory(img), (108, 150), interpolation=cv2.INTER_AREA)
                        face[5:155, 6:114] = inner
                        faces.setdefault(code, []).append(face)
    return {k: tuple(v) for k, v in faces.items()}


def tile_on_table(face: np.ndarray, rng: np.random.Generator, width: int) -> tuple[np.ndarray, tuple]:
    """The face on a tile (rounded corners, a coloured back showing at one edge), among neighbours' edges on a
    plain table, scaled to ``width`` px and slightly turned or foreshortened; returns the image and the tile box."""
    fh, fw = face.shape[:2]
    body = np.array([rng.integers(0, 256) for _ in range(3)], np.uint8)
    side = int(fh * rng.uniform(0.0, 0.18))
    table = np.array([rng.integers(20, 200) for _ in range(3)], np.uint8)
    margin = fw // 2
    canvas = np.empty((fh + side + 2 * margin, fw + 2 * margin + 2 * fw, 3), np.uint8)
    canvas[:] = table
    x0 = margin + fw
    for dx in (-fw - 3, fw + 3):  # neighbours: a sliver of another tile on each side, sometimes
        if rng.random() < 0.6:
            canvas[margin:margin + fh, x0 + dx:x0 + dx + fw] = face.mean(axis=(0, 1)).astype(np.uint8)
    canvas[margin + fh:margin + fh + side, x0:x0 + fw] = body
    canvas[margin:margin + fh, x0:x0 + fw] = face
    corner = max(2, fw // 12)
    for cx, cy in ((x0, margin), (x0 + fw - 1, margin)):  # rounded top corners
        cv2.circle(canvas, (cx, cy), corner, table.tolist(), -1)
    box = np.array([x0, margin, x0 + fw, margin + fh + side], np.float32)
    # a small turn and foreshortening, as seen by a phone held not quite square
    h, w = canvas.shape[:2]
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    jit = rng.uniform(-0.04, 0.04, (4, 2)) * [w / 3, h]
    dst = (src + jit).astype(np.float32)
    m = cv2.getPerspectiveTransform(src, dst)
    canvas = cv2.warpPerspective(canvas, m, (w, h), borderMode=cv2.BORDER_REPLICATE)
    corners = cv2.perspectiveTransform(np.float32([[[box[0], box[1]], [box[2], box[1]], [box[2], box[3]],
                                                    [box[0], box[3]]]]), m)[0]
    box = np.array([*corners.min(0), *corners.max(0)], np.float32)
    scale = width / fw
    canvas = cv2.resize(canvas, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    sigma = rng.uniform(0.2, 1.0)
    canvas = cv2.GaussianBlur(canvas, (0, 0), sigma)
    return canvas, tuple(box * scale)


def tinted(face: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A tile-set face with its ivory and ink a little off (tile sets differ in both)."""
    gain = rng.uniform(0.8, 1.1, 3)
    return np.clip(face.astype(np.float32) * gain, 0, 255).astype(np.uint8)


def synth_faces(n: int, seed: int, tileset_share: float = 0.4) -> tuple[np.ndarray, np.ndarray]:
    """``n`` classifier crops (64x64 BGR) of synthetic faces, every code but the back equally often, and labels;
    ``tileset_share`` of them from the installed mahjongg tile sets, the rest drawn here."""
    rng = np.random.default_rng(seed)
    sets = tileset_faces()
    xs, ys = [], []
    for i in range(n):
        code = SYNTH_CODES[i % len(SYNTH_CODES)]
        if code in sets and rng.random() < tileset_share:
            face = tinted(sets[code][int(rng.integers(len(sets[code])))], rng)
        else:
            face = draw_face(code, rng)
        img, box = tile_on_table(cv2.resize(face, (FACE_W, FACE_H)), rng, int(rng.integers(18, 90)))
        ok, enc = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(40, 95))])
        img = cv2.imdecode(enc, cv2.IMREAD_COLOR) if ok else img
        xs.append(tile_crop(img, box)[0])
        ys.append(CLASS_INDEX[code])
    return np.stack(xs), np.array(ys, np.int64)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=84)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="build/faces.png")
    args = ap.parse_args()
    xs, ys = synth_faces(args.n, args.seed)
    cols = 14
    pad = (-len(xs)) % cols
    xs = np.concatenate([xs, np.zeros((pad, *xs.shape[1:]), np.uint8)])
    sheet = np.vstack([np.hstack(list(xs[i:i + cols])) for i in range(0, len(xs), cols)])
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(args.out, cv2.resize(sheet, None, fx=2, fy=2, interpolation=cv2.INTER_NEAREST))
    print(f"{len(font_faces())} font faces, tile sets for {len(tileset_faces())} codes; wrote {args.out}")


if __name__ == "__main__":
    main()
