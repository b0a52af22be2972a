"""Das et al., the printed algorithm as printed: Poisson client sampling *and* privacy noise together, the random
returned point, and normalisation on a heterogeneous instance.

Algorithms 1–2 (line 3) include each client independently with probability p = r/n, each sampled client adds
N(0, rσ²I), and the server divides by r (line 12).  Given w_k and with g_i the clipped (normalised) update of
client i at w_k (computed here from the closed form of E local GD steps, independently of the algorithm's code),
a_k = (1/r)Σ_{i∈S_k}(g_i + ζ_i) has

    E[a_k] = ḡ = (1/n)Σ_i g_i,    E‖a_k − ḡ‖² = ((1 − p)/(rn)) Σ_i ‖g_i‖² + dσ²,

(E|S_k| = r; the sampling term vanishes at p = 1).  Claims:

* ``das.eq46/exact-drift-poisson-clip`` (``-norm``) — the exact conditional drift
  E[‖w_{k+1} − w*‖² | w_k] = ‖w_k − βḡ_k − w*‖² + β²((1 − p)/(rn))Σ_i‖g_i‖² + β²dσ², checked two-sided as in
  ``das.eq46/exact-drift-*``, at Poisson rate 0.5 with clipping (normalisation) active, and (norm) on a heterogeneous
  instance with full participation too, where normalising the average instead of each client shows;
* ``das.eq8/exact-poisson-noise`` — without clipping (C above every update norm, checked), E f(w_k) − f* follows
  the exact moment recursion including the sampling covariance
  (p(1 − p)/r²)Σ_i (A_i w − b_i)(A_i w − b_i)ᵀ (A_i = P_i, b_i = P_ic_i), two-sided over round windows (the whole run
  is the expectation over the random output k̃);
* ``das.output/random-iterate`` (``-norm``) — the returned point: with Poisson sampling and noise, the point the
  algorithm returns is w_{k̃} with k̃ uniform on {0, …, K−1} (line 13): every returned point is one of the run's
  own w_0..w_{K−1} (exactly), and the frequency of each index is 1/K (two-sided, exact binomial sd).

Every noise level is calibrated by the PLD accountant (:mod:`fedrates.solvers.privacy`) to the (ε, δ) stated in
the claim's regime, add/remove adjacency at client level (sum sensitivity C), K = the claim's rounds, rate p
(:func:`fedrates.verify.claims.das.instances.calibrated`).  The drift and moment claims are those of
:mod:`.identities` with the sampling terms added; the corrected step (23) under sampling is an erratum claim
(:mod:`fedrates.verify.claims.das.errata`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fedrates._lazy import lazy_import
from fedrates.verify import checks
from fedrates.verify.claims.base import Claim
from fedrates.verify.claims.das._checks import _records, _seeds_of, _table, _verdict, fold, inner_seeds
from fedrates.verify.claims.das.exact.identities import ExactDrift, ExactNoClip
from fedrates.verify.claims.das.instances import (
    HETERO,
    TIGHT,
    Instance,
    _make,
    _start,
    calibrated,
    exact_poisson_moments,
    instance,
    privacy_text,
    trajectory,
)

pd = lazy_import("pandas")

__all__ = ["CLAIMS", "ExactPoissonNoise", "PoissonDrift", "ReturnedPoint"]


# ==== exact drift with sampling ======================================================================================
@dataclass(frozen=True)
class PoissonDrift(ExactDrift):
    """The exact conditional drift with the Poisson sampling term (see the module docstring); ``configs`` carry
    ``rate`` and ``eps`` (σ calibrated) instead of σ."""

    def _sigma(self, cfg: dict) -> float:
        inst = instance(self.problem_params)
        return calibrated(cfg["eps"], self.rounds, cfg["C"], inst.n, cfg["rate"])

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        out = super().judge(records, profile)
        shares = [float(_table(records, "sampling_share", j).to_numpy().mean()) for j in range(len(self.configs))]
        sig = [self._sigma(c) for c in self.configs]
        out["message"] = (
            f"{out['message']}; share of the sampling term in the exact value: "
            + ", ".join(f"{s:.3f}" for s in shares)
            + "; "
            + "; ".join(f"point {j}: {privacy_text(c['eps'], c['rate'], self.rounds)}, sigma = {s:.4g}"
                        for j, (c, s) in enumerate(zip(self.configs, sig, strict=True)))
        )
        out["constants"].update({f"sigma_{j}": float(s) for j, s in enumerate(sig)})
        return out


# ==== exact moments without clipping, with sampling ==================================================================
@dataclass(frozen=True)
class ExactPoissonNoise(ExactNoClip):
    """E f(w_k) − f* of Algorithm 1 without clipping, Poisson sampling and calibrated noise (two-sided): the claim
    of :class:`ExactNoClip` with the moment recursion of :func:`exact_poisson_moments`; configurations give C, the
    rate and ε instead of σ."""

    #: what the claim measures instead of a distance to a certified optimum
    reference_free: str | None = 'a Monte-Carlo moment against its exact recursion: no optimum is measured'

    inner: int = 128

    def _sigma(self, cfg: dict) -> float:
        return calibrated(cfg["eps"], self.rounds, cfg["C"], instance(self.problem_params).n, cfg["rate"])

    def _windows(self, cfg: dict) -> list[tuple[int, int]]:
        K = self.rounds
        return [(0, K // 4), (K // 4, K // 2), (K // 2, K), (0, K)]

    def _run_hyper(self, cfg: dict) -> dict:
        return {"clip": cfg["C"], "sigma": self._sigma(cfg), "rate": cfg["rate"]}

    def _clip_limit(self, cfg: dict) -> tuple[float, str]:
        return cfg["C"], f"{cfg['C']:g}"

    def _exact_means(self, inst: Instance, cfg: dict, w0: np.ndarray) -> np.ndarray:
        return exact_poisson_moments(inst, cfg["eta"], cfg["beta"], cfg["E"], self._sigma(cfg), cfg["rate"],
                                     self.rounds, w0)

    def _describe(self, j: int, cfg: dict) -> str:
        return (f"point {j} ({privacy_text(cfg['eps'], cfg['rate'], self.rounds)}: sigma = {self._sigma(cfg):.4g}, "
                f"C = {cfg['C']:g})")

    def _finish(self, res: Any, conds: list, seeds: list, inst: Instance, y: np.ndarray, expected: np.ndarray) -> dict:
        width = float(np.max(4.0 * y.std(axis=0, ddof=1) / math.sqrt(len(seeds)) / np.abs(expected)))
        return _verdict(self, res, conds, seeds, {"L": inst.L, "n": inst.n, "d": inst.d},
                        margin=("resolution", width, None))


# ==== the returned point =============================================================================================
@dataclass(frozen=True)
class ReturnedPoint(Claim):
    """The returned point is w_{k̃}, k̃ uniform on {0..K−1} (line 13): support and law, two-sided."""

    #: what the claim measures instead of a distance to a certified optimum
    reference_free: str | None = "the law of the returned iterate's index: no optimum is measured"

    problem_params: dict = field(default_factory=lambda: dict(TIGHT))
    kind: str = "clip"
    rounds: int = 8
    rate: float = 0.5
    eps: float = 4.0
    C: float = 2.0
    offset: float = 6.0
    inner: int = 200

    def points(self, profile: str) -> list[dict]:
        return [{"problem": "quadratic", **self.problem_params, "rate": self.rate, "index": 0}]

    def simulate(self, point: dict, seeds: list[int]) -> pd.DataFrame:
        inst = instance(self.problem_params)
        K = self.rounds
        sigma = calibrated(self.eps, K, self.C, inst.n, self.rate)
        name = "dp_fedavg_clip" if self.kind == "clip" else "dp_normfedavg"
        alg = _make(self, name, step=0.05, server_step=0.05, clip=self.C, sigma=sigma, rate=self.rate,
                    local_steps=3, output_point="random")
        runs = inner_seeds(seeds, self.inner)
        run = trajectory(alg, inst, K, runs, _start(inst, self.offset), output=True)
        X = run["X"]
        dist = np.linalg.norm(X - run["w"][:, None], axis=-1)  # (R, K + 1)
        idx = np.argmin(dist, axis=1)
        scale = 1.0 + np.linalg.norm(X, axis=-1).max(axis=1)
        exact_match = dist[np.arange(len(runs)), idx] <= 1e-12 * scale
        # a returned point that is none of the run's iterates gets index K + 1 (outside every allowed bin)
        idx = np.where(exact_match, idx, K + 1)
        freq = np.stack([(idx == k).astype(float) for k in range(K + 2)], axis=1)  # bins 0..K and "none"
        return _records(self, 0, point, list(seeds), {self.metric: fold(freq, self.inner)},
                        index=np.arange(K + 2))

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        seeds = _seeds_of(records)
        K = self.rounds
        y = _table(records, self.metric).to_numpy()  # (S, K + 2): per-seed frequency of each index
        outside = float(y[:, K:].sum())  # w_K or no iterate at all: outside the support
        # the law through its first two moments: k~ uniform on {0..K-1} has E k = (K-1)/2, E k^2 = (K-1)(2K-1)/6;
        # per-seed means of k and k^2 from the frequencies, exact sd of one run from the uniform law
        k = np.arange(K)
        m1, m2 = float(k.mean()), float((k**2).mean())
        sd1, sd2 = float(k.std()), float((k**2).std())
        stats = np.stack([y[:, :K] @ k, y[:, :K] @ k**2], axis=1)
        res = checks.exact_expectation(stats, np.array([m1, m2]), sd=np.array([sd1, sd2]) / math.sqrt(self.inner))
        total = len(seeds) * self.inner
        freqs = y.mean(axis=0)
        msg = (f"index frequencies over {total} runs (k = 0..K-1, K, none): "
               + ", ".join(f"{v:.3f}" for v in freqs) + f"; uniform law: 1/K = {1 / K:.4f} on 0..K-1, 0 elsewhere; "
               f"E k = {m1:g}, E k^2 = {m2:g}")
        if outside > 0:
            res = checks.CheckResult("fail", f"{outside * self.inner:.0f} of {total} returned points outside "
                                     "{w_0..w_{K-1}}", "support {w_0, ..., w_{K-1}} (line 13)", "exact", msg)
        else:
            res.message = f"{res.message}; {msg}; every returned point is one of w_0..w_(K-1) exactly"
        width = 4.5 * sd1 / math.sqrt(total) / m1
        return _verdict(self, res, [], seeds, {"K": K}, margin=("resolution", width, None))


# ==== the catalogue ==================================================================================================
_POISSON_DRIFT = (
    {"eta": 0.1, "beta": 0.05, "E": 4, "C": 1.0, "rate": 0.5, "eps": 4.0},
    {"eta": 0.1, "beta": 0.05, "E": 4, "C": 4.0, "rate": 0.3, "eps": 8.0},
)
_HETERO_NORM = (
    {"eta": 0.1, "beta": 0.05, "E": 4, "C": 1.0, "rate": 1.0, "eps": 4.0},
    {"eta": 0.1, "beta": 0.05, "E": 4, "C": 1.0, "rate": 0.5, "eps": 4.0},
)

CLAIMS: tuple[Claim, ...] = (
    PoissonDrift(
        id="das.eq46/exact-drift-poisson-clip",
        theorem="das.eq46",
        title="Algorithm 1 with Poisson sampling and noise: E[||w_{k+1} - w*||^2 | w_k] = ||w_k - beta g_k - w*||^2 "
        "+ beta^2 ((1 - p)/(r n)) sum ||g_i||^2 + beta^2 d sigma^2 exactly",
        algorithm="dp_fedavg_clip",
        problem="quadratic",
        regime=(
            "Tight-spread random quadratics (10 clients, d = 8), w_0 = w* + 6v, E = 4, eta = 0.1, beta = 0.05, "
            "Poisson rate p = r/n in {0.5, 0.3}, C in {1, 4} (all / part of the updates clipped), 30 rounds, "
            "sigma calibrated by the PLD accountant to (eps, delta) = (4, 1e-5) and (8, 1e-5), add/remove, "
            "client level; g recomputed from w_k by the closed form; the per-seed round mean of realised/exact has "
            "expectation exactly 1 (two-sided)."
        ),
        why="the printed algorithm (sampling and noise together) against its exact one-round drift",
        metric="drift_ratio",
        x="round",
        configs=_POISSON_DRIFT,
        kind="clip",
        inner=4,
        n_seeds={"quick": 16, "standard": 24, "full": 40},
    ),
    PoissonDrift(
        id="das.eq46/exact-drift-poisson-norm",
        theorem="das.thm6",
        title="Algorithm 2 on a heterogeneous instance, full participation and Poisson sampling with noise: the "
        "exact conditional drift (normalised g_i per client)",
        algorithm="dp_normfedavg",
        problem="quadratic",
        regime=(
            "Heterogeneous random quadratics (spread 1; 10 clients, d = 8), w_0 = w* + 6v, E = 4, eta = 0.1, "
            "beta = 0.05, C = 1 (every update normalised), rate 1 and 0.5, sigma calibrated to (4, 1e-5) by PLD "
            "(add/remove), 30 rounds; two-sided."
        ),
        why="normalising per client vs after averaging differs most when the client updates disagree",
        metric="drift_ratio",
        x="round",
        problem_params=dict(HETERO),
        configs=_HETERO_NORM,
        kind="norm",
        inner=4,
        n_seeds={"quick": 16, "standard": 24, "full": 40},
    ),
    ExactPoissonNoise(
        id="das.eq8/exact-poisson-noise",
        theorem="das.eq8",
        title="Algorithm 1 without clipping under Poisson sampling and noise: E f(w_k) - f* equals the exact moment "
        "recursion with the sampling covariance (two-sided)",
        algorithm="dp_fedavg_clip",
        problem="quadratic",
        regime=(
            "Random quadratics (10 clients, d = 8, spread 1), w_0 = w* + 3v, eta = beta = 0.1 and beta = 0.04, E "
            "= 4, Poisson rate 0.5 and 0.3, C = 40 (above every update norm: checked), 40 rounds, sigma calibrated "
            "to (eps, delta) = (40, 1e-5) by PLD (add/remove; a weak guarantee, so that the sampling term is "
            "visible next to the noise); windows of rounds and the whole run (= E over k~)."
        ),
        why="exact expectation of the printed algorithm: catches noise scaled for n instead of r, division by "
        "|S_k|, a wrong server step",
        metric="objective_gap",
        x="round",
        configs=(
            {"eta": 0.1, "beta": 0.1, "E": 4, "C": 40.0, "rate": 0.5, "eps": 40.0},
            {"eta": 0.1, "beta": 0.04, "E": 4, "C": 40.0, "rate": 0.3, "eps": 40.0},
        ),
        n_seeds={"quick": 16, "standard": 24, "full": 50},
    ),
    ReturnedPoint(
        id="das.output/random-iterate",
        theorem="das.thm2",
        title="Algorithm 1 returns w_k~ with k~ uniform on {0, ..., K-1} (line 13): support and law, two-sided",
        algorithm="dp_fedavg_clip",
        problem="quadratic",
        regime=(
            "Tight-spread random quadratics (10 clients, d = 8), K = 8, Poisson rate 0.5, C = 2, sigma calibrated "
            "to (4, 1e-5) by PLD (add/remove); each returned point is matched exactly to its own run's iterates; "
            "E k~ = (K-1)/2 and E k~^2 = (K-1)(2K-1)/6 two-sided with the exact sd of the uniform law (99.99% "
            "family-wise)."
        ),
        why="every theorem bounds E over k~ uniform on {0..K-1}: the returned point must be that one",
        metric="index_frequency",
        x="round",
        n_seeds={"quick": 12, "standard": 20, "full": 40},
    ),
    ReturnedPoint(
        id="das.output/random-iterate-norm",
        theorem="das.thm4",
        title="Algorithm 2 returns w_k~ with k~ uniform on {0, ..., K-1} (line 13): support and law, two-sided",
        algorithm="dp_normfedavg",
        problem="quadratic",
        regime="As das.output/random-iterate for Algorithm 2.",
        why="the returned point of Algorithm 2",
        metric="index_frequency",
        x="round",
        kind="norm",
        n_seeds={"quick": 12, "standard": 20, "full": 40},
    ),
)
