"""Registry of the rule sets: name -> Ruleset instance."""

from __future__ import annotations

from .base import Ruleset
from .nanjing import Nanjing
from .nanning import Nanning
from .nanning_fan import NanningFan

RULESETS: dict[str, Ruleset] = {r.name: r for r in (Nanning(), NanningFan(), Nanjing())}
DEFAULT = Nanning.name  # the ruleset a new table starts with


def register(rules: Ruleset) -> None:
    """Add a ruleset (a house variant, or a test's toy): every tool that lists rulesets then offers it."""
    RULESETS[rules.name] = rules


__all__ = ["DEFAULT", "RULESETS", "Ruleset", "register"]
