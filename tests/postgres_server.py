"""A throwaway PostgreSQL server for the ledger tests: Debian's postgresql package, a cluster under build/,
reached by a Unix socket only, started and stopped by a pytest fixture. Tests skip, saying why, without it."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def pg_bin() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return Path(found[-1]).parent if found else None


def _as_postgres(cmd: list[str]) -> list[str]:
    """Run as the 'postgres' user when we are root (the server refuses to run as root)."""
    if os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--", *cmd]
    return cmd


def cluster_dir() -> Path:
    """A new folder for the cluster, under build/; when the tests run as root (the server runs as 'postgres')
    and 'postgres' cannot reach build/ (a checkout inside a private folder), a private temporary folder instead."""
    base = ROOT / "build" / f"pg-{uuid.uuid4().hex[:8]}"
    (base / "sock").mkdir(parents=True)
    if os.geteuid() != 0:
        return base
    os.chmod(ROOT / "build", 0o755)
    for p in (base, base / "sock"):
        shutil.chown(p, "postgres")
    if subprocess.run(["runuser", "-u", "postgres", "--", "test", "-w", str(base)], cwd="/").returncode == 0:
        return base
    shutil.rmtree(base, ignore_errors=True)
    base = Path(tempfile.mkdtemp(prefix="mahjong-pg-"))
    (base / "sock").mkdir()
    for p in (base, base / "sock"):
        shutil.chown(p, "postgres")
    return base


class Unavailable(RuntimeError):
    """No throwaway server can be started here (the reason is the message)."""


@contextmanager
def throwaway_postgres() -> Iterator[str]:
    """A running throwaway server's URL (the 'postgres' database), stopped and removed after; ``Unavailable``
    when psycopg or Debian's postgresql is missing or the server does not start."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        raise Unavailable("psycopg is not installed (pip install '.[postgres]')") from None
    bin_dir = pg_bin()
    if bin_dir is None:
        raise Unavailable("Debian's postgresql package is not installed (.ci/run installs it)")
    base = cluster_dir()
    data, sock = base / "data", base / "sock"
    port = 20000 + uuid.uuid4().int % 20000
    log = base / "server.log"
    try:
        subprocess.run(_as_postgres([str(bin_dir / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres",
                                     "--no-sync", "-E", "UTF8"]), check=True, capture_output=True, timeout=120,
                       cwd=base)
        subprocess.run(_as_postgres([str(bin_dir / "pg_ctl"), "-D", str(data), "-l", str(log), "-w", "-t", "60",
                                     "-o", f"-p {port} -k {sock} -c listen_addresses='' -c fsync=off "
                                     "-c max_connections=200", "start"]), check=True, capture_output=True,
                       timeout=120, cwd=base)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError) as e:
        detail = getattr(e, "stderr", b"") or b""
        shutil.rmtree(base, ignore_errors=True)
        raise Unavailable(f"PostgreSQL could not be started: {detail.decode(errors='replace')[-300:] or e}") from None
    try:
        yield f"postgresql://postgres@/postgres?host={sock}&port={port}"
    finally:
        subprocess.run(_as_postgres([str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"]),
                       capture_output=True, timeout=60, cwd=base)
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """The URL of a running throwaway server (the 'postgres' database); skips when one cannot be started."""
    try:
        server = throwaway_postgres()
        url = server.__enter__()
    except Unavailable as e:
        pytest.skip(str(e))
    try:
        yield url
    finally:
        server.__exit__(None, None, None)


def fresh_database(server_url: str) -> str:
    """A new empty database on the server; its URL."""
    import psycopg

    name = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return server_url.replace("/postgres?", f"/{name}?")
