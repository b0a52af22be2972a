"""Rate- and bound-conformance assertions on tidy records (used by the pytest plugin and by users' own tests).

* :func:`assert_rate` — the fitted log–log slope of a metric in a variable equals an exponent within a tolerance;
* :func:`assert_bound` — a metric stays below a theorem's explicit right-hand side.

Both accept the long record format (``metric``/``value`` columns: ``fedrates verify``, ``fedrates run --out``) and the
one-column-per-metric records of ``run_batch(...).records``. Failure messages show measured vs predicted.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from fedrates._tables import pivot_last
from fedrates.verify import checks
from fedrates.verify import tolerances as _tolerances

__all__ = ["assert_rate", "assert_bound", "RateAssertionError"]


class RateAssertionError(AssertionError):
    """A conformance assertion failed; the message shows measured vs predicted."""


def _long(records: pd.DataFrame, metric: str | None) -> pd.DataFrame:
    """Long records (``metric``/``value`` columns) of one metric; wide records (``run_batch(...).records``, one
    column per metric) are accepted too."""
    from fedrates.verify.records import as_long

    try:
        records = as_long(records)
    except ValueError as exc:
        raise RateAssertionError(str(exc)) from None
    if metric is None:
        metrics = sorted(records["metric"].unique())
        if len(metrics) > 1:
            raise RateAssertionError(f"records hold several metrics ({', '.join(metrics)}); pass metric=")
        return records
    return records[records["metric"] == metric]


def _pivot(records: pd.DataFrame, var: str, metric: str | None) -> tuple[np.ndarray, np.ndarray]:
    sub = _long(records, metric)
    if var not in sub.columns:
        raise RateAssertionError(f"records have no column {var!r}; columns: {', '.join(map(str, sub.columns))}")
    if sub.empty:
        raise RateAssertionError(f"no records for metric {metric!r}")
    table = pivot_last(sub, "seed", var)
    return table.columns.to_numpy(dtype=float), table.to_numpy(dtype=float)


def _theorem(theorem: Any) -> Any:
    """A theorem object from a :class:`~fedrates.Theorem` or the id of one registered by an installed paper."""
    if isinstance(theorem, str):
        from fedrates.bounds import catalog

        return catalog.get(theorem)
    if hasattr(theorem, "rhs") and hasattr(theorem, "evaluate") and hasattr(theorem, "kind"):
        return theorem
    raise TypeError(f"expected a theorem id or a fedrates.Theorem, got {type(theorem).__name__}")


def _letter(theorem: Any, var: str) -> str:
    """The theorem's letter for the record column ``var`` (its symbol meaning ``var``, or ``var`` itself)."""
    names = {"round": "rounds"}.get(var, var)
    for letter, meaning in theorem.symbols.items():
        if meaning == names:
            return letter
    if var in theorem.symbols:
        return var
    raise RateAssertionError(f"{theorem.id} has no symbol meaning {names!r} (symbols: "
                             f"{', '.join(f'{k} = {v}' for k, v in theorem.symbols.items())})")


def assert_rate(records: pd.DataFrame, var: str, expected: float | str | Any,
                tol: float = _tolerances.SLOPE_TOLERANCE, metric: str | None = None) -> checks.CheckResult:
    """Assert that mean(value) ∝ var^expected (log–log slope over seeds, bootstrap CI within ``expected ± tol``,
    :func:`fedrates.verify.checks.rate_exponent`).

    ``expected`` is the exponent, or a theorem (a :class:`~fedrates.Theorem` or the id of an installed paper's
    theorem): its rhs's exponent in the symbol meaning ``var`` as that variable grows
    (:func:`fedrates.bounds.analysis.exponent`), e.g. −1 for an O(1/T) theorem and ``var="iterations"``.
    """
    label = ""
    if not isinstance(expected, (int, float, np.integer, np.floating)) or isinstance(expected, bool):
        from fedrates.bounds import analysis

        theorem = _theorem(expected)
        letter = _letter(theorem, var)
        value = analysis.exponent(theorem, letter)
        if not value.is_finite:
            raise RateAssertionError(f"{theorem.id}: the rhs is not a power of {letter} ({value}); use a "
                                     "contraction check")
        label = f"{theorem.id}: "
        expected = float(value)
    x, y = _pivot(records, var, metric)
    result = checks.rate_exponent(x, y, float(expected), tol, variable=var)
    if result.verdict != "pass":
        raise RateAssertionError(f"{label}rate in {var}: measured {result.measured}, predicted {result.predicted} "
                                 f"{result.tolerance} -> {result.verdict}: {result.message}")
    return result


def assert_bound(records: pd.DataFrame, theorem_id: str | Any, values: Mapping[str, float] | None = None,
                 var: str | None = None, metric: str | None = None,
                 symbol_for: Mapping[str, str] | None = None) -> checks.CheckResult:
    """Assert E[value] ≤ rhs of an explicit theorem at every sweep point.

    ``theorem_id`` is a theorem id (built-in or of an installed paper) or a :class:`~fedrates.Theorem` object.

    The bound per point is the ``bound`` column of the records when present; otherwise the theorem's rhs is
    evaluated with ``values`` plus, for each point, ``{symbol_for[var]: x}`` (e.g. ``{"iterations": "T"}``).
    """
    theorem = _theorem(theorem_id)
    theorem_id = theorem.id
    if theorem.kind not in ("explicit", "contraction"):
        raise RateAssertionError(f"{theorem_id} has kind '{theorem.kind}': it hides constants; use assert_rate")
    sub = _long(records, metric)
    x_col = var or ("iterations" if "iterations" in sub else "round")
    x, y = _pivot(sub, x_col, None)
    if "bound" in sub and np.isfinite(sub["bound"]).all():
        bound = sub.groupby(x_col)["bound"].first().reindex(x).to_numpy(dtype=float)
    else:
        if values is None or symbol_for is None or x_col not in symbol_for:
            raise RateAssertionError("no bound column: pass values= and symbol_for={var: symbol}")
        bound = np.array([theorem.evaluate({**values, symbol_for[x_col]: float(v)}) for v in x])
    result = checks.bound_holds(y, bound)
    if result.verdict != "pass":
        raise RateAssertionError(f"{theorem_id}: measured {result.measured}, predicted {result.predicted} "
                                 f"-> {result.verdict}: {result.message}")
    return result
