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


KONG_WORDS = {"暗": "concealed", "暗槓": "concealed", "明": "exposed", "明槓": "exposed", "加": "added",
              "加槓": "added", "花": "flower", "花槓": "flower"}  # the kinds as the Chinese page names them
PENALTY_WORDS = {"跟牌": "follow", "四張": "four_same"}


def parse_kong_lines(text: str) -> list[dict[str, Any]]:
    """'seat kind [from]' per line -> kong_events entries (kinds in English or Chinese: 暗 明 加 花)."""
    events = []
    for n, line in enumerate(text.splitlines(), 1):
        parts = line.replace(",", " ").split()
        if not parts:
            continue
        if len(parts) < 2 or not parts[0].isdigit():
            raise InputError(f"kong line {n}: write 'seat kind [from]', e.g. '2 exposed 1'",
                             f"槓第 {n} 行：請寫「座位 類型 [放槓者]」，例如「2 明 1」")
        ev: dict[str, Any] = {"seat": int(parts[0]), "kind": KONG_WORDS.get(parts[1], parts[1])}
        if len(parts) > 2:
            if not parts[2].isdigit():
                raise InputError(f"kong line {n}: the feeder must be a seat number",
                                 f"槓第 {n} 行：放槓者必須是座位號碼")
            ev["from"] = int(parts[2])
        events.append(ev)
    return events


def parse_penalty_lines(text: str) -> list[dict[str, Any]]:
    """'follow seat' / 'four_same seat' per line (or 跟牌 / 四張) -> penalty_events."""
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        parts = line.replace(",", " ").split()
        if not parts:
            continue
        if len(parts) != 2 or not parts[1].isdigit():
            raise InputError(f"penalty line {n}: write 'follow 2' or 'four_same 3'",
                             f"罰款第 {n} 行：請寫「跟牌 2」或「四張 3」")
        out.append({"kind": PENALTY_WORDS.get(parts[0], parts[0]), "seat": int(parts[1])})
    return out


def pay_lines(payments: list[dict[str, int]], names: list[str], unit: str = "") -> list[str]:
    """"A → B: 3 points" per payment (``unit`` in the page's language, "1 point" where it is one)."""
    return [f"{names[p['from']]} → {names[p['to']]}: {amount(p['amount'], unit)}" for p in payments]


def amount(n: int, unit: str) -> str:
    """``n`` with its unit: "1 point", "3 points", "1 分" (an English unit loses its plural s at one)."""
    if not unit:
        return str(n)
    if abs(n) == 1 and unit.endswith("s") and unit.isascii():
        unit = unit[:-1]
    return f"{n} {unit}"
