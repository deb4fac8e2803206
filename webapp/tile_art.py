"""Tile pictures: real faces from a public-domain (CC0) set (``tiles/``, licence and source beside them), flowers
and seasons drawn on its front, and a code-drawn fallback (OpenCV shapes, no font file) for anything else; and
the hand laid out as tiles in table order, with the photo's own crops under it."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from .state import HandState

W, H = 48, 64
IVORY, EDGE, INK = (236, 244, 248), (150, 160, 170), (40, 40, 40)
RED, GREEN, BLUE = (40, 40, 200), (60, 140, 40), (170, 90, 30)  # BGR
FONT = cv2.FONT_HERSHEY_DUPLEX
# circle positions (x, y in a 0..1 box) for 1p..9p, as the tiles lay them out
DOTS = {1: [(.5, .5)], 2: [(.5, .28), (.5, .72)], 3: [(.25, .22), (.5, .5), (.75, .78)],
        4: [(.3, .3), (.7, .3), (.3, .7), (.7, .7)], 5: [(.28, .25), (.72, .25), (.5, .5), (.28, .75), (.72, .75)],
        6: [(.3, .22), (.7, .22), (.3, .5), (.7, .5), (.3, .78), (.7, .78)],
        7: [(.22, .18), (.5, .28), (.78, .38), (.3, .6), (.7, .6), (.3, .82), (.7, .82)],
        8: [(.3, .17), (.7, .17), (.3, .39), (.7, .39), (.3, .61), (.7, .61), (.3, .83), (.7, .83)],
        9: [(x, y) for y in (.2, .5, .8) for x in (.22, .5, .78)]}


def _text(img: np.ndarray, text: str, colour: tuple[int, int, int], scale: float, y: float) -> None:
    (tw, th), _ = cv2.getTextSize(text, FONT, scale, 2)
    cv2.putText(img, text, ((W - tw) // 2, int(H * y + th / 2)), FONT, scale, colour, 2, cv2.LINE_AA)


ART = Path(__file__).resolve().parent / "tiles"  # real tile faces (CC0, see tiles/SOURCE.md), 96 x 128
ART_W, ART_H = 96, 128


@lru_cache(maxsize=64)
def art(code: str) -> np.ndarray | None:
    """A tile's real face as a BGR picture (ART_W x ART_H): the CC0 set's (``tiles/``), the white dragon with
    the blue frame Chinese sets give it, flowers and seasons drawn on the set's front; None for anything else."""
    path = ART / f"{'P' if code == 'P' else code}.png"
    if code.startswith("f") and code[1:].isdigit() and 1 <= int(code[1:]) <= 8:
        return _flower(code)
    if not path.exists():
        return None
    img = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if code == "P" and img is not None:  # a Chinese set's white dragon: a blue frame on the blank face
        cv2.rectangle(img, (22, 26), (ART_W - 23, ART_H - 27), BLUE, 5, cv2.LINE_AA)
    return img


def _flower(code: str) -> np.ndarray | None:
    """A season (f1-f4 春夏秋冬, red) or flower (f5-f8 梅蘭菊竹, green) on the set's front: its number and a
    five-petal flower."""
    front = cv2.imread(str(ART / "front.png"), cv2.IMREAD_COLOR)
    if front is None:
        return None
    n = int(code[1:])
    colour = RED if n <= 4 else GREEN
    (tw, th), _ = cv2.getTextSize(str(n), FONT, 1.5, 3)
    cv2.putText(front, str(n), ((ART_W - tw) // 2, 22 + th), FONT, 1.5, colour, 3, cv2.LINE_AA)
    cx, cy = ART_W // 2, int(ART_H * 0.66)
    for k in range(5):
        a = 2 * np.pi * k / 5 - np.pi / 2
        cv2.circle(front, (int(cx + 15 * np.cos(a)), int(cy + 15 * np.sin(a))), 10, colour, -1, cv2.LINE_AA)
    cv2.circle(front, (cx, cy), 7, (40, 190, 230), -1, cv2.LINE_AA)
    return front


@lru_cache(maxsize=128)
def tile(code: str) -> np.ndarray:
    """One tile as a BGR picture (W x H): its real face where the art has it, else drawn by code."""
    real = art(code)
    if real is not None:
        return cv2.resize(real, (W, H), interpolation=cv2.INTER_AREA)
    img = np.full((H, W, 3), 255, np.uint8)
    face = (GREEN if code == "back" else IVORY)
    cv2.rectangle(img, (1, 1), (W - 2, H - 2), face, -1)
    cv2.rectangle(img, (1, 1), (W - 2, H - 2), EDGE, 1)
    if code == "back" or not code:
        return img
    suit, rank = code[-1], code[:-1]
    if suit == "m" and rank.isdigit():
        _text(img, rank, INK, 1.0, .32)
        _text(img, "m", RED, 0.9, .72)
    elif suit == "p" and rank.isdigit():
        for x, y in DOTS[int(rank)]:
            c = (int(6 + x * (W - 12)), int(6 + y * (H - 12)))
            cv2.circle(img, c, 7 if rank == "1" else 5, BLUE if rank != "1" else RED, -1, cv2.LINE_AA)
            cv2.circle(img, c, 2, IVORY, -1, cv2.LINE_AA)
    elif suit == "s" and rank.isdigit():
        n = int(rank)
        cols = 1 if n == 1 else 2 if n in (2, 4) else 3
        rows = -(-n // cols)
        for i in range(n):
            cx = int(W * (i % cols + 1) / (cols + 1))
            top = int(8 + (i // cols) * (H - 16) / rows)
            bottom = int(top + (H - 16) / rows - 3)
            cv2.line(img, (cx, top), (cx, bottom), RED if n == 1 or (n in (5, 7, 9) and i == n // 2) else GREEN, 4)
    elif code in ("E", "S", "W", "N"):
        _text(img, code, INK, 1.3, .5)
    elif code == "C":
        _text(img, "C", RED, 1.3, .5)
    elif code == "F":
        _text(img, "F", GREEN, 1.3, .5)
    elif code == "P":
        cv2.rectangle(img, (9, 10), (W - 10, H - 11), BLUE, 2)
    elif code.startswith("f"):
        _text(img, code[1:], RED if int(code[1:]) <= 4 else GREEN, 1.0, .3)
        for k in range(5):
            a = 2 * np.pi * k / 5
            cv2.circle(img, (int(W / 2 + 8 * np.cos(a)), int(H * .7 + 8 * np.sin(a))), 4, RED, -1, cv2.LINE_AA)
    else:  # the blank ghost, or anything else
        _text(img, "G", (120, 120, 120), 1.1, .5)
    return img


def photo_crops(image: np.ndarray, boxes: np.ndarray, groups: list[list[int]], photo_size: tuple[int, int],
                per_row: int | None = None) -> np.ndarray | None:
    """The user's own tiles, cut from the (downsized, RGB) photo, in the reading's group order and tile size (in
    rows of ``per_row``, as the hand's picture)."""
    if not groups or image is None:
        return None
    s = image.shape[1] / max(photo_size[0], 1)
    tiles, gaps = [], []
    for g in groups:
        for k, i in enumerate(g):
            x1, y1, x2, y2 = (int(round(v * s)) for v in boxes[i])
            crop = image[max(0, y1):max(y1 + 1, y2), max(0, x1):max(x1 + 1, x2)]
            if crop.size == 0:
                continue
            landscape = crop.shape[1] > crop.shape[0]
            tw, th = (H, W) if landscape else (W, H)
            tiles.append(cv2.resize(np.ascontiguousarray(crop[..., ::-1]), (tw, th), interpolation=cv2.INTER_AREA))
            gaps.append(k == 0 and bool(tiles[:-1]))
    return _rows(tiles, gaps, per_row)[..., ::-1] if tiles else None


PER_ROW = 9  # tiles a phone row holds at 36+ CSS px each (390 px wide, the page's margins taken off)


def _rows(tiles: list[np.ndarray], gap_before: list[bool], per_row: int | None) -> np.ndarray:
    """The tiles in rows of at most ``per_row`` (None: one row), a group moved whole to the next row when it does
    not fit in what is left of one, and split only when it is longer than a row; rows left-aligned."""
    if per_row is None or len(tiles) <= per_row:
        return _row(tiles, gap_before)
    starts = [i for i, g in enumerate(gap_before) if g or i == 0] + [len(tiles)]
    rows: list[list[int]] = [[]]
    for a, b in zip(starts, starts[1:]):
        group = list(range(a, b))
        if rows[-1] and len(rows[-1]) + len(group) > per_row:
            rows.append([])
        for i in group:
            if len(rows[-1]) == per_row:
                rows.append([])
            rows[-1].append(i)
    pictures = [_row([tiles[i] for i in r], [bool(k) and gap_before[i] for k, i in enumerate(r)]) for r in rows]
    width = max(p.shape[1] for p in pictures)
    spaced = []
    for p in pictures:
        spaced.append(np.hstack([p, np.full((p.shape[0], width - p.shape[1], 3), 255, np.uint8)]))
        spaced.append(np.full((8, width, 3), 255, np.uint8))
    return np.vstack(spaced[:-1])


def _row(tiles: list[np.ndarray], gap_before: list[bool]) -> np.ndarray:
    height = max(t.shape[0] for t in tiles)
    parts = []
    for t, gap in zip(tiles, gap_before):
        if gap:
            parts.append(np.full((height, 14, 3), 255, np.uint8))
        pad = np.full((height - t.shape[0], t.shape[1], 3), 255, np.uint8)
        parts.append(np.vstack([pad, t]))
        parts.append(np.full((height, 2, 3), 255, np.uint8))
    return np.hstack(parts)


SIDEWAYS_AT = {"left": 0, "opposite": 1, "right": -1}


def row_of(tiles: list[np.ndarray], gap_before: list[bool]) -> np.ndarray:
    """Tile pictures in one RGB row, with a gap before each group."""
    return _row(tiles, gap_before)[..., ::-1]


def kong_tiles(code: str, concealed: bool, sideways: int | None = None) -> list[np.ndarray]:
    """A kong's four tiles as the hand's picture draws them: a concealed one face down at both ends, a fed one
    with the tile at ``sideways`` turned (the feeder's side)."""
    codes = ["back", code, code, "back"] if concealed else [code] * 4
    out = [tile(c) for c in codes]
    if sideways is not None:
        out[sideways % 4] = cv2.rotate(out[sideways % 4], cv2.ROTATE_90_COUNTERCLOCKWISE)
    return out


def hand_picture(hand: HandState, per_row: int | None = None) -> np.ndarray | None:
    """The hand in table order as one RGB picture: concealed tiles, the winning tile set apart, each meld with
    its sideways tile marking the feeder (left: first, opposite: middle, right: last), then the flowers; in rows
    of at most ``per_row`` tiles (a phone: ``PER_ROW``), else one row."""
    tiles: list[np.ndarray] = []
    gaps: list[bool] = []

    def group(codes: list[str], sideways: int | None = None) -> None:
        for i, c in enumerate(codes):
            t = tile(c)
            if sideways is not None and i == (sideways % len(codes)):
                t = cv2.rotate(t, cv2.ROTATE_90_COUNTERCLOCKWISE)
            tiles.append(t)
            gaps.append(i == 0 and bool(tiles[:-1]))

    group(hand.concealed)
    if hand.winning:
        group([hand.winning])
    for m in hand.melds:
        codes = list(m.tiles)
        if m.type == "kong_concealed" and len(codes) == 4:
            codes = ["back", codes[1], codes[2], "back"]
        group(codes, None if m.feeder is None or m.type == "kong_concealed" else SIDEWAYS_AT[m.feeder])
    group(hand.flowers)
    if not tiles:
        return None
    return _rows(tiles, gaps, per_row)[..., ::-1]


@lru_cache(maxsize=512)
def tile_png(code: str, sideways: bool = False, doubt: bool = False) -> str:
    """One tile as a PNG data URI (turned for a meld's sideways tile; a red corner where the reader doubts it),
    for the page's tappable tile pictures (a Markdown image in a pill)."""
    import base64

    real = art(code)
    img = real.copy() if real is not None else cv2.resize(tile(code), (ART_W, ART_H), interpolation=cv2.INTER_CUBIC)
    if doubt:
        cv2.circle(img, (ART_W - 16, 16), 14, RED, -1, cv2.LINE_AA)
        cv2.putText(img, "?", (ART_W - 24, 26), cv2.FONT_HERSHEY_SIMPLEX, 0.9, (255, 255, 255), 2, cv2.LINE_AA)
    if sideways:
        img = cv2.rotate(img, cv2.ROTATE_90_COUNTERCLOCKWISE)
    ok, png = cv2.imencode(".png", img)
    return "data:image/png;base64," + base64.b64encode(png.tobytes()).decode()


def tile_md(code: str, alt: str, sideways: bool = False, doubt: bool = False) -> str:
    """A tile picture as a widget label (Markdown image; ``alt`` is what a screen reader says)."""
    clean = alt.replace("[", "(").replace("]", ")")
    return f"![{clean}]({tile_png(code, sideways, doubt)})"
