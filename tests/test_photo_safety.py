"""Hostile and unusual photo files: every accepted format is read; bombs are refused from their headers, fast and
with little memory; phone quirks (data after a JPEG, HEIC, damage) are handled; fuzzed bytes never raise
anything but a clear PhotoError."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.image_files import BOMBS, encoded, picture
from vision.photo import DAMAGED, FORMATS, MAX_BYTES, PhotoError, decode_image, header_size

ROOT = Path(__file__).resolve().parents[1]
ACCEPTED = ["JPEG", "PNG", "WebP", "GIF", "TIFF", "BMP", "HEIC"]


@pytest.mark.parametrize("fmt", ACCEPTED)
def test_every_accepted_format_is_read_and_sized_from_its_header(fmt: str) -> None:
    if fmt == "HEIC":
        pytest.importorskip("pillow_heif", reason="pillow-heif (a run-time dependency) is not installed")
    data = encoded(fmt)
    assert header_size(data) == (160, 120)
    img, warnings = decode_image(data, f"x.{fmt.lower()}")
    assert img.shape == (120, 160, 3) and warnings == []
    tolerance = 40 if fmt in ("GIF",) else 12  # GIF has 256 colours
    assert np.abs(img.astype(int) - picture().astype(int)).mean() < tolerance


@pytest.mark.parametrize("kind", sorted(BOMBS))
def test_a_bomb_is_refused_from_its_header_in_well_under_a_second(kind: str) -> None:
    data = BOMBS[kind]()
    t = time.perf_counter()
    with pytest.raises(PhotoError, match="megapixels, over the 50 MP limit"):
        decode_image(data, f"bomb.{kind}")
    assert time.perf_counter() - t < 0.5


BOMB_CHILD = """
import sys, time
sys.path.insert(0, {root!r})
from tests.image_files import BOMBS, peak_rss_mb
from vision.photo import PhotoError, decode_image
out = {{}}
for kind, make in BOMBS.items():
    t = time.perf_counter()
    try:
        decode_image(make(), kind)
        out[kind] = "decoded"
    except PhotoError:
        out[kind] = round(time.perf_counter() - t, 3)
out["peak_mb"] = peak_rss_mb()
print(__import__("json").dumps(out))
"""


def test_bombs_keep_the_memory_peak_low() -> None:
    """In a fresh process (imports included), refusing every bomb keeps the peak RSS far below 300 MB."""
    p = subprocess.run([sys.executable, "-c", BOMB_CHILD.format(root=str(ROOT))], capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out.pop("peak_mb") < 300
    assert all(isinstance(v, float) and v < 1.0 for v in out.values()), out


def test_a_jpeg_with_data_after_its_end_is_read() -> None:
    """Phones' motion photos append a video after the JPEG's end marker."""
    video = b"\0\0\0\x18ftypmp42" + bytes(range(256)) * 4000
    img, warnings = decode_image(encoded("JPEG") + video, "motion.jpg")
    assert img.shape == (120, 160, 3) and warnings == []


def test_a_jpeg_damaged_in_the_middle_is_read_with_a_warning() -> None:
    data = bytearray(encoded("JPEG", picture(640, 480)))
    mid = len(data) // 2
    for i in range(mid, mid + 40):
        data[i] ^= 0x5A
    img, warnings = decode_image(bytes(data), "damaged.jpg")
    assert img.shape == (480, 640, 3) and warnings == [DAMAGED]


def test_an_unknown_format_names_the_formats_accepted() -> None:
    with pytest.raises(PhotoError) as e:
        decode_image(b"%PDF-1.7 not a photo at all", "doc.pdf")
    assert FORMATS in str(e.value) and "HEIC" in FORMATS


def test_a_heic_photo_is_read_or_explained(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("pillow_heif")
    data = encoded("HEIC")
    assert decode_image(data, "iphone.heic")[0].shape == (120, 160, 3)
    monkeypatch.setitem(sys.modules, "pillow_heif", None)  # an installation without the wheel
    with pytest.raises(PhotoError, match="Most compatible"):
        decode_image(data, "iphone.heic")


def test_a_file_over_the_byte_limit_is_refused_without_reading_it_all(tmp_path: Path) -> None:
    from vision.photo import read_bytes

    big = tmp_path / "big.jpg"
    with open(big, "wb") as fh:
        fh.write(encoded("JPEG"))
        fh.truncate(MAX_BYTES + 10)
    with pytest.raises(PhotoError, match="MB limit"):
        read_bytes(big)


SEEDS = {fmt: encoded(fmt) for fmt in ("JPEG", "PNG", "WebP", "GIF", "TIFF", "BMP")} | \
    {f"{k}-bomb": make() for k, make in BOMBS.items()}


@st.composite
def damaged(draw: st.DrawFn) -> bytes:
    data = bytearray(SEEDS[draw(st.sampled_from(sorted(SEEDS)))])
    how = draw(st.sampled_from(["truncate", "flip", "header", "size", "splice"]))
    if how == "truncate":
        data = data[:draw(st.integers(0, len(data)))]
    elif how == "flip":
        for _ in range(draw(st.integers(1, 20))):
            data[draw(st.integers(0, len(data) - 1))] ^= draw(st.integers(1, 255))
    elif how == "header":
        other = SEEDS[draw(st.sampled_from(sorted(SEEDS)))]
        n = draw(st.integers(2, 32))
        data[:n] = other[:n]
    elif how == "size":  # a huge or zero size written where headers keep it
        at = draw(st.integers(0, min(40, len(data) - 4)))
        data[at:at + 4] = draw(st.sampled_from([b"\xff\xff\xff\xff", b"\0\0\0\0", b"\x7f\xff\x7f\xff"]))
    else:
        data += draw(st.binary(max_size=200))
    return bytes(data)


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(damaged())
def test_fuzzed_image_bytes_give_an_image_or_one_clear_error(data: bytes) -> None:
    try:
        img, warnings = decode_image(data, "fuzz")
    except PhotoError as e:
        msg = str(e)
        assert msg.startswith("fuzz: ") and "\n" not in msg and len(msg) < 300
        return
    assert img.ndim == 3 and img.shape[2] == 3 and img.shape[0] * img.shape[1] <= 50_000_000
    assert warnings in ([], [DAMAGED])
