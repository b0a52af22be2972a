"""The assumption constants of a scalable family in closed form, with their certificates.

The dense route (:func:`fedrates.solvers.constants.compute`) forms every client Hessian Q_k; a family whose
instances are too large for that (10⁵ clients, say) declares a ``closed_form`` (:class:`~fedrates.solvers.problems.
_params.Family`) that gives the same constants of :data:`~fedrates.solvers.constants.DEFINITIONS` from its own
structure in O(K·d), each with the certificate its module computes (a witness that attains it, evaluated from the
instance's gradients, and a second route that bounds the other side). Constants the closed form does not give (the
suprema H over a ball, the pairwise δ) are None with a note saying why, never a guess.

Per-client arrays (L_k, μ_k, σ_k², Δ_i*) are listed for at most :data:`PER_CLIENT_LIMIT` clients; above that their
range is given in a note (a million-client list helps no reader, and the document is cached).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["ClosedForm", "ExactReference", "NO_TRUTH", "PER_CLIENT_LIMIT", "additive_noise", "assemble",
           "client_gradients_at", "heterogeneity", "mean_gradient", "similarity", "timed"]

#: per-client arrays of more clients than this are summarised by their range
PER_CLIENT_LIMIT = 10_000
#: the notes of the constants that need a ground truth w° (a problem without penalty has none)
NO_TRUTH = {name: "no ground truth w° for this problem" for name in ("Psi", "Psi_2r", "lam_opt")}


@dataclass(frozen=True)
class ExactReference:
    """A scalable family's optimum as a reference (``w``, ``value``, certified ``gap``, like
    :class:`fedrates.solvers.reference.Reference`): ``gradient_norm`` = ‖∇F(w)‖ and ``mu_lower`` ≤ μ_F (certified)
    give gap = ‖∇F(w)‖²/(2 mu_lower); ``method`` says how w was computed."""

    w: np.ndarray
    value: float
    gap: float
    method: str
    seconds: float = 0.0
    cached: bool = False
    warnings: tuple[str, ...] = ()
    gradient_norm: float = 0.0
    mu_lower: float = 0.0


@dataclass
class ClosedForm:
    """Constants of :data:`~fedrates.solvers.constants.DEFINITIONS` (name → number, list or None), the notes on
    those that are None, infinite or summarised, the certificates (name → :class:`~fedrates.solvers.certify.
    CertifiedConstant`) and ``method``: which closed form gave them."""

    values: dict[str, Any]
    notes: dict[str, str]
    certificates: dict[str, Any]
    method: str
    seconds: float = 0.0
    uncertified: dict[str, str] = field(default_factory=dict)


def _per_client(name: str, values: np.ndarray, notes: dict[str, str]) -> list[float] | None:
    values = np.asarray(values, dtype=float)
    if values.size <= PER_CLIENT_LIMIT:
        return values.tolist()
    notes[name] = (f"{values.size:,} clients: per-client values not listed; range [{values.min():.6g}, "
                   f"{values.max():.6g}]")
    return None


def assemble(method: str, scalars: Mapping[str, float | None], per_client: Mapping[str, np.ndarray],
             notes: Mapping[str, str], certificates: Mapping[str, Any],
             uncertified: Mapping[str, str] | None = None) -> ClosedForm:
    """A :class:`ClosedForm` from the family's numbers: ``scalars`` and ``per_client`` arrays keyed by the names of
    :data:`~fedrates.solvers.constants.DEFINITIONS`; every name given by neither is None with a note (the closed
    form does not compute it)."""
    from fedrates.solvers.constants import DEFINITIONS

    out_notes = dict(notes)
    values: dict[str, Any] = {}
    for name in DEFINITIONS:
        if name in per_client:
            values[name] = _per_client(name, per_client[name], out_notes)
        elif name in scalars:
            value = scalars[name]
            values[name] = None if value is None else float(value)
        else:
            values[name] = None
        if values[name] is None and name not in out_notes:
            out_notes[name] = f"not computed by the closed form of this family ({method})"
    return ClosedForm(values, out_notes, dict(certificates), method, uncertified=dict(uncertified or {}))


def timed(make: Callable[[], ClosedForm]) -> ClosedForm:
    """``make()`` with its wall time in ``seconds``."""
    started = time.perf_counter()
    out = make()
    out.seconds = time.perf_counter() - started
    return out


def similarity(lam: np.ndarray, weights: np.ndarray, chunk: int = 1 << 19) -> tuple[float, float]:
    """(δ, δ_mean) of client Hessians Q_k = V diag(λ_k) Vᵀ sharing one orthogonal V: Q_i − Q_j = V diag(λ_i − λ_j)
    Vᵀ, so δ = max_ij ‖Q_i − Q_j‖₂ = max_c (max_k λ_kc − min_k λ_kc) and δ_mean = max_k ‖Q_k − Q̄‖₂ = max_kc
    abs(λ_kc − λ̄_c) with λ̄ = Σ_k π_k λ_k; O(K·d), over chunks of clients (``lam`` (K, d))."""
    lbar = weights @ lam
    lo, hi, mean_gap = np.full(lam.shape[1], np.inf), np.full(lam.shape[1], -np.inf), 0.0
    step = max(1, chunk // lam.shape[1])
    for s in range(0, lam.shape[0], step):
        block = lam[s:s + step]
        lo, hi = np.minimum(lo, block.min(axis=0)), np.maximum(hi, block.max(axis=0))
        mean_gap = max(mean_gap, float(np.abs(block - lbar).max()))
    return float((hi - lo).max()), mean_gap


def additive_noise(noise_std: float, batch: int, weights: np.ndarray
                   ) -> tuple[dict[str, float], dict[str, np.ndarray], dict[str, str]]:
    """σ², σ̄², σ²_ref (scalars), σ_k² (per client) and the note of ``gaussian`` sampling: the oracle adds
    ζ ~ N(0, (σ²/(dB)) I) to the exact gradient, so E‖ζ‖² = σ²/B at every w and for every client."""
    noise = float(noise_std) ** 2 / batch
    scalars = {"sigma2": noise, "sigma_bar2": noise * float(weights @ weights), "sigma2_ref": noise}
    note = {"sigma2": f"additive Gaussian noise: E‖ζ‖² = σ²/B = {noise_std:g}²/{batch} at every w"}
    return scalars, {"sigma2_k": np.full(weights.shape[0], noise)}, note


def client_gradients_at(fit: Any, w: np.ndarray, clients: np.ndarray) -> np.ndarray:
    """∇f_k(w) of the clients ``clients`` at one point w (d,), from the datafit's own gradient routine
    (``gradients_at``: (R, m, d) points, (R, m) clients), (len(clients), d)."""
    return fit.gradients_at(np.broadcast_to(w, (1, len(clients), fit.dim)), np.asarray(clients)[None])[0]


def _client_blocks(fit: Any, chunk: int = 1 << 19) -> Any:
    step = max(1, chunk // fit.dim)
    for s in range(0, fit.clients, step):
        yield np.arange(s, min(s + step, fit.clients))


def mean_gradient(problem: Any, w: np.ndarray) -> np.ndarray:
    """∇F(w) = Σ_k π_k ∇f_k(w) summed from every client's gradient, over chunks of clients: O(K·d), and a route
    independent of the mean quadratic Q̄ (what the certificates of w* and of L_F, μ_F rest on)."""
    fit, p = problem.datafit, problem.weights
    out = np.zeros(fit.dim)
    for ks in _client_blocks(fit):
        out += p[ks] @ client_gradients_at(fit, w, ks)
    return out


def heterogeneity(problem: Any, w: np.ndarray) -> float:
    """Σ_k π_k ‖∇f_k(w)‖² from every client's gradient, over chunks of clients (ζ*² at w = w*)."""
    fit, p = problem.datafit, problem.weights
    total = 0.0
    for ks in _client_blocks(fit):
        G = client_gradients_at(fit, w, ks)
        total += float(p[ks] @ np.einsum("kd,kd->k", G, G))
    return total
