"""Hand state + situation + table -> the RULES.md case the engine scores, and back (to edit a recorded hand).

The page and `python -m scoring` give identical results because the page builds exactly the case the CLI reads:
fields the ruleset does not ask are left out, and ``kong_events`` is sent only when the user entered other
players' kongs (otherwise the engine's own default applies: the winner's kong melds and his flower kongs).
"""

from __future__ import annotations

from typing import Any

from scoring import Ruleset, as_ruleset
from scoring.rulesets.base import MELD_KIND, relative_seat, seat_of

from .state import HandState, MeldState, Situation


def hand_json(hand: HandState, winner: int) -> dict[str, Any]:
    """The RULES.md hand: feeders resolved to seats from the winner."""
    melds = [{"type": m.type, "tiles": list(m.tiles),
              "from": None if m.type == "kong_concealed" else seat_of(winner, m.feeder or "left")}
             for m in hand.melds]
    return {"concealed": list(hand.concealed), "melds": melds, "winning_tile": hand.winning,
            "flowers": list(hand.flowers)}


def build_case(rules: Ruleset | str, options: dict[str, Any], hand: HandState, sit: Situation,
               dealer: int) -> dict[str, Any]:
    """The case for the engine. Only the fields the ruleset asks under these options are sent."""
    rules = as_ruleset(rules)
    opts = rules.parse_options(options)
    w = sit.winner
    h = hand_json(hand, w)
    ctx: dict[str, Any] = {"winner": w, "dealer": dealer, "win_type": sit.win_type}
    if sit.win_type == "quick_shot":
        h["winning_tile"] = None
    if sit.win_type != "self_draw" and sit.discarder is not None:
        ctx["discarder"] = sit.discarder
    kongs = [m for m in h["melds"] if m["type"].startswith("kong")]
    if sit.win_type == "self_draw" and sit.replacement and rules.asks("replacement", opts):
        ctx["replacement"] = sit.replacement
        if sit.replacement == "kong":
            chain = [{"kind": MELD_KIND[kongs[i]["type"]], "from": kongs[i]["from"]}
                     for i in sit.bloom if 0 <= i < len(kongs)]
            if not chain and kongs:
                chain = [{"kind": MELD_KIND[kongs[-1]["type"]], "from": kongs[-1]["from"]}]
            for c in chain:
                if c["from"] is None:
                    del c["from"]
            if rules.uses("bloom_chain"):
                ctx["bloom_chain"] = chain
            elif chain:
                ctx["bloom_kong"] = chain[-1]
    for flag in ("after_kong", "last_tile", "heavenly", "earthly"):
        if getattr(sit, flag) and rules.asks(flag, opts):
            ctx[flag] = True
    if sit.other_kongs and rules.asks("kong_events", opts):
        events: list[dict[str, Any]] = []
        for m in h["melds"]:
            if m["type"] in MELD_KIND:
                ev: dict[str, Any] = {"seat": w, "kind": MELD_KIND[m["type"]]}
                if m["from"] is not None:
                    ev["from"] = m["from"]
                events.append(ev)
        # the winner's flower kongs are not listed: the engine counts them from his flowers (D-C10) and says so
        ctx["kong_events"] = events + [dict(e) for e in sit.other_kongs]
    if sit.penalties and rules.asks("penalty_events", opts):
        ctx["penalty_events"] = [dict(p) for p in sit.penalties]
    if sit.previous_winner is not None and rules.asks("previous_winner", opts):
        ctx["previous_winner"] = sit.previous_winner
        ctx["fish_tiles"] = list(sit.fish_tiles)
    return {"ruleset": rules.name, "options": dict(options), "hand": h, "context": ctx}


def state_from_case(case: dict[str, Any]) -> tuple[HandState, Situation, int]:
    """Hand state, situation and dealer of a stored (or generated) case: the inverse of ``build_case``."""
    ctx = case["context"]
    w = int(ctx["winner"])
    h = case["hand"]
    melds = [MeldState(m["type"], list(m["tiles"]),
                       None if m.get("from") is None else relative_seat(w, int(m["from"])))
             for m in h.get("melds", [])]
    hand = HandState(list(h.get("concealed", [])), h.get("winning_tile"), melds, list(h.get("flowers", [])))
    kong_idx = [i for i, m in enumerate(melds) if m.type.startswith("kong")]
    chain = ctx.get("bloom_chain") or ([ctx["bloom_kong"]] if ctx.get("bloom_kong") else [])
    bloom = _match_chain(chain, [melds[i] for i in kong_idx], w)
    own = {"concealed", "exposed", "added"}
    others = [dict(e) for e in ctx.get("kong_events") or [] if not (e.get("seat") == w and e.get("kind") in own | {
        "flower"})]
    sit = Situation(
        winner=w, win_type=ctx["win_type"], discarder=ctx.get("discarder"), replacement=ctx.get("replacement"),
        bloom=bloom, after_kong=bool(ctx.get("after_kong")), last_tile=bool(ctx.get("last_tile")),
        heavenly=bool(ctx.get("heavenly")), earthly=bool(ctx.get("earthly")), other_kongs=others,
        penalties=[dict(p) for p in ctx.get("penalty_events") or []], previous_winner=ctx.get("previous_winner"),
        fish_tiles=list(ctx.get("fish_tiles") or []))
    return hand, sit, int(ctx.get("dealer", 0))


def _match_chain(chain: list[dict[str, Any]], kongs: list[MeldState], winner: int) -> list[int]:
    """Indices (among the kong melds) of the bloom chain's kongs, matched by kind and feeder in order."""
    out: list[int] = []
    used: set[int] = set()
    for c in chain:
        for i, m in enumerate(kongs):
            frm = None if m.feeder is None else seat_of(winner, m.feeder)
            if i not in used and MELD_KIND.get(m.type) == c.get("kind") and frm == c.get("from"):
                out.append(i)
                used.add(i)
                break
    return out
