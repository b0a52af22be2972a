"""Per-client quadratic datafits, vectorized over clients.

Every datafit of fedrates is, per client k, a convex quadratic of the flattened model w ∈ ℝ^d:

    f_k(w) = ½ wᵀ Q_k w − b_kᵀ w + c_k.

Three representations share this interface:

* :class:`SampleLeastSquares` — empirical least squares f_k(w) = (1/2n_k)‖X_k w − y_k‖² from data
  X: (K, n, d), y: (K, n); Q_k = X_kᵀX_k/n_k, b_k = X_kᵀy_k/n_k, c_k = ‖y_k‖²/(2n_k).
* :class:`GaussianPopulation` — population least squares for x ~ N(m_k, C), y = xᵀw° + ε, ε ~ N(0, s²):
  f_k(w) = E ½(y − xᵀw)² = ½(w − w°)ᵀ(C + m_k m_kᵀ)(w − w°) + ½s²  (Bao et al. 2022, §2 population losses).
* :class:`DenseQuadratic` — explicit (Q_k, b_k, c_k).

Shapes: ``client_values(w)`` takes w of shape (..., d) (one point for all clients) and returns (..., K);
``client_gradients(W)`` takes W of shape (..., K, d) (one point per client) and returns (..., K, d).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

__all__ = ["Datafit", "SampleLeastSquares", "GaussianPopulation", "DenseQuadratic"]


class Datafit:
    """Interface of a per-client quadratic datafit (see module docstring)."""

    clients: int
    dim: int

    def client_values(self, w: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def client_gradients(self, W: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    # dense pieces (computed on demand, cached): used by references and constants
    @cached_property
    def hessians(self) -> np.ndarray:
        """Q_k, shape (K, d, d)."""
        raise NotImplementedError  # pragma: no cover - abstract

    @cached_property
    def linear_terms(self) -> np.ndarray:
        """b_k, shape (K, d)."""
        raise NotImplementedError  # pragma: no cover - abstract

    @cached_property
    def offsets(self) -> np.ndarray:
        """c_k, shape (K,)."""
        raise NotImplementedError  # pragma: no cover - abstract

    def mean_quadratic(self, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
        """(Q̄, b̄, c̄) = Σ_k π_k (Q_k, b_k, c_k): the smooth part F(w) = ½wᵀQ̄w − b̄ᵀw + c̄."""
        return (
            np.einsum("k,kij->ij", weights, self.hessians),
            weights @ self.linear_terms,
            float(weights @ self.offsets),
        )


@dataclass(eq=False)
class SampleLeastSquares(Datafit):
    """f_k(w) = (1/2n)‖X_k w − y_k‖² with X: (K, n, d), y: (K, n) (equal n for every client)."""

    X: np.ndarray
    y: np.ndarray
    clients: int = field(init=False)
    dim: int = field(init=False)
    samples: int = field(init=False)

    def __post_init__(self) -> None:
        # C order: the stacked (K·n, d) sample matrix of the minibatch kernels is then a view, not a 64 MB copy per
        # step (data built by broadcasting, e.g. the AR(1) covariates of bao-lasso, come out in another layout)
        self.X = np.ascontiguousarray(self.X, dtype=float)
        self.y = np.ascontiguousarray(self.y, dtype=float)
        self.clients, self.samples, self.dim = self.X.shape

    def client_values(self, w: np.ndarray) -> np.ndarray:
        # residual r_{..., k, i} = x_{k,i}ᵀ w − y_{k,i}
        r = np.einsum("kid,...d->...ki", self.X, w) - self.y
        return 0.5 * np.mean(r * r, axis=-1)

    def client_gradients(self, W: np.ndarray) -> np.ndarray:
        r = np.einsum("kid,...kd->...ki", self.X, W) - self.y
        return np.einsum("kid,...ki->...kd", self.X, r) / self.samples

    @cached_property
    def hessians(self) -> np.ndarray:
        return np.einsum("kid,kie->kde", self.X, self.X) / self.samples

    @cached_property
    def linear_terms(self) -> np.ndarray:
        return np.einsum("kid,ki->kd", self.X, self.y) / self.samples

    @cached_property
    def offsets(self) -> np.ndarray:
        return 0.5 * np.mean(self.y * self.y, axis=-1)

    def mean_quadratic(self, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
        # Σ_k π_k X_kᵀX_k/n without forming the (K, d, d) stack
        Xw = self.X * np.sqrt(weights / self.samples)[:, None, None]
        flat = Xw.reshape(-1, self.dim)
        Q = flat.T @ flat
        b = np.einsum("k,kid,ki->d", weights / self.samples, self.X, self.y)
        return Q, b, float(weights @ self.offsets)


@dataclass(eq=False)
class GaussianPopulation(Datafit):
    """Population least squares: x ~ N(m_k, C), y = xᵀw° + ε, ε ~ N(0, s²).

    f_k(w) = ½(w − w°)ᵀ(C + m_k m_kᵀ)(w − w°) + ½s², gradient (C + m_k m_kᵀ)(w − w°).
    ``cov_factor`` is a matrix F with C = F Fᵀ (used to sample x = m_k + F g, g ~ N(0, I)).
    """

    means: np.ndarray  # (K, d)
    cov: np.ndarray  # (d, d)
    cov_factor: np.ndarray  # (d, d)
    truth: np.ndarray  # (d,)
    noise_std: float
    clients: int = field(init=False)
    dim: int = field(init=False)

    def __post_init__(self) -> None:
        self.clients, self.dim = self.means.shape

    def client_values(self, w: np.ndarray) -> np.ndarray:
        u = w - self.truth  # (..., d)
        cu = 0.5 * np.einsum("...d,de,...e->...", u, self.cov, u)
        mu = np.einsum("kd,...d->...k", self.means, u)
        return cu[..., None] + 0.5 * mu * mu + 0.5 * self.noise_std**2

    def client_gradients(self, W: np.ndarray) -> np.ndarray:
        U = W - self.truth
        proj = np.einsum("...kd,kd->...k", U, self.means)
        return U @ self.cov + proj[..., None] * self.means

    @cached_property
    def hessians(self) -> np.ndarray:
        return self.cov[None] + np.einsum("kd,ke->kde", self.means, self.means)

    @cached_property
    def linear_terms(self) -> np.ndarray:
        return np.einsum("kde,e->kd", self.hessians, self.truth)

    @cached_property
    def offsets(self) -> np.ndarray:
        return 0.5 * np.einsum("kd,d->k", self.linear_terms, self.truth) + 0.5 * self.noise_std**2

    def mean_quadratic(self, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
        Q = self.cov + np.einsum("k,kd,ke->de", weights, self.means, self.means)
        b = Q @ self.truth
        return Q, b, float(0.5 * self.truth @ b + 0.5 * self.noise_std**2)


@dataclass(eq=False)
class DenseQuadratic(Datafit):
    """Explicit f_k(w) = ½wᵀQ_kw − b_kᵀw + c_k with Q: (K, d, d) symmetric, b: (K, d), c: (K,)."""

    Q: np.ndarray
    b: np.ndarray
    c: np.ndarray
    clients: int = field(init=False)
    dim: int = field(init=False)

    def __post_init__(self) -> None:
        self.clients, self.dim, _ = self.Q.shape

    def client_values(self, w: np.ndarray) -> np.ndarray:
        Qw = np.einsum("kde,...e->...kd", self.Q, w)
        return 0.5 * np.einsum("...kd,...d->...k", Qw, w) - np.einsum("kd,...d->...k", self.b, w) + self.c

    def client_gradients(self, W: np.ndarray) -> np.ndarray:
        return np.einsum("kde,...ke->...kd", self.Q, W) - self.b

    @cached_property
    def hessians(self) -> np.ndarray:
        return self.Q

    @cached_property
    def linear_terms(self) -> np.ndarray:
        return self.b

    @cached_property
    def offsets(self) -> np.ndarray:
        return self.c
