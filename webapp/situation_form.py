"""The situation form's widgets, as every panel that fills or clears them needs them (a recorded hand being edited,
a new hand after a record)."""

from __future__ import annotations

from typing import Any

import streamlit as st

from scoring.rulesets.base import MELD_TEXT

from .editing import compact
from .state import HandState, Situation


def show(sit: Situation, hand: HandState) -> None:
    """Put a stored situation into the widgets (editing a recorded hand)."""
    ss = st.session_state
    ss["winner"], ss["win_type"] = sit.winner, sit.win_type
    if sit.discarder is not None:
        ss["discarder"] = sit.discarder
    ss["replacement_pick"] = sit.replacement or "none"
    for r in ("kong", "flower"):
        ss[f"replacement_{r}"] = sit.replacement == r
    labels = kong_labels(hand)
    ss["bloom_sel"] = [labels[i] for i in sit.bloom if i < len(labels)]
    if sit.bloom and sit.bloom[-1] < len(labels):
        ss["bloom_one"] = labels[sit.bloom[-1]]
    for flag in ("after_kong", "last_tile", "heavenly", "earthly"):
        ss[flag] = getattr(sit, flag)
    ss["other_kongs"] = "\n".join(" ".join(str(e[k]) for k in ("seat", "kind", "from") if k in e)
                                  for e in sit.other_kongs)
    ss["penalties"] = "\n".join(f"{p['kind']} {p['seat']}" for p in sit.penalties)
    ss["previous_winner"] = sit.previous_winner
    ss["fish_txt"] = " ".join(sit.fish_tiles)


def kong_labels(hand: HandState) -> list[str]:
    kongs = [m for m in hand.melds if m.type.startswith("kong")]
    return [f"{i + 1}: {MELD_TEXT[m.type].en} {compact(m.tiles)}" for i, m in enumerate(kongs)]


def situation_keys() -> list[str]:
    """Every widget key of this panel (cleared when a new hand starts)."""
    return ["winner", "win_type", "discarder", "replacement_pick", "replacement_kong", "replacement_flower",
            "bloom_sel", "bloom_one", "after_kong", "last_tile", "heavenly", "earthly", "other_kongs", "penalties",
            "previous_winner", "fish_txt"]


def reset(keep: dict[str, Any] | None = None) -> None:
    for k in situation_keys():
        st.session_state.pop(k, None)
    for k, v in (keep or {}).items():
        st.session_state[k] = v
