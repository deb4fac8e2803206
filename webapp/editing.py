"""Small text formats of the page: compact tile notation, kong and penalty lines, payment lines."""

from __future__ import annotations

from typing import Any

from scoring.errors import InputError


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


def pay_lines(payments: list[dict[str, int]], names: list[str]) -> list[str]:
    return [f"{names[p['from']]} → {names[p['to']]}: {p['amount']}" for p in payments]
