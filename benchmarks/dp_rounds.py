"""Rounds per second of DP-FedAvg with clipping and DP-NormFedAvg next to plain FedAvg on Das et al.'s §5.3 instance.

Same instance (preset ``das-quadratic``: 100 clients, d = 200, rank-20 client Hessians), E = 20 local exact-gradient
steps, full participation, several seeds simulated together; FedAvg is the baseline measured in the same process.
Target: privacy (clipping or normalisation + one Gaussian draw per client and round) costs < 1.5x FedAvg's time.
The three algorithms are timed in turn ``--repeat`` times and each keeps its fastest time, so that load from other
processes (which only ever slows a run down) does not land on one algorithm only.

    python benchmarks/dp_rounds.py [--rounds 20] [--seeds 3] [--dim 200] [--clients 100] [--repeat 3]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

TARGET_RATIO = 1.5


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--dim", type=int, default=200)
    parser.add_argument("--clients", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    opts = parser.parse_args()

    from fedrates.solvers import problems
    from fedrates.solvers.algorithms import run_batch
    from fedrates.solvers.constants import dp_sigma

    problem = problems.make("quadratic", "das-quadratic", dim=opts.dim, clients=opts.clients)

    class _Ref:  # metrics need an optimum; the closed form is enough for timing
        Q, b, _ = problem.quadratic
        w = np.linalg.solve(Q, b)
        value = float(problem.objective(w))
        gap = 0.0

    seeds = list(range(opts.seeds))
    w0 = np.asarray(_Ref.w) + np.random.default_rng(0).uniform(0, 1, problem.dim)
    C = 50.0
    common = {"local_steps": 20, "gradients": "exact", "w0": w0, "reference": _Ref(), "record_every": opts.rounds}
    runs = {
        "fedavg": {"step": 0.01, "server_step": 1.0},
        "dp_fedavg_clip": {"step": 0.01, "server_step": 0.01, "clip": C, "sigma": dp_sigma(5, 1e-6, 1, 500, C, 100)},
        "dp_normfedavg": {"step": 0.01, "server_step": 0.01, "clip": C, "sigma": dp_sigma(5, 1e-6, 1, 500, C, 100)},
    }
    seconds = dict.fromkeys(runs, float("inf"))
    for name, hyper in runs.items():
        run_batch(name, problem, 1, seeds=seeds, **common, **hyper)  # warm-up (imports, buffers)
    for _ in range(max(1, opts.repeat)):
        for name, hyper in runs.items():
            start = time.perf_counter()
            run_batch(name, problem, opts.rounds, seeds=seeds, **common, **hyper)
            seconds[name] = min(seconds[name], time.perf_counter() - start)
    base = seconds["fedavg"]
    print(f"{'algorithm':<16} {'rounds/s':>9} {'x FedAvg':>9}  status (n = {problem.clients}, d = {problem.dim}, "
          f"E = 20, {len(seeds)} seeds, fastest of {max(1, opts.repeat)})")
    ok = True
    for name, sec in seconds.items():
        ratio = sec / base
        good = ratio < TARGET_RATIO or name == "fedavg"
        ok &= good
        print(f"{name:<16} {opts.rounds / sec:9.2f} {ratio:9.2f}  {'ok' if good else 'SLOW'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
