"""The API's limits per worker process: requests per client per time window (429 with ``Retry-After``) and a
bound on the photos a worker holds at once (a burst queues, then is refused with 503, and never exhausts memory).

Set by environment, as ``COUNT/SECONDS``: $MAHJONG_READ_LIMIT (photo reads, default 30/60), $MAHJONG_GUESS_LIMIT
(failed tokens and join codes, default 10/60), $MAHJONG_CREATE_LIMIT (new tables, default 20/3600);
$MAHJONG_READ_QUEUE (photo requests waiting or being read per worker, default 8). A client is its address as the
server sees it (behind a proxy, start uvicorn with its proxy-headers options).
"""

from __future__ import annotations

import math
import os
import threading
import time
from collections import OrderedDict


class RateLimit:
    """A token bucket per client: ``count`` requests per ``seconds``, refilled smoothly; at most ``max_clients``
    buckets are kept (the least recently seen client is forgotten first), so memory stays bounded."""

    def __init__(self, count: int, seconds: float, max_clients: int = 10_000) -> None:
        if count < 1 or seconds <= 0:
            raise ValueError("a rate limit needs a count of at least 1 per a positive number of seconds")
        self.count, self.seconds, self.max_clients = count, seconds, max_clients
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()  # client -> (tokens, at)
        self._lock = threading.Lock()

    @classmethod
    def from_env(cls, name: str, default: str) -> RateLimit:
        """``COUNT/SECONDS`` from the environment variable ``name``; a malformed value stops the start-up."""
        raw = os.environ.get(name, default)
        try:
            count, seconds = raw.split("/")
            return cls(int(count), float(seconds))
        except ValueError:
            raise SystemExit(f"{name} must be COUNT/SECONDS, e.g. {default}, not {raw!r}") from None

    def _level(self, client: str, now: float) -> float:
        tokens, at = self._buckets.get(client, (float(self.count), now))
        return min(float(self.count), tokens + (now - at) * self.count / self.seconds)

    def wait(self, client: str) -> int:
        """Seconds until ``client`` may send one more (0: now), taking nothing."""
        with self._lock:
            level = self._level(client, time.monotonic())
        return 0 if level >= 1 else math.ceil((1 - level) * self.seconds / self.count)

    def take(self, client: str) -> int:
        """Count one request of ``client``: 0 if it is allowed, else the seconds to wait (nothing is taken)."""
        now = time.monotonic()
        with self._lock:
            level = self._level(client, now)
            if level < 1:
                return math.ceil((1 - level) * self.seconds / self.count)
            self._buckets[client] = (level - 1, now)
            self._buckets.move_to_end(client)
            while len(self._buckets) > self.max_clients:
                self._buckets.popitem(last=False)
        return 0


class Slots:
    """At most ``size`` requests inside at once; ``enter`` says no instead of queueing more."""

    def __init__(self, size: int) -> None:
        self.size, self.inside = size, 0
        self._lock = threading.Lock()

    @classmethod
    def from_env(cls, name: str, default: int) -> Slots:
        raw = os.environ.get(name, str(default))
        if not raw.isdigit() or int(raw) < 1:
            raise SystemExit(f"{name} must be a whole number of at least 1, not {raw!r}")
        return cls(int(raw))

    def enter(self) -> bool:
        with self._lock:
            if self.inside >= self.size:
                return False
            self.inside += 1
            return True

    def leave(self) -> None:
        with self._lock:
            self.inside -= 1
