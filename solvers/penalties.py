"""Penalties h(w) = λ R(w) with their exact proximal operators, also restricted to a Euclidean ball.

Each penalty knows (batched over leading axes of ``w``):

* ``value(w)``        h(w) = λ R(w);
* ``norm(w)``         R(w) (λ excluded);
* ``dual_norm(g)``    R*(g), the dual norm (ℓ∞ for ℓ1, spectral for nuclear);
* ``prox(v, step, radius)``  argmin_x ½‖x − v‖² + step·λ R(x)  subject to ‖x‖₂ ≤ radius.

Prox with a ball.  For a norm R and the ball {‖x‖ ≤ ρ}, the minimiser is the radial projection of the
unconstrained prox: with a multiplier β ≥ 0 for ‖x‖² ≤ ρ² the objective becomes
((1+β)/2)‖x − v/(1+β)‖² + step·λR(x), whose minimiser is prox_{sλR/(1+β)}(v/(1+β)) = prox_{sλR}(v)/(1+β) by positive
homogeneity of R; complementary slackness gives 1 + β = max(1, ‖prox_{sλR}(v)‖/ρ).  (Bao et al. 2022, used in
Prox_t of Algorithm 1; the same argument holds for the Frobenius ball and the nuclear norm.)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fedrates.solvers import kernels

__all__ = ["Penalty", "Zero", "L1", "Nuclear", "project_ball", "soft_threshold", "singular_value_threshold"]


def soft_threshold(v: np.ndarray, kappa: float | np.ndarray) -> np.ndarray:
    """Elementwise sign(v)·max(|v| − κ, 0)."""
    return np.sign(v) * np.maximum(np.abs(v) - kappa, 0.0)


def singular_value_threshold(v: np.ndarray, kappa: float | np.ndarray, radius: float | None = None,
                             return_singular_values: bool = False):
    """U diag(t·max(s − κ, 0)) Vᵀ for v = U diag(s) Vᵀ, batched over leading axes (last two axes are the matrix).

    t = min(1, ρ/‖max(s − κ, 0)‖₂) is the radial projection onto the Frobenius ball of radius ρ (t = 1 without
    ``radius``): the Frobenius norm of the thresholded matrix is the ℓ2 norm of its singular values, so the ball
    needs no second pass over the matrix.  ``return_singular_values`` also returns those singular values
    t·max(s − κ, 0) (descending), so callers never decompose the result again."""
    u, s, vt = np.linalg.svd(v, full_matrices=False)
    kappa = np.asarray(kappa)[..., None] if np.ndim(kappa) else kappa
    s = np.maximum(s - kappa, 0.0)
    if radius is not None:
        norm = np.sqrt(np.sum(s * s, axis=-1, keepdims=True))
        s = s * np.minimum(1.0, radius / np.maximum(norm, np.finfo(float).tiny))
    out = (u * s[..., None, :]) @ vt
    return (out, s) if return_singular_values else out


def _sq_norm(x: np.ndarray, ndim: int) -> np.ndarray:
    axes = tuple(range(-ndim, 0))
    return np.sum(x * x, axis=axes)


def _rows_view(x: np.ndarray, ndim: int) -> np.ndarray | None:
    """x as a (P, D) float64 matrix of its trailing ``ndim`` axes, for the fused kernels; None if x does not fit."""
    if kernels.BACKEND != "numba" or not isinstance(x, np.ndarray) or x.dtype != np.float64 or x.ndim < ndim \
            or x.size == 0:
        return None
    D = int(np.prod(x.shape[x.ndim - ndim:]))
    return x.reshape(-1, D)


def project_ball(x: np.ndarray, radius: float | None, ndim: int = 1) -> np.ndarray:
    """Radial projection onto {‖x‖₂ ≤ radius} (Frobenius for matrices); ``radius=None`` means no constraint."""
    if radius is None:
        return x
    rows = _rows_view(x, ndim)
    if rows is not None:
        return kernels.ball(rows, radius).reshape(x.shape)
    norm = np.sqrt(_sq_norm(x, ndim))
    scale = np.minimum(1.0, radius / np.maximum(norm, np.finfo(float).tiny))
    return x * scale.reshape(scale.shape + (1,) * ndim)


@dataclass(frozen=True)
class Penalty:
    """Base class: h(w) = λR(w) for a norm R on arrays with ``ndim`` trailing axes."""

    lam: float = 0.0
    ndim: int = 1
    name: str = "penalty"

    def norm(self, w: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def dual_norm(self, g: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def _prox_unconstrained(self, v: np.ndarray, threshold: float | np.ndarray) -> np.ndarray:
        raise NotImplementedError  # pragma: no cover - abstract

    def value(self, w: np.ndarray) -> np.ndarray:
        """h(w) = λR(w)."""
        return self.lam * self.norm(w)

    def prox(self, v: np.ndarray, step: float | np.ndarray = 1.0, radius: float | None = None) -> np.ndarray:
        """argmin_x ½‖x − v‖² + step·λR(x) s.t. ‖x‖ ≤ radius (exact; see module docstring).

        ``step`` may be an array broadcastable against the leading (batch) axes of ``v``.
        """
        threshold = np.asarray(step, dtype=float) * self.lam
        if threshold.ndim:
            threshold = threshold.reshape(threshold.shape + (1,) * self.ndim) if self.ndim == 1 else threshold
        return project_ball(self._prox_unconstrained(v, threshold), radius, self.ndim)


@dataclass(frozen=True)
class Zero(Penalty):
    """h = 0 (smooth problems). R is taken as the Euclidean norm so that certificates stay defined."""

    name: str = "zero"

    def value(self, w: np.ndarray) -> np.ndarray:
        return np.zeros(np.shape(w)[: np.ndim(w) - self.ndim])

    def norm(self, w: np.ndarray) -> np.ndarray:
        return np.sqrt(_sq_norm(w, self.ndim))

    def dual_norm(self, g: np.ndarray) -> np.ndarray:
        return np.sqrt(_sq_norm(g, self.ndim))

    def _prox_unconstrained(self, v, threshold):
        return v


@dataclass(frozen=True)
class L1(Penalty):
    """h(w) = λ‖w‖₁ on vectors; prox = soft thresholding; dual norm ‖·‖∞."""

    name: str = "l1"

    def norm(self, w: np.ndarray) -> np.ndarray:
        return np.sum(np.abs(w), axis=-1)

    def dual_norm(self, g: np.ndarray) -> np.ndarray:
        return np.max(np.abs(g), axis=-1)

    def _prox_unconstrained(self, v, threshold):
        return soft_threshold(v, threshold)

    def prox(self, v: np.ndarray, step: float | np.ndarray = 1.0, radius: float | None = None) -> np.ndarray:
        """Soft threshold then radial projection (see module docstring); one fused pass with the numba kernels."""
        v = np.asarray(v, dtype=float)
        rows = _rows_view(v, 1)
        threshold = np.asarray(step, dtype=float) * self.lam
        if rows is not None and threshold.size in (1, rows.shape[0]) and threshold.shape == v.shape[:threshold.ndim]:
            return kernels.soft_ball(rows, threshold.reshape(-1), radius).reshape(v.shape)
        return super().prox(v, step, radius)


@dataclass(frozen=True)
class Nuclear(Penalty):
    """h(W) = λ‖W‖_nuc on matrices (last two axes); prox = singular value thresholding; dual norm ‖·‖_op."""

    ndim: int = 2
    name: str = "nuclear"

    def norm(self, w: np.ndarray) -> np.ndarray:
        return np.sum(np.linalg.svd(w, compute_uv=False), axis=-1)

    def dual_norm(self, g: np.ndarray) -> np.ndarray:
        return np.linalg.svd(g, compute_uv=False)[..., 0]

    def _prox_unconstrained(self, v, threshold):
        return singular_value_threshold(v, threshold)

    def prox(self, v: np.ndarray, step: float | np.ndarray = 1.0, radius: float | None = None) -> np.ndarray:
        """Singular value thresholding with the Frobenius ball applied to the singular values (one SVD)."""
        return singular_value_threshold(np.asarray(v, dtype=float), np.asarray(step, dtype=float) * self.lam,
                                        radius)
