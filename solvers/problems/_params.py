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
    #: bytes an instance may hold (default: :func:`footprint`), checked before anything is allocated
    footprint: Callable[[dict[str, Any]], float] | None = None
    #: the constants of :data:`fedrates.solvers.constants.DEFINITIONS` in closed form with their certificates, for
    #: the instances the dense route cannot hold: ``closed_form(problem, batch, replace, radius)`` → a
    #: :class:`fedrates.solvers.closed_form.ClosedForm` or None when the dense route applies (``fedrates constants``)
    closed_form: Callable[..., Any] | None = None


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
    check_footprint(family.name, out, family.footprint)
    return out


#: share of the available memory one problem instance may take
MEMORY_SHARE = 0.5


def available_memory() -> int:
    """Bytes available to a new allocation (MemAvailable on Linux, else the free physical pages)."""
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        import os

        return int(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return 8 * 2**30


def footprint(params: Mapping[str, Any]) -> float:
    """Bytes an instance may hold: per client a data matrix (samples x model size), a model-size square (Hessian,
    Gram or a Haar rotation) and the factors of a factored Hessian, float64, times 2 for a working copy
    (bao-lasso: about 1.1 GiB)."""
    p = params.get("dim") or (params.get("rows", 1) * params.get("cols", 1))
    clients = params.get("clients", 1) or 1
    samples = params.get("samples", 0) or 0
    inner = params.get("inner", 0) if params.get("structure") == "factors" else 0
    return 2.0 * 8 * clients * (samples * p + p * p + inner * p)


def check_footprint(name: str, params: Mapping[str, Any],
                    estimate: Callable[[Any], float] | None = None) -> None:
    """Refuse, before anything is allocated, an instance needing more than half of the available memory
    (``estimate``: the family's own footprint, default :func:`footprint`)."""
    needed, avail = (estimate or footprint)(params), available_memory()
    if needed > MEMORY_SHARE * avail:
        sizes = ", ".join(f"{k}={params[k]}" for k in ("clients", "samples", "dim", "rows", "cols") if k in params)
        raise InputError(f"problem {name} ({sizes}) needs about {needed / 2**30:.3g} GiB of memory, more than "
                         f"{MEMORY_SHARE:.0%} of the {avail / 2**30:.3g} GiB available; use fewer clients, "
                         f"samples or a smaller dimension")
