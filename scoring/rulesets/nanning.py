"""Ruleset `nanning` (RULES.md §1): Nanning scoring counted in 張, no chow, 封胡, 連槓, 釣魚."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import InputError
from ..hand import Hand, WinContext
from ..result import Payments, ScoredElement, ScoreResult, invalid
from ..tiles import CODES
from .base import (
    Element,
    Option,
    Ruleset,
    Shape,
    all_pungs,
    apply_exclusions,
    describe_shape,
    feed_counts,
    opt_bool,
    opt_choice,
    opt_int,
    suits_and_honors,
)

DISCARD_TYPES = ("discard", "rob_kong")


@dataclass(slots=True)
class NanningView:
    """Everything the elements look at for one shape of the winning hand."""

    hand: Hand
    ctx: WinContext
    opts: dict[str, Any]
    shape: Shape
    single: bool  # settlement mode: one payer (D values) or each of three (S values)
    situation: str | None
    all_counts: list[int]

    @property
    def menqing(self) -> bool:
        """門清: no pung and no exposed/added kong (concealed kongs allowed); never for seven pairs."""
        return self.shape.kind == "standard" and not any(m.is_claimed for m in self.hand.melds)


# ------------------------------------------------------------------ hand-type elements (§1.2)

class HandType(Element):
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

    def reason(self, v: NanningView) -> str:
        return "every set in the hand and the melds is a triplet or kong"


class Qingyise(HandType):
    id, zh, en = "qingyise", "清一色", "Full flush"
    D, S, INC_D, INC_S = 9, 6, 3, 2

    def is_condition_met(self, v: NanningView) -> bool:
        suits, winds, dragons = suits_and_honors(v.all_counts)
        return len(suits) == 1 and not winds and not dragons

    def increment(self, v: NanningView) -> int:
        return 0 if v.shape.kind == "seven_pairs" else super().increment(v)  # D-N9

    def reason(self, v: NanningView) -> str:
        suit = "mps"[next(k // 9 for k in range(27) if v.all_counts[k])]
        return f"all tiles are of one suit ({suit}), no honors"


class SevenPairs(HandType):
    """七對 family: the number of quads picks the element (D-N9: no 門清 increment)."""

    QUADS = 0

    def is_condition_met(self, v: NanningView) -> bool:
        return v.shape.kind == "seven_pairs" and v.shape.quads == self.QUADS

    def reason(self, v: NanningView) -> str:
        return "seven pairs" + (f" with {self.QUADS} quad(s) counted as two pairs each" if self.QUADS else ", no quad")


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
        if len(h.melds) != 4 or all(m.type == "kong_concealed" for m in h.melds) or v.shape.kind != "standard":
            return False
        if v.ctx.win_type in DISCARD_TYPES:
            return True
        return v.opts["quanqiuren_selfdraw"] == "12" and v.ctx.replacement is None

    def value(self, v: NanningView) -> int:
        return 18 if v.ctx.win_type in DISCARD_TYPES else 12

    def reason(self, v: NanningView) -> str:
        how = "a discard" if v.ctx.win_type in DISCARD_TYPES else "self-draw (option quanqiuren_selfdraw=12)"
        return f"four declared melds, the single loose tile paired by {how}"


class Tuidaohu(HandType):
    id, zh, en = "tuidaohu", "推倒胡", "Basic win"
    D, S, INC_D, INC_S = 2, 3, 1, 1

    def is_condition_met(self, v: NanningView) -> bool:  # decided by the ruleset: nothing else applies
        return True

    def reason(self, v: NanningView) -> str:
        return "a complete hand with no other hand type or special situation"


HAND_TYPES: tuple[HandType, ...] = (Quanqiuren(), Duiduihu(), Qingyise(), Qixiaodui(), Qidadui(), Chaohaohua(),
                                    Chaochaohaohua())
TUIDAOHU = Tuidaohu()


# ------------------------------------------------------------------ situations (§1.3), first match wins

class Situation(Element):
    single: bool = True

    def base(self, v: NanningView) -> int:  # pragma: no cover - interface
        raise NotImplementedError


class Tianhu(Situation):
    id, zh, en, single = "tianhu", "天胡", "Heavenly hand", False

    def is_condition_met(self, v: NanningView) -> bool:
        return v.ctx.heavenly

    def base(self, v: NanningView) -> int:
        return 100

    def reason(self, v: NanningView) -> str:
        return "the dealer was complete on his initial 14 tiles: 100 from each, nothing else counts (D-N4)"


class Dihu(Tianhu):
    id, zh, en = "dihu", "地胡", "Earthly hand"

    def is_condition_met(self, v: NanningView) -> bool:
        return v.ctx.earthly

    def reason(self, v: NanningView) -> str:
        return "a non-dealer self-drew with his first draw before any claim: 100 from each (D-N4)"


class GangkaiExposed(Situation):
    id, zh, en = "gangkai_exposed", "明槓槓上花", "Bloom on an exposed kong"

    def is_condition_met(self, v: NanningView) -> bool:
        return v.ctx.replacement == "kong" and any(k != "concealed" for k, _ in bloom_chain(v.ctx, v.opts))

    def base(self, v: NanningView) -> int:
        return 18

    def reason(self, v: NanningView) -> str:
        feeder = first_exposed_feeder(bloom_chain(v.ctx, v.opts))
        return f"won on a kong replacement; the exposed/added kong's feeder (seat {feeder}) pays alone"


class GangkaiConcealed(Situation):
    id, zh, en, single = "gangkai_concealed", "暗槓槓上花", "Bloom on a concealed kong", False

    def is_condition_met(self, v: NanningView) -> bool:
        return v.ctx.replacement == "kong"

    def base(self, v: NanningView) -> int:
        return v.opts["gangkai_concealed_each"]

    def reason(self, v: NanningView) -> str:
        return "won on the replacement tile of a concealed kong: each of the three pays"


class Qianggang(Situation):
    id, zh, en = "qianggang", "搶槓", "Robbing a kong"

    def is_condition_met(self, v: NanningView) -> bool:
        return v.ctx.win_type == "rob_kong"

    def base(self, v: NanningView) -> int:
        return 9

    def reason(self, v: NanningView) -> str:
        return f"won on the tile seat {v.ctx.discarder} added to his pung; the robbed player pays"


class Gangshangpao(Situation):
    id, zh, en = "gangshangpao", "槓上炮", "Discard after a kong"

    def is_condition_met(self, v: NanningView) -> bool:
        return v.ctx.win_type == "discard" and v.ctx.after_kong

    def base(self, v: NanningView) -> int:
        return 9

    def reason(self, v: NanningView) -> str:
        return f"seat {v.ctx.discarder} declared a kong and discarded the winning tile after its replacement"


class Haidilaoyue(Situation):
    id, zh, en, single = "haidilaoyue", "海底撈月", "Last tile self-drawn", False

    def is_condition_met(self, v: NanningView) -> bool:
        return v.ctx.win_type == "self_draw" and v.ctx.last_tile

    def base(self, v: NanningView) -> int:
        return 6

    def reason(self, v: NanningView) -> str:
        return "self-drew the last live wall tile"


class Haidipao(Situation):
    id, zh, en = "haidipao", "海底炮", "Last discard"

    def is_condition_met(self, v: NanningView) -> bool:
        return v.ctx.win_type == "discard" and v.ctx.last_tile

    def base(self, v: NanningView) -> int:
        return 9

    def reason(self, v: NanningView) -> str:
        return "won on the discard of the player who drew the last wall tile"


SITUATIONS: tuple[Situation, ...] = (Tianhu(), Dihu(), GangkaiExposed(), GangkaiConcealed(), Qianggang(),
                                     Gangshangpao(), Haidilaoyue(), Haidipao())


def bloom_chain(ctx: WinContext, opts: dict[str, Any]) -> list[tuple[str, int | None]]:
    """The kongs behind a replacement win; without 連槓 only the last kong counts."""
    return ctx.bloom_chain if opts["lian_gang"] else ctx.bloom_chain[-1:]


def first_exposed_feeder(chain: list[tuple[str, int | None]]) -> int | None:
    return next((f for k, f in chain if k != "concealed"), None)


class Nanning(Ruleset):
    """南寧 (張): see RULES.md §1."""

    name = "nanning"
    title = "Nanning (張)"
    options = {
        "menqing_on_discard": Option(True, opt_bool, "門清 also counts on discard-type wins (D-N1)"),
        "quanqiuren_selfdraw": Option("duiduihu", opt_choice("duiduihu", "12"),
                                      "a self-drawn 全球人 scores as 對對胡, or 12 each (table 03) (D-N2)"),
        "gangchong_mode": Option("additive", opt_choice("additive", "double"),
                                 "槓上炮: 9 + hand types, or hand types ×2 (D-N5)"),
        "gangkai_concealed_each": Option(9, opt_int(0), "暗槓槓上花: amount each of three pays (D-N8)"),
        "lian_gang": Option(True, opt_bool, "連槓: ×2^(n−1) and kong-chain liability"),
        "fenghu_feeds": Option(3, opt_int(1, 4), "feeds from one seat that make it 封胡 / liable"),
        "diaoyu": Option(False, opt_bool, "釣魚 fishing payments from the last wall tiles (D-N7)"),
    }

    def validate(self, hand: Hand, ctx: WinContext, opts: dict[str, Any]) -> None:
        super().validate(hand, ctx, opts)
        if ctx.earthly and ctx.win_type != "self_draw":
            raise InputError("context.earthly: in nanning an earthly win (地胡) is a self-draw")
        if ctx.replacement == "flower":
            raise InputError("context.replacement: nanning has no flowers (use \"kong\" or null)")
        if opts["diaoyu"] and ctx.previous_winner is not None and ctx.fish_tiles is None:
            raise InputError("context.fish_tiles: 釣魚 is on and there was a previous winner: give the last wall tiles")

    # -------------------------------------------------------------- scoring
    def fenghu_feeder(self, melds: Any, winner: int, opts: dict[str, Any]) -> int | None:
        """The seat that fed ``fenghu_feeds`` or more of these melds (concealed kongs never count)."""
        feeds = feed_counts(melds)
        best = max(range(4), key=lambda s: (feeds[s], -((s - winner) % 4)))
        return best if feeds[best] >= opts["fenghu_feeds"] and best != winner else None

    def score(self, hand: Hand, ctx: WinContext, opts: dict[str, Any]) -> ScoreResult:
        for seat, melds in ctx.other_melds.items():
            if self.fenghu_feeder(melds, seat, opts) == ctx.winner:
                return invalid("fenghu", f"seat {ctx.winner} fed seat {seat} {opts['fenghu_feeds']} or more melds "
                                         "and is 封胡: he may not win this hand")
        shapes = self.shapes(hand, ctx, opts)
        if not shapes:
            return invalid("not_a_winning_hand", "the tiles form neither four sets and a pair nor seven pairs")
        all_counts = self.held_counts(hand, shapes[0].counts)
        best: tuple[int, list[ScoredElement], NanningView] | None = None
        for shape in shapes:
            v = NanningView(hand, ctx, opts, shape, True, None, all_counts)
            sit = next((s for s in SITUATIONS if s.is_condition_met(v)), None)
            v.situation = sit.id if sit else None
            v.single = sit.single if sit else ctx.win_type != "self_draw"
            amount, elements = self.elements(v, sit)
            if best is None or amount > best[0]:
                best = (amount, elements, v)
        assert best is not None
        amount, elements, v = best
        return self.settle(hand, ctx, opts, v, amount, elements)

    def elements(self, v: NanningView, sit: Situation | None) -> tuple[int, list[ScoredElement]]:
        """The elements of one shape and the per-payer amount they give."""
        if isinstance(sit, Tianhu):  # 天胡 / 地胡: flat 100, nothing else counts
            return 100, [ScoredElement(sit.id, sit.zh, sit.en, sit.reason(v), value=100)]
        types = apply_exclusions([t for t in HAND_TYPES if t.is_condition_met(v)])
        out: list[ScoredElement] = []
        total = 0
        menqing_inc = 0
        use_menqing = v.menqing and (v.opts["menqing_on_discard"] or not v.single)
        if sit is None and not types:
            out.append(ScoredElement(TUIDAOHU.id, TUIDAOHU.zh, TUIDAOHU.en, TUIDAOHU.reason(v),
                                     value=TUIDAOHU.value(v)))
            total += TUIDAOHU.value(v)
            if use_menqing:
                menqing_inc += TUIDAOHU.increment(v)
        for t in types:
            val = t.value(v)
            out.append(ScoredElement(t.id, t.zh, t.en, t.reason(v), value=val))
            total += val
            if use_menqing:
                menqing_inc += t.increment(v)
        if menqing_inc:
            out.append(ScoredElement("menqing", "門清", "Concealed hand", "no pung and no exposed or added kong "
                                     f"(+{menqing_inc} for the hand types present)", value=menqing_inc))
            total += menqing_inc
        if sit is not None:
            if isinstance(sit, Gangshangpao) and v.opts["gangchong_mode"] == "double" and types:
                out.append(ScoredElement("gangchong_double", "槓上炮×2", "Discard after a kong, doubled",
                                         "槓上炮 doubles the hand types (option gangchong_mode=double)", multiplier=2))
                total *= 2
            else:
                base = sit.base(v)
                out.insert(0, ScoredElement(sit.id, sit.zh, sit.en, sit.reason(v), value=base))
                total += base
            chain = bloom_chain(v.ctx, v.opts)
            if isinstance(sit, (GangkaiExposed, GangkaiConcealed)) and len(chain) >= 2:
                mult = 2 ** (len(chain) - 1)
                out.append(ScoredElement("liangang", "連槓", "Kong chain", f"{len(chain)} kongs in a row before "
                                         f"the winning replacement: ×2^{len(chain) - 1}", multiplier=mult))
                total *= mult
        return total, out

    def settle(self, hand: Hand, ctx: WinContext, opts: dict[str, Any], v: NanningView, amount: int,
               elements: list[ScoredElement]) -> ScoreResult:
        """Settlement, 封胡 liability, 釣魚 and kong money."""
        w = ctx.winner
        pay = Payments()
        if v.single:
            if v.situation == "gangkai_exposed":
                payer = first_exposed_feeder(bloom_chain(ctx, opts))
            else:
                payer = ctx.discarder
            assert payer is not None
            settlement: dict[str, Any] = {"mode": "single", "payer": payer, "amount": amount}
        else:
            payer = None
            settlement = {"mode": "each", "amount": amount}
        liable = None if v.situation in ("tianhu", "dihu") else self.fenghu_feeder(hand.melds, w, opts)
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
        result = ScoreResult(valid=True, elements=elements, settlement=settlement, liability=liability,
                             hand_payments=pay, kong_payments=self.kong_money(hand, ctx, opts))
        if opts["diaoyu"] and ctx.previous_winner is not None:
            result.extra["diaoyu"] = self.diaoyu(ctx, amount, v.single, pay)
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
            n = t % 9 + 1 if t < 27 else t - 26
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

    def kong_money(self, hand: Hand, ctx: WinContext, opts: dict[str, Any]) -> Payments:
        """槓錢 (§1.4) with 連槓 chain liability: the first exposed/added kong's feeder pays the chain from there."""
        events = self.kong_events(hand, ctx)
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
