"""Box geometry -> table layout: concealed hand, exposed melds, flowers, the winning tile set apart.

Rows are found by vertical overlap, groups by horizontal gaps within a row. A sideways tile marks a
claimed meld and its position (left / middle / right) names the feeder; face-down tiles mark a
concealed kong. Each claimed meld shows one sideways tile: melds laid edge to edge are cut apart where each has
one, and a part of a meld too short to be one takes the tile a narrow gap cut off it. Anything ambiguous becomes
a warning rather than a silent guess.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from itertools import permutations
from typing import Any

import numpy as np

from scoring import DEFAULT, Ruleset, as_ruleset
from scoring.rulesets.base import seat_of
from scoring.tiles import CODES
from scoring.tiles import FLOWERS as FLOWER_KINDS

from .classes import CLASS_INDEX
from .detections import Detections, aspects
from .geometry import levelled, row_angle
from .said import Said

FLOWERS = {CODES[k] for k in FLOWER_KINDS}  # f1-f8 lie apart as flowers in every ruleset


def flower_faces(rules: Ruleset) -> set[str]:
    """The codes read as flowers under a ruleset: f1-f8 in every one, and its own flower kinds (Nanjing's dragons)."""
    return FLOWERS | {CODES[k] for k in rules.flower_kinds}


@dataclass
class Group:
    """Tiles (indices into the Detections) that lie together, and what they are."""

    kind: str  # "concealed" | "meld" | "flowers" | "winning_tile"
    tiles: list[int]
    meld_type: str | None = None
    feeder: str | None = None  # "left" | "opposite" | "right" (seat relative to the winner), None if unknown
    row: int = 0

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"kind": self.kind, "tiles": self.tiles, "row": self.row}
        if self.kind == "meld":
            d["type"] = self.meld_type
            d["feeder"] = self.feeder
        return d


@dataclass
class Layout:
    groups: list[Group] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    apart: list[int] = field(default_factory=list)  # tiles left out of the hand (see ``apart_by_size``)
    apart_warnings: list[str] = field(default_factory=list)  # why they were (first among ``warnings`` too)
    # tiles read as flowers that lay in a group with faces (a player's flowers lie apart): maybe misread faces
    flowers_among_faces: list[int] = field(default_factory=list)
    # a flower lying alone where no face lies apart as the winning tile: maybe the winning tile misread
    lone_flowers: list[int] = field(default_factory=list)

    def group_of(self, n: int) -> list[int]:
        """Group index of each of n tiles (-1 for none)."""
        out = [-1] * n
        for gi, g in enumerate(self.groups):
            for t in g.tiles:
                out[t] = gi
        return out


def along_rows(det: Detections) -> Detections:
    """The detections with their boxes levelled along the rows' own direction (``crops.row_angle``) when the rows
    run at a slant (a photo turned in its plane), as they are otherwise: rows and groups are read on these.
    The same tiles in the same order; a copy when levelled."""
    angle = row_angle(det.xyxy)
    if not angle:
        return det
    flat = det[np.arange(len(det))]
    flat.xyxy = levelled(det.xyxy, angle)
    return flat


def rows_of(det: Detections) -> list[list[int]]:
    """Tiles grouped in rows by vertical overlap of their boxes (tilted rows follow their neighbours)."""
    n = len(det)
    if n == 0:
        return []
    c = det.centers
    sizes = det.sizes
    unit = float(np.median(np.minimum(sizes[:, 0], sizes[:, 1])))
    parent = list(range(n))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    x1, y1, x2, y2 = det.xyxy.T
    h = y2 - y1
    # (every pair at once: overlapping by half the lower box's height, less than four tiles apart)
    overlap = np.minimum(y2[:, None], y2[None]) - np.maximum(y1[:, None], y1[None])
    gap = np.maximum(x1[:, None], x1[None]) - np.minimum(x2[:, None], x2[None])
    linked = (overlap > 0.5 * np.minimum(h[:, None], h[None])) & (gap < 4.0 * unit)
    for i, j in zip(*np.nonzero(np.triu(linked, 1))):
        parent[find(int(i))] = find(int(j))
    rows: dict[int, list[int]] = {}
    for i in range(n):
        rows.setdefault(find(i), []).append(i)
    out = [sorted(r, key=lambda i: c[i, 0]) for r in rows.values()]
    out.sort(key=lambda r: float(np.mean(c[r, 1])))
    return out


def unit_and_gaps(det: Detections, row: list[int]) -> tuple[float, list[float]]:
    """A left-to-right row's tile width (the median short side, which a sideways tile shares) and the gaps between
    its neighbouring boxes, in pixels."""
    w = float(np.median(np.minimum(det.sizes[row, 0], det.sizes[row, 1])))
    return w, [float(det.xyxy[b, 0] - det.xyxy[a, 2]) for a, b in zip(row, row[1:])]


def split_groups(det: Detections, row: list[int], gap_ratio: float = 0.2) -> list[list[int]]:
    """Split a left-to-right row where a gap is wider than the typical gap by gap_ratio x tile width.

    Tiles of one group touch, so most gaps are the typical (median) one; boxes drawn a little loose or
    tight shift every gap alike, which is why the split is relative to the median gap.
    """
    if not row:
        return []
    w, gaps = unit_and_gaps(det, row)
    typical = min(float(np.median(gaps)), 0.1 * w) if gaps else 0.0
    groups = [[row[0]]]
    for b, gap in zip(row[1:], gaps):
        if gap > typical + gap_ratio * w:
            groups.append([])
        groups[-1].append(b)
    return groups


ODD_FACE = 0.05  # ``odd_end``: the end tile is no tile of the meld's face when the face is at most this likely
ODD_GAP = 0.05  # tile widths: the gap before that end tile is wider than the meld's other gaps by more than this


def odd_end(det: Detections, g: list[int]) -> list[list[int]]:
    """A group of four or five with a sideways tile (a claimed meld) whose tiles say it is two groups: a pung or
    an exposed kong of one face, then at one end a tile that is clearly another face (its face no more likely than
    ``ODD_FACE``) behind the group's widest gap. A box drawn a little wide, or a phone pitched steeply, closes the
    gap between a meld and the tile beside it (the winning tile); the faces and the widest gap split them again
    (the meld and a lone tile, as laid out). Any other group as it is."""
    if len(g) not in (4, 5) or det.face_down[g].any() or not det.sideways[g].any():
        return [g]
    codes, side = det.codes, det.sideways
    w, gaps = unit_and_gaps(det, g)
    n = len(g) - 1
    for end, rest, gap, others in ((0, g[1:], gaps[0], gaps[1:]), (n, g[:n], gaps[-1], gaps[:-1])):
        odd = g[end]
        faces = {codes[i] for i in rest}
        if side[odd] or len(faces) != 1 or codes[odd] in faces or codes[odd] == "back":
            continue
        face = faces.pop()
        if face in CLASS_INDEX and float(det.probs[odd, CLASS_INDEX[face]]) <= ODD_FACE \
                and gap > max(others) + ODD_GAP * w:
            return [[odd], rest] if end == 0 else [rest, [odd]]
    return [g]


SHORT_JOIN = 0.5  # tile widths: a meld's part and the tiles beside it lie closer than this


def short_melds_joined(det: Detections, groups: list[list[int]]) -> list[list[int]]:
    """A row's groups (left to right) with each group too short for a meld yet holding a sideways tile (no group
    of one or two tiles has one) joined to the neighbouring group that makes it a meld of three or four with one
    face (``_one_face``), the nearer first, where the gap between them is under ``SHORT_JOIN`` tile widths: a box
    drawn narrow opens a gap inside a meld (a phone pitched steeply) and cuts a tile off it."""
    out = [list(g) for g in groups]
    k = 0
    while k < len(out):
        g = out[k]
        if len(g) < 3 and det.sideways[g].any() and not det.face_down[g].any():
            w, _ = unit_and_gaps(det, g)
            near = sorted((float(det.xyxy[out[max(j, k)][0], 0] - det.xyxy[out[min(j, k)][-1], 2]), j)
                          for j in (k - 1, k + 1) if 0 <= j < len(out))
            for gap, j in near:
                both = out[min(j, k)] + out[max(j, k)]
                if gap < SHORT_JOIN * w and len(both) in (3, 4) and int(det.sideways[both].sum()) == 1 \
                        and not det.face_down[both].any() and _one_face(det, both):
                    out[min(j, k):max(j, k) + 1] = [both]
                    k = min(j, k)
                    break
        k += 1
    return out


def _laid_kong(det: Detections, g: list[int]) -> bool:
    """Whether four tiles are a concealed kong as laid out: a back at each end, one face twice between, none
    sideways."""
    down = det.face_down[g]
    return len(g) == 4 and bool(down[0] and down[3]) and not down[1:3].any() and not det.sideways[g].any() \
        and _one_face(det, g[1:3])


def kongs_joined(det: Detections, groups: list[list[int]]) -> list[list[int]]:
    """A row's groups (left to right) with two neighbours that together are a concealed kong as laid out (four
    tiles, none sideways, a back at each end and one face twice between) joined, where the gap between them is
    under ``SHORT_JOIN`` tile widths: a back lies face down only in a concealed kong, and a box drawn narrow (a
    phone held askew) opens a gap inside it, which would leave both backs stray."""
    out = [list(g) for g in groups]
    k = 0
    while k + 1 < len(out):
        both = out[k] + out[k + 1]
        if _laid_kong(det, both):
            w, _ = unit_and_gaps(det, both)
            if float(det.xyxy[out[k + 1][0], 0] - det.xyxy[out[k][-1], 2]) < SHORT_JOIN * w:
                out[k:k + 2] = [both]
        k += 1
    return out


def kongs_apart(det: Detections, groups: list[list[int]]) -> list[list[int]]:
    """A row's groups with each concealed kong as laid out (a back, one face twice, a back; none sideways) inside a
    longer group cut out of it: a concealed kong is those four tiles and no more, so the tiles before or after it
    lie touching it (melds laid edge to edge, a phone pitched steeply) and are groups of their own."""
    out: list[list[int]] = []
    for g in groups:
        rest = list(g)
        while len(rest) > 4:
            at = next((k for k in range(len(rest) - 3) if _laid_kong(det, rest[k:k + 4])), None)
            if at is None:
                break
            out += [p for p in (rest[:at], rest[at:at + 4]) if p]
            rest = rest[at + 4:]
        if rest:
            out.append(rest)
    return out


def row_groups(det: Detections, row: list[int]) -> list[list[int]]:
    """A left-to-right row's groups as a hand lies: cut at its gaps (``split_groups``); a concealed kong's parts
    joined across a gap a box drawn narrow opened (``kongs_joined``) and cut out of the tiles touching it
    (``kongs_apart``); a meld's part joined likewise (``short_melds_joined``); a lone tile touching a meld cut off
    it (``odd_end``) and melds laid edge to edge cut apart (``melds_touching``)."""
    groups = short_melds_joined(det, kongs_apart(det, kongs_joined(det, split_groups(det, row))))
    return [meld for g in groups for part in odd_end(det, g) for meld in melds_touching(det, part)]


def _sizes(n: int) -> list[list[int]]:
    """Every way to lay ``n`` tiles out as consecutive melds of three or four."""
    if n == 0:
        return [[]]
    return [[k] + rest for k in (3, 4) if k <= n for rest in _sizes(n - k)]


def _one_face(det: Detections, g: list[int]) -> bool:
    """Whether a meld's tiles read as one face repeated, or a run of three, each at least ``ODD_FACE`` likely."""
    _, codes = best_meld_codes(det, g, len(g) == 3)
    return bool(codes) and all(float(det.probs[i, CLASS_INDEX[c]]) > ODD_FACE for i, c in codes.items())


def melds_touching(det: Detections, g: list[int]) -> list[list[int]]:
    """Claimed melds laid edge to edge (a phone pitched steeply closes the gaps between them, and players lay them
    close): a group with two or more sideways tiles and none face down is cut into consecutive melds of three or
    four tiles, each with one sideways tile and one face (``_one_face``), at its widest gaps. Any other group, or one
    no such cut fits, as it is."""
    side = det.sideways
    if not 6 <= len(g) <= 16 or det.face_down[g].any() or int(side[g].sum()) < 2:  # (four melds at most)
        return [g]
    _, gaps = unit_and_gaps(det, g)
    best: tuple[float, list[list[int]]] | None = None
    for sizes in _sizes(len(g)):
        ends = np.cumsum(sizes)
        parts = [g[a:b] for a, b in zip([0, *ends[:-1]], ends)]
        if any(int(side[p].sum()) != 1 or not _one_face(det, p) for p in parts):
            continue
        narrowest = min(gaps[e - 1] for e in ends[:-1])
        if best is None or narrowest > best[0]:
            best = (narrowest, parts)
    return [g] if best is None else best[1]


FACES = [f"{r}{s}" for s in "mps" for r in range(1, 10)] + list("ESWNCFP")
RUNS = [[f"{r + k}{s}" for k in range(3)] for s in "mps" for r in range(1, 8)]


def log_prob(det: Detections, i: int, code: str) -> float:
    """Log-probability that tile i is ``code``; "remove" (a dropped surplus tile) costs nothing."""
    if code == "remove":
        return 0.0
    return math.log(max(float(det.probs[i, CLASS_INDEX[code]]), 1e-6))


def best_meld_codes(det: Detections, tiles: list[int], allow_chow: bool) -> tuple[str, dict[int, str]]:
    """The most probable reading of a claimed meld's face-up tiles: one repeated face, or a run (chow)."""
    up = [i for i in tiles if det.codes[i] != "back"]
    if not up:
        return "unknown", {}
    face = max(FACES, key=lambda c: sum(log_prob(det, i, c) for i in up))
    best = ("same", {i: face for i in up})
    best_lp = sum(log_prob(det, i, face) for i in up)
    if allow_chow and len(up) == 3 and len(tiles) == 3:
        for run in RUNS:
            for perm in permutations(run):
                lp = sum(log_prob(det, i, c) for i, c in zip(up, perm))
                if lp > best_lp:
                    best, best_lp = ("run", dict(zip(up, perm))), lp
    return best


def _meld_type(det: Detections, g: list[int], down: list[bool], allow_chow: bool) -> str | None:
    """The meld a group of 3-4 tiles is: from face-down tiles, else from its most probable codes."""
    n_down = sum(down)
    if len(g) == 4 and n_down >= 2:
        return "kong_concealed"
    if n_down:
        return None
    kind, codes = best_meld_codes(det, g, allow_chow)
    if kind == "run":
        return "chow"
    if not allow_chow and len(g) == 3:  # a run the photo shows clearly stays a run: never silently a pung
        kind2, codes2 = best_meld_codes(det, g, True)
        if kind2 == "run" and sum(log_prob(det, i, c) for i, c in codes2.items()) - \
                sum(log_prob(det, i, c) for i, c in codes.items()) > CLEAR_RUN:
            return "chow"
    return "pung" if len(g) == 3 else "kong_exposed"


CLEAR_RUN = 3.0  # log-probability margin (about 20x) by which a run must beat the best pung reading


SIZE_APART = 1.5  # a tile this many times larger or smaller than the photo's typical tile is not in the hand


def apart_by_size(det: Detections) -> list[int]:
    """Tiles much larger or smaller than the typical tile (by the short side of the box, which a sideways
    tile shares): a tile near the lens, or the wall or discards farther away, not part of the hand."""
    if len(det) < 5:
        return []
    short = det.sizes.min(1)
    typical = float(np.median(short))
    return [i for i in range(len(det)) if not typical / SIZE_APART <= short[i] <= typical * SIZE_APART]


WALL_BACKS = 0.8  # a row this much face down (and at least 6 long) is a wall, not a hand
HAND_ROWS_APART = 2.0  # rows of one hand lie within this many tile heights of each other
FLOWERS_APART = 4.0  # and its flowers within this many
PITCHED_SQUAT = 1.2  # rows whose tiles are at most this many times as tall as wide are seen pitched (both the
PITCHED_FARTHER = 0.6  # hand's main row and the other), and one farther off has tiles this size at least (flat: 0.75)
NEAREST = 0.85  # the hand's row has tiles at least this size of the largest long row's (``tile_size``)
STANDING_BOX = 1.15  # a box this many times as tall as wide holds a standing tile, not one lying at a slant
IN_LINE = 0.1  # tile heights: a tile lies in its row's line when its bottom or top edge is this close to the row's
LAID_OUT = 0.75  # the share of a row's tiles in line from which the row is laid out (a hand), not scattered
CLOSE_GAP = 0.5  # tile widths: neighbours in a row this close (or overlapping) touch, as a hand's tiles do
CLOSE_SET = 0.5  # the share of a row's neighbours touching from which the row is set close, as a hand is


def laid_out(det: Detections, row: list[int]) -> bool:
    """Whether a row's tiles lie in one line, as a hand is laid out (bottom or top edges on one straight line, a
    sideways tile's too), not scattered as discards lying at any angle are (their boxes' edges are uneven)."""
    box = det.xyxy[row]
    if len(box) < 3:
        return True
    unit = float(np.median(box[:, 3] - box[:, 1]))
    x = (box[:, 0] + box[:, 2]) / 2

    def in_line(edge: np.ndarray) -> np.ndarray:  # within IN_LINE of the straight line through the edges
        fit = np.polyval(np.polyfit(x, edge, 1), x)  # (a row at a slight slant runs straight)
        return np.abs(edge - fit) <= IN_LINE * unit

    cut = box[:, 1] <= 1.0  # a box cut by the photo's top edge has no top of its own to be in line
    return float((in_line(box[:, 3]) | (in_line(box[:, 1]) & ~cut)).mean()) >= LAID_OUT


def close_set(det: Detections, row: list[int]) -> bool:
    """Whether most neighbours along a left-to-right row touch, as a hand's tiles do (gaps only between its
    groups); discards that happen to lie in a line lie apart, more than half a tile from each other."""
    if len(row) < 3:
        return True
    unit, gaps = unit_and_gaps(det, row)
    return float((np.array(gaps) <= CLOSE_GAP * unit).mean()) >= CLOSE_SET


def tile_size(det: Detections, row: list[int]) -> float:
    """A row's tile size: the median short side of its standing boxes (taller than wide by ``STANDING_BOX``),
    of all its boxes where it has none. A box around a tile lying at a slant is larger than the tile, so a line of
    discards at every angle would look nearer the camera than the hand (held-out discards hand 28, seed 6: five
    discards in a line taken for the hand's row, and the hand read upside down)."""
    w, h = det.sizes[row].T
    short = np.minimum(w, h)
    standing = h >= STANDING_BOX * w
    return float(np.median(short[standing] if standing.any() else short))


def apart_from_hand(det: Detections, flower_codes: set[str] = FLOWERS, main: list[int] | None = None) -> list[int]:
    """Choose the hand on a table: of its rows of five or more tiles with about the largest tiles (nearest the
    camera; a wall of backs does not count), the longest; then the rows within two tile heights of it (rows of
    ``flower_codes`` within four), of the same tile size (where both rows' tiles are squat, seen pitched toward
    the table, a row farther off may be smaller), overlapping it sideways. Every other tile (the
    discards, the walls, other players' melds) is not the hand. A photo with no row of five or more tiles is
    left as is. ``main``: the hand's main row given (one of ``hand_rows``: the hand chooser tries each)."""
    if len(det) < 6:
        return []
    rows = rows_of(det)
    down = det.face_down
    short = det.sizes.min(1)
    height = det.sizes.max(1)
    centre = det.centers
    codes = det.codes

    def wall(r: list[int]) -> bool:
        return len(r) >= 6 and float(down[r].mean()) >= WALL_BACKS

    candidates = [r for r in rows if not wall(r)]
    long_rows = [r for r in candidates if len(r) >= 5]
    if main is not None:
        main = next((r for r in rows if set(r) == set(main)), main)
    elif not long_rows:
        return []
    else:
        # the hand is laid out in a line, its tiles touching (discards lying at any angle are scattered, and their
        # boxes larger than the tiles); it lies nearest the camera, so its tiles are the largest: of the long rows
        # with tiles of about the largest size (the walls and discards farther off are smaller), the longest, then
        # the lowest
        long_rows = ([r for r in long_rows if laid_out(det, r) and close_set(det, r)]
                     or [r for r in long_rows if laid_out(det, r)] or long_rows)
        sized = [(r, tile_size(det, r)) for r in long_rows]
        largest = max(s for _, s in sized)
        main = max((r for r, s in sized if s >= NEAREST * largest), key=lambda r: (len(r), float(centre[r, 1].mean())))
    size, unit = float(np.median(short[main])), float(np.median(height[main]))
    x1, x2 = float(det.xyxy[main, 0].min()) - 6 * unit, float(det.xyxy[main, 2].max()) + 6 * unit
    # a photo pitched toward the table (its tiles squat) shows a row farther off smaller than perspective-free rows
    pitched = unit <= PITCHED_SQUAT * size
    main_y = float(centre[main, 1].mean())
    hand = set(main)
    for r in candidates:
        if r is main:
            continue
        flowers = all(codes[i] in flower_codes for i in r)  # a player's flowers often lie a little farther off
        apart = (FLOWERS_APART if flowers else HAND_ROWS_APART) * unit
        row_y, row_size = float(centre[r, 1].mean()), float(np.median(short[r]))
        near = abs(row_y - main_y) <= apart
        # (both rows seen pitched: a row of another player's standing tiles farther off is seen upright)
        both = pitched and float(np.median(height[r])) <= PITCHED_SQUAT * row_size
        low, high = (PITCHED_FARTHER if both and row_y < main_y else 0.75), \
            (1 / PITCHED_FARTHER if both and row_y >= main_y else 1.33)
        alike = low <= row_size / max(size, 1e-6) <= high
        beside = float(det.xyxy[r, 2].max()) >= x1 and float(det.xyxy[r, 0].min()) <= x2
        if near and alike and beside:
            hand.update(r)
    return [i for i in range(len(det)) if i not in hand]


def hand_rows(det: Detections) -> list[list[int]]:
    """The rows that may be the hand's main row (``apart_from_hand``'s ``main``): rows of five or more tiles
    that are no wall of backs, in the boxes' order along their rows (``along_rows``)."""
    det = along_rows(det)
    down = det.face_down
    return [r for r in rows_of(det) if len(r) >= 5 and not (len(r) >= 6 and float(down[r].mean()) >= WALL_BACKS)]


def analyse(det: Detections, rules: Ruleset | str = DEFAULT, main: list[int] | None = None) -> Layout:
    """Group detections into concealed hand, melds, flowers and winning tile (see module doc); tiles of
    another size (``apart_by_size``) and tiles away from the hand's rows (``apart_from_hand``: discards, walls)
    are left out of every group, with a warning that says how many. ``main``: the hand's main row given (one of
    ``hand_rows``); the rows that go with it are the hand, of its size whatever the rest of the table's."""
    rules = as_ruleset(rules)
    det = along_rows(det)  # rows at a slant (a photo turned in its plane): grouped along their own direction
    flower_codes = flower_faces(rules)
    by_size = apart_by_size(det) if main is None else []
    keep = np.setdiff1d(np.arange(len(det)), by_size)
    away = [int(keep[i]) for i in apart_from_hand(det[keep], flower_codes, main)]
    apart = sorted(set(by_size) | set(away))
    if not apart:
        return _analyse(det, rules)
    keep = np.setdiff1d(np.arange(len(det)), apart)
    layout = _analyse(det[keep], rules)
    _renumbered(layout, keep)
    layout.apart = apart
    if by_size:
        layout.apart_warnings.append(Said(f"{len(by_size)} tile(s) much larger or smaller than the others (another "
                                          "part of the table?) left out of the hand",
                                          f"{len(by_size)} 張牌比其他牌大或小得多（桌上別處的牌？），未算入手牌"))
    if away:
        layout.apart_warnings.append(Said(f"{len(away)} tile(s) lie away from the hand (discards, a wall or another "
                                          "player's tiles) and were left out of it",
                                          f"{len(away)} 張牌不在手牌的行裡（棄牌、牌牆或別家的牌），未算入手牌"))
    layout.warnings[:0] = layout.apart_warnings
    return layout


def sub_layout(det: Detections, kept: list[int], rules: Ruleset | str = DEFAULT) -> Layout:
    """The layout of only the tiles ``kept`` (indices into ``det``), as ``analyse`` lays out the tiles it keeps;
    the other tiles are in no group. (The hand chooser tries such subsets.)"""
    rules = as_ruleset(rules)
    keep = np.array(kept, int)
    layout = _analyse(along_rows(det)[keep], rules)
    _renumbered(layout, keep)
    return layout


def _renumbered(layout: Layout, keep: np.ndarray) -> None:
    """A layout of the tiles ``keep`` of a reading, its tile numbers made the reading's own."""
    for g in layout.groups:
        g.tiles = [int(keep[i]) for i in g.tiles]
    layout.flowers_among_faces = [int(keep[i]) for i in layout.flowers_among_faces]
    layout.lone_flowers = [int(keep[i]) for i in layout.lone_flowers]


def chosen_layout(det: Detections, hand: list[int], rules: Ruleset | str = DEFAULT) -> Layout:
    """The layout of the tiles the player says are the hand (``hand``, indices into ``det``; the page's taps that
    move a group into the hand or out of it): the other tiles are on the table, with a warning that counts them.
    No size or row test and no chooser second-guesses the player's choice."""
    chosen = {int(i) for i in hand if 0 <= int(i) < len(det)}
    layout = sub_layout(det, sorted(chosen), rules) if chosen else Layout()
    layout.apart = [i for i in range(len(det)) if i not in chosen]
    if layout.apart:
        layout.apart_warnings.append(Said(f"{len(layout.apart)} tile(s) on the table, left out of the hand as you "
                                          "chose", f"你選擇把 {len(layout.apart)} 張桌上的牌排除在手牌之外"))
    layout.warnings[:0] = layout.apart_warnings
    return layout


def table_groups(det: Detections, tiles: list[int]) -> list[list[int]]:
    """The tiles left out of the hand (``tiles``, indices into ``det``) in the groups they lie in on the table
    (rows top to bottom, groups left to right): what one tap moves into the hand."""
    if not tiles:
        return []
    keep = np.array(sorted(tiles), int)
    sub = along_rows(det)[keep]
    return [[int(keep[i]) for i in g] for row in rows_of(sub) for g in split_groups(sub, row)]


def _analyse(det: Detections, rules: Ruleset) -> Layout:
    """The layout of tiles that all belong to the hand."""
    layout = Layout()
    if len(det) == 0:
        return layout
    rows = rows_of(det)
    if len(rows) > 2:
        layout.warnings.append(Said(f"tiles lie in {len(rows)} rows; expected the hand in one or two rows",
                                    f"牌排成 {len(rows)} 行；手牌應排成一行或兩行"))
    candidates = [(r, g) for r, row in enumerate(rows) for g in row_groups(det, row)]
    flowers, melds, rest = _sorted_groups(det, rules, candidates, layout)
    concealed, winning, row = _concealed_and_winning(det, rest, layout)
    layout.groups.append(Group("concealed", concealed, row=row))
    layout.groups += melds
    if flowers:
        layout.groups.append(Group("flowers", flowers))
    if winning:
        layout.groups.append(Group("winning_tile", winning))
    n_kongs = sum(1 for m in melds if m.meld_type and m.meld_type.startswith("kong"))
    expected = 14 + n_kongs
    got = len(det) - len(flowers)
    if got != expected:
        layout.warnings.append(Said(f"{got} tiles besides flowers, but a winning hand with {n_kongs} kong(s) has "
                                    f"{expected}: a tile may be missed, covered or doubled",
                                    f"花牌以外有 {got} 張牌，但有 {n_kongs} 個槓的胡牌應有 {expected} 張："
                                    "可能漏看、被擋住或重複算了一張"))
    return layout


def _sorted_groups(det: Detections, rules: Ruleset, candidates: list[tuple[int, list[int]]], layout: Layout
                   ) -> tuple[list[int], list[Group], list[tuple[int, list[int]]]]:
    """The groups of the rows sorted into flowers (tiles), melds, and the rest (row, tiles): the hand's concealed
    tiles and its winning tile."""
    codes = [c if not unshown else "?" for c, unshown in zip(det.codes, det.unshown)]  # an unshown face: no flower
    down = list(det.face_down)
    flower_codes = flower_faces(rules)
    flowers: list[int] = []
    melds: list[Group] = []
    rest: list[tuple[int, list[int]]] = []
    for r, g in candidates:
        gcodes = [codes[i] for i in g]
        if all(c in flower_codes or c == "?" for c in gcodes) and any(c in flower_codes for c in gcodes):
            flowers += g  # an unshown face among flowers is a flower (the correction picks which)
            if len(g) == 1:
                layout.lone_flowers += g
            continue
        if any(c in flower_codes for c in gcodes) and any(c not in flower_codes for c in gcodes):
            # flowers lying next to faces: take the flowers out, keep the rest
            among = [i for i in g if codes[i] in flower_codes]
            flowers += among
            layout.flowers_among_faces += among
            g = [i for i in g if codes[i] not in flower_codes]
            layout.warnings.append(Said("flowers lie next to other tiles; moved them to the flowers",
                                        "花牌和其他牌放在一起；已移到花牌"))
            gcodes = [codes[i] for i in g]
        meld = _as_meld(det, rules, r, g, gcodes, len(candidates), layout)
        if meld is not None:
            melds.append(meld)
            continue
        if sum(down[i] for i in g):
            n_down = sum(down[i] for i in g)
            layout.warnings.append(Said(f"{n_down} face-down tile(s) outside a concealed kong",
                                        f"{n_down} 張背面朝上的牌不在暗槓中"))
        rest.append((r, g))
    return flowers, melds, rest


def _as_meld(det: Detections, rules: Ruleset, row: int, g: list[int], gcodes: list[str], n_groups: int,
             layout: Layout) -> Group | None:
    """The group as a meld (its shape, and its feeder from the sideways tile), or None where it is none: a meld
    shows a sideways tile, is a concealed kong, or is a pung or kong among more than two groups."""
    down, side = det.face_down, det.sideways
    shape = _meld_type(det, g, [bool(down[i]) for i in g], rules.allows_chow) if len(g) in (3, 4) else None
    sideways = [k for k, i in enumerate(g) if side[i]]
    same = len(set(gcodes)) == 1 and shape in ("pung", "kong_exposed")
    if not (shape and (sideways or shape == "kong_concealed" or (same and n_groups > 2))):
        return None
    feeder = None
    if shape != "kong_concealed":
        if sideways:
            # a claimed meld shows one sideways tile; where squat standing tiles (a pitched phone) are taken for
            # sideways too, the one lying widest for its height is it (composed handheld hand 16 at seed 1)
            aspect = aspects(det.xyxy[g])
            pos = max(sideways, key=lambda k: float(aspect[k]))
            feeder = "left" if pos == 0 else "right" if pos == len(g) - 1 else "opposite"
            if len(g) == 4 and pos in (1, 2):
                feeder = "opposite"
        else:
            layout.warnings.append(Said(f"meld {' '.join(gcodes)} has no sideways tile: its feeder is unknown",
                                        f"副露 {' '.join(gcodes)} 沒有橫放的牌：不知道是誰打出的"))
    if shape == "chow" and len(rules.chow_from) == 1:
        feeder = next(iter(rules.chow_from))  # the only seat a chow can come from
    if shape == "chow" and not rules.allows_chow:
        layout.warnings.append(Said(f"{' '.join(gcodes)} looks like a chow, and {rules.name} has no chow: "
                                    "check the tiles or the ruleset",
                                    f"{' '.join(gcodes)} 看起來是吃，但{rules.title.zh}不能吃：請檢查牌或規則"))
    return Group("meld", g, shape, feeder, row)


def _concealed_and_winning(det: Detections, rest: list[tuple[int, list[int]]], layout: Layout
                           ) -> tuple[list[int], list[int], int]:
    """The concealed tiles (rows top to bottom, left to right), the winning tile (a lone tile set apart; else the
    rightmost), and the concealed tiles' row."""
    singles = [(r, g) for r, g in rest if len(g) == 1]
    main = [(r, g) for r, g in rest if len(g) > 1]
    winning: list[int] = []
    if len(singles) == 1 and main:
        winning = singles[0][1]
    elif singles and main:
        layout.warnings.append(Said(f"{len(singles)} lone tiles lie apart; took the rightmost as the winning tile",
                                    f"有 {len(singles)} 張單獨分開的牌；取最右邊的一張當胡的牌"))
        r, g = max(singles, key=lambda s: det.xyxy[s[1][0], 0])
        winning = g
        main += [s for s in singles if s[1] != g]
    else:
        main += singles
    concealed = [i for _, g in sorted(main, key=lambda m: (m[0], det.xyxy[m[1][0], 0])) for i in g]
    if not winning and concealed:
        layout.warnings.append(Said("no tile set apart as the winning tile; assumed the rightmost tile of the hand",
                                    "沒有分開放的胡牌；假定手牌最右邊的一張是胡的牌"))
        winning = [concealed.pop()]
    elif winning:
        layout.lone_flowers = []  # a face lies apart as the winning tile: a lone flower is just a flower
    return concealed, winning, main[0][0] if main else 0


def meld_tiles(meld_type: str, tiles: list[str]) -> list[str]:
    """A meld's codes as the hand holds them: a pung or kong is its face repeated (its face-down tiles show no
    face); a chow, or a meld with no face up, as read."""
    faces = [c for c in tiles if c != "back"]
    if meld_type != "chow" and faces:
        return [faces[0]] * (3 if meld_type == "pung" else 4)
    return tiles


def to_hand(det: Detections, layout: Layout, winner: int = 0, codes: list[str] | None = None
            ) -> dict[str, Any] | None:
    """The RULES.md hand object of a layout (None when a tile code is unknown, e.g. an all face-down kong)."""
    codes = codes or det.codes
    hand: dict[str, Any] = {"concealed": [], "melds": [], "winning_tile": None, "flowers": []}
    for g in layout.groups:
        tiles = [codes[i] for i in g.tiles if codes[i] != "remove"]
        if not tiles:
            continue
        if g.kind == "concealed":
            hand["concealed"] = tiles
        elif g.kind == "flowers":
            hand["flowers"] = tiles
        elif g.kind == "winning_tile":
            hand["winning_tile"] = tiles[0]
        else:
            if all(c == "back" for c in tiles):
                return None
            tiles = meld_tiles(g.meld_type or "pung", tiles)
            feeder = None if g.meld_type == "kong_concealed" else seat_of(winner, g.feeder or "left")
            hand["melds"].append({"type": g.meld_type, "tiles": tiles, "from": feeder})
    if any(c == "back" for c in hand["concealed"] + hand["flowers"]) or hand["winning_tile"] in (None, "back"):
        return None
    return hand
