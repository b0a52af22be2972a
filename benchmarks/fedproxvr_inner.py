"""Inner-loop throughput of FedProxVR (Dinh et al., ICPP 2020) against a per-client Python loop, in the same run.

Inner iterations per second = replicas × devices × τ per round / wall time.  The loop version runs Algorithm 1 one
replica and one device at a time (per-step minibatch gradients with numpy on one device's rows), the vectorized one is
``fedproxvr_sarah`` / ``fedproxvr_svrg`` simulating every replica and device at once; both draw from the same
streams.  Target: ≥ 15× (verification scale: 20 replicas × 8 devices, d = 8, D_n = 32, τ = 50, B = 1).
Usage: ``python benchmarks/fedproxvr_inner.py [--replicas 20] [--rounds 3]``.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from fedrates.solvers import algorithms, fedproxvr_constants, problems
from fedrates.solvers.oracles import make_streams
from fedrates.solvers.problems.finite_sum import finite_sum


def loop_rounds(problem, seeds, rounds, estimator, mu, beta, tau, batch, L):
    """Algorithm 1 with Python loops over replicas, devices and local steps."""
    fs = finite_sum(problem)
    eta, n = 1.0 / (beta * L), fs.samples
    out = []
    for seed in seeds:
        streams = make_streams(seed, problem.clients).clients
        x = np.zeros(problem.dim)
        for _ in range(rounds):
            locals_ = []
            for k in range(problem.clients):
                X, y = fs.X[k], fs.y[k]
                u = streams[k].random((tau - 1) * batch + 1)
                idx = np.minimum((u[:-1] * n).astype(int), n - 1).reshape(tau - 1, batch)
                pick = min(int(u[-1] * (tau + 1)), tau)
                v0 = X.T @ (X @ x - y) / n
                ws = [x, (x - eta * v0 + eta * mu * x) / (1 + eta * mu)]
                v = v0
                for t in range(1, tau):
                    Xb, yb = X[idx[t - 1]], y[idx[t - 1]]
                    g = Xb.T @ (Xb @ ws[t] - yb) / batch
                    if estimator == "sarah":
                        v = g - Xb.T @ (Xb @ ws[t - 1] - yb) / batch + v
                    else:
                        v = g - Xb.T @ (Xb @ x - yb) / batch + v0
                    ws.append((ws[t] - eta * v + eta * mu * x) / (1 + eta * mu))
                locals_.append(ws[pick])
            x = problem.weights @ np.array(locals_)
        out.append(x)
    return np.array(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicas", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    problem = problems.make("dinh_ls", clients=8, samples=32, dim=8, scale_spread=0.3)
    L = fedproxvr_constants.compute(problem).L
    hyper = {"mu": 20.0 * L, "beta": 10.0, "tau": 50, "batch": 1}
    seeds = list(range(args.replicas))
    steps = args.replicas * problem.clients * hyper["tau"] * args.rounds
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    for est in ("sarah", "svrg"):
        alg = algorithms.make(f"fedproxvr_{est}", L=L, **hyper)
        best_vec = best_loop = np.inf
        for _ in range(3):
            t = time.perf_counter()
            vec = algorithms.run_batch(alg, problem, args.rounds, seeds=seeds, record_every=args.rounds).w
            best_vec = min(best_vec, time.perf_counter() - t)
            t = time.perf_counter()
            loop = loop_rounds(problem, seeds, args.rounds, est, L=L, **hyper)
            best_loop = min(best_loop, time.perf_counter() - t)
        assert np.allclose(vec, loop, rtol=1e-10, atol=1e-12), "vectorized and loop runs differ"
        print(f"fedproxvr_{est}: vectorized {steps / best_vec:,.0f} inner iterations/s, loop "
              f"{steps / best_loop:,.0f}/s, speedup {best_loop / best_vec:.1f}x (target >= 15x)")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
