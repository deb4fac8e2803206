"""What wins this hand, and for how much: the waits of a 13-tile hand, or how far a hand is from ready.

A beginner's questions before the win: am I ready, which tiles win, what would each be worth, why is this not a
win. The answer is a search the engine does quickly: every tile that completes the hand is scored with the
ruleset's own ``score`` (so ghosts, seven pairs with a quad, thirteen orphans and legality rules such as the
Nanjing small hand all count exactly as in a real win), by self-draw and by a discard from each other seat.

Input: a case without ``winning_tile`` (RULES.md §0.2-0.3). ``hand.concealed`` holds 13 - 3 x melds tiles (a
ready question) or one more (a discard question: which discard keeps the hand closest to winning). An optional
top-level ``seen`` lists tiles visible elsewhere on the table (discards), so the live count is known.
"""

from __future__ import annotations

import copy
from functools import lru_cache
from typing import Any

from .api import case_ruleset, score_case
from .divider import seven_pairs_quads
from .errors import InputError
from .limits import shorten
from .rulesets.base import Ruleset
from .tiles import BLANK_GHOST, CODES, FIRST_WIND, INDEX, N_KINDS, TERMINALS_AND_HONORS, parse_tiles

NOT_READY_LIMIT = 8


# ---------------------------------------------------------------- shanten-style distance


@lru_cache(maxsize=1 << 15)
def _blocks(counts: tuple[int, ...], i: int) -> tuple[tuple[int, int], ...]:
    """Every non-dominated (sets, partial sets) that the tiles from kind i on can be split into."""
    c = list(counts)
    while i < N_KINDS and c[i] == 0:
        i += 1
    if i == N_KINDS:
        return ((0, 0),)
    out: set[tuple[int, int]] = set()

    def take(kinds: tuple[int, ...], s: int, p: int) -> None:
        for k in kinds:
            c[k] -= 1
        for a, b in _blocks(tuple(c), i):
            out.add((a + s, b + p))
        for k in kinds:
            c[k] += 1

    if c[i] >= 3:
        take((i, i, i), 1, 0)
    if c[i] >= 2:
        take((i, i), 0, 1)
    if i < FIRST_WIND and i % 9 <= 6 and c[i + 1] and c[i + 2]:
        take((i, i + 1, i + 2), 1, 0)
    if i < FIRST_WIND and i % 9 <= 7 and c[i + 1]:
        take((i, i + 1), 0, 1)
    if i < FIRST_WIND and i % 9 <= 6 and c[i + 2]:
        take((i, i + 2), 0, 1)
    take((i,), 0, 0)  # an isolated tile
    best = [b for b in out if not any(o != b and o[0] >= b[0] and o[1] >= b[1] for o in out)]
    return tuple(best)


def standard_shanten(counts: tuple[int, ...], n_melds: int) -> int:
    """Tiles away from ready for four sets and a pair: -1 complete, 0 ready (the usual 8 - 2 sets - partials -
    pair count, partials capped so that sets and partials make at most four)."""
    best = 8
    need = 4 - n_melds
    for pair in [None] + [k for k in range(N_KINDS) if counts[k] >= 2]:
        c = list(counts)
        if pair is not None:
            c[pair] -= 2
        for sets, partial in _blocks(tuple(c), 0):
            sets = min(sets, need)
            partial = min(partial, need - sets)
            best = min(best, 8 - 2 * (sets + n_melds) - partial - (pair is not None))
    return best


def seven_pairs_shanten(counts: tuple[int, ...]) -> int:
    """Tiles away from ready for seven pairs (a quad counts as two pairs)."""
    pairs = sum(n // 2 for n in counts)
    kinds = sum(1 for n in counts if n)
    return 6 - min(pairs, 7) + max(0, 7 - kinds) if sum(counts) <= 14 else 99


def orphans_shanten(counts: tuple[int, ...]) -> int:
    """Tiles away from ready for thirteen orphans."""
    kinds = sum(1 for t in TERMINALS_AND_HONORS if counts[t])
    pair = any(counts[t] >= 2 for t in TERMINALS_AND_HONORS)
    return 13 - kinds - pair


def distance(rules: Ruleset, counts: tuple[int, ...], n_melds: int) -> dict[str, int]:
    """Tiles away from ready per shape the ruleset has (0 = ready, -1 = already complete)."""
    out = {"standard": standard_shanten(counts, n_melds)}
    if rules.seven_pairs and (n_melds == 0 or rules.seven_pairs_with_melds):
        sp = seven_pairs_shanten(counts)
        if sum(counts) == 14 and seven_pairs_quads(counts) is not None:
            sp = -1
        out["seven_pairs"] = sp
    if rules.has_orphans and n_melds == 0:
        out["thirteen_orphans"] = orphans_shanten(counts)
    return out


# ---------------------------------------------------------------- waits


def _variants(rules: Ruleset, ctx: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The situations a winning tile can arrive in: self-draw, and a discard by each other seat."""
    w = ctx["winner"]
    base = {k: v for k, v in ctx.items() if k not in ("win_type", "discarder")}
    out: list[tuple[str, dict[str, Any]]] = []
    if "self_draw" in rules.win_types:
        sd = {k: v for k, v in base.items() if k != "after_kong"}
        out.append(("self_draw", {**sd, "win_type": "self_draw"}))
    if "discard" in rules.win_types:
        dc = {k: v for k, v in base.items() if k not in ("replacement", "bloom_chain", "bloom_kong", "heavenly")}
        for s in range(1, 4):
            out.append((f"discard_{(w + s) % 4}", {**dc, "win_type": "discard", "discarder": (w + s) % 4}))
    return out


def _amount(r: dict[str, Any]) -> int:
    """What the winner receives for the hand (hand payments only: kong money and penalties do not depend on it)."""
    return sum(p["amount"] for p in r.get("hand_payments", []))


def _parse(case: object) -> tuple[Ruleset, dict[str, Any], list[int], list[str]]:
    rules = case_ruleset(case)
    assert isinstance(case, dict)
    hand = case["hand"]
    if not isinstance(hand, dict) or not isinstance(case["context"], dict):
        raise InputError("case: hand and context must be JSON objects")
    if hand.get("winning_tile") is not None:
        raise InputError("hand.winning_tile: a waits question has no winning tile (leave it out or null)")
    concealed = parse_tiles(hand.get("concealed", []), "hand.concealed")
    seen = [CODES[t] for t in parse_tiles(case.get("seen") or [], "seen", most=136)]
    return rules, case, concealed, seen


def waits(case: object) -> dict[str, Any]:
    """The wait table of a ready hand, or how far a hand is from ready and the discards that keep it closest."""
    try:
        rules, case, concealed, seen = _parse(case)
        melds = case["hand"].get("melds") or []
        n_melds = len(melds) if isinstance(melds, list) else 0
        need = 13 - 3 * n_melds
        if len(concealed) == need + 1:
            return _discards(rules, case, concealed)
        if len(concealed) != need:
            raise InputError(f"hand.concealed: with {n_melds} meld(s) a waits question holds {need} tiles (or "
                             f"{need + 1} to choose a discard), got {len(concealed)}")
        return _wait_table(rules, case, concealed, seen, n_melds)
    except InputError as e:
        return {"valid": False, "error": "invalid_input", "message": str(e)}


def _counts(tiles: list[int]) -> tuple[int, ...]:
    c = [0] * N_KINDS
    for t in tiles:
        if t < N_KINDS:
            c[t] += 1
    return tuple(c)


def _candidates(rules: Ruleset, opts: dict[str, Any]) -> list[str]:
    """Every tile that could be the winning tile: the ruleset's playing kinds, and the blank ghost where used."""
    out = [CODES[k] for k in rules.playing_kinds]
    if "ghost" in rules.options and (opts.get("ghost") or {}).get("mode") == "extra4":
        out.append(CODES[BLANK_GHOST])
    return out


def _wait_table(rules: Ruleset, case: dict[str, Any], concealed: list[int], seen: list[str],
                n_melds: int) -> dict[str, Any]:
    opts_raw = case.get("options") or {}
    ghosts = "ghost" in rules.options and isinstance(opts_raw, dict) and opts_raw.get("ghost") is not None
    base = _counts(concealed)
    visible: dict[str, int] = {}
    for code in [CODES[t] for t in concealed] + [c for m in case["hand"].get("melds") or [] for c in m.get("tiles", [])
                                                 ] + list(seen):
        visible[code] = visible.get(code, 0) + 1
    out_waits: list[dict[str, Any]] = []
    no_score: list[dict[str, Any]] = []
    first_error: dict[str, Any] | None = None
    for code in _candidates(rules, opts_raw if isinstance(opts_raw, dict) else {}):
        k = INDEX[code]
        if not ghosts and k < N_KINDS:
            c = list(base)
            c[k] += 1
            if not rules.is_complete(c, n_melds):
                continue
        results = []
        for label, ctx in _variants(rules, case["context"]):
            trial = copy.deepcopy(case)
            trial.pop("seen", None)
            trial["hand"]["winning_tile"] = code
            trial["context"] = ctx
            results.append((label, score_case(trial)))
        valid = [(lab, r) for lab, r in results if r.get("valid")]
        bad_input = [r for _, r in results if r.get("error") == "invalid_input"]
        if bad_input and len(bad_input) == len(results):
            first_error = first_error or bad_input[0]
            continue
        if not valid:
            if not ghosts or rules.is_complete(list(_counts(concealed + [k])), n_melds):
                r = results[0][1]
                no_score.append({"tile": code, "error": r.get("error"), "message": r.get("message", "")})
            continue
        best = max(valid, key=lambda lr: _amount(lr[1]))
        out_waits.append({"tile": code, "live": max(0, (1 if code.startswith("f") else 4) - visible.get(code, 0)),
                          "best": {"by": best[0], "amount": _amount(best[1])},
                          "results": {lab: r for lab, r in results}})
    if first_error is not None and not out_waits and not no_score:
        return first_error
    out_waits.sort(key=lambda w: (-w["best"]["amount"], INDEX[w["tile"]]))
    dist = distance(rules, base, n_melds)
    ready = bool(out_waits or no_score)
    res: dict[str, Any] = {"valid": True, "ruleset": rules.name, "ready": ready, "waits": out_waits,
                           "completes_but_does_not_score": no_score,
                           "tiles_from_ready": 0 if ready else max(1, min(dist.values())), "by_shape": dist}
    if not ready:
        res["improving_draws"] = _improving(rules, base, n_melds, dist, visible)
    return res


def _improving(rules: Ruleset, base: tuple[int, ...], n_melds: int, dist: dict[str, int],
               visible: dict[str, int]) -> list[dict[str, Any]]:
    """Draws that bring the hand one tile closer to ready (with the best discard after each)."""
    now = min(dist.values())
    out = []
    for k in rules.playing_kinds:
        if base[k] >= 4:
            continue
        c = list(base)
        c[k] += 1
        best = None
        for x in range(N_KINDS):
            if c[x] == 0 or x == k:
                continue
            c[x] -= 1
            d = min(distance(rules, tuple(c), n_melds).values())
            c[x] += 1
            if best is None or d < best[0]:
                best = (d, x)
        if best is not None and best[0] < now:
            out.append({"draw": CODES[k], "live": max(0, 4 - visible.get(CODES[k], 0)), "then_discard": CODES[best[1]],
                        "tiles_from_ready": max(0, best[0])})
    return out


def _discards(rules: Ruleset, case: dict[str, Any], concealed: list[int]) -> dict[str, Any]:
    """A hand one tile over: each distinct discard with how far the rest is from ready (and its waits)."""
    n_melds = len(case["hand"].get("melds") or [])
    options = []
    for t in sorted(set(concealed)):
        rest = list(concealed)
        rest.remove(t)
        trial = copy.deepcopy(case)
        trial["hand"]["concealed"] = [CODES[x] for x in rest]
        table = _wait_table(rules, trial, rest, [c for c in case.get("seen") or [] if isinstance(c, str)], n_melds)
        if not table.get("valid"):
            return table
        options.append({"discard": CODES[t], "tiles_from_ready": table["tiles_from_ready"],
                        "waits": [w["tile"] for w in table["waits"]],
                        "live": sum(w["live"] for w in table["waits"]),
                        "best_amount": max((w["best"]["amount"] for w in table["waits"]), default=0)})
    options.sort(key=lambda o: (o["tiles_from_ready"], -o["live"], -o["best_amount"], INDEX[o["discard"]]))
    best = options[0]["tiles_from_ready"] if options else None
    return {"valid": True, "ruleset": rules.name, "discards": options,
            "best_discards": [o["discard"] for o in options if o["tiles_from_ready"] == best]}


def describe(table: dict[str, Any]) -> str:
    """A readable wait table for a terminal."""
    if not table.get("valid"):
        return f"invalid input: {shorten(table.get('message', ''), 200)}"
    lines = []
    if "discards" in table:
        lines.append("discard  from-ready  waits (live)")
        for o in table["discards"]:
            lines.append(f"{o['discard']:<8} {o['tiles_from_ready']:<11} {' '.join(o['waits'])} ({o['live']})")
        return "\n".join(lines)
    if table["ready"]:
        lines.append(f"ready ({table['ruleset']}): {len(table['waits'])} winning tile(s)")
        lines.append("tile  live  best            amount")
        for w in table["waits"]:
            lines.append(f"{w['tile']:<5} {w['live']:<5} {w['best']['by']:<15} {w['best']['amount']}")
        for n in table["completes_but_does_not_score"]:
            lines.append(f"{n['tile']:<5} completes the shape but does not score: {n['error']}")
    else:
        lines.append(f"not ready: {table['tiles_from_ready']} tile(s) away ("
                     + ", ".join(f"{k} {v}" for k, v in table["by_shape"].items()) + ")")
        for d in table.get("improving_draws", [])[:12]:
            lines.append(f"draw {d['draw']} ({d['live']} live), then discard {d['then_discard']}: "
                         f"{d['tiles_from_ready']} away")
    return "\n".join(lines)
