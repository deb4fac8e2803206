"""The result card: one PNG with the hand as tile pictures, the elements with their values, who pays whom and the
table's names, to post in the group chat that settles the argument."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw, ImageFont

from .i18n import t
from .state import HandState
from .tile_art import hand_picture

CJK_FONTS = ("/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc", "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
             "/usr/share/fonts/truetype/arphic/uming.ttc")
WIDTH = 720


def _font(size: int) -> tuple[Any, bool]:
    """A font that can write Chinese when the machine has one (else Pillow's own, Latin only)."""
    for path in CJK_FONTS:
        if Path(path).exists():
            return ImageFont.truetype(path, size), True
    return ImageFont.load_default(size), False


def result_card(hand: HandState, result: dict[str, Any], names: list[str], title: str, unit: str,
                lang: str = "en") -> bytes:
    """The PNG bytes of the card for a valid result."""
    font, cjk = _font(20)
    small, _ = _font(16)
    zh = lang == "zh" and cjk
    lines: list[tuple[str, Any]] = [(title, font)]
    for e in result.get("elements", []):
        amount = f"x{e['multiplier']}" if "multiplier" in e else str(e.get("value", e.get("fan")))
        name = e["zh"] if zh else (f"{e['zh']} {e['en']}" if cjk else e["en"])
        lines.append((f"{name}: {amount}", small))
    head = [f"{t(k, 'zh' if zh else 'en')}: {result[k]}" for k in ("fan", "points", "total") if k in result]
    if head:
        lines.append((" · ".join(head), font))
    for key in ("hand_payments", "kong_payments", "penalty_payments"):
        for p in result.get(key) or []:
            lines.append((f"{names[p['from']]} -> {names[p['to']]}: {p['amount']} {unit if cjk else ''}".rstrip(),
                          small))
    lines.append(("  ".join(f"{names[i]} {n:+d}" for i, n in enumerate(result.get("net", [0] * 4))), font))
    pic = hand_picture(hand)
    tiles = Image.fromarray(pic) if pic is not None else None
    if tiles is not None and tiles.width > WIDTH - 40:
        tiles = tiles.resize((WIDTH - 40, round(tiles.height * (WIDTH - 40) / tiles.width)))
    height = 30 + (tiles.height + 20 if tiles is not None else 0) + 30 * len(lines) + 20
    card = Image.new("RGB", (WIDTH, height), (248, 246, 240))
    draw = ImageDraw.Draw(card)
    y = 20
    if tiles is not None:
        card.paste(tiles, (20, y))
        y += tiles.height + 20
    for text, f in lines:
        draw.text((20, y), text, fill=(30, 30, 30), font=f)
        y += 30
    buf = io.BytesIO()
    card.save(buf, "PNG", optimize=True)
    return buf.getvalue()


def card_size(png: bytes) -> tuple[int, int]:
    """Width and height of a PNG card (for tests)."""
    return Image.open(io.BytesIO(png)).size


__all__ = ["card_size", "result_card"]
