"""Parameter declarations and validation for problem families (one clear line per bad value)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fedrates.solvers.errors import InputError, unknown_name

__all__ = ["Param", "Family", "resolve", "MAX_INT", "MAX_SEED"]

#: largest value of an integer parameter (sizes, counts); memory is checked separately by the commands
MAX_INT = 2**31 - 1
#: largest data-generator seed
MAX_SEED = 2**63 - 1


@dataclass(frozen=True)
class Param:
    """A declared parameter: default, kind (``int``, ``float``, ``choice``, ``optional_float``), bounds, meaning."""

    default: Any
    kind: str
    meaning: str
    low: float | None = None
    low_inclusive: bool = True
    choices: tuple[str, ...] = ()

    def coerce(self, name: str, value: Any) -> Any:
        if self.kind == "choice":
            if value not in self.choices:
                raise InputError(f"parameter {name}={value!r} is not valid; expected one of {', '.join(self.choices)}")
            return value
        if self.kind == "optional_float" and value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
            raise InputError(f"parameter {name}={value!r} is not a number; expected {self.meaning}")
        if self.kind == "int":
            if isinstance(value, (float, np.floating)) and not np.isfinite(value):
                raise InputError(f"parameter {name}={value!r} must be a finite integer ({self.meaning})")
            if isinstance(value, (float, np.floating)) and float(value) != int(value):
                raise InputError(f"parameter {name}={value!r} must be an integer ({self.meaning})")
            given = f"{value:g}" if isinstance(value, (float, np.floating)) else str(value)
            value = int(value)
            high = MAX_SEED if name == "seed" else MAX_INT
            if value > high:
                given = given if len(given) <= 24 else given[:21] + "..."
                raise InputError(f"parameter {name}={given} is too large; expected {name} <= {high}")
        else:
            value = float(value)
            if not np.isfinite(value):
                raise InputError(f"parameter {name}={value!r} must be finite ({self.meaning})")
        if self.low is not None:
            bad = value < self.low if self.low_inclusive else value <= self.low
            if bad:
                op = ">=" if self.low_inclusive else ">"
                raise InputError(f"parameter {name}={value!r} is out of range; expected {name} {op} {self.low:g}")
        return value


@dataclass(frozen=True)
class Family:
    """A problem family: declared parameters, presets (partial parameter sets) and a builder."""

    name: str
    description: str
    parameters: Mapping[str, Param]
    presets: Mapping[str, Mapping[str, Any]]
    builder: Callable[..., Any]
    checks: tuple[Callable[[dict[str, Any]], None], ...] = field(default_factory=tuple)


def resolve(family: Family, preset: str | None, overrides: Mapping[str, Any]) -> dict[str, Any]:
    """Defaults ← preset ← overrides, each value validated; unknown names suggest the closest."""
    if preset is not None and preset not in family.presets:
        raise unknown_name(f"preset for {family.name}", preset, family.presets)
    params = {name: p.default for name, p in family.parameters.items()}
    if preset is not None:
        params.update(family.presets[preset])
    for name, value in overrides.items():
        if name not in family.parameters:
            raise unknown_name(f"parameter of {family.name}", name, family.parameters)
        params[name] = value
    out = {name: family.parameters[name].coerce(name, value) for name, value in params.items()}
    for check in family.checks:
        check(out)
    return out
