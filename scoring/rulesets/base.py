"""The ruleset core: declared capabilities, options, input checks, and the one scoring loop every ruleset shares.

A ruleset is a small subclass of :class:`Ruleset` (the python-chess variant pattern): it declares what it has as
typed class attributes (tiles, flowers, chows, win types, the situation fields it reads, texts in zh and en, the
dealer rule) and overrides the hooks of the scoring template ``validate -> views -> evaluate -> rank -> reject ->
settle``. Code outside ``scoring/rulesets`` asks the ruleset object and never compares its name.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeVar

from ..divider import counts_of, is_standard_complete, is_thirteen_orphans, seven_pairs_quads, standard, waits
from ..errors import InputError
from ..hand import MELD_KIND, MELD_TEXT, DrawContext, Hand, KongEvent, Meld, WinContext
from ..limits import check_amount, shorten
from ..result import Payments, ScoredElement, ScoreResult, invalid
from ..text import Text
from ..tiles import CODES, DRAGONS, FLOWERS, N_KINDS, SUITED, WINDS, face_zh

# ---------------------------------------------------------------- option checkers


@dataclass(frozen=True)
class Option:
    """A house-rule option: default, a checker that raises on a bad value, and a one-line explanation."""

    default: Any
    check: Callable[[str, Any], Any]
    help: str
    help_zh: str = ""
    choices_text: dict[Any, Text] = field(default_factory=dict)  # a choice option's values in words

    def text(self) -> Text:
        """The help line in both languages."""
        return Text(self.help, self.help_zh or self.help)

    def choice_text(self, value: Any, lang: str) -> str:
        """One of the choices in words (its id where none is given)."""
        said = self.choices_text.get(value)
        return said.get(lang) if said else str(value)


def opt_bool(name: str, v: Any) -> bool:
    """Checker of a true/false option."""
    if not isinstance(v, bool):
        raise InputError(f"options.{name}: expected true or false, got {shorten(v)}")
    return v


def opt_int(lo: int, hi: int, nullable: bool = False) -> Callable[[str, Any], Any]:
    """Checker of an integer option in lo..hi (D-C6: every option is bounded so amounts fit 64 bits)."""
    def check(name: str, v: Any) -> Any:
        if v is None and nullable:
            return None
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            raise InputError(f"options.{name}: expected an integer in {lo}..{hi}{' or null' if nullable else ''}, "
                             f"got {shorten(v)}")
        return v
    check.bounds = (lo, hi)  # type: ignore[attr-defined]  # lets a UI bound its number input
    return check


def opt_choice(*choices: Any) -> Callable[[str, Any], Any]:
    """Checker of an option with a fixed set of values."""
    def check(name: str, v: Any) -> Any:
        if not any(v == c and type(v) is type(c) for c in choices):
            raise InputError(f"options.{name}: expected one of {', '.join(map(repr, choices))}, got {shorten(v)}")
        return v
    check.choices = choices  # type: ignore[attr-defined]  # lets a UI offer the choices
    return check


FAN = opt_int(0, 64)  # D-C6 bounds
MONEY = opt_int(0, 10**6)
BASE = opt_int(1, 10**6)

# ---------------------------------------------------------------- texts shared by the rulesets

WIN_TYPE_TEXT: dict[str, Text] = {
    "self_draw": Text("Self-draw", "自摸"),
    "discard": Text("On a discard", "放炮"),
    "rob_kong": Text("Robbing a kong", "搶槓"),
    "quick_shot": Text("Quick shot (fourth mouth)", "快照"),
}
REPLACEMENT_TEXT: dict[str, Text] = {
    "kong": Text("Kong replacement", "槓上開花"),
    "flower": Text("Flower replacement", "花開"),
}
LIABILITY_TEXT: dict[str, Text] = {
    "fenghu": Text("Three feeds (封胡): the feeder is liable", "封胡包牌"),
    "qianggang": Text("Robbed kong: the robbed player pays", "搶槓：被搶者付"),
    "dagangkaihua": Text("Bloom on a fed kong: the kong's feeder pays", "大杠開花：放槓者付"),
    "sanzui": Text("Three mouths (三嘴): the feeder is liable", "三嘴包牌"),
    "sanzui_kuaizhao": Text("Quick shot: the feeder pays all", "快照：送嘴者付"),
}
ERROR_TEXT: dict[str, Text] = {
    "not_a_winning_hand": Text("the tiles do not form a winning hand", "牌型不成胡"),
    "invalid_input": Text("the hand or situation is not possible", "牌或情況不可能"),
}


@dataclass(frozen=True)
class SituationField:
    """A context field a person is asked about: its key, label and one-line help in both languages."""

    name: str
    label: Text
    help: Text


FIELDS: dict[str, SituationField] = {f.name: f for f in (
    SituationField("replacement", Text("Won on a replacement tile", "補牌胡"),
                   Text("the winning tile was drawn to replace a kong (or a flower)", "胡的是槓後（或補花）摸的牌")),
    SituationField("bloom_chain", Text("Kongs that led to the replacement (in order)", "引起補牌的槓（按順序）"),
                   Text("one kong, or several declared one after another (連槓)", "一個槓，或連續的幾個槓（連槓）")),
    SituationField("bloom_kong", Text("The kong whose replacement won", "開花的槓"),
                   Text("who fed it decides who pays", "放槓者決定誰付")),
    SituationField("after_kong", Text("Discarder had just declared a kong", "放炮者剛槓過（槓上炮）"),
                   Text("the discarder declared a kong, drew its replacement and discarded the winning tile; "
                        "enter his kong last among the kongs of this hand",
                        "放炮者槓後補牌，再打出這張；請把他的槓記在本局的槓的最後")),
    SituationField("last_tile", Text("Last tile of the wall", "海底牌"),
                   Text("the winning tile is the last wall tile, or the discard of whoever drew it",
                        "胡的是最後一張牌牆牌，或摸到它的人打出的牌")),
    SituationField("heavenly", Text("Heavenly hand", "天胡"),
                   Text("the dealer is complete on the initial 14 tiles", "莊家起手十四張即胡")),
    SituationField("earthly", Text("Earthly hand", "地胡"),
                   Text("a non-dealer wins at once, before any claim", "閒家第一巡即胡")),
    SituationField("kong_events", Text("Other players' kongs this hand", "其他玩家本局的槓"),
                   Text("every kong declared by anyone: it decides the kong money", "本局所有的槓，決定槓錢")),
    SituationField("penalty_events", Text("Penalties", "罰款"),
                   Text("跟牌 (four same discards in a row) or four identical discards by one player",
                        "跟牌，或一人打出四張同樣的牌")),
    SituationField("previous_winner", Text("Previous hand's winner", "上一局胡牌者"),
                   Text("釣魚 counts the fish tiles from this player", "釣魚從這位玩家數起")),
    SituationField("fish_tiles", Text("Fish tiles: the last wall tiles", "釣魚牌：最後的牌牆牌"),
                   Text("up to three tiles, e.g. 4m 2p", "最多三張，例如 4m 2p")),
    SituationField("other_melds", Text("Other players' melds", "其他玩家的副露"),
                   Text("lets the engine refuse a win by a player who is 封胡", "用來判定封胡")),
)}

RELATIVE_SEATS = ("right", "opposite", "left")  # seats winner+1, +2, +3: who fed a meld, as the winner sees it


def relative_seat(winner: int, seat: int) -> str:
    """'left' (上家), 'opposite' or 'right' (下家) of ``seat`` as the winner sees it."""
    return RELATIVE_SEATS[(seat - winner) % 4 - 1]


def seat_of(winner: int, relative: str) -> int:
    """The seat number of the winner's 'left', 'opposite' or 'right' player."""
    return (winner + RELATIVE_SEATS.index(relative) + 1) % 4


# ---------------------------------------------------------------- shapes, views and evaluations


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


@dataclass(slots=True)
class View:
    """What the elements look at for one reading of the hand (rulesets subclass it with their own fields)."""

    hand: Hand
    ctx: WinContext
    opts: dict[str, Any]
    shape: Shape | None
    all_counts: list[int]


V = TypeVar("V", bound=View)  # a ruleset's own view


@dataclass(slots=True)
class Evaluation(Generic[V]):
    """The elements of one view, the amount they give (per share, or fan) and the key that ranks readings (any
    value that orders: an int or a tuple of them)."""

    view: V
    elements: list[ScoredElement]
    amount: int
    rank: Any  # compared only among the readings of one hand by one ruleset
    info: dict[str, Any] = field(default_factory=dict)
    # (element, amount): explained only if kept
    pending: Sequence[tuple[Element[Any], int]] = field(default_factory=list)
    pending_unit: str = "value"  # what the pending amounts are: "value" or "fan"

    def finish(self) -> Evaluation[V]:
        """Write the reasons of the pending elements (only the best of many readings needs them)."""
        self.elements += [e.scored(self.view, **{self.pending_unit: n}) for e, n in self.pending]
        self.pending = []
        return self


def all_pungs(shape: Shape | None, hand: Hand) -> bool:
    """對對胡 shape: a standard division whose concealed sets and melds are all triplets or kongs."""
    return shape is not None and shape.kind == "standard" and not any(run for _, run in shape.groups) \
        and all(m.type != "chow" for m in hand.melds)


class Element(Generic[V]):
    """One scoring element (the MahjongRepository `Yaku` shape): id, names, condition, value, reason; ``V`` is
    the view of the ruleset it belongs to."""

    id: ClassVar[str]
    zh: ClassVar[str]
    en: ClassVar[str]
    excludes: ClassVar[tuple[str, ...]] = ()  # ids of elements this one replaces when both apply

    def is_condition_met(self, view: V) -> bool:  # pragma: no cover - interface
        raise NotImplementedError

    def reason(self, view: V) -> Text:  # pragma: no cover - interface
        raise NotImplementedError

    def scored(self, view: V, **amount: Any) -> ScoredElement:
        """This element as it appears in a result, with its reason in both languages."""
        return ScoredElement(self.id, self.zh, self.en, self.reason(view), **amount)


class ValuedElement(Element[V]):
    """An element whose amount its view gives (Nanning's shares by payer, Nanjing's 花): ``value(view)``."""

    def value(self, view: V) -> int:  # pragma: no cover - interface
        raise NotImplementedError


# ---------------------------------------------------------------- the ruleset


class Ruleset:
    """Base of every ruleset: declared capabilities, option parsing, input checks and the scoring template."""

    # identity and texts
    name: ClassVar[str]
    title: ClassVar[Text]
    unit: ClassVar[Text]  # what an amount counts: 張, 番 (points), 花
    options: ClassVar[dict[str, Option]]
    errors: ClassVar[dict[str, Text]] = ERROR_TEXT
    field_help: ClassVar[dict[str, Text]] = {}  # this ruleset's own definition of a situation field

    # tiles
    playing_kinds: ClassVar[Sequence[int]] = range(N_KINDS)  # kinds that may sit in the hand and melds
    flower_kinds: ClassVar[frozenset[int]] = frozenset()  # kinds set aside as flowers (hand.flowers)
    flower_kong_kinds: ClassVar[tuple[frozenset[int], ...]] = ()  # sets of flowers that make a 花杠

    # claims and shapes
    chow_from: ClassVar[frozenset[str]] = frozenset()  # relative seats a chow may come from; empty: no chow
    seven_pairs: ClassVar[bool] = True
    seven_pairs_with_melds: ClassVar[bool] = False
    has_orphans: ClassVar[bool] = False

    # the situation
    win_types: ClassVar[tuple[str, ...]] = ("self_draw", "discard", "rob_kong")
    replacements: ClassVar[tuple[str, ...]] = ()  # replacement-tile wins this ruleset knows
    situation_fields: ClassVar[tuple[str, ...]] = ("heavenly", "earthly", "kong_events")
    earthly_win_types: ClassVar[tuple[str, ...]] = ("self_draw",)  # D-C3: the win types 地胡 allows
    earthly_meld_types: ClassVar[tuple[str, ...]] = ()  # D-C3: meld types the winner may hold on a 地胡
    earthly_no_claims_by_anyone: ClassVar[bool] = True  # D-C3: nobody may have claimed or konged before a 地胡

    # the table
    winner_deals_next: ClassVar[bool] = True  # else the dealer keeps the deal on his own win and passes it on
    big_hand_keeps_deal: ClassVar[bool] = False  # D-J17: after a 大胡 the dealer stays, whoever won

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Sets for the capabilities the engine tests per tile and per field."""
        super().__init_subclass__(**kwargs)
        cls.field_set = frozenset(cls.situation_fields)
        cls.playing_set = frozenset(cls.playing_kinds)

    field_set: ClassVar[frozenset[str]]
    playing_set: ClassVar[frozenset[int]]

    # ------------------------------------------------------------ capabilities asked by the reader, page, ledger
    @property
    def allows_chow(self) -> bool:
        """Whether any chow meld is legal."""
        return bool(self.chow_from)

    @property
    def allows_flowers(self) -> bool:
        """Whether flowers are set aside and counted."""
        return bool(self.flower_kinds)

    def uses(self, field_name: str) -> bool:
        """Whether this ruleset reads the context field (D-C5); the page offers only those."""
        return field_name in self.field_set

    def situation_field(self, name: str) -> SituationField:
        """Label and help of a context field, with this ruleset's own definition where it has one."""
        f = FIELDS[name]
        return SituationField(f.name, f.label, self.field_help.get(name, f.help))

    def error_text(self, code: str) -> Text:
        """The words for an error code of a result."""
        return self.errors.get(code, ERROR_TEXT["invalid_input"])

    def tile_kinds(self) -> frozenset[int]:
        """Every kind that exists in this ruleset's tile set: playing kinds and flowers."""
        return frozenset(self.playing_kinds) | self.flower_kinds

    def next_dealer(self, dealer: int, winners: Sequence[int], discarder: int | None = None,
                    big_hand: bool = False) -> int:
        """Who deals the next hand. A drawn hand (no winner) keeps the dealer (D-C13), and so does a 大胡 where
        the ruleset says so (D-J17). With several winners on one discard, the first after the discarder in play
        order counts as the winner."""
        if not winners or (big_hand and self.big_hand_keeps_deal):
            return dealer
        if dealer in winners and not self.winner_deals_next:
            return dealer
        if len(winners) > 1 and discarder is not None:
            winner = min(winners, key=lambda s: (s - discarder) % 4)
        else:
            winner = winners[0]
        return winner if self.winner_deals_next else (dealer + 1) % 4

    def asks(self, field_name: str, opts: dict[str, Any]) -> bool:
        """Whether a person should be asked for this field under these options (the page's question list)."""
        return self.uses(field_name)

    def flower_kongs(self, flowers: Sequence[int], opts: dict[str, Any]) -> int:
        """How many 花杠 these set-aside flowers make (four of one dragon; sets the options add)."""
        return len(self.complete_flower_sets(flowers, opts))

    def complete_flower_sets(self, flowers: Sequence[int], opts: dict[str, Any]) -> list[frozenset[int]]:
        """The 花杠 sets these flowers hold whole: four of one face, or one of each of a set (by option)."""
        held = list(flowers)
        return [kinds for kinds in self.flower_kong_sets(opts)
                if all(held.count(k) >= (4 if len(kinds) == 1 else 1) for k in kinds)]

    def flower_kong_sets(self, opts: dict[str, Any]) -> tuple[frozenset[int], ...]:
        """The flower sets that make a 花杠 under these options."""
        return self.flower_kong_kinds

    def is_complete(self, counts: Sequence[int], n_melds: int) -> bool:
        """Whether concealed+winning tile counts (playing kinds) complete a hand with ``n_melds`` melds."""
        c = tuple(counts)
        if sum(c) != 14 - 3 * n_melds:
            return False
        if is_standard_complete(c):
            return True
        if self.seven_pairs and (n_melds == 0 or self.seven_pairs_with_melds) and seven_pairs_quads(c) is not None:
            return True
        return self.has_orphans and n_melds == 0 and is_thirteen_orphans(c)

    # ------------------------------------------------------------ options
    def parse_options(self, raw: object) -> dict[str, Any]:
        """Defaults of RULES.md overlaid with the given options; unknown names and bad values are errors."""
        if raw is None:
            raw = {}
        if not isinstance(raw, dict):
            raise InputError(f"options: expected a JSON object, got {shorten(raw)}")
        out = {k: o.default for k, o in self.options.items()}
        for k, v in raw.items():
            if k not in self.options:
                raise InputError(f"options: unknown option {shorten(k)} for ruleset {self.name} "
                                 f"(known: {', '.join(sorted(self.options))})")
            out[k] = self.options[k].check(k, v)
        return out

    # ------------------------------------------------------------ input checks
    def expected_concealed(self, hand: Hand, ctx: WinContext) -> int:
        """Concealed tiles (without the winning tile) the hand must hold."""
        return 13 - 3 * len(hand.melds)

    def concealed_kinds(self, opts: dict[str, Any]) -> frozenset[int]:
        """Kinds that may sit among the concealed tiles and be the winning tile (ghost tiles where they exist)."""
        return self.playing_set

    def check_tile(self, t: int, where: str, opts: dict[str, Any]) -> None:
        """Reject a tile this ruleset does not play with (flowers, ghosts, dragons in Nanjing)."""
        if t not in self.playing_set:
            if t in self.flower_kinds:
                raise InputError(f"{where}: {CODES[t]} is a flower in {self.name} and belongs in hand.flowers",
                                 f"{CODES[t]} 在{self.title.zh}是花牌，應放在花牌裡")
            raise InputError(f"{where}: {CODES[t]} is not a playing tile in {self.name}",
                             f"{self.title.zh}沒有 {CODES[t]} 這張牌")

    def validate(self, hand: Hand, ctx: WinContext, opts: dict[str, Any]) -> None:
        """Input checks every ruleset shares, including RULES.md §0.7; subclasses add their own."""
        if ctx.win_type not in self.win_types:
            raise InputError(f"context.win_type: {self.name} has no {ctx.win_type} win "
                             f"(its win types: {', '.join(self.win_types)})", f"{self.title.zh}沒有這種胡法")
        if ctx.replacement is not None and ctx.replacement not in self.replacements:
            raise InputError(f"context.replacement: {self.name} has no win on a {ctx.replacement} replacement",
                             f"{self.title.zh}沒有這種補牌胡")
        self.validate_melds(hand, ctx, opts)
        need = self.expected_concealed(hand, ctx)
        if len(hand.concealed) != need:
            raise InputError(f"hand.concealed: with {len(hand.melds)} meld(s) the concealed hand holds {need} tiles "
                             f"(without the winning tile), got {len(hand.concealed)}",
                             f"有 {len(hand.melds)} 組副露時，手牌（不含胡的那張）應有 {need} 張，這裡有 "
                             f"{len(hand.concealed)} 張")
        if hand.winning_tile is None and ctx.win_type != "quick_shot":
            raise InputError("hand.winning_tile: null is only allowed for a quick shot (快照)", "請指定胡的那張牌")
        allowed = self.concealed_kinds(opts)
        if not allowed.issuperset(hand.concealed):  # the message names the first tile that is not allowed
            for i, t in enumerate(hand.concealed):
                self.check_tile(t, f"hand.concealed[{i}]", opts)
        if hand.winning_tile is not None and hand.winning_tile not in allowed:
            self.check_tile(hand.winning_tile, "hand.winning_tile", opts)
        if hand.flowers and not self.allows_flowers:
            raise InputError(f"hand.flowers: {self.name} has no flowers", f"{self.title.zh}不用花牌")
        for i, t in enumerate(hand.flowers):
            if t not in self.flower_kinds:
                raise InputError(f"hand.flowers[{i}]: {CODES[t]} is not a flower in {self.name} "
                                 f"({' '.join(CODES[k] for k in sorted(self.flower_kinds))})",
                                 f"{CODES[t]} 在{self.title.zh}不是花牌")
        self.validate_counts(hand, ctx)
        self.validate_event_kinds(ctx.kong_events or [], opts)
        self.validate_flower_kongs(hand, ctx, opts)
        self.validate_after_kong(ctx)
        self.validate_own_kongs(hand, ctx)
        self.validate_bloom(hand, ctx)
        self.validate_rob_kong(hand, ctx)
        self.validate_heavenly(hand, ctx)
        self.validate_earthly(hand, ctx)

    def validate_melds(self, hand: Hand, ctx: WinContext, opts: dict[str, Any]) -> None:
        """Each meld's tiles exist here, it is not fed by the winner, and a chow comes from an allowed seat."""
        for i, m in enumerate(hand.melds):
            where = f"hand.melds[{i}]"
            for t in m.tiles:
                self.check_tile(t, where, opts)
            if m.from_seat == ctx.winner:
                raise InputError(f"{where}.from: a meld cannot be fed by the winner (seat {ctx.winner}) himself",
                                 "副露不能由胡牌的人自己供牌")
            if m.type == "chow":
                if not self.chow_from:
                    raise InputError(f"{where}: {self.name} has no chow (吃)", f"{self.title.zh}不能吃")
                assert m.from_seat is not None
                if relative_seat(ctx.winner, m.from_seat) not in self.chow_from:
                    allowed = " or ".join(f"the {r} player (seat {seat_of(ctx.winner, r)})" for r in RELATIVE_SEATS
                                          if r in self.chow_from)
                    raise InputError(f"{where}.from: a chow can only be claimed from {allowed}, got seat {m.from_seat}",
                                     "只能吃上家的牌")

    def validate_counts(self, hand: Hand, ctx: WinContext) -> None:
        """No more copies of a tile than the set holds; on a robbed kong, the robbed pung's three count (D-C2)."""
        tiles = list(hand.concealed) + list(hand.flowers)
        for m in hand.melds:
            tiles += m.tiles
        w = hand.winning_tile
        if w is not None:
            tiles.append(w)
        seen = Counter(tiles)
        for t, n in seen.items():
            if n > 4 or (n > 1 and t in FLOWERS):
                cap = 1 if t in FLOWERS else 4
                raise InputError(f"hand: {n} x {CODES[t]}, but a set has only {cap} (impossible hand)",
                                 f"{n} 張 {CODES[t]}，但一副牌只有 {cap} 張（不可能的牌）")
        if ctx.win_type == "rob_kong" and w is not None and seen[w] > 1:
            raise InputError(f"hand: the winner holds {seen[w] - 1} other {CODES[w]}, but seat {ctx.discarder}'s "
                             f"robbed kong already shows the other three copies of {CODES[w]} (D-C2)",
                             f"被搶的槓已有另外三張 {CODES[w]}，胡牌的人不可能再有 {CODES[w]}")

    def validate_event_kinds(self, events: Sequence[KongEvent], opts: dict[str, Any]) -> None:
        """A flower kong only where the ruleset has flower kongs, and no more of them than the flowers can make;
        at most four tile kongs per seat (a hand has four sets)."""
        flower_sets = self.flower_kong_sets(opts)
        flower_seen = 0
        per_seat = [0, 0, 0, 0]
        faces: set[int] = set()
        for i, e in enumerate(events):
            if e.tile is not None:  # a face given with the kong: it must be one this kind of kong can show, once
                flower_face = any(e.tile in kinds for kinds in flower_sets)
                if (e.kind == "flower") != flower_face or (e.kind != "flower" and e.tile not in self.playing_set):
                    raise InputError(f"context.kong_events[{i}].tile: a {e.kind} kong cannot be of {CODES[e.tile]} "
                                     f"in {self.name}", f"{CODES[e.tile]} 不能做這種槓")
                if e.tile in faces:  # four copies of a tile (one of a season) make one kong at most
                    raise InputError(f"context.kong_events[{i}].tile: a second kong of {CODES[e.tile]}, and the set "
                                     f"holds only one kong's worth of {CODES[e.tile]}",
                                     f"{CODES[e.tile]} 不夠做兩個槓")
                faces.add(e.tile)
            if e.kind == "flower":
                if not self.flower_kong_kinds:
                    raise InputError(f"context.kong_events[{i}]: {self.name} has no flower kongs",
                                     f"{self.title.zh}沒有花槓")
                flower_seen += 1
                if flower_seen > len(flower_sets):
                    raise InputError(f"context.kong_events[{i}]: {flower_seen} flower kongs, but the flowers make "
                                     f"at most {len(flower_sets)} in the whole set", "花槓比整副牌的花能做的還多")
                continue
            per_seat[e.seat] += 1
            if per_seat[e.seat] > 4:
                raise InputError(f"context.kong_events[{i}]: seat {e.seat} declares a fifth kong, and a hand holds "
                                 "at most four sets", f"座位 {e.seat} 不可能有第五個槓")

    def validate_flower_kongs(self, hand: Hand, ctx: WinContext, opts: dict[str, Any]) -> None:
        """D-C9: each flower kong the winner declared needs four of one flower face among his flowers (or a whole
        set where an option makes sets kongs). Other seats' flowers are not in the case, so theirs stand."""
        named = [i for i, e in enumerate(ctx.kong_events or []) if e.kind == "flower" and e.seat == ctx.winner]
        have = self.flower_kongs(hand.flowers, opts)
        if len(named) > have:
            i = named[have]
            shown = " ".join(CODES[t] for t in hand.flowers) or "none"
            raise InputError(f"context.kong_events[{i}]: a flower kong (花槓) by the winner needs four of one flower "
                             f"face among his flowers, and they make {have} (flowers: {shown}) (D-C9)",
                             f"花槓要四張相同的花，胡牌者的花只夠 {have} 個花槓（{shown}）")

    def validate_after_kong(self, ctx: WinContext) -> None:
        """D-C11: a win after the discarder's kong (槓上炮) needs that kong as the last of kong_events."""
        if not ctx.after_kong:
            return
        events = ctx.kong_events or []
        if not events:
            raise InputError(f"context.after_kong: the discarder (seat {ctx.discarder}) must have just declared a "
                             "kong, and context.kong_events names none (D-C11)",
                             "槓上炮要放炮者剛槓過，但沒有記下任何槓")
        last = events[-1]
        if last.seat != ctx.discarder:
            raise InputError(f"context.after_kong: the last kong in context.kong_events is seat {last.seat}'s, not "
                             f"the discarder's (seat {ctx.discarder}) (D-C11)",
                             f"槓上炮要放炮者剛槓過，但最後一個槓是座位 {last.seat} 的")

    def validate_own_kongs(self, hand: Hand, ctx: WinContext) -> None:
        """Every kong kong_events gives the winner is one of his kong melds, of the same kind and feeder: a kong
        stays on the table once declared, and the same kong cannot be charged to two seats (D-C12)."""
        melds = kong_melds(hand)
        for i, e in enumerate(ctx.kong_events or []):
            if e.seat != ctx.winner or e.kind == "flower":
                continue
            key = (e.kind, e.from_seat)
            if melds[key] == 0:
                fed = "" if e.from_seat is None else f" fed by seat {e.from_seat}"
                raise InputError(f"context.kong_events[{i}]: the winner (seat {ctx.winner}) declared a {e.kind} "
                                 f"kong{fed}, but his melds hold no such kong", "槓的記錄和胡牌者的副露不符")
            melds[key] -= 1

    def validate_bloom(self, hand: Hand, ctx: WinContext) -> None:
        """D-C12: a win on a kong replacement needs every kong the bloom names among the winner's melds, of the
        same kind and fed by the same seat, and (where kong_events is given) declared by the winner there."""
        if ctx.replacement != "kong":
            return
        where = "context.bloom_chain" if self.uses("bloom_chain") else "context.bloom_kong"
        melds = kong_melds(hand)
        events = Counter((e.kind, e.from_seat) for e in ctx.kong_events or [] if e.seat == ctx.winner)
        need = Counter(ctx.bloom_chain)
        for (kind, frm), n in need.items():
            what = {"concealed": "concealed kong", "exposed": "direct kong", "added": "added kong"}[kind]
            if melds[(kind, frm)] < n:
                feeders = sorted(f for k, f in melds if k == kind and f is not None)
                if kind != "concealed" and feeders:
                    raise InputError(f"{where}: names a {what} fed by seat {frm}, but the winner's {what} was fed "
                                     f"by seat {' / '.join(map(str, feeders))}: the same kong cannot be charged to "
                                     "two seats (D-C12)", "開花的槓的放槓者和副露不符：同一個槓不能算兩家的")
                raise InputError(f"{where}: names {n} {what}(s){'' if frm is None else f' fed by seat {frm}'}, but "
                                 f"the winner's melds hold {melds[(kind, frm)]} (D-C12)",
                                 "槓上開花要胡牌者的副露中有這個槓")
            if ctx.kong_events is not None and events[(kind, frm)] < n:
                raise InputError(f"{where}: the {what}{'' if frm is None else f' fed by seat {frm}'} is not among "
                                 f"the winner's (seat {ctx.winner}) kongs in context.kong_events (D-C12)",
                                 "槓上開花的槓不在本局的槓記錄裡")

    def validate_rob_kong(self, hand: Hand, ctx: WinContext) -> None:
        """D-C1: only an added kong by the discarder can be robbed, and only one."""
        robbed = [(i, e) for i, e in enumerate(ctx.kong_events or []) if e.robbed]
        if ctx.win_type != "rob_kong":
            if robbed:
                raise InputError(f"context.kong_events[{robbed[0][0]}].robbed: a kong can only be robbed on a "
                                 "rob_kong win")
            return
        if len(robbed) > 1:
            raise InputError("context.kong_events: at most one kong is robbed on a rob_kong win, "
                             f"got {len(robbed)}")
        for i, e in robbed:
            if e.seat != ctx.discarder:
                raise InputError(f"context.kong_events[{i}].robbed: the robbed kong is seat {e.seat}'s, but "
                                 f"discarder says seat {ctx.discarder} was robbed")
            if e.kind != "added":
                what = {"concealed": "a concealed kong", "exposed": "a direct kong from a discard",
                        "flower": "a flower kong"}[e.kind]
                raise InputError(f"rob_kong: seat {e.seat}'s robbed kong was {what}, and only an added kong "
                                 "(a fourth tile added to a pung) can be robbed")

    def validate_heavenly(self, hand: Hand, ctx: WinContext) -> None:
        """D-C3: 天胡 is the dealer's self-draw, complete on the initial 14 tiles."""
        if not ctx.heavenly:
            return
        if ctx.winner != ctx.dealer:
            raise InputError(f"heavenly: seat {ctx.winner} is not the dealer (seat {ctx.dealer}); only the dealer "
                             "can win on the initial deal", "天胡只有莊家才能胡")
        if ctx.win_type != "self_draw":
            raise InputError(f"heavenly: a heavenly hand is complete on the dealer's own 14 tiles, not a "
                             f"{ctx.win_type} win", "天胡是莊家起手 14 張就胡，必須是自摸")
        if ctx.replacement is not None:
            raise InputError("heavenly: the initial 14 tiles include no replacement tile", "天胡的起手牌沒有補牌")
        if hand.melds:
            raise InputError(f"heavenly: the winner declared a {hand.melds[0].type}, but a heavenly hand is "
                             "complete on the initial 14 tiles, before any meld", "天胡在任何副露之前就胡了")

    def validate_earthly(self, hand: Hand, ctx: WinContext) -> None:
        """D-C3: 地胡 as this ruleset defines it (win types, melds, claims by anyone)."""
        if not ctx.earthly:
            return
        if ctx.winner == ctx.dealer:
            raise InputError("earthly: an earthly hand is a non-dealer's win; the dealer's is heavenly",
                             "地胡是閒家的胡；莊家的叫天胡")
        if ctx.win_type not in self.earthly_win_types:
            raise InputError(f"earthly: in {self.name} an earthly hand is won by "
                             f"{' or '.join(self.earthly_win_types)}, not by {ctx.win_type}",
                             f"{self.title.zh}的地胡不是這種胡法")
        if ctx.replacement is not None:
            raise InputError("earthly: an earthly hand is won on the first draw, not on a replacement tile",
                             "地胡是第一次摸牌就胡，不是補牌")
        for m in hand.melds:
            if m.type not in self.earthly_meld_types:
                raise InputError(f"earthly: the winner has a {m.type} meld, and an earthly hand in {self.name} "
                                 f"allows {', '.join(self.earthly_meld_types) or 'no meld'}",
                                 f"{self.title.zh}的地胡不能有{MELD_TEXT[m.type].zh}")
        if self.earthly_no_claims_by_anyone:
            if ctx.kong_events:
                raise InputError(f"earthly: seat {ctx.kong_events[0].seat} declared a kong, and an earthly hand "
                                 "comes before any claim or kong", "地胡在任何吃碰槓之前，但有人槓了")
            for seat, melds in ctx.other_melds.items():
                if melds:
                    raise InputError(f"earthly: seat {seat} has claimed a meld, and an earthly hand comes before any "
                                     "claim or kong", "地胡在任何吃碰槓之前，但有人吃碰了")

    # ------------------------------------------------------------ shapes
    def concealed_counts(self, hand: Hand) -> list[int]:
        """Counts of the concealed tiles plus the winning tile (playing kinds only)."""
        c = counts_of(hand.concealed)
        if hand.winning_tile is not None and hand.winning_tile < N_KINDS:
            c[hand.winning_tile] += 1
        return c

    def shapes(self, hand: Hand, ctx: WinContext, opts: dict[str, Any]) -> list[Shape]:
        """Every reading of the hand as a win under this ruleset (no ghosts)."""
        counts = tuple(self.concealed_counts(hand))
        out = [Shape("standard", p, g, counts=counts) for p, g in standard(counts)]
        if self.seven_pairs and (not hand.melds or self.seven_pairs_with_melds):
            q = seven_pairs_quads(counts)
            if q is not None:
                out.append(Shape("seven_pairs", quads=q, counts=counts))
        if self.has_orphans and not hand.melds and is_thirteen_orphans(counts):
            out.append(Shape("orphans", counts=counts))
        return out

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
        return waits(c, held, self.playing_kinds, seven_pairs=self.seven_pairs and not hand.melds,
                     orphans=self.has_orphans)

    # ------------------------------------------------------------ the scoring template
    def score(self, hand: Hand, ctx: WinContext, opts: dict[str, Any]) -> ScoreResult:
        """validate (done by the caller) -> views -> evaluate -> rank -> reject -> settle. Hooks below."""
        early = self.precheck(hand, ctx, opts)
        if early is not None:
            return early
        best: Evaluation | None = None
        for view in self.views(hand, ctx, opts):
            ev = self.evaluate(view)
            if best is None or ev.rank > best.rank:
                best = ev
        if best is None:
            return self.no_shape(hand, ctx, opts)
        best.finish()
        rejected = self.reject(best)
        if rejected is not None:
            return rejected
        result = self.settle(best)
        implied = self.implied_kongs(hand, ctx, opts)
        if implied:
            result.extra["implied_events"] = [implied_json(e, kinds) for e, kinds in implied]
        result.extra["next_dealer"] = self.next_dealer(ctx.dealer, [ctx.winner], ctx.discarder,
                                                       big_hand=bool(best.info.get("dahu")))
        check_amounts(result)
        return result

    def score_draw(self, ctx: DrawContext, opts: dict[str, Any]) -> ScoreResult:
        """A drawn hand (荒莊, D-C13): no win and no fishing, only the kong money of every kong declared and the
        penalties; the dealer keeps the deal."""
        self.validate_event_kinds(ctx.kong_events, opts)
        result = ScoreResult(valid=True, elements=[], settlement=None, liability=None,
                             kong_payments=self.kong_payments(ctx.kong_events, opts),
                             penalty_payments=self.penalty_money(ctx.penalty_events, opts))
        result.extra_first = {"kind": "draw"}
        result.extra["next_dealer"] = self.next_dealer(ctx.dealer, [])
        check_amounts(result)
        return result

    def precheck(self, hand: Hand, ctx: WinContext, opts: dict[str, Any]) -> ScoreResult | None:
        """A rejection that needs no reading of the tiles (e.g. 封胡); None to go on."""
        return None

    def views(self, hand: Hand, ctx: WinContext, opts: dict[str, Any]) -> Sequence[View]:
        """One view per reading of the hand."""
        return [View(hand, ctx, opts, s, self.held_counts(hand, s.counts)) for s in self.shapes(hand, ctx, opts)]

    def evaluate(self, view: Any) -> Evaluation:  # pragma: no cover - interface (each ruleset: its own view)
        """The elements of one reading, the amount and the rank key (the highest rank is kept)."""
        raise NotImplementedError

    def no_shape(self, hand: Hand, ctx: WinContext, opts: dict[str, Any]) -> ScoreResult:
        """The result when no reading makes the tiles a win."""
        return invalid("not_a_winning_hand", "the tiles form no winning shape of " + self.name)

    def reject(self, best: Evaluation) -> ScoreResult | None:
        """A rejection of the best reading (too few fan, an illegal small hand); None to settle it."""
        return None

    def settle(self, best: Evaluation) -> ScoreResult:
        """Plain settlement: a self-draw is paid by each of three, any other win by the discarder."""
        v = best.view
        ctx = v.ctx
        pay = Payments()
        if ctx.win_type == "self_draw":
            settlement: dict[str, Any] = {"mode": "each", "amount": best.amount}
            pay.each_pays(ctx.winner, best.amount)
        else:
            settlement = {"mode": "single", "payer": ctx.discarder, "amount": best.amount}
            pay.add(ctx.discarder, ctx.winner, best.amount)  # type: ignore[arg-type]
        result = ScoreResult(valid=True, elements=best.elements, settlement=settlement, liability=None,
                             hand_payments=pay, kong_payments=self.kong_money(v.hand, ctx, v.opts))
        if v.shape is not None:
            result.extra["shape"] = describe_shape(v.shape, v.hand)
        return result

    # ------------------------------------------------------------ kong money
    def implied_kongs(self, hand: Hand, ctx: WinContext, opts: dict[str, Any]
                      ) -> list[tuple[KongEvent, frozenset[int]]]:
        """D-C10: the flower kongs the winner's flowers show whole and kong_events does not name (the tiles are
        the evidence): each with the set of faces that makes it."""
        sets = self.complete_flower_sets(hand.flowers, opts)
        named = sum(1 for e in ctx.kong_events or [] if e.kind == "flower" and e.seat == ctx.winner)
        return [(KongEvent(ctx.winner, "flower"), kinds) for kinds in sets[named:]]

    def kong_money(self, hand: Hand, ctx: WinContext, opts: dict[str, Any]) -> Payments:
        """The kong money of a won hand: every kong declared, the implied flower kongs included."""
        return self.kong_payments(self.kong_events(hand, ctx, opts), opts)

    def kong_payments(self, events: list[KongEvent], opts: dict[str, Any]) -> Payments:
        """Kong money paid at once for these kongs (none unless the ruleset says so)."""
        return Payments()

    def penalty_money(self, penalties: list[tuple[str, int]], opts: dict[str, Any]) -> Payments | None:
        """Penalty payments (None where the ruleset has no penalties)."""
        return None

    def kong_events(self, hand: Hand, ctx: WinContext, opts: dict[str, Any]) -> list[KongEvent]:
        """context.kong_events; when absent, the winner's own kong melds (each was declared this hand); then the
        implied flower kongs (D-C10)."""
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
        return events + [e for e, _ in self.implied_kongs(hand, ctx, opts)]


def kong_melds(hand: Hand) -> Counter[tuple[str, int | None]]:
    """The winner's kong melds as (kind, feeder) counts, as kong_events and bloom chains name kongs."""
    return Counter((MELD_KIND[m.type], m.from_seat) for m in hand.melds if m.is_kong)


def check_amounts(result: ScoreResult) -> None:
    """D-C6: every payment and net amount of a result fits a signed 64-bit integer."""
    for key, pay in (("hand_payments", result.hand_payments), ("kong_payments", result.kong_payments),
                     ("penalty_payments", result.penalty_payments)):
        for amount in pay.amounts() if pay is not None else ():
            check_amount(amount, key)
    for n in result.net:
        check_amount(n, "net")


def implied_json(event: KongEvent, kinds: frozenset[int]) -> dict[str, Any]:
    """An implied flower kong as the result reports it, with the line a player reads."""
    faces = sorted(kinds)
    if len(faces) == 1:
        code, zh = CODES[faces[0]], face_zh(faces[0])
        reason = Text(f"flower kong of {zh} counted: four {zh} among the flowers", f"花槓：花牌中有四張{zh}，已計")
        tiles = [code] * 4
    else:
        names = "".join(face_zh(k) for k in faces)
        reason = Text(f"flower kong of {names} counted: the whole set among the flowers",
                      f"花槓：花牌中有整套{names}，已計")
        tiles = [CODES[k] for k in faces]
    return {"seat": event.seat, "kind": "flower", "tiles": tiles, "reason": reason.en, "reason_zh": reason.zh}


def pay_kong_simple(events: list[KongEvent], exposed: int, added: int, concealed_each: int,
                    flower_each: int = 0) -> Payments:
    """Kong money without chain liability: feeder pays exposed/added, everyone pays concealed/flower."""
    pay = Payments()
    for e in events:
        if e.robbed:
            continue
        if e.kind == "exposed":
            pay.add(e.from_seat, e.seat, exposed)  # type: ignore[arg-type]
        elif e.kind == "added":
            pay.add(e.from_seat, e.seat, added)  # type: ignore[arg-type]
        elif e.kind == "concealed":
            pay.each_pays(e.seat, concealed_each)
        elif e.kind == "flower":
            pay.each_pays(e.seat, flower_each)
    return pay


def feed_counts(melds: Iterable[Meld]) -> list[int]:
    """How many of these melds each seat fed: pungs, exposed and added kongs (a concealed kong never counts)."""
    feeds = [0, 0, 0, 0]
    for m in melds:
        if m.is_claimed and m.from_seat is not None:
            feeds[m.from_seat] += 1
    return feeds


E = TypeVar("E", bound=Element[Any])


def apply_exclusions(elements: list[E]) -> list[E]:
    """Drop every element that another present element excludes."""
    gone = {x for e in elements for x in e.excludes}
    return [e for e in elements if e.id not in gone]


def suits_and_honors(counts: list[int] | tuple[int, ...]) -> tuple[set[int], bool, bool]:
    """Suits present (0 m, 1 p, 2 s), whether any wind, whether any dragon."""
    suits = {s for s in range(3) if any(counts[9 * s:9 * s + 9])}
    return suits, any(counts[WINDS.start:WINDS.stop]), any(counts[DRAGONS.start:DRAGONS.stop])


def suit_name(counts: list[int] | tuple[int, ...]) -> str:
    """The letter of the first suit present (m, p or s)."""
    return "mps"[next(k // 9 for k in SUITED if counts[k])]


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


__all__ = ["BASE", "FAN", "FIELDS", "LIABILITY_TEXT", "MELD_TEXT", "MONEY", "REPLACEMENT_TEXT", "WIN_TYPE_TEXT",
           "Element", "Evaluation", "Option", "Ruleset", "Shape", "SituationField", "View"]
