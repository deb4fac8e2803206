"""`python -m evaluation.hands [--n 200] [--seed 0]`: the whole chain on composed winning-hand photos.

Each photo is a random legal winning hand (scoring.generate) laid out like a real table: the concealed row,
the winning tile set apart, melds with a sideways tile at the feeder's position, concealed kongs with two
face-down tiles, flowers aside. Tiles are real crops of the shared `valid` split (never trained on) pasted on
real backgrounds cut from `valid` photos. Reported: tiles right, groups right, whole hands read exactly right,
before and after rule-aware correction.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import random
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

import numpy as np

from evaluation.conditions import CONDITIONS
from evaluation.photos import match, settings
from evaluation.scenes import SCENES
from scoring import RULESETS
from scoring.generate import random_case
from scoring.tiles import CODES
from training.data import load_split
from training.synth import CropBank, PlacedTile, compose
from vision.detections import Detections
from vision.geometry import photo_boxes
from vision.layout import analyse, to_hand
from vision.models import MODELS_DIR
from vision.pipeline import read_image
from vision.reader import ReaderConfig, TileReader

SIDE_POS = {"left": 0, "opposite": 1, "right": -1}


def table_groups(hand: dict[str, Any], winner: int, rng: random.Random) -> list[list[tuple[str, bool]]]:
    """How a player lays the hand out: concealed row, winning tile apart, melds, flowers."""
    groups: list[list[tuple[str, bool]]] = [[(c, False) for c in sorted(hand["concealed"], key=_order)],
                                            [(hand["winning_tile"], False)]]
    for m in hand["melds"]:
        tiles = [(c, False) for c in m["tiles"]]
        if m["type"] == "kong_concealed":
            tiles[0] = ("back", False)
            tiles[-1] = ("back", False)
        else:
            offset = (m["from"] - winner) % 4
            where = {3: "left", 2: "opposite", 1: "right"}[offset]
            pos = SIDE_POS[where] if m["type"] != "chow" else 0
            tiles[pos] = (tiles[pos][0], True)
        groups.append(tiles)
    if hand["flowers"]:
        groups.append([(c, False) for c in hand["flowers"]])
    return groups


def _order(code: str) -> tuple[int, str]:
    return ({"m": 0, "p": 1, "s": 2}.get(code[-1], 3), code)


def normal(hand: dict[str, Any] | None) -> Any:
    """A hand in a canonical form (order of concealed tiles, melds and flowers does not matter)."""
    if hand is None:
        return None
    return (tuple(sorted(hand["concealed"])), hand["winning_tile"], tuple(sorted(hand["flowers"])),
            tuple(sorted((m["type"], tuple(sorted(m["tiles"])), m["from"]) for m in hand["melds"])))


def truth_case(rng: random.Random, ruleset: str) -> tuple[dict[str, Any], int]:
    case = random_case(rng, ruleset)
    hand = case["hand"]
    winner = case["context"]["winner"]
    for m in hand["melds"]:
        if m["type"] == "kong_added":  # looks like an exposed kong on the table
            m["type"] = "kong_exposed"
    return hand, winner


def partition(placed: list[Any], det: Detections, layout_groups: list[Any]) -> tuple[bool, int]:
    """Whether every true group was found as one predicted group (and nothing else joined it): every placed tile
    found, each true group's tiles in one predicted group, no other box in any group."""
    pairs = match(np.array([p.box for p in placed], np.float32), det.xyxy)
    pred_of = {i: j for i, j in pairs}
    group_of = {}
    for gi, g in enumerate(layout_groups):
        for t in g.tiles:
            group_of[t] = gi
    truth: dict[int, set[int]] = {}
    for i, p in enumerate(placed):
        truth.setdefault(p.group, set()).add(i)
    # every tile found, and every other box left out of the groups (a real tile in the background, set apart)
    matched = set(pred_of.values())
    ok = len(pairs) == len(placed) and all(j in matched or j not in group_of for j in range(len(det)))
    used: list[int] = []
    for members in truth.values():
        predicted = {group_of.get(pred_of.get(i, -1), -2) for i in members}
        ok &= len(predicted) == 1 and -2 not in predicted
        used += list(predicted)
    ok &= len(used) == len(set(used))  # no two true groups read as one
    return ok, len(pairs)


def composed_cases(bank: CropBank, n: int, seed: int, condition: str = "upright", size: tuple[int, int] = (2016, 1512)
                   ) -> Iterator[tuple[int, str, dict[str, Any], int, np.ndarray, list[PlacedTile]]]:
    """The evaluation's sequence of hands for one seed (the same hands for every condition): the hand's number,
    its ruleset, the true hand and winner, and the composed photo with ``condition`` applied, with its tiles."""
    rng = random.Random(seed)
    nrng = np.random.default_rng(seed)
    crng = np.random.default_rng(seed + 1)  # the condition's own randomness (glare spot, blur direction)
    for k in range(n):
        ruleset = tuple(RULESETS)[k % 3]
        hand, winner = truth_case(rng, ruleset)
        img, placed = compose(table_groups(hand, winner, rng), bank, nrng, canvas=size, fit=True,
                              two_rows=rng.random() < 0.3)
        if len(placed) != sum(len(g) for g in table_groups(hand, winner, random.Random(0))):
            continue  # a crop was missing for some code
        boxes = np.array([p.box for p in placed], np.float32)
        if condition in SCENES:  # other players' tiles around the hand (evaluation.scenes)
            playing = frozenset(CODES[k] for k in RULESETS[ruleset].playing_kinds)
            img, boxes = SCENES[condition](img, boxes, [p.code for p in placed], bank, crng, playing)
        else:
            img, boxes = CONDITIONS[condition](img, boxes, crng)
        placed = [dataclasses.replace(p, box=tuple(float(v) for v in b)) for p, b in zip(placed, boxes)]
        yield k, ruleset, hand, winner, img, placed


def evaluate(args: argparse.Namespace, reader: TileReader, bank: CropBank | None, condition: str = "upright",
             cases: Iterator[tuple[int, str, dict[str, Any], int, np.ndarray, Any]] | None = None) -> dict[str, Any]:
    """Compose ``args.n`` winning hands (the same hands for every condition: one seed), apply the condition to
    each photo and its true boxes, read, and count hands, groups and tiles right. ``cases``: other composed
    hands to read instead (``evaluation.held_out``), tiles with a code, a box and a group each."""
    w, h = (int(v) for v in args.size.split("x"))
    if cases is None:
        assert bank is not None
        cases = composed_cases(bank, args.n, args.seed, condition, (w, h))
    stats = {"photos": 0, "tiles": 0, "tiles_right_before": 0, "tiles_right_after": 0, "groups_right": 0,
             "hands_right_before": 0, "hands_right_after": 0, "right_flagged": 0, "wrong": 0, "wrong_flagged": 0,
             "top3": 0, "found": 0, "clutter_in_hand": 0, "hand_left_out": 0, "half_turned": 0,
             "quarter_turned": 0}
    per_rs: dict[str, list[int]] = {}
    misread: Counter[str] = Counter()  # "true>read" for the tiles found but named wrong
    failures = []
    read_ms: list[float] = []
    t0 = time.time()
    for k, ruleset, hand, winner, img, placed in cases:
        if args.save:
            import cv2

            cv2.imwrite(f"{args.save}/hand_{k:04d}.jpg", img)
            with open(f"{args.save}/hand_{k:04d}.json", "w") as fh:
                json.dump({"hand": hand, "winner": winner, "ruleset": ruleset, "condition": condition,
                           "tiles": [{"code": p.code, "box": [round(float(v), 1) for v in p.box], "group": p.group}
                                     for p in placed]}, fh)
        t = time.perf_counter()
        r = read_image(img, reader, ruleset, True, winner)
        read_ms.append(1000 * (time.perf_counter() - t))
        raw_codes = list(r.det.codes)
        before = to_hand(r.det, analyse(r.det, ruleset), winner, raw_codes)
        seen = r.det.copy()  # the reading's boxes in the photo's own pixels, where the true boxes are
        seen.xyxy = photo_boxes(r.det, img.shape)
        pairs = match(np.array([p.box for p in placed], np.float32), seen.xyxy)
        stats["photos"] += 1
        stats["tiles"] += len(placed)
        stats["tiles_right_before"] += sum(raw_codes[j] == placed[i].code for i, j in pairs)
        stats["tiles_right_after"] += sum(r.codes[j] == placed[i].code for i, j in pairs)
        doubts = set(r.doubts)
        for i, j in pairs:
            right = r.codes[j] == placed[i].code
            if not right:
                misread[f"{placed[i].code}>{r.codes[j]}"] += 1
            stats["right_flagged"] += right and j in doubts
            stats["wrong"] += not right
            stats["wrong_flagged"] += not right and j in doubts
            stats["top3"] += placed[i].code in [c for c, _ in r.det.alternatives(j, 3)] + [r.codes[j]]
        stats["found"] += len(pairs)
        stats["half_turned"] += r.det.turned == 2
        stats["quarter_turned"] += r.det.turned in (1, 3)
        grouped = {t for g in r.layout.groups for t in g.tiles}
        matched = {j for _, j in pairs}
        stats["clutter_in_hand"] += any(j in grouped for j in range(len(r.det)) if j not in matched)
        stats["hand_left_out"] += any(j not in grouped for j in matched)
        groups_ok, _ = partition(placed, seen, r.layout.groups)
        stats["groups_right"] += groups_ok
        ok_before = normal(before) == normal(hand)
        ok_after = normal(r.hand) == normal(hand)
        stats["hands_right_before"] += ok_before
        stats["hands_right_after"] += ok_after
        per_rs.setdefault(ruleset, [0, 0])[0] += ok_after
        per_rs[ruleset][1] += 1
        if not ok_after and len(failures) < 10:
            failures.append({"photo": k, "ruleset": ruleset, "truth": hand, "read": r.hand,
                             "corrections": [c.to_json() for c in r.corrections], "warnings": r.warnings})
    n = max(stats["photos"], 1)
    return {
        "photos": stats["photos"], "size": args.size, "seed": args.seed, "condition": condition,
        "tiles_right_before_correction": round(stats["tiles_right_before"] / max(stats["tiles"], 1), 4),
        "tiles_right_after_correction": round(stats["tiles_right_after"] / max(stats["tiles"], 1), 4),
        "groups_right": round(stats["groups_right"] / n, 4),
        "hands_right_before_correction": round(stats["hands_right_before"] / n, 4),
        "hands_right_after_correction": round(stats["hands_right_after"] / n, 4),
        "true_face_in_top3": round(stats["top3"] / max(stats["found"], 1), 4),
        # the "choose the hand" step: photos with a box that is no tile of the hand put into it, or a tile of the
        # hand left out of it
        "hand_chooser": {"photos_with_other_tiles_in_hand": round(stats["clutter_in_hand"] / n, 4),
                         "photos_with_hand_tiles_left_out": round(stats["hand_left_out"] / n, 4)},
        "doubt_flags": {"right_flagged": round(stats["right_flagged"] / max(stats["found"] - stats["wrong"], 1), 4),
                        "wrong_caught": round(stats["wrong_flagged"] / max(stats["wrong"], 1), 4),
                        "wrong_tiles": stats["wrong"]},
        "tiles_missed": stats["tiles"] - stats["found"],
        "commonest_misreadings": dict(misread.most_common(8)),
        "hands_right_by_ruleset": {k: round(v[0] / v[1], 4) for k, v in per_rs.items()},
        # (right only where the condition turns the photo by a half; elsewhere each is a hand read upside down)
        "photos_read_turned_by_a_half": stats["half_turned"],
        # (right only where the condition turns the photo by a quarter; elsewhere each is a photo taken as turned)
        "photos_read_turned_by_a_quarter": stats["quarter_turned"],
        "median_read_ms": round(float(np.median(read_ms)), 1) if read_ms else None,
        "seconds": round(time.time() - t0, 1),
        "first_failures": failures,
    }


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m evaluation.hands", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--size", default="2016x1512", help="photo size WxH")
    ap.add_argument("--models", default=str(MODELS_DIR))
    ap.add_argument("--save", default=None, help="folder to write the composed photos and truths to")
    ap.add_argument("--no-repair", action="store_true", help="keep the finder's boxes as they are (ablation)")
    ap.add_argument("--no-oriented", action="store_true", help="axis-aligned crops of slanted rows (ablation)")
    ap.add_argument("--no-deblur", action="store_true", help="never read a blurred photo sharpened (ablation)")
    ap.add_argument("--condition", default="upright",
                    help="change one thing about every photo (evaluation/conditions.py: "
                         f"{', '.join(CONDITIONS)}; other players' tiles, evaluation/scenes.py: {', '.join(SCENES)}); "
                         "all, or several with commas: one row each")
    ap.add_argument("--but", action="append", default=[], metavar="NAME=VALUE",
                    help="change one reader setting (vision.reader.ReaderConfig.but), e.g. zoom_to=64; repeatable")
    args = ap.parse_args()
    if args.save:
        os.makedirs(args.save, exist_ok=True)
    known = [*CONDITIONS, *SCENES]
    names = known if args.condition == "all" else args.condition.split(",")
    unknown = [n for n in names if n not in known]
    if unknown:
        ap.error(f"unknown condition {', '.join(unknown)}; known: {', '.join(known)}, all")
    try:
        changed = dict(settings(args.but))
        config = ReaderConfig().but(repair=not args.no_repair, oriented=not args.no_oriented,
                                    deblur=not args.no_deblur, **changed)
    except (TypeError, ValueError, SyntaxError) as e:
        ap.error(f"--but: {e}")
    reader = TileReader(args.models, threads=2, config=config)
    bank = CropBank.build(load_split("valid"), seed=args.seed)
    if len(names) == 1:
        print(json.dumps(evaluate(args, reader, bank, names[0]), indent=1, ensure_ascii=False))
        return
    rows = {}
    for name in names:
        r = evaluate(args, reader, bank, name)
        rows[name] = {k: r[k] for k in ("hands_right_after_correction", "groups_right",
                                        "tiles_right_after_correction", "median_read_ms", "hand_chooser")}
    print(json.dumps({"photos": args.n, "seed": args.seed, "size": args.size, "conditions": rows}, indent=1))
    print("\n| condition | hands exact | groups right | tiles right | ms per photo | hand chooser: other tiles in / "
          "hand tiles out |\n|---|---|---|---|---|---|")
    for name, r in rows.items():
        hc = r["hand_chooser"]
        print(f"| {name} | {100 * r['hands_right_after_correction']:.1f} % | {100 * r['groups_right']:.1f} % | "
              f"{100 * r['tiles_right_after_correction']:.1f} % | {r['median_read_ms']} | "
              f"{100 * hc['photos_with_other_tiles_in_hand']:.1f} % / "
              f"{100 * hc['photos_with_hand_tiles_left_out']:.1f} % |")


if __name__ == "__main__":
    main()
