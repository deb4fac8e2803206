"""The shared datasets' labels: class orders as RULES.md codes, YOLO label files, known label defects."""

from __future__ import annotations

from pathlib import Path

import numpy as np

# Roboflow `chinese-mahjong-detection` v4 class order (see ../shared/data/README.md) as RULES.md codes.
RF_CODES: tuple[str, ...] = (
    "f1", "1m", "1p", "1s", "E", "f2", "2m", "2p", "2s", "S", "f3", "3m", "3p", "3s", "W", "f4", "4m", "4p", "4s",
    "N", "f5", "5m", "5p", "5s", "P", "f6", "6m", "6p", "6s", "F", "f7", "7m", "7p", "7s", "C", "f8", "8m", "8p",
    "8s", "9m", "9p", "9s",
)


# Detector classes.
DETECTOR_CLASSES: tuple[str, ...] = ("tile", "back")


# camerash-crops label names -> codes.
CAMERASH_CODES: dict[str, str] = {
    **{f"dots-{r}": f"{r}p" for r in range(1, 10)},
    **{f"bamboo-{r}": f"{r}s" for r in range(1, 10)},
    **{f"characters-{r}": f"{r}m" for r in range(1, 10)},
    "honors-east": "E", "honors-south": "S", "honors-west": "W", "honors-north": "N",
    "honors-red": "C", "honors-green": "F", "honors-white": "P",
    "bonus-spring": "f1", "bonus-summer": "f2", "bonus-autumn": "f3", "bonus-winter": "f4",
    "bonus-plum": "f5", "bonus-orchid": "f6", "bonus-chrysanthemum": "f7", "bonus-bamboo": "f8",
}


# Photos of the valid split whose every box is wrongly labelled 1p (data README: label defects).
BAD_VALID_PHOTOS: tuple[str, ...] = ("IMG_2778", "IMG_2779", "IMG_2780", "IMG_2781", "IMG_2783", "IMG_2786",
                                     "IMG_2788")


def mislabelled(photo_name: str) -> bool:
    """Whether an exported photo is one of BAD_VALID_PHOTOS (every box labelled 1p), left out of every metric."""
    return any(photo_name.startswith(b + "_") for b in BAD_VALID_PHOTOS)


# Single boxes of the valid split that carry the wrong face (data README: "about 20 further single boxes carry the
# wrong suit"), found by reviewing by eye the crops the reader named differently from its label on the ordinary
# photos: (photo name before ".rf.", index of the box among the label file's rows, label as given, face shown).
# Only faces legible in the photo are listed; `python -m evaluation.photos --labels-as-given` ignores this list.
VALID_LABEL_FIXES: tuple[tuple[str, int, str, str], ...] = (
    ("367749699_848989150106760_5345677025050704033_n_jpg", 11, "5p", "4p"),
    ("370280965_2015775748788044_2111708559817730528_n_jpg", 8, "3m", "2m"),
    ("379666913_866373728534631_7549096240212301978_n_jpg", 9, "f4", "f3"),
    ("393862359_1016644659388196_9121892287557604620_n_jpg", 3, "E", "W"),
    ("395368434_1753592458387634_7405461030797290030_n_jpg", 9, "2s", "4s"),
    ("395465309_716860696650128_7891072760470949603_n_jpg", 19, "5p", "5m"),
    ("395718530_2252314648305598_5544118639271367857_n_jpg", 10, "7m", "3m"),
    ("395943457_352951880638020_6708737081433333054_n_jpg", 14, "W", "E"),
    ("396063485_293427056846610_4291922774061432571_n_jpg", 17, "f1", "f4"),
    ("396615245_1012553140002307_5358505426230168323_n_jpg", 6, "9s", "5s"),
    ("398002292_1437513313470094_1394361439216119639_n_jpg", 7, "W", "S"),
    ("IMG_20231107_231242_jpg", 15, "4m", "4p"),
    ("IMG_20231107_231752_jpg", 35, "4m", "C"),
    ("hand_003_jpg", 8, "3s", "3p"),
    ("hand_003_jpg", 9, "2s", "2p"),
    ("hand_003_jpg", 10, "1s", "1p"),
    ("hand_016_jpg", 3, "6p", "6m"),
    ("hand_016_jpg", 4, "5p", "5m"),
    ("hand_016_jpg", 5, "4p", "4m"),
    ("IMG_2745_JPG", 43, "6p", "6m"),
    ("IMG_2770_JPG", 10, "9p", "4p"),
)


def fix_labels(photo_name: str, codes: list[str]) -> int:
    """Apply the VALID_LABEL_FIXES of this photo to its label codes in place; returns how many were applied.

    A fix whose box no longer carries the label it corrects (a different export) is left out, not forced.
    """
    source = source_name(photo_name)
    applied = 0
    for name, index, given, shown in VALID_LABEL_FIXES:
        if name == source and index < len(codes) and codes[index] == given:
            codes[index] = shown
            applied += 1
    return applied


def source_name(photo_name: str) -> str:
    """The source photo of an exported file name: the part before ".rf." (all augmented copies share it)."""
    return photo_name.split(".rf.")[0]


def read_yolo(path: Path, w: int, h: int, names: tuple[str, ...]) -> tuple[np.ndarray, list[str]]:
    """YOLO label rows (box or polygon) -> pixel boxes (x1, y1, x2, y2) and the codes ``names`` gives each class;
    no file means no boxes. A row's index here is the one classes.VALID_LABEL_FIXES refers to."""
    boxes, codes = [], []
    if path.exists():
        for line in path.read_text().split("\n"):
            p = line.split()
            if len(p) < 5:
                continue
            v = list(map(float, p[1:]))
            if len(v) == 4:
                x1, y1, x2, y2 = v[0] - v[2] / 2, v[1] - v[3] / 2, v[0] + v[2] / 2, v[1] + v[3] / 2
            else:
                x1, y1, x2, y2 = min(v[0::2]), min(v[1::2]), max(v[0::2]), max(v[1::2])
            boxes.append([x1 * w, y1 * h, x2 * w, y2 * h])
            codes.append(names[int(p[0])])
    return np.array(boxes, np.float32).reshape(-1, 4), codes
