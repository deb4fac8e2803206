"""Start `python -m service` on a loopback port for a test, and stop it after."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(ledger: str, workers: int = 1, env: dict[str, str] | None = None, module: str = "service",
          port: int | None = None) -> tuple[subprocess.Popen, str]:
    """An API process on 127.0.0.1 with the given ledger (and ``env``: limits), from ``module``; returns it and
    its base URL once it answers."""
    import httpx

    port = port or free_port()
    full = dict(os.environ, MAHJONG_LEDGER=ledger, **(env or {}))
    proc = subprocess.Popen([sys.executable, "-m", module, "--port", str(port), "--workers", str(workers)],
                            cwd=ROOT, env=full, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 60
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the API did not start: {proc.stderr.read().decode()[-500:]}")
        try:
            if httpx.get(url + "/openapi.json", timeout=2).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            time.sleep(0.3)
    proc.kill()
    raise RuntimeError("the API did not answer within 60 s")


def stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
