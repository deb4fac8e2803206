"""Ruleset `nanjing` (RULES.md §3): Nanjing counted in 花, hard and soft flowers, 三嘴 / 快照, variant 城北."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import InputError
from ..hand import Hand, KongEvent, WinContext
from ..result import Payments, ScoredElement, ScoreResult, invalid
from ..text import Text
from ..tiles import CODES, DRAGONS, FLOWERS, INDEX, SUITED, WINDS, is_wind, rank_of
from .base import (
    ERROR_TEXT,
    MONEY,
    Evaluation,
    Option,
    Ruleset,
    ValuedElement,
    View,
    all_pungs,
    describe_shape,
    feed_counts,
    opt_bool,
    opt_choice,
    opt_int,
    pay_kong_simple,
    suits_and_honors,
)

SEASONS = frozenset(INDEX[f"f{i}"] for i in range(1, 5))
PLANTS = frozenset(INDEX[f"f{i}"] for i in range(5, 9))


@dataclass(slots=True)
class JingView(View):
    """A reading of the hand (``shape`` None for a quick shot: melds only) under the main or 城北 values."""

    chengbei: bool = False

    def v(self, main: int, chengbei: int) -> int:
        return chengbei if self.chengbei else main

    @property
    def quick(self) -> bool:
        return self.shape is None

    @property
    def seven(self) -> bool:
        return self.shape is not None and self.shape.kind == "seven_pairs"


class JingElement(ValuedElement[JingView]):
    MAIN = CHENGBEI = 0
    big = False  # a 大胡 element (§3.5)

    def value(self, v: JingView) -> int:
        return v.v(self.MAIN, self.CHENGBEI)


class Paohu(JingElement):
    id, zh, en, MAIN, CHENGBEI = "paohu", "成牌(跑)", "Win", 20, 10

    def is_condition_met(self, v: JingView) -> bool:
        return True

    def reason(self, v: JingView) -> Text:
        return Text("every win (跑)", "每次胡牌都有")


class Menqing(JingElement):
    id, zh, en, MAIN, CHENGBEI = "menqing", "門清", "Concealed hand", 20, 10

    def is_condition_met(self, v: JingView) -> bool:
        if v.quick or v.seven:
            return False
        mode = v.opts["menqing_kongs"]
        ok = {"direct_and_concealed_ok": ("kong_exposed", "kong_concealed"), "concealed_only": ("kong_concealed",),
              "none": ()}[mode]
        return all(m.type in ok for m in v.hand.melds)

    def reason(self, v: JingView) -> Text:
        if v.hand.melds:
            return Text("no pung (a direct or concealed kong keeps it)", "沒有碰（明槓、暗槓仍算門清）")
        return Text("no meld at all", "沒有副露")


class Hunyise(JingElement):
    id, zh, en, MAIN, CHENGBEI, big = "hunyise", "混一色", "Half flush", 40, 30, True

    def is_condition_met(self, v: JingView) -> bool:
        suits, winds, _ = suits_and_honors(v.all_counts)
        return len(suits) == 1 and winds

    def reason(self, v: JingView) -> Text:
        return Text("one suit plus winds", "一門花色加風牌")


class Qingyise(JingElement):
    id, zh, en, MAIN, CHENGBEI, big = "qingyise", "清一色", "Full flush", 60, 50, True

    def is_condition_met(self, v: JingView) -> bool:
        suits, winds, _ = suits_and_honors(v.all_counts)
        return len(suits) == 1 and not winds

    def reason(self, v: JingView) -> Text:
        return Text("all tiles of one suit, no winds", "全部同一門，沒有風牌")


class Duiduihu(JingElement):
    id, zh, en, MAIN, CHENGBEI, big = "duiduihu", "對對胡", "All pungs", 40, 30, True

    def is_condition_met(self, v: JingView) -> bool:
        return v.quick or all_pungs(v.shape, v.hand)

    def reason(self, v: JingView) -> Text:
        if v.quick:
            return Text("four pungs from the quick shot", "快照的四組碰")
        return Text("every set is a triplet or kong", "全是刻子或槓")


class Quanqiududiao(JingElement):
    id, zh, en, MAIN, CHENGBEI, big = "quanqiududiao", "全球獨釣", "All melded, single wait", 60, 50, True

    def is_condition_met(self, v: JingView) -> bool:
        return len(v.hand.melds) == 4 and not v.seven

    def reason(self, v: JingView) -> Text:
        return Text("four declared melds and a single tile left in the hand (adds to 對對胡)",
                    "四組副露，手中單吊一張（與對對胡累加）")


class Qidui(JingElement):
    id, zh, en, MAIN, CHENGBEI, big = "qidui", "七對", "Seven pairs", 40, 50, True

    def is_condition_met(self, v: JingView) -> bool:
        return v.seven and not SHUANGQIDUI.is_condition_met(v)

    def reason(self, v: JingView) -> Text:
        return Text("seven pairs" + (", a quad held before the win counts as two pairs" if v.shape and v.shape.quads
                                     else ", no quad"),
                    "七對" + ("，贏牌前已有的四張相同算兩對" if v.shape and v.shape.quads else "，沒有四張相同"))


class Shuangqidui(JingElement):
    id, zh, en, MAIN, CHENGBEI, big = "shuangqidui", "雙七對", "Seven pairs with a quad", 80, 100, True

    def is_condition_met(self, v: JingView) -> bool:
        """D-J16: the winning tile is the fourth copy of a kind held three times (or any quad, by option)."""
        if not v.seven or v.shape is None or not v.shape.quads:
            return False
        w = v.hand.winning_tile
        return v.opts["shuangqidui_any_quad"] or (w is not None and v.shape.counts[w] == 4)

    def reason(self, v: JingView) -> Text:
        if v.opts["shuangqidui_any_quad"]:
            return Text("seven pairs holding four identical tiles (option: any quad)",
                        "七對中有四張相同（選項：任何四張）")
        return Text(f"seven pairs won on the fourth {CODES[v.hand.winning_tile or 0]} of three held (replaces 七對)",
                    f"手有三張 {CODES[v.hand.winning_tile or 0]}，單聽絕張胡牌（取代七對）")


class Wuhuaguo(JingElement):
    id, zh, en, MAIN, CHENGBEI = "wuhuaguo", "無花果", "No flowers", 40, 30

    def is_condition_met(self, v: JingView) -> bool:
        return not v.hand.flowers

    def reason(self, v: JingView) -> Text:
        return Text("the winner holds no hard flower", "沒有硬花")


class Xiaogangkaihua(JingElement):
    id, zh, en, MAIN, CHENGBEI, big = "xiaogangkaihua", "小杠開花", "Bloom on a flower", 20, 10, True

    def is_condition_met(self, v: JingView) -> bool:
        return v.ctx.replacement == "flower"

    def reason(self, v: JingView) -> Text:
        return Text("won on the replacement tile drawn for a flower", "補花摸的牌胡")


class Dagangkaihua(JingElement):
    id, zh, en, MAIN, CHENGBEI, big = "dagangkaihua", "大杠開花", "Bloom on a kong", 40, 0, True

    def is_condition_met(self, v: JingView) -> bool:
        return v.ctx.replacement == "kong"

    def reason(self, v: JingView) -> Text:
        return Text("won on the replacement tile drawn for a kong", "槓後補牌胡")


class Tianhu(JingElement):
    id, zh, en, MAIN, CHENGBEI, big = "tianhu", "天胡", "Heavenly hand", 320, 320, True

    def is_condition_met(self, v: JingView) -> bool:
        return v.ctx.heavenly

    def reason(self, v: JingView) -> Text:
        if v.chengbei:
            return Text("the dealer was complete on the initial deal (城北: the game ends, 下課)",
                        "莊家起手即胡（城北：下課）")
        return Text("the dealer was complete on the initial deal", "莊家起手即胡")


class Dihu(JingElement):
    id, zh, en, MAIN, CHENGBEI, big = "dihu", "地胡", "Earthly hand", 280, 30, True

    def is_condition_met(self, v: JingView) -> bool:
        return v.ctx.earthly

    def reason(self, v: JingView) -> Text:
        return Text("ready from the deal and won without any pung", "天聽後不碰直接成牌")


class Yajue(JingElement):
    """壓絕 (§3.4): the last tile of one's own exposed pung, won as the middle or edge of a run on a single wait."""

    id, zh, en, MAIN, CHENGBEI = "yajue", "壓絕", "Last tile squeezed", 40, 30

    def is_condition_met(self, v: JingView) -> bool:  # decided with the wait flowers
        return False

    def reason(self, v: JingView) -> Text:
        t = CODES[v.hand.winning_tile or 0]
        return Text(f"won the last {t} (own exposed pung) in the middle/edge of a run",
                    f"自己碰了 {t}，單聽最後一張 {t} 作順子的中張或邊張")


ELEMENTS: tuple[JingElement, ...] = (Paohu(), Menqing(), Hunyise(), Qingyise(), Duiduihu(), Quanqiududiao(), Qidui(),
                                     Shuangqidui(), Wuhuaguo(), Xiaogangkaihua(), Dagangkaihua(), Tianhu(), Dihu())
YAJUE = Yajue()
SHUANGQIDUI = next(e for e in ELEMENTS if isinstance(e, Shuangqidui))


class Nanjing(Ruleset):
    """南京 (花): see RULES.md §3."""

    name = "nanjing"
    title = Text("Nanjing (花)", "南京（花）")
    unit = Text("hua", "花")
    playing_kinds = tuple(SUITED) + tuple(WINDS)
    flower_kinds = frozenset(FLOWERS) | frozenset(DRAGONS)
    flower_kong_kinds = tuple(frozenset({d}) for d in DRAGONS)  # four of one dragon (D-J15)
    win_types = ("self_draw", "discard", "rob_kong", "quick_shot")
    replacements = ("kong", "flower")
    situation_fields = ("replacement", "bloom_kong", "heavenly", "earthly", "kong_events", "penalty_events")
    earthly_win_types = ("self_draw", "discard", "rob_kong")
    earthly_meld_types = ("kong_exposed", "kong_concealed")  # 可以杠牌; an added kong began as a pung
    earthly_no_claims_by_anyone = False
    winner_deals_next = False
    big_hand_keeps_deal = True  # D-J17
    field_help = {"earthly": Text("ready from the deal (天聽) and won without any pung; kongs allowed",
                                  "天聽後不碰直接成牌，可以槓")}
    errors = {**ERROR_TEXT, "illegal_small_hand": Text(
        "a small hand must be concealed (門清), have a big-hand element or at least 4 hard flowers",
        "小胡必須門清、有大胡或至少四個硬花")}
    options = {
        "variant": Option("main", opt_choice("main", "chengbei"), "main rules or the 城北 (Chengbei) house variant",
                          "主規則或城北",
                          {"main": Text("main rules", "主規則"), "chengbei": Text("城北 (Chengbei)", "城北")}),
        "flower_multiplier": Option(2, opt_int(1, 10**6), "each hard or soft flower is worth this many 花 (花砸幾)",
                                    "每個花砸幾"),
        "min_hard_flowers_small": Option(4, opt_int(0, 20), "hard flowers a small hand needs to be legal (§3.5)",
                                         "小胡最少硬花數"),
        "menqing_kongs": Option("direct_and_concealed_ok", opt_choice("direct_and_concealed_ok", "concealed_only",
                                                                      "none"), "which kongs keep 門清 (D-J1)",
                                "哪些槓仍算門清",
                                {"direct_and_concealed_ok": Text("direct and concealed kongs", "直槓和暗槓"),
                                 "concealed_only": Text("concealed kongs only", "只有暗槓"),
                                 "none": Text("none", "都不算")}),
        "kong_soft_flowers": Option(True, opt_bool, "kongs give soft flowers: exposed 1, concealed 2, wind +1 (D-J6)",
                                    "槓算軟花：明槓 1，暗槓 2，風槓加 1"),
        "concealed_wind_triplet_soft": Option(True, opt_bool, "a concealed wind triplet counts as 風碰 (D-J6)",
                                              "暗風刻算風碰"),
        "kong_pay_exposed": Option(10, MONEY, "exposed kong: the kong'd player pays the kong maker (D-J10)",
                                   "明槓：被槓者付"),
        "kong_pay_concealed": Option(5, MONEY, "concealed kong: each of three pays (D-J10)", "暗槓：三家各付"),
        "kong_pay_flower": Option(5, MONEY, "花杠 (four of one dragon): each of three pays (D-J10)", "花槓：三家各付"),
        "penalty_follow": Option(5, MONEY, "跟牌: the first of four same discards pays each other player",
                                 "跟牌：第一個打的人付每家"),
        "penalty_four_same": Option(5, MONEY, "four identical discards by one player: he pays each other",
                                    "一人打出四張相同：付每家"),
        "seasons_sets_as_flower_kong": Option(False, opt_bool, "f1–f4 and f5–f8 sets also make a 花杠 (D-J15)",
                                              "春夏秋冬、梅蘭菊竹成套也算花槓"),
        "shuangqidui_any_quad": Option(False, opt_bool, "雙七對 for any quad held, not only one completed by the "
                                       "winning tile (the older reading, D-J16)", "任何四張相同都算雙七對（舊解）"),
    }

    def flower_kong_sets(self, opts: dict[str, Any]) -> tuple[frozenset[int], ...]:
        return self.flower_kong_kinds + ((SEASONS, PLANTS) if opts["seasons_sets_as_flower_kong"] else ())

    def expected_concealed(self, hand: Hand, ctx: WinContext) -> int:
        return 2 if ctx.win_type == "quick_shot" else super().expected_concealed(hand, ctx)

    def validate(self, hand: Hand, ctx: WinContext, opts: dict[str, Any]) -> None:
        super().validate(hand, ctx, opts)
        if ctx.win_type == "quick_shot":
            if hand.winning_tile is not None:
                raise InputError("hand.winning_tile: a quick shot (快照) has no winning tile (null)")
            if len(hand.melds) != 4:
                raise InputError(f"quick_shot: a quick shot (快照) settles four melds fed by seat {ctx.discarder}, "
                                 f"got {len(hand.melds)} meld(s)")
            for i, m in enumerate(hand.melds):
                if not m.is_claimed or m.from_seat != ctx.discarder:
                    got = "a concealed kong" if m.from_seat is None else f"a {m.type} fed by seat {m.from_seat}"
                    raise InputError(f"hand.melds[{i}]: a quick shot needs all four melds fed by seat "
                                     f"{ctx.discarder} (three mouths, then the fourth), got {got} (D-C4)")

    def sanzui_feeder(self, hand: Hand, ctx: WinContext) -> int | None:
        """The seat that fed three or more of the winner's melds (三嘴)."""
        feeds = feed_counts(hand.melds)
        return next((s for s in range(4) if s != ctx.winner and feeds[s] >= 3), None)

    # -------------------------------------------------------------- soft flowers
    def soft_flowers(self, v: JingView) -> tuple[dict[str, int], bool]:
        """Soft flower items of one reading; also whether 壓絕 applies (it replaces 壓檔 / 邊枝)."""
        items: dict[str, int] = {}

        def add(key: str, n: int = 1) -> None:
            items[key] = items.get(key, 0) + n

        hand, opts = v.hand, v.opts
        suits, _, _ = suits_and_honors(v.all_counts)
        if len(suits) == 2:
            add("queyi")
        if v.seven:
            assert v.shape is not None
            for k in WINDS:
                if v.shape.counts[k]:
                    add("feng_dui", v.shape.counts[k] // 2)
            return items, False
        for m in hand.melds:
            wind = is_wind(m.tiles[0])
            if m.type == "pung":
                if wind:
                    add("feng_peng")
            elif opts["kong_soft_flowers"]:
                add(m.type, (2 if m.type == "kong_concealed" else 1) + wind)
            elif wind:
                add("feng_peng")  # D-C8: a wind kong still holds a wind pung
        if v.quick:
            return items, False
        assert v.shape is not None
        shape = v.shape
        if opts["concealed_wind_triplet_soft"]:
            for k, run in shape.groups:
                if not run and is_wind(k):
                    add("feng_peng")
        if shape.pair is not None and is_wind(shape.pair):
            add("feng_dui")
        # wait flowers: only on a single wait, at most one (D-J11)
        w = hand.winning_tile
        yajue = False
        if w is not None and len(self.wait_kinds(hand, shape)) == 1:
            roles = set()
            if shape.pair == w:
                roles.add("duzhan")
            for k, run in shape.groups:
                if run and k + 1 == w:
                    roles.add("yadang")
                if run and ((k + 2 == w and rank_of(w) == 3) or (k == w and rank_of(w) == 7)):
                    roles.add("bianzhi")
            own_pung = any(m.type == "pung" and m.tiles[0] == w for m in hand.melds)
            if own_pung and roles & {"yadang", "bianzhi"}:
                yajue = True
            elif "yadang" in roles:
                add("yadang")
            elif "bianzhi" in roles:
                add("bianzhi")
            elif "duzhan" in roles and len(hand.melds) < 4:  # 全球獨釣 removes 獨占
                add("duzhan")
        return items, yajue

    # -------------------------------------------------------------- scoring hooks
    def views(self, hand: Hand, ctx: WinContext, opts: dict[str, Any]) -> list[JingView]:
        chengbei = opts["variant"] == "chengbei"
        if ctx.win_type == "quick_shot":
            return [JingView(hand, ctx, opts, None, self.held_counts(hand, [0] * len(CODES)), chengbei)]
        return [JingView(hand, ctx, opts, s, self.held_counts(hand, s.counts), chengbei)
                for s in self.shapes(hand, ctx, opts)]

    def no_shape(self, hand: Hand, ctx: WinContext, opts: dict[str, Any]) -> ScoreResult:
        return invalid("not_a_winning_hand", "the tiles form neither four sets and a pair nor seven pairs")

    def evaluate(self, v: JingView) -> Evaluation:
        """Total per share and elements; ranked legal first, then by total."""
        out: list[ScoredElement] = []
        big = False
        total = 0
        quick_ok = ("paohu", "duiduihu", "quanqiududiao", "qingyise", "hunyise", "wuhuaguo")
        for e in ELEMENTS:
            if v.quick and e.id not in quick_ok:
                continue
            if e.is_condition_met(v):
                if isinstance(e, Dagangkaihua) and v.chengbei:
                    continue
                val = e.value(v)
                extra = {"chengbei_xiake": True} if isinstance(e, Tianhu) and v.chengbei else {}
                out.append(ScoredElement(e.id, e.zh, e.en, e.reason(v), value=val, extra=extra))
                total += val
                big |= e.big
        items, yajue = self.soft_flowers(v)
        if yajue:
            val = YAJUE.value(v)
            out.append(YAJUE.scored(v, value=val))
            total += val
            big |= not v.chengbei  # 壓絕 is a big hand in main only
        mult = v.opts["flower_multiplier"]
        n_hard = len(v.hand.flowers)
        out.append(ScoredElement("hard_flowers", "硬花", "Hard flowers",
                                 Text(f"{n_hard} hard flower(s) set aside × {mult}", f"{n_hard} 個硬花 × {mult}")
                                 if n_hard else Text("no hard flower", "沒有硬花"),
                                 value=n_hard * mult, extra={"count": n_hard}))
        n_soft = sum(items.values())
        item_list: list[dict[str, Any]] = [{"id": k, "count": items[k]} for k in SOFT_ORDER if items.get(k)]
        out.append(ScoredElement("soft_flowers", "軟花", "Soft flowers",
                                 Text(", ".join(f"{SOFT_TEXT[i['id']].en} {i['count']}" for i in item_list)
                                      + f" × {mult}", "、".join(f"{SOFT_TEXT[i['id']].zh} {i['count']}"
                                                                for i in item_list) + f" × {mult}")
                                 if item_list else Text("no soft flower", "沒有軟花"), value=n_soft * mult,
                                 extra={"count": n_soft, "items": item_list}))
        total += (n_hard + n_soft) * mult
        if v.chengbei and v.ctx.replacement == "kong":
            out.append(ScoredElement("dagangkaihua", "大杠開花", "Bloom on a kong",
                                     Text("won on a kong replacement: 城北 兜底翻, the whole total ×2",
                                          "大杠開花：城北兜底翻，總數加倍"), multiplier=2))
            total *= 2
            big = True
        menqing = any(e.id == "menqing" for e in out)
        legal = menqing or big or n_hard >= v.opts["min_hard_flowers_small"]
        return Evaluation(v, out, total, (legal, total), {"dahu": big, "legal": legal})

    def reject(self, best: Evaluation) -> ScoreResult | None:
        if best.info["legal"]:
            return None
        return invalid("illegal_small_hand", "a small hand (小胡) must be 門清, hold a big-hand element or have "
                       f"at least {best.view.opts['min_hard_flowers_small']} hard flowers")

    def settle(self, best: Evaluation) -> ScoreResult:
        """§3.6 payments with the precedence 搶杠 > 大杠開花 > 快照 > 三嘴 > ordinary; side payments of §3.8."""
        v: JingView = best.view
        hand, ctx, opts, t, elements = v.hand, v.ctx, v.opts, best.amount, best.elements
        w = ctx.winner
        pay = Payments()
        liability = None
        self_drawn = ctx.win_type != "discard"
        settlement: dict[str, Any] = {"mode": "each", "amount": t} if self_drawn else \
            {"mode": "single", "payer": ctx.discarder, "amount": t}
        feeder = self.sanzui_feeder(hand, ctx)
        bloom = ctx.bloom_chain[-1] if ctx.replacement == "kong" and ctx.bloom_chain else None
        if ctx.win_type == "rob_kong":
            liability = {"type": "qianggang", "liable": ctx.discarder}
            pay.add(ctx.discarder, w, 3 * t)  # type: ignore[arg-type]
        elif bloom is not None and bloom[0] != "concealed":
            liability = {"type": "dagangkaihua", "liable": bloom[1]}
            pay.add(bloom[1], w, 3 * t)  # type: ignore[arg-type]
        elif ctx.win_type == "quick_shot":
            liability = {"type": "sanzui_kuaizhao", "liable": ctx.discarder}
            pay.add(ctx.discarder, w, 3 * t)  # type: ignore[arg-type]
        elif feeder is not None and ctx.win_type == "self_draw":
            liability = {"type": "sanzui", "liable": feeder}
            pay.add(feeder, w, 3 * t)
        elif feeder is not None and ctx.discarder != feeder and any(e.id == "duiduihu" for e in elements):
            liability = {"type": "sanzui", "liable": feeder}
            pay.add(feeder, w, t)
        elif self_drawn:
            pay.each_pays(w, t)
        else:
            pay.add(ctx.discarder, w, t)  # type: ignore[arg-type]
        pen = self.penalty_money(ctx.penalty_events, opts)
        result = ScoreResult(valid=True, elements=elements, settlement=settlement, liability=liability,
                             hand_payments=pay, kong_payments=self.kong_money(hand, ctx, opts), penalty_payments=pen)
        result.extra_first = {"total": t, "dahu": best.info["dahu"]}
        if v.shape is not None:
            result.extra["shape"] = describe_shape(v.shape, hand)
        return result

    def kong_payments(self, events: list[KongEvent], opts: dict[str, Any]) -> Payments:
        """§3.8 kong money: exposed and added kongs by their feeder, concealed and flower kongs by each."""
        exposed = opts["kong_pay_exposed"]
        return pay_kong_simple(events, exposed, exposed, opts["kong_pay_concealed"], opts["kong_pay_flower"])

    def penalty_money(self, penalties: list[tuple[str, int]], opts: dict[str, Any]) -> Payments:
        """§3.8 penalties: 跟牌 and four identical discards, each paid by the offender to each other player."""
        pen = Payments()
        for kind, seat in penalties:
            pen.pays_each(seat, opts["penalty_follow"] if kind == "follow" else opts["penalty_four_same"])
        return pen


SOFT_ORDER = ("feng_peng", "kong_exposed", "kong_added", "kong_concealed", "feng_dui", "queyi", "yadang", "bianzhi",
              "duzhan")
SOFT_TEXT = {
    "feng_peng": Text("wind pung", "風碰"), "kong_exposed": Text("exposed kong", "明杠"),
    "kong_added": Text("added kong", "加杠"), "kong_concealed": Text("concealed kong", "暗杠"),
    "feng_dui": Text("wind pair", "風對"), "queyi": Text("two suits only", "缺一"),
    "yadang": Text("middle wait", "壓檔"), "bianzhi": Text("edge wait", "邊枝"), "duzhan": Text("pair wait", "獨占"),
}
