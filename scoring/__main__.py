"""`python -m scoring FILE|-`: score one case (or a JSON array of cases) and print the result JSON.

Exit 0 for every scored case (a rejected win is a normal result), 2 when any input is malformed.
"""

from __future__ import annotations

import argparse
import json
import sys

from .api import score_case
from .errors import InputError
from .limits import check_json_text


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m scoring", description=__doc__)
    ap.add_argument("file", help="a JSON file with one case or an array of cases; - reads standard input")
    ap.add_argument("--compact", action="store_true", help="print on one line")
    args = ap.parse_args(argv)
    try:
        if args.file == "-":
            text = sys.stdin.read()
        else:
            with open(args.file, encoding="utf-8") as fh:
                text = fh.read()
    except (OSError, UnicodeDecodeError) as e:
        print(json.dumps({"valid": False, "error": "invalid_input", "message": f"cannot read {args.file}: {e}"}))
        return 2
    try:
        check_json_text(text)
    except InputError as e:
        print(json.dumps({"valid": False, "error": "invalid_input", "message": str(e)}))
        return 2
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError, ValueError) as e:
        if not isinstance(e, json.JSONDecodeError):
            print(json.dumps({"valid": False, "error": "invalid_input", "message": f"malformed JSON: {e}"[:200]}))
            return 2
        print(json.dumps({"valid": False, "error": "invalid_input",
                          "message": f"malformed JSON at line {e.lineno} column {e.colno}: {e.msg}"}))
        return 2
    if isinstance(data, list):
        results = [score_case(c) for c in data]
        bad = any(r.get("error") == "invalid_input" for r in results)
        out: object = results
    else:
        out = score_case(data)
        bad = out.get("error") == "invalid_input"  # type: ignore[union-attr]
    print(json.dumps(out, ensure_ascii=False, indent=None if args.compact else 1))
    return 2 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
