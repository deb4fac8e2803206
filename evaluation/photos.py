"""`python -m evaluation.photos --images DIR --labels DIR`: tile recall / precision (IoU >= 0.5), class accuracy on
matched tiles, images read entirely right (and those whose faces alone are right, boxes aside), top confusions and
latency, on any YOLO-labelled folder.

Labels use the class order of the shared Roboflow export (--names rf, default) or RULES.md codes in
CLASSIFIER_CODES order (--names codes). Photos listed in classes.BAD_VALID_PHOTOS are skipped unless
--keep-bad is given (their labels are known to be wrong); the single boxes of classes.VALID_LABEL_FIXES are
scored as the face they show unless --labels-as-given is given. --tile-set NAME reads only the photos of one
tile set (e.g. with --models DIR holding a classifier that never saw it: training.lodo --read).
"""

from __future__ import annotations

import argparse
import ast
import json
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from evaluation.conditions import CONDITIONS
from scoring import RULESETS
from training.data import DESIGNS, design
from training.labels import RF_CODES, fix_labels, mislabelled, read_yolo, source_name
from vision.classes import CLASSIFIER_CODES
from vision.correction import restrict
from vision.detections import box_areas, intersections, squashed
from vision.geometry import photo_boxes
from vision.models import MODELS_DIR
from vision.photo import PhotoError, load_photo
from vision.reader import ReaderConfig, TileReader

WIDEST = max(RULESETS.values(), key=lambda r: len(r.tile_kinds()))  # every face and flower some ruleset has


def iou_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Intersection over union of every box of a with every box of b."""
    inter = intersections(a, b)
    return inter / np.maximum(box_areas(a)[:, None] + box_areas(b)[None, :] - inter, 1e-9)


def match(gt: np.ndarray, pred: np.ndarray, thr: float = 0.5) -> list[tuple[int, int]]:
    """Greedy one-to-one matching by IoU."""
    if len(gt) == 0 or len(pred) == 0:
        return []
    m = iou_matrix(gt, pred)
    pairs = []
    while True:
        i, j = np.unravel_index(np.argmax(m), m.shape)
        if m[i, j] < thr:
            break
        pairs.append((int(i), int(j)))
        m[i, :] = -1
        m[:, j] = -1
    return pairs


def photo_files(images: Path, keep_bad: bool = False, tile_set: str | None = None) -> list[Path]:
    """The photos of a folder, sorted by name; the mislabelled ones (classes.BAD_VALID_PHOTOS) left out unless
    ``keep_bad``; only those of one tile set (``training.data.DESIGNS``) when ``tile_set`` is given. A path that is
    no folder stops the run with one line that names it (a relative ``../shared`` is the checkout's neighbour)."""
    if not images.is_dir():
        raise SystemExit(f"no folder of photos at {images} (from {Path.cwd()}); pass --images with its path")
    files = sorted(p for p in images.iterdir() if p.suffix.lower() in (".jpg", ".jpeg", ".png"))
    if tile_set is not None:
        files = [p for p in files if design(p.name) == tile_set]
    return files if keep_bad else [p for p in files if not mislabelled(p.name)]


IN_PICTURE = 0.8  # a labelled tile that a condition leaves less of its box than this inside the photo is left out


def within(xyxy: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """The share of each box's area that lies inside a picture of ``shape``."""
    picture = np.float32([[0, 0, shape[1], shape[0]]])
    return intersections(xyxy, picture)[:, 0] / np.maximum(box_areas(xyxy), 1e-6)


def evaluate(images: Path, labels: Path, reader: TileReader, names: tuple[str, ...], keep_bad: bool = False,
             limit: int | None = None, labels_as_given: bool = False, condition: str = "upright",
             iou: float = 0.5, tile_set: str | None = None) -> dict[str, object]:
    """The reader's figures on labelled photos, each changed by ``condition`` (``evaluation.conditions``: the labels'
    boxes follow it, as the boxes around the changed tiles; a tile it pushes out of the photo is left out).
    ``iou``: the overlap that matches a box to a label (a turn makes the box of a box: a label drawn loose around a
    slanted tile comes out larger than the turned tile's own box, so turned photos are also scored at 0.3).
    ``tile_set``: only the photos of that tile set (e.g. a set a leave-one-design-out classifier never saw)."""
    files = photo_files(images, keep_bad, tile_set)
    files = files[:limit] if limit else files
    n_gt = n_pred = n_match = n_correct = n_top3 = perfect = faces = 0
    # per photo kind: photos, photos entirely right, labelled tiles, matched tiles, matched tiles named right
    per_kind: dict[str, Counter[str]] = {"squashed": Counter(), "other": Counter()}
    confusions: Counter[tuple[str, str]] = Counter()
    failing: Counter[str] = Counter()  # photos not entirely right, by which kinds of error they hold
    failing_names: list[str] = []
    found: Counter[str] = Counter()
    labelled: Counter[str] = Counter()
    latency = []
    errors = []
    levelled: list[str] = []  # photos read turned in their plane (rows at a slant)
    sharpened: list[str] = []  # photos the finder read sharpened (blurred)
    cut = 0  # labelled tiles a condition pushed (partly) out of the photo
    fixed = 0
    for index, p in enumerate(files):
        try:
            img = load_photo(p)
        except PhotoError as e:
            errors.append(str(e))
            continue
        gt, gcodes = read_yolo(labels / (p.stem + ".txt"), img.shape[1], img.shape[0], names)
        if not labels_as_given:
            fixed += fix_labels(p.name, gcodes)
        kind = "squashed" if squashed(gt) else "other"  # (of the photo as exported, before any condition)
        if condition != "upright" and len(gt):
            img, gt = CONDITIONS[condition](img, gt, np.random.default_rng(index))
            inside = within(gt, img.shape) >= IN_PICTURE  # tiles the change cut by the photo's edge: not labels
            cut += int((~inside).sum())
            gt, gcodes = gt[inside], [c for c, keep in zip(gcodes, inside) if keep]
        t = time.perf_counter()
        det = reader.read(img)
        restrict(det, WIDEST)  # every face and flower exists in some ruleset
        latency.append(1000 * (time.perf_counter() - t))
        if det.levelled:
            levelled.append(f"{source_name(p.name)} ({det.levelled:.0f} degrees)")
        if det.sharpened:
            sharpened.append(source_name(p.name))
        pairs = match(gt, photo_boxes(det, img.shape), iou)  # the reading's boxes back in the photo's own frame
        codes = det.codes
        n_gt += len(gt)
        n_pred += len(det)
        n_match += len(pairs)
        right = 0
        for i, j in pairs:
            top3 = [c for c, _ in det.alternatives(j, 3)]
            n_top3 += gcodes[i] in top3
            if codes[j] == gcodes[i]:
                right += 1
            else:
                confusions[(gcodes[i], codes[j])] += 1
        n_correct += right
        labelled.update(gcodes)
        found.update(gcodes[i] for i, _ in pairs)
        entirely = right == len(gt) == len(det)
        perfect += entirely
        faces += faces_right(gcodes, codes)
        if not entirely:
            kinds = [k for k, bad in (("missed", len(pairs) < len(gt)), ("extra", len(pairs) < len(det)),
                                      ("misread", right < len(pairs))) if bad]
            failing["+".join(kinds)] += 1
            failing_names.append(source_name(p.name))
        per_kind[kind].update(
            photos=1, right_photos=entirely, labelled=len(gt), matched=len(pairs), named=right)
    lat = np.array(latency) if latency else np.zeros(1)
    return {
        "images": len(files) - len(errors), "tile_set": tile_set or "all", "condition": condition, "match_iou": iou,
        "labels_cut_by_the_condition": cut,
        "photos_read_levelled": levelled, "photos_read_sharpened": sharpened,
        "label_fixes_applied": fixed, "gt_tiles": n_gt, "predicted_tiles": n_pred,
        "tile_recall": round(n_match / max(n_gt, 1), 4), "tile_precision": round(n_match / max(n_pred, 1), 4),
        "tile_recall_by_kind": {k: round(v["matched"] / max(v["labelled"], 1), 4) for k, v in per_kind.items()},
        "class_accuracy_matched": round(n_correct / max(n_match, 1), 4),
        "class_accuracy_matched_by_kind": {k: round(v["named"] / max(v["matched"], 1), 4)
                                           for k, v in per_kind.items()},
        "class_top3_matched": round(n_top3 / max(n_match, 1), 4),
        "tiles_right_of_all_gt": round(n_correct / max(n_gt, 1), 4),
        "images_entirely_right": round(perfect / max(len(files) - len(errors), 1), 4),
        "images_faces_right": round(faces / max(len(files) - len(errors), 1), 4),
        "images_entirely_right_by_kind": {k: f"{v['right_photos']}/{v['photos']}" for k, v in per_kind.items()},
        "photos_not_right_by_error": dict(failing.most_common()),
        "photos_not_right": failing_names,
        "lowest_recall_codes": [{"code": c, "found": found[c], "labelled": labelled[c]}
                                for c in sorted(labelled, key=lambda c: found[c] / labelled[c])[:8]],
        "top_confusions": [{"true": a, "read": b, "count": c} for (a, b), c in confusions.most_common(12)],
        "latency_ms": {"median": round(float(np.median(lat)), 1), "p90": round(float(np.percentile(lat, 90)), 1)},
        "unreadable": errors,
    }


def faces_right(labelled: list[str], read: list[str]) -> bool:
    """Whether a photo's reading names its labelled tiles, each as often, and nothing more, whatever its boxes:
    "entirely right" asks each box to overlap its label by ``iou`` too, and a tile lying at a slant is boxed by
    the reader around the whole tile where some labellers drew a tighter box (the `valid` series of rows at
    55-70 degrees); this says how many photos fail on the boxes alone."""
    return Counter(labelled) == Counter(read)


def settings(pairs: list[str]) -> list[tuple[str, Any]]:
    """``NAME=VALUE`` strings as (name, Python value) pairs: numbers, True/False and None as such."""
    out = []
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise ValueError(f"{pair!r} is not NAME=VALUE")
        out.append((name.strip(), ast.literal_eval(value.strip())))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m evaluation.photos", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--images", required=True, type=Path)
    ap.add_argument("--labels", required=True, type=Path)
    ap.add_argument("--names", choices=["rf", "codes"], default="rf")
    ap.add_argument("--keep-bad", action="store_true")
    ap.add_argument("--labels-as-given", action="store_true",
                    help="score against the labels as exported, without classes.VALID_LABEL_FIXES")
    ap.add_argument("--models", type=Path, default=MODELS_DIR)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--conf", type=float, default=None, help="detector score threshold (default: the reader's)")
    ap.add_argument("--no-aspect-retry", action="store_true",
                    help="do not re-read unsure photos un-stretched (the finder's first pass only)")
    ap.add_argument("--no-repair", action="store_true",
                    help="keep the finder's boxes as they are (no joining of split tiles, no dropping of phantoms)")
    ap.add_argument("--not-tile-above", type=float, default=0.5,
                    help="drop boxes the classifier calls 'not a tile' with more than this probability (0: never)")
    ap.add_argument("--no-oriented", action="store_true", help="axis-aligned crops of slanted rows (ablation)")
    ap.add_argument("--no-level", action="store_true", help="never read a slanted photo levelled (ablation)")
    ap.add_argument("--no-deblur", action="store_true", help="never read a blurred photo sharpened (ablation)")
    ap.add_argument("--iou", type=float, default=0.5, help="overlap that matches a box to a label")
    ap.add_argument("--tile-set", default=None, choices=[d for d, _ in DESIGNS] + ["web"],
                    help="only the photos of this tile set (the shared photos' names tell the sets apart)")
    ap.add_argument("--condition", default="upright", choices=list(CONDITIONS),
                    help="change every photo and its labels one way (evaluation/conditions.py), e.g. rot45")
    ap.add_argument("--but", action="append", default=[], metavar="NAME=VALUE",
                    help="change one reader setting (vision.reader.ReaderConfig.but), e.g. zoom_to=64; repeatable")
    args = ap.parse_args()
    try:
        changed = dict(settings(args.but))
        ReaderConfig().but(**changed)
    except (TypeError, ValueError, SyntaxError) as e:
        ap.error(f"--but: {e}")
    config = ReaderConfig().but(**changed).but(repair=not args.no_repair, not_tile_above=args.not_tile_above,
                                oriented=not args.no_oriented, deblur=not args.no_deblur)
    if args.no_level:
        config = config.but(level_photo_from=0.0)
    if args.no_aspect_retry:
        config = config.but(retry_below=0.0)
    if args.conf is not None:
        config = config.but(conf=args.conf)
    reader = TileReader(args.models, threads=args.threads, config=config)
    names = RF_CODES if args.names == "rf" else CLASSIFIER_CODES
    print(json.dumps(evaluate(args.images, args.labels, reader, names, args.keep_bad, args.limit,
                                args.labels_as_given, args.condition, args.iou, args.tile_set), indent=1))


if __name__ == "__main__":
    main()
