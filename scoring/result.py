"""The score result: every element with its reason, the settlement, payments and net (RULES.md §0.4)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .text import Text


@dataclass(slots=True)
class ScoredElement:
    """One scoring element that applies, with the one-line reason it applies.

    Exactly one of ``value`` (張/花 per share), ``fan`` or ``multiplier`` is set.
    """

    id: str
    zh: str
    en: str
    reason: Text
    value: int | None = None
    fan: int | None = None
    multiplier: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"id": self.id, "zh": self.zh}
        for key in ("value", "fan", "multiplier"):
            v = getattr(self, key)
            if v is not None:
                d[key] = v
        d.update(self.extra)
        d["en"] = self.en
        d["reason"] = self.reason.en
        d["reason_zh"] = self.reason.zh
        return d


class Payments:
    """Payments aggregated per (from, to) pair, in a fixed order."""

    __slots__ = ("_amounts",)

    def __init__(self) -> None:
        self._amounts: dict[tuple[int, int], int] = {}

    def add(self, payer: int, payee: int, amount: int) -> None:
        if amount and payer != payee:
            key = (payer, payee)
            self._amounts[key] = self._amounts.get(key, 0) + amount

    def each_pays(self, payee: int, amount: int) -> None:
        """Each of the three other seats pays ``payee``."""
        for s in range(4):
            if s != payee:
                self.add(s, payee, amount)

    def pays_each(self, payer: int, amount: int) -> None:
        """``payer`` pays each of the three other seats."""
        for s in range(4):
            if s != payer:
                self.add(payer, s, amount)

    def to_json(self) -> list[dict[str, int]]:
        return [{"from": f, "to": t, "amount": a} for (f, t), a in sorted(self._amounts.items()) if a]

    def amounts(self) -> list[int]:
        """Every aggregated amount (for the 64-bit bound)."""
        return list(self._amounts.values())

    def apply_to(self, net: list[int]) -> None:
        for (f, t), a in self._amounts.items():
            net[f] -= a
            net[t] += a


@dataclass(slots=True)
class ScoreResult:
    """A scored win (valid) or a rejected one (error code + message)."""

    valid: bool
    error: str | None = None
    message: str | None = None
    elements: list[ScoredElement] = field(default_factory=list)
    settlement: dict[str, int | str] | None = None
    liability: dict[str, Any] | None = None
    hand_payments: Payments = field(default_factory=Payments)
    kong_payments: Payments = field(default_factory=Payments)
    penalty_payments: Payments | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    extra_first: dict[str, Any] = field(default_factory=dict)

    @property
    def net(self) -> list[int]:
        net = [0, 0, 0, 0]
        self.hand_payments.apply_to(net)
        self.kong_payments.apply_to(net)
        if self.penalty_payments is not None:
            self.penalty_payments.apply_to(net)
        return net

    def to_json(self) -> dict[str, Any]:
        """The RULES.md §0.4 output object (extra explanatory fields are allowed by the spec)."""
        if not self.valid:
            d: dict[str, Any] = {"valid": False, "error": self.error}
            if self.message:
                d["message"] = self.message
            d.update(self.extra)
            return d
        d = {"valid": True, "elements": [e.to_json() for e in self.elements]}
        d.update(self.extra_first)
        d["settlement"] = self.settlement
        d["liability"] = self.liability
        d["hand_payments"] = self.hand_payments.to_json()
        d["kong_payments"] = self.kong_payments.to_json()
        if self.penalty_payments is not None:
            d["penalty_payments"] = self.penalty_payments.to_json()
        d["net"] = self.net
        d.update(self.extra)
        return d


def invalid(error: str, message: str, **extra: Any) -> ScoreResult:
    """A rejected win: a normal result with ``valid: false`` and a RULES.md error code."""
    return ScoreResult(valid=False, error=error, message=message, extra=extra)
