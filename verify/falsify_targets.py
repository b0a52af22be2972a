"""Search targets of :func:`fedrates.verify.falsify.falsify` for the theorems of Das et al., Buttaci & Calafiore and
Dinh et al. (the Bao et al. target lives in :mod:`fedrates.verify.falsify`).

Every target reuses the instance builders and exact constants of the paper's claims module (nothing is recomputed
here): a point of the search box is mapped to an instance of the claims' problem family, the theorem's own step size
or parameterisation, the theorem's symbol values on the instance's exact constants (conditions are evaluated on these
by the search), and a measurement from real runs of the algorithm:

* ``das.thm5`` (DP-FedAvg with clipping) and ``das.thm6`` (DP-NormFedAvg), any-η form — Das, Hashemi, Sanghavi,
  Dhillon, "On the Convergence of Differentially Private Federated Learning on Non-Lipschitz Objectives, and with
  Normalized Client Updates", Theorems 5/6 with γ = ηĈLEKρ and the q-free ρ = √d σ/(C√K) (the catalogue's ANY_ETA
  note), on the federated quadratics of
  :mod:`fedrates.verify.claims.das.theorems`.  Measured: the per-client mixture of the
  left side (weights 2 − 2a − 4a² resp. (2 − 4a²)Ĉ E/‖u‖ on unclipped clients, 3Ĉ‖u‖/(8LE) on clipped ones, a = ηLE)
  averaged over rounds 0..K−1 (the uniform random output k̃).  The rhs is affine in the trajectory averages H_clip
  (P_unc, H_norm), which are measured per seed; E[rhs] is the rhs at their expectations.
* ``buttaci.thm1`` (FedProx, γ = 1/(2E(L + α))) and ``buttaci.thm3`` (PFL(β), γ = 1/(2LE)) — Buttaci & Calafiore,
  "Aiding Global Convergence in Federated Learning via Local Perturbation and Mutual Similarity Information", on the
  similarity-graph least squares of :mod:`fedrates.verify.claims.buttaci.instances`: E f(w̄_{T,0}) − f★ against (7)/(8)
  at t = T with the exact L, μ, Δ, S, Γ, σ and the a-posteriori G² (max over the visited gradient query points of
  ‖∇f_i‖² + σ², for PFL the perturbed points: the smallest G for which Assumption 3 holds on the run, so the
  sharpest bound the theorem allows).
* ``dinh.thm1.corrected`` (the proved average over rounds 0..T−1) and ``dinh.thm1`` (the printed 1..T) for
  FedProxVR-SARAH — Dinh et al., "Federated Learning with Proximal Stochastic Variance Reduced Gradient Algorithms",
  on the realisable finite-sum least squares of :mod:`fedrates.verify.claims.dinh.theorems` (exact L, λ = 0⁺, σ̄²): the
  average of ‖∇F̄(w̄^{(s)})‖² against Δ/(ΘT), with μ, β, τ placed relative to the claims' theory configuration
  (μ relative to argmax Θ, β relative to β_min of (15), τ relative to τ_lower of (13)).

Each instance's ``run_command`` is ``fedrates falsify THEOREM --point JSON --seeds ...``: it rebuilds the same
instance and reruns the same seeds (the start point w0 ≠ 0 of these targets is not expressible with ``fedrates run``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from fedrates.verify.falsify import Dim, Instance, Measured, Target, register

__all__: list[str] = []

_TINY = float(np.finfo(float).tiny)


def _point_command(theorem: str, x: Mapping[str, float], algorithm: str) -> str:
    point = json.dumps({k: float(v) for k, v in x.items()}, sort_keys=True, separators=(",", ":"))
    return f"fedrates falsify {theorem} --algorithm {algorithm} --point '{point}'"


# ---- Das et al., Theorems 5 and 6 (any eta) -------------------------------------------------------------------------
_DAS_SPACE = (
    Dim("clients", 2, 12, integer=True, doc="clients n (full participation r = n)"),
    Dim("dim", 1, 10, integer=True, doc="dimension d"),
    Dim("mu", 0.02, 1.0, doc="smallest eigenvalue of the client Hessians (largest L = 1)"),
    Dim("spread", 1e-3, 1.0, doc="std of the client centres (heterogeneity Delta_i*)"),
    Dim("offset", 0.1, 30.0, doc="initial distance R = ||w0 - w*||"),
    Dim("E", 1, 16, integer=True, doc="local steps"),
    Dim("K", 1, 400, integer=True, doc="rounds"),
    Dim("two_eta_L", 1e-3, 1.5, doc="2 eta L (> 1 violates K > 2 gamma/(C-hat E rho), i.e. eta L < 1/2)"),
    Dim("chat_factor", 0.5, 30.0, doc="C-hat / (4 sqrt(L max Delta*)) (< 1 violates the C-hat condition)"),
    Dim("sigma", 1e-3, 10.0, doc="std of the server-averaged privacy noise"),
)


def _das(theorem: str, kind: str) -> Any:
    algorithm = "dp_fedavg_clip" if kind == "clip" else "dp_normfedavg"

    def build(x: Mapping[str, float]) -> Instance:
        from fedrates.solvers import algorithms
        from fedrates.verify.claims.das import theorems as das

        params = {"structure": "random", "clients": int(x["clients"]), "dim": int(x["dim"]), "mu": float(x["mu"]),
                  "L": 1.0, "spread": float(x["spread"]), "seed": 3}
        inst = das.instance(params)
        E, K, sigma = int(x["E"]), int(x["K"]), float(x["sigma"])
        eta = float(x["two_eta_L"]) / (2.0 * inst.L)
        Dmax = float(inst.Delta.max())
        Chat = float(x["chat_factor"]) * 4.0 * math.sqrt(inst.L * Dmax)
        C = Chat * E
        rho = math.sqrt(inst.d) * sigma / (C * math.sqrt(K))  # q-free rho (catalogue note Q_CONST)
        w0 = das._start(inst, float(x["offset"]))
        R = float(np.linalg.norm(w0 - inst.w_star))
        values = {"L": inst.L, "E": E, "K": K, "Chat": Chat, "rho": rho, "gamma": eta * Chat * inst.L * E * K * rho,
                  "R": R, "Dmax": max(Dmax, _TINY), "n": inst.n, "r": inst.n}
        hyper = {"step": eta, "server_step": eta, "clip": C, "sigma": sigma, "local_steps": E, "output_point": "last"}
        alg = algorithms.make(algorithm, **hyper)
        return Instance(inst.problem, inst.reference, alg, K, values, _point_command(theorem, x, algorithm),
                        "quadratic", params, extra={"inst": inst, "w0": w0, "eta": eta, "E": E, "C": C, "K": K})

    def measure(instance: Instance, seeds: list[int]) -> Measured:
        from fedrates.verify.claims.das import theorems as das

        ex = instance.extra
        inst, eta, E, C, K = ex["inst"], ex["eta"], ex["E"], ex["C"], ex["K"]
        run = das.trajectory(instance.algorithm, inst, K, list(seeds), ex["w0"])
        X = run["X"][:, :-1]  # w_0 .. w_{K-1}: the random output k~ is uniform on these
        nrm = np.linalg.norm(das.updates(inst, das.update_matrices(inst, eta, E), X), axis=-1)  # (S, K, n)
        gap_i = inst.client_values(X) - inst.Delta  # f_i(w) - f_i(w*)
        a = eta * inst.L * E
        unc = nrm <= C
        clipped = 3.0 * (C / E) * nrm / (8.0 * inst.L * E)
        if kind == "clip":
            mix = np.where(unc, (2 - 2 * a - 4 * a**2) * gap_i, clipped)
            symbols = {"H_clip": np.mean(unc * inst.Delta, axis=(1, 2))}
        else:
            z = C / np.maximum(nrm, 1e-300)
            mix = np.where(unc, (2 - 4 * a**2) * z * gap_i, clipped)
            symbols = {"P_unc": np.mean(unc, axis=(1, 2)), "H_norm": np.mean(unc * z * inst.Delta, axis=(1, 2))}
        diverged = bool(np.any(run["diverged"])) or not np.all(np.isfinite(mix))
        # unclipped clients weigh f_i(w) - f_i(w*) by at most 2: the reference's certified gap enters at most twice
        return Measured(mix.mean(axis=(1, 2)), symbols, slack=2.0 * inst.reference_gap, diverged=diverged)

    return register(Target(
        theorem=theorem, algorithm=algorithm, family="quadratic", space=_DAS_SPACE, build=build, measure=measure,
        metric="dp_clip_mixture" if kind == "clip" else "dp_norm_mixture",
        description=f"{algorithm} on federated quadratics, any-eta form (gamma = eta C-hat L E K rho), exact "
                    "local gradients, full participation; mixture lhs and trajectory symbols measured per seed",
    ))


_das("das.thm5", "clip")
_das("das.thm6", "norm")


# ---- Buttaci & Calafiore, Theorems 1 and 3 --------------------------------------------------------------------------
_BUTTACI_COMMON = (
    Dim("clients", 2, 8, integer=True, doc="clients C"),
    Dim("dim", 1, 5, integer=True, doc="dimension d"),
    Dim("mu", 0.01, 1.0, doc="smallest eigenvalue of every client Hessian (L = 1)"),
    Dim("angle", 0.0, 45.0, log=False, doc="rotation of a client's top eigenvector within its cluster (degrees)"),
    Dim("spread", 1e-2, 5.0, doc="std of the cluster optima"),
    Dim("within", 1e-3, 1.0, doc="std of the client optima around their cluster optimum"),
    Dim("sigma", 1e-3, 3.0, doc="stochastic-gradient noise level sigma"),
    Dim("scale", 0.1, 20.0, doc="initial distance ||w0 - w*||"),
    Dim("E", 1, 12, integer=True, doc="local steps"),
    Dim("T", 1, 120, integer=True, doc="rounds t = T"),
)
#: replicas per instrumented run (bounds the memory of the recorded query points)
_CHUNK = 32


def _buttaci(theorem: str, algorithm: str) -> Any:
    extra_dim = (Dim("alpha_over_L", 1e-3, 10.0, doc="FedProx proximal parameter alpha / L"),) \
        if algorithm == "fedprox" else (Dim("beta", 0.02, 0.98, log=False, doc="PFL perturbation parameter"),)

    def build(x: Mapping[str, float]) -> Instance:
        from fedrates.solvers import algorithms
        from fedrates.verify.claims.buttaci import instances as runs
        from fedrates.verify.claims.buttaci.exact import _start

        dim = int(x["dim"])
        params = {"hessian": "clustered", "clients": int(x["clients"]), "dim": dim, "samples": max(8, dim),
                  "clusters": 2, "mu": float(x["mu"]), "L": 1.0, "angle": float(x["angle"]),
                  "spread": float(x["spread"]), "within": float(x["within"]), "sigma": float(x["sigma"]), "seed": 0}
        problem, ref, consts = runs.instance(params)
        E, T, L = int(x["E"]), int(x["T"]), consts["L"]
        w0 = _start(problem, consts, scale=float(x["scale"]))
        values = {"L": L, "mu": consts["mu"], "Delta": float(problem.smooth_value(w0)) - consts["f_star"],
                  "S": consts["S"], "sigma": max(math.sqrt(consts["sigma2"]), _TINY),
                  "Gamma": max(consts["Gamma"], _TINY), "E": E, "t": float(T)}
        if algorithm == "fedprox":
            alpha = float(x["alpha_over_L"]) * L
            hyper = {"step": 1.0 / (2 * E * (L + alpha)), "mu_prox": alpha, "local_steps": E}
            values["alpha"] = alpha
        else:
            hyper = {"step": 1.0 / (2 * L * E), "beta": float(x["beta"]), "local_steps": E}
            values["beta"] = float(x["beta"])
        alg = algorithms.make(algorithm, **hyper)
        return Instance(problem, ref, alg, T, values, _point_command(theorem, x, algorithm), "similar_quadratic",
                        params, extra={"w0": w0, "consts": consts})

    def measure(instance: Instance, seeds: list[int]) -> Measured:
        from fedrates.verify.claims.buttaci import instances as runs
        from fedrates.verify.claims.buttaci.exact import _g2, _gap

        consts, problem = instance.extra["consts"], instance.problem
        gaps, g2, finite = [], 0.0, True
        for i in range(0, len(seeds), _CHUNK):
            run = runs.instrumented_run(instance.algorithm, problem, instance.rounds, list(seeds[i:i + _CHUNK]),
                                        instance.extra["w0"], exact=False)
            finite = finite and run.finite
            if not run.finite:
                gaps.append(np.full(len(seeds[i:i + _CHUNK]), np.inf))
                continue
            gaps.append(_gap(problem, consts, run.x[-1]))
            g2 = max(g2, _g2(problem, run))  # a-posteriori G^2 at the visited (for PFL: perturbed) points
        G = math.sqrt(g2) if finite else math.inf
        return Measured(np.concatenate(gaps), values={"G": G}, slack=consts["reference_gap"], diverged=not finite)

    return register(Target(
        theorem=theorem, algorithm=algorithm, family="similar_quadratic", space=(*_BUTTACI_COMMON, *extra_dim),
        build=build, measure=measure,
        description=f"{algorithm} at the theorem's step size on similarity-graph least squares (Adjacency weights, "
                    "full participation, Gaussian gradient noise); G is the a-posteriori constant of the run",
    ))


_buttaci("buttaci.thm1", "fedprox")
_buttaci("buttaci.thm3", "pfl")


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
        from fedrates.verify.claims.dinh import theorems as dinh

        params = {"clients": int(x["clients"]), "samples": int(x["samples"]), "dim": int(x["dim"]),
                  "scale_spread": float(x["scale_spread"]), "seed": 0}
        problem, consts = dinh.instance("dinh_ls", params)
        ref = dinh._reference(consts)
        theta = float(x["theta"])
        mu = float(x["mu_factor"]) * dinh.theory_config(consts, theta)["mu"]
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
        values = dinh._theta_values(consts, mu=mu, beta=beta, tau=tau, theta=theta, T=T, Delta=Delta)
        if svrg:
            values["a"] = fb.a_min(tau)  # the auxiliary constant of (14): its smallest admissible value
        hyper = {"mu": mu, "beta": float(beta), "tau": tau, "batch": 1}
        alg = algorithms.make(algorithm, **hyper)
        return Instance(problem, ref, alg, T, values, _point_command(theorem, x, algorithm), "dinh_ls", params,
                        extra={"w0": w0, "consts": consts, "ref": ref})

    def measure(instance: Instance, seeds: list[int]) -> Measured:
        from fedrates.verify.claims.dinh import theorems as dinh

        consts, T = instance.extra["consts"], instance.rounds
        trace, X = dinh._run_states(instance.algorithm, instance.problem, T, list(seeds), instance.extra["w0"],
                                    instance.extra["ref"])
        grad = X @ consts.Abar.T - consts.bbar  # grad F(w) = Abar w - bbar at every server iterate: (T + 1, S, d)
        samples = np.sum(grad * grad, axis=-1)[first:first + T].mean(axis=0)
        diverged = bool(np.any(trace.diverged)) or not np.all(np.isfinite(samples))
        # the bounded quantity is a gradient norm at the run's iterates: no reference optimum enters it
        return Measured(samples, slack=0.0, diverged=diverged)

    return register(Target(
        theorem=theorem, algorithm=algorithm, family="dinh_ls", space=_DINH_SVRG_SPACE if svrg else _DINH_SPACE,
        build=build, measure=measure, seeds=16, also_conditions=("dinh.lem1.svrg",) if svrg else (),
        metric="grad_norm_sq_avg" if first == 0 else "grad_norm_sq_avg_rounds_1_to_T",
        description=f"{algorithm} on realisable finite-sum least squares (exact L, lambda = 0+, sigma_bar^2), "
                    f"average of ||grad F(w^(s))||^2 over rounds {first}..{T_LABEL[first]}",
    ))


T_LABEL = {0: "T-1", 1: "T"}

_dinh("dinh.thm1.corrected", "fedproxvr_sarah", 0)
_dinh("dinh.thm1", "fedproxvr_sarah", 1)
_dinh("dinh.thm1.corrected", "fedproxvr_svrg", 0)
