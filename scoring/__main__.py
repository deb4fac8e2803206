"""`python -m scoring FILE|-`: score one case (or a JSON array of cases) and print the result JSON.
`python -m scoring --waits FILE|-`: what wins a 13-tile hand (the case without winning_tile), and for how much;
a readable table when printing to a terminal, JSON otherwise (or with --json).

Exit 0 for every scored case (a rejected win is a normal result), 2 when any input is malformed.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from .api import score_case
from .errors import InputError
from .limits import MAX_TEXT, check_json_text, shorten
from .waits import describe, waits


def invalid_input(message: str) -> dict[str, Any]:
    """The one-line error object of a malformed input."""
    return {"valid": False, "error": "invalid_input", "message": message}


def score_text(text: str) -> tuple[int, Any]:
    """Exit code and output object for the JSON text of one case or an array of cases (never raises on bad
    input: sizes are checked before parsing, RULES.md D-C6)."""
    try:
        check_json_text(text)
    except InputError as e:
        return 2, invalid_input(str(e))
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        return 2, invalid_input(f"malformed JSON at line {e.lineno} column {e.colno}: {e.msg}")
    except (RecursionError, ValueError) as e:  # the limits above make these unreachable; a last guard
        return 2, invalid_input(f"malformed JSON: {shorten(str(e), 200)}")

    if isinstance(data, list):
        results = [score_case(c) for c in data]
        return (2 if any(r.get("error") == "invalid_input" for r in results) else 0), results
    out = score_case(data)
    return (2 if out.get("error") == "invalid_input" else 0), out


def waits_text(text: str) -> tuple[int, Any]:
    """Exit code and wait table for the JSON text of one waits case."""
    try:
        check_json_text(text)
        data = json.loads(text)
    except InputError as e:
        return 2, invalid_input(str(e))
    except (json.JSONDecodeError, RecursionError, ValueError) as e:
        return 2, invalid_input(f"malformed JSON: {shorten(str(e), 200)}")
    out = waits(data)
    return (2 if out.get("error") == "invalid_input" else 0), out


def read_input(path: str) -> str:
    """The text of a case file or standard input, at most MAX_TEXT characters (more is refused)."""
    if path == "-":
        text = sys.stdin.read(MAX_TEXT + 1)
    else:
        with open(path, encoding="utf-8") as fh:
            text = fh.read(MAX_TEXT + 1)
    return text


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m scoring", description=__doc__)
    ap.add_argument("file", help="a JSON file with one case or an array of cases; - reads standard input")
    ap.add_argument("--compact", action="store_true", help="print on one line")
    ap.add_argument("--waits", action="store_true", help="the winning tiles of a 13-tile hand and their values")
    ap.add_argument("--json", action="store_true", help="with --waits: JSON even on a terminal")
    args = ap.parse_args(argv)
    try:
        text = read_input(args.file)
    except (OSError, UnicodeDecodeError) as e:
        code, out = 2, invalid_input(f"cannot read {args.file}: {e}")
    else:
        code, out = waits_text(text) if args.waits else score_text(text)
    try:
        if args.waits and sys.stdout.isatty() and not args.json:
            print(describe(out), flush=True)
        else:
            print(json.dumps(out, ensure_ascii=False, indent=None if args.compact else 1), flush=True)
    except BrokenPipeError:  # `python -m scoring cases.json | head`: the reader left; that is not an error
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    return code


if __name__ == "__main__":
    sys.exit(main())
