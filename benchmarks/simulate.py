"""Simulation throughput of the federated engine against baselines measured in the same run.

Client-steps per second = replicas × participating clients × local steps / wall time.  Measurements:

1. verification scale — lasso (dim 64, 16 clients, 64 samples), batch 10, 20 seeds simulated together, against a
   per-client Python loop over seeds and clients; target ≥ 50×;
2. paper scale — ``bao-lasso`` (dim 1024, 64 clients, 128 samples), batch 10, one seed, against two memory-read
   bounds measured in the same run: the rate of compiled loops that only *read* what a step must read (B randomly
   sampled rows and the client's iterate, (B + 1)·d float64) and nothing else, once (single pass) or twice — first
   from memory, then from cache, as the minibatch gradient's residuals and update need (two passes); both ratios
   are printed, the target is ≥ 80% of the two-pass bound.  The numpy backend (``FEDRATES_KERNELS=numpy``) is timed
   beside the numba kernels;
3. the Bao et al. Figure 1 setting (bao-lasso, 10 of 64 clients per round, 10 local steps, batch 10, metrics every
   round) for every registered algorithm among fedmid, fedda, fast_fedda, c_fedda, mc_fedda; target ≤ 15 s in
   total for 2000 rounds (``--rounds-fig1 N`` scales the total to 2000 rounds linearly and says so);
4. kernel start-up: the first kernel call in a fresh process (compiled code loaded from the on-disk cache).

FedAvg needs a smooth problem: the lasso is used with λ = 0 for FedAvg (and as is for Fast-FedDA, with the
paper's μ = 0.1 since the local losses are not strongly convex).  Timings are the best of several repeats; the load
average is printed before and after: on a shared machine only the ratios against baselines measured in the same run
are meaningful.
Usage: ``python benchmarks/simulate.py [--rounds-fig1 2000] [--skip-fig1] [--paper-scale-only]``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

import numpy as np

from fedrates.solvers import algorithms, kernels, problems
from fedrates.solvers.oracles import make_streams

FIG1 = ("fedmid", "fedda", "fast_fedda", "c_fedda", "mc_fedda")
#: hyperparameters of the Figure 1 runs (Bao et al. §4: η_c = 1e-3 for FedMiD/FedDA, μ = 0.1 for their methods)
FIG1_HYPER = {"fedmid": {"step": 1e-3}, "fedda": {"step": 1e-3}, "fast_fedda": {"mu": 0.1}, "c_fedda": {"mu": 0.1},
              "mc_fedda": {"mu": 0.1}}


def loop_fedavg(problem, seeds, rounds, local_steps, batch, step):
    """Straightforward FedAvg: Python loops over seeds, clients and local steps (full participation)."""
    X, y = problem.datafit.X, problem.datafit.y
    K, n, _ = X.shape
    out = []
    for seed in seeds:
        gens = make_streams(seed, K).clients
        x = np.zeros(problem.dim)
        for _ in range(rounds):
            acc = np.zeros_like(x)
            for k in range(K):
                w = x.copy()
                for _ in range(local_steps):
                    idx = gens[k].choice(n, batch, replace=False)
                    Xb = X[k, idx]
                    w -= step * (Xb.T @ (Xb @ w - y[k, idx])) / batch
                acc += problem.weights[k] * w
            x = acc
        out.append(x)
    return np.array(out)


def loop_fast_fedda(problem, seeds, rounds, local_steps, batch, mu):
    """Straightforward Fast-FedDA (Bao et al. Alg. 1 as in solvers.algorithms.fast_fedda, w0 = 0, full
    participation): Python loops over seeds, local steps and clients, one client vector at a time."""
    from fedrates.solvers.algorithms.fast_fedda import resolve_weights

    mu, a, gamma = resolve_weights("fast_fedda", problem, mu, 0.0, 0.0)
    X, y, pi = problem.datafit.X, problem.datafit.y, problem.weights
    K, n, _ = X.shape

    def prox(z, A):
        c = mu * A / 2 + gamma
        return problem.prox(-z / c, A / c)

    out = []
    for seed in seeds:
        gens = make_streams(seed, K).clients
        w, g, wt, num = (np.zeros(problem.dim) for _ in range(4))
        A, t = 0.0, 0
        for _ in range(rounds):
            G, WT, W = [g.copy() for _ in range(K)], [wt.copy() for _ in range(K)], [w.copy() for _ in range(K)]
            for e in range(local_steps):
                alpha = (t + a) ** 2
                A += alpha
                for k in range(K):
                    idx = gens[k].choice(n, batch, replace=False)
                    Xb = X[k, idx]
                    G[k] += alpha * (Xb.T @ (Xb @ W[k] - y[k, idx])) / batch
                gbar = sum(pi[k] * G[k] for k in range(K))
                wtbar = sum(pi[k] * WT[k] for k in range(K))
                server = prox(gbar - 0.5 * mu * wtbar, A)
                num += alpha * server
                if e < local_steps - 1:
                    for k in range(K):
                        W[k] = prox(G[k] - 0.5 * mu * WT[k], A)
                        WT[k] = WT[k] + (t + 1 + a) ** 2 * W[k]
                t += 1
            w, g, wt = server, gbar, wtbar + (t + a) ** 2 * server
        out.append(num / A)
    return np.array(out)


def best_of(repeats, fn, *args, **kwargs) -> float:
    """Smallest wall time of ``repeats`` calls (robust to other load on the machine)."""
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn(*args, **kwargs)
        times.append(time.perf_counter() - t0)
    return min(times)


def engine(name, problem, seeds, rounds, local_steps, batch, participating=None, repeats=3, record_every=None,
           **hyper):
    ref = _zero_reference(problem)
    return best_of(repeats, algorithms.run_batch, name, problem, rounds, seeds=seeds, local_steps=local_steps,
                   batch=batch, participating=participating, record_every=record_every or rounds, reference=ref,
                   **hyper)


def _zero_reference(problem):
    """A stand-in reference (ŵ = 0) so that timings exclude the certified solve."""
    class Ref:
        w = problem.zeros()
        value = float(problem.objective(problem.zeros()))
    return Ref


def bandwidth() -> float:
    """Measured streaming read bandwidth (bytes/s) of a 256 MB sum."""
    a = np.ones(1 << 25)
    a.sum()
    t0 = time.perf_counter()
    for _ in range(5):
        a.sum()
    return 5 * a.nbytes / (time.perf_counter() - t0)


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def verification_scale() -> None:
    seeds, E, B = list(range(20)), 10, 10
    for name in ("fedavg", "fast_fedda"):
        if name not in algorithms.names():
            print(f"verification scale: {name} not registered, skipped")
            continue
        lam = {} if name == "fast_fedda" else {"lam": 0.0}
        p = problems.make("lasso", dim=64, clients=16, samples=64, sparsity=8, **lam)
        loop_rounds, rounds = 3, 60
        if name == "fedavg":
            hyper, loop = {"step": 1e-3}, (loop_fedavg, 1e-3)
        else:
            hyper, loop = {"mu": 0.1}, (loop_fast_fedda, 0.1)
        engine(name, p, seeds, 2, E, B, repeats=1, **hyper)  # kernels loaded, constants cached
        loop_rate = rate = 0.0
        for _ in range(3):  # alternately, so that both see the same load; best of each
            loop_rate = max(loop_rate, len(seeds) * p.clients * E * loop_rounds / best_of(
                1, loop[0], p, seeds, loop_rounds, E, B, loop[1]))
            rate = max(rate, len(seeds) * p.clients * E * rounds / engine(name, p, seeds, rounds, E, B, repeats=1,
                                                                          **hyper))
        print(f"verification scale {name} (dim 64, 16 clients, batch 10, 20 seeds): loop {loop_rate:,.0f} "
              f"client-steps/s, engine {rate:,.0f} client-steps/s, ratio {rate / loop_rate:.1f}x (target >= 50x: "
              f"{'met' if rate / loop_rate >= 50 else 'NOT met'})")


def engine_rows(problem, batch: int, local_steps: int, rounds: int) -> np.ndarray:
    """The minibatch rows a run of ``rounds`` rounds reads (full participation, seed 0), as the engine draws them:
    (rounds·E, K, B) row indices of the stacked sample matrix."""
    from fedrates.solvers.oracles import GradientOracle

    K = problem.clients
    oracle = GradientOracle(problem, [make_streams(0, K).clients], batch)
    clients = np.broadcast_to(np.arange(K), (1, K))
    out = []
    for _ in range(rounds):
        oracle.begin_round(clients, local_steps)
        out.append(oracle.take_rows(local_steps)[:, 0])
    return np.concatenate(out)


def read_bound(problem, batch: int, local_steps: int, rounds: int = 4):
    """A timer of compiled loops that only *read* what the engine's local steps read — the same sampled rows in the
    same order (client by client, its E steps in a row) and the client's iterate, (B + 1)·d float64 per step — and
    compute nothing else: the memory-read bounds of a step.

    * single pass: every sampled row read once; three read orders (one row at a time, four and eight rows at once:
      more loads in flight, as the gradient kernel does), the fastest is the bound;
    * two passes: the rows read once from memory (one sum per row, as the residuals x_iᵀw − y_i) and once more from
      cache, scaled by those sums (as the update Σ_i r_i x_i): what a minibatch gradient must read; one and four
      rows at a time, the fastest is the bound (the roofline of the issue's target).

    Returns a function that measures once and returns (single-pass, two-pass) client steps per second."""
    from numba import njit

    @njit(fastmath=True)
    def one_row(X, W, rows, rounds_per):
        s = 0.0
        S, P, B = rows.shape
        E = S // rounds_per
        for r in range(rounds_per):
            for p in range(P):
                w = W[p]
                for e in range(E):
                    for j in range(w.shape[0]):
                        s += w[j]
                    for i in range(B):
                        x = X[rows[r * E + e, p, i]]
                        for j in range(x.shape[0]):
                            s += x[j]
        return s

    @njit(fastmath=True)
    def four_rows(X, W, rows, rounds_per):
        s = 0.0
        S, P, B = rows.shape
        E = S // rounds_per
        for r in range(rounds_per):
            for p in range(P):
                w = W[p]
                for e in range(E):
                    rr = rows[r * E + e, p]
                    for j in range(w.shape[0]):
                        s += w[j]
                    i = 0
                    while i + 3 < B:
                        x0, x1, x2, x3 = X[rr[i]], X[rr[i + 1]], X[rr[i + 2]], X[rr[i + 3]]
                        for j in range(x0.shape[0]):
                            s += x0[j] + x1[j] + x2[j] + x3[j]
                        i += 4
                    while i < B:
                        x = X[rr[i]]
                        for j in range(x.shape[0]):
                            s += x[j]
                        i += 1
        return s

    @njit(fastmath=True)
    def eight_rows(X, W, rows, rounds_per):
        s = 0.0
        S, P, B = rows.shape
        E = S // rounds_per
        for r in range(rounds_per):
            for p in range(P):
                w = W[p]
                for e in range(E):
                    rr = rows[r * E + e, p]
                    for j in range(w.shape[0]):
                        s += w[j]
                    i = 0
                    while i + 7 < B:
                        x0, x1, x2, x3 = X[rr[i]], X[rr[i + 1]], X[rr[i + 2]], X[rr[i + 3]]
                        x4, x5, x6, x7 = X[rr[i + 4]], X[rr[i + 5]], X[rr[i + 6]], X[rr[i + 7]]
                        for j in range(x0.shape[0]):
                            s += ((x0[j] + x1[j]) + (x2[j] + x3[j])) + ((x4[j] + x5[j]) + (x6[j] + x7[j]))
                        i += 8
                    while i < B:
                        x = X[rr[i]]
                        for j in range(x.shape[0]):
                            s += x[j]
                        i += 1
        return s

    @njit(fastmath=True)
    def two_pass_one_row(X, W, rows, rounds_per):
        # per step: pass 1 reads the B rows (from memory) and the iterate, one sum per row (the residuals); pass 2
        # reads the same rows again (from cache), scaled by pass 1's sums (the update): a dependency, not fusable
        s = 0.0
        S, P, B = rows.shape
        E = S // rounds_per
        res = np.empty(B)
        for r in range(rounds_per):
            for p in range(P):
                w = W[p]
                for e in range(E):
                    rr = rows[r * E + e, p]
                    for j in range(w.shape[0]):
                        s += w[j]
                    for i in range(B):
                        x = X[rr[i]]
                        t = 0.0
                        for j in range(x.shape[0]):
                            t += x[j]
                        res[i] = t
                    for i in range(B):
                        x = X[rr[i]]
                        c = res[i]
                        for j in range(x.shape[0]):
                            s += c * x[j]
        return s

    @njit(fastmath=True)
    def two_pass_four_rows(X, W, rows, rounds_per):
        s = 0.0
        S, P, B = rows.shape
        E = S // rounds_per
        res = np.empty(B)
        for r in range(rounds_per):
            for p in range(P):
                w = W[p]
                for e in range(E):
                    rr = rows[r * E + e, p]
                    for j in range(w.shape[0]):
                        s += w[j]
                    i = 0
                    while i + 3 < B:
                        x0, x1, x2, x3 = X[rr[i]], X[rr[i + 1]], X[rr[i + 2]], X[rr[i + 3]]
                        t0 = t1 = t2 = t3 = 0.0
                        for j in range(x0.shape[0]):
                            t0 += x0[j]
                            t1 += x1[j]
                            t2 += x2[j]
                            t3 += x3[j]
                        res[i], res[i + 1], res[i + 2], res[i + 3] = t0, t1, t2, t3
                        i += 4
                    while i < B:
                        x = X[rr[i]]
                        t = 0.0
                        for j in range(x.shape[0]):
                            t += x[j]
                        res[i] = t
                        i += 1
                    i = 0
                    while i + 3 < B:
                        x0, x1, x2, x3 = X[rr[i]], X[rr[i + 1]], X[rr[i + 2]], X[rr[i + 3]]
                        c0, c1, c2, c3 = res[i], res[i + 1], res[i + 2], res[i + 3]
                        for j in range(x0.shape[0]):
                            s += (c0 * x0[j] + c1 * x1[j]) + (c2 * x2[j] + c3 * x3[j])
                        i += 4
                    while i < B:
                        x = X[rr[i]]
                        c = res[i]
                        for j in range(x.shape[0]):
                            s += c * x[j]
                        i += 1
        return s

    X = problem.datafit.X.reshape(-1, problem.dim)
    rows = engine_rows(problem, batch, local_steps, rounds)
    W = np.random.default_rng(0).standard_normal((rows.shape[1], problem.dim))
    steps = rows.shape[0] * rows.shape[1]
    single = (one_row, four_rows, eight_rows)
    double = (two_pass_one_row, two_pass_four_rows)
    for fn in single + double:
        fn(X, W, rows[:local_steps, :1], 1)

    def measure() -> tuple[float, float]:
        return (max(steps / best_of(1, fn, X, W, rows, rounds) for fn in single),
                max(steps / best_of(1, fn, X, W, rows, rounds) for fn in double))
    return measure


def paper_scale(repeats: int = 7) -> None:
    """Engine and bound timed alternately (``repeats`` times each, best of each kept), so that both see the same
    load; the numpy backend is timed twice."""
    E, B = 10, 10
    measured = bandwidth()
    for name in ("fedavg", "fast_fedda"):
        if name not in algorithms.names():
            print(f"paper scale: {name} not registered, skipped")
            continue
        if name == "fedavg":
            p = problems.make("lasso", preset="bao-lasso", lam=0.0)
            hyper = {"step": 1e-3}
        else:
            p = problems.make("lasso", preset="bao-lasso")
            hyper = {"mu": 0.1}
        p.quadratic  # noqa: B018 - build the cached Gram outside the timing
        rounds = 20
        chosen = kernels.BACKEND
        steps = p.clients * E * rounds
        if chosen == "numba":
            bound_once = read_bound(p, B, E)
            engine(name, p, [0], 2, E, B, repeats=1, **hyper)  # warm: kernels loaded, constants cached
            best, bound, bound2 = 0.0, 0.0, 0.0
            for _ in range(repeats):
                best = max(best, steps / engine(name, p, [0], rounds, E, B, repeats=1, **hyper))
                one, two = bound_once()
                bound, bound2 = max(bound, one), max(bound2, two)
            kernels.BACKEND = "numpy"
            try:
                slow = steps / engine(name, p, [0], rounds, E, B, repeats=2, **hyper)
            finally:
                kernels.BACKEND = chosen
            extra = f", numpy backend {slow:,.0f}/s"
        else:
            best = steps / engine(name, p, [0], rounds, E, B, **hyper)
            bound, extra = measured / (B * p.dim * 8), ""
            bound2 = bound
        print(f"paper scale {name} (bao-lasso, 64 clients, batch 10): engine {best:,.0f} client-steps/s "
              f"({chosen}){extra}; measured alternately: single-pass read bound {bound:,.0f}/s -> "
              f"{best / bound:.0%}, two-pass read bound (rows from memory, then from cache) {bound2:,.0f}/s -> "
              f"{best / bound2:.0%} (target >= 80% of the two-pass bound: "
              f"{'met' if best >= 0.8 * bound2 else 'NOT met'}; streaming bandwidth now {measured / 1e9:.1f} GB/s)")


_STARTUP = """
import time
import numpy as np
from fedrates.solvers import kernels, problems, algorithms
p = problems.make("lasso", clients=2, samples=6, dim=3, sparsity=1, lam=0.01, radius=5.0)
p.quadratic
t = time.perf_counter()
kernels.lsq_rows(np.ones((4, 3)), np.ones(4), np.ones((2, 3)), np.zeros((2, 2), dtype=np.intp))
kernels.soft_ball(np.ones((2, 3)), 0.1, 1.0)
kernels.ball(np.ones((2, 3)), 1.0)
first = time.perf_counter() - t
for name, hyper in (("fedavg", {}), ("fedmid", {}), ("fedda", {}), ("fast_fedda", {"mu": 0.1}),
                    ("c_fedda", {"mu": 0.1})):
    algorithms.run_batch(name, p, 1, local_steps=2, batch=2, **hyper) if name != "fedavg" else \
        algorithms.run_batch(name, problems.make("lasso", clients=2, samples=6, dim=3, sparsity=1, lam=0.0), 1,
                             local_steps=2, batch=2)
print(first, time.perf_counter() - t)
"""


def kernel_startup() -> None:
    """First kernel calls in a fresh process (imports excluded), compiled code loaded from the disk cache: the
    three single-step kernels, then also the fused-round kernels of five algorithms (one tiny run each)."""
    if kernels.BACKEND != "numba":
        print("kernel start-up: numpy backend, nothing to compile")
        return
    subprocess.run([sys.executable, "-c", _STARTUP], check=True, capture_output=True)  # fills the cache if empty
    out = subprocess.run([sys.executable, "-c", _STARTUP], check=True, capture_output=True, text=True).stdout
    first, total = (float(x) for x in out.split())
    print(f"kernel start-up: first calls in a fresh process {first:.2f} s (target <= 1 s: "
          f"{'met' if first <= 1 else 'NOT met'}); with the fused-round kernels of five algorithms (tiny runs, "
          f"references included) {total:.2f} s")


def figure1(rounds: int) -> None:
    from fedrates.solvers.errors import InputError

    p = problems.make("lasso", preset="bao-lasso")
    p.quadratic  # noqa: B018
    total = bare = cpu = 0.0
    for name in FIG1:
        if name not in algorithms.names():
            print(f"  {name}: not registered, skipped")
            continue
        hyper = dict(FIG1_HYPER[name])
        if name in ("c_fedda", "mc_fedda") and p.radius is None:
            hyper["eps0" if name == "c_fedda" else "lam0"] = (2 * float(np.abs(p.truth).sum()) if name == "c_fedda"
                                                              else 0.0)
        hyper = {k: v for k, v in hyper.items() if v}
        try:
            start = time.perf_counter()
            algorithms.make(name, local_steps=10, batch=10, **hyper).check(p)  # one-off constants (cached)
            setup = time.perf_counter() - start
            engine(name, p, [0], 2, 10, 10, participating=10, repeats=1, **hyper)  # kernels loaded before timing
            cpu0 = time.process_time()
            dt = engine(name, p, [0], rounds, 10, 10, participating=10, repeats=1, record_every=1, **hyper)
            cpu_dt = time.process_time() - cpu0
            bare += engine(name, p, [0], rounds, 10, 10, participating=10, repeats=1, record_every=rounds, **hyper)
        except InputError as exc:
            print(f"  {name}: not run ({exc})")
            continue
        total += dt
        cpu += cpu_dt
        print(f"  {name}: {dt:.2f} s wall, {cpu_dt:.2f} s CPU ({rounds} rounds, 10 of 64 clients, E = 10, B = 10, "
              f"metrics every round; one-off problem constants {setup:.2f} s before)")
    scaled = total * 2000 / rounds
    note = "" if rounds == 2000 else f" (measured {total:.1f} s for {rounds} rounds, scaled linearly)"
    print(f"Figure 1 setting: total {scaled:.1f} s wall, {cpu * 2000 / rounds:.1f} s CPU of this process (the wall "
          f"time of an otherwise idle core) for 2000 rounds{note} (target <= 15 s: wall "
          f"{'met' if scaled <= 15 else 'NOT met'}, CPU {'met' if cpu * 2000 / rounds <= 15 else 'NOT met'}); "
          f"baseline in the same run, the same runs recording metrics only at the end: {bare * 2000 / rounds:.1f} s "
          f"wall (per-round metrics add {total / max(bare, 1e-12) - 1:.0%})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds-fig1", type=int, default=2000)
    parser.add_argument("--skip-fig1", action="store_true")
    parser.add_argument("--paper-scale-only", action="store_true", help="measure only the paper scale (item 2)")
    args = parser.parse_args()
    threads = {k: v for k, v in os.environ.items() if k.endswith("_NUM_THREADS")}
    print(f"{load()}; {os.cpu_count()} cpus; thread settings {threads or 'library defaults'}")
    print(f"kernels: {kernels.BACKEND} (FEDRATES_KERNELS={os.environ.get('FEDRATES_KERNELS', 'auto')})")
    if args.paper_scale_only:
        paper_scale()
        print(load())
        return
    kernel_startup()
    verification_scale()
    paper_scale()
    if not args.skip_fig1:
        figure1(args.rounds_fig1)
    print(load())


if __name__ == "__main__":
    main()
