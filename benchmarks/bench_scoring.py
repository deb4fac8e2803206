"""Scoring throughput and the hand divider against `mahjong` (riichi) on the same hands.

    python benchmarks/bench_scoring.py [--n 10000] [--seed 0] [--wait-hands 300]

Full scoring = parse + check + divide + elements + payments of one case dict (what `python -m scoring` does
per case, without JSON text I/O), on one core. Caches are cleared before each timed run.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scoring import RULESETS, divider, score_case  # noqa: E402
from scoring.api import parse_case  # noqa: E402
from scoring.generate import random_cases  # noqa: E402


def clear_caches() -> None:
    divider.standard.cache_clear()
    divider.is_standard_complete.cache_clear()


def throughput(cases: list[dict], repeat: int = 3) -> float:
    best = 0.0
    for _ in range(repeat):
        clear_caches()
        t = time.perf_counter()
        for c in cases:
            score_case(c)
        best = max(best, len(cases) / (time.perf_counter() - t))
    return best


def timed(run: object, cases: list[dict]) -> dict[str, float]:
    """Per-case times of ``run`` (caches cleared before each): median, p99 and max in ms, and cases per second."""
    times = []
    for c in cases:
        clear_caches()
        t = time.perf_counter()
        run(c)  # type: ignore[operator]
        times.append(time.perf_counter() - t)
    times.sort()
    n = len(times)
    return {"hands": n, "per_s": round(n / sum(times), 1), "median_ms": round(1000 * times[n // 2], 3),
            "p99_ms": round(1000 * times[int(n * 0.99)], 3), "max_ms": round(1000 * times[-1], 3)}


def ghost_worst_case(n: int, seed: int) -> dict[str, float]:
    """Hands holding 4 blank ghosts (extra4), self-drawn: the widest substitution search."""
    rng = random.Random(seed)
    cases = []
    while len(cases) < n:
        c = random_cases(1, "nanning-fan", rng.randrange(1 << 30))[0]
        conc = c["hand"]["concealed"]
        if len(conc) < 4:
            continue
        for i in rng.sample(range(len(conc)), 4):
            conc[i] = "G"
        c["options"] = {"ghost": {"mode": "extra4"}}
        cases.append(c)
    return timed(score_case, cases)


def divider_vs_mahjong(cases: list[dict]) -> dict[str, float] | None:
    try:
        from mahjong.hand_calculating.divider import HandDivider
        from mahjong.meld import Meld as RMeld
    except ImportError:
        return None
    ours_in, theirs_in = [], []
    for c in cases:
        _, _, hand, _ = parse_case(c)
        counts = divider.counts_of(list(hand.concealed) + [hand.winning_tile])
        ours_in.append((tuple(counts), not hand.melds))
        full = list(counts)
        melds = []
        for m in hand.melds:
            for t in m.tiles[:3]:  # riichi blocks: a kong counts as its triplet for division
                full[t] += 1
            kind = RMeld.CHI if m.type == "chow" else RMeld.PON
            melds.append(RMeld(meld_type=kind, tiles=[t * 4 + i for i, t in enumerate(m.tiles[:3])]))
        theirs_in.append((full, melds))
    clear_caches()
    t = time.perf_counter()
    n_ours = 0
    for counts, no_melds in ours_in:
        n_ours += len(divider.standard.__wrapped__(counts))
        if no_melds:
            n_ours += divider.seven_pairs_quads(counts) is not None
    ours = time.perf_counter() - t
    HandDivider._divide_hand_impl.cache_clear()
    t = time.perf_counter()
    n_theirs = 0
    for tiles, melds in theirs_in:
        n_theirs += len(HandDivider.divide_hand(tiles, melds))
    theirs = time.perf_counter() - t
    return {"hands": len(cases), "ours_us_per_hand": 1e6 * ours / len(cases),
            "mahjong_us_per_hand": 1e6 * theirs / len(cases), "speedup": theirs / ours,
            "divisions_ours": n_ours, "divisions_mahjong": n_theirs}


def wait_tables(n: int, seed: int) -> dict[str, dict[str, float]]:
    """Full wait tables (every winning tile, self-draw and each discarder scored) of ready 13-tile hands: the
    generated winning hands with their winning tile taken away, and hands with ghost tiles (nanning-fan)."""
    from scoring.waits import waits

    out = {}
    for rs in list(RULESETS):
        ghosts = "ghost" in RULESETS[rs].options  # a ruleset with ghost tiles is timed on ghost hands
        name = f"{rs}_ghosts" if ghosts else rs
        cases = []
        for c in random_cases(n * 3, rs, seed, ghosts=ghosts):
            if ghosts and not c["options"].get("ghost"):
                continue
            c["hand"]["winning_tile"] = None
            cases.append(c)
        out[name] = timed(waits, cases[:n])
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--ghost-hands", type=int, default=500)
    ap.add_argument("--wait-hands", type=int, default=300)
    args = ap.parse_args()
    report: dict[str, object] = {"hands_per_ruleset": args.n, "seed": args.seed}
    for rs in list(RULESETS):
        cases = random_cases(args.n, rs, args.seed, ghosts="ghost" in RULESETS[rs].options)
        report[f"{rs}_hands_per_s"] = round(throughput(cases))
    report["ghost4_worst_case"] = ghost_worst_case(args.ghost_hands, args.seed)
    report["wait_tables"] = wait_tables(args.wait_hands, args.seed)
    div = divider_vs_mahjong(random_cases(args.n, "nanning", args.seed))
    if div:
        report["divider_vs_mahjong"] = {k: round(v, 2) for k, v in div.items()}
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
