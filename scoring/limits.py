"""RULES.md D-C6: size limits on a case, checked before parsing goes further.

JSON nested deeper than 64 levels, numbers longer than 30 digits and strings longer than 1,000 characters are
rejected, as are inputs too large to be a case file. Python's own parser fails on such input with a recursion or
digit-limit error (a traceback); these checks give one clear ``invalid_input`` message instead.
"""

from __future__ import annotations

import re
from typing import Any

from .errors import InputError

MAX_DEPTH = 64
MAX_DIGITS = 30
MAX_STRING = 1000
MAX_TEXT = 64 * 1024 * 1024  # bytes of one JSON input (a file of many cases)
MAX_AMOUNT = 2**63 - 1  # every amount must fit a signed 64-bit integer (the ledger's column)
SHOWN = 60  # characters of a bad value quoted in a message


def shorten(value: object, limit: int = SHOWN) -> str:
    """repr() of a value cut to ``limit`` characters, so that an error about a huge value stays one short line."""
    if isinstance(value, (dict, list)):
        text = type(value).__name__ + (f" of {len(value)} item(s)" if len(value) > 3 else f" {value!r}")
    elif isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**MAX_DIGITS:
        return "a number of more than 30 digits"
    else:
        text = repr(value)
    return text if len(text) <= limit else text[:limit] + f"… ({len(text)} characters)"


DIGITS = re.compile(rf"\d{{{MAX_DIGITS + 1},}}")
BRACKET = re.compile(r"[\[\]{}]")


def check_json_text(text: str) -> None:
    """Check JSON text before parsing it (RULES.md D-C6): size, runs of digits and nesting depth.

    These are the inputs that make a parser fail or work hard (a recursion error, a 4,301-digit number); long
    strings are harmless to parse and are refused by ``check_structure`` afterwards. The scan is two regular
    expressions, so a file of cases costs little more than parsing it. Digits and brackets
    inside strings count too: no valid case holds such a string.
    """
    if len(text) > MAX_TEXT:
        raise InputError(f"input: {len(text)} characters is more than any case file needs (limit {MAX_TEXT})")
    digits = DIGITS.search(text)
    if digits:
        raise InputError(f"input: a number of {len(digits.group())} digits at character {digits.start()} "
                         f"(limit {MAX_DIGITS})")
    depth = 0
    for ch in BRACKET.findall(text):
        depth += 1 if ch in "[{" else -1
        if depth > MAX_DEPTH:
            raise InputError(f"input: JSON nested deeper than {MAX_DEPTH} levels")


def check_structure(obj: Any) -> None:
    """The same limits on an already parsed value (a case given as a dict by the page or the API)."""
    _check_container([obj], 0, [1_000_000])


_BIG = 10**MAX_DIGITS


def _check_container(value: dict | list, depth: int, budget: list[int]) -> None:
    """Walk one dict or list (recursion bounded by MAX_DEPTH); scalars are checked inline, for speed."""
    if depth > MAX_DEPTH:
        raise InputError(f"input: nested deeper than {MAX_DEPTH} levels")
    budget[0] -= len(value)
    if budget[0] < 0:
        raise InputError("input: more than a million values; a case is far smaller")
    if type(value) is dict:
        for k in value:
            if type(k) is not str:
                raise InputError(f"input: object keys must be strings, got {shorten(k)}")
            if len(k) > MAX_STRING:
                raise InputError(f"input: a key of {len(k)} characters (limit {MAX_STRING})")
        items: Any = value.values()
    else:
        items = value
    for v in items:
        t = type(v)
        if t is str:
            if len(v) > MAX_STRING:
                raise InputError(f"input: a string of {len(v)} characters (limit {MAX_STRING}): {shorten(v)}")
        elif t is int:
            if not -_BIG < v < _BIG:
                raise InputError(f"input: a number of more than {MAX_DIGITS} digits")
        elif t is dict or t is list:
            _check_container(v, depth + 1, budget)
        elif v is None or t is bool:
            continue
        elif t is float:
            if v != v or v in (float("inf"), float("-inf")):
                raise InputError("input: NaN and infinity are not numbers a case can hold")
        else:
            _check_container([_as_json_type(v)], depth, budget)


def _as_json_type(v: Any) -> Any:
    """A subclass of a JSON type (or a tuple from a Python caller) as the plain type; anything else refused."""
    bases: tuple[type[Any], ...] = (bool, str, int, float, dict, list)
    for base in bases:
        if isinstance(v, base):
            return base(v)
    if isinstance(v, tuple):
        return list(v)
    raise InputError(f"input: {type(v).__name__} is not a JSON value")


def check_amount(amount: int, what: str) -> int:
    """An amount of money within a signed 64-bit integer, else invalid_input naming what overflowed."""
    if abs(amount) > MAX_AMOUNT:
        raise InputError(f"{what}: the amount is about 2^{abs(amount).bit_length() - 1}, more than a signed "
                         "64-bit integer holds; lower the house-rule values (fan, base, amounts)")
    return amount
