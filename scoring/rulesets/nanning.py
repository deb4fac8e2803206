"""Ruleset `nanning` (RULES.md §1): Nanning scoring counted in 張, no chow, 封胡, 連槓, 釣魚."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import InputError
from ..hand import Hand, KongEvent, WinContext
from ..result import Payments, ScoredElement, ScoreResult, invalid
from ..text import Text
from ..tiles import CODES, is_suited, rank_of
from .base import (
    ERROR_TEXT,
    MONEY,
    Element,
    Evaluation,
    Option,
    Ruleset,
    ValuedElement,
    View,
    all_pungs,
    apply_exclusions,
    describe_shape,
    feed_counts,
    opt_bool,
    opt_choice,
    opt_int,
    suit_name,
    suits_and_honors,
)

DISCARD_TYPES = ("discard", "rob_kong")


@dataclass(slots=True)
class NanningView(View):
    """A reading of the hand with its situation and settlement mode."""

    single: bool = True  # settlement mode: one payer (D values) or each of three (S values)
    situation: Situation | None = None

    @property
    def menqing(self) -> bool:
        """門清: no pung and no exposed/added kong (concealed kongs allowed); never for seven pairs."""
        assert self.shape is not None
        return self.shape.kind == "standard" and not any(m.is_claimed for m in self.hand.melds)


# ------------------------------------------------------------------ hand-type elements (§1.2)

class HandType(ValuedElement[NanningView]):
    """A §1.2 hand type: D (single payer) and S (each of three) values and the 門清 increments."""

    D = S = INC_D = INC_S = 0

    def value(self, v: NanningView) -> int:
        return self.D if v.single else self.S

    def increment(self, v: NanningView) -> int:
        return self.INC_D if v.single else self.INC_S


class Duiduihu(HandType):
    id, zh, en = "duiduihu", "對對胡", "All pungs"
    D, S, INC_D, INC_S = 9, 6, 3, 2

    def is_condition_met(self, v: NanningView) -> bool:
        return all_pungs(v.shape, v.hand)

    def reason(self, v: NanningView) -> Text:
        return Text("every set in the hand and the melds is a triplet or kong", "手牌和副露全是刻子或槓")


class Qingyise(HandType):
    id, zh, en = "qingyise", "清一色", "Full flush"
    D, S, INC_D, INC_S = 9, 6, 3, 2

    def is_condition_met(self, v: NanningView) -> bool:
        suits, winds, dragons = suits_and_honors(v.all_counts)
        return len(suits) == 1 and not winds and not dragons

    def increment(self, v: NanningView) -> int:
        assert v.shape is not None
        return 0 if v.shape.kind == "seven_pairs" else super().increment(v)  # D-N9

    def reason(self, v: NanningView) -> Text:
        suit = suit_name(v.all_counts)
        return Text(f"all tiles are of one suit ({suit}), no honors", f"全部是同一門（{suit}），沒有字牌")


class SevenPairs(HandType):
    """七對 family: the number of quads picks the element (D-N9: no 門清 increment)."""

    QUADS = 0

    def is_condition_met(self, v: NanningView) -> bool:
        assert v.shape is not None
        return v.shape.kind == "seven_pairs" and v.shape.quads == self.QUADS

    def reason(self, v: NanningView) -> Text:
        if self.QUADS:
            return Text(f"seven pairs with {self.QUADS} quad(s) counted as two pairs each",
                        f"七對，其中 {self.QUADS} 組四張相同算兩對")
        return Text("seven pairs, no quad", "七對，沒有四張相同")


class Qixiaodui(SevenPairs):
    id, zh, en, D, S, QUADS = "qixiaodui", "七小對", "Seven pairs", 12, 8, 0


class Qidadui(SevenPairs):
    id, zh, en, D, S, QUADS = "qidadui", "七大對", "Luxury seven pairs", 24, 16, 1


class Chaohaohua(SevenPairs):
    id, zh, en, D, S, QUADS = "chaohaohua_qidui", "超豪華七對", "Double luxury seven pairs", 48, 32, 2


class Chaochaohaohua(SevenPairs):
    id, zh, en, D, S, QUADS = "chaochaohaohua_qidui", "超超豪華七對", "Triple luxury seven pairs", 96, 64, 3


class Quanqiuren(HandType):
    """全球人: four declared melds (not all concealed kongs), won on a discard-type win (D-N2, D-N11)."""

    id, zh, en = "quanqiuren", "全球人", "All melded, single wait"
    D = 18
    excludes = ("duiduihu",)  # 全球人 replaces 對對胡

    def is_condition_met(self, v: NanningView) -> bool:
        h = v.hand
        if len(h.melds) != 4 or all(m.type == "kong_concealed" for m in h.melds):
            return False
        assert v.shape is not None
        if v.shape.kind != "standard":
            return False
        if v.ctx.win_type in DISCARD_TYPES:
            return True
        return v.opts["quanqiuren_selfdraw"] == "12" and v.ctx.replacement is None

    def value(self, v: NanningView) -> int:
        return 18 if v.ctx.win_type in DISCARD_TYPES else 12

    def reason(self, v: NanningView) -> Text:
        if v.ctx.win_type in DISCARD_TYPES:
            return Text("four declared melds, the single loose tile paired by a discard",
                        "四組副露，單吊的牌由別人打出")
        return Text("four declared melds, the single loose tile self-drawn (option quanqiuren_selfdraw=12)",
                    "四組副露，單吊自摸（選項：全球人自摸算 12）")


class Tuidaohu(HandType):
    id, zh, en = "tuidaohu", "推倒胡", "Basic win"
    D, S, INC_D, INC_S = 2, 3, 1, 1

    def is_condition_met(self, v: NanningView) -> bool:  # decided by the ruleset: nothing else applies
        return True

    def reason(self, v: NanningView) -> Text:
        return Text("a complete hand with no other hand type or special situation", "胡牌，沒有其他牌型或特殊情況")


HAND_TYPES: tuple[HandType, ...] = (Quanqiuren(), Duiduihu(), Qingyise(), Qixiaodui(), Qidadui(), Chaohaohua(),
                                    Chaochaohaohua())
TUIDAOHU = Tuidaohu()


# ------------------------------------------------------------------ situations (§1.3), first match wins

class Situation(Element[NanningView]):
    single: bool = True
    flat: bool = False  # 天胡 / 地胡: a flat amount, nothing else counts

    def base(self, v: NanningView) -> int:  # pragma: no cover - interface
        raise NotImplementedError


class Tianhu(Situation):
    id, zh, en, single, flat = "tianhu", "天胡", "Heavenly hand", False, True

    def is_condition_met(self, v: NanningView) -> bool:
        return v.ctx.heavenly

    def base(self, v: NanningView) -> int:
        return 100

    def reason(self, v: NanningView) -> Text:
        return Text("the dealer was complete on his initial 14 tiles: 100 from each, nothing else counts",
                    "莊家起手十四張即胡：每家付 100，其他不計")


class Dihu(Tianhu):
    id, zh, en = "dihu", "地胡", "Earthly hand"

    def is_condition_met(self, v: NanningView) -> bool:
        return v.ctx.earthly

    def reason(self, v: NanningView) -> Text:
        return Text("a non-dealer self-drew with his first draw before any claim: 100 from each",
                    "閒家第一次摸牌即自摸，之前無人碰槓：每家付 100")


class GangkaiExposed(Situation):
    id, zh, en = "gangkai_exposed", "明槓槓上花", "Bloom on an exposed kong"

    def is_condition_met(self, v: NanningView) -> bool:
        return v.ctx.replacement == "kong" and any(k != "concealed" for k, _ in bloom_chain(v.ctx, v.opts))

    def base(self, v: NanningView) -> int:
        return 18

    def reason(self, v: NanningView) -> Text:
        feeder = first_exposed_feeder(bloom_chain(v.ctx, v.opts))
        return Text(f"won on a kong replacement; the exposed/added kong's feeder (seat {feeder}) pays alone",
                    f"明槓後補牌胡：放槓者（座位 {feeder}）一人付")


class GangkaiConcealed(Situation):
    id, zh, en, single = "gangkai_concealed", "暗槓槓上花", "Bloom on a concealed kong", False

    def is_condition_met(self, v: NanningView) -> bool:
        return v.ctx.replacement == "kong"

    def base(self, v: NanningView) -> int:
        return v.opts["gangkai_concealed_each"]

    def reason(self, v: NanningView) -> Text:
        return Text("won on the replacement tile of a concealed kong: each of the three pays",
                    "暗槓後補牌胡：三家各付")


class Qianggang(Situation):
    id, zh, en = "qianggang", "搶槓", "Robbing a kong"

    def is_condition_met(self, v: NanningView) -> bool:
        return v.ctx.win_type == "rob_kong"

    def base(self, v: NanningView) -> int:
        return 9

    def reason(self, v: NanningView) -> Text:
        return Text(f"won on the tile seat {v.ctx.discarder} added to his pung; the robbed player pays",
                    f"胡座位 {v.ctx.discarder} 加槓的牌：被搶者付")


class Gangshangpao(Situation):
    id, zh, en = "gangshangpao", "槓上炮", "Discard after a kong"

    def is_condition_met(self, v: NanningView) -> bool:
        return v.ctx.win_type == "discard" and v.ctx.after_kong

    def base(self, v: NanningView) -> int:
        return 9

    def reason(self, v: NanningView) -> Text:
        return Text(f"seat {v.ctx.discarder} declared a kong and discarded the winning tile after its replacement",
                    f"座位 {v.ctx.discarder} 槓後補牌，打出了這張")


class Haidilaoyue(Situation):
    id, zh, en, single = "haidilaoyue", "海底撈月", "Last tile self-drawn", False

    def is_condition_met(self, v: NanningView) -> bool:
        return v.ctx.win_type == "self_draw" and v.ctx.last_tile

    def base(self, v: NanningView) -> int:
        return 6

    def reason(self, v: NanningView) -> Text:
        return Text("self-drew the last live wall tile", "自摸最後一張牌")


class Haidipao(Situation):
    id, zh, en = "haidipao", "海底炮", "Last discard"

    def is_condition_met(self, v: NanningView) -> bool:
        return v.ctx.win_type == "discard" and v.ctx.last_tile

    def base(self, v: NanningView) -> int:
        return 9

    def reason(self, v: NanningView) -> Text:
        return Text("won on the discard of the player who drew the last wall tile", "摸最後一張牌的人打出的牌")


SITUATIONS: tuple[Situation, ...] = (Tianhu(), Dihu(), GangkaiExposed(), GangkaiConcealed(), Qianggang(),
                                     Gangshangpao(), Haidilaoyue(), Haidipao())


def bloom_chain(ctx: WinContext, opts: dict[str, Any]) -> list[tuple[str, int | None]]:
    """The kongs behind a replacement win; without 連槓 only the last kong counts (D-C7)."""
    return ctx.bloom_chain if opts["lian_gang"] else ctx.bloom_chain[-1:]


def first_exposed_feeder(chain: list[tuple[str, int | None]]) -> int | None:
    return next((f for k, f in chain if k != "concealed"), None)


MENQING_REASON = "no pung and no exposed or added kong"


class Nanning(Ruleset):
    """南寧 (張): see RULES.md §1."""

    name = "nanning"
    title = Text("Nanning (張)", "南寧（張）")
    unit = Text("zhang", "張")
    situation_fields = ("replacement", "bloom_chain", "after_kong", "last_tile", "heavenly", "earthly",
                        "kong_events", "previous_winner", "fish_tiles", "other_melds")
    replacements = ("kong",)
    field_help = {"earthly": Text("a non-dealer self-draws with his first draw, before any pung or kong by anyone",
                                  "閒家第一次摸牌即自摸，之前無人碰槓")}
    errors = {**ERROR_TEXT, "fenghu": Text("this player fed three melds to another player and may not win (封胡)",
                                           "此玩家已封胡，不可胡牌")}
    options = {
        "menqing_on_discard": Option(True, opt_bool, "門清 also counts on discard-type wins (D-N1)",
                                     "放炮胡也算門清"),
        "quanqiuren_selfdraw": Option("duiduihu", opt_choice("duiduihu", "12"),
                                      "a self-drawn 全球人 scores as 對對胡, or 12 each (table 03) (D-N2)",
                                      "自摸全球人算對對胡，或每家 12",
                                      {"duiduihu": Text("as 對對胡", "算對對胡"), "12": Text("12 each", "每家 12")}),
        "gangchong_mode": Option("additive", opt_choice("additive", "double"),
                                 "槓上炮: 9 + hand types, or hand types ×2 (D-N5)", "槓上炮：9 加牌型，或牌型加倍",
                                 {"additive": Text("9 + hand types", "9 加牌型"),
                                  "double": Text("hand types ×2", "牌型加倍")}),
        "gangkai_concealed_each": Option(9, MONEY, "暗槓槓上花: amount each of three pays (D-N8)",
                                         "暗槓槓上花每家付多少"),
        "lian_gang": Option(True, opt_bool, "連槓: ×2^(n−1) and kong-chain liability", "連槓加倍與包槓"),
        "fenghu_feeds": Option(3, opt_int(1, 4), "feeds from one seat that make it 封胡 / liable",
                               "同一家餵幾次即封胡包牌"),
        "diaoyu": Option(False, opt_bool, "釣魚 fishing payments from the last wall tiles (D-N7)", "釣魚"),
    }

    def asks(self, field_name: str, opts: dict[str, Any]) -> bool:
        """The fish fields matter only with 釣魚 on."""
        if field_name in ("previous_winner", "fish_tiles"):
            return bool(opts["diaoyu"])
        return super().asks(field_name, opts)

    def validate(self, hand: Hand, ctx: WinContext, opts: dict[str, Any]) -> None:
        super().validate(hand, ctx, opts)
        if opts["diaoyu"] and ctx.previous_winner is not None and ctx.fish_tiles is None:
            raise InputError("context.fish_tiles: 釣魚 is on and there was a previous winner: give the last wall tiles")

    # -------------------------------------------------------------- scoring hooks
    def fenghu_feeder(self, melds: Any, winner: int, opts: dict[str, Any]) -> int | None:
        """The seat that fed ``fenghu_feeds`` or more of these melds (concealed kongs never count)."""
        feeds = feed_counts(melds)
        best = max(range(4), key=lambda s: (feeds[s], -((s - winner) % 4)))
        return best if feeds[best] >= opts["fenghu_feeds"] and best != winner else None

    def precheck(self, hand: Hand, ctx: WinContext, opts: dict[str, Any]) -> ScoreResult | None:
        for seat, melds in ctx.other_melds.items():
            if self.fenghu_feeder(melds, seat, opts) == ctx.winner:
                return invalid("fenghu", f"seat {ctx.winner} fed seat {seat} {opts['fenghu_feeds']} or more melds "
                                         "and is 封胡: he may not win this hand")
        return None

    def views(self, hand: Hand, ctx: WinContext, opts: dict[str, Any]) -> list[NanningView]:
        shapes = self.shapes(hand, ctx, opts)
        if not shapes:
            return []
        all_counts = self.held_counts(hand, shapes[0].counts)
        out = []
        for shape in shapes:
            v = NanningView(hand, ctx, opts, shape, all_counts)
            sit = next((s for s in SITUATIONS if s.is_condition_met(v)), None)
            v.situation = sit
            v.single = sit.single if sit else ctx.win_type != "self_draw"
            out.append(v)
        return out

    def no_shape(self, hand: Hand, ctx: WinContext, opts: dict[str, Any]) -> ScoreResult:
        return invalid("not_a_winning_hand", "the tiles form neither four sets and a pair nor seven pairs")

    def evaluate(self, v: NanningView) -> Evaluation:
        """The elements of one reading and the per-payer amount they give."""
        sit = v.situation
        if sit is not None and sit.flat:  # 天胡 / 地胡: flat 100, nothing else counts
            return Evaluation(v, [sit.scored(v, value=100)], 100, 100)
        types = apply_exclusions([t for t in HAND_TYPES if t.is_condition_met(v)])
        out: list[ScoredElement] = []
        total = 0
        menqing_inc = 0
        use_menqing = v.menqing and (v.opts["menqing_on_discard"] or not v.single)
        if sit is None and not types:
            types = [TUIDAOHU]
        for t in types:
            val = t.value(v)
            out.append(t.scored(v, value=val))
            total += val
            if use_menqing:
                menqing_inc += t.increment(v)
        if menqing_inc:
            out.append(ScoredElement("menqing", "門清", "Concealed hand",
                                     Text(f"{MENQING_REASON} (+{menqing_inc} for the hand types present)",
                                          f"沒有碰，也沒有明槓或加槓（牌型加 {menqing_inc}）"), value=menqing_inc))
            total += menqing_inc
        if sit is not None:
            if isinstance(sit, Gangshangpao) and v.opts["gangchong_mode"] == "double" and types:
                out.append(ScoredElement("gangchong_double", "槓上炮×2", "Discard after a kong, doubled",
                                         Text("槓上炮 doubles the hand types (option gangchong_mode=double)",
                                              "槓上炮：牌型加倍（選項）"), multiplier=2))
                total *= 2
            else:
                base = sit.base(v)
                out.insert(0, sit.scored(v, value=base))
                total += base
            chain = bloom_chain(v.ctx, v.opts)
            if isinstance(sit, (GangkaiExposed, GangkaiConcealed)) and len(chain) >= 2:
                mult = 2 ** (len(chain) - 1)
                n = len(chain)
                out.append(ScoredElement("liangang", "連槓", "Kong chain",
                                         Text(f"{n} kongs in a row before the winning replacement: ×2^{n - 1}",
                                              f"連續 {n} 個槓後開花：×2^{n - 1}"), multiplier=mult))
                total *= mult
        return Evaluation(v, out, total, total)

    def settle(self, best: Evaluation) -> ScoreResult:
        """Settlement, 封胡 liability, 釣魚 and kong money."""
        v: NanningView = best.view
        hand, ctx, opts, amount = v.hand, v.ctx, v.opts, best.amount
        w = ctx.winner
        pay = Payments()
        situation = v.situation.id if v.situation else None
        if v.single:
            payer = first_exposed_feeder(bloom_chain(ctx, opts)) if situation == "gangkai_exposed" else ctx.discarder
            assert payer is not None
            settlement: dict[str, Any] = {"mode": "single", "payer": payer, "amount": amount}
        else:
            payer = None
            settlement = {"mode": "each", "amount": amount}
        liable = None if v.situation is not None and v.situation.flat else self.fenghu_feeder(hand.melds, w, opts)
        if liable is None:
            if payer is None:
                pay.each_pays(w, amount)
            else:
                pay.add(payer, w, amount)
            liability = None
        else:
            liability = {"type": "fenghu", "liable": liable}
            if payer is None:
                pay.add(liable, w, 3 * amount)
            elif payer != liable:
                pay.add(payer, w, amount)
                pay.add(liable, w, amount)
            else:
                pay.add(liable, w, 2 * amount)
        result = ScoreResult(valid=True, elements=best.elements, settlement=settlement, liability=liability,
                             hand_payments=pay, kong_payments=self.kong_money(hand, ctx, opts))
        if opts["diaoyu"] and ctx.previous_winner is not None:
            result.extra["diaoyu"] = self.diaoyu(ctx, amount, v.single, pay)
        assert v.shape is not None
        result.extra["shape"] = describe_shape(v.shape, hand)
        return result

    def diaoyu(self, ctx: WinContext, unit: int, single: bool, pay: Payments) -> dict[str, Any]:
        """釣魚 (§1.6): count each fish tile from the previous winner P; hits pay P, misses (self-draw) P pays."""
        p, w = ctx.previous_winner, ctx.winner
        assert p is not None
        tiles = ctx.fish_tiles or []
        hits = 0
        targets = []
        for t in tiles:
            n = rank_of(t) if is_suited(t) else FISH_HONOR_COUNT[CODES[t]]
            target = (p + n - 1) % 4
            targets.append(target)
            hits += target == w
        misses = len(tiles) - hits
        if hits:
            for s in range(4):
                if s != p:
                    pay.add(s, p, unit * hits)
        if not single and misses and p != w:
            pay.add(p, w, unit * misses)
        return {"previous_winner": p, "fish_tiles": [CODES[t] for t in tiles], "targets": targets,
                "hits": hits, "misses": misses, "unit": unit}

    def kong_payments(self, events: list[KongEvent], opts: dict[str, Any]) -> Payments:
        """槓錢 (§1.4) with 連槓 chain liability: the first exposed/added kong's feeder pays the chain from there."""
        pay = Payments()
        i = 0
        while i < len(events):
            j = i + 1
            e = events[i]
            if opts["lian_gang"] and e.chain is not None:
                while j < len(events) and events[j].seat == e.seat and events[j].chain == e.chain:
                    j += 1
            liable = None
            for ev in events[i:j]:
                if ev.robbed:
                    continue
                if liable is None and ev.kind in ("exposed", "added") and j - i > 1:
                    liable = ev.from_seat
                if liable is not None:
                    pay.add(liable, ev.seat, 3 if ev.kind == "concealed" else 1)
                elif ev.kind == "concealed":
                    pay.each_pays(ev.seat, 1)
                else:
                    pay.add(ev.from_seat, ev.seat, 1)  # type: ignore[arg-type]
            i = j
        return pay


FISH_HONOR_COUNT = {"E": 1, "S": 2, "W": 3, "N": 4, "C": 5, "F": 6, "P": 7}  # §1.6: each honor's count
