"""`python -m scoring` as a user runs it: files, stdin, arrays, exit codes, no tracebacks."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.helpers import case

ROOT = Path(__file__).resolve().parents[1]
GOOD = case("nanning", "123m 456s 23p 99m 789s", "4p", winner=1, win_type="discard", discarder=3)


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "scoring", *args], input=stdin, capture_output=True, text=True,
                          cwd=ROOT, timeout=60)


def test_one_case_from_stdin():
    p = run("-", stdin=json.dumps(GOOD))
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["valid"] is True and out["net"] == [0, 3, 0, -3]


def test_array_of_cases_from_a_file(tmp_path: Path):
    f = tmp_path / "cases.json"
    bad_win = case("nanning", "123m 456s 23p 99m 789s", "9s", winner=1)
    f.write_text(json.dumps([GOOD, bad_win]))
    p = run(str(f))
    assert p.returncode == 0
    out = json.loads(p.stdout)
    assert [r["valid"] for r in out] == [True, False] and out[1]["error"] == "not_a_winning_hand"


def test_malformed_json_exits_2_with_a_message():
    p = run("-", stdin='{"ruleset": "nanning", ')
    assert p.returncode == 2 and "Traceback" not in p.stderr
    out = json.loads(p.stdout)
    assert out["error"] == "invalid_input" and "line 1" in out["message"]


def test_bad_cases_exit_2_and_name_the_problem():
    for mutate, needle in [
        (lambda c: c.update(ruleset="riichi"), "unknown ruleset"),
        (lambda c: c["options"].update(foo=1), "unknown option"),
        (lambda c: c["hand"]["concealed"].pop(), "13 tiles"),
        (lambda c: c["hand"].update(melds=[{"type": "pung", "tiles": ["1m", "1m", "2m"], "from": 0}]), "identical"),
        (lambda c: c["hand"].update(melds=[{"type": "pung", "tiles": ["1m"] * 3, "from": 1}]), "winner"),
        (lambda c: c["context"].pop("discarder"), "discarder"),
        (lambda c: c["hand"]["concealed"].__setitem__(0, "1x"), "unknown tile code"),
    ]:
        c = json.loads(json.dumps(GOOD))
        mutate(c)
        p = run("-", stdin=json.dumps(c))
        assert p.returncode == 2, needle
        assert needle in json.loads(p.stdout)["message"], (needle, p.stdout)


def test_missing_file_exits_2():
    p = run("/nonexistent/case.json")
    assert p.returncode == 2 and json.loads(p.stdout)["error"] == "invalid_input"


def test_output_piped_into_head_ends_quietly(tmp_path: Path):
    f = tmp_path / "many.json"
    f.write_text(json.dumps([GOOD] * 3000))
    p = subprocess.run(f"{sys.executable} -m scoring {f} | head -c 100", shell=True, capture_output=True, text=True,
                       cwd=ROOT, timeout=120)
    assert p.stderr == "" and p.stdout.startswith("[")


def test_an_error_about_a_huge_value_quotes_only_its_start():
    c = json.loads(json.dumps(GOOD))
    c["hand"]["concealed"][0] = "x" * 999
    p = run("-", stdin=json.dumps(c))
    assert p.returncode == 2 and len(json.loads(p.stdout)["message"]) < 300


def vision_run(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    import os

    return subprocess.run([sys.executable, "-m", "vision", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=300, env={**os.environ, **(env or {})})


def test_vision_gives_every_input_a_json_line_and_exits_2_for_a_bad_photo(tmp_path: Path):
    from tests.image_files import encoded, tiff_bomb

    good = tmp_path / "plain.png"
    good.write_bytes(encoded("PNG"))
    bomb = tmp_path / "bomb.tiff"
    bomb.write_bytes(tiff_bomb())
    p = vision_run(str(bomb), str(good), "--json")
    assert p.returncode == 2 and "Traceback" not in p.stderr
    lines = [json.loads(x) for x in p.stdout.splitlines()]
    assert [x["path"] for x in lines] == [str(bomb), str(good)]
    assert "megapixels" in lines[0]["error"] and "tiles" in lines[1]


def test_vision_score_exits_1_when_the_hand_does_not_score(tmp_path: Path):
    from tests.image_files import encoded

    photo = tmp_path / "no-tiles.png"
    photo.write_bytes(encoded("PNG"))  # a picture of no tiles: nothing scores
    p = vision_run(str(photo), "--score", "--json")
    assert p.returncode == 1 and json.loads(p.stdout)["score"]["valid"] is False


def test_a_damaged_or_empty_model_is_one_clear_line(tmp_path: Path):
    from tests.image_files import encoded

    photo = tmp_path / "plain.png"
    photo.write_bytes(encoded("PNG"))
    (tmp_path / "detector.onnx").write_bytes(b"this is not an onnx model")
    (tmp_path / "classifier.onnx").write_bytes(b"")
    p = vision_run(str(photo), env={"MAHJONG_MODELS_DIR": str(tmp_path)})
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert p.stderr.count("\n") == 1 and "detector.onnx is damaged" in p.stderr
    (tmp_path / "detector.onnx").unlink()
    p = vision_run(str(photo), env={"MAHJONG_MODELS_DIR": str(tmp_path)})
    assert p.returncode == 2 and "not found" in p.stderr and "Traceback" not in p.stderr


def test_an_error_about_a_1_mb_string_stays_one_short_line():
    c = json.loads(json.dumps(GOOD))
    c["context"]["win_type"] = "x" * 1_000_000
    p = run("-", stdin=json.dumps(c))
    out = json.loads(p.stdout)
    assert p.returncode == 2 and "1000000 characters" in out["message"] and len(p.stdout) < 300


def test_the_models_are_part_of_the_built_package(tmp_path: Path):
    """`pip install .` installs the ONNX models (as the package mahjong_models), so `python -m vision` works
    from any folder."""
    import zipfile

    p = subprocess.run([sys.executable, "-m", "pip", "wheel", ".", "--no-deps", "-q", "-w",
                        str(tmp_path)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    if p.returncode != 0 and "No module named" in p.stderr:
        import pytest

        pytest.skip(f"cannot build a wheel here: {p.stderr.strip()[-200:]}")
    assert p.returncode == 0, p.stderr[-500:]
    wheel = next(tmp_path.glob("*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert {"mahjong_models/detector.onnx", "mahjong_models/classifier.onnx"} <= set(names)
