"""Helpers shared by the sub-commands: ``--set key=value`` parsing for problem parameters, JSON output."""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Sequence
from typing import Any

from fedrates.solvers.errors import InputError
from fedrates.verify.jsonable import to_jsonable


def parse_assignments(items: Sequence[str] | None) -> dict[str, Any]:
    """Parse ``key=value`` items into numbers (int when integral text, else float), ``true/false`` or strings.

    Values are converted with ``int``/``float`` only, never evaluated.
    """
    out: dict[str, Any] = {}
    for item in items or ():
        if "=" not in item:
            raise InputError(f"--set expects key=value, got '{item}'")
        key, _, text = item.partition("=")
        key, text = key.strip(), text.strip()
        if not key.isidentifier():
            raise InputError(f"--set key '{key}' is not a valid parameter name")
        out[key] = parse_scalar(text)
    return out


def parse_scalar(text: str) -> Any:
    low = text.lower()
    if low in {"true", "yes"}:
        return True
    if low in {"false", "no"}:
        return False
    if low in {"none", "null"}:
        return None
    try:
        return int(text)
    except ValueError:
        pass
    try:
        value = float(text)
    except ValueError:
        return text
    if math.isnan(value):
        raise InputError(f"value '{text}' is not a number")
    return value


def print_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(to_jsonable(obj), indent=2, sort_keys=False) + "\n")
