"""Shared fixtures: a throwaway PostgreSQL server (skipped with the reason when it cannot be started), and the
page factory with a stand-in reader."""

from tests.page_fixture import page  # noqa: F401 - a fixture
from tests.postgres_server import postgres_server  # noqa: F401 - a fixture
