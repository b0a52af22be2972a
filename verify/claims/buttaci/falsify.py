"""Falsifier targets of Buttaci & Calafiore.

* ``buttaci.thm1`` (FedProx, γ = 1/(2E(L + α))) and ``buttaci.thm3`` (PFL(β), γ = 1/(2LE)) — Buttaci & Calafiore,
"Aiding Global Convergence in Federated Learning via Local Perturbation and Mutual Similarity Information", on the
similarity-graph least squares of :mod:`fedrates.verify.claims.buttaci.instances`: E f(w̄_{T,0}) − f★ against (7)/(8)
at t = T with the exact L, μ, Δ, S, Γ, σ and the a-posteriori G² (max over the visited gradient query points of
‖∇f_i‖² + σ², for PFL the perturbed points: the smallest G for which Assumption 3 holds on the run, so the
sharpest bound the theorem allows).

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
        from fedrates.verify.claims.buttaci.instances import _start

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
        from fedrates.verify.claims.buttaci.instances import _g2, _gap

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

    return Target(
        theorem=theorem, algorithm=algorithm, family="similar_quadratic", space=(*_BUTTACI_COMMON, *extra_dim),
        build=build, measure=measure,
        description=f"{algorithm} at the theorem's step size on similarity-graph least squares (Adjacency weights, "
                    "full participation, Gaussian gradient noise); G is the a-posteriori constant of the run",
    )

#: the targets of this paper, found by ``fedrates falsify`` through the paper's declaration
TARGETS: tuple[Target, ...] = (
    _buttaci("buttaci.thm1", "fedprox"),
    _buttaci("buttaci.thm3", "pfl"),
)
