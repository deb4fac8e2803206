"""Messages the reader says in both languages: the English is the string itself (JSON, the CLI and logs show
it), the Chinese rides along for the page."""

from __future__ import annotations


class Said(str):
    """A message in English that carries its Chinese (``zh``); anything that takes a string takes it."""

    zh: str

    def __new__(cls, en: str, zh: str) -> Said:
        obj = super().__new__(cls, en)
        obj.zh = zh
        return obj

    def __reduce__(self) -> tuple[type[Said], tuple[str, str]]:  # copies and pickles keep the Chinese
        return Said, (str(self), self.zh)


def in_lang(message: object, lang: str) -> str:
    """A message in the page's language: its Chinese where it carries one, else as it is."""
    if lang == "zh" and isinstance(message, Said):
        return message.zh
    return str(message)
