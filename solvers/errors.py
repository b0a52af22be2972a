"""User-facing errors of fedrates.

Every error a user can provoke with bad input is an :class:`InputError`: its message is one line that names the bad
value and what was expected.  The CLI prints it without a traceback and exits with status 2.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = ["InputError", "MAX_INPUT_LENGTH", "VerificationError", "shown", "suggest", "unknown_name"]


class InputError(ValueError):
    """Bad user input (unknown name, out-of-range value, ...). One-line message; CLI exit status 2."""


class VerificationError(RuntimeError):
    """A computation could not be certified (e.g. a reference optimum whose gap stays above tolerance)."""


def suggest(name: str, choices: Iterable[str]) -> str:
    """Return ``" (did you mean 'x'?)"`` for the closest choice, or an empty string."""
    close = difflib.get_close_matches(str(name), list(choices), n=1, cutoff=0.5)
    return f" (did you mean '{close[0]}'?)" if close else ""


def unknown_name(kind: str, name: str, choices: Iterable[str]) -> InputError:
    """Build the standard error for an unknown problem/preset/parameter/algorithm/theorem name."""
    choices = sorted(choices)
    return InputError(
        f"unknown {kind} '{name}'{suggest(name, choices)}; expected one of: {', '.join(choices)}"
    )


#: longest accepted user expression or ``symbol=value`` item, in characters
MAX_INPUT_LENGTH = 200


def shown(text: str, limit: int = 60) -> str:
    """``text`` safe to echo in a one-line message: control characters (newlines, ANSI escapes) are escaped and
    long text is shortened."""
    safe = "".join(c if c.isprintable() else repr(c)[1:-1] for c in str(text))
    return safe if len(safe) <= limit else safe[:limit - 3] + "..."
