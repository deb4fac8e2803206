"""How the reader runs its models: thread pools that do not spin, and the zoomed pass's own finder when given."""

from __future__ import annotations

import onnxruntime as ort
import pytest

from tests.test_orientation import composed, needs_data  # noqa: F401  (the fixture and the data mark)
from vision.models import MODELS_DIR
from vision.pipeline import read_image
from vision.reader import TileReader


class Counted:
    """A finder session that counts its passes."""

    def __init__(self, inner: ort.InferenceSession) -> None:
        self.inner, self.passes = inner, 0

    def run(self, names: object, feed: dict) -> list:
        self.passes += 1
        return self.inner.run(names, feed)

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)


@pytest.mark.skipif(not (MODELS_DIR / "detector.onnx").exists(), reason="shipped models not built")
def test_the_models_do_not_spin_between_runs() -> None:
    """The finder and the classifier take turns on the same cores: a pool left busy-waiting after its run slowed
    the other by a third on a 12-MP photo (benchmarks/bench_vision.py)."""
    reader = TileReader()
    for model in (reader.finder.model, reader.classifier.model):
        assert model.get_session_options().get_session_config_entry("session.intra_op.allow_spinning") == "0"


@needs_data
def test_the_zoomed_pass_reads_with_the_finder_copy_given(composed: tuple) -> None:  # noqa: F811
    """A hand across a photo: the first pass with the finder, the enlarged pass with ``zoom_finder``'s copy (here
    the same file), and the same hand as the reader with one finder."""
    img, hand, winner, ruleset = composed
    reader = TileReader(zoom_finder="detector.onnx")
    assert reader.zoom.finder is not reader.finder
    first, zoomed = Counted(reader.finder.model), Counted(reader.zoom.finder.model)
    reader.finder.model, reader.zoom.finder.model = first, zoomed  # type: ignore[assignment]
    r = read_image(img, reader, ruleset, True, winner)
    assert (first.passes, zoomed.passes) == (1, 1)
    assert r.hand == read_image(img, TileReader(), ruleset, True, winner).hand == hand
