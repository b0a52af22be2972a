"""Falsifier target of Bao et al. (``fedrates falsify bao.thm2.1.explicit``): Theorem 2.1's explicit bound for
Fast-FedDA searched over federated quadratics."""

from __future__ import annotations

import math
from collections.abc import Mapping

from fedrates.verify.falsify import TINY, Dim, Instance, Target, run_command

__all__ = ["TARGETS"]


def _bao_fast_fedda(x: Mapping[str, float]) -> Instance:
    """Bao et al. Theorem 2.1 (explicit constants of App. B.2) for Fast-FedDA on federated quadratics.

    Search box: μ (with L = 1), heterogeneity ``spread``, noise σ, radius ρ, ℓ1 weight λ, dimension, clients K, local
    steps E, weight shift a = a_factor·4L/μ (a_factor < 1 violates a ≥ 4L/μ: recorded, not counted) and horizon
    T = ⌈t_factor·a/E⌉·E ≥ a.  Constants are the instance's exact ones (as in ``bao.thm2.1.explicit/bound``).
    """
    from fedrates.solvers import algorithms, constants, problems, reference
    from fedrates.verify.claims.bao.theorems import _fast_values

    params = {"structure": "random", "clients": int(x["clients"]), "dim": int(x["dim"]), "mu": float(x["mu"]),
              "L": 1.0, "spread": float(x["spread"]), "sigma": float(x["sigma"]), "lam": float(x["lam"]),
              "radius": float(x["radius"]), "seed": 1}
    problem = problems.make("quadratic", None, **params)
    ref = reference.solve(problem)
    consts = constants.compute(problem, batch=1, reference_point=ref.w)
    E = int(x["E"])
    a = float(x["a_factor"]) * 4.0 * consts.L / consts.mu
    T = int(math.ceil(float(x["t_factor"]) * a / E)) * E
    hyper = {"mu": float(consts.mu), "a": a, "local_steps": E, "batch": 1}
    alg = algorithms.make("fast_fedda", **hyper)
    # a constant that is exactly 0 (H for one client, B when the optimum is w0 = 0) is evaluated in the limit 0+
    # (the rhs is continuous there; the catalogue's symbols are positive), as the claims do for H
    values = {k: max(v, TINY) for k, v in _fast_values(problem, ref, consts, T=float(T), E=E, a=a).items()}
    return Instance(problem, ref, alg, T // E, values, run_command("fast_fedda", "quadratic", params, hyper, T // E),
                    "quadratic", params)


TARGETS: tuple[Target, ...] = (Target(
    theorem="bao.thm2.1.explicit", algorithm="fast_fedda", family="quadratic",
    space=(
        Dim("mu", 0.05, 1.0, doc="strong convexity (L = 1)"),
        Dim("spread", 1e-3, 3.0, doc="std of the client optima (heterogeneity H)"),
        Dim("sigma", 1e-2, 10.0, doc="gradient noise level"),
        Dim("radius", 0.5, 20.0, doc="radius of the ball domain"),
        Dim("lam", 1e-4, 0.3, doc="l1 weight"),
        Dim("dim", 1, 10, integer=True, doc="dimension"),
        Dim("clients", 1, 8, integer=True, doc="clients K"),
        Dim("E", 1, 16, integer=True, doc="local steps"),
        Dim("a_factor", 0.5, 4.0, doc="a / (4L/mu)"),
        Dim("t_factor", 1.0, 6.0, doc="T / a"),
    ),
    build=_bao_fast_fedda,
    description="Fast-FedDA on federated quadratics (population-exact constants, Gaussian gradient noise)",
),)
