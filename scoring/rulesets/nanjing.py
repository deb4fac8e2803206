"""Ruleset `nanjing` (RULES.md §3): Nanjing counted in 花, hard and soft flowers, 三嘴 / 快照, variant 城北."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import InputError
from ..hand import Hand, KongEvent, WinContext
from ..result import Payments, ScoredElement, ScoreResult, invalid
from ..tiles import CODES, is_wind, rank_of
from .base import (
    Element,
    Option,
    Ruleset,
    Shape,
    all_pungs,
    describe_shape,
    feed_counts,
    opt_bool,
    opt_choice,
    opt_int,
    pay_kong_simple,
    suits_and_honors,
)

FLOWER_CODES = {f"f{i}" for i in range(1, 9)} | {"C", "F", "P"}


@dataclass(slots=True)
class JingView:
    hand: Hand
    ctx: WinContext
    opts: dict[str, Any]
    shape: Shape | None  # None for a quick shot (melds only)
    all_counts: list[int]
    chengbei: bool

    def v(self, main: int, chengbei: int) -> int:
        return chengbei if self.chengbei else main

    @property
    def quick(self) -> bool:
        return self.shape is None

    @property
    def seven(self) -> bool:
        return self.shape is not None and self.shape.kind == "seven_pairs"


class JingElement(Element):
    MAIN = CHENGBEI = 0
    big = False  # a 大胡 element (§3.5)

    def value(self, v: JingView) -> int:
        return v.v(self.MAIN, self.CHENGBEI)


class Paohu(JingElement):
    id, zh, en, MAIN, CHENGBEI = "paohu", "成牌(跑)", "Win", 20, 10

    def is_condition_met(self, v: JingView) -> bool:
        return True

    def reason(self, v: JingView) -> str:
        return "every win (跑)"


class Menqing(JingElement):
    id, zh, en, MAIN, CHENGBEI = "menqing", "門清", "Concealed hand", 20, 10

    def is_condition_met(self, v: JingView) -> bool:
        if v.quick or v.seven:
            return False
        mode = v.opts["menqing_kongs"]
        ok = {"direct_and_concealed_ok": ("kong_exposed", "kong_concealed"), "concealed_only": ("kong_concealed",),
              "none": ()}[mode]
        return all(m.type in ok for m in v.hand.melds)

    def reason(self, v: JingView) -> str:
        return "no pung (a direct or concealed kong keeps it, D-J1)" if v.hand.melds else "no meld at all"


class Hunyise(JingElement):
    id, zh, en, MAIN, CHENGBEI, big = "hunyise", "混一色", "Half flush", 40, 30, True

    def is_condition_met(self, v: JingView) -> bool:
        suits, winds, _ = suits_and_honors(v.all_counts)
        return len(suits) == 1 and winds

    def reason(self, v: JingView) -> str:
        return "one suit plus winds"


class Qingyise(JingElement):
    id, zh, en, MAIN, CHENGBEI, big = "qingyise", "清一色", "Full flush", 60, 50, True

    def is_condition_met(self, v: JingView) -> bool:
        suits, winds, _ = suits_and_honors(v.all_counts)
        return len(suits) == 1 and not winds

    def reason(self, v: JingView) -> str:
        return "all tiles of one suit, no winds"


class Duiduihu(JingElement):
    id, zh, en, MAIN, CHENGBEI, big = "duiduihu", "對對胡", "All pungs", 40, 30, True

    def is_condition_met(self, v: JingView) -> bool:
        return v.quick or all_pungs(v.shape, v.hand)

    def reason(self, v: JingView) -> str:
        return "four pungs from the quick shot" if v.quick else "every set is a triplet or kong"


class Quanqiududiao(JingElement):
    id, zh, en, MAIN, CHENGBEI, big = "quanqiududiao", "全球獨釣", "All melded, single wait", 60, 50, True

    def is_condition_met(self, v: JingView) -> bool:
        return len(v.hand.melds) == 4 and not v.seven

    def reason(self, v: JingView) -> str:
        return "four declared melds and a single tile left in the hand (stacks with 對對胡, D-J2)"


class Qidui(JingElement):
    id, zh, en, MAIN, CHENGBEI, big = "qidui", "七對", "Seven pairs", 40, 50, True

    def is_condition_met(self, v: JingView) -> bool:
        return v.seven and v.shape is not None and v.shape.quads == 0

    def reason(self, v: JingView) -> str:
        return "seven pairs, no quad"


class Shuangqidui(JingElement):
    id, zh, en, MAIN, CHENGBEI, big = "shuangqidui", "雙七對", "Seven pairs with a quad", 80, 100, True

    def is_condition_met(self, v: JingView) -> bool:
        return v.seven and v.shape is not None and v.shape.quads >= 1

    def reason(self, v: JingView) -> str:
        return "seven pairs holding four identical tiles (replaces 七對, D-J4)"


class Wuhuaguo(JingElement):
    id, zh, en, MAIN, CHENGBEI = "wuhuaguo", "無花果", "No flowers", 40, 30

    def is_condition_met(self, v: JingView) -> bool:
        return not v.hand.flowers

    def reason(self, v: JingView) -> str:
        return "the winner holds no hard flower"


class Xiaogangkaihua(JingElement):
    id, zh, en, MAIN, CHENGBEI, big = "xiaogangkaihua", "小杠開花", "Bloom on a flower", 20, 10, True

    def is_condition_met(self, v: JingView) -> bool:
        return v.ctx.replacement == "flower"

    def reason(self, v: JingView) -> str:
        return "won on the replacement tile drawn for a flower"


class Dagangkaihua(JingElement):
    id, zh, en, MAIN, CHENGBEI, big = "dagangkaihua", "大杠開花", "Bloom on a kong", 40, 0, True

    def is_condition_met(self, v: JingView) -> bool:
        return v.ctx.replacement == "kong"

    def reason(self, v: JingView) -> str:
        return "won on the replacement tile drawn for a kong" + (" (城北: the whole total ×2)" if v.chengbei else "")


class Tianhu(JingElement):
    id, zh, en, MAIN, CHENGBEI, big = "tianhu", "天胡", "Heavenly hand", 320, 320, True

    def is_condition_met(self, v: JingView) -> bool:
        return v.ctx.heavenly

    def reason(self, v: JingView) -> str:
        return "the dealer was complete on the initial deal" + (" (城北 下課)" if v.chengbei else "")


class Dihu(JingElement):
    id, zh, en, MAIN, CHENGBEI, big = "dihu", "地胡", "Earthly hand", 280, 30, True

    def is_condition_met(self, v: JingView) -> bool:
        return v.ctx.earthly

    def reason(self, v: JingView) -> str:
        return "ready from the deal and won without any pung"


class Yajue(JingElement):
    """壓絕 (§3.4): the last tile of one's own exposed pung, won as the middle or edge of a run on a single wait."""

    id, zh, en, MAIN, CHENGBEI = "yajue", "壓絕", "Last tile squeezed", 40, 30

    def is_condition_met(self, v: JingView) -> bool:  # decided with the wait flowers
        return False

    def reason(self, v: JingView) -> str:
        return f"won the last {CODES[v.hand.winning_tile or 0]} (own exposed pung) in the middle/edge of a run"


ELEMENTS: tuple[JingElement, ...] = (Paohu(), Menqing(), Hunyise(), Qingyise(), Duiduihu(), Quanqiududiao(), Qidui(),
                                     Shuangqidui(), Wuhuaguo(), Xiaogangkaihua(), Dagangkaihua(), Tianhu(), Dihu())
YAJUE = Yajue()


class Nanjing(Ruleset):
    """南京 (花): see RULES.md §3."""

    name = "nanjing"
    title = "Nanjing (花)"
    allows_flowers = True
    playing_kinds = range(31)
    options = {
        "variant": Option("main", opt_choice("main", "chengbei"), "main rules or the 城北 (Chengbei) house variant"),
        "flower_multiplier": Option(2, opt_int(1), "each hard or soft flower is worth this many 花 (花砸幾)"),
        "min_hard_flowers_small": Option(4, opt_int(0), "hard flowers a small hand needs to be legal (§3.5)"),
        "menqing_kongs": Option("direct_and_concealed_ok", opt_choice("direct_and_concealed_ok", "concealed_only",
                                                                      "none"), "which kongs keep 門清 (D-J1)"),
        "kong_soft_flowers": Option(True, opt_bool, "kongs give soft flowers: exposed 1, concealed 2, wind +1 (D-J6)"),
        "concealed_wind_triplet_soft": Option(True, opt_bool, "a concealed wind triplet counts as 風碰 (D-J6)"),
        "kong_pay_exposed": Option(10, opt_int(0), "exposed kong: the kong'd player pays the kong maker (D-J10)"),
        "kong_pay_concealed": Option(5, opt_int(0), "concealed kong: each of three pays (D-J10)"),
        "kong_pay_flower": Option(5, opt_int(0), "花杠 (four of one dragon): each of three pays (D-J10)"),
        "penalty_follow": Option(5, opt_int(0), "跟牌: the first of four same discards pays each other player"),
        "penalty_four_same": Option(5, opt_int(0), "four identical discards by one player: he pays each other"),
        "seasons_sets_as_flower_kong": Option(False, opt_bool, "f1–f4 and f5–f8 sets also make a 花杠 (D-J15)"),
    }

    def expected_concealed(self, hand: Hand, ctx: WinContext) -> int:
        return 2 if ctx.win_type == "quick_shot" else super().expected_concealed(hand, ctx)

    def check_tile(self, t: int, where: str, opts: dict[str, Any]) -> None:
        if t >= 31:
            raise InputError(f"{where}: {CODES[t]} is a flower in nanjing and belongs in hand.flowers")

    def validate(self, hand: Hand, ctx: WinContext, opts: dict[str, Any]) -> None:
        super().validate(hand, ctx, opts)
        for i, t in enumerate(hand.flowers):
            if CODES[t] not in FLOWER_CODES:
                raise InputError(f"hand.flowers[{i}]: {CODES[t]} is not a hard flower (f1-f8, C, F, P)")
        if ctx.win_type == "quick_shot":
            if hand.winning_tile is not None:
                raise InputError("hand.winning_tile: a quick shot (快照) has no winning tile (null)")
            if len(hand.melds) != 4:
                raise InputError("hand.melds: a quick shot (快照) settles four pungs")
            if ctx.discarder is None or feed_counts(hand.melds)[ctx.discarder] < 3:
                raise InputError("context.discarder: a quick shot needs three earlier mouths from the feeder, "
                                 f"seat {ctx.discarder}")

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
            for k in range(27, 31):
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
                add("feng_peng")
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

    # -------------------------------------------------------------- scoring
    def evaluate(self, v: JingView) -> tuple[int, list[ScoredElement], bool]:
        """Total per share, elements and whether a big-hand element is present."""
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
            out.append(ScoredElement(YAJUE.id, YAJUE.zh, YAJUE.en, YAJUE.reason(v), value=val))
            total += val
            big |= not v.chengbei  # 壓絕 is a big hand in main only
        mult = v.opts["flower_multiplier"]
        n_hard = len(v.hand.flowers)
        out.append(ScoredElement("hard_flowers", "硬花", "Hard flowers",
                                 f"{n_hard} hard flower(s) set aside × {mult}" if n_hard else "no hard flower",
                                 value=n_hard * mult, extra={"count": n_hard}))
        n_soft = sum(items.values())
        order = ("feng_peng", "kong_exposed", "kong_added", "kong_concealed", "feng_dui", "queyi", "yadang",
                 "bianzhi", "duzhan")
        item_list = [{"id": k, "count": items[k]} for k in order if items.get(k)]
        out.append(ScoredElement("soft_flowers", "軟花", "Soft flowers",
                                 (", ".join(f"{i['id']} {i['count']}" for i in item_list) + f" × {mult}")
                                 if item_list else "no soft flower", value=n_soft * mult,
                                 extra={"count": n_soft, "items": item_list}))
        total += (n_hard + n_soft) * mult
        if v.chengbei and v.ctx.replacement == "kong":
            out.append(ScoredElement("dagangkaihua", "大杠開花", "Bloom on a kong",
                                     "won on a kong replacement: 城北 兜底翻, the whole total ×2", multiplier=2))
            total *= 2
            big = True
        return total, out, big

    def score(self, hand: Hand, ctx: WinContext, opts: dict[str, Any]) -> ScoreResult:
        chengbei = opts["variant"] == "chengbei"
        if ctx.win_type == "quick_shot":
            counts = [0] * 34
            views = [JingView(hand, ctx, opts, None, self.held_counts(hand, counts), chengbei)]
        else:
            shapes = self.shapes(hand, ctx, opts)
            if not shapes:
                return invalid("not_a_winning_hand", "the tiles form neither four sets and a pair nor seven pairs")
            views = [JingView(hand, ctx, opts, s, self.held_counts(hand, s.counts), chengbei) for s in shapes]
        best = None
        for v in views:
            total, elements, big = self.evaluate(v)
            menqing = any(e.id == "menqing" for e in elements)
            legal = menqing or big or len(hand.flowers) >= opts["min_hard_flowers_small"]
            key = (legal, total)
            if best is None or key > best[0]:
                best = (key, elements, big, v)
        assert best is not None
        (legal, total), elements, big, v = best
        if not legal:
            return invalid("illegal_small_hand", "a small hand (小胡) must be 門清, hold a big-hand element or have "
                           f"at least {opts['min_hard_flowers_small']} hard flowers")
        result = self.settle(hand, ctx, opts, total, elements)
        result.extra_first = {"total": total, "dahu": big}
        if v.shape is not None:
            result.extra["shape"] = describe_shape(v.shape, hand)
        return result

    def settle(self, hand: Hand, ctx: WinContext, opts: dict[str, Any], t: int,
               elements: list[ScoredElement]) -> ScoreResult:
        """§3.6 payments with the precedence 搶杠 > 大杠開花 > 快照 > 三嘴 > ordinary; side payments of §3.8."""
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
        exposed = opts["kong_pay_exposed"]
        kong = pay_kong_simple(self.side_kong_events(hand, ctx, opts), exposed, exposed, opts["kong_pay_concealed"],
                               opts["kong_pay_flower"])
        pen = Payments()
        for kind, seat in ctx.penalty_events:
            pen.pays_each(seat, opts["penalty_follow"] if kind == "follow" else opts["penalty_four_same"])
        return ScoreResult(valid=True, elements=elements, settlement=settlement, liability=liability,
                           hand_payments=pay, kong_payments=kong, penalty_payments=pen)

    def side_kong_events(self, hand: Hand, ctx: WinContext, opts: dict[str, Any]) -> list[KongEvent]:
        """As the base, plus the winner's flower kongs (花杠) from his flowers when no kong_events were given."""
        events = self.kong_events(hand, ctx)
        if ctx.kong_events is None:
            fl = [CODES[t] for t in hand.flowers]
            sets = [[d] * 4 for d in "CFP"]
            if opts["seasons_sets_as_flower_kong"]:
                sets += [["f1", "f2", "f3", "f4"], ["f5", "f6", "f7", "f8"]]
            for s in sets:
                if all(fl.count(c) >= s.count(c) for c in set(s)):
                    events.append(KongEvent(ctx.winner, "flower"))
        return events
