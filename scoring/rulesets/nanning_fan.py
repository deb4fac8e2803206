"""Ruleset `nanning-fan` (RULES.md §2): Nanning counted in 番, chow from the left, 十三幺, ghost tiles."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product
from typing import Any

from ..divider import (
    seven_pairs_quads,
    wild_seven_pairs,
    wild_standard,
    wild_thirteen_orphans,
)
from ..errors import InputError
from ..hand import Hand, WinContext
from ..result import Payments, ScoredElement, ScoreResult, invalid
from ..tiles import BLANK_GHOST, CODES, N_KINDS, next_kind, parse_tile
from .base import (
    Element,
    Option,
    Ruleset,
    Shape,
    all_pungs,
    describe_shape,
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
                         f"{{\"mode\": \"extra4\"}}, got {v!r}")
    if v["mode"] == "flip":
        t = parse_tile(v.get("indicator"), f"options.{name}.indicator")
        return {"mode": "flip", "indicator": CODES[t], "kind": next_kind(t)}
    return {"mode": "extra4", "kind": BLANK_GHOST}


def opt_kong_payment(name: str, v: Any) -> dict[str, int]:
    if not isinstance(v, dict) or set(v) - {"exposed", "added", "concealed_each"}:
        raise InputError(f"options.{name}: expected {{\"exposed\", \"added\", \"concealed_each\"}} amounts, got {v!r}")
    out = {"exposed": 0, "added": 0, "concealed_each": 0}
    for k, val in v.items():
        out[k] = opt_int(0)(f"{name}.{k}", val)
    return out


@dataclass(slots=True)
class FanView:
    hand: Hand
    ctx: WinContext
    opts: dict[str, Any]
    shape: Shape
    all_counts: list[int]  # represented tiles of hand + melds
    wild: int  # ghost tiles acting as wild
    wild_win: bool  # the self-drawn winning tile is a ghost


class FanElement(Element):
    FAN = 0

    def fan(self, v: FanView) -> int:
        return self.FAN


class Duiduihu(FanElement):
    id, zh, en = "duiduihu", "對對胡", "All pungs"

    def is_condition_met(self, v: FanView) -> bool:
        return all_pungs(v.shape, v.hand)

    def fan(self, v: FanView) -> int:
        return v.opts["duiduihu_fan"]

    def reason(self, v: FanView) -> str:
        return "every set is a triplet or kong"


class Hunyise(FanElement):
    id, zh, en, FAN = "hunyise", "混一色", "Half flush", 3

    def is_condition_met(self, v: FanView) -> bool:
        suits, winds, dragons = suits_and_honors(v.all_counts)
        return len(suits) == 1 and (winds or dragons)

    def reason(self, v: FanView) -> str:
        return "one suit plus honors"


class Qingyise(FanElement):
    id, zh, en = "qingyise", "清一色", "Full flush"

    def is_condition_met(self, v: FanView) -> bool:
        suits, winds, dragons = suits_and_honors(v.all_counts)
        return len(suits) == 1 and not winds and not dragons

    def fan(self, v: FanView) -> int:
        return v.opts["qingyise_fan"]

    def reason(self, v: FanView) -> str:
        return "all tiles of one suit, no honors"


class Qixiaodui(FanElement):
    id, zh, en = "qixiaodui", "七小對", "Seven pairs"

    def is_condition_met(self, v: FanView) -> bool:
        return v.shape.kind == "seven_pairs"

    def fan(self, v: FanView) -> int:
        return v.opts["qixiaodui_fan"]

    def reason(self, v: FanView) -> str:
        return "seven pairs and no melds" + (" (a quad counts as two pairs)" if v.shape.quads else "")


class QixiaoduiZimo(FanElement):
    id, zh, en, FAN = "qixiaodui_zimo", "七小對自摸", "Seven pairs self-drawn", 1

    def is_condition_met(self, v: FanView) -> bool:
        return v.shape.kind == "seven_pairs" and v.ctx.win_type == "self_draw"

    def reason(self, v: FanView) -> str:
        return "seven pairs won by self-draw"


class Qiangganghu(FanElement):
    id, zh, en, FAN = "qiangganghu", "搶槓胡", "Robbing a kong", 1

    def is_condition_met(self, v: FanView) -> bool:
        return v.ctx.win_type == "rob_kong"

    def reason(self, v: FanView) -> str:
        return f"won on the tile seat {v.ctx.discarder} added to a pung"


class Haidilaoyue(FanElement):
    id, zh, en, FAN = "haidilaoyue", "海底撈月", "Last tile self-drawn", 1

    def is_condition_met(self, v: FanView) -> bool:
        return v.ctx.win_type == "self_draw" and v.ctx.last_tile

    def reason(self, v: FanView) -> str:
        return "self-drew the last wall tile"


class GhostPenalty(FanElement):
    id, zh, en = "ghost_penalty", "鬼牌扣番", "Ghost tiles held"

    def is_condition_met(self, v: FanView) -> bool:
        return v.opts["ghost_fan_penalty"] > 0 and v.wild > 0

    def fan(self, v: FanView) -> int:
        return -v.opts["ghost_fan_penalty"] * v.wild

    def reason(self, v: FanView) -> str:
        return f"{v.wild} ghost tile(s) in the hand, −{v.opts['ghost_fan_penalty']} fan each (option)"


class GhostZimo(FanElement):
    id, zh, en = "ghost_zimo", "鬼牌自摸", "Self-drawn ghost"

    def is_condition_met(self, v: FanView) -> bool:
        return v.opts["ghost_selfdraw_bonus"] > 0 and v.wild_win

    def fan(self, v: FanView) -> int:
        return v.opts["ghost_selfdraw_bonus"]

    def reason(self, v: FanView) -> str:
        return "the self-drawn winning tile is a ghost (option)"


class Pinghu(FanElement):
    id, zh, en, FAN = "pinghu", "平胡", "Plain win", 1

    def is_condition_met(self, v: FanView) -> bool:
        return v.shape.kind == "standard"

    def reason(self, v: FanView) -> str:
        return "four sets and a pair with no pattern fan"


PATTERNS: tuple[FanElement, ...] = (Duiduihu(), Hunyise(), Qingyise(), Qixiaodui())
BONUSES: tuple[FanElement, ...] = (QixiaoduiZimo(), Qiangganghu(), Haidilaoyue(), GhostPenalty(), GhostZimo())
PINGHU = Pinghu()

LIMITS = {"shisanyao": ("十三幺", "Thirteen orphans"), "tianhu": ("天胡", "Heavenly hand"),
          "dihu": ("地胡", "Earthly hand")}


class NanningFan(Ruleset):
    """南寧 (番): see RULES.md §2."""

    name = "nanning-fan"
    title = "Nanning fan (番, ghosts)"
    allows_chow = True
    has_orphans = True
    options = {
        "base": Option(1, opt_int(1), "points = base × 2^(fan−1)"),
        "fan_cap": Option(None, opt_int(1, nullable=True), "cap on fan (null = 上不封頂, no cap) (D-F2)"),
        "manguan_fan": Option(6, opt_int(1), "滿貫 fan when there is no cap (limit hands) (D-F2)"),
        "duiduihu_fan": Option(2, opt_int(0), "對對胡 fan (source 2–3) (D-F1)"),
        "qingyise_fan": Option(5, opt_int(0), "清一色 fan (source 5–6) (D-F1)"),
        "qixiaodui_fan": Option(4, opt_int(0), "七小對 fan (D-F1)"),
        "ghost": Option(None, opt_ghost, "ghost tiles: null, flip with an indicator, or extra4 blanks (§2.4)"),
        "ghost_pair_allowed": Option(False, opt_bool, "a pair of ghosts only may be the pair (D-F4)"),
        "ghost_fan_penalty": Option(0, opt_int(0), "−k fan per ghost held in the hand"),
        "ghost_selfdraw_bonus": Option(0, opt_int(0), "+k fan when the self-drawn winning tile is a ghost"),
        "kong_payment": Option({"exposed": 0, "added": 0, "concealed_each": 0}, opt_kong_payment,
                               "kong money amounts (source silent: 0) (D-F5)"),
        "zhahu_penalty": Option(None, opt_int(0, nullable=True),
                                "詐胡: the false winner pays each other player this (null = 滿貫 points) (D-F9)"),
    }

    def ghost_kind(self, opts: dict[str, Any]) -> int | None:
        return opts["ghost"]["kind"] if opts["ghost"] else None

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
        if ctx.replacement == "flower":
            raise InputError("context.replacement: nanning-fan has no flowers")

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
                out.append(Shape("standard", pair, tuple(sorted(groups)), represented=used, counts=tuple(rep)))
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
        for lo, hi in ((0, 9), (9, 18), (18, 27), (27, 34)):
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

    # -------------------------------------------------------------- scoring
    def evaluate(self, v: FanView) -> list[ScoredElement]:
        out = []
        limits = []
        if v.shape.kind == "orphans":
            cap = v.opts["fan_cap"]
            limits.append(("shisanyao", min(13, cap) if cap is not None else 13, "one of each terminal and honor "
                           "plus a duplicate"))
        if v.ctx.heavenly:
            limits.append(("tianhu", self.manguan(v.opts), "the dealer was complete on his initial 14 tiles"))
        if v.ctx.earthly:
            limits.append(("dihu", self.manguan(v.opts), "a non-dealer won before his first discard with no claim "
                           "made (D-F7)"))
        if limits:
            lid, fan, why = max(limits, key=lambda x: x[1])
            zh, en = LIMITS[lid]
            return [ScoredElement(lid, zh, en, f"{why}: limit hand, nothing else counts", fan=fan)]
        for e in PATTERNS:
            if e.is_condition_met(v):
                out.append(ScoredElement(e.id, e.zh, e.en, e.reason(v), fan=e.fan(v)))
        if not out and PINGHU.is_condition_met(v):
            out.append(ScoredElement(PINGHU.id, PINGHU.zh, PINGHU.en, PINGHU.reason(v), fan=1))
        for e in BONUSES:
            if e.is_condition_met(v):
                out.append(ScoredElement(e.id, e.zh, e.en, e.reason(v), fan=e.fan(v)))
        return out

    def total_fan(self, elements: list[ScoredElement], opts: dict[str, Any]) -> int:
        fan = sum(e.fan or 0 for e in elements)
        return min(fan, opts["fan_cap"]) if opts["fan_cap"] is not None else fan

    def false_win(self, error: str, message: str, ctx: WinContext, opts: dict[str, Any]) -> ScoreResult:
        """詐胡: the declared win is illegal, the false winner pays each other player the penalty."""
        amount = opts["zhahu_penalty"] if opts["zhahu_penalty"] is not None else \
            self.points(self.manguan(opts), opts)
        pay = Payments()
        pay.pays_each(ctx.winner, amount)
        net = [0, 0, 0, 0]
        pay.apply_to(net)
        return invalid(error, message, zhahu={"offender": ctx.winner, "amount_each": amount},
                       penalty_payments=pay.to_json(), net=net)

    def score(self, hand: Hand, ctx: WinContext, opts: dict[str, Any]) -> ScoreResult:
        shapes, wild, wild_win = self.ghost_shapes(hand, ctx, opts)
        if not shapes:
            return self.false_win("not_a_winning_hand", "the tiles form no standard hand, seven pairs or thirteen "
                                  "orphans" + (" with any ghost substitution" if wild else ""), ctx, opts)
        best = None
        for shape in shapes:
            all_counts = self.held_counts(hand, shape.counts)
            v = FanView(hand, ctx, opts, shape, all_counts, wild, wild_win)
            elements = self.evaluate(v)
            fan = self.total_fan(elements, opts)
            if best is None or fan > best[0]:
                best = (fan, elements, v)
        assert best is not None
        fan, elements, v = best
        if fan < 1:
            return self.false_win("below_min_fan", f"the hand is worth {fan} fan; at least 1 is needed (無番不可胡)",
                                  ctx, opts)
        points = self.points(fan, opts)
        pay = Payments()
        if ctx.win_type == "self_draw":
            settlement: dict[str, Any] = {"mode": "each", "amount": points}
            pay.each_pays(ctx.winner, points)
        else:
            assert ctx.discarder is not None
            settlement = {"mode": "single", "payer": ctx.discarder, "amount": points}
            pay.add(ctx.discarder, ctx.winner, points)
        kp = opts["kong_payment"]
        result = ScoreResult(valid=True, elements=elements, settlement=settlement, liability=None,
                             hand_payments=pay, kong_payments=pay_kong_simple(self.kong_events(hand, ctx),
                                                                              kp["exposed"], kp["added"],
                                                                              kp["concealed_each"]),
                             extra_first={"fan": fan, "points": points})
        if wild:
            g = self.ghost_kind(opts)
            assert g is not None
            result.extra["ghost_substitution"] = [CODES[k] for k in v.shape.represented]
            result.extra["ghost_details"] = {"ghost": CODES[g], "wild_count": wild,
                                             "stands_for": [{"ghost": CODES[g], "as": CODES[k]}
                                                            for k in v.shape.represented]}
        result.extra["shape"] = describe_shape(v.shape, hand)
        return result
