"""The horizon that Bao et al.'s linear speedup in K needs as K grows, and what a K-sweep to 10⁵ clients would cost.

``bao.thm2.1/speedup-K`` (the catalogue's one linear-speedup-in-K claim) checks E[gap] ∝ 1/K at one horizon T
that lies past the start of the σ̄²/(μT)-dominated regime of Theorem 2.1 for every K of its grid: on identical
clients σ̄² = σ²/K, so the noise term shrinks with K while the optimisation terms (μa³B/T³, …) do not, and the
regime starts later. This prints, for K from 2 to 10⁵:

* the start of that regime (:func:`fedrates.bounds.analysis.dominant_regimes` on the claim's own constants) and
  the horizon T the claim would run with a grid whose largest K is this one (``regime_margin`` × the start, at
  least 10a: ``_FastFedDAClaim.horizon``, as the claim's grid sets it; every K of the grid runs at that T),
* the client-steps one replica runs to reach T (K·T, E = 1) and the profile's replicas (``n_seeds``),
* the time at the engine's rate measured in this run on the largest built instance (Fast-FedDA, the claim's
  algorithm, every replica at once).

Constants come from the claim's instances, built for K ≤ ``--build-max`` (default 512) and checked there to be
independent of K except K itself (identical clients: L, μ, Λ, H, σ², B and a do not move); beyond that, the
built constants with K substituted.
Usage: ``python benchmarks/speedup_regime.py [--profile full] [--build-max 512]``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

#: the client counts printed (the claim's own grid, then up to the cross-device scale of the issue)
CLIENTS = (2, 4, 8, 16, 32, 128, 512, 2_048, 10_000, 100_000)


def main() -> None:
    from threadpoolctl import threadpool_limits

    from fedrates.solvers.algorithms import run_batch
    from fedrates.verify.claims import get
    from fedrates.verify.claims.bao import theorems as bt

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--profile", default="full", choices=("quick", "standard", "full"))
    parser.add_argument("--build-max", type=int, default=512, help="largest K whose instance is built (default 512)")
    args = parser.parse_args()
    claim = get("bao.thm2.1/speedup-K")
    replicas = claim.n_seeds[args.profile]
    with threadpool_limits(1):
        built: dict[int, dict] = {}
        for K in CLIENTS:
            if K > args.build_max:
                break
            problem, ref, consts, a = claim._setup(claim._params(K))
            built[K] = bt._fast_values(problem, ref, consts, T=1.0, E=claim.local_steps, a=a)
        first, last = min(built), max(built)
        moved = [k for k in built[first] if k != "K" and not np.isclose(built[first][k], built[last][k], rtol=1e-9)]
        if moved:
            raise SystemExit(f"constants {moved} change with K between K = {first} and {last}: substitution invalid")
        problem, ref, consts, a = claim._setup(claim._params(last))
        alg = bt._algorithm(claim, mu=consts.mu, a=a, local_steps=claim.local_steps, batch=1)
        rounds = 200
        start = time.perf_counter()
        run_batch(alg, problem, rounds, seeds=list(range(replicas)), record_every=rounds, reference=ref)
        rate = last * rounds * replicas / (time.perf_counter() - start)
    shown = ", ".join(f"{k} = {v:.4g}" for k, v in built[last].items() if k not in ("K", "T"))
    print(f"bao.thm2.1/speedup-K, profile {args.profile}: {replicas} replicas, E = {claim.local_steps}, regime margin "
          f"{claim.regime_margin:g}; constants {shown}")
    print(f"engine: {rate:,.0f} client-steps/s (Fast-FedDA, K = {last}, {replicas} replicas at once, 1 BLAS thread)")
    print(f"{'K':>8} {'regime start':>13} {'T':>12} {'client-steps':>14} {'time (all replicas)':>20}  constants")
    for K in CLIENTS:
        values = dict(built.get(K) or built[last], K=float(K))
        regime, _ = bt._noise_regime_start(values)
        T, _ = claim.horizon(values, claim.local_steps)
        steps = K * T * replicas
        seconds = steps / rate
        when = f"{seconds:,.0f} s" if seconds < 86_400 else f"{seconds / 86_400:,.1f} days"
        source = "built" if K in built else "substituted"
        print(f"{K:>8,} {regime:>13,.0f} {T:>12,} {steps:>14.3g} {when:>20}  {source}")


if __name__ == "__main__":
    main()
