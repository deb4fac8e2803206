"""Mahjong scoring for the Nanning (張), Nanning-fan (番, ghosts) and Nanjing (花) rule sets of RULES.md.

Data flow: tile codes -> Hand / WinContext -> divider shapes -> ruleset elements -> ScoreResult with payments.
"""

from .api import get_ruleset, parse_case, score, score_case
from .errors import InputError
from .hand import Hand, Meld, WinContext, parse_context, parse_hand
from .result import ScoreResult
from .rulesets import RULESETS

__all__ = ["RULESETS", "Hand", "InputError", "Meld", "ScoreResult", "WinContext", "get_ruleset", "parse_case",
           "parse_context", "parse_hand", "score", "score_case"]
