"""A toy fourth ruleset, defined only here: no flowers, chows from any seat, a flat 10 per hand.

It proves that the reader, the correction, the page and the ledger ask a ruleset for what it has instead of
knowing rulesets by name: registering this class is all it takes.
"""

from __future__ import annotations

from typing import Any

from scoring.result import ScoredElement
from scoring.rulesets.base import Evaluation, Option, Ruleset, View, opt_int
from scoring.text import Text


class FlatWin(Ruleset):
    """Any complete hand wins a flat amount; the winner deals next."""

    name = "toy-flat"
    title = Text("Toy: flat win", "玩具：平胡")
    unit = Text("points", "分")
    chow_from = frozenset({"left", "opposite", "right"})
    win_types = ("self_draw", "discard")
    situation_fields = ("kong_events",)
    options = {"flat": Option(10, opt_int(1, 1000), "what every win is worth", "每次胡牌的分數")}

    def evaluate(self, view: View) -> Evaluation:
        value = view.opts["flat"]
        element = ScoredElement("flat", "平胡", "Flat win", Text("every complete hand is worth the same",
                                                                 "胡牌就是同樣的分"), value=value)
        return Evaluation(view, [element], value, value)


def toy_case(**context: Any) -> dict[str, Any]:
    """A toy case: a chow claimed from the player opposite, won on a discard."""
    ctx = {"winner": 0, "dealer": 1, "win_type": "discard", "discarder": 3, **context}
    return {"ruleset": FlatWin.name, "options": {},
            "hand": {"concealed": ["4p", "5p", "6p", "7s", "8s", "9s", "E", "E", "E", "N"],
                     "melds": [{"type": "chow", "tiles": ["1m", "2m", "3m"], "from": 2}],
                     "winning_tile": "N", "flowers": []},
            "context": ctx}
