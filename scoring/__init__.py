"""Mahjong scoring for the Nanning (張), Nanning-fan (番, ghosts) and Nanjing (花) rulesets of RULES.md.

Data flow: tile codes -> Hand / WinContext -> divider shapes -> ruleset elements -> ScoreResult with payments.
"""

from .api import as_ruleset, event_net, get_ruleset, is_draw, next_dealer_of, parse_case, parse_draw, score, score_case
from .errors import InputError
from .hand import Hand, Meld, WinContext, parse_context, parse_hand
from .result import ScoreResult
from .rulesets import DEFAULT, RULESETS, Ruleset, register
from .version import ENGINE_VERSION

__all__ = ["DEFAULT", "ENGINE_VERSION", "RULESETS", "Hand", "InputError", "Meld", "Ruleset", "ScoreResult",
           "WinContext",
           "as_ruleset", "event_net", "get_ruleset", "is_draw", "next_dealer_of", "parse_case", "parse_context",
           "parse_draw", "parse_hand", "register", "score", "score_case"]
