"""Hand division: every way the concealed tiles + winning tile split into sets and a pair.

A division is ``(pair_kind, groups)`` with groups a sorted tuple of ``(kind, is_run)``: a triplet of
``kind`` or a run starting at ``kind``. Counts are 34-tuples over the playing kinds (tiles.N_KINDS).
Ghost (wild) tiles are handled by :func:`wild_standard` and friends, which return the same shape plus
the kinds each wild tile stood for.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from .tiles import FIRST_WIND, N_KINDS, TERMINALS_AND_HONORS

Group = tuple[int, bool]
Division = tuple[int, tuple[Group, ...]]


def counts_of(tiles: list[int] | tuple[int, ...]) -> list[int]:
    """A 34-list of how many of each playing kind the tiles hold (flowers/ghosts ignored)."""
    c = [0] * N_KINDS
    for t in tiles:
        if t < N_KINDS:
            c[t] += 1
    return c


def _sets(c: list[int], i: int) -> list[tuple[Group, ...]]:
    """Every split of c (all counts from i on) into triplets and runs."""
    while i < N_KINDS and c[i] == 0:
        i += 1
    if i == N_KINDS:
        return [()]
    out: list[tuple[Group, ...]] = []
    if c[i] >= 3:
        c[i] -= 3
        for rest in _sets(c, i):
            out.append(((i, False),) + rest)
        c[i] += 3
    if i < FIRST_WIND and i % 9 <= 6 and c[i + 1] and c[i + 2]:
        c[i] -= 1
        c[i + 1] -= 1
        c[i + 2] -= 1
        for rest in _sets(c, i):
            out.append(((i, True),) + rest)
        c[i] += 1
        c[i + 1] += 1
        c[i + 2] += 1
    return out


def _can_sets(c: list[int]) -> bool:
    """Whether c (consumed in place) splits into triplets and runs at all.

    Greedy is exact: at the lowest kind, three runs i,i+1,i+2 can always be swapped for three triplets,
    so a triplet is taken first and what is left of kind i must start runs.
    """
    for i in range(N_KINDS):
        n = c[i]
        if n == 0:
            continue
        if n >= 3:
            n -= 3
        if n:
            if i >= FIRST_WIND or i % 9 > 6 or c[i + 1] < n or c[i + 2] < n:
                return False
            c[i + 1] -= n
            c[i + 2] -= n
    return True


@lru_cache(maxsize=1 << 16)
def standard(counts: tuple[int, ...]) -> tuple[Division, ...]:
    """Every standard division of a hand with 3k+2 tiles: one pair plus k sets."""
    total = sum(counts)
    if total % 3 != 2:
        return ()
    c = list(counts)
    out: list[Division] = []
    for p in range(N_KINDS):
        if c[p] >= 2:
            c[p] -= 2
            for groups in _sets(c, 0):
                out.append((p, groups))
            c[p] += 2
    return tuple(out)


@lru_cache(maxsize=1 << 16)
def is_standard_complete(counts: tuple[int, ...]) -> bool:
    """Fast yes/no: does the hand form a pair plus sets."""
    if sum(counts) % 3 != 2:
        return False
    c = list(counts)
    for p in range(N_KINDS):
        if c[p] >= 2:
            c[p] -= 2
            ok = _can_sets(c[:])
            c[p] += 2
            if ok:
                return True
    return False


def seven_pairs_quads(counts: tuple[int, ...] | list[int]) -> int | None:
    """Number of quads if the 14 tiles form seven pairs (a quad = two pairs), else None."""
    if sum(counts) != 14:
        return None
    quads = 0
    for n in counts:
        if n & 1:
            return None
        if n == 4:
            quads += 1
    return quads


def is_thirteen_orphans(counts: tuple[int, ...] | list[int]) -> bool:
    """One of each terminal and honor plus one duplicate, nothing else."""
    if sum(counts) != 14:
        return False
    return all(counts[t] >= 1 for t in TERMINALS_AND_HONORS) and sum(counts[t] for t in TERMINALS_AND_HONORS) == 14


def waits(counts13: list[int], held: list[int], kinds: Sequence[int], *, seven_pairs: bool,
          orphans: bool = False) -> list[int]:
    """Kinds that complete a 13-tile (or 3k+1) hand; kinds already held 4 times (hand+melds) are skipped.

    Only kinds that can join something are tried: a kind already in the hand (pair, triplet, seven pairs), a
    suited kind within two ranks of a suited tile held (runs), and for thirteen orphans the terminals and honors.
    """
    near = set()
    for k in range(N_KINDS):
        if counts13[k]:
            near.add(k)
            if k < FIRST_WIND:
                r = k % 9
                near.update(j for j in (k - 2, k - 1, k + 1, k + 2) if 0 <= r + j - k <= 8)
    if orphans:
        near.update(TERMINALS_AND_HONORS)
    out = []
    for k in kinds:
        if k not in near or held[k] >= 4:
            continue
        counts13[k] += 1
        t = tuple(counts13)
        if is_standard_complete(t) or (seven_pairs and seven_pairs_quads(t) is not None) \
                or (orphans and is_thirteen_orphans(t)):
            out.append(k)
        counts13[k] -= 1
    return out


# ---------------------------------------------------------------- wild (ghost) tiles

WildDivision = tuple[int | None, tuple[tuple[int | None, bool], ...], tuple[int, ...]]
"""(pair kind or None for an all-wild pair, groups with None for all-wild triplets, kinds the wilds stood for)."""


def _run_fill(c: list[int], i: int, start: int, limit: list[int]) -> list[int] | None:
    """The kinds wild tiles must stand for in the run from ``start`` that holds real kind ``i`` (lower kinds, and
    higher ones with no real tile left); None where a kind would exceed its ``limit``."""
    fill: list[int] = []
    for k in range(start, start + 3):
        if k == i or (k > i and c[k] > 0):
            continue
        fill.append(k)
        if limit[k] < fill.count(k):
            return None
    return fill


def _wild_sets(c: list[int], i: int, w: int, used: tuple[int, ...], out: list, groups: tuple, pair,
               pair_allowed_wild: bool, limit: list[int]) -> None:
    while i < N_KINDS and c[i] == 0:
        i += 1
    if i == N_KINDS:
        if w % 3 == 0:
            out.append((pair, groups + ((None, False),) * (w // 3), used))
        elif w % 3 == 2 and pair is False and pair_allowed_wild:
            out.append((None, groups + ((None, False),) * (w // 3), used))
        return
    n = c[i]
    # the pair, if still open, may use kind i
    if pair is False:
        for real in (2, 1):
            if n >= real and w >= 2 - real and limit[i] >= 2 - real:
                c[i] -= real
                limit[i] -= 2 - real
                _wild_sets(c, i, w - (2 - real), used + (i,) * (2 - real), out, groups, i, pair_allowed_wild, limit)
                c[i] += real
                limit[i] += 2 - real
    # a triplet of kind i with 1-3 real tiles
    for real in (3, 2, 1):
        need = 3 - real
        if n >= real and w >= need and limit[i] >= need:
            c[i] -= real
            limit[i] -= need
            _wild_sets(c, i, w - need, used + (i,) * need, out, groups + ((i, False),), pair,
                       pair_allowed_wild, limit)
            c[i] += real
            limit[i] += need
    # runs holding real kind i at position 0, 1 or 2 (lower positions must then be wild)
    if i < FIRST_WIND:
        r = i % 9
        for pos in (0, 1, 2):
            start = i - pos
            if start < i - r or start + 2 > i - r + 8:
                continue
            fill = _run_fill(c, i, start, limit)
            if fill is None or len(fill) > w:
                continue
            need = len(fill)
            c[i] -= 1
            real_used = [k for k in range(start, start + 3) if k > i and k not in fill]
            for k in real_used:
                c[k] -= 1
            for k in fill:
                limit[k] -= 1
            _wild_sets(c, i, w - need, used + tuple(fill), out, groups + ((start, True),), pair,
                       pair_allowed_wild, limit)
            c[i] += 1
            for k in real_used:
                c[k] += 1
            for k in fill:
                limit[k] += 1


def wild_standard(counts: tuple[int, ...], wilds: int, limit: tuple[int, ...],
                  pair_allowed_wild: bool) -> list[WildDivision]:
    """Standard divisions when ``wilds`` tiles may stand for any kind (``limit[k]``: how many more of k may exist).

    All-wild groups are returned with kind None; the caller picks their kinds. Without
    ``pair_allowed_wild`` the pair must hold at least one real tile (D-F4).
    """
    if (sum(counts) + wilds) % 3 != 2:
        return []
    out: list[WildDivision] = []
    _wild_sets(list(counts), 0, wilds, (), out, (), False, pair_allowed_wild, list(limit))
    return out


def wild_seven_pairs(counts: tuple[int, ...], wilds: int, limit: tuple[int, ...]) -> tuple[int, ...] | None:
    """Kinds the wilds stand for to make seven pairs (odd kinds get one each, the rest pair up), or None."""
    if sum(counts) + wilds != 14:
        return None
    odd = [k for k in range(N_KINDS) if counts[k] & 1]
    if len(odd) > wilds or any(limit[k] < 1 for k in odd):
        return None
    used = list(odd)
    rest = wilds - len(odd)
    if rest % 2:
        return None
    # all-wild pairs: any kind with room; prefer kinds already present (keeps the suit profile)
    order = sorted(range(N_KINDS), key=lambda k: (counts[k] == 0, k))
    room = list(limit)
    for k in odd:
        room[k] -= 1
    for k in order:
        while rest and room[k] >= 2:
            used += [k, k]
            room[k] -= 2
            rest -= 2
    return tuple(used) if rest == 0 else None


def wild_thirteen_orphans(counts: tuple[int, ...], wilds: int) -> tuple[int, ...] | None:
    """Kinds the wilds stand for to make thirteen orphans, or None."""
    if sum(counts) + wilds != 14 or any(counts[k] for k in range(N_KINDS) if k not in TERMINALS_AND_HONORS):
        return None
    missing = [t for t in TERMINALS_AND_HONORS if counts[t] == 0]
    dup = sum(counts) - (13 - len(missing))
    if dup > 1 or len(missing) > wilds:
        return None
    extra = wilds - len(missing)
    if dup + extra != 1:
        return None
    return tuple(missing) + ((TERMINALS_AND_HONORS[0],) if extra else ())
