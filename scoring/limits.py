"""RULES.md D-C6: size limits on a case, checked before parsing goes further.

JSON nested deeper than 64 levels, numbers longer than 30 digits and strings longer than 1,000 characters are
rejected, as are inputs too large to be a case file. Python's own parser fails on such input with a recursion or
digit-limit error (a traceback); these checks give one clear ``invalid_input`` message instead.
"""

from __future__ import annotations

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


def check_json_text(text: str) -> None:
    """Scan JSON text once, without parsing it: depth, digit runs and string lengths within D-C6's limits."""
    if len(text) > MAX_TEXT:
        raise InputError(f"input: {len(text)} characters is more than any case file needs (limit {MAX_TEXT})")
    depth = 0
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            if j - i - 1 > MAX_STRING:
                raise InputError(f"input: a string of {j - i - 1} characters (limit {MAX_STRING}) at character {i}")
            i = j + 1
            continue
        if ch in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                raise InputError(f"input: JSON nested deeper than {MAX_DEPTH} levels at character {i}")
        elif ch in "]}":
            depth -= 1
        elif ch.isdigit():
            j = i
            while j < n and text[j].isdigit():
                j += 1
            if j - i > MAX_DIGITS:
                raise InputError(f"input: a number of {j - i} digits (limit {MAX_DIGITS}) at character {i}")
            i = j
            continue
        i += 1


def check_structure(obj: Any) -> None:
    """The same limits on an already parsed value (a case given as a dict by the page or the API)."""
    stack: list[tuple[Any, int]] = [(obj, 1)]
    seen = 0
    while stack:
        value, depth = stack.pop()
        seen += 1
        if seen > 1_000_000:
            raise InputError("input: more than a million values; a case is far smaller")
        if isinstance(value, (dict, list)):
            if depth > MAX_DEPTH:
                raise InputError(f"input: nested deeper than {MAX_DEPTH} levels")
            if isinstance(value, dict):
                for k, v in value.items():
                    if not isinstance(k, str):
                        raise InputError(f"input: object keys must be strings, got {shorten(k)}")
                    stack.append((k, depth + 1))
                    stack.append((v, depth + 1))
            else:
                stack.extend((v, depth + 1) for v in value)
        elif isinstance(value, str):
            if len(value) > MAX_STRING:
                raise InputError(f"input: a string of {len(value)} characters (limit {MAX_STRING}): "
                                 f"{shorten(value)}")
        elif isinstance(value, bool) or value is None:
            continue
        elif isinstance(value, int):
            if abs(value) >= 10**MAX_DIGITS:
                raise InputError(f"input: a number of more than {MAX_DIGITS} digits")
        elif isinstance(value, float):
            if value != value or value in (float("inf"), float("-inf")):
                raise InputError("input: NaN and infinity are not numbers a case can hold")
        else:
            raise InputError(f"input: {type(value).__name__} is not a JSON value")


def check_amount(amount: int, what: str) -> int:
    """An amount of money within a signed 64-bit integer, else invalid_input naming what overflowed."""
    if abs(amount) > MAX_AMOUNT:
        raise InputError(f"{what}: the amount is about 2^{abs(amount).bit_length() - 1}, more than a signed "
                         "64-bit integer holds; lower the house-rule values (fan, base, amounts)")
    return amount
