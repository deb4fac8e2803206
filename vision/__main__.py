"""`python -m vision PHOTO... [--ruleset R] [--winning] [--json] [--score]`: read tiles, layout and hand.

One photo prints one JSON object (--json) or a readable summary; several print one JSON object per line.
A photo that cannot be read prints one clear line on stderr (and, in JSON, a line {"path", "error"}); the others
are still read. Exit 0; 1 when --score finds a hand that does not score; 2 when a photo or the model cannot be
read.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from scoring import DEFAULT, RULESETS, score_case
from scoring.tiles import GLYPHS

from .models import ModelMissing
from .photo import PhotoError
from .pipeline import Photo, Reading, read
from .reader import TileReader


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


def emit(text: str) -> None:
    """Print one line (or block) of output; a reader that went away (`| head`) ends the output quietly."""
    try:
        print(text, flush=True)
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        raise SystemExit(0) from None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("photos", nargs="+")
    ap.add_argument("--ruleset", default=DEFAULT, choices=list(RULESETS))
    ap.add_argument("--winning", action="store_true", help="the photo shows a winning hand: correct toward a win")
    ap.add_argument("--json", action="store_true", help="print JSON (one object per line for several photos)")
    ap.add_argument("--score", action="store_true", help="score the hand read, with a default self-draw context "
                    "(exit 1 when a hand read does not score)")
    ap.add_argument("--winner", type=int, default=0, choices=range(4), help="seat of the hand's owner (default 0)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--models", default=None, help="folder with detector.onnx and classifier.onnx")
    args = ap.parse_args(argv)
    as_json = args.json or len(args.photos) > 1
    reader: TileReader | None = None
    status = 0
    for path in args.photos:
        try:
            photo = Photo.load(path)
            if reader is None:  # loaded once, on the first readable photo
                reader = TileReader(args.models, threads=args.threads) if args.models else \
                    TileReader(threads=args.threads)
        except (PhotoError, ModelMissing) as e:
            print(f"error: {e}", file=sys.stderr)
            if as_json:  # every input gets its line, so outputs can be matched to inputs
                emit(json.dumps({"path": str(path), "error": str(e)}, ensure_ascii=False))
            if isinstance(e, ModelMissing):
                return 2
            status = 2
            continue
        r = read(photo, reader, args.ruleset, args.winning or args.score, args.winner)
        out = r.to_json()
        if args.score:
            if r.hand is None:
                out["score"] = {"valid": False, "error": "invalid_input", "message": "the hand could not be read"}
            else:
                out["score"] = score_case({"ruleset": args.ruleset, "options": {}, "hand": r.hand,
                                           "context": {"winner": args.winner, "dealer": args.winner,
                                                       "win_type": "self_draw"}})
            if not out["score"]["valid"] and status == 0:
                status = 1
        if as_json:
            emit(json.dumps(out, ensure_ascii=False, indent=None if len(args.photos) > 1 else 1))
        else:
            emit(summary(r))
            if args.score:
                emit(json.dumps(out["score"], ensure_ascii=False, indent=1))
    return status


if __name__ == "__main__":
    sys.exit(main())
