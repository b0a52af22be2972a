"""Exact identities of Buttaci & Calafiore ("Aiding Global Convergence in Federated Learning via Local Perturbation
and Mutual Similarity Information"): the similarity graph of Def. 1–2, Lemma 1, the reductions to
FedAvg, the returned point and the instances' constants by a second route.  The claims are listed in
:mod:`fedrates.verify.claims.buttaci.exact`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fedrates._lazy import lazy_import
from fedrates.verify import margins as mg
from fedrates.verify.checks import CheckResult
from fedrates.verify.claims.base import Claim
from fedrates.verify.claims.buttaci import instances as runs
from fedrates.verify.claims.buttaci._checks import (
    CONTROL_MIN,
    _algorithm,
    _metric,
    _no_records,
    _params,
    _rows,
    _seeds,
)
from fedrates.verify.claims.buttaci.instances import (
    LEMMA1_INSTANCE,
    _perturb_weights,
    _start,
)

pd = lazy_import("pandas")  # imported on first use: listing and refusing stay fast

#: graph identities (sums, symmetry, mis = ‖m_i − m_n‖²/4) are exact up to a few roundings of O(1) numbers
GRAPH_TOL = 1e-12
#: Lemma 1 residual relative to 1 + ‖w̄‖: float64 accumulation over at most E·T ≤ 100 steps of size ≤ 10 leaves
#: four orders of magnitude of margin at 1e-10, while the wrong-weights control is ≥ 1e-6 on these instances
LEMMA1_TOL = 1e-10
#: trajectories that must coincide (β = 1, α = 0, E = 1): relative, a few roundings per step over ≤ 40 rounds
TRAJECTORY_TOL = 1e-12


# ---- 1. the similarity graph
GRAPH_CASES = ("buttaci-common", "buttaci-clustered", "random-data", "identical-clients")


def _graph_data(case: str) -> np.ndarray:
    if case in ("buttaci-common", "buttaci-clustered"):
        problem, _, _ = runs.instance({"preset": case})
        X, y = problem.datafit.X, problem.datafit.y
        if problem.params["message"] == "data":
            return np.concatenate([X, y[:, :, None]], axis=2)
        return X
    rng = np.random.default_rng(7)
    if case == "random-data":
        means = 2.0 * rng.standard_normal((8, 1, 5))
        return means + rng.standard_normal((8, 30, 5))
    base = rng.standard_normal((1, 20, 4)) + 1.0
    others = rng.standard_normal((3, 20, 4)) + np.array([1.0, -2.0, 0.5, 0.0])
    return np.concatenate([np.repeat(base, 3, axis=0), others])


@dataclass(frozen=True)
class GraphInvariants(Claim):
    """Def. 1–2 and Algorithm 1's weights (see module docstring)."""

    n_seeds: dict = field(default_factory=lambda: {"quick": 1, "standard": 1, "full": 1})

    def points(self, profile: str) -> list[dict]:
        return [{"case": c} for c in GRAPH_CASES]

    def simulate(self, point: dict, seeds: list[int]) -> pd.DataFrame:
        from fedrates.solvers import similarity as sim

        X = _graph_data(point["case"])
        g = sim.build_graph(sim.messages(X))
        M, P, K = g.messages, g.weights, g.clients
        # the top right-singular vectors by SVD (an independent routine), up to sign
        V = np.stack([np.linalg.svd(x, full_matrices=False)[2][0] for x in X])
        rng = np.random.default_rng(11)
        perm = rng.permutation(K)
        signs = np.where(rng.random(K) < 0.5, -1.0, 1.0)
        flipped = sim.build_graph(sim.canonical_sign(M * signs[:, None]))
        from_svd = sim.build_graph(sim.canonical_sign(V))
        out = {
            "symmetry": float(np.max(np.abs(P - P.T))),
            "zero-diagonal": float(np.max(np.abs(np.diag(P)))),
            "nonnegative": float(max(0.0, -P.min())),
            "total-weight": abs(float(P.sum()) - 1.0),
            "degrees-sum": abs(float(g.degrees.sum()) - 1.0),
            "degrees-are-row-sums": float(np.max(np.abs(g.degrees - P.sum(axis=1)))),
            "mis-is-distance": float(np.max(np.abs(g.misalignment - np.sum((M[:, None] - M[None]) ** 2, -1) / 4))),
            "messages-are-top-pc": float(np.max(1.0 - np.abs(np.sum(M * V, axis=1)))),
            "permutation-equivariant": float(np.max(np.abs(
                sim.build_graph(M[perm]).weights - P[np.ix_(perm, perm)]))),
            "sign-flip-invariant": float(np.max(np.abs(flipped.weights - P))),
            "svd-sign-invariant": float(np.max(np.abs(from_svd.weights - P))),
        }
        if point["case"] == "identical-clients":
            # identical data: mis = 0 is clipped (3 pairs), A stays finite and equal on the clipped pairs
            out["clipping"] = 0.0 if (g.clipped == 3 and np.all(np.isfinite(g.adjacency))
                                      and np.isclose(g.adjacency[0, 1], -np.log(g.clip))) else 1.0
        # Def. 1–2 and Algorithm 1 on every pair, recomputed here from the graph's messages (checked above to be the
        # top PCs): A_in = −ln max(mis, clip) for i ≠ n (0 on the diagonal), p_in = A_in/𝟏ᵀA𝟏, p_i = Σ_n p_in
        mis = (1.0 - M @ M.T) / 2.0
        A = np.where(np.eye(K, dtype=bool), 0.0, -np.log(np.maximum(mis, g.clip)))
        out["adjacency-def2-all-pairs"] = float(np.max(np.abs(g.adjacency - A)) / max(1.0, float(A.max())))
        out["weights-def2-all-pairs"] = float(np.max(np.abs(P - A / A.sum())) * K)
        out["degrees-def2"] = float(np.max(np.abs(g.degrees - (A / A.sum()).sum(axis=1))))
        if point["case"].startswith("buttaci"):
            problem, _, _ = runs.instance({"preset": point["case"]})
            out["instance-weights"] = float(np.max(np.abs(problem.weights - g.degrees)))
            _, P2, p2 = runs.def2_graph(problem)
            out["instance-graph-def2"] = float(max(np.max(np.abs(problem.extras["similarity_weights"] - P2)) * K,
                                                   np.max(np.abs(problem.weights - p2))))
        seed = seeds[0] if seeds else 0
        items = [(name, seed, 0, value, GRAPH_TOL) for name, value in out.items()]
        return _rows(self, GRAPH_CASES.index(point["case"]), point, items, X.shape[-1])

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        seeds = _seeds(records)
        if (empty := _no_records(self, records, seeds)) is not None:
            return empty
        worst = records.loc[records["value"].idxmax()]
        bad = records[~(records["value"] <= GRAPH_TOL)]
        cases = sorted(set(records["point"]))
        measured = f"largest violation {worst['value']:.3g} ({worst['metric']}, case {GRAPH_CASES[worst['point']]})"
        if len(bad):
            detail = "; ".join(f"{GRAPH_CASES[r.point]}: {r.metric} = {r.value:.3g}" for r in bad.itertuples())
            res = CheckResult("fail", measured, "0 (identities)", f"{GRAPH_TOL:g}", f"violated: {detail}")
        else:
            res = CheckResult("pass", measured, "0 (identities)", f"{GRAPH_TOL:g}",
                              f"all {records['metric'].nunique()} invariants hold on {len(cases)} graphs")
        margin = mg.resolution(GRAPH_TOL)
        return self.verdict(res, conditions=[], seeds=seeds, constants={}, margin=margin)


# ---- 2. Lemma 1
@dataclass(frozen=True)
class Lemma1Identity(Claim):
    """Σ_i p_i w̃_{t,k}^i = β w̄_{t,k} + (1 − β) w̄_{t,0} at every (t, k) (Lemma 1, (95)–(98))."""

    rounds: int = 6
    grid: tuple = ((0.3, 1, 0.0), (0.7, 4, 0.0), (0.3, 4, 1.0))
    n_seeds: dict = field(default_factory=lambda: {"quick": 3, "standard": 3, "full": 8})

    def points(self, profile: str) -> list[dict]:
        return [{**LEMMA1_INSTANCE, "beta": b, "local_steps": E, "sigma": s} for b, E, s in self.grid]

    def simulate(self, point: dict, seeds: list[int]) -> pd.DataFrame:
        problem, _, consts = runs.instance(_params(point))
        beta, E = point["beta"], point["local_steps"]
        gamma = 1.0 / (2 * consts["L"] * E)
        alg = _algorithm(self, "pfl", step=gamma, beta=beta, local_steps=E)
        deterministic = not point["sigma"]
        use = seeds[:1] if deterministic else list(seeds)
        run = runs.instrumented_run(alg, problem, self.rounds, use, _start(problem, consts), exact=deterministic)
        p = problem.weights
        wbar = runs.virtual_averages(run, p, gamma, perturbed=True)  # (T, E, R, d)
        target = beta * wbar + (1 - beta) * wbar[:, :1]
        scale = 1.0 + np.linalg.norm(wbar, axis=-1)
        resid = np.linalg.norm(np.einsum("i,tkrid->tkrd", p, run.queries) - target, axis=-1) / scale
        uniform = np.full_like(p, 1.0 / p.size)
        control = np.linalg.norm(np.einsum("i,tkrid->tkrd", uniform, run.queries)
                                 - (beta * np.einsum("i,tkrid->tkrd", uniform, runs.local_iterates(
                                     run, gamma)[:, :-1]) + (1 - beta) * run.x[:run.rounds, None]),
                                 axis=-1) / scale
        items = []
        for r, s in enumerate(use):
            for t in range(run.rounds):
                items.append(("lemma1_residual", s, t, float(resid[t, :, r].max()) if run.finite else np.inf,
                              LEMMA1_TOL))
                items.append(("uniform_weights_control", s, t, float(control[t, :, r].max()), CONTROL_MIN))
        return _rows(self, self.grid.index((beta, E, point["sigma"])), point, items, problem.dim)

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        seeds = _seeds(records)
        if (empty := _no_records(self, records, seeds)) is not None:
            return empty
        resid = _metric(records, "lemma1_residual")["value"].to_numpy()
        control = _metric(records, "uniform_weights_control").groupby("point")["value"].max()
        worst = float(np.max(resid)) if resid.size else np.inf
        measured = (f"max ‖Σp_i w̃ − (βw̄_k + (1−β)w̄_0)‖/(1 + ‖w̄‖) = {worst:.3g}; 1/C-weights control ≥ "
                    f"{float(control.min()):.3g}")
        if not worst <= LEMMA1_TOL:
            res = CheckResult("fail", measured, "0 (identity)", f"{LEMMA1_TOL:g}",
                              "Lemma 1 is violated by the run: the perturbed iterates do not average to "
                              "β w̄_{t,k} + (1 − β) w̄_{t,0} with the degree weights")
        elif not float(control.min()) >= CONTROL_MIN:
            res = CheckResult("inconclusive", measured, "0 (identity)", f"{LEMMA1_TOL:g}",
                              f"the negative control (1/C weights) is below {CONTROL_MIN:g}: this instance cannot "
                              "tell the degree weights from uniform ones")
        else:
            res = CheckResult("pass", measured, "0 (identity)", f"{LEMMA1_TOL:g}",
                              f"the identity holds at every (t, k) of {records['point'].nunique()} runs; the same "
                              "identity with 1/C weights fails by ≥ the control value")
        margin = mg.resolution(LEMMA1_TOL)
        return self.verdict(res, conditions=[], seeds=seeds, constants={}, margin=margin)


def _perturbed_graph(problem: Any) -> Any:
    """The problem with p_in + D, D symmetric with zero row sums on clients 0–3 (degrees unchanged, p_in ≥ 0)."""
    P = _perturb_weights(problem.extras["similarity_weights"])
    return dataclasses.replace(problem, extras={**problem.extras, "similarity_weights": P})


# ---- 3. reductions
@dataclass(frozen=True)
class Reductions(Claim):
    """PFL(β = 1) ≡ FedAvg and FedProx(α = 0) ≡ FedAvg (stochastic, same streams); E = 1 on a common Hessian:
    PFL(β) ≡ FedAvg for every β; on a common Hessian the graph acts on w̄ only through the degrees p_i: a symmetric
    perturbation of p_in with zero row sums leaves PFL's w̄ trajectory unchanged (any E)."""

    rounds: int = 20
    cases: tuple = ("pfl-beta-1", "fedprox-alpha-0", "pfl-E1-beta-0.3", "pfl-E1-beta-0.7", "pfl-graph-irrelevant")
    n_seeds: dict = field(default_factory=lambda: {"quick": 3, "standard": 3, "full": 8})

    def points(self, profile: str) -> list[dict]:
        out = []
        for case in self.cases:
            if case.startswith("pfl-E1"):
                out.append({"case": case, "preset": "buttaci-common", "local_steps": 1, "sigma": 0.0})
            elif case == "pfl-graph-irrelevant":
                out.append({"case": case, "preset": "buttaci-common", "local_steps": 5, "sigma": 0.0})
            else:
                out.append({"case": case, "preset": "buttaci-clustered", "local_steps": 4, "sigma": 1.0})
        return out

    def simulate(self, point: dict, seeds: list[int]) -> pd.DataFrame:
        problem, _, consts = runs.instance(_params(point))
        E, case = point["local_steps"], point["case"]
        gamma = 1.0 / (2 * consts["L"] * E)
        if case == "pfl-beta-1":
            alg = _algorithm(self, "pfl", step=gamma, beta=1.0, local_steps=E)
        elif case == "fedprox-alpha-0":
            alg = _algorithm(self, "fedprox", step=gamma, mu_prox=0.0, local_steps=E)
        elif case == "pfl-graph-irrelevant":
            alg = _algorithm(self, "pfl", step=gamma, beta=0.5, local_steps=E)
        else:
            alg = _algorithm(self, "pfl", step=gamma, beta=float(case.rsplit("-", 1)[1]), local_steps=E)
        base = alg if case == "pfl-graph-irrelevant" else _algorithm(self, "fedavg", step=gamma, local_steps=E)
        deterministic = not point["sigma"]
        use = seeds[:1] if deterministic else list(seeds)
        w0 = _start(problem, consts)
        run_problem = _perturbed_graph(problem) if case == "pfl-graph-irrelevant" else problem
        a = runs.instrumented_run(alg, run_problem, self.rounds, use, w0, exact=deterministic)
        b = runs.instrumented_run(base, problem, self.rounds, use, w0, exact=deterministic)
        T = min(a.rounds, b.rounds)
        diff = np.linalg.norm(a.x[:T + 1] - b.x[:T + 1], axis=-1) / (1 + np.linalg.norm(b.x[:T + 1], axis=-1))
        if a.rounds != b.rounds or not (a.finite and b.finite):
            diff = np.full_like(diff, np.inf)
        items = [("trajectory_difference", s, t, float(diff[t, r]), TRAJECTORY_TOL)
                 for r, s in enumerate(use) for t in range(T + 1)]
        if case == "pfl-graph-irrelevant":
            # control: the perturbation does change the clients' perturbed points (only w̄ is unaffected)
            moved = float(np.max(np.abs(a.queries[:T] - b.queries[:T]))) if a.finite and b.finite else 0.0
            items.append(("graph_control", use[0], T, moved, CONTROL_MIN))
        return _rows(self, self.cases.index(case), point, items, problem.dim)

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        seeds = _seeds(records)
        if (empty := _no_records(self, records, seeds)) is not None:
            return empty
        control = _metric(records, "graph_control")["value"]
        worst = _metric(records, "trajectory_difference").groupby("point")["value"].max()
        measured = "; ".join(f"{self.cases[int(i)]}: {v:.3g}" for i, v in worst.items())
        bad = [self.cases[int(i)] for i, v in worst.items() if not v <= TRAJECTORY_TOL]
        verdict = "fail" if bad else "pass"
        msg = (f"trajectories differ from the reference trajectory: {', '.join(bad)}" if bad
               else "every reduction reproduces the reference server trajectory")
        if len(control):
            measured += f"; graph-perturbation control (change of the perturbed points) {float(control.min()):.3g}"
            if verdict == "pass" and not float(control.min()) >= CONTROL_MIN:
                verdict, msg = "inconclusive", "the graph perturbation does not move the perturbed points"
        res = CheckResult(verdict, f"max relative trajectory difference — {measured}", "0", f"{TRAJECTORY_TOL:g}",
                          msg)
        margin = mg.resolution(TRAJECTORY_TOL)
        return self.verdict(res, conditions=[], seeds=seeds, constants={}, margin=margin)


# ---- 4. the returned point
RETURNED_TOL = 1e-12  # relative to 1 + ‖w̄‖: a few roundings of E ≤ 4 local steps


@dataclass(frozen=True)
class ReturnedPoint(Claim):
    """The point each algorithm returns after every round t = 1..T is the server model of the paper, reconstructed
    pathwise from the recorded gradient queries (stochastic gradients included, so it pins the returned point's
    law for every sample path, not only its mean):

    * PFL (Algorithm 1, Adjacency scheme): w̄_{t+1,0} = Σ_i p_i w_{t,E}^i with w_{t,E}^i = w̄_{t,0} − γ Σ_k g_{t,k}^i
      (rule (3)) and w̄_{t,0} = Σ_i p_i w̃_{t,0}^i (the first queries: Σ_i p_i u_t^i = w̄_{t,0} since Σ_i p_in = p_n);
    * FedProx/FedAvg (App. A (10)–(12)): w_{t,0}^i = w̄_{t,0} for every i (the first queries, checked equal), the last
      local step w_{t,E}^i = w_{t,E−1}^i − γ(g_{t,E−1}^i + α(w_{t,E−1}^i − w̄_{t,0})), and w̄_{t+1,0} = Σ_i p_i w_{t,E}^i.

    The degrees p_i are those of Def. 2 recomputed from the data (:func:`_buttaci_runs.def2_graph`).  The last
    iterate of a client, an unweighted mean, a neighbour average or the previous round's model all fail."""

    rounds: int = 6
    local_steps: int = 4
    cases: tuple = (("pfl", 0.5), ("fedprox", 0.5), ("fedavg", 0.0))  # (algorithm, β or α/L)
    n_seeds: dict = field(default_factory=lambda: {"quick": 3, "standard": 3, "full": 8})

    def points(self, profile: str) -> list[dict]:
        return [{**LEMMA1_INSTANCE, "sigma": 1.0, "method": a, "param": v, "local_steps": self.local_steps}
                for a, v in self.cases]

    def simulate(self, point: dict, seeds: list[int]) -> pd.DataFrame:
        problem, _, consts = runs.instance(_params(point))
        E, L, name = self.local_steps, consts["L"], point["method"]
        if name == "pfl":
            gamma, alpha = 1 / (2 * L * E), 0.0
            alg = _algorithm(self, "pfl", step=gamma, beta=point["param"], local_steps=E)
        else:
            alpha = point["param"] * L
            gamma = 1 / (2 * E * (L + alpha))
            hyper = {"mu_prox": alpha} if name == "fedprox" else {}
            alg = _algorithm(self, name, step=gamma, local_steps=E, **hyper)
        run = runs.instrumented_run(alg, problem, self.rounds, list(seeds), _start(problem, consts), exact=False)
        _, _, p = runs.def2_graph(problem)
        q, g = run.queries, run.grads  # (T, E, R, K, d)
        T = run.rounds
        if name == "pfl":
            start = np.einsum("i,trid->trd", p, q[:, 0])  # w̄_{t,0}
            pred = start - gamma * np.einsum("i,tkrid->trd", p, g)
            broadcast = np.zeros((T, len(seeds)))
        else:
            start = q[:, 0, :, 0]
            last = q[:, -1] - gamma * (g[:, -1] + alpha * (q[:, -1] - q[:, :1, :, :, :][:, 0]))
            pred = np.einsum("i,trid->trd", p, last)
            broadcast = np.max(np.linalg.norm(q[:, 0] - start[:, :, None], axis=-1), axis=-1)
        scale = 1 + np.linalg.norm(pred, axis=-1)
        err = np.linalg.norm(run.x[1:T + 1] - pred, axis=-1) / scale  # returned point after round t + 1
        start_err = np.linalg.norm(run.x[:T] - start, axis=-1) / scale  # returned point = the next round's start
        if not run.finite:
            err = np.full_like(err, np.inf)
        items = []
        for r, s in enumerate(seeds):
            for t in range(T):
                items.append(("returned_point_error", s, t + 1, float(err[t, r]), RETURNED_TOL))
                items.append(("start_error", s, t, float(max(start_err[t, r], broadcast[t, r])), RETURNED_TOL))
        return _rows(self, [c[0] for c in self.cases].index(name), point, items, problem.dim)

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        seeds = _seeds(records)
        if (empty := _no_records(self, records, seeds)) is not None:
            return empty
        worst = records.groupby(["point", "metric"])["value"].max()
        names = [c[0] for c in self.cases]
        measured = "; ".join(f"{names[int(pt)]} {m.split('_')[0]}: {v:.3g}" for (pt, m), v in worst.items())
        bad = [f"{names[int(pt)]} ({m})" for (pt, m), v in worst.items() if not v <= RETURNED_TOL]
        if bad:
            res = CheckResult("fail", f"max relative error — {measured}", "Σ_i p_i w_{t,E}^i (the server model)",
                              f"relative {RETURNED_TOL:g}", "the returned point is not the server model: "
                              + ", ".join(bad))
        else:
            res = CheckResult("pass", f"max relative error — {measured}", "Σ_i p_i w_{t,E}^i (the server model)",
                              f"relative {RETURNED_TOL:g}",
                              f"every returned point is the degree-weighted server model, at every round of "
                              f"{len(seeds)} stochastic runs per algorithm")
        return self._exact_verdict(res, seeds, float(worst.max()), RETURNED_TOL)

    def _exact_verdict(self, res: CheckResult, seeds: list[int], worst: float, tol: float) -> dict:
        margin = mg.resolution(tol)
        return self.verdict(res, conditions=[], seeds=seeds, constants={}, margin=margin)

# ---- 5. the instance's constants by a second route
CONSTANTS_RTOL = 1e-9
CONSTANT_CASES = ({"preset": "buttaci-common"}, {"preset": "buttaci-clustered"},
                  {"preset": "buttaci-clustered", "message": "data"},
                  {"preset": "buttaci-nonconvex", "message": "data"})


def _second_route(problem: Any) -> dict[str, float]:
    """L, μ, S, w*, f* and Γ of a ``similar_quadratic`` instance from its raw data, independently of
    :func:`~fedrates.solvers.problems.similar_quadratic.exact_constants`: singular values of X_i (H_i = X_iᵀX_i/n,
    minus the curvature shift s t_i of nonconvex clients), the degrees of the graph recomputed by Def. 2, w* by least
    squares on the stacked system [√(p_i/n) X_i] (shifted clients: the normal equations of f), f_i* at each client's
    least-squares solution (a witness attaining min f_i), and Γ = f(w*) − Σ_i p_i f_i* (Def. 3)."""
    X, y = problem.extras["data"]
    K, n, d = X.shape
    _, _, p = runs.def2_graph(problem)
    shift = np.asarray(problem.extras.get("curvature_shifts", np.zeros(K)), dtype=float)
    sv = np.stack([np.linalg.svd(x, compute_uv=False) for x in X]) ** 2 / n  # eigenvalues of X_iᵀX_i/n
    lam_max, lam_min = sv.max(axis=1) - shift, sv.min(axis=1) - shift
    f_i = [lambda w, i=i: 0.5 * float(np.sum((X[i] @ w - y[i]) ** 2)) / n - 0.5 * shift[i] * float(w @ w)
           for i in range(K)]
    if np.any(shift):
        H = sum(p[i] * (X[i].T @ X[i] / n - shift[i] * np.eye(d)) for i in range(K))
        w_star = np.linalg.solve(H, sum(p[i] * X[i].T @ y[i] / n for i in range(K)))
    else:
        A = np.concatenate([np.sqrt(p[i] / n) * X[i] for i in range(K)])
        w_star = np.linalg.lstsq(A, np.concatenate([np.sqrt(p[i] / n) * y[i] for i in range(K)]), rcond=None)[0]
    f_star = float(sum(p[i] * f_i[i](w_star) for i in range(K)))
    out = {"L": float(np.max(np.abs(np.concatenate([lam_max, lam_min])))), "mu": float(lam_min.min()),
           "S": float(p @ p), "f_star": f_star, "w_star": w_star}
    if lam_min.min() > 0:
        minima = [f_i[i](np.linalg.lstsq(X[i], y[i], rcond=None)[0]) for i in range(K)]
        out["Gamma"] = f_star - float(p @ np.array(minima))
    return out


@dataclass(frozen=True)
class Constants(Claim):
    """The constants every bound and regime of the paper uses — L = max_i ‖H_i‖ and μ = min_i λ_min(H_i) (per-client
    extremes, Assumptions 4–5), S = Σ p_i², w*, f* and Γ = f* − Σ_i p_i f_i* with the degree weights (Def. 3) — as
    the claims compute them (:func:`~fedrates.solvers.problems.similar_quadratic.exact_constants`) against a second
    route from the raw data (:func:`_second_route`), relative 1e-9.  L and μ of f (μ_f, L_f) differ from the
    per-client extremes on the clustered instances, Γ with uniform weights differs from Γ with degree weights: the
    instances are chosen so that both substitutions are visible (differences reported)."""

    n_seeds: dict = field(default_factory=lambda: {"quick": 1, "standard": 1, "full": 1})

    def points(self, profile: str) -> list[dict]:
        return [dict(c) for c in CONSTANT_CASES]

    def simulate(self, point: dict, seeds: list[int]) -> pd.DataFrame:
        problem, _, consts = runs.instance(point)
        ref = _second_route(problem)
        seed = seeds[0] if seeds else 0
        items = []
        for key in ("L", "mu", "S", "f_star", "Gamma"):
            if key not in ref:
                continue
            got, want = float(consts[key]), float(ref[key])
            items.append((f"rel:{key}", seed, 0, abs(got - want) / max(abs(want), 1e-300), CONSTANTS_RTOL))
        items.append(("rel:w_star", seed, 0, float(np.linalg.norm(consts["w_star"] - ref["w_star"])
                                                   / (1 + np.linalg.norm(ref["w_star"]))), CONSTANTS_RTOL))
        # the substitutions the check must be able to see on these instances
        items.append(("control:L_f", seed, 0, abs(consts["L_f"] - ref["L"]) / ref["L"], CONTROL_MIN))
        items.append(("control:mu_f", seed, 0, abs(consts["mu_f"] - ref["mu"]) / abs(ref["mu"]), CONTROL_MIN))
        if "Gamma" in ref:
            K = problem.clients
            uniform = problem.weights * 0 + 1.0 / K
            X, y = problem.extras["data"]
            n = X.shape[1]
            minima = np.array([0.5 * np.sum((X[i] @ np.linalg.lstsq(X[i], y[i], rcond=None)[0] - y[i]) ** 2) / n
                               for i in range(K)])
            A = np.concatenate(list(X)) / np.sqrt(K * n)
            w_u = np.linalg.lstsq(A, np.concatenate(list(y)) / np.sqrt(K * n), rcond=None)[0]
            f_u = float(np.sum((A @ w_u - np.concatenate(list(y)) / np.sqrt(K * n)) ** 2)) / 2
            gamma_uniform = f_u - float(uniform @ minima)  # Def. 3 with 1/C weights in f* and in the sum
            items.append(("control:Gamma_uniform", seed, 0, abs(gamma_uniform - ref["Gamma"]) / abs(ref["Gamma"]),
                          CONTROL_MIN))
        return _rows(self, CONSTANT_CASES.index(point), point, items, problem.dim)

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        seeds = _seeds(records)
        if (empty := _no_records(self, records, seeds)) is not None:
            return empty
        rel = records[records["metric"].str.startswith("rel:")]
        ctl = records[records["metric"].str.startswith("control:")]
        worst = rel.loc[rel["value"].idxmax()]
        bad = rel[~(rel["value"] <= CONSTANTS_RTOL)]
        # each substitution must be visible on at least one instance (L of f equals L on a common Hessian)
        visible = ctl.groupby("metric")["value"].max()
        weak = visible[~(visible >= CONTROL_MIN)]
        measured = (f"max relative difference {worst['value']:.2g} ({worst['metric'][4:]}, case {int(worst['point'])});"
                    f" substitutions visible by up to " + ", ".join(f"{m[8:]} {v:.3g}" for m, v in visible.items()))
        if len(bad):
            detail = "; ".join(f"case {int(r.point)}: {r.metric[4:]} off by {r.value:.3g}" for r in bad.itertuples())
            res = CheckResult("fail", measured, "the second route's values", f"relative {CONSTANTS_RTOL:g}",
                              f"the constants the claims use are not the instance's: {detail}")
        elif len(weak):
            res = CheckResult("inconclusive", measured, "the second route's values", f"relative {CONSTANTS_RTOL:g}",
                              "a substitution (L of f, Γ with uniform weights) is not visible on these instances")
        else:
            res = CheckResult("pass", measured, "the second route's values", f"relative {CONSTANTS_RTOL:g}",
                              f"L, μ, S, w*, f* and Γ agree on {records['point'].nunique()} instances")
        margin = mg.resolution(CONSTANTS_RTOL)
        return self.verdict(res, conditions=[], seeds=seeds, constants={}, margin=margin)
