"""The code is ruff clean, and the runtime mypy clean (both from the `dev` extra): `python -m pytest` checks them,
so `.ci/run`, which runs exactly the README's test command, does."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run(tool: str, *args: str) -> subprocess.CompletedProcess[str]:
    if importlib.util.find_spec(tool) is None:
        pytest.skip(f"{tool} not installed (pip install '.[dev]')")
    return subprocess.run([sys.executable, "-m", tool, *args], cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_ruff_finds_nothing() -> None:
    out = _run("ruff", "check", ".")
    assert out.returncode == 0, out.stdout[-3000:]


def test_the_runtime_is_mypy_clean() -> None:
    """scoring/, vision/, ledger/, service/, webapp/ and app.py (pyproject's [tool.mypy] files)."""
    out = _run("mypy", "--no-error-summary", "--cache-dir", str(ROOT / "build" / "mypy_cache"))
    assert out.returncode == 0, out.stdout[-3000:]
