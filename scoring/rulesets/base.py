"""The ruleset core: options, input checks shared by all rule sets, shapes of a hand, element base class."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from ..divider import counts_of, is_thirteen_orphans, seven_pairs_quads, standard, waits
from ..errors import InputError
from ..hand import MELD_KIND, Hand, KongEvent, WinContext
from ..result import Payments, ScoreResult
from ..tiles import CODES, N_KINDS


@dataclass(frozen=True)
class Option:
    """A house-rule option: default, a checker that raises on a bad value, and a one-line explanation."""

    default: Any
    check: Callable[[str, Any], Any]
    help: str


def opt_bool(name: str, v: Any) -> bool:
    if not isinstance(v, bool):
        raise InputError(f"options.{name}: expected true or false, got {v!r}")
    return v


def opt_int(lo: int | None = None, hi: int | None = None, nullable: bool = False) -> Callable[[str, Any], Any]:
    def check(name: str, v: Any) -> Any:
        if v is None and nullable:
            return None
        if isinstance(v, bool) or not isinstance(v, int) or (lo is not None and v < lo) or (hi is not None and v > hi):
            rng = f" in {lo}..{hi if hi is not None else ''}" if lo is not None else ""
            raise InputError(f"options.{name}: expected an integer{rng}{' or null' if nullable else ''}, got {v!r}")
        return v
    return check


def opt_choice(*choices: Any) -> Callable[[str, Any], Any]:
    def check(name: str, v: Any) -> Any:
        if not any(v == c and type(v) is type(c) for c in choices):
            raise InputError(f"options.{name}: expected one of {', '.join(map(repr, choices))}, got {v!r}")
        return v
    check.choices = choices  # type: ignore[attr-defined]  # lets a UI offer the choices
    return check


@dataclass(slots=True)
class Shape:
    """One way to read the winner's 14 tiles: a standard division, seven pairs or thirteen orphans.

    ``groups`` are the concealed sets; melds stay in ``hand.melds``. ``represented`` lists what ghost
    tiles stood for (empty without ghosts).
    """

    kind: str  # "standard" | "seven_pairs" | "orphans"
    pair: int | None = None
    groups: tuple[tuple[int, bool], ...] = ()
    quads: int = 0
    represented: tuple[int, ...] = ()
    counts: tuple[int, ...] = ()  # concealed + winning tile, after ghost substitution


def all_pungs(shape: Shape | None, hand: Hand) -> bool:
    """對對胡 shape: a standard division whose concealed sets and melds are all triplets or kongs."""
    return shape is not None and shape.kind == "standard" and not any(run for _, run in shape.groups) \
        and all(m.type != "chow" for m in hand.melds)


class Element:
    """One scoring element (the MahjongRepository `Yaku` shape): id, names, condition, value, reason."""

    id: ClassVar[str]
    zh: ClassVar[str]
    en: ClassVar[str]
    excludes: ClassVar[tuple[str, ...]] = ()  # ids of elements this one replaces when both apply

    def is_condition_met(self, view: Any) -> bool:  # pragma: no cover - interface
        raise NotImplementedError

    def reason(self, view: Any) -> str:  # pragma: no cover - interface
        raise NotImplementedError


class Ruleset:
    """Base of every rule set: parses options, checks the input, lists shapes, pays kongs."""

    name: ClassVar[str]
    title: ClassVar[str]
    options: ClassVar[dict[str, Option]]
    allows_chow: ClassVar[bool] = False
    allows_flowers: ClassVar[bool] = False
    seven_pairs_with_melds: ClassVar[bool] = False

    # ------------------------------------------------------------ options
    def parse_options(self, raw: object) -> dict[str, Any]:
        """Defaults of RULES.md overlaid with the given options; unknown names and bad values are errors."""
        if raw is None:
            raw = {}
        if not isinstance(raw, dict):
            raise InputError("options: expected a JSON object")
        out = {k: o.default for k, o in self.options.items()}
        for k, v in raw.items():
            if k not in self.options:
                raise InputError(f"options: unknown option {k!r} for ruleset {self.name} "
                                 f"(known: {', '.join(sorted(self.options))})")
            out[k] = self.options[k].check(k, v)
        return out

    # ------------------------------------------------------------ input checks
    def expected_concealed(self, hand: Hand, ctx: WinContext) -> int:
        return 13 - 3 * len(hand.melds)

    def check_tile(self, t: int, where: str, opts: dict[str, Any]) -> None:
        """Reject a tile this rule set does not play with (flowers, ghosts, dragons in Nanjing)."""
        if t >= N_KINDS:
            raise InputError(f"{where}: {CODES[t]} is not a playing tile in {self.name}")

    def validate(self, hand: Hand, ctx: WinContext, opts: dict[str, Any]) -> None:
        """Input checks common to all rule sets; subclasses add their own."""
        for i, m in enumerate(hand.melds):
            where = f"hand.melds[{i}]"
            for t in m.tiles:
                self.check_tile(t, where, opts)
            if m.from_seat == ctx.winner:
                raise InputError(f"{where}.from: a meld cannot be fed by the winner (seat {ctx.winner}) himself")
            if m.type == "chow":
                if not self.allows_chow:
                    raise InputError(f"{where}: {self.name} has no chow (吃)")
                left = (ctx.winner + 3) % 4
                if m.from_seat != left:
                    raise InputError(f"{where}.from: a chow can only be claimed from the left player "
                                     f"(seat {left}), got seat {m.from_seat}")
        need = self.expected_concealed(hand, ctx)
        if len(hand.concealed) != need:
            raise InputError(f"hand.concealed: with {len(hand.melds)} meld(s) the concealed hand holds {need} tiles "
                             f"(without the winning tile), got {len(hand.concealed)}")
        if hand.winning_tile is None and ctx.win_type != "quick_shot":
            raise InputError("hand.winning_tile: null is only allowed for a Nanjing quick shot")
        for i, t in enumerate(hand.concealed):
            self.check_tile(t, f"hand.concealed[{i}]", opts)
        if hand.winning_tile is not None:
            self.check_tile(hand.winning_tile, "hand.winning_tile", opts)
        if hand.flowers and not self.allows_flowers:
            raise InputError(f"hand.flowers: {self.name} has no flowers")
        all_tiles = list(hand.concealed) + [t for m in hand.melds for t in m.tiles] + list(hand.flowers)
        if hand.winning_tile is not None:
            all_tiles.append(hand.winning_tile)
        seen: dict[int, int] = {}
        for t in all_tiles:
            seen[t] = seen.get(t, 0) + 1
        for t, n in seen.items():
            cap = 1 if 34 <= t < 42 else 4
            if n > cap:
                raise InputError(f"hand: {n} x {CODES[t]}, but a set has only {cap} (impossible hand)")
        for e in ctx.kong_events or []:
            if e.kind == "flower" and not self.allows_flowers:
                raise InputError(f"context.kong_events: {self.name} has no flower kongs")
        if ctx.win_type == "quick_shot" and self.name != "nanjing":
            raise InputError(f"context.win_type: quick_shot exists only in nanjing, not in {self.name}")

    # ------------------------------------------------------------ shapes
    def concealed_counts(self, hand: Hand) -> list[int]:
        c = counts_of(hand.concealed)
        if hand.winning_tile is not None and hand.winning_tile < N_KINDS:
            c[hand.winning_tile] += 1
        return c

    def shapes(self, hand: Hand, ctx: WinContext, opts: dict[str, Any]) -> list[Shape]:
        """Every reading of the hand as a win under this rule set (no ghosts)."""
        counts = tuple(self.concealed_counts(hand))
        out = [Shape("standard", p, g, counts=counts) for p, g in standard(counts)]
        if not hand.melds or self.seven_pairs_with_melds:
            q = seven_pairs_quads(counts)
            if q is not None:
                out.append(Shape("seven_pairs", quads=q, counts=counts))
        if self.has_orphans and not hand.melds and is_thirteen_orphans(counts):
            out.append(Shape("orphans", counts=counts))
        return out

    has_orphans: ClassVar[bool] = False

    def held_counts(self, hand: Hand, counts: tuple[int, ...] | list[int]) -> list[int]:
        """Counts of concealed (+winning) and meld tiles together."""
        held = list(counts)
        for m in hand.melds:
            for t in m.tiles:
                held[t] += 1
        return held

    def wait_kinds(self, hand: Hand, shape: Shape) -> list[int]:
        """The kinds the 13-tile hand (winning tile removed) was waiting on (§0.5 single wait)."""
        c = list(shape.counts)
        w = hand.winning_tile
        if w is None or c[w] == 0:
            return []
        c[w] -= 1
        held = self.held_counts(hand, c)
        return waits(c, held, self.playing_kinds, seven_pairs=not hand.melds, orphans=self.has_orphans)

    playing_kinds: ClassVar[range | tuple[int, ...]] = range(N_KINDS)

    # ------------------------------------------------------------ kong money
    def kong_events(self, hand: Hand, ctx: WinContext) -> list[KongEvent]:
        """context.kong_events; when absent, the winner's own kong melds (each was declared this hand)."""
        if ctx.kong_events is not None:
            events = list(ctx.kong_events)
        else:
            events = [KongEvent(ctx.winner, MELD_KIND[m.type], m.from_seat) for m in hand.melds if m.is_kong]
        if ctx.win_type == "rob_kong" and not any(e.robbed for e in events):
            # the robbed added kong never completed: it earns no kong money
            for i in range(len(events) - 1, -1, -1):
                e = events[i]
                if e.seat == ctx.discarder and e.kind == "added":
                    events[i] = KongEvent(e.seat, e.kind, e.from_seat, e.chain, True)
                    break
        return events

    def score(self, hand: Hand, ctx: WinContext, opts: dict[str, Any]) -> ScoreResult:  # pragma: no cover
        raise NotImplementedError


def pay_kong_simple(events: list[KongEvent], exposed: int, added: int, concealed_each: int,
                    flower_each: int = 0) -> Payments:
    """Kong money without chain liability: feeder pays exposed/added, everyone pays concealed/flower."""
    pay = Payments()
    for e in events:
        if e.robbed:
            continue
        if e.kind == "exposed":
            pay.add(e.from_seat, e.seat, exposed)
        elif e.kind == "added":
            pay.add(e.from_seat, e.seat, added)
        elif e.kind == "concealed":
            pay.each_pays(e.seat, concealed_each)
        elif e.kind == "flower":
            pay.each_pays(e.seat, flower_each)
    return pay


def feed_counts(melds: Any) -> list[int]:
    """How many of these melds each seat fed: pungs, exposed and added kongs (a concealed kong never counts)."""
    feeds = [0, 0, 0, 0]
    for m in melds:
        if m.is_claimed and m.from_seat is not None:
            feeds[m.from_seat] += 1
    return feeds


def apply_exclusions(elements: list[Element]) -> list[Element]:
    """Drop every element that another present element excludes."""
    gone = {x for e in elements for x in e.excludes}
    return [e for e in elements if e.id not in gone]


def suits_and_honors(counts: list[int] | tuple[int, ...]) -> tuple[set[int], bool, bool]:
    """Suits present (0 m, 1 p, 2 s), whether any wind, whether any dragon."""
    suits = {k // 9 for k in range(27) if counts[k]}
    winds = any(counts[k] for k in range(27, 31))
    dragons = any(counts[k] for k in range(31, 34))
    return suits, winds, dragons


def describe_shape(shape: Shape, hand: Hand) -> dict[str, Any]:
    """The chosen reading of the hand, for the explanation in every result."""
    if shape.kind == "standard":
        sets = [[CODES[k], CODES[k + 1], CODES[k + 2]] if run else [CODES[k]] * 3 for k, run in shape.groups]
        d: dict[str, Any] = {"kind": "standard", "pair": [CODES[shape.pair]] * 2 if shape.pair is not None else None,
                             "sets": sets}
    else:
        d = {"kind": shape.kind}
        if shape.kind == "seven_pairs":
            d["quads"] = shape.quads
    return d
