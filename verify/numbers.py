"""One parser for the numbers of every command (``--seed``, ``--budget``, ``--jobs``, ``--set``/``--hyper``
values, ``falsify --point`` values, ``constants --radius`` ...), so that the same text is accepted or refused the same
way everywhere, in one line naming the option.

Rules:

* digits are ASCII ``0-9`` only: Python's ``int``/``float`` also read Devanagari or full-width digits, ``1_000``
  and surrounding whitespace, which are refused here (a value is written the way it is printed back);
* an integer is ``[+-]digits``; a number is a decimal with an optional exponent (``1``, ``-2.5``, ``.5``,
  ``1e-3``); ``nan``, ``inf`` and ``infinity`` are refused (not finite), as are JSON's ``true``/``false`` where a
  number is expected (a boolean is not 1.0);
* a number must lie within the double range, and a nonzero number must be normal: ``1e400`` (rounds to infinity)
  and ``1e-320`` (subnormal: dividing by it overflows, its reciprocal is not representable) are refused;
* each option then states its range; out of range is refused with the range.
"""

from __future__ import annotations

import math
import re
import sys
from typing import Any

from fedrates.solvers.errors import InputError

_INT = re.compile(r"[+-]?[0-9]+\Z")
_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\Z")
#: longest number text accepted (a seed of 2**63 has 19 digits; 64 leaves room for exponents and decimals)
MAX_TEXT = 64
#: smallest magnitude of a nonzero number (the smallest normal double)
TINY = sys.float_info.min
#: largest magnitude of a parameter that is squared or cubed (radii, hyperparameters): 1e100**3 is still finite
MAX_MAGNITUDE = 1e100
#: smallest nonzero magnitude of such a parameter (its cube and its reciprocal's cube stay finite and nonzero)
MIN_MAGNITUDE = 1e-100


def _shown(text: object) -> str:
    from fedrates.verify.commands._common import shown

    return shown(text)


def looks_numeric(text: str) -> bool:
    """True for text that Python would read as a number (``int()``/``float()`` succeed): such text is held to the
    rules of this module rather than taken as a word."""
    try:
        float(text)
        return True
    except (ValueError, OverflowError):
        pass
    try:
        int(text)
        return True
    except ValueError:
        return False


def _why_not(text: str, kind: str = "a number") -> str:
    """Why ``text`` (not matching the grammar) is not ``kind``."""
    low = text.strip().lower().lstrip("+-")
    if low == "nan":
        return "is not a number"
    if low in ("inf", "infinity"):
        return "is not a finite number"
    if text != text.strip():
        return "has surrounding spaces"
    if "_" in text:
        return "has '_' in it; write the digits without separators"
    if any(c.isdigit() and not ("0" <= c <= "9") for c in text) or any(ord(c) > 127 for c in text):
        return "is not written with ASCII digits (0-9)"
    return f"is not {kind}"


def _range(low: float | None, high: float | None, kind: str) -> str:
    if low is not None and high is not None:
        return f"expected {kind} in {low:g}..{high:g}" if kind == "a number" else f"expected {kind} in {low}..{high}"
    if low is not None:
        return f"expected {kind} >= {low:g}"
    if high is not None:
        return f"expected {kind} <= {high:g}"
    return f"expected {kind}"


def parse_int(option: str, value: Any, low: int | None = None, high: int | None = None) -> int:
    """``value`` (text, or an int from JSON) as an int in [low, high]; one-line InputError naming ``option``.

    A float from JSON is accepted only when it is integral and within range (``16.0``); text must be ASCII digits
    (``1e3`` is not an integer here: exponents are for numbers)."""
    if isinstance(value, bool):
        raise InputError(f"{option} {str(value).lower()} is not an integer")
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InputError(f"{option} {value!r} is not a finite number")
        if not value.is_integer():
            raise InputError(f"{option} {value!r} is not an integer")
        if (low is not None and value < low) or (high is not None and value > high):
            raise InputError(f"{option} {value:g} is out of range; {_range(low, high, 'an integer')}")
        value = int(value)
    elif isinstance(value, str):
        if len(value) > MAX_TEXT:
            raise InputError(f"{option} '{_shown(value)}' is too long for an integer")
        if not _INT.match(value):
            why = _why_not(value, "an integer") if not _NUMBER.match(value) else "is not an integer"
            raise InputError(f"{option} '{_shown(value)}' {why}")
        value = int(value)
    elif not isinstance(value, int):
        raise InputError(f"{option} {_shown(value)} is not an integer")
    if (low is not None and value < low) or (high is not None and value > high):
        raise InputError(f"{option} {_shown(value)} is out of range; {_range(low, high, 'an integer')}")
    return value


def parse_number(option: str, value: Any, low: float | None = None, high: float | None = None, *,
                 positive: bool = False) -> float:
    """``value`` (text, or a number from JSON) as a finite, normal float in [low, high] (``positive``: > 0);
    one-line InputError naming ``option``."""
    if isinstance(value, bool):
        raise InputError(f"{option} {str(value).lower()} is not a number")
    if isinstance(value, str):
        if len(value) > MAX_TEXT:
            raise InputError(f"{option} '{_shown(value)}' is too long for a number")
        if not _NUMBER.match(value):
            raise InputError(f"{option} '{_shown(value)}' {_why_not(value)}")
        text = value
        number = float(value)
    elif isinstance(value, int):
        text = str(value)
        try:
            number = float(value)
        except OverflowError:
            raise InputError(f"{option} {_shown(value)} is too large (beyond the double range)") from None
    elif isinstance(value, float):
        text = repr(value)
        number = value
    else:
        raise InputError(f"{option} {_shown(value)} is not a number")
    if math.isnan(number):
        raise InputError(f"{option} '{_shown(text)}' is not a number")
    if math.isinf(number):
        why = "is not a finite number" if text.lower().lstrip("+-") in ("inf", "infinity") else \
            "is too large (beyond the double range)"
        raise InputError(f"{option} '{_shown(text)}' {why}")
    if number != 0 and abs(number) < TINY:
        raise InputError(f"{option} '{_shown(text)}' is too small (nonzero below {TINY:.3g}, the smallest normal "
                         f"double)")
    if positive and number <= 0:
        raise InputError(f"{option} '{_shown(text)}' is out of range; expected a positive number")
    if (low is not None and number < low) or (high is not None and number > high):
        raise InputError(f"{option} '{_shown(text)}' is out of range; {_range(low, high, 'a number')}")
    return number


def check_magnitude(option: str, value: Any) -> Any:
    """A hyperparameter that is squared, cubed or inverted: a nonzero float must have a magnitude in
    [:data:`MIN_MAGNITUDE`, :data:`MAX_MAGNITUDE`]; other values pass unchanged."""
    if isinstance(value, float | int) and not isinstance(value, bool) and value != 0 and \
            not MIN_MAGNITUDE <= abs(value) <= MAX_MAGNITUDE:
        raise InputError(f"{option}={value:g} is out of range; expected 0 or a magnitude in "
                         f"[{MIN_MAGNITUDE:g}, {MAX_MAGNITUDE:g}] (its powers must stay finite)")
    return value


def parse_value(option: str, text: str) -> Any:
    """A ``key=value`` value: ``true/yes``/``false/no``, ``none/null``, an integer, a number (both by the rules
    above), else the text itself (a word such as ``exact``).  Text that Python would read as a number but the rules
    refuse (``nan``, ``1_000``, ``１０``, ``1e400``) is refused, never taken as a word."""
    low = text.lower()
    if low in {"true", "yes"}:
        return True
    if low in {"false", "no"}:
        return False
    if low in {"none", "null"}:
        return None
    if _INT.match(text):
        return parse_int(option, text)
    if _NUMBER.match(text) or looks_numeric(text):
        return parse_number(option, text)
    return text


def ascii_int(text: str) -> int:
    """An argparse ``type`` for integer options: ASCII digits with an optional sign (``int`` alone also reads
    ``1_000``, ``١٠`` and surrounding spaces); argparse's refusal reads "invalid int value"."""
    if not _INT.match(text) or len(text) > MAX_TEXT:
        raise ValueError(text)
    return int(text)


ascii_int.__name__ = "int"
