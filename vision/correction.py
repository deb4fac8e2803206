"""Rule-aware correction: the most probable reading that is physically possible and, for a win, legal.

A misread look-alike (2m/3m, 7s/9s, 1s/發) usually makes an impossible hand: five of a tile, a pung of
unequal tiles, a hand that does not win. Using the classifier's per-tile probabilities, a best-first search
over alternative readings finds the cheapest set of changes (lowest loss of log-probability) that makes
the hand possible, and reports each change.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from scoring import DEFAULT, Ruleset, as_ruleset
from scoring.rulesets.base import MELD_TEXT
from scoring.text import Text
from scoring.tiles import FLOWERS, INDEX, N_KINDS

from .classes import BACK, CLASSIFIER_CODES
from .detections import Detections
from .layout import (
    Layout,
    along_rows,
    best_meld_codes,
    flower_faces,
    log_prob,
    row_groups,
    rows_of,
)
from .said import Said, in_lang

EPS = 1e-6


@dataclass
class Correction:
    tile: int
    from_code: str
    to_code: str
    reason: str

    def to_json(self) -> dict[str, object]:
        return {"tile": self.tile, "from": self.from_code, "to": self.to_code, "reason": self.reason,
                "reason_zh": in_lang(self.reason, "zh")}


FLOWER_SURE = 0.5  # a tile whose flower classes hold this much probability is a flower, whatever the ruleset
FLOWER_CLASSES = np.array([INDEX[c] in FLOWERS for c in CLASSIFIER_CODES if c != "back"] + [False])


def allowed_mask(rules: Ruleset, flowers: bool = True) -> np.ndarray:
    """Classes that exist in the ruleset's tile set (its playing kinds and, with ``flowers``, its flowers; a
    face-down tile always)."""
    kinds = rules.tile_kinds() if flowers else frozenset(rules.playing_kinds)
    return np.array([c == "back" or INDEX[c] in kinds for c in CLASSIFIER_CODES], bool)


def restrict(det: Detections, rules: Ruleset | str) -> list[Correction]:
    """Zero the probabilities of faces the ruleset does not have; report the tiles whose reading changed.

    A tile the classifier is sure is a flower stays a flower in every ruleset (one without flowers sets it aside
    with a warning); only an unsure flower reading gives way to the ruleset's own faces."""
    if not len(det):
        return []
    rules = as_ruleset(rules)
    before = det.codes
    mask = np.broadcast_to(allowed_mask(rules), det.probs.shape).copy()
    sure_flower = det.probs[:, FLOWER_CLASSES].sum(1) >= FLOWER_SURE
    mask[np.ix_(sure_flower, FLOWER_CLASSES)] = True
    probs = det.probs * mask
    probs /= np.maximum(probs.sum(1, keepdims=True), EPS)
    det.probs = probs.astype(np.float32)
    return [Correction(i, a, b, Said(f"{rules.name} has no {a}, and the photo shows it only unsurely",
                                     f"{rules.title.zh}沒有 {a}，而照片上這張牌看不太清楚"))
            for i, (a, b) in enumerate(zip(before, det.codes)) if a != b]


def flowers_misread(det: Detections, layout: Layout, rules: Ruleset) -> list[int]:
    """Tiles read as flowers that are likelier misread faces: every one in a ruleset played without flowers (its
    set has none); in one with flowers, those lying in a group with faces (a player sets flowers apart), each
    further copy of a flower the set holds once (the surest copy stays), and one lying alone where no face lies
    apart as the winning tile (a 1s's bird, blurred, looks like a flower)."""
    flowers = flower_faces(rules)
    read = [i for i, c in enumerate(det.codes) if c in flowers and not det.unshown[i]]
    if not rules.flower_kinds:
        return read
    seen: set[str] = set()
    out = []
    for i in sorted(read, key=lambda i: -float(det.tile_confidence[i])):
        once = INDEX[det.codes[i]] in FLOWERS
        if i in layout.flowers_among_faces or i in layout.lone_flowers or (once and det.codes[i] in seen):
            out.append(i)
        seen.add(det.codes[i])
    return sorted(out)


def without_flowers(det: Detections, tiles: list[int], rules: Ruleset) -> Detections:
    """A copy of ``det`` where ``tiles`` may name only the ruleset's playing faces or a face-down tile (their
    flower readings' probability given to the rest)."""
    out = det.copy()
    probs = out.probs.copy()
    rows = np.array(tiles, int)
    probs[rows] *= allowed_mask(rules, flowers=False)
    probs[rows] /= np.maximum(probs[rows].sum(1, keepdims=True), EPS)
    out.probs = probs.astype(np.float32)
    return out


def face_up_stray_backs(det: Detections) -> list[Correction]:
    """Re-read as faces the tiles read face down outside a concealed kong (a group of four, at least two face
    down, none sideways): no other tile lies face down on the table, and the plain white dragon (P) looks
    like a tile's back."""
    if not len(det) or not det.face_down.any():
        return []
    down, side = det.face_down, det.sideways
    out = []
    stray = []
    flat = along_rows(det)  # groups read along slanted rows (the same tiles; the probabilities changed are det's)
    for row in rows_of(flat):
        for g in row_groups(flat, row):
            partner = second_back(det, g)
            if partner is not None:  # read face down as well: the group is a concealed kong
                was = det.codes[partner]
                det.probs[partner, BACK] = float(det.probs[partner].max()) * 1.01
                det.probs[partner] /= float(det.probs[partner].sum())
                down[partner] = True
                out.append(Correction(partner, was, "back", Said(
                    "four tiles apart with one face down: a concealed kong is likelier than four equal faces, so "
                    "this tile is read as its second face-down tile; check it",
                    "四張牌放在一邊、一張背面朝上：暗槓比四張相同牌面更可能，所以這張讀成暗槓的第二張背面；請檢查")))
            kong = len(g) == 4 and sum(down[i] for i in g) >= 2 and not any(side[i] for i in g)
            stray += [i for i in g if down[i] and not kong]
    for i in stray:
        det.probs[i, BACK] = 0.0
        det.probs[i] /= max(float(det.probs[i].sum()), EPS)
        out.append(Correction(i, "back", det.codes[i], Said(
            "a face-down tile lies outside a concealed kong: read as its most likely face",
            "背面朝上的牌不在暗槓中：讀成最可能的牌面")))
    return out


def second_back(det: Detections, g: list[int]) -> int | None:
    """In a group of four tiles apart, none sideways, with exactly one read face down: the tile that, read face
    down too, leaves two tiles read as one playing face and makes the group a concealed kong more probable than
    an exposed kong of four equal faces up; None when the exposed kong is likelier or the group is no such group.
    Glare turns a back pale enough to be read as the blank white dragon, and one lost back would break the kong."""
    down = [i for i in g if det.face_down[i]]
    if len(g) != 4 or len(down) != 1 or any(det.sideways[i] for i in g):
        return None
    lp = np.log(np.maximum(det.probs[g], EPS))
    faces = np.array([j for j in range(lp.shape[1]) if j != BACK])
    exposed = float(lp[:, faces].sum(0).max())
    best, partner = -np.inf, None
    for k, i in enumerate(g):
        if i in down:
            continue
        others = [m for m, t in enumerate(g) if t not in down and t != i]
        shown = {det.codes[g[m]] for m in others}
        if len(shown) != 1 or INDEX[shown.pop()] in FLOWERS:  # a kong shows two equal faces, never flowers
            continue
        score = float(lp[g.index(down[0]), BACK] + lp[k, BACK] + lp[np.ix_(np.array(others, int), faces)].sum(0).max())
        if score > best:
            best, partner = score, i
    return partner if best > exposed else None


def face_unshown_kongs(det: Detections, layout: Layout, codes: list[str], rules: Ruleset) -> list[Correction]:
    """A concealed kong laid fully face down shows no face: take the likeliest playing face that no other tile
    of the hand holds (a kong holds all four), so the hand can be scored; the score rarely depends on it, and
    its tiles come out as doubts for the player to check."""
    out = []
    for g in layout.groups:
        if g.kind != "meld" or g.meld_type != "kong_concealed" or any(codes[i] != "back" for i in g.tiles):
            continue
        held = {codes[i] for h in layout.groups for i in h.tiles if i not in g.tiles}
        faces = [j for j, c in enumerate(CLASSIFIER_CODES)
                 if c != "back" and INDEX[c] in rules.playing_set and c not in held]
        if not faces:
            continue
        logp = np.log(np.maximum(det.probs[np.ix_(g.tiles, faces)], EPS)).sum(0)
        face = CLASSIFIER_CODES[faces[int(np.argmax(logp))]]
        for i in g.tiles:
            out.append(Correction(i, "back", face, Said(
                "a concealed kong shows no face: took the likeliest face no other tile holds; check it",
                "暗槓看不到牌面：取其他牌沒有的最可能的牌；請檢查")))
            codes[i] = face
    return out


def fix_melds(det: Detections, layout: Layout, codes: list[str]) -> list[Correction]:
    """Make each meld's face-up tiles agree: the jointly most probable pung/kong tile or chow."""
    out = []
    for g in layout.groups:
        if g.kind != "meld":
            continue
        _, target = best_meld_codes(det, g.tiles, g.meld_type == "chow")
        for i, c in target.items():
            if codes[i] != c:
                meld = MELD_TEXT.get(g.meld_type or "", Text(str(g.meld_type), str(g.meld_type)))
                out.append(Correction(i, codes[i], c, Said(f"the tiles of a {g.meld_type} must match",
                                                           f"{meld.zh}的牌必須相符")))
                codes[i] = c
    return out


def _counts_ok(codes: list[str]) -> bool:
    seen: dict[str, int] = {}
    for c in codes:
        if c in ("back", "remove"):
            continue
        seen[c] = seen.get(c, 0) + 1
        if seen[c] > (1 if c.startswith("f") else 4):
            return False
    return True


def _wins(hand_codes: list[str], n_melds: int, rules: Ruleset) -> bool:
    """Whether these codes (concealed + winning tile) complete a hand with ``n_melds`` melds under the ruleset."""
    counts = [0] * N_KINDS
    for c in hand_codes:
        k = INDEX.get(c)
        if k is None or k not in rules.playing_kinds:
            return False
        counts[k] += 1
    return rules.is_complete(counts, n_melds)


def correct(det: Detections, layout: Layout, rules: Ruleset | str = DEFAULT, winning: bool = True, top_k: int = 4,
            max_changes: int = 3, budget: int = 3000) -> tuple[list[str], list[Correction], list[str]]:
    """The corrected codes of every tile, the corrections made and any warning.

    Constraints: at most 4 of a face (1 of each flower); with ``winning``, the concealed tiles plus the
    winning tile complete the hand with the melds shown. When the hand holds one or two tiles too many (a tile
    found twice, or something that is not a tile), dropping the least certain tiles is tried too; a dropped
    tile gets the code "remove".
    """
    rules = as_ruleset(rules)
    codes = det.codes
    corrections = fix_melds(det, layout, codes) + face_unshown_kongs(det, layout, codes, rules)
    hand_tiles = [i for g in layout.groups if g.kind in ("concealed", "winning_tile") for i in g.tiles]
    n_melds = sum(1 for g in layout.groups if g.kind == "meld")
    found = _search(det, layout, codes, hand_tiles, n_melds, rules, winning, top_k, max_changes, budget)
    unknown = [i for i in hand_tiles if det.unshown[i]]
    if found is None and unknown:  # faces the photo does not show (glare): any face of theirs, the rest as read
        found = _search(det, layout, codes, hand_tiles, n_melds, rules, winning, top_k, max_changes, budget,
                        only=unknown)
    if found is not None:
        return found[0], corrections + found[1], []
    surplus = len(hand_tiles) - (14 - 3 * n_melds)
    if winning and surplus in (1, 2):
        conf = det.tile_confidence
        winning_tile = {i for g in layout.groups if g.kind == "winning_tile" for i in g.tiles}
        # (never the tile set apart as the winning one: a hand without it is no hand)
        doubtful = sorted((i for i in hand_tiles if i not in winning_tile), key=lambda i: conf[i])[:2 + surplus]
        for drop in sorted(combinations(doubtful, surplus), key=lambda d: sum(conf[i] for i in d)):
            rest = [i for i in hand_tiles if i not in drop]
            trial = codes[:]
            for i in drop:
                trial[i] = "remove"
            found = _search(det, layout, trial, rest, n_melds, rules, winning, top_k, max_changes - surplus,
                            budget // 3)
            if found is not None:
                what = "one tile" if surplus == 1 else "two tiles"
                dropped = [Correction(i, codes[i], "remove", Said(
                    f"{what} too many: the least certain tile(s) whose removal makes the hand a legal win",
                    f"多了 {surplus} 張：拿掉最不確定的牌，手牌就是合法的胡牌")) for i in drop]
                return found[0], corrections + dropped + found[1], []
    return codes, corrections, [Said(f"no reading within {max_changes} changes makes this a legal "
                                     f"{'winning hand' if winning else 'tile set'}; check the tiles by hand",
                                     f"改動 {max_changes} 張以內都無法成為合法的{'胡牌' if winning else '牌組'}；"
                                     "請手動檢查牌")]


def _search(det: Detections, layout: Layout, codes: list[str], hand_tiles: list[int], n_melds: int, rules: Ruleset,
            winning: bool, top_k: int, max_changes: int, budget: int, only: list[int] | None = None
            ) -> tuple[list[str], list[Correction]] | None:
    """Best-first search over alternative readings, cheapest loss of log-probability first (changing only the
    tiles ``only`` when given)."""

    grouped = [i for g in layout.groups for i in g.tiles]  # tiles out of the hand (on the table) do not count

    def ok(cs: list[str]) -> bool:
        if not _counts_ok([cs[i] for i in grouped]):
            return False
        return not winning or _wins([cs[i] for i in hand_tiles], n_melds, rules)

    if ok(codes):
        return codes, []
    if max_changes <= 0:
        return None
    flowers = [i for g in layout.groups if g.kind == "flowers" for i in g.tiles]
    moves = _moves(det, codes, hand_tiles + flowers if only is None else only, flowers, rules, top_k)
    # combinations of moves in order of total cost: from (.., k) go to (.., k+1) and (.., k, k+1)
    heap: list[tuple[float, tuple[int, ...]]] = [(moves[0][0], (0,))] if moves else []
    seen = 0
    while heap and seen < budget:
        cost, combo = heapq.heappop(heap)
        seen += 1
        tiles = [moves[k][1] for k in combo]
        if len(set(tiles)) == len(tiles):
            trial = codes[:]
            for k in combo:
                trial[moves[k][1]] = moves[k][2]
            if ok(trial):
                return trial, _corrections(codes, [moves[k][1:] for k in combo], grouped, winning)
        last = combo[-1]
        if last + 1 < len(moves):
            heapq.heappush(heap, (cost - moves[last][0] + moves[last + 1][0], combo[:-1] + (last + 1,)))
            if len(combo) < max_changes:
                heapq.heappush(heap, (cost + moves[last + 1][0], combo + (last + 1,)))
    return None


def _moves(det: Detections, codes: list[str], editable: list[int], flowers: list[int], rules: Ruleset, top_k: int
           ) -> list[tuple[float, int, str]]:
    """Every single change (loss of log-probability, tile, face) of the ``editable`` tiles to one of their
    ``top_k`` likelier faces (a face not shown: any face), a flower staying a flower; cheapest first."""
    flower_kinds = rules.flower_kinds | set(FLOWERS)
    unshown = det.unshown
    moves: list[tuple[float, int, str]] = []
    for i in editable:
        base = log_prob(det, i, codes[i])
        order = np.argsort(-det.probs[i])[:None if unshown[i] else top_k + 1]  # a face not shown: any face
        for j in order:
            alt = CLASSIFIER_CODES[j]
            if alt == codes[i] or alt == "back" or det.probs[i, j] <= EPS:
                continue
            if (i in flowers) != (INDEX[alt] in flower_kinds):
                continue  # a flower stays a flower, a face stays a face
            moves.append((base - log_prob(det, i, alt), i, alt))
    moves.sort()
    return moves


def _corrections(codes: list[str], changes: list[tuple[int, str]], grouped: list[int], winning: bool
                 ) -> list[Correction]:
    """The changes (tile, face) a search kept, each with the reason the page shows."""
    out = []
    for i, alt in changes:
        why = Said("makes the hand a legal win", "改了才是合法的胡牌") if winning else \
            Said("no more than 4 of a tile", "同一種牌最多 4 張")
        if not _counts_ok([codes[j] for j in grouped]):
            why = Said(f"{codes[i]} would otherwise appear too often"
                       + ("; the change also completes the win" if winning else ""),
                       f"否則 {codes[i]} 張數太多" + ("；這樣改也湊成了胡牌" if winning else ""))
        out.append(Correction(i, codes[i], alt, why))
    return out
