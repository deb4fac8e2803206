"""Tile codes of RULES.md §0.1 and the integer indices the engine computes with.

Indices: 0-8 = 1m-9m, 9-17 = 1p-9p, 18-26 = 1s-9s, 27-30 = E S W N, 31-33 = C F P,
34-41 = f1-f8 (seasons, flowers), 42 = G (blank ghost). Kinds 0-33 are the playing kinds.
"""

from __future__ import annotations

from .errors import InputError
from .limits import shorten

CODES: tuple[str, ...] = (
    tuple(f"{r}{s}" for s in "mps" for r in range(1, 10))
    + tuple("ESWNCFP")
    + tuple(f"f{i}" for i in range(1, 9))
    + ("G",)
)
INDEX: dict[str, int] = {code: i for i, code in enumerate(CODES)}
N_KINDS = 34  # playing kinds
FIRST_WIND, FIRST_DRAGON, FIRST_FLOWER, BLANK_GHOST = 27, 31, 34, 42
SUITED = range(FIRST_WIND)  # 1m..9s
WINDS = range(FIRST_WIND, FIRST_DRAGON)
DRAGONS = range(FIRST_DRAGON, N_KINDS)
HONORS = range(FIRST_WIND, N_KINDS)
FLOWERS = range(FIRST_FLOWER, BLANK_GHOST)  # f1-f8
TERMINALS_AND_HONORS: tuple[int, ...] = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)

ENGLISH: dict[str, str] = {
    **{f"{r}m": f"{r} of characters" for r in range(1, 10)},
    **{f"{r}p": f"{r} of circles" for r in range(1, 10)},
    **{f"{r}s": f"{r} of bamboo" for r in range(1, 10)},
    "E": "East wind", "S": "South wind", "W": "West wind", "N": "North wind",
    "C": "Red dragon", "F": "Green dragon", "P": "White dragon",
    "f1": "Spring", "f2": "Summer", "f3": "Autumn", "f4": "Winter",
    "f5": "Plum", "f6": "Orchid", "f7": "Chrysanthemum", "f8": "Bamboo",
    "G": "Ghost (blank)",
}

# Unicode mahjong glyphs (U+1F000 block), for readable command-line output.
GLYPHS: dict[str, str] = {
    **{f"{r}m": chr(0x1F007 + r - 1) for r in range(1, 10)},
    **{f"{r}s": chr(0x1F010 + r - 1) for r in range(1, 10)},
    **{f"{r}p": chr(0x1F019 + r - 1) for r in range(1, 10)},
    "E": "\U0001F000", "S": "\U0001F001", "W": "\U0001F002", "N": "\U0001F003",
    "C": "\U0001F004", "F": "\U0001F005", "P": "\U0001F006",
    "f5": "\U0001F022", "f6": "\U0001F023", "f8": "\U0001F024", "f7": "\U0001F025",
    "f1": "\U0001F026", "f2": "\U0001F027", "f3": "\U0001F028", "f4": "\U0001F029",
    "G": "\U0001F02A",
}


def parse_tile(code: object, where: str = "tile") -> int:
    """Return the index of one tile code, or raise InputError naming the bad code and where it was."""
    if isinstance(code, str):
        idx = INDEX.get(code.strip())
        if idx is not None:
            return idx
    raise InputError(f"{where}: unknown tile code {shorten(code)} (expected 1m-9m, 1p-9p, 1s-9s, E S W N C F P, "
                     "f1-f8 or G)", f"不認得的牌代號 {shorten(code)}（應為 1m-9m、1p-9p、1s-9s、E S W N C F P、"
                                    "f1-f8 或 G）")


def parse_tiles(codes: object, where: str, most: int = 20) -> list[int]:
    """Parse a JSON list of at most ``most`` tile codes; a plain string like "123m 55p EE" is accepted too."""
    if isinstance(codes, str):
        codes = split_notation(codes, where)
    if not isinstance(codes, list):
        raise InputError(f"{where}: expected a list of tile codes, got {type(codes).__name__}")
    if len(codes) > most:
        raise InputError(f"{where}: {len(codes)} tiles, more than any hand holds (at most {most})",
                         f"{len(codes)} 張牌，比任何一手牌都多（最多 {most} 張）")
    try:
        return [INDEX[c] for c in codes]  # the common case, without building a location per tile
    except (KeyError, TypeError):
        return [parse_tile(c, f"{where}[{i}]") for i, c in enumerate(codes)]


def split_notation(text: str, where: str = "tiles") -> list[str]:
    """Expand compact notation ("123m 55p ESW f1 G") into single codes."""
    out: list[str] = []
    for word in text.replace(",", " ").split():
        if word in INDEX:
            out.append(word)
        elif len(word) >= 2 and word[-1] in "mps" and word[:-1].isdigit():
            out.extend(f"{d}{word[-1]}" for d in word[:-1])
        elif all(ch in "ESWNCFPG" for ch in word):
            out.extend(word)
        else:
            raise InputError(f"{where}: cannot read {shorten(word)} as tiles", f"無法把 {shorten(word)} 讀成牌")
    return out


def is_suited(t: int) -> bool:
    """1-9 of characters, circles or bamboo."""
    return t < FIRST_WIND


def suit_of(t: int) -> int:
    """0 = m, 1 = p, 2 = s; only for suited tiles."""
    return t // 9


def rank_of(t: int) -> int:
    """Rank 1-9 of a suited tile."""
    return t % 9 + 1


def is_wind(t: int) -> bool:
    """E S W N."""
    return FIRST_WIND <= t < FIRST_DRAGON


def is_dragon(t: int) -> bool:
    """C F P."""
    return FIRST_DRAGON <= t < N_KINDS


def next_kind(t: int) -> int:
    """The tile after t for a ghost indicator: suits wrap 9->1, winds E->S->W->N->E, dragons C->F->P->C."""
    if is_suited(t):
        return t - 8 if t % 9 == 8 else t + 1
    if is_wind(t):
        return FIRST_WIND + (t - FIRST_WIND + 1) % 4
    if is_dragon(t):
        return FIRST_DRAGON + (t - FIRST_DRAGON + 1) % 3
    raise InputError(f"ghost indicator {CODES[t]} must be a playing tile")

FACE_ZH = {"E": "東", "S": "南", "W": "西", "N": "北", "C": "中", "F": "發", "P": "白",
           "f1": "春", "f2": "夏", "f3": "秋", "f4": "冬", "f5": "梅", "f6": "蘭", "f7": "菊", "f8": "竹"}


def face_zh(t: int) -> str:
    """A tile's face in Chinese where it has a character (中, 春…), else its code (5m)."""
    return FACE_ZH.get(CODES[t], CODES[t])
