"""Value objects of RULES.md §0.2-0.3: Meld, Hand, KongEvent, WinContext, and their strict JSON parsers."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .errors import InputError
from .limits import shorten
from .text import Text
from .tiles import CODES, N_KINDS, is_suited, parse_tile, parse_tiles, rank_of, suit_of

MELD_TYPES = ("chow", "pung", "kong_exposed", "kong_added", "kong_concealed")
WIN_TYPES = ("self_draw", "discard", "rob_kong", "quick_shot")
KONG_KINDS = ("concealed", "exposed", "added", "flower")
MELD_KIND = {"kong_exposed": "exposed", "kong_added": "added", "kong_concealed": "concealed"}

MELD_TEXT: dict[str, Text] = {
    "chow": Text("Chow", "吃"),
    "pung": Text("Pung", "碰"),
    "kong_exposed": Text("Direct kong", "明槓"),
    "kong_added": Text("Added kong", "加槓"),
    "kong_concealed": Text("Concealed kong", "暗槓"),
}


@dataclass(frozen=True, slots=True)
class Meld:
    """A declared set: type, tile indices and the feeding seat (None for a concealed kong)."""

    type: str
    tiles: tuple[int, ...]
    from_seat: int | None

    @property
    def is_kong(self) -> bool:
        return self.type.startswith("kong")

    @property
    def kind(self) -> int:
        """The lowest tile kind of the meld (the tile of a pung/kong, the start of a chow)."""
        return min(self.tiles)

    @property
    def is_claimed(self) -> bool:
        """Pung, exposed or added kong: counts as a feed (§1.5) and breaks 門清."""
        return self.type in ("pung", "kong_exposed", "kong_added")

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "tiles": [CODES[t] for t in self.tiles], "from": self.from_seat}


@dataclass(frozen=True, slots=True)
class Hand:
    """The winner's tiles: concealed (without the winning tile), melds, winning tile, flowers."""

    concealed: tuple[int, ...]
    melds: tuple[Meld, ...]
    winning_tile: int | None
    flowers: tuple[int, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "concealed": [CODES[t] for t in self.concealed],
            "melds": [m.to_json() for m in self.melds],
            "winning_tile": None if self.winning_tile is None else CODES[self.winning_tile],
            "flowers": [CODES[t] for t in self.flowers],
        }


@dataclass(frozen=True, slots=True)
class KongEvent:
    """One kong declared by any player during the hand (context.kong_events)."""

    seat: int
    kind: str
    from_seat: int | None = None
    chain: Any = None
    robbed: bool = False
    tile: int | None = None  # the kong's face where the caller gives it (the page does): checked, not priced


@dataclass(slots=True)
class WinContext:
    """The situation of a win (RULES.md §0.3)."""

    winner: int
    dealer: int
    win_type: str
    discarder: int | None = None
    replacement: str | None = None
    bloom_chain: list[tuple[str, int | None]] = field(default_factory=list)
    after_kong: bool = False
    last_tile: bool = False
    heavenly: bool = False
    earthly: bool = False
    kong_events: list[KongEvent] | None = None
    penalty_events: list[tuple[str, int]] = field(default_factory=list)
    previous_winner: int | None = None
    fish_tiles: list[int] | None = None
    other_melds: dict[int, list[Meld]] = field(default_factory=dict)

    @property
    def is_self_draw(self) -> bool:
        return self.win_type == "self_draw"


# ---------------------------------------------------------------- parsing helpers

def _seat(value: object, where: str, allow_none: bool = False) -> int | None:
    if value is None and allow_none:
        return None
    return _a_seat(value, where)


def _a_seat(value: object, where: str) -> int:
    """A seat that must be given: 0-3 (InputError otherwise)."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 3:
        raise InputError(f"{where}: expected a seat 0-3, got {shorten(value)}")
    return value


def _flag(value: object, where: str) -> bool:
    if value is None:
        return False
    if not isinstance(value, bool):
        raise InputError(f"{where}: expected true or false, got {shorten(value)}")
    return value


def _obj(value: object, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InputError(f"{where}: expected a JSON object, got {type(value).__name__}")
    return value


def parse_meld(raw: object, where: str) -> Meld:
    """Parse one meld and check its own shape (tile count, equal tiles, consecutive chow)."""
    d = _obj(raw, where)
    mtype = d.get("type")
    if mtype not in MELD_TYPES:
        raise InputError(f"{where}.type: unknown meld type {shorten(mtype)} (expected one of {', '.join(MELD_TYPES)})")
    if "tiles" not in d:
        raise InputError(f"{where}: missing field 'tiles'")
    tiles = parse_tiles(d["tiles"], f"{where}.tiles")
    need = 4 if mtype.startswith("kong") else 3
    if len(tiles) != need:
        raise InputError(f"{where}: a {mtype} has {need} tiles, got {len(tiles)}",
                         f"{MELD_TEXT[mtype].zh}要 {need} 張牌，這裡有 {len(tiles)} 張")
    if any(t >= N_KINDS for t in tiles):
        raise InputError(f"{where}: flowers and ghost tiles cannot be in a meld")
    if mtype == "chow":
        s = sorted(tiles)
        if not (is_suited(s[0]) and suit_of(s[0]) == suit_of(s[2]) and s[1] == s[0] + 1 and s[2] == s[0] + 2
                and rank_of(s[0]) <= 7):
            raise InputError(f"{where}: a chow must be three consecutive tiles of one suit, got "
                             f"{' '.join(CODES[t] for t in tiles)}",
                             f"吃必須是同一門的三張順序牌，這裡是 {' '.join(CODES[t] for t in tiles)}")
        tiles = s
    elif len(set(tiles)) != 1:
        shown = ' '.join(CODES[t] for t in tiles)
        raise InputError(f"{where}: a {mtype} must be {need} identical tiles, got {shown}",
                         f"{MELD_TEXT[mtype].zh}必須是 {need} 張相同的牌，這裡是 {shown}")
    if mtype == "kong_concealed":
        if d.get("from") is not None:
            raise InputError(f"{where}.from: a concealed kong has no feeder (from must be null)")
        frm = None
    else:
        if "from" not in d or d["from"] is None:
            raise InputError(f"{where}.from: a {mtype} needs the seat that fed it")
        frm = _seat(d["from"], f"{where}.from")
    return Meld(mtype, tuple(tiles), frm)


def parse_hand(raw: object) -> Hand:
    """Parse hand JSON (§0.2); tile-count rules that depend on the ruleset are checked by the ruleset."""
    d = _obj(raw, "hand")
    if "concealed" not in d:
        raise InputError("hand: missing field 'concealed'")
    concealed = parse_tiles(d["concealed"], "hand.concealed")
    melds_raw = d.get("melds", [])
    if melds_raw is None:
        melds_raw = []
    if not isinstance(melds_raw, list):
        raise InputError("hand.melds: expected a list of melds")
    if len(melds_raw) > 4:
        raise InputError(f"hand.melds: at most 4 melds, got {len(melds_raw)}")
    melds = [parse_meld(m, f"hand.melds[{i}]") for i, m in enumerate(melds_raw)]
    if "winning_tile" not in d:
        raise InputError("hand: missing field 'winning_tile' (null only for a Nanjing quick shot)")
    wt = d["winning_tile"]
    win = None if wt is None else parse_tile(wt, "hand.winning_tile")
    flowers = parse_tiles(d.get("flowers") or [], "hand.flowers")
    return Hand(tuple(concealed), tuple(melds), win, tuple(flowers))


def _kong_event(raw: object, where: str) -> KongEvent:
    d = _obj(raw, where)
    seat = _a_seat(d.get("seat"), f"{where}.seat")
    kind = d.get("kind")
    if kind not in KONG_KINDS:
        raise InputError(f"{where}.kind: expected one of {', '.join(KONG_KINDS)}, got {shorten(kind)}")
    frm = None
    if kind in ("exposed", "added"):
        if d.get("from") is None:
            raise InputError(f"{where}.from: an {kind} kong needs the seat that fed it")
        frm = _seat(d.get("from"), f"{where}.from")
        if frm == seat:
            raise InputError(f"{where}.from: seat {seat} cannot feed its own kong")
    tile = None if d.get("tile") is None else parse_tile(d["tile"], f"{where}.tile")
    return KongEvent(seat, kind, frm, d.get("chain"), _flag(d.get("robbed"), f"{where}.robbed"), tile)


ALL_FIELDS = frozenset({"replacement", "bloom_chain", "bloom_kong", "after_kong", "last_tile", "penalty_events",
                        "previous_winner", "fish_tiles", "other_melds"})

def _kong_events(d: dict[str, Any]) -> list[KongEvent] | None:
    """context.kong_events, or None where the field is absent."""
    if d.get("kong_events") is None:
        return None
    if not isinstance(d["kong_events"], list) or len(d["kong_events"]) > 16:
        raise InputError("context.kong_events: expected a list of at most 16 kongs (four players, four each), "
                         f"got {shorten(d['kong_events'])}")
    return [_kong_event(e, f"context.kong_events[{i}]") for i, e in enumerate(d["kong_events"])]


def _penalties(d: dict[str, Any], uses: frozenset[str]) -> list[tuple[str, int]]:
    """context.penalty_events as (kind, seat), where the ruleset reads them."""
    penalties: list[tuple[str, int]] = []
    raw_pen = d.get("penalty_events") if "penalty_events" in uses else None
    if raw_pen is not None and (not isinstance(raw_pen, list) or len(raw_pen) > 64):
        raise InputError(f"context.penalty_events: expected a list of at most 64 penalties, got {shorten(raw_pen)}")
    for i, e in enumerate(raw_pen or []):
        ed = _obj(e, f"context.penalty_events[{i}]")
        kind = ed.get("kind")
        if kind not in ("follow", "four_same"):
            raise InputError(f"context.penalty_events[{i}].kind: expected follow or four_same, got {shorten(kind)}")
        seat = _seat(ed.get("seat"), f"context.penalty_events[{i}].seat")
        assert seat is not None
        penalties.append((kind, seat))
    return penalties


@dataclass(slots=True)
class DrawContext:
    """A drawn hand (荒莊, RULES.md D-C13): the dealer, every kong declared and the penalties; no winner."""

    dealer: int
    kong_events: list[KongEvent] = field(default_factory=list)
    penalty_events: list[tuple[str, int]] = field(default_factory=list)


def parse_draw_context(raw: object, uses: frozenset[str] = ALL_FIELDS) -> DrawContext:
    """Parse the context of a drawn-hand case: ``dealer``, ``kong_events`` and (where read) ``penalty_events``.
    A kong cannot be robbed in a drawn hand: nobody won on it."""
    d = _obj(raw, "context")
    if "dealer" not in d:
        raise InputError("context: missing field 'dealer'", "荒莊要指定莊家")
    dealer = _seat(d["dealer"], "context.dealer")
    assert dealer is not None
    events = _kong_events(d) or []
    for i, e in enumerate(events):
        if e.robbed:
            raise InputError(f"context.kong_events[{i}].robbed: in a drawn hand nobody won, so no kong was robbed",
                             "荒莊沒有人胡，不可能搶槓")
    return DrawContext(dealer, events, _penalties(d, uses))



def _bloom_chain(d: dict[str, Any], uses: frozenset[str], winner: int) -> list[tuple[str, int | None]]:
    """The kongs behind a replacement win: ``bloom_chain`` (nanning) or ``bloom_kong`` (nanjing), whichever the
    ruleset reads. The other spelling stands in only when the ruleset's own is absent, and only if it is
    well formed (a field the ruleset does not read can never make a case invalid, D-C5)."""
    own = "bloom_chain" if "bloom_chain" in uses else "bloom_kong" if "bloom_kong" in uses else None
    if own is None:
        return []
    other = "bloom_kong" if own == "bloom_chain" else "bloom_chain"
    if d.get(own) is not None:
        chain = _parse_chain(d[own], f"context.{own}", winner, single=own == "bloom_kong")
    elif d.get(other) is not None:
        try:
            chain = _parse_chain(d[other], f"context.{other}", winner, single=other == "bloom_kong")
        except InputError:
            chain = []
    else:
        chain = []
    return chain[-1:] if own == "bloom_kong" else chain


def _parse_chain(raw: object, where: str, winner: int, single: bool) -> list[tuple[str, int | None]]:
    """A list of kongs ``{"kind", "from"}`` (or one kong when ``single``)."""
    raw_chain = [raw] if single else raw
    if not isinstance(raw_chain, list):
        raise InputError(f"{where}: expected a list of kongs, got {shorten(raw_chain)}")
    if len(raw_chain) > 4:
        raise InputError(f"{where}: a player has at most 4 kongs, got {len(raw_chain)}")
    chain: list[tuple[str, int | None]] = []
    for i, k in enumerate(raw_chain):
        at = where if single else f"{where}[{i}]"
        kd = _obj(k, at)
        kind = kd.get("kind")
        if kind not in ("concealed", "exposed", "added"):
            raise InputError(f"{at}.kind: expected concealed, exposed or added, got {shorten(kind)}")
        frm = None
        if kind != "concealed":
            frm = _seat(kd.get("from"), f"{at}.from")
            if frm == winner:
                raise InputError(f"{at}.from: the winner cannot feed his own kong")
        chain.append((kind, frm))
    return chain


def _fish_tiles(d: dict[str, Any], uses: frozenset[str]) -> list[int] | None:
    """context.fish_tiles (釣魚), where the ruleset reads it: at most 3 playing tiles."""
    if "fish_tiles" not in uses or d.get("fish_tiles") is None:
        return None
    fish = parse_tiles(d["fish_tiles"], "context.fish_tiles")
    if len(fish) > 3 or any(t >= N_KINDS for t in fish):
        raise InputError("context.fish_tiles: at most 3 playing tiles")
    return fish


def _other_melds(d: dict[str, Any], uses: frozenset[str], winner: int) -> dict[int, list[Meld]]:
    """context.other_melds, where the ruleset reads it: the other seats' exposed melds, by seat."""
    other: dict[int, list[Meld]] = {}
    if "other_melds" not in uses or d.get("other_melds") is None:
        return other
    om = _obj(d["other_melds"], "context.other_melds")
    for key, melds in om.items():
        if key.strip() not in ("0", "1", "2", "3"):
            raise InputError(f"context.other_melds: key {shorten(key)} is not a seat 0-3")
        seat = int(key)
        if seat == winner:
            raise InputError("context.other_melds: holds the other seats only, not the winner")
        if not isinstance(melds, list) or len(melds) > 4:
            raise InputError(f"context.other_melds[{key!r}]: expected a list of at most 4 melds")
        other[seat] = [parse_meld(m, f"context.other_melds[{key!r}][{i}]") for i, m in enumerate(melds)]
    return other


def parse_context(raw: object, uses: frozenset[str] = ALL_FIELDS) -> WinContext:
    """Parse the win context (§0.3). Fields outside ``uses`` (those the ruleset never reads, D-C5) are ignored,
    as are unknown extra fields; wrong types in the fields read are errors."""
    d = _obj(raw, "context")
    for key in ("winner", "dealer", "win_type"):
        if key not in d:
            raise InputError(f"context: missing field {key!r}")
    winner = _seat(d["winner"], "context.winner")
    dealer = _seat(d["dealer"], "context.dealer")
    assert winner is not None and dealer is not None
    win_type = d["win_type"]
    if not isinstance(win_type, str) or win_type not in WIN_TYPES:
        raise InputError(f"context.win_type: expected one of {', '.join(WIN_TYPES)}, got {shorten(win_type)}")
    discarder = None
    if win_type != "self_draw":
        if d.get("discarder") is None:
            raise InputError(f"context.discarder: a {win_type} win needs the discarder / feeder seat",
                             "這種胡法要指定放炮（餵牌）的玩家")
        discarder = _seat(d["discarder"], "context.discarder")
        if discarder == winner:
            raise InputError("context.discarder: the winner cannot be the discarder", "胡牌的人不能是放炮的人")
    replacement = d.get("replacement") if "replacement" in uses else None
    if replacement not in (None, "kong", "flower"):
        raise InputError(f"context.replacement: expected null, \"kong\" or \"flower\", got {shorten(replacement)}")
    if replacement is not None and win_type != "self_draw":
        raise InputError("context.replacement: a replacement-tile win is a self-draw (win_type must be self_draw)")
    chain = _bloom_chain(d, uses, winner)
    if replacement == "kong" and not chain:
        raise InputError("context.bloom_chain: a win on a kong replacement needs the kong (bloom_chain or bloom_kong)")
    kong_events = _kong_events(d)
    penalties = _penalties(d, uses)
    fish = _fish_tiles(d, uses)
    other = _other_melds(d, uses, winner)

    def flag(name: str) -> bool:
        return _flag(d.get(name), f"context.{name}") if name in uses else False

    ctx = WinContext(
        winner=winner, dealer=dealer, win_type=win_type, discarder=discarder, replacement=replacement,
        bloom_chain=chain, after_kong=flag("after_kong"), last_tile=flag("last_tile"),
        heavenly=_flag(d.get("heavenly"), "context.heavenly"),
        earthly=_flag(d.get("earthly"), "context.earthly"),
        kong_events=kong_events, penalty_events=penalties,
        previous_winner=_seat(d.get("previous_winner"), "context.previous_winner", allow_none=True)
        if "previous_winner" in uses else None,
        fish_tiles=fish, other_melds=other,
    )
    if ctx.after_kong and win_type != "discard":
        raise InputError("context.after_kong: only a discard win can follow the discarder's kong")
    return ctx
