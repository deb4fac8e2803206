"""The one exception type for malformed input (exit code 2, error "invalid_input")."""

from __future__ import annotations


class InputError(ValueError):
    """Malformed input: the message says what is wrong and where; ``zh`` says it in Chinese where it is written
    (the JSON output carries it as ``message_zh``, and the page shows it in Chinese mode)."""

    def __init__(self, message: str, zh: str | None = None) -> None:
        super().__init__(message)
        self.zh = zh
