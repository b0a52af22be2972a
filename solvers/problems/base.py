"""The :class:`Problem` record: a synthetic federation with an exact objective.

    φ(w) = Σ_k π_k f_k(w) + h(w),   w ∈ 𝒲 = {‖w‖₂ ≤ ρ} (or ℝ^shape when ``radius`` is None),

with per-client quadratic datafits f_k (:mod:`fedrates.solvers.problems.datafits`), weights π_k ≥ 0 summing to one, a
penalty h = λR (:mod:`solvers.penalties`) and an optional Euclidean (Frobenius) ball.  Models have shape ``shape``
(``(p,)`` for vectors, ``(d1, d2)`` for matrices); datafits work on the flattened model of dimension
``dim = prod(shape)``.

Stochastic gradients (see :mod:`fedrates.solvers.oracles`) follow ``sampling``:

* ``"empirical"``  — minibatches drawn from the client's own samples (Bao et al. 2022 §3: empirical losses);
* ``"population"`` — fresh samples from the client's population distribution (Bao et al. 2022 §2); the
  objective is then the population loss, whose constants are exact;
* ``"gaussian"``   — exact gradient plus N(0, (σ²/d) I) noise, so E‖noise‖² = σ² exactly (quadratic families).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from fedrates.solvers.penalties import Penalty
from fedrates.solvers.problems.datafits import Datafit, GaussianPopulation, SampleLeastSquares

__all__ = ["Problem", "SAMPLINGS"]

SAMPLINGS = ("empirical", "population", "gaussian")

#: single points whose objective value :meth:`Problem.objective` remembers, and their largest dimension
_REMEMBERED_POINTS = 8
_REMEMBERED_DIM = 1 << 16


@dataclass(frozen=True, eq=False)
class Problem:
    """A federated composite problem (see module docstring).

    Attributes:
        family: ``lasso``, ``trace`` or ``quadratic``.
        preset: preset name or ``None``.
        params: every construction parameter (after defaults), JSON-serialisable.
        shape: model shape.
        weights: π_k, shape (K,).
        datafit: the per-client quadratic datafit (flattened model).
        penalty: h = λR.
        radius: ρ of the domain ball, or ``None``.
        truth: ground truth w° in model shape (population minimiser of the unregularised loss), or ``None``.
        sampling: how stochastic gradients are drawn (``empirical``, ``population``, ``gaussian``).
        noise_std: σ for ``gaussian`` sampling (E‖ζ‖² = σ²); 0 otherwise.
        sample_datafit: for ``population`` problems built from data, the empirical datafit of the drawn samples
            (kept so that users can cross-check); ``None`` otherwise.
    """

    family: str
    preset: str | None
    params: Mapping[str, Any]
    shape: tuple[int, ...]
    weights: np.ndarray
    datafit: Datafit
    penalty: Penalty
    radius: float | None = None
    truth: np.ndarray | None = None
    sampling: str = "empirical"
    noise_std: float = 0.0
    description: str = ""
    extras: Mapping[str, Any] = field(default_factory=dict)

    # ---- sizes -------------------------------------------------------------------------------------------
    @property
    def clients(self) -> int:
        return int(self.weights.shape[0])

    @property
    def dim(self) -> int:
        return math.prod(self.shape)

    @property
    def name(self) -> str:
        return self.preset or self.family

    @property
    def is_matrix(self) -> bool:
        return len(self.shape) == 2

    # ---- data access (natural shapes) --------------------------------------------------------------------
    @property
    def X(self) -> np.ndarray | None:
        """Per-client covariates, shape ``(K, n, *shape)``, for sample-based datafits; ``None`` otherwise."""
        fit = self.datafit if isinstance(self.datafit, SampleLeastSquares) else None
        return None if fit is None else fit.X.reshape(fit.X.shape[:2] + self.shape)

    @property
    def y(self) -> np.ndarray | None:
        """Per-client responses, shape (K, n), for sample-based datafits; ``None`` otherwise."""
        return self.datafit.y if isinstance(self.datafit, SampleLeastSquares) else None

    @property
    def population(self) -> GaussianPopulation | None:
        return self.datafit if isinstance(self.datafit, GaussianPopulation) else None

    # ---- reshaping ---------------------------------------------------------------------------------------
    def flat(self, w: np.ndarray) -> np.ndarray:
        """``(..., *shape) -> (..., dim)``."""
        w = np.asarray(w, dtype=float)
        return w.reshape(w.shape[: w.ndim - len(self.shape)] + (self.dim,))

    def unflat(self, w: np.ndarray) -> np.ndarray:
        """``(..., dim) -> (..., *shape)``."""
        return w.reshape(w.shape[:-1] + self.shape)

    def zeros(self, *lead: int) -> np.ndarray:
        return np.zeros(lead + self.shape)

    # ---- values and gradients ----------------------------------------------------------------------------
    def client_losses(self, w: np.ndarray) -> np.ndarray:
        """f_k(w) for every client at one point: ``(..., *shape) -> (..., K)``."""
        return self.datafit.client_values(self.flat(w))

    def smooth_value(self, w: np.ndarray) -> np.ndarray:
        """F(w) = Σ_k π_k f_k(w): ``(..., *shape) -> (...)``."""
        return self.client_losses(w) @ self.weights

    def penalty_value(self, w: np.ndarray) -> np.ndarray:
        return self.penalty.value(np.asarray(w, dtype=float))

    def objective(self, w: np.ndarray) -> np.ndarray:
        """φ(w) = F(w) + h(w); +inf outside the domain ball (relative tolerance 1e-9).

        The value at a single point is remembered (the last :data:`_REMEMBERED_POINTS` points of dimension up to
        :data:`_REMEMBERED_DIM`, keyed by the point's bytes): a run's metrics ask again for φ(ŵ) of the reference
        the solver has just evaluated, a full pass over the data (64 MB for ``bao-lasso``) each time.  The value
        returned is the one computed, bit for bit."""
        w = np.asarray(w, dtype=float)
        key = w.tobytes() if w.shape == self.shape and w.size <= _REMEMBERED_DIM else None
        if key is not None and key in self._point_values:
            return self._point_values[key]
        value = self.smooth_value(w) + self.penalty_value(w)
        if self.radius is not None:
            outside = self.norm(w) > self.radius * (1 + 1e-9)
            value = np.where(outside, np.inf, value)
        value = value if np.ndim(value) else float(value)
        if key is not None:
            if len(self._point_values) >= _REMEMBERED_POINTS:
                del self._point_values[next(iter(self._point_values))]  # the oldest
            self._point_values[key] = value
        return value

    @cached_property
    def _point_values(self) -> dict[bytes, float]:
        """φ at the last points :meth:`objective` evaluated one at a time (bytes of the point -> value)."""
        return {}

    def client_gradients(self, W: np.ndarray) -> np.ndarray:
        """∇f_k(W_k) for every client at its own point: ``(..., K, *shape) -> (..., K, *shape)``."""
        return self.unflat(self.datafit.client_gradients(self.flat(W)))

    def gradient(self, w: np.ndarray) -> np.ndarray:
        """∇F(w) = Σ_k π_k ∇f_k(w): ``(..., *shape) -> (..., *shape)``."""
        w = self.flat(w)
        W = np.broadcast_to(w[..., None, :], w.shape[:-1] + (self.clients, self.dim))
        G = self.datafit.client_gradients(W)
        return self.unflat(np.einsum("k,...kd->...d", self.weights, G))

    def prox(self, v: np.ndarray, step: float | np.ndarray = 1.0) -> np.ndarray:
        """argmin_x ½‖x − v‖² + step·h(x) over the domain (exact)."""
        return self.penalty.prox(np.asarray(v, dtype=float), step, self.radius)

    def norm(self, w: np.ndarray) -> np.ndarray:
        """Euclidean (Frobenius) norm over the model axes."""
        w = np.asarray(w, dtype=float)
        return np.sqrt(np.sum(w * w, axis=tuple(range(-len(self.shape), 0))))

    @cached_property
    def quadratic(self) -> tuple[np.ndarray, np.ndarray, float]:
        """(Q̄, b̄, c̄) with F(w) = ½wᵀQ̄w − b̄ᵀw + c̄ on the flattened model (cached)."""
        return self.datafit.mean_quadratic(self.weights)

    # ---- identity ----------------------------------------------------------------------------------------
    @cached_property
    def fingerprint(self) -> str:
        """SHA-256 of the problem's data and settings (cache key for references)."""
        h = hashlib.sha256()
        h.update(json.dumps({"family": self.family, "params": dict(self.params), "shape": self.shape,
                             "penalty": [self.penalty.name, self.penalty.lam], "radius": self.radius,
                             "sampling": self.sampling}, sort_keys=True, default=str).encode())
        fit = self.datafit
        arrays = [self.weights]
        for name in ("X", "y", "means", "cov", "truth", "Q", "b", "c", "lam", "ctil", "reflectors", "index", "scale",
                     "delta", "u", "centres"):
            if hasattr(fit, name):
                arrays.append(np.asarray(getattr(fit, name)))
        for a in arrays:
            a = np.ascontiguousarray(a, dtype=float)  # no copy for the C-contiguous float64 data of the families
            h.update(str(a.shape).encode())
            if a.size:  # an empty array (no reflections: structure=diagonal) has no bytes and cannot be cast
                h.update(memoryview(a).cast("B"))  # the bytes of a.tobytes(), hashed in place
        return h.hexdigest()

    def summary(self) -> dict[str, Any]:
        """Sizes and settings as a JSON-friendly dict."""
        return {
            "problem": self.family,
            "preset": self.preset,
            "clients": self.clients,
            "dim": self.dim,
            "shape": list(self.shape),
            "penalty": self.penalty.name,
            "lam": self.penalty.lam,
            "radius": self.radius,
            "sampling": self.sampling,
            "params": dict(self.params),
        }
