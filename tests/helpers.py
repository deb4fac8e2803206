"""Small builders so scoring tests read like the rules."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from scoring import score_case
from scoring.tiles import split_notation

SHARED = Path(os.environ.get("MAHJONG_SHARED", Path(__file__).resolve().parents[1].parent / "shared"))


def meld(kind: str, tiles: str, frm: int | None = None) -> dict[str, Any]:
    return {"type": kind, "tiles": split_notation(tiles), "from": frm}


def case(ruleset: str, concealed: str, win: str | None, melds: list[dict[str, Any]] | None = None,
         flowers: str = "", options: dict[str, Any] | None = None, **context: Any) -> dict[str, Any]:
    ctx = {"winner": 0, "dealer": 0, "win_type": "self_draw"}
    ctx.update(context)
    return {"ruleset": ruleset, "options": options or {},
            "hand": {"concealed": split_notation(concealed), "melds": melds or [], "winning_tile": win,
                     "flowers": split_notation(flowers) if flowers else []},
            "context": ctx}


def score(*args: Any, **kwargs: Any) -> dict[str, Any]:
    return score_case(case(*args, **kwargs))


def elements(result: dict[str, Any]) -> dict[str, Any]:
    """{id: value | fan | multiplier} of a result."""
    out = {}
    for e in result["elements"]:
        out[e["id"]] = e.get("value", e.get("fan", e.get("multiplier")))
    return out
