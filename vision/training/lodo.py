"""Leave-one-design-out: how well the classifier reads a tile set it has never seen.

The shared photos are grouped by tile set (``data.DESIGNS``, from the photos' names). For each set with `train`
photos and `valid` photos, a classifier is trained from scratch without that set's photos and reads that set's
`valid` crops; the sets that only `valid` has (IMG_27xx, the screenshots) are read by the classifier trained on
every `train` set, which never saw them either. Epochs are kept by the `valid` crops of the sets trained on.

    python -m vision.training.lodo --epochs 6 --work build/lodo            # ~8 min a fold on 2 CPU threads
    python -m vision.training.lodo --epochs 6 --work build/lodo_faces --synth-faces 6000
    python -m vision.training.lodo --epochs 6 --work build/lodo_full --synth-faces 6000 \
        --recipe "--stretched-copies 3 --coarse 0.3 --extra-copies P=3 --turned-copies 1 --glare 0.15 ..."
    python -m vision.training.lodo --table build/lodo build/lodo_faces     # the table of both

Needs the `train` extra (torch). A short schedule from scratch, the same for every fold: the figures compare sets
and recipes, they are not the shipped classifier's (which trains in six stages, every set included).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

FOLDS = ("", "IMG_2023", "fb", "hand")  # "": every train set; then each set that train and valid both have
VALID_ONLY = ("IMG_27xx", "screenshot")
HELD_OUT_SETS = tuple(f for f in FOLDS if f) + VALID_ONLY  # the table's rows: every set read held out


def run_folds(work: Path, epochs: int, extra: list[str], folds: tuple[str, ...] = FOLDS) -> None:
    """Train one classifier per fold of ``folds`` (skipping folds already done) into ``work/<fold>``."""
    for fold in folds:
        name = fold or "all"
        out = work / name
        if (out / "done").exists():
            continue
        cmd = [sys.executable, "-m", "vision.training.train_classifier", "--epochs", str(epochs),
               "--work", str(out), "--out", str(out / "classifier.onnx"), *extra]
        if fold:
            cmd += ["--leave-out", fold]
        else:  # the sets only valid has are held out of this fold: they never choose its epoch
            cmd += ["--report-only", ",".join(VALID_ONLY)]
        print(" ".join(cmd), flush=True)
        subprocess.run(cmd, check=True)
        (out / "done").write_text("ok")


def kept_epoch(log_path: Path) -> dict:
    """The log entry of the epoch whose weights were kept (the last one marked)."""
    log = json.loads(log_path.read_text())
    kept = [e for e in log if e.get("kept")]
    return kept[-1] if kept else log[-1]


def table(work: Path) -> dict[str, dict]:
    """Per design: tiles, top-1 and top-3 when held out, and top-1 when trained on (the ``all`` fold); the
    folds not run (yet) are left out."""
    logs = {f: work / (f or "all") / "log.json" for f in FOLDS}
    everything = kept_epoch(logs[""])["designs"] if logs[""].exists() else {}
    rows = {}
    for fold in HELD_OUT_SETS:
        if fold not in VALID_ONLY and not logs[fold].exists():
            continue
        source = everything if fold in VALID_ONLY else kept_epoch(logs[fold])["designs"]
        if fold not in source:
            continue
        on = everything.get(fold, {}).get("top1") if fold not in VALID_ONLY else None
        rows[fold] = {"tiles": source[fold]["tiles"], "held_out_top1": source[fold]["top1"],
                      "held_out_top3": source[fold]["top3"], "trained_on_top1": on}
    return rows


def print_tables(works: list[Path]) -> None:
    results = {str(w): table(w) for w in works}
    print(json.dumps(results, indent=1))
    head = " | ".join(f"{w.name}: held out top-1 / top-3 / trained on" for w in works)
    print(f"\n| tile set | valid tiles | {head} |\n|---|---|" + "---|" * len(works))
    designs = [d for d in HELD_OUT_SETS if any(d in r for r in results.values())]
    for d in designs:
        cells = []
        for w in works:
            r = results[str(w)].get(d)
            if r is None:
                cells.append("not run")
                continue
            on = "–" if r["trained_on_top1"] is None else f"{100 * r['trained_on_top1']:.1f}"
            cells.append(f"{100 * r['held_out_top1']:.1f} / {100 * r['held_out_top3']:.1f} / {on}")
        tiles = next(r[d]["tiles"] for r in results.values() if d in r)
        print(f"| {d} | {tiles} | " + " | ".join(cells) + " |")
    summary = []
    for w in works:
        accs = [r["held_out_top1"] for r in results[str(w)].values()]
        summary.append(f"mean {100 * sum(accs) / len(accs):.1f}, worst {100 * min(accs):.1f} ({len(accs)} sets)"
                       if accs else "nothing run")
    print("| **held out: mean, worst** | | " + " | ".join(summary) + " |")


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m vision.training.lodo", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--work", default="build/lodo")
    ap.add_argument("--synth-faces", type=int, default=0, help="add this many synthetic faces to every fold")
    ap.add_argument("--recipe", default="", metavar="ARGS",
                    help="more train_classifier arguments for every fold, e.g. the shipped augmentations")
    ap.add_argument("--folds", default=None, metavar="F,G",
                    help=f"only these folds ({', '.join(f or 'all' for f in FOLDS)}), e.g. fb,hand")
    ap.add_argument("--table", nargs="+", default=None, metavar="WORK", help="only print the table of these runs")
    args = ap.parse_args()
    if args.table:
        print_tables([Path(w) for w in args.table])
        return
    extra = (["--synth-faces", str(args.synth_faces)] if args.synth_faces else []) + args.recipe.split()
    folds = FOLDS if args.folds is None else tuple("" if f == "all" else f for f in args.folds.split(","))
    unknown = [f for f in folds if f not in FOLDS]
    if unknown:
        ap.error(f"unknown fold {', '.join(unknown)}; known: {', '.join(f or 'all' for f in FOLDS)}")
    run_folds(Path(args.work), args.epochs, extra, folds)
    print_tables([Path(args.work)])


if __name__ == "__main__":
    main()
