"""Pure helpers behind the page: reading -> editable fields, fields -> RULES.md case, small text formats."""

from __future__ import annotations

from typing import Any

from scoring.errors import InputError
from scoring.tiles import split_notation

MELD_TYPES = ["pung", "kong_exposed", "kong_added", "kong_concealed", "chow"]


def compact(codes: list[str]) -> str:
    """Codes -> compact notation, suits grouped in order of appearance: 1m 2m 3m E -> '123m E'."""
    out: list[str] = []
    for c in codes:
        if len(c) == 2 and c[1] in "mps" and c[0].isdigit() and out and out[-1][-1] == c[1] \
                and out[-1][:-1].isdigit():
            out[-1] = out[-1][:-1] + c[0] + c[1]
        else:
            out.append(c)
    return " ".join(out)


def fields_from_hand(hand: dict[str, Any]) -> dict[str, Any]:
    """Widget values (session_state keys) for a RULES.md hand."""
    f: dict[str, Any] = {
        "concealed_txt": compact(hand.get("concealed", [])),
        "winning_txt": hand.get("winning_tile") or "",
        "flowers_txt": compact(hand.get("flowers", [])),
        "meld_count": len(hand.get("melds", [])),
    }
    for i, m in enumerate(hand.get("melds", [])):
        f[f"meld{i}_type"] = m["type"]
        f[f"meld{i}_tiles"] = compact(m["tiles"])
        f[f"meld{i}_from"] = m["from"]
    return f


def hand_from_fields(state: dict[str, Any]) -> dict[str, Any]:
    """A RULES.md hand from widget values; raises InputError naming the field that cannot be read."""
    concealed = split_notation(state.get("concealed_txt", "") or "", "concealed hand")
    win = (state.get("winning_txt") or "").strip()
    winning = split_notation(win, "winning tile") if win else []
    if len(winning) > 1:
        raise InputError(f"winning tile: one tile, got {len(winning)}")
    melds = []
    for i in range(int(state.get("meld_count", 0) or 0)):
        mtype = state.get(f"meld{i}_type", "pung")
        tiles = split_notation(state.get(f"meld{i}_tiles", "") or "", f"meld {i + 1}")
        frm = None if mtype == "kong_concealed" else state.get(f"meld{i}_from")
        melds.append({"type": mtype, "tiles": tiles, "from": frm})
    return {"concealed": concealed, "melds": melds, "winning_tile": winning[0] if winning else None,
            "flowers": split_notation(state.get("flowers_txt", "") or "", "flowers")}


def parse_kong_lines(text: str) -> list[dict[str, Any]]:
    """'seat kind [from]' per line -> kong_events entries."""
    events = []
    for n, line in enumerate(text.splitlines(), 1):
        parts = line.replace(",", " ").split()
        if not parts:
            continue
        if len(parts) < 2 or not parts[0].isdigit():
            raise InputError(f"kong line {n}: write 'seat kind [from]', e.g. '2 exposed 1'")
        ev: dict[str, Any] = {"seat": int(parts[0]), "kind": parts[1]}
        if len(parts) > 2:
            if not parts[2].isdigit():
                raise InputError(f"kong line {n}: the feeder must be a seat number")
            ev["from"] = int(parts[2])
        events.append(ev)
    return events


def parse_penalty_lines(text: str) -> list[dict[str, Any]]:
    """'follow seat' / 'four_same seat' per line -> penalty_events."""
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        parts = line.replace(",", " ").split()
        if not parts:
            continue
        if len(parts) != 2 or not parts[1].isdigit():
            raise InputError(f"penalty line {n}: write 'follow 2' or 'four_same 3'")
        out.append({"kind": parts[0], "seat": int(parts[1])})
    return out


def winner_kong_events(hand: dict[str, Any], winner: int) -> list[dict[str, Any]]:
    """The winner's own kongs, in meld order, as kong_events."""
    kinds = {"kong_exposed": "exposed", "kong_added": "added", "kong_concealed": "concealed"}
    out = []
    for m in hand["melds"]:
        if m["type"] in kinds:
            ev: dict[str, Any] = {"seat": winner, "kind": kinds[m["type"]]}
            if m["from"] is not None:
                ev["from"] = m["from"]
            out.append(ev)
    return out


def pay_lines(payments: list[dict[str, int]], names: list[str]) -> list[str]:
    return [f"{names[p['from']]} → {names[p['to']]}: {p['amount']}" for p in payments]
