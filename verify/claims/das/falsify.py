"""Falsifier targets of Das et al.

* ``das.thm5`` (DP-FedAvg with clipping) and ``das.thm6`` (DP-NormFedAvg), any-η form — Das, Hashemi, Sanghavi,
Dhillon, "On the Convergence of Differentially Private Federated Learning on Non-Lipschitz Objectives, and with
Normalized Client Updates", Theorems 5/6 with γ = ηĈLEKρ and the q-free ρ = √d σ/(C√K) (the catalogue's ANY_ETA
note), on the federated quadratics of
:mod:`fedrates.verify.claims.das.instances`.  Measured: the per-client mixture of the
left side (weights 2 − 2a − 4a² resp. (2 − 4a²)Ĉ E/‖u‖ on unclipped clients, 3Ĉ‖u‖/(8LE) on clipped ones, a = ηLE)
averaged over rounds 0..K−1 (the uniform random output k̃).  The rhs is affine in the trajectory averages H_clip
(P_unc, H_norm), which are measured per seed; E[rhs] is the rhs at their expectations.

What a target is and how the search uses it: :mod:`fedrates.verify.falsify`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from fedrates.verify.falsify import TINY as _TINY
from fedrates.verify.falsify import Dim, Instance, Measured, Target
from fedrates.verify.falsify import point_command as _point_command

__all__ = ["TARGETS"]

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
        from fedrates.verify.claims.das import instances as das

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
        from fedrates.verify.claims.das import instances as das

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

    return Target(
        theorem=theorem, algorithm=algorithm, family="quadratic", space=_DAS_SPACE, build=build, measure=measure,
        metric="dp_clip_mixture" if kind == "clip" else "dp_norm_mixture",
        description=f"{algorithm} on federated quadratics, any-eta form (gamma = eta C-hat L E K rho), exact "
                    "local gradients, full participation; mixture lhs and trajectory symbols measured per seed",
    )

#: the targets of this paper, found by ``fedrates falsify`` through the paper's declaration
TARGETS: tuple[Target, ...] = (
    _das("das.thm5", "clip"),
    _das("das.thm6", "norm"),
)
