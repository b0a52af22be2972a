"""Per-round metrics of a run and the :class:`Trace` / :class:`BatchTrace` records.

Metrics of an output point w (vectorized over replicas; ŵ is the certified reference optimum, w° the ground truth):

* ``objective_gap`` φ(w) − φ*  with φ* = ``reference.value``.  F is quadratic, so F(w) − F(ŵ) is evaluated as
  ⟨∇F(ŵ), u⟩ + ½uᵀQ̄u with u = w − ŵ (no cancellation between large values); the constant φ(ŵ) − φ* is added.
  +inf outside the domain ball (relative tolerance 1e-9, as ``Problem.objective``); NaN without a reference.
* ``distance_to_optimum`` ‖w − ŵ‖ (Euclidean/Frobenius); ``distance_to_truth`` ‖w − w°‖ (NaN without w°).
* ``support_f1`` (ℓ1 problems with a ground truth): F1 = 2TP/(2TP + FP + FN) between the estimated support
  {j : |w_j| > 0.01·max_j |w°_j|} and the true support {j : w°_j ≠ 0}.  With the unit signal of Bao et al.'s
  Lasso (max|w°| = 1) the threshold is their code's absolute 0.01.  NaN otherwise.
* ``rank`` (nuclear problems): numerical rank, the number of singular values above max(d1, d2)·eps(‖W‖₂)
  (MATLAB's ``rank`` default, used in Bao et al.'s evaluation).  NaN otherwise.

A diverged replica has NaN metrics from the round it diverged on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fedrates._lazy import lazy_import
from fedrates.solvers._reference_fast import matvec

pd = lazy_import("pandas")  # imported on first use: listing and refusing stay fast

__all__ = ["COLUMNS", "METRICS", "Metrics", "Trace", "BatchTrace"]

#: per-round metrics, in column order
METRICS = ("objective_gap", "distance_to_optimum", "distance_to_truth", "support_f1", "rank")
#: stable column names of ``Trace.records``
COLUMNS = ("round", "iterations", "grad_evals", "clients_communicated") + METRICS + ("seed", "diverged")

#: relative tolerance of the domain-ball membership test (as ``Problem.objective``)
_BALL_TOL = 1e-9
#: rows from which the batched quadratic form uses one matrix–matrix product instead of blocked matvecs
_GEMM_ROWS = 16
#: support threshold relative to max|w°| (Bao et al.'s code uses the absolute 0.01 with max|w°| = 1)
SUPPORT_THRESHOLD = 1e-2


class Metrics:
    """Vectorized metric evaluation for one problem and reference (precomputed pieces reused every record)."""

    def __init__(self, problem: Any, reference: Any | None) -> None:
        self.problem = problem
        self.reference = reference
        self.w_ref = None if reference is None else problem.flat(np.asarray(reference.w, dtype=float))
        if self.w_ref is not None:
            Q, b, _ = problem.quadratic
            self.Q = np.ascontiguousarray(Q, dtype=float)
            self.grad_ref = matvec(self.Q, self.w_ref) - b
            self.h_ref = float(problem.penalty_value(problem.unflat(self.w_ref)))
            self.offset = float(problem.objective(problem.unflat(self.w_ref))) - float(reference.value)
        truth = problem.truth
        self.truth = None if truth is None else problem.flat(np.asarray(truth, dtype=float))
        pen = problem.penalty
        self.l1 = pen.name == "l1" and self.truth is not None
        if self.l1:
            self.true_support = self.truth != 0
            self.support_tol = SUPPORT_THRESHOLD * float(np.max(np.abs(self.truth), initial=0.0))
        self.nuclear = pen.name == "nuclear"

    def _quadratic_form(self, u: np.ndarray) -> np.ndarray:
        """uᵀQ̄u per row of u (N, d) (rows: replicas × recorded rounds, evaluated together).

        Only coordinates where a row is non-zero enter (exact zeros contribute exact zeros).  Dense rows (more than
        d/4 non-zeros) go through one product with Q̄ for all of them (Q̄ read once: a matrix–matrix product for
        :data:`_GEMM_ROWS` rows or more, else small single-threaded BLAS calls, :func:`matvec`); sparse rows (ℓ1
        iterates near a sparse optimum) read only the block of Q̄ on their support — one block for the union of their
        supports if that is still small, else one block per row."""
        d = u.shape[1]
        nz = u != 0
        sparse = nz.sum(axis=1) <= d // 4
        out = np.empty(u.shape[0])
        if not sparse.all():
            ud = u[~sparse]
            # many rows: one matrix–matrix product (Q̄ symmetric: u Q̄ = (Q̄ u)ᵀ); few rows: blocked matvec
            Qu = ud @ self.Q if ud.shape[0] >= _GEMM_ROWS else matvec(self.Q, ud.T).T
            out[~sparse] = np.einsum("rd,rd->r", Qu, ud)
        if sparse.any():
            rows = np.flatnonzero(sparse)
            support = np.flatnonzero(np.any(nz[rows], axis=0))
            if support.size <= d // 4:
                us = u[np.ix_(rows, support)]
                out[rows] = np.einsum("rd,rd->r", us @ self.Q[np.ix_(support, support)], us)
            else:
                for i in rows:
                    s = np.flatnonzero(nz[i])
                    ui = u[i, s]
                    out[i] = ui @ (self.Q[np.ix_(s, s)] @ ui)
        return out

    def reference_norm(self) -> float:
        return 0.0 if self.w_ref is None else float(np.linalg.norm(self.w_ref))

    def __call__(self, out: np.ndarray) -> dict[str, np.ndarray]:
        """Metrics of output points ``out`` ``(R, *shape)`` -> dict of (R,) arrays."""
        problem = self.problem
        wf = problem.flat(out)
        R = wf.shape[0]
        nan = np.full(R, np.nan)
        res = {name: nan.copy() for name in METRICS}
        if self.w_ref is not None:
            u = wf - self.w_ref
            dF = u @ self.grad_ref + 0.5 * self._quadratic_form(u)
            gap = dF + (problem.penalty_value(out) - self.h_ref) + self.offset
            if problem.radius is not None:
                gap = np.where(problem.norm(out) > problem.radius * (1 + _BALL_TOL), np.inf, gap)
            res["objective_gap"] = gap
            res["distance_to_optimum"] = np.linalg.norm(u, axis=-1)
        if self.truth is not None:
            res["distance_to_truth"] = np.linalg.norm(wf - self.truth, axis=-1)
        if self.l1:
            est = np.abs(wf) > self.support_tol
            tp = np.sum(est & self.true_support, axis=-1)
            fp = np.sum(est & ~self.true_support, axis=-1)
            fn = np.sum(~est & self.true_support, axis=-1)
            denom = 2 * tp + fp + fn
            res["support_f1"] = np.where(denom > 0, 2 * tp / np.maximum(denom, 1), 1.0)
        if self.nuclear:
            s = np.linalg.svd(out, compute_uv=False)
            tol = max(out.shape[-2:]) * np.spacing(s[..., 0])
            res["rank"] = np.sum(s > tol[..., None], axis=-1).astype(float)
        bad = ~np.all(np.isfinite(wf), axis=-1)
        if bad.any():
            for name in METRICS:
                res[name] = np.where(bad, np.nan, res[name])
        return res


@dataclass
class BatchTrace:
    """Result of a batched run: one row per (replica, recorded round) in ``records`` (columns :data:`COLUMNS`).

    Attributes:
        records: the per-round records (all replicas, ``seed`` column tells them apart).
        w: final output points, shape ``(R, *shape)`` (NaN rows for diverged replicas are frozen at their last
            finite state's output).
        seeds: the run seeds, one per replica.
        diverged: (R,) booleans.
        warnings: violated theorem conditions and other notes about the run.
        params: the run's parameters (algorithm, hyperparameters, problem summary, rounds, ...).
        state: the final algorithm state (leading replica axis).
    """

    records: pd.DataFrame
    w: np.ndarray
    seeds: list[int]
    diverged: np.ndarray
    warnings: list[str] = field(default_factory=list)
    params: dict[str, Any] = field(default_factory=dict)
    state: Any = None

    def trace(self, seed: int) -> Trace:
        """The single-seed :class:`Trace` of one replica."""
        i = self.seeds.index(seed)
        rec = self.records[self.records["seed"] == seed].reset_index(drop=True)
        params = dict(self.params, seed=seed)
        params.pop("seeds", None)
        return Trace(records=rec, w=self.w[i], seed=seed, diverged=bool(self.diverged[i]),
                     warnings=list(self.warnings), params=params, state=None)

    def final(self) -> pd.DataFrame:
        """The last record of every replica."""
        return self.records.groupby("seed", sort=False).tail(1).reset_index(drop=True)


@dataclass
class Trace:
    """Result of a single-seed run: ``records`` (columns :data:`COLUMNS`), final output ``w`` ``(*shape)``, ..."""

    records: pd.DataFrame
    w: np.ndarray
    seed: int
    diverged: bool
    warnings: list[str] = field(default_factory=list)
    params: dict[str, Any] = field(default_factory=dict)
    state: Any = None

    def final(self) -> dict[str, Any]:
        """The last record as a dict (metrics of a diverged run are NaN)."""
        return self.records.iloc[-1].to_dict()
