"""The engine's version, kept with every recorded hand's evidence (what scored it): the package's version from
its installed metadata, else the one in pyproject.toml's [project] when run from a checkout."""

from __future__ import annotations

from importlib import metadata


def _version() -> str:
    try:
        return metadata.version("mahjong-reader")
    except metadata.PackageNotFoundError:
        return "0.1.0+checkout"


ENGINE_VERSION = _version()
