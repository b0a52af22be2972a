"""Many clients on one machine: FedAvg on structured federations with K·d = 10⁸ (issue target: 100 rounds in
≤ 60 s and ≤ 4 GB, with the certified optimum and constants).

    python benchmarks/scale_clients.py [--scale 1e5|1e6] [--clients K] [--dim d] [--rounds 100] [--local-steps 5]
                                       [--family structured|lowrank|implicit] [--samples n] [--batch B]

The two scales are explicit parameter sets of the ``structured_quadratic`` family (:data:`SCALES`): 10⁵ clients ×
d = 1,000 and 10⁶ clients × d = 100 (K·d = 10⁸ each, the cross-device scale of the K-speedup claims);
``--clients``/``--dim`` override the chosen set.

Prints the build, certificate and run times, the peak resident memory (``resource.getrusage``), the certified
optimality gap of the closed-form optimum, the certified constants and FedAvg's objective gap after the last
round (with E > 1 exact local steps FedAvg's fixed point is biased by client drift, so the gap levels off; E = 1
is gradient descent on F).  The wall time is printed with the CPU time and the load average: on a shared machine
the CPU time is the cost.  Baselines in the same run: the dense ``quadratic`` family's refusal of this size (its
memory estimate) and its build and round time at 10 clients of the same d.  BLAS is capped at one thread (as
every command does).

``--family lowrank`` runs the same measurement on ``lowrank_quadratic`` (client Hessians diag(δ_k) + u_ku_kᵀ, no
shared basis) with the K, d, μ and L of the chosen set: its constants come from the secular equation and are
certified by :func:`fedrates.solvers.certify.for_lowrank`, and FedAvg's round is one pass over the clients
(:func:`fedrates.solvers.problems.lowrank_quadratic.local_average`, E steps on one client's rows at a time).
``--family implicit`` runs FedAvg with *sampled minibatches* (B = ``--batch`` of the n = ``--samples`` samples of
each client; default 10⁵ clients, d = 32) on ``implicit_least_squares`` (features never stored), with the
constants of that batch certified by :func:`fedrates.solvers.certify.for_implicit` (σ²_ref included); it has no
target of its own (its K·n, not K·d, is the size).
"""

from __future__ import annotations

import argparse
import importlib
import os
import resource
import time

import numpy as np
from threadpoolctl import threadpool_limits

#: the many-clients parameter sets of the shared-basis family (every other parameter at the family default)
SCALES: dict[str, dict] = {
    "1e5": {"structure": "basis", "clients": 100_000, "dim": 1000, "mu": 0.1, "L": 1.0},
    "1e6": {"structure": "basis", "clients": 1_000_000, "dim": 100, "mu": 0.1, "L": 1.0},
}


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min) on {os.cpu_count()} cpus"


def peak_rss_gib() -> float:
    """Peak resident set size of this process so far (ru_maxrss is in KiB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def _certified(problem, reference, certificates) -> object:  # noqa: ANN001 - the family's own routines
    """The closed-form optimum with its certified gap and every certified constant, printed; the reference."""
    from fedrates.solvers import certify

    t0 = time.perf_counter()
    ref = reference(problem)
    t_ref = time.perf_counter() - t0
    certs = certificates(problem)
    bad = certify.check_certified(certs)
    print(f"  optimum + certificates {time.perf_counter() - t0:5.2f} s (optimum {t_ref:.2f} s): ||grad F(w*)|| = "
          f"{ref.gradient_norm:.3g}, mu_F >= {ref.mu_lower:.6g}, certified gap F(w*) - F* <= {ref.gap:.3g}; "
          f"F* = {ref.value:.12g}")
    for c in certs.values():
        print(f"    {c.name:10s} = {c.value:.12g}  witness {c.witness_value:.12g}  other side {c.upper:.12g}  "
              f"({c.upper_method})")
    print(f"  constants certified: {'yes' if not bad else 'NO: ' + '; '.join(bad)}   peak RSS {peak_rss_gib():.2f} GiB")
    return ref


def _timed_fedavg(problem, ref, args: argparse.Namespace, target: bool, **run) -> None:  # noqa: ANN001
    """``args.rounds`` rounds of FedAvg with ``args.local_steps`` local steps, timed (wall and CPU), with the objective
    gap and the peak memory; with ``target`` the issue target (≤ 60 s, ≤ 4 GB) is checked."""
    from fedrates.solvers.algorithms import run_batch

    t0 = time.perf_counter()
    cpu0 = time.process_time()
    trace = run_batch("fedavg", problem, rounds=args.rounds, seeds=[0], reference=ref,
                      record_every=max(1, args.rounds // 10), local_steps=args.local_steps, **run)
    t_run = time.perf_counter() - t0
    cpu_run = time.process_time() - cpu0
    rec = trace.records
    rss = peak_rss_gib()
    print(f"  FedAvg {args.rounds} rounds {t_run:7.2f} s wall ({cpu_run:.2f} s CPU), {t_run / args.rounds:.3f} s per "
          f"round, {problem.clients * args.rounds * args.local_steps / t_run:,.0f} client-steps/s; objective gap "
          f"after the last round {float(rec['objective_gap'].iloc[-1]):.4g} (round 0: "
          f"{float(rec['objective_gap'].iloc[0]):.4g})")
    print(f"  peak RSS {rss:.2f} GiB")
    if target:
        ok_time, ok_mem = t_run <= 60, rss <= 4
        print(f"  target (100 rounds <= 60 s, <= 4 GB): time {'met' if ok_time else 'NOT met'} "
              f"(CPU {'met' if cpu_run <= 60 else 'NOT met'}), memory {'met' if ok_mem else 'NOT met'}; {load()}")
    else:
        print(f"  {load()}")


def _dense_baseline(K: int, d: int, args: argparse.Namespace) -> None:
    """The dense ``quadratic`` family at this size (its refusal) and its build and round time at 10 or 100 clients."""
    from fedrates.solvers import problems
    from fedrates.solvers.algorithms import run_batch
    from fedrates.solvers.errors import InputError

    try:
        problems.make("quadratic", clients=K, dim=d)
        print("  baseline: dense quadratic family accepted this size")
    except InputError as exc:
        print(f"  baseline: dense quadratic family refuses it: {exc}")
    Kb = 10 if d >= 1000 else 100
    t0 = time.perf_counter()
    dense = problems.make("quadratic", clients=Kb, dim=d)
    t_dense = time.perf_counter() - t0
    t0 = time.perf_counter()
    run_batch("fedavg", dense, rounds=3, seeds=[0], gradients="exact", reference=_zero(dense),
              local_steps=args.local_steps, step=args.step)
    per_round = (time.perf_counter() - t0) / 3
    print(f"  baseline: dense quadratic K = {Kb}, d = {d}: build {t_dense:.2f} s, {per_round:.3f} s per round "
          f"({Kb * args.local_steps / per_round:,.0f} client-steps/s)")


def _built(family: str, params: dict, seed: int) -> object:
    from fedrates.solvers import problems

    t0 = time.perf_counter()
    problem = problems.make(family, **params, seed=seed)
    print(f"  build            {time.perf_counter() - t0:7.2f} s   peak RSS {peak_rss_gib():.2f} GiB")
    return problem


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", choices=sorted(SCALES), default="1e5", help="parameter set (SCALES)")
    ap.add_argument("--clients", type=int, default=None, help="override the set's number of clients")
    ap.add_argument("--dim", type=int, default=None, help="override the set's dimension")
    ap.add_argument("--rounds", type=int, default=100)
    ap.add_argument("--local-steps", type=int, default=5)
    ap.add_argument("--step", type=float, default=0.5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--family", choices=("structured", "lowrank", "implicit"), default="structured",
                    help="structured: shared-basis quadratics (default); lowrank: diagonal-plus-rank-one Hessians; "
                         "implicit: least squares with implicit features and sampled minibatches")
    ap.add_argument("--samples", type=int, default=64, help="implicit: samples per client (default 64)")
    ap.add_argument("--batch", type=int, default=8, help="implicit: minibatch size (default 8)")
    args = ap.parse_args()
    from fedrates.solvers import certify

    if args.family == "implicit":
        from fedrates.solvers.problems import implicit_least_squares as ils

        params = {"clients": args.clients or 100_000, "dim": args.dim or 32, "samples": args.samples}
        K, d = params["clients"], params["dim"]
        print(f"implicit_least_squares: K = {K:,} clients, n = {args.samples} samples each, d = {d:,} "
              f"(K·n = {K * args.samples:.3g}); {args.rounds} rounds of FedAvg, E = {args.local_steps} local steps "
              f"on minibatches of B = {args.batch} samples, step {args.step}")
        problem = _built("implicit_least_squares", params, args.seed)
        ref = _certified(problem, ils.exact_reference, lambda p: certify.for_implicit(p, batch=args.batch))
        _timed_fedavg(problem, ref, args, False, gradients="stochastic", batch=args.batch, step=args.step)
        return
    family = {"structured": "structured_quadratic", "lowrank": "lowrank_quadratic"}[args.family]
    params = dict(SCALES[args.scale])
    if args.family == "lowrank":  # the set's K, d, μ and L (boost and spread at the family defaults)
        params = {k: v for k, v in params.items() if k in ("clients", "dim", "mu", "L")}
    params.update({k: v for k, v in (("clients", args.clients), ("dim", args.dim)) if v is not None})
    K, d = params["clients"], params["dim"]
    print(f"{family}: K = {K:,} clients, d = {d:,} (K·d = {K * d:.3g}); {args.rounds} rounds of FedAvg, "
          f"E = {args.local_steps} exact local steps, step {args.step}")
    problem = _built(family, params, args.seed)
    module = importlib.import_module(f"fedrates.solvers.problems.{family}")
    ref = _certified(problem, module.exact_reference,
                     certify.for_structured if args.family == "structured" else certify.for_lowrank)
    _timed_fedavg(problem, ref, args, True, gradients="exact", step=args.step)
    _dense_baseline(K, d, args)


def _zero(problem):  # noqa: ANN001, ANN202 - a stand-in reference (the baseline times rounds, not gaps)
    class _Ref:
        w = np.zeros(problem.shape)
        value = float(problem.objective(w))
    return _Ref()


if __name__ == "__main__":
    with threadpool_limits(1):
        main()
