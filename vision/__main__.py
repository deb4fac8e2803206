"""`python -m vision PHOTO... [--ruleset R] [--winning] [--json] [--score]`: read tiles, layout and hand.

One photo prints one JSON object (--json) or a readable summary; several print one JSON object per line.
A photo that cannot be read prints one clear line on stderr; the others are still read; exit code 2 then.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from scoring import DEFAULT, RULESETS
from scoring.tiles import GLYPHS

from .photo import PhotoError, load_for_reading
from .pipeline import Reading, read_image
from .reader import ModelMissing, TileReader


def summary(r: Reading) -> str:
    """A human-readable reading: groups in mahjong glyphs with codes."""
    lines = [f"{r.path}: {r.width}x{r.height}, {len(r.det)} tiles, {r.timing_ms.get('total_ms', 0):.0f} ms"]
    for g in r.layout.groups:
        codes = [r.codes[i] for i in g.tiles]
        glyphs = " ".join(GLYPHS.get(c, "\U0001F02B") for c in codes)
        label = g.kind if g.kind != "meld" else f"meld ({g.meld_type}, fed by {g.feeder or 'unknown'})"
        lines.append(f"  {label:34s} {glyphs}   {' '.join(codes)}")
    for c in r.corrections:
        lines.append(f"  corrected tile {c.tile}: {c.from_code} -> {c.to_code} ({c.reason})")
    for w in r.warnings:
        lines.append(f"  warning: {w}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("photos", nargs="+")
    ap.add_argument("--ruleset", default=DEFAULT, choices=list(RULESETS))
    ap.add_argument("--winning", action="store_true", help="the photo shows a winning hand: correct toward a win")
    ap.add_argument("--json", action="store_true", help="print JSON (one object per line for several photos)")
    ap.add_argument("--score", action="store_true", help="score the hand read, with a default self-draw context")
    ap.add_argument("--winner", type=int, default=0, choices=range(4), help="seat of the hand's owner (default 0)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--models", default=None, help="folder with detector.onnx and classifier.onnx")
    args = ap.parse_args(argv)
    reader: TileReader | None = None
    status = 0
    for path in args.photos:
        try:
            t = time.perf_counter()
            img, scale = load_for_reading(path)
            timing = {"decode_ms": 1000 * (time.perf_counter() - t)}
        except PhotoError as e:
            print(f"error: {e}", file=sys.stderr)
            status = 2
            continue
        if reader is None:  # loaded once, on the first readable photo
            try:
                reader = TileReader(args.models, threads=args.threads) if args.models else \
                    TileReader(threads=args.threads)
            except ModelMissing as e:
                print(f"error: {e}", file=sys.stderr)
                return 2
        t2 = time.perf_counter()
        r = read_image(img, reader, args.ruleset, args.winning or args.score, args.winner, str(path), timing, scale)
        timing["total_ms"] = timing["decode_ms"] + 1000 * (time.perf_counter() - t2)
        out = r.to_json()
        if args.score:
            from scoring import score_case

            if r.hand is None:
                out["score"] = {"valid": False, "error": "invalid_input", "message": "the hand could not be read"}
            else:
                out["score"] = score_case({"ruleset": args.ruleset, "options": {}, "hand": r.hand,
                                           "context": {"winner": args.winner, "dealer": args.winner,
                                                       "win_type": "self_draw"}})
        if args.json or len(args.photos) > 1:
            print(json.dumps(out, ensure_ascii=False, indent=None if len(args.photos) > 1 else 1), flush=True)
        else:
            print(summary(r))
            if args.score:
                print(json.dumps(out["score"], ensure_ascii=False, indent=1))
    return status


if __name__ == "__main__":
    sys.exit(main())
