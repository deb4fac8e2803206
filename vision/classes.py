"""Class lists shared by training and inference: dataset indices -> RULES.md tile codes."""

from __future__ import annotations

# Roboflow `chinese-mahjong-detection` v4 class order (see ../shared/data/README.md) as RULES.md codes.
RF_CODES: tuple[str, ...] = (
    "f1", "1m", "1p", "1s", "E", "f2", "2m", "2p", "2s", "S", "f3", "3m", "3p", "3s", "W", "f4", "4m", "4p", "4s",
    "N", "f5", "5m", "5p", "5s", "P", "f6", "6m", "6p", "6s", "F", "f7", "7m", "7p", "7s", "C", "f8", "8m", "8p",
    "8s", "9m", "9p", "9s",
)

# Classifier output order: the 42 face codes in RULES.md order, then the face-down tile.
CLASSIFIER_CODES: tuple[str, ...] = (
    tuple(f"{r}{s}" for s in "mps" for r in range(1, 10)) + tuple("ESWNCFP") + tuple(f"f{i}" for i in range(1, 9))
    + ("back",)
)
CLASS_INDEX: dict[str, int] = {c: i for i, c in enumerate(CLASSIFIER_CODES)}
BACK = CLASS_INDEX["back"]

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
