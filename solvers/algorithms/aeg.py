"""Accelerated Extragradient (Kovalev, Beznosikov, Borodich, Gasnikov, Scutari 2022): the baseline of
Bylinkin et al. (§7.1 and §8), on the two-group problem h = f + g with server h_1 = f_1 + g_1.

Iteration k, with δ = δ_f + δ_g the similarity of h_1 to h:

    x̲_k     = τ x_k + (1 − τ) x̄_k
    x̄_{k+1} ≈ argmin ⟨∇(h − h_1)(x̲_k), x⟩ + ‖x − x̲_k‖²/(2θ) + h_1(x)       (1 round with M_f and with M_g)
    x_{k+1} = x_k + ηα(x̄_{k+1} − x_k) − η∇h(x̄_{k+1})                         (1 round with M_f and with M_g)

with θ = ``theta_scale``/δ, τ = √(μθ), η = min{1/(2μ), ½√(θ/μ)}, α = μ: SC-AccExtragradient with full oracles
(ξ = ∇(h − h_1), ζ = ∇h), the σ = 0 case of Theorem 5.  Rounds: 2 with **each** group per iteration, so both
counts are O(√((δ_f + δ_g)/μ) log 1/ε) (§7.1).
"""

from __future__ import annotations

from dataclasses import dataclass

from fedrates.solvers.algorithms.base import register
from fedrates.solvers.algorithms.sc_acc_extragradient import SCAccExtragradient

__all__ = ["AEG"]


@register
@dataclass(frozen=True, kw_only=True)
class AEG(SCAccExtragradient):
    """Accelerated Extragradient baseline (see module docstring)."""

    name = "aeg"
    summary = "Accelerated Extragradient (Kovalev et al. 2022): both groups every round (baseline of Bylinkin et al.)"
    full_oracles = True
