"""One-call entry points: score a case dict, or the parsed objects."""

from __future__ import annotations

from typing import Any

from .errors import InputError
from .hand import Hand, WinContext, parse_context, parse_hand
from .limits import check_structure, shorten
from .result import ScoreResult
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
    (D-C6) with the fields ruleset, hand and context."""
    if not isinstance(case, dict):
        raise InputError(f"case: expected a JSON object, got {type(case).__name__}")
    check_structure(case)
    for key in ("ruleset", "hand", "context"):
        if key not in case:
            raise InputError(f"case: missing field {key!r}")
    return get_ruleset(case["ruleset"])


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
    """Score one case dict to the RULES.md output dict; malformed input gives the invalid_input object."""
    try:
        rules, opts, hand, ctx = parse_case(case)
        return rules.score(hand, ctx, opts).to_json()
    except InputError as e:
        return {"valid": False, "error": "invalid_input", "message": str(e)}
