"""Ruleset `nanning-fan` (RULES.md §2): Nanning counted in 番, chow from the left, 十三幺, ghost tiles."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product
from typing import Any, cast

from ..divider import (
    seven_pairs_quads,
    wild_seven_pairs,
    wild_standard,
    wild_thirteen_orphans,
)
from ..errors import InputError
from ..hand import Hand, KongEvent, WinContext
from ..limits import check_amount, shorten
from ..result import Payments, ScoredElement, ScoreResult, invalid
from ..text import Text
from ..tiles import BLANK_GHOST, CODES, FIRST_WIND, N_KINDS, next_kind, parse_tile
from .base import (
    BASE,
    ERROR_TEXT,
    FAN,
    MONEY,
    Element,
    Evaluation,
    Option,
    Ruleset,
    Shape,
    View,
    all_pungs,
    opt_bool,
    opt_int,
    pay_kong_simple,
    suits_and_honors,
)


def opt_ghost(name: str, v: Any) -> Any:
    """null, {"mode": "flip", "indicator": tile} or {"mode": "extra4"}."""
    if v is None:
        return None
    if not isinstance(v, dict) or v.get("mode") not in ("flip", "extra4"):
        raise InputError(f"options.{name}: expected null, {{\"mode\": \"flip\", \"indicator\": tile}} or "
                         f"{{\"mode\": \"extra4\"}}, got {shorten(v)}")
    if v["mode"] == "flip":
        t = parse_tile(v.get("indicator"), f"options.{name}.indicator")
        return {"mode": "flip", "indicator": CODES[t], "kind": next_kind(t)}
    return {"mode": "extra4", "kind": BLANK_GHOST}


def opt_kong_payment(name: str, v: Any) -> dict[str, int]:
    if not isinstance(v, dict) or set(v) - {"exposed", "added", "concealed_each"}:
        raise InputError(f"options.{name}: expected {{\"exposed\", \"added\", \"concealed_each\"}} amounts, "
                         f"got {shorten(v)}")
    out = {"exposed": 0, "added": 0, "concealed_each": 0}
    for k, val in v.items():
        out[k] = MONEY(f"{name}.{k}", val)
    return out


@dataclass(slots=True)
class FanView(View):
    """A reading after ghost substitution: ``all_counts`` are the represented tiles of hand and melds."""

    wild: int = 0  # ghost tiles acting as wild
    wild_win: bool = False  # the self-drawn winning tile is a ghost
    flush: tuple[set[int], bool, bool] = (set(), False, False)  # suits_and_honors of all_counts, computed once

    @property
    def division(self) -> Shape:
        """The reading's shape: every fan view has one (a hand with no winning shape scores no view)."""
        assert self.shape is not None
        return self.shape


class FanElement(Element[FanView]):
    FAN = 0

    def fan(self, v: FanView) -> int:
        return self.FAN


class Duiduihu(FanElement):
    id, zh, en = "duiduihu", "對對胡", "All pungs"

    def is_condition_met(self, v: FanView) -> bool:
        return all_pungs(v.shape, v.hand)

    def fan(self, v: FanView) -> int:
        return v.opts["duiduihu_fan"]

    def reason(self, v: FanView) -> Text:
        return Text("every set is a triplet or kong", "全是刻子或槓")


class Hunyise(FanElement):
    id, zh, en, FAN = "hunyise", "混一色", "Half flush", 3

    def is_condition_met(self, v: FanView) -> bool:
        suits, winds, dragons = v.flush
        return len(suits) == 1 and (winds or dragons)

    def reason(self, v: FanView) -> Text:
        return Text("one suit plus honors", "一門花色加字牌")


class Qingyise(FanElement):
    id, zh, en = "qingyise", "清一色", "Full flush"

    def is_condition_met(self, v: FanView) -> bool:
        suits, winds, dragons = v.flush
        return len(suits) == 1 and not winds and not dragons

    def fan(self, v: FanView) -> int:
        return v.opts["qingyise_fan"]

    def reason(self, v: FanView) -> Text:
        return Text("all tiles of one suit, no honors", "全部同一門，沒有字牌")


class Qixiaodui(FanElement):
    id, zh, en = "qixiaodui", "七小對", "Seven pairs"

    def is_condition_met(self, v: FanView) -> bool:
        return v.division.kind == "seven_pairs"

    def fan(self, v: FanView) -> int:
        return v.opts["qixiaodui_fan"]

    def reason(self, v: FanView) -> Text:
        if v.division.quads:
            return Text("seven pairs and no melds (a quad counts as two pairs)", "七對，沒有副露（四張相同算兩對）")
        return Text("seven pairs and no melds", "七對，沒有副露")


class QixiaoduiZimo(FanElement):
    id, zh, en, FAN = "qixiaodui_zimo", "七小對自摸", "Seven pairs self-drawn", 1

    def is_condition_met(self, v: FanView) -> bool:
        return v.division.kind == "seven_pairs" and v.ctx.win_type == "self_draw"

    def reason(self, v: FanView) -> Text:
        return Text("seven pairs won by self-draw", "七對自摸")


class Qiangganghu(FanElement):
    id, zh, en, FAN = "qiangganghu", "搶槓胡", "Robbing a kong", 1

    def is_condition_met(self, v: FanView) -> bool:
        return v.ctx.win_type == "rob_kong"

    def reason(self, v: FanView) -> Text:
        return Text(f"won on the tile seat {v.ctx.discarder} added to a pung", f"胡座位 {v.ctx.discarder} 加槓的牌")


class Haidilaoyue(FanElement):
    id, zh, en, FAN = "haidilaoyue", "海底撈月", "Last tile self-drawn", 1

    def is_condition_met(self, v: FanView) -> bool:
        return v.ctx.win_type == "self_draw" and v.ctx.last_tile

    def reason(self, v: FanView) -> Text:
        return Text("self-drew the last wall tile", "自摸最後一張牌")


class GhostPenalty(FanElement):
    id, zh, en = "ghost_penalty", "鬼牌扣番", "Ghost tiles held"

    def is_condition_met(self, v: FanView) -> bool:
        return v.opts["ghost_fan_penalty"] > 0 and v.wild > 0

    def fan(self, v: FanView) -> int:
        return -v.opts["ghost_fan_penalty"] * v.wild

    def reason(self, v: FanView) -> Text:
        k = v.opts["ghost_fan_penalty"]
        return Text(f"{v.wild} ghost tile(s) in the hand, −{k} fan each (option)",
                    f"手中 {v.wild} 張鬼牌，每張減 {k} 番（選項）")


class GhostZimo(FanElement):
    id, zh, en = "ghost_zimo", "鬼牌自摸", "Self-drawn ghost"

    def is_condition_met(self, v: FanView) -> bool:
        return v.opts["ghost_selfdraw_bonus"] > 0 and v.wild_win

    def fan(self, v: FanView) -> int:
        return v.opts["ghost_selfdraw_bonus"]

    def reason(self, v: FanView) -> Text:
        return Text("the self-drawn winning tile is a ghost (option)", "自摸到鬼牌（選項）")


class Pinghu(FanElement):
    id, zh, en, FAN = "pinghu", "平胡", "Plain win", 1

    def is_condition_met(self, v: FanView) -> bool:
        return v.division.kind == "standard"

    def reason(self, v: FanView) -> Text:
        return Text("four sets and a pair with no pattern fan", "四組一對，沒有其他牌型")


PATTERNS: tuple[FanElement, ...] = (Duiduihu(), Hunyise(), Qingyise(), Qixiaodui())
BONUSES: tuple[FanElement, ...] = (QixiaoduiZimo(), Qiangganghu(), Haidilaoyue(), GhostPenalty(), GhostZimo())
PINGHU = Pinghu()

LIMITS = {"shisanyao": ("十三幺", "Thirteen orphans"), "tianhu": ("天胡", "Heavenly hand"),
          "dihu": ("地胡", "Earthly hand")}
LIMIT_REASONS = {
    "shisanyao": Text("one of each terminal and honor plus a duplicate", "十三種幺九字牌各一張再加一張"),
    "tianhu": Text("the dealer was complete on his initial 14 tiles", "莊家起手十四張即胡"),
    "dihu": Text("a non-dealer won before his first discard with no claim made", "閒家第一巡內胡，之前無人吃碰槓"),
}


class NanningFan(Ruleset):
    """南寧 (番): see RULES.md §2."""

    name = "nanning-fan"
    title = Text("Nanning fan (番, ghosts)", "南寧（番，鬼牌）")
    unit = Text("points", "分")
    chow_from = frozenset({"left"})
    has_orphans = True
    situation_fields = ("last_tile", "heavenly", "earthly", "kong_events")
    earthly_win_types = ("self_draw", "discard")  # D-F7
    field_help = {"earthly": Text("a non-dealer wins before his first discard, with no chow, pung or kong by anyone",
                                  "閒家第一巡內胡，之前無人吃碰槓")}
    errors = {**ERROR_TEXT, "below_min_fan": Text("the hand has less than 1 fan", "不足一番")}
    options = {
        "base": Option(1, BASE, "points = base × 2^(fan−1)", "分數 = 底 × 2^(番−1)"),
        "fan_cap": Option(None, opt_int(1, 64, nullable=True), "cap on fan (null = 上不封頂, no cap) (D-F2)",
                          "封頂番數（空 = 上不封頂）"),
        "manguan_fan": Option(6, opt_int(1, 64), "滿貫 fan when there is no cap (limit hands) (D-F2)", "滿貫番數"),
        "duiduihu_fan": Option(2, FAN, "對對胡 fan (source 2–3) (D-F1)", "對對胡番數"),
        "qingyise_fan": Option(5, FAN, "清一色 fan (source 5–6) (D-F1)", "清一色番數"),
        "qixiaodui_fan": Option(4, FAN, "七小對 fan (D-F1)", "七小對番數"),
        "ghost": Option(None, opt_ghost, "ghost tiles: null, flip with an indicator, or extra4 blanks (§2.4)",
                        "鬼牌：無、翻牌定鬼，或四張白板鬼"),
        "ghost_pair_allowed": Option(False, opt_bool, "a pair of ghosts only may be the pair (D-F4)", "鬼牌可單獨作將"),
        "ghost_fan_penalty": Option(0, FAN, "−k fan per ghost held in the hand", "手中每張鬼牌減幾番"),
        "ghost_selfdraw_bonus": Option(0, FAN, "+k fan when the self-drawn winning tile is a ghost", "自摸鬼牌加幾番"),
        "kong_payment": Option({"exposed": 0, "added": 0, "concealed_each": 0}, opt_kong_payment,
                               "kong money amounts (source silent: 0) (D-F5)", "槓錢（原文未定：0）"),
        "zhahu_penalty": Option(None, opt_int(0, 10**6, nullable=True),
                                "詐胡: the false winner pays each other player this (null = 滿貫 points) (D-F9)",
                                "詐胡者付每家多少（空 = 滿貫分）"),
    }

    def ghost_kind(self, opts: dict[str, Any]) -> int | None:
        return opts["ghost"]["kind"] if opts["ghost"] else None

    def concealed_kinds(self, opts: dict[str, Any]) -> frozenset[int]:
        """Blank ghosts G may sit in the concealed hand with the extra4 option."""
        return self.playing_set | {BLANK_GHOST} if self.ghost_kind(opts) == BLANK_GHOST else self.playing_set

    def check_tile(self, t: int, where: str, opts: dict[str, Any]) -> None:
        if t == BLANK_GHOST and self.ghost_kind(opts) == BLANK_GHOST and "melds" not in where:
            return
        if t == BLANK_GHOST:
            raise InputError(f"{where}: blank ghost tiles G need option ghost={{\"mode\": \"extra4\"}} and may only "
                             "be in the concealed hand")
        super().check_tile(t, where, opts)

    def validate(self, hand: Hand, ctx: WinContext, opts: dict[str, Any]) -> None:
        super().validate(hand, ctx, opts)
        g = self.ghost_kind(opts)
        if g is not None and g < N_KINDS:
            for i, m in enumerate(hand.melds):
                if g in m.tiles:
                    raise InputError(f"hand.melds[{i}]: {CODES[g]} is this hand's ghost and ghosts cannot sit in a "
                                     "declared meld (D-F8)")

    def manguan(self, opts: dict[str, Any]) -> int:
        return opts["fan_cap"] if opts["fan_cap"] is not None else opts["manguan_fan"]

    def points(self, fan: int, opts: dict[str, Any]) -> int:
        return opts["base"] * 2 ** (fan - 1)

    # -------------------------------------------------------------- shapes with ghosts
    def ghost_shapes(self, hand: Hand, ctx: WinContext, opts: dict[str, Any]) -> tuple[list[Shape], int, bool]:
        """Shapes with every ghost substitution; also the number of wild ghosts and whether the winning tile is one."""
        g = self.ghost_kind(opts)
        if g is None:
            return self.shapes(hand, ctx, opts), 0, False
        real = [t for t in hand.concealed if t != g]
        wild = len(hand.concealed) - len(real)
        wild_win = False
        assert hand.winning_tile is not None
        if hand.winning_tile == g and ctx.win_type == "self_draw":
            wild += 1
            wild_win = True
        else:
            real.append(hand.winning_tile)
        if wild == 0:
            return self.shapes(hand, ctx, opts), 0, False
        counts = [0] * N_KINDS
        for t in real:
            if t < N_KINDS:
                counts[t] += 1
        if sum(counts) + wild != 14 - 3 * len(hand.melds):
            return [], wild, wild_win  # a face-value blank ghost can never be part of a win
        held = self.held_counts(hand, counts)
        limit = tuple(4 - n for n in held)
        ct = tuple(counts)
        out: list[Shape] = []
        for pair, groups, used in wild_standard(ct, wild, limit, opts["ghost_pair_allowed"]):
            free = [i for i, (k, _) in enumerate(groups) if k is None]
            if not free and pair is not None:
                rep = list(ct)
                for k in used:
                    rep[k] += 1
                whole = cast("tuple[tuple[int, bool], ...]", groups)  # (no group left free)
                out.append(Shape("standard", pair, tuple(sorted(whole)), represented=used, counts=tuple(rep)))
                continue
            out.extend(self._resolve_free(ct, pair, groups, used, free, limit))
        if not hand.melds:
            sp = wild_seven_pairs(ct, wild, limit)
            if sp is not None:
                for rep_used in self._seven_pair_variants(ct, sp, limit):
                    rep = list(ct)
                    for k in rep_used:
                        rep[k] += 1
                    q = seven_pairs_quads(rep)
                    if q is not None:
                        out.append(Shape("seven_pairs", quads=q, represented=rep_used, counts=tuple(rep)))
            orph = wild_thirteen_orphans(ct, wild)
            if orph is not None:
                rep = list(ct)
                for k in orph:
                    rep[k] += 1
                out.append(Shape("orphans", represented=orph, counts=tuple(rep)))
        return out, wild, wild_win

    @staticmethod
    def _candidates(room: list[int], need: int) -> list[int]:
        """One kind per suit and one honor with room for ``need`` more tiles: all a free group can change."""
        out = []
        for lo, hi in ((0, 9), (9, 18), (18, FIRST_WIND), (FIRST_WIND, N_KINDS)):
            k = max(range(lo, hi), key=lambda x: room[x])
            if room[k] >= need:
                out.append(k)
        return out

    def _resolve_free(self, ct: tuple[int, ...], pair: int | None, groups: tuple, used: tuple[int, ...],
                      free: list[int], limit: tuple[int, ...]) -> list[Shape]:
        room = list(limit)
        for k in used:
            room[k] -= 1
        slots = [3] * len(free) + ([2] if pair is None else [])
        out = []
        for choice in product(*(self._candidates(room, n) for n in slots)):
            r2 = room[:]
            ok = True
            for k, n in zip(choice, slots):
                r2[k] -= n
                ok &= r2[k] >= 0
            if not ok:
                continue
            new_groups = [grp for grp in groups if grp[0] is not None]
            extra: list[int] = []
            for k, n in zip(choice[:len(free)], slots):
                new_groups.append((k, False))
                extra += [k] * n
            p = pair
            if pair is None:
                p = choice[-1]
                extra += [p, p]
            rep = list(ct)
            for k in used + tuple(extra):
                rep[k] += 1
            out.append(Shape("standard", p, tuple(sorted(new_groups)), represented=used + tuple(extra),
                             counts=tuple(rep)))
        return out

    def _seven_pair_variants(self, ct: tuple[int, ...], base: tuple[int, ...], limit: tuple[int, ...]
                             ) -> list[tuple[int, ...]]:
        """The canonical seven-pairs substitution, plus all-wild pairs moved to another suit / honors."""
        odd = [k for k in range(N_KINDS) if ct[k] & 1]
        n_free = (len(base) - len(odd)) // 2
        if n_free == 0:
            return [base]
        room = list(limit)
        for k in odd:
            room[k] -= 1
        variants = [base]
        for choice in product(*([self._candidates(room, 2)] * n_free)):
            r2 = room[:]
            ok = True
            for k in choice:
                r2[k] -= 2
                ok &= r2[k] >= 0
            if ok:
                variants.append(tuple(odd) + tuple(k for k in choice for _ in (0, 1)))
        return variants

    # -------------------------------------------------------------- scoring hooks
    def views(self, hand: Hand, ctx: WinContext, opts: dict[str, Any]) -> list[FanView]:
        shapes, wild, wild_win = self.ghost_shapes(hand, ctx, opts)
        out = []
        for s in shapes:
            counts = self.held_counts(hand, s.counts)
            out.append(FanView(hand, ctx, opts, s, counts, wild, wild_win, suits_and_honors(counts)))
        return out

    def evaluate(self, v: FanView) -> Evaluation:
        """The fan elements of one reading: a limit hand alone, or patterns (平胡 if none) plus bonuses."""
        limits = []
        if v.division.kind == "orphans":
            cap = v.opts["fan_cap"]
            limits.append(("shisanyao", min(13, cap) if cap is not None else 13))
        if v.ctx.heavenly:
            limits.append(("tianhu", self.manguan(v.opts)))
        if v.ctx.earthly:
            limits.append(("dihu", self.manguan(v.opts)))
        if limits:
            lid, fan = max(limits, key=lambda x: x[1])
            zh, en = LIMITS[lid]
            why = LIMIT_REASONS[lid]
            limit = ScoredElement(lid, zh, en, Text(f"{why.en}: limit hand, nothing else counts",
                                                    f"{why.zh}：滿貫，其他不計"), fan=fan)
            return Evaluation(v, [limit], fan, fan)
        picked = [(e, e.fan(v)) for e in PATTERNS if e.is_condition_met(v)]
        if not picked and PINGHU.is_condition_met(v):
            picked.append((PINGHU, 1))
        picked += [(e, e.fan(v)) for e in BONUSES if e.is_condition_met(v)]
        fan = sum(f for _, f in picked)
        if v.opts["fan_cap"] is not None:
            fan = min(fan, v.opts["fan_cap"])
        return Evaluation(v, [], fan, fan, pending=picked, pending_unit="fan")

    def false_win(self, error: str, message: str, ctx: WinContext, opts: dict[str, Any]) -> ScoreResult:
        """詐胡: the declared win is illegal, the false winner pays each other player the penalty."""
        amount = opts["zhahu_penalty"] if opts["zhahu_penalty"] is not None else \
            self.points(self.manguan(opts), opts)
        check_amount(3 * amount, "zhahu_penalty")
        pay = Payments()
        pay.pays_each(ctx.winner, amount)
        net = [0, 0, 0, 0]
        pay.apply_to(net)
        return invalid(error, message, zhahu={"offender": ctx.winner, "amount_each": amount},
                       penalty_payments=pay.to_json(), net=net)

    def no_shape(self, hand: Hand, ctx: WinContext, opts: dict[str, Any]) -> ScoreResult:
        wild = sum(1 for t in hand.concealed if t == self.ghost_kind(opts))
        return self.false_win("not_a_winning_hand", "the tiles form no standard hand, seven pairs or thirteen "
                              "orphans" + (" with any ghost substitution" if wild else ""), ctx, opts)

    def reject(self, best: Evaluation) -> ScoreResult | None:
        if best.amount < 1:
            return self.false_win("below_min_fan", f"the hand is worth {best.amount} fan; at least 1 is needed "
                                  "(無番不可胡)", best.view.ctx, best.view.opts)
        return None

    def settle(self, best: Evaluation) -> ScoreResult:
        v: FanView = best.view
        opts = v.opts
        points = check_amount(self.points(best.amount, opts), "points")
        plain = Evaluation(v, best.elements, points, best.rank)
        result = super().settle(plain)
        result.extra_first = {"fan": best.amount, "points": points}
        if v.wild:
            g = self.ghost_kind(opts)
            assert g is not None
            result.extra["ghost_substitution"] = [CODES[k] for k in v.division.represented]
            result.extra["ghost_details"] = {"ghost": CODES[g], "wild_count": v.wild,
                                             "stands_for": [{"ghost": CODES[g], "as": CODES[k]}
                                                            for k in v.division.represented]}
            result.extra["shape"] = result.extra.pop("shape")
        return result

    def kong_payments(self, events: list[KongEvent], opts: dict[str, Any]) -> Payments:
        """D-F5: the kong money of the option kong_payment (none by default)."""
        kp = opts["kong_payment"]
        return pay_kong_simple(events, kp["exposed"], kp["added"], kp["concealed_each"])
