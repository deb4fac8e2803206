"""Shared fixtures: a throwaway PostgreSQL server (skipped with the reason when it cannot be started)."""

from tests.postgres_server import postgres_server  # noqa: F401 - a fixture
