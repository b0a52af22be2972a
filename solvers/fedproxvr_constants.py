"""Exact constants of Dinh et al.'s Assumption 1 (ICPP 2020, FedProxVR) on a finite-sum federation.

For per-sample quadratics f_i(w) = ½wᵀQ_iw − q_iᵀw + r_i (:mod:`fedrates.solvers.problems.finite_sum`), with device
averages A_n = mean_i Q_i, b_n and p_n = D_n/D:

* ``L``      (3)  every f_i is L-smooth: L = max_{n,i} ‖Q_i‖₂ (the paper's single constant, used for η = 1/(βL));
* ``L_ms``   mean-squared smoothness max_n √λ_max(mean_i Q_i²) (what (33)/(35) use; L_F ≤ L_ms ≤ L);
* ``L_F``    max_n λ_max(A_n) (smoothness of F_n and F̄, what Theorem 1's proof uses);
* ``lam``    (4)  every F_n is (−λ)-strongly convex: λ = max_n max(0, −λ_min(A_n)) (0 for least squares: the
  paper asks λ > 0, its statements are continuous in λ → 0⁺);
* ``sigma``  (5)  ‖∇F_n − ∇F̄‖ ≤ σ_n‖∇F̄‖: with ∇F_n(w*) = 0 for all n, ∇F_n − ∇F̄ = (A_n − Ā)(w − w*) and
  ∇F̄ = Ā(w − w*), so σ_n = ‖(A_n − Ā)Ā⁻¹‖₂ exactly (sup attained); if some ∇F_n(w*) ≠ 0, σ_n = ∞;
* ``sigma_bar_sq`` Σ_n p_n σ_n²;  ``m`` PL constant λ_min(Ā) of F̄;  ``Delta`` F̄(w̄⁰) − F̄*;
* ``w_star``, ``F_star`` the minimiser Ā⁻¹b̄ and minimum (closed form; certified gap 0 up to rounding).

The first four (and each device's own λ_n = max(0, −λ_min(A_n))) are *per-device* quantities: they exist for any
finite-sum federation, including one whose average Hessian Ā is singular or indefinite (e.g. the single indefinite
device of a ``dinh_nc`` federation on which Lemma 1 is measured).  :func:`device_constants` computes only those
(:class:`DinhDeviceConstants`); :func:`compute` adds the global-optimum quantities (w*, F̄*, σ_n, m, Δ) and refuses,
with one line, an instance whose Ā is not positive definite (F̄ then has no unique minimiser: they are undefined).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from fedrates.solvers.certified import CarriesCertificates
from fedrates.solvers.errors import InputError
from fedrates.solvers.problems.base import Problem
from fedrates.solvers.problems.finite_sum import finite_sum

__all__ = ["DinhConstants", "DinhDeviceConstants", "compute", "device_constants", "ASSUMPTIONS",
           "DEVICE_CONSTANTS"]

#: which assumption of Dinh et al. each constant instantiates
ASSUMPTIONS = {
    "L": "(3) every sample loss f_i is L-smooth: max_i ||Q_i||_2",
    "L_ms": "(33)/(35) mean-squared smoothness: max_n sqrt(lambda_max(mean_i Q_i^2))",
    "L_F": "smoothness of every F_n: max_n lambda_max(A_n)",
    "lam": "(4) every F_n is (-lambda)-strongly convex: max_n max(0, -lambda_min(A_n))",
    "sigma_bar_sq": "(5) gradient divergence: sum_n p_n sigma_n^2, sigma_n = ||(A_n - Abar) Abar^-1||_2",
    "m": "PL constant of Fbar: lambda_min(Abar)",
    "Delta": "cost gap Fbar(w0) - Fbar* (Theorem 1)",
}
#: the constants that are defined device by device (no global optimum needed: Lemma 1)
DEVICE_CONSTANTS = ("L", "L_ms", "L_F", "lam")


@dataclass(frozen=True)
class DinhDeviceConstants(CarriesCertificates):
    """The per-device constants of Assumption 1 (L of (3), L_ms, L_F, λ of (4) and each device's own λ_n): what
    Lemma 1 needs on device n besides ∇F_n(w̄), defined whether or not the average Hessian Ā is positive definite."""

    p: np.ndarray
    A: np.ndarray
    b: np.ndarray
    L: float
    L_ms: float
    L_F: float
    lam: float
    #: λ_n = max(0, −λ_min(A_n)) per device (λ = max_n λ_n)
    lam_n: np.ndarray
    _certify_kind: ClassVar[str] = "dinh-device"
    notes: dict = field(default_factory=dict)
    witnesses: dict = field(default_factory=dict, repr=False)
    problem_ref: Any = field(default=None, repr=False, compare=False)



@dataclass(frozen=True)
class DinhConstants(CarriesCertificates):
    p: np.ndarray
    A: np.ndarray
    b: np.ndarray
    Abar: np.ndarray
    bbar: np.ndarray
    L: float
    L_ms: float
    L_F: float
    lam: float
    m: float
    sigma: np.ndarray
    sigma_bar_sq: float
    w_star: np.ndarray
    F_star: float
    Delta: float
    realisable: bool
    _certify_kind: ClassVar[str] = "dinh"
    notes: dict = field(default_factory=dict)
    #: what attains each value (device, sample, eigen/singular vector, w⁰), see :mod:`fedrates.solvers.certify`
    witnesses: dict = field(default_factory=dict, repr=False)
    #: the instance (for the certificates); not part of the values
    problem_ref: Any = field(default=None, repr=False, compare=False)


    def require_finite_sigma(self) -> None:
        """InputError when assumption (5) cannot hold (devices do not share a stationary point)."""
        if not self.realisable:
            raise InputError("assumption (5) fails on this instance: the devices do not share a stationary point "
                             "(sigma_n = inf), so Theta of Theorem 1 cannot be evaluated")


def compute(problem: Problem, w0: np.ndarray | None = None) -> DinhConstants:
    """The constants above for a finite-sum problem (InputError otherwise); w̄⁰ = 0 by default. The result is
    recorded for :func:`fedrates.solvers.certify.observing`."""
    from fedrates.solvers import certify

    return certify.observe(_compute(problem, w0))


def device_constants(problem: Problem) -> DinhDeviceConstants:
    """The per-device constants (L, L_ms, L_F, λ, λ_n) of a finite-sum problem (InputError otherwise), whatever its
    average Hessian; recorded for :func:`fedrates.solvers.certify.observing` like :func:`compute`."""
    from fedrates.solvers import certify

    return certify.observe(_device(problem))


def _device(problem: Problem) -> DinhDeviceConstants:
    """The per-device constants (see :func:`device_constants`): every value from each device's own sample and
    device Hessians, never from the average Ā."""
    fs = finite_sum(problem)
    if fs is None:
        raise InputError(f"problem {problem.name} has no per-sample structure; expected a finite-sum least-squares "
                         "family (dinh_ls, dinh_nc, lasso with lam=0)")
    p = np.asarray(problem.weights, dtype=float)
    fit = problem.datafit
    A, b = fit.hessians, fit.linear_terms
    Qi = fs.sample_hessians
    # values exactly as before (eigvalsh); the witnesses from separate eigendecompositions (eigh)
    L = float(np.max(np.abs(np.linalg.eigvalsh(Qi))))
    Msq = np.einsum("kide,kief->kdf", Qi, Qi) / fs.samples
    L_ms = float(np.sqrt(max(np.linalg.eigvalsh(Msq).max(), 0.0)))
    eigA = np.linalg.eigvalsh(A)
    L_F = float(np.max(np.abs(eigA)))
    lam = float(max(0.0, -eigA.min()))
    lam_n = np.maximum(0.0, -eigA[:, 0])
    eQ, VQ = np.linalg.eigh(Qi)
    n_, i_, j_ = np.unravel_index(int(np.argmax(np.abs(eQ))), eQ.shape)
    eM, VM = np.linalg.eigh(Msq)
    k_ms = int(np.argmax(eM[:, -1]))
    eA, VA = np.linalg.eigh(A)
    kF, jF = np.unravel_index(int(np.argmax(np.abs(eA))), eA.shape)
    k_lam = int(np.argmin(eA[:, 0]))
    witnesses = {"L": {"device": int(n_), "sample": int(i_), "vector": VQ[n_, i_][:, j_].copy()},
                 "L_ms": {"device": k_ms, "vector": VM[k_ms][:, -1].copy()},
                 "L_F": {"device": int(kF), "vector": VA[kF][:, jF].copy()},
                 "lam": {"device": k_lam, "vector": VA[k_lam][:, 0].copy()}}
    return DinhDeviceConstants(p=p, A=A, b=b, L=L, L_ms=L_ms, L_F=L_F, lam=lam, lam_n=lam_n,
                               notes={k: ASSUMPTIONS[k] for k in DEVICE_CONSTANTS}, witnesses=witnesses,
                               problem_ref=problem)


def _compute(problem: Problem, w0: np.ndarray | None = None) -> DinhConstants:
    """The constants (see :func:`compute`)."""
    dev = _device(problem)
    p, A, b = dev.p, dev.A, dev.b
    Abar, bbar, cbar = problem.datafit.mean_quadratic(p)
    eig_bar = np.linalg.eigvalsh(Abar)
    m = float(eig_bar.min())
    V_bar = np.linalg.eigh(Abar)[1]
    witnesses = {**dev.witnesses, "m": {"vector": V_bar[:, 0].copy()}}
    if m <= 0:
        raise InputError(f"the average Hessian is not positive definite (lambda_min = {m:.4g}): Fbar has no unique "
                         "minimiser, so w*, Fbar*, sigma_n and Delta are undefined; the per-device constants (L, "
                         "lambda) are fedproxvr_constants.device_constants")
    w_star = np.linalg.solve(Abar, bbar)
    F = lambda w: float(0.5 * w @ Abar @ w - bbar @ w + cbar)  # noqa: E731
    residual = np.linalg.norm(np.einsum("kde,e->kd", A, w_star) - b, axis=1)
    realisable = bool(np.all(residual <= 1e-9 * (1 + np.linalg.norm(b, axis=1))))
    if realisable:
        inv = np.linalg.inv(Abar)
        sigma = np.array([np.linalg.norm((An - Abar) @ inv, 2) for An in A])
        witnesses["sigma_bar_sq"] = {"directions": np.array([np.linalg.svd((An - Abar) @ inv)[2][0] for An in A])}
    else:
        sigma = np.full(len(p), np.inf)
    w0 = np.zeros(problem.dim) if w0 is None else np.asarray(w0, dtype=float)
    F_star = F(w_star)
    witnesses["Delta"] = {"w0": w0.copy()}
    return DinhConstants(p=p, A=A, b=b, Abar=Abar, bbar=bbar, L=dev.L, L_ms=dev.L_ms, L_F=dev.L_F, lam=dev.lam, m=m,
                         sigma=sigma, sigma_bar_sq=float(p @ sigma**2), w_star=w_star, F_star=F_star,
                         Delta=F(w0) - F_star, realisable=realisable, notes=dict(ASSUMPTIONS), witnesses=witnesses,
                         problem_ref=problem)
