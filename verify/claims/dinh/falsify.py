"""Falsifier targets of Dinh et al.

* ``dinh.thm1.corrected`` (the proved average over rounds 0..T−1) and ``dinh.thm1`` (the printed 1..T) for
FedProxVR-SARAH — Dinh et al., "Federated Learning with Proximal Stochastic Variance Reduced Gradient Algorithms",
on the realisable finite-sum least squares of :mod:`fedrates.verify.claims.dinh.instances` (exact L, λ = 0⁺, σ̄²): the
average of ‖∇F̄(w̄^{(s)})‖² against Δ/(ΘT), with μ, β, τ placed relative to the claims' theory configuration
(μ relative to argmax Θ, β relative to β_min of (15), τ relative to τ_lower of (13)).

What a target is and how the search uses it: :mod:`fedrates.verify.falsify`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from fedrates.verify.falsify import Dim, Instance, Measured, Target
from fedrates.verify.falsify import point_command as _point_command

__all__ = ["TARGETS"]


# ---- Dinh et al., Theorem 1 ------------------------------------------------------------------------------------------
_DINH_SPACE = (
    Dim("clients", 2, 5, integer=True, doc="devices N"),
    Dim("dim", 1, 4, integer=True, doc="dimension d"),
    Dim("samples", 4, 12, integer=True, doc="samples per device D_n"),
    Dim("scale_spread", 1e-2, 1.0, doc="std of the log covariate scales per device (heterogeneity sigma_n)"),
    Dim("offset", 0.1, 10.0, doc="initial distance ||w0 - w*||"),
    Dim("theta", 0.15, 0.7, log=False, doc="local accuracy theta of (11)"),
    Dim("mu_factor", 0.3, 10.0, doc="mu / argmax_mu Theta"),
    Dim("beta_factor", 0.9, 2.0, doc="beta / beta_min of (15) (< 1 violates tau_lower <= tau_upper)"),
    Dim("tau_factor", 0.8, 2.0, doc="tau / tau_lower (< 1 violates (13))"),
    Dim("T", 1, 20, integer=True, doc="rounds"),
)


_DINH_SVRG_SPACE = (
    *_DINH_SPACE[:5],
    Dim("theta", 0.45, 0.7, log=False, doc="local accuracy theta of (11) (SVRG is infeasible below ~0.45 here)"),
    _DINH_SPACE[6],
    Dim("beta_factor", 0.95, 3.0, doc="beta / smallest SVRG-feasible beta (< 1: no tau satisfies (14))"),
    Dim("tau_pos", -0.2, 1.2, log=False,
        doc="tau = tau_lower + tau_pos (tau_max_SVRG - tau_lower), rounded up (outside [0, 1] violates (14))"),
    _DINH_SPACE[9],
)


def _dinh(theorem: str, algorithm: str, first: int) -> Any:
    """``first`` = 0: average over rounds 0..T-1 (proved); 1: rounds 1..T (printed).  For SVRG the conditions of
    Lemma 1(b) (dinh.lem1.svrg, with the smallest admissible a = a_min(tau)) must hold as well (catalogue note)."""
    svrg = algorithm == "fedproxvr_svrg"

    def build(x: Mapping[str, float]) -> Instance:
        from fedrates.bounds import fedproxvr as fb
        from fedrates.solvers import algorithms
        from fedrates.verify.claims.dinh import instances

        params = {"clients": int(x["clients"]), "samples": int(x["samples"]), "dim": int(x["dim"]),
                  "scale_spread": float(x["scale_spread"]), "seed": 0}
        problem, consts = instances.instance("dinh_ls", params)
        ref = instances._reference(consts)
        theta = float(x["theta"])
        mu = float(x["mu_factor"]) * instances.theory_config(consts, theta)["mu"]
        if svrg:
            b_min = fb.beta_min_svrg(consts.L, mu, consts.lam, theta)[0]
            if not math.isfinite(b_min):
                raise ValueError(f"no beta makes FedProxVR-SVRG feasible at mu={mu:.6g}, theta={theta:.3g} (14)")
            beta = float(x["beta_factor"]) * b_min
            lo = fb.tau_lower(beta, consts.L, mu, consts.lam, theta)
            tau = max(1, int(math.ceil(lo + float(x["tau_pos"]) * (fb.tau_max_svrg(beta) - lo))))
        else:
            beta = float(x["beta_factor"]) * fb.beta_min(consts.L, mu, consts.lam, theta)[0]
            tau = int(math.ceil(float(x["tau_factor"]) * fb.tau_lower(beta, consts.L, mu, consts.lam, theta)))
        T = int(x["T"])
        d = problem.dim
        u = np.where(np.arange(d) % 2 == 0, 1.0, -1.0) / math.sqrt(d)
        w0 = consts.w_star + float(x["offset"]) * u
        z0 = w0 - consts.w_star
        Delta = 0.5 * float(z0 @ consts.Abar @ z0)  # F(w0) - F* on realisable least squares (minimiser w*)
        values = instances._theta_values(consts, mu=mu, beta=beta, tau=tau, theta=theta, T=T, Delta=Delta)
        if svrg:
            values["a"] = fb.a_min(tau)  # the auxiliary constant of (14): its smallest admissible value
        hyper = {"mu": mu, "beta": float(beta), "tau": tau, "batch": 1}
        alg = algorithms.make(algorithm, **hyper)
        return Instance(problem, ref, alg, T, values, _point_command(theorem, x, algorithm), "dinh_ls", params,
                        extra={"w0": w0, "consts": consts, "ref": ref})

    def measure(instance: Instance, seeds: list[int]) -> Measured:
        from fedrates.verify.claims.dinh import _checks

        consts, T = instance.extra["consts"], instance.rounds
        trace, X = _checks._run_states(instance.algorithm, instance.problem, T, list(seeds), instance.extra["w0"],
                                    instance.extra["ref"])
        grad = X @ consts.Abar.T - consts.bbar  # grad F(w) = Abar w - bbar at every server iterate: (T + 1, S, d)
        samples = np.sum(grad * grad, axis=-1)[first:first + T].mean(axis=0)
        diverged = bool(np.any(trace.diverged)) or not np.all(np.isfinite(samples))
        # the bounded quantity is a gradient norm at the run's iterates: no reference optimum enters it
        return Measured(samples, slack=0.0, diverged=diverged)

    return Target(
        theorem=theorem, algorithm=algorithm, family="dinh_ls", space=_DINH_SVRG_SPACE if svrg else _DINH_SPACE,
        build=build, measure=measure, seeds=16, also_conditions=("dinh.lem1.svrg",) if svrg else (),
        metric="grad_norm_sq_avg" if first == 0 else "grad_norm_sq_avg_rounds_1_to_T",
        description=f"{algorithm} on realisable finite-sum least squares (exact L, lambda = 0+, sigma_bar^2), "
                    f"average of ||grad F(w^(s))||^2 over rounds {first}..{T_LABEL[first]}",
    )


T_LABEL = {0: "T-1", 1: "T"}

#: the targets of this paper, found by ``fedrates falsify`` through the paper's declaration
TARGETS: tuple[Target, ...] = (
    _dinh("dinh.thm1.corrected", "fedproxvr_sarah", 0),
    _dinh("dinh.thm1", "fedproxvr_sarah", 1),
    _dinh("dinh.thm1.corrected", "fedproxvr_svrg", 0),
)
