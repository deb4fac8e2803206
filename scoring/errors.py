"""The one exception type for malformed input (exit code 2, error "invalid_input")."""


class InputError(ValueError):
    """Malformed input: the message says what is wrong and where."""
