"""One-call entry points: score a case dict, or the parsed objects."""

from __future__ import annotations

from typing import Any

from .errors import InputError
from .hand import DrawContext, Hand, KongEvent, WinContext, parse_context, parse_draw_context, parse_hand
from .limits import check_structure, shorten
from .result import Payments, ScoreResult
from .rulesets import DEFAULT, RULESETS, Ruleset


def get_ruleset(name: object) -> Ruleset:
    """The Ruleset registered under ``name`` or an InputError listing the known ones."""
    if not isinstance(name, str) or name not in RULESETS:
        raise InputError(f"ruleset: unknown ruleset {shorten(name)} (known: {', '.join(RULESETS)})")
    return RULESETS[name]


def as_ruleset(rules: Ruleset | str) -> Ruleset:
    """A Ruleset object from itself or its registered name (tools accept either)."""
    return rules if isinstance(rules, Ruleset) else get_ruleset(rules)


def case_ruleset(case: object) -> Ruleset:
    """The ruleset of a case after the checks every entry point makes: a JSON object within the size limits
    (D-C6) with the fields ruleset, hand and context (a drawn hand, ``kind: "draw"``, has no hand)."""
    if not isinstance(case, dict):
        raise InputError(f"case: expected a JSON object, got {type(case).__name__}")
    check_structure(case)
    kind = case.get("kind", "win")
    if kind not in ("win", "draw"):
        raise InputError(f"case.kind: expected \"win\" or \"draw\", got {shorten(kind)}")
    for key in ("ruleset", "context") if kind == "draw" else ("ruleset", "hand", "context"):
        if key not in case:
            raise InputError(f"case: missing field {key!r}")
    return get_ruleset(case["ruleset"])


def is_draw(case: object) -> bool:
    """Whether a case is a drawn hand (荒莊, RULES.md D-C13)."""
    return isinstance(case, dict) and case.get("kind") == "draw"


def parse_draw(case: object) -> tuple[Ruleset, dict[str, Any], DrawContext]:
    """Parse and check one drawn-hand case ``{"ruleset", "kind": "draw", "options"?, "context"}``."""
    rules = case_ruleset(case)
    assert isinstance(case, dict)
    opts = rules.parse_options(case.get("options"))
    return rules, opts, parse_draw_context(case["context"], rules.field_set)


def parse_case(case: object) -> tuple[Ruleset, dict[str, Any], Hand, WinContext]:
    """Parse and check one ``{"ruleset", "options", "hand", "context"}`` case; raises InputError."""
    rules = case_ruleset(case)
    assert isinstance(case, dict)
    opts = rules.parse_options(case.get("options"))
    hand = parse_hand(case["hand"])
    ctx = parse_context(case["context"], rules.field_set)
    rules.validate(hand, ctx, opts)
    return rules, opts, hand, ctx


def score(hand: Hand, ctx: WinContext, ruleset: str = DEFAULT, options: dict[str, Any] | None = None) -> ScoreResult:
    """Score parsed objects under a rule set (options are checked and defaulted)."""
    rules = get_ruleset(ruleset)
    opts = rules.parse_options(options)
    rules.validate(hand, ctx, opts)
    return rules.score(hand, ctx, opts)


def score_case(case: object) -> dict[str, Any]:
    """Score one case dict (a win, or a drawn hand) to the RULES.md output dict; malformed input gives the
    invalid_input object."""
    try:
        if is_draw(case):
            rules, opts, draw = parse_draw(case)
            return rules.score_draw(draw, opts).to_json()
        rules, opts, hand, ctx = parse_case(case)
        return rules.score(hand, ctx, opts).to_json()
    except InputError as e:
        return {"valid": False, "error": "invalid_input", "message": str(e)}


def next_dealer_of(cases: list[dict[str, Any]], results: list[dict[str, Any]]) -> int:
    """Who deals after a recorded event, from the engine's results: one win or a draw gives its result's
    ``next_dealer``; several winners on one discard are combined by the ruleset (the first winner after the
    discarder, a dealer who wins or a 大胡 keeping the deal where the ruleset says so)."""
    if not cases or len(cases) != len(results):
        raise ValueError("an event needs one scored result per case")
    for r in results:
        if not r.get("valid") or not isinstance(r.get("next_dealer"), int):
            raise ValueError("only a result scored by this engine (valid, with next_dealer) can be recorded")
    if len(results) == 1:
        return int(results[0]["next_dealer"])
    rules = get_ruleset(cases[0].get("ruleset"))
    ctx = cases[0]["context"]
    winners = [int(c["context"]["winner"]) for c in cases]
    return rules.next_dealer(int(ctx["dealer"]), winners, ctx.get("discarder"),
                             big_hand=any(bool(r.get("dahu")) for r in results))


def event_net(cases: list[dict[str, Any]], results: list[dict[str, Any]]) -> list[int]:
    """The net of a recorded event. One win or a draw: its result's net. Several winners on one discard (一炮多響):
    each win's hand payments, and the hand's kong money and penalties once, from the kongs and penalties the
    cases name together (each case may list the hand's every kong: none is paid twice)."""
    if len(results) != len(cases) or not results:
        raise ValueError("an event needs one scored result per case")
    if len(results) == 1:
        return [int(v) for v in results[0]["net"]]
    rules = case_ruleset(cases[0])
    opts = rules.parse_options(cases[0].get("options"))
    events: list[KongEvent] = []
    penalties: list[tuple[str, int]] = []
    for c in cases:
        _, _, hand, ctx = parse_case(c)
        events = union(events, rules.kong_events(hand, ctx, opts))
        penalties = union(penalties, ctx.penalty_events)
    pay = Payments()
    for r in results:
        for p in r["hand_payments"]:
            pay.add(int(p["from"]), int(p["to"]), int(p["amount"]))
    net = [0, 0, 0, 0]
    for part in (pay, rules.kong_payments(events, opts), rules.penalty_money(penalties, opts)):
        if part is not None:
            part.apply_to(net)
    return net


def union(first: list[Any], second: list[Any]) -> list[Any]:
    """The multiset union of two lists in order of first appearance: what either names, each as often as the
    one that names it most."""
    out = list(first)
    left = list(first)
    for x in second:
        if x in left:
            left.remove(x)
        else:
            out.append(x)
    return out
