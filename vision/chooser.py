"""Choose the hand among the tiles on the table by the rules: other players' melds lie in line with the hand.

At a real table another player's exposed melds lie beside the winner's, in the same row and at the same scale;
the layout alone takes them into the hand, which then holds too many tiles to be any winning hand. Here the
groups at the ends of the hand's rows (and whole rows apart from the longest) are left out in turn, and of the
readings whose tile count fits and that the rule-aware correction makes a legal winning hand, the one that
needs the fewest changes wins; ties go to the cuts through gaps wider than the hand's own (in steps of
``GAP_STEP``), then to leaving out fewer tiles.
The tiles left out are reported as on the table, with a warning that counts them. Flowers lie aside and no cut
takes them, but a tile read as a flower among a left-out group's faces (another player's tile misread) goes out
with its group.

Where no reading of the rows the layout took is a legal win, the hand may be another row of the table: the
layout takes the row of the largest tiles, and discards lying at a slant have larger boxes than the hand's
tiles. Each other long row is then tried as the hand's (``choose_row``), as laid out and with end groups left
out; of those that make a legal winning hand, the one with the fewest changes wins, then the row nearest the
camera.
"""

from __future__ import annotations

from itertools import islice, product

import numpy as np

from scoring import Ruleset

from .correction import Correction, correct
from .detections import Detections
from .layout import Layout, along_rows, analyse, flower_faces, hand_rows, laid_out, rows_of, split_groups, sub_layout
from .said import Said

MOST_PER_END = 2  # groups left out at most at each end of a row
MOST_TRIALS = 30  # readings corrected at most (each a rule-aware search), of a winning hand's tile count
MOST_LAID = 200  # ways of leaving groups out laid out at most, fewest tiles left out first
TRIAL_BUDGET = 500  # readings each search weighs (the reading as laid out is searched with 3000)
MOST_ROWS_CUT = 3  # rows whose end groups are tried (the largest); the others are kept or left out whole
MOST_CUTS = 4000  # ways of leaving groups out, at most
MOST_ROWS = 6  # other rows tried as the hand's main row, at most (nearest the camera first)
INSIDE_FLOWERS = 2.0  # tile widths counted against a cut that takes a group between the hand and its flowers
OWN_ROW = 1.0  # tile widths counted against leaving out a whole row laid out in line nearer the camera than the
# longest: the hand's second row (its melds); other players' melds lie in line with the hand, discards beyond it
HAND_GAP = 0.8  # tile widths: a cut through a wider gap counts for it (another player's meld lies apart), one
# through a narrower gap against it (the gaps between the hand's own groups)
GAP_STEP = 0.15  # tile widths: cuts whose gaps differ by less are as good (a few pixels are no evidence), and the
# one leaving out fewer tiles wins (composed neighbours hands 12 and 31, seed 1: a kong traded for another's pung)


def end_cuts(det: Detections, tiles: list[int], flowers: frozenset[str] = frozenset()
             ) -> list[tuple[set[int], float]]:
    """The ways to leave out groups at the ends of the rows (or a whole row other than the longest) of these
    tiles: each the tiles left out and how far the gaps its cuts run through are wider than ``HAND_GAP``, in tile
    widths, summed (another player's meld lies farther from the hand than the hand's groups from each other).
    Leaving out any of a row laid out in line nearer the camera than the longest (the hand's melds in a second
    row) counts ``OWN_ROW`` against a cut.

    A group of ``flowers`` codes is the hand's own and stays: a cut is measured at the gap before the innermost
    group it takes that is not flowers, and a cut that takes a group lying between the hand and its flowers
    counts ``INSIDE_FLOWERS`` against it (another player's meld lies beyond the hand's flowers, not before)."""
    sub = along_rows(det[np.array(tiles, int)])
    rows = [[[tiles[i] for i in g] for g in split_groups(sub, row)] for row in rows_of(sub)]
    width = float(np.median(np.minimum(sub.sizes[:, 0], sub.sizes[:, 1]))) if len(sub) else 1.0
    index = {t: i for i, t in enumerate(tiles)}
    longest = max(range(len(rows)), key=lambda r: sum(map(len, rows[r]))) if rows else 0

    def gap(a: list[int], b: list[int]) -> float:  # between a's last tile and b's first, b beyond a either way
        ta, tb = sub.xyxy[index[a[-1]]], sub.xyxy[index[b[0]]]
        return float(max(tb[0] - ta[2], ta[0] - tb[2])) / max(width, 1e-6)

    codes = det.codes  # (a property that reads every box's class: once, not per group and cut)

    def is_flowers(g: list[int]) -> bool:
        return all(codes[t] in flowers for t in g)

    def end_cut(groups: list[list[int]], k: int) -> float:
        """What leaving out the k groups at the right end of ``groups`` counts for (see the doc)."""
        taken = groups[len(groups) - k:]
        inner = next((i for i, g in enumerate(taken) if not is_flowers(g)), None)
        if inner is None:
            return 0.0  # only flowers: nothing is left out
        first = len(groups) - k + inner
        inside = any(is_flowers(g) for g in taken[inner + 1:])
        return gap(groups[first - 1], groups[first]) - HAND_GAP - (INSIDE_FLOWERS if inside else 0.0)

    own = own_rows(sub, [[index[t] for g in row for t in g] for row in rows], longest)
    per_row: list[list[tuple[set[int], float]]] = []
    for r, groups in enumerate(rows):
        owned = -OWN_ROW if r in own else 0.0  # the hand's second row: none of it is another's
        options: list[tuple[set[int], float]] = [(set(), 0.0)]
        mirrored = [list(reversed(g)) for g in reversed(groups)]
        for left in range(min(MOST_PER_END, len(groups) - 1) + 1):
            for right in range(min(MOST_PER_END, len(groups) - 1 - left) + 1):
                if left == right == 0:
                    continue
                out = {t for g in groups[:left] + groups[len(groups) - right:] for t in g}
                cut = (end_cut(mirrored, left) if left else 0.0) + (end_cut(groups, right) if right else 0.0)
                options.append((out, cut + owned))
        if r != longest:
            options.append(({t for g in groups for t in g}, owned))
        per_row.append(options)
    return combined(per_row, [sum(map(len, row)) for row in rows], longest)


def own_rows(sub: Detections, rows: list[list[int]], longest: int) -> set[int]:
    """The rows (each a list of ``sub``'s boxes) that are the hand's own second row: three tiles or more laid out
    in line (not scattered discards), nearer the camera than the ``longest`` row."""
    main = float(sub.centers[rows[longest], 1].mean()) if rows else 0.0
    return {r for r, row in enumerate(rows) if r != longest and len(row) >= 3 and laid_out(sub, row)
            and float(sub.centers[row, 1].mean()) > main}


def combined(per_row: list[list[tuple[set[int], float]]], sizes: list[int], longest: int
             ) -> list[tuple[set[int], float]]:
    """Every way of taking one option per row (its tiles left out, what it counts for), at most ``MOST_CUTS``;
    rows past the ``MOST_ROWS_CUT`` largest (scattered discards each make a row) are kept or left out whole."""
    order = sorted(range(len(sizes)), key=lambda r: -sizes[r])
    for r in order[MOST_ROWS_CUT:]:
        per_row[r] = [per_row[r][0], per_row[r][-1]] if r != longest else per_row[r][:1]
    cuts = []
    for combo in islice(product(*per_row), MOST_CUTS):
        out = set().union(*(o for o, _ in combo))
        if out:
            cuts.append((out, sum(c for _, c in combo)))
    return cuts


def changes(corrections: list[Correction]) -> int:
    """How many tiles a correction changed (a tile dropped as a surplus counts)."""
    return sum(1 for c in corrections if c.from_code != c.to_code)


def fits(layout: Layout) -> bool:
    """Whether a layout holds a winning hand's tile count: the concealed tiles and the winning tile are 14 less
    three per meld (every meld, a kong too, stands for one set)."""
    hand = sum(len(g.tiles) for g in layout.groups if g.kind in ("concealed", "winning_tile"))
    melds = sum(1 for g in layout.groups if g.kind == "meld")
    return melds <= 4 and hand == 14 - 3 * melds


def claimable(layout: Layout, codes: list[str], rules: Ruleset) -> bool:
    """Whether every meld of ``layout`` (its tiles read as ``codes``) is one ``rules`` lets a player claim: a
    meld of three different faces is a chow, which a ruleset without chows never has (held-out neighbours hand 47,
    seed 6: another player's chow beside a Nanjing hand taken into it, and the hand's own pung left out)."""
    return rules.allows_chow or all(len(g.tiles) != 3 or len({codes[t] for t in g.tiles}) == 1
                                    for g in layout.groups if g.kind == "meld")


def choose_hand(det: Detections, layout: Layout, rules: Ruleset
                ) -> tuple[Layout, list[str], list[Correction], list[str]] | None:
    """The layout, codes, corrections and warnings of the best legal winning hand with end groups left out (see
    the module's doc), or None where no such reading is found."""
    tiles = sorted(t for g in layout.groups for t in g.tiles)
    if len(tiles) < 15:
        return None
    flower_codes = flower_faces(rules)
    codes = det.codes
    among = set(layout.flowers_among_faces)
    ranked = []
    for cut_out, cut in end_cuts(det, tiles, frozenset(flower_codes)):
        # flowers lie aside: a cut never takes them, but one read among a group's faces goes with its group
        out = {t for t in cut_out if codes[t] not in flower_codes or t in among}
        if not out:
            continue
        kept = [t for t in tiles if t not in out]
        faces = sum(1 for t in kept if codes[t] not in flower_codes)
        if not 14 <= faces <= 18:  # a winning hand holds 14 tiles and one more per kong
            continue
        ranked.append((len(out), -cut, out, kept))
    ranked.sort(key=lambda r: (r[0], r[1]))
    best = None
    trials = 0
    for n_out, neg_cut, out, kept in ranked[:MOST_LAID]:
        trial = sub_layout(det, kept, rules)
        if not fits(trial):
            continue  # (laying out is cheap; only the readings of a winning hand's tile count are searched)
        trials += 1
        if trials > MOST_TRIALS:
            break
        found, more, warn = correct(det, trial, rules, True, budget=TRIAL_BUDGET)
        if warn or not claimable(trial, found, rules):
            continue
        key = (changes(more), round(neg_cut / GAP_STEP), n_out)
        if best is None or key < best[0]:
            best = (key, trial, found, more, out)
    if best is None:
        return None
    _, trial, found, more, out = best
    trial.apart = sorted(set(layout.apart) | out)
    said = Said(f"{len(out)} tile(s) beside the hand (another player's melds or tiles) were left out of it: "
                "without them the rest is a winning hand; if one of them is yours, add it to the hand below",
                f"手牌旁邊的 {len(out)} 張牌（別家的副露或牌）未算入手牌：不算它們，其餘的牌是胡牌；"
                "如果其中有你的牌，請在下面加入手牌")
    trial.apart_warnings = layout.apart_warnings + [said]
    trial.warnings = trial.apart_warnings + trial.warnings
    return trial, found, more, []


def choose_row(det: Detections, layout: Layout, rules: Ruleset
               ) -> tuple[Layout, list[str], list[Correction], list[str]] | None:
    """The layout, codes, corrections and warnings of the hand read around another long row of the table than
    the one ``layout`` took (see the module's doc), or None where none makes a legal winning hand."""
    taken = {t for g in layout.groups for t in g.tiles}
    centre = along_rows(det).centers
    rows = sorted((r for r in hand_rows(det) if not set(r) <= taken), key=lambda r: -float(centre[r, 1].mean()))
    best = None
    for rank, row in enumerate(rows[:MOST_ROWS]):
        trial = analyse(det, rules, main=row)
        if not fits(trial):
            option = choose_hand(det, trial, rules)
        else:
            found, more, warn = correct(det, trial, rules, True, budget=TRIAL_BUDGET)
            legal = not warn and "remove" not in found and claimable(trial, found, rules)
            option = (trial, found, more, []) if legal else None
        if option is not None and (best is None or (changes(option[2]), rank) < best[0]):
            best = ((changes(option[2]), rank), option)
    return None if best is None else best[1]
