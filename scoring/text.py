"""A line of text in both languages the product speaks; the page picks one, the JSON output carries both."""

from __future__ import annotations

from typing import NamedTuple


class Text(NamedTuple):
    """English and Chinese of one label, help line or reason."""

    en: str
    zh: str

    def get(self, lang: str) -> str:
        """The text in ``lang`` ("zh" or anything else for English)."""
        return self.zh if lang == "zh" else self.en
