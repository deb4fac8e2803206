"""Seeded random legal winning cases (RULES.md input format), for property tests and benchmarks."""

from __future__ import annotations

import random
from typing import Any

from .hand import MELD_KIND
from .rulesets import DEFAULT, RULESETS
from .rulesets.base import Ruleset, seat_of
from .tiles import BLANK_GHOST, CODES, FLOWERS, N_KINDS, is_suited, next_kind


def random_case(rng: random.Random, ruleset: str = DEFAULT, ghosts: bool = False) -> dict[str, Any]:
    """One random winning hand with a consistent random context for ``ruleset`` (asked for its tiles, chows,
    flowers, replacements and ghost option, so a new ruleset gets cases without a change here)."""
    rules = RULESETS[ruleset]
    winner = rng.randrange(4)
    others = [s for s in range(4) if s != winner]
    melds, concealed, win, used = _draw_tiles(rng, rules, winner, others)
    dealer = rng.randrange(4)
    ctx = _draw_context(rng, rules, winner, dealer, others, melds, used[win])
    flowers: list[str] = []
    if rules.flower_kinds:
        pool = [CODES[k] for k in sorted(rules.flower_kinds) for _ in range(1 if k in FLOWERS else 4)]
        rng.shuffle(pool)
        flowers = pool[:rng.choice([0, 0, 1, 2, 3, 4, 5, 6])]
    options: dict[str, Any] = {}
    if ghosts and "ghost" in rules.options:
        if rng.random() < 0.5:
            options["ghost"] = {"mode": "extra4"}
            n_g = rng.randint(1, 4)
            for i in rng.sample(range(len(concealed)), min(n_g, len(concealed))):
                concealed[i] = BLANK_GHOST
        else:
            in_melds = {t for m in melds for t in m["tiles"]}
            inds = [i for i in range(N_KINDS) if CODES[next_kind(i)] not in in_melds]
            options["ghost"] = {"mode": "flip", "indicator": CODES[rng.choice(inds)]}
    hand = {"concealed": [CODES[t] for t in concealed], "melds": melds, "winning_tile": CODES[win],
            "flowers": flowers}
    return {"ruleset": ruleset, "options": options, "hand": hand, "context": ctx}


def _draw_tiles(rng: random.Random, rules: Ruleset, winner: int, others: list[int]
                ) -> tuple[list[dict[str, Any]], list[int], int, list[int]]:
    """A winning hand's tiles: melds (chows only from the seats the ruleset allows), the concealed tiles, the
    winning tile drawn from them, and how many of each kind the hand holds (never over 4)."""
    kinds = list(rules.playing_kinds)
    used = [0] * len(CODES)
    chow_seats = sorted(seat_of(winner, r) for r in rules.chow_from)

    def take(k: int, n: int) -> bool:
        if used[k] + n > 4:
            return False
        used[k] += n
        return True

    melds: list[dict[str, Any]] = []
    concealed: list[int] = []
    if rng.random() < 0.12:  # seven pairs
        while len(concealed) < 14:
            k = rng.choice(kinds)
            if take(k, 2):
                concealed += [k, k]
    else:
        n_melds = rng.choice([0, 0, 1, 1, 2, 2, 3, 4])
        while len(melds) < n_melds:
            k = rng.choice(kinds)
            r = rng.random()
            if chow_seats and r < 0.3 and is_suited(k) and k % 9 <= 6:
                if take(k, 1) and take(k + 1, 1) and take(k + 2, 1):
                    melds.append({"type": "chow", "tiles": [CODES[k], CODES[k + 1], CODES[k + 2]],
                                  "from": rng.choice(chow_seats)})
                continue
            mtype = rng.choice(["pung", "pung", "pung", "kong_exposed", "kong_added", "kong_concealed"])
            n = 3 if mtype == "pung" else 4
            if take(k, n):
                melds.append({"type": mtype, "tiles": [CODES[k]] * n,
                              "from": None if mtype == "kong_concealed" else rng.choice(others)})
        while len(concealed) < 3 * (4 - n_melds):
            k = rng.choice(kinds)
            if rng.random() < 0.6 and is_suited(k) and k % 9 <= 6:
                if used[k] < 4 and used[k + 1] < 4 and used[k + 2] < 4:
                    for j in (k, k + 1, k + 2):
                        take(j, 1)
                    concealed += [k, k + 1, k + 2]
            elif take(k, 3):
                concealed += [k, k, k]
        while True:
            k = rng.choice(kinds)
            if take(k, 2):
                concealed += [k, k]
                break
    rng.shuffle(concealed)
    win = concealed.pop()
    return melds, concealed, win, used


def _draw_context(rng: random.Random, rules: Ruleset, winner: int, dealer: int, others: list[int],
                  melds: list[dict[str, Any]], copies_of_win: int) -> dict[str, Any]:
    """A win context consistent with the hand: the win type, the discarder, the discarder's kong, the last tile,
    a robbed kong (only where the hand holds the one copy of the winning tile), a replacement tile."""
    ctx: dict[str, Any] = {"winner": winner, "dealer": dealer}
    kongs = [m for m in melds if m["type"].startswith("kong")]
    r = rng.random()
    if r < 0.45:
        ctx["win_type"] = "discard"
        ctx["discarder"] = rng.choice(others)
        if rng.random() < 0.1:
            ctx["after_kong"] = True  # D-C11: the discarder's kong is the last one declared
            own = [{"seat": winner, "kind": MELD_KIND[m["type"]], **({} if m["from"] is None else {"from": m["from"]})}
                   for m in kongs]  # kong_events lists every kong of the hand, the winner's too
            # no draw from rng here: the same seed gives the same hands as before (the composed evaluation sets)
            ctx["kong_events"] = own + [{"seat": ctx["discarder"], "kind": "concealed"}]
        elif rng.random() < 0.1:
            ctx["last_tile"] = True
    elif r < 0.52 and copies_of_win == 1:  # D-C2: the robbed kong shows the other three copies
        ctx["win_type"] = "rob_kong"
        ctx["discarder"] = rng.choice(others)
    else:
        ctx["win_type"] = "self_draw"
        if kongs and "kong" in rules.replacements and rng.random() < 0.3:
            ctx["replacement"] = "kong"
            chain = [{"kind": MELD_KIND[m["type"]], "from": m["from"]} for m in kongs[-rng.randint(1, len(kongs)):]]
            ctx["bloom_chain"] = chain
            ctx["bloom_kong"] = chain[-1]
        elif "flower" in rules.replacements and rng.random() < 0.15:
            ctx["replacement"] = "flower"
        elif rng.random() < 0.1:
            ctx["last_tile"] = True
    return ctx


def random_cases(n: int, ruleset: str = DEFAULT, seed: int = 0, ghosts: bool = False) -> list[dict[str, Any]]:
    """``n`` random cases from a fixed seed (the benchmark set)."""
    rng = random.Random(seed)
    return [random_case(rng, ruleset, ghosts) for _ in range(n)]
