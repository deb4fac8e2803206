"""Class lists shared by training and inference: dataset indices -> RULES.md tile codes."""

from __future__ import annotations

# Classifier output order: the 42 face codes in RULES.md order, then the face-down tile.
CLASSIFIER_CODES: tuple[str, ...] = (
    tuple(f"{r}{s}" for s in "mps" for r in range(1, 10)) + tuple("ESWNCFP") + tuple(f"f{i}" for i in range(1, 9))
    + ("back",)
)
CLASS_INDEX: dict[str, int] = {c: i for i, c in enumerate(CLASSIFIER_CODES)}
BACK = CLASS_INDEX["back"]


