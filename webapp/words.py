"""The engine's messages in the player's words: its field paths (``hand.melds[1].from``) become the page's labels
("Meld 2, fed by"), seat numbers become the players' names, meld kinds their names (``kong_exposed``: "Exposed
kong"). The engine's Chinese lines carry no paths or seats: they are shown as they are."""

from __future__ import annotations

import re

from scoring.rulesets.base import MELD_TEXT

from .session import Table, label

FIELDS = {"hand.concealed": "concealed", "hand.winning_tile": "winning_tile", "hand.flowers": "flowers",
          "context.discarder": "discarder", "context.winner": "winner", "context.win_type": "win_type",
          "context.dealer": "dealer"}


def players_words(message: str, tbl: Table) -> str:
    """``message`` (English, from the engine) with its paths, seats and meld kinds in the page's words."""
    out = re.sub(r"hand\.melds\[(\d+)\]\.from", lambda m: f"{label('meld_from')} {int(m[1]) + 1}", message)
    out = re.sub(r"hand\.melds\[(\d+)\](?:\.tiles)?", lambda m: f"{label('meld_tiles')} {int(m[1]) + 1}", out)
    for path, key in FIELDS.items():
        out = out.replace(path, label(key))
    out = re.sub(r"\bcontext\.([a-z_]+)", lambda m: m[1].replace("_", " "), out)
    out = re.sub(r"\bseat (\d)\b", lambda m: tbl.names[int(m[1])], out)
    for kind, text in MELD_TEXT.items():
        out = re.sub(rf"\b{kind}\b", text.get(tbl.lang), out)
    return out
