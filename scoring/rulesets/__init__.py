"""Registry of the rule sets: name -> Ruleset instance."""

from __future__ import annotations

from .base import Ruleset
from .nanjing import Nanjing
from .nanning import Nanning
from .nanning_fan import NanningFan

RULESETS: dict[str, Ruleset] = {r.name: r for r in (Nanning(), NanningFan(), Nanjing())}

__all__ = ["RULESETS", "Ruleset"]
