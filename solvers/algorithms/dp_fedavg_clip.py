"""DP-FedAvg with client-update clipping (Das, Hashemi, Sanghavi, Dhillon, "On the Convergence of Differentially
Private Federated Learning on Non-Lipschitz Objectives, and with Normalized Client Updates", Algorithm 1).

Objective: f(w) = Σ_i π_i f_i(w) (the paper: π_i = 1/n), smooth problems only, over ℝ^d.

Round k (paper's letters: n clients, participation r = rate·n, local step η, server step β, threshold C, noise σ):

    S_k: every client included independently with probability r/n   (rate = 1: S_k = [n], full participation)
    w_{k,0}^(i) = w_k;   w_{k,τ+1}^(i) = w_{k,τ}^(i) − η ∇f_i(w_{k,τ}^(i)),  τ = 0..E−1     (line 6–7)
    u_k^(i) = (w_k − w_{k,E}^(i))/η = Σ_{τ<E} ∇f_i(w_{k,τ}^(i))                             (line 9, eq. 19)
    g_k^(i) = clip(u_k^(i), C) = u_k^(i) min(1, C/‖u_k^(i)‖)                                  (eq. 4)
    client i sends g_k^(i) + ζ_k^(i),  ζ_k^(i) ~ N(0, r σ² I_d)                               (line 10)
    a_k = (1/r) Σ_{i∈S_k} (g_k^(i) + ζ_k^(i));   w_{k+1} = w_k − β a_k                        (line 12)

With full participation the averaged noise is exactly N(0, σ² I_d); under Poisson sampling its covariance is
(|S_k|/r) σ² I_d (the division is by r, not by |S_k|, as in the paper).  σ is the std of the *server-averaged*
noise; :func:`fedrates.solvers.constants.dp_sigma` calibrates it from (ε, δ, q, K, C, n) by the paper's eq. (5).

Returned point (line 13): w_{k̃} with k̃ uniform on {0, …, K−1} (``output_point="random"``, the iterate the
theorems bound; kept by reservoir sampling, so after k rounds it is uniform over w_0..w_{k−1}), or the last iterate
w_K (``"last"``, what the paper's Figure 1 plots).  Both are kept in the state (``pick`` and ``x``).

Randomness.  The noise of client i is drawn from its own stream, derived from the run seed's client stream and
``noise_seed``: SeedSequence(seed, spawn_key=(i + 1, NOISE_KEY, noise_seed)).  It does not depend on the gradient
oracle's draws, so two runs with equal (seed, noise_seed) — e.g. clipping and normalisation — use *identical*
noise vectors (the paired comparisons of §5.3), and a different ``noise_seed`` gives independent noise.  The
server stream (Poisson sampling, the random output iterate) is SeedSequence(seed, spawn_key=(SERVER_KEY,
noise_seed)).

Diagnostics of the last round are kept in the state: ``u`` (R, n, d) the client updates, ``g_mean`` (R, d) =
(1/r)Σ_{i∈S_k} g_k^(i), ``z_mean`` (R, d) = (1/r)Σ_{i∈S_k} ζ_k^(i), ``sampled`` (R, n) the mask of S_k.

With σ = 0, C ≥ max‖u‖ and rate = 1 the round is FedAvg's (Algorithm 3 = ``fedavg`` with step η and server step
β/η); tests check the reduction.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from fedrates.solvers import seed_streams
from fedrates.solvers.algorithms.base import Algorithm, RoundContext, hyper, register
from fedrates.solvers.algorithms.fedavg import smooth_only
from fedrates.solvers.errors import InputError

__all__ = ["DPFedAvgClip", "clip_rows", "noise_streams", "NOISE_KEY", "SERVER_KEY"]

#: spawn-key tags separating the privacy-noise and server streams from the gradient streams of a run seed
NOISE_KEY = 7_003
SERVER_KEY = 7_004


def clip_rows(U: np.ndarray, C: float, norms: np.ndarray | None = None) -> np.ndarray:
    """clip(u, C) = u·min(1, C/‖u‖) over the last axis (eq. 4); a zero row stays zero."""
    norms = np.linalg.norm(U, axis=-1) if norms is None else norms
    with np.errstate(divide="ignore", invalid="ignore"):
        factor = np.where(norms > C, C / np.where(norms > 0, norms, 1.0), 1.0)
    return U * factor[..., None]


class NoiseBuffer:
    """Standard normal draws of every (replica, client) noise stream, :data:`NOISE_BLOCK` rounds at a time.

    One call per stream and block instead of one per round; a Generator's draws of shape (B, d) are its next B
    draws of shape (d,) in order, so round k receives exactly the vector it would receive drawn round by round.
    ``rounds_left`` (set by the round from :attr:`RoundContext.rounds_left`) caps a block at the rounds the run still
    has: a run of 3 rounds draws 3 rounds of noise, not 32 (the numbers it uses are the same)."""

    def __init__(self, streams: list, d: int, block: int) -> None:
        self.streams, self.d, self.block = streams, d, block
        self.buf = np.empty((len(streams), len(streams[0]) if streams else 0, block, d))
        self.pos = self.filled = 0
        self.rounds_left: int | None = None

    def next(self) -> np.ndarray:
        """The next round's draws (R, n, d): a view of the buffer, valid until the next call (the caller scales it
        into a new array at once, :meth:`DPFedAvgClip.draw_noise`)."""
        if self.pos == self.filled:
            left = self.rounds_left
            self.filled = self.block if left is None else max(1, min(self.block, int(left)))
            for r, row in enumerate(self.streams):
                for i, g in enumerate(row):
                    g.standard_normal(out=self.buf[r, i, :self.filled])
            self.pos = 0
        out = self.buf[:, :, self.pos]
        self.pos += 1
        return out


#: rounds of noise drawn per stream call (see :class:`NoiseBuffer`)
NOISE_BLOCK = 32


def _run_entropy(ctx: RoundContext, replica: int) -> int:
    """The run seed of a replica, read back from its client streams (SeedSequence(seed).spawn(K + 1))."""
    rngs = ctx.client_rngs[replica]  # the per-replica client streams (see solvers.oracles)
    seed = getattr(rngs, "seed", None)  # ClientStreams knows it without building a generator
    return int(seed) if seed is not None else int(rngs[0].bit_generator.seed_seq.entropy)


def noise_streams(ctx: RoundContext, replicas: int, clients: int, noise_seed: int) -> tuple[list, list]:
    """(noise streams [R][n], server streams [R]) of the run (see the module docstring)."""
    seeds = [_run_entropy(ctx, r) for r in range(replicas)]
    # default_rng(SeedSequence(seed, spawn_key=(i + 1, NOISE_KEY, noise_seed))) per replica and client, hashed at once
    flat = seed_streams.generators([(seed, (i + 1, NOISE_KEY, noise_seed)) for seed in seeds for i in range(clients)])
    noise = [flat[r * clients:(r + 1) * clients] for r in range(replicas)]
    server = seed_streams.generators([(seed, (SERVER_KEY, noise_seed)) for seed in seeds])
    return noise, server


@register
@dataclass(frozen=True, kw_only=True)
class DPFedAvgClip(Algorithm):
    """DP-FedAvg with clipped client updates (Algorithm 1; see the module docstring)."""

    name = "dp_fedavg_clip"
    summary = "DP-FedAvg: E local GD steps, client update clipped to norm C, Gaussian noise, server step beta"

    step: float = hyper(0.01, "local step size eta > 0", low=0.0, strict=True)
    server_step: float = hyper(0.01, "server step size beta > 0 (the theorems use beta = eta)", low=0.0, strict=True)
    clip: float = hyper(1.0, "clipping threshold C > 0 on u = (w_k - w_{k,E})/eta", low=0.0, strict=True)
    sigma: float = hyper(0.0, "std sigma >= 0 of the server-averaged Gaussian noise (per client sqrt(r) sigma)",
                         low=0.0)
    rate: float = hyper(1.0, "participation probability r/n in (0, 1] (Poisson sampling; 1 = every client)",
                        low=0.0, strict=True)
    noise_seed: int = hyper(0, "noise stream selector >= 0 (equal seeds and noise_seed: identical noise)", low=0)
    output_point: str = hyper("random", "returned point: random iterate w_k~ (theorems) or last iterate w_K",
                              choices=("random", "last"))

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.rate > 1.0:
            raise InputError(f"hyperparameter rate={self.rate!r} of {self.name} is out of range; expected "
                             "0 < rate <= 1 (the participation probability r/n)")

    def supports(self, problem: Any) -> str | None:
        return smooth_only(self.name, problem)

    def bytes_per_client(self, problem: Any) -> float:
        """Each client's noise stream and its :class:`NoiseBuffer` rows (:data:`NOISE_BLOCK` rounds of d draws)."""
        from fedrates.solvers.oracles import STREAM_BYTES

        return STREAM_BYTES + 8.0 * NOISE_BLOCK * problem.dim

    # ---- pieces (overridden by the normalised variant and by broken variants in soundness tests) ----
    def transform(self, U: np.ndarray, norms: np.ndarray, ctx: RoundContext) -> np.ndarray:
        """g = clip(u, C) per client (eq. 4)."""
        return clip_rows(U, self.clip, norms)

    def client_updates(self, x: np.ndarray, problem: Any, ctx: RoundContext) -> np.ndarray:
        """u^(i) = (w_k − w_{k,E}^(i))/η after E local gradient steps from w_k: (R, n, d)."""
        R, m = ctx.clients.shape
        xb = x[:, None]
        W = np.broadcast_to(xb, (R, m) + problem.shape).copy()
        for _ in range(self.local_steps):
            W -= self.step * ctx.gradients(W)
        return (xb - W) / self.step

    def draw_noise(self, state: dict[str, Any], shape: tuple[int, ...]) -> np.ndarray:
        """ζ^(i) ~ N(0, r σ² I) per client, each from its own noise stream: (R, n, d)."""
        R, n, d = shape
        buffer = state.get("noise_buf")
        if buffer is None or buffer.streams is not state["noise_rngs"] or buffer.buf.shape[:2] != (R, n):
            Z = np.empty(shape)  # no buffer of this run's streams (e.g. a state built elsewhere): round by round
            for r in range(R):
                for i, g in enumerate(state["noise_rngs"][r]):
                    g.standard_normal(out=Z[r, i])
        else:
            Z = buffer.next()
        return Z * (np.sqrt(self.rate * n) * self.sigma)

    def aggregate(self, G: np.ndarray, Z: np.ndarray, mask: np.ndarray, r: float) -> tuple[np.ndarray, np.ndarray]:
        """((1/r)Σ_{i∈S} g^(i), (1/r)Σ_{i∈S} ζ^(i)), each (R, d)."""
        w = mask / r
        return np.einsum("rn,rnd->rd", w, G), np.einsum("rn,rnd->rd", w, Z)

    def server(self, x: np.ndarray, a: np.ndarray) -> np.ndarray:
        """w_{k+1} = w_k − β a_k."""
        return x - self.server_step * a

    # ---- protocol ----
    def init(self, problem: Any, w0: np.ndarray) -> dict[str, Any]:
        x = np.array(w0, dtype=float)
        R, n = x.shape[0], problem.clients
        return {"x": x, "pick": x.copy(), "k": 0, "noise_rngs": None, "server_rngs": None, "noise_buf": None,
                "u": np.zeros((R, n) + x.shape[1:]), "u_norm": np.zeros((R, n)), "g_mean": np.zeros_like(x),
                "z_mean": np.zeros_like(x), "sampled": np.zeros((R, n))}

    def round(self, state: dict[str, Any], problem: Any, ctx: RoundContext) -> dict[str, Any]:
        x = state["x"]
        R, m = ctx.clients.shape
        n = problem.clients
        if m != n:
            raise InputError(f"{self.name} samples its clients itself (rate={self.rate:g}); run it with "
                             f"participating=None (got {m} of {n} clients per round)")
        if problem.dim != x.shape[-1] or len(problem.shape) != 1:
            raise InputError(f"{self.name} handles vector models only; problem has shape {problem.shape}")
        if state["noise_rngs"] is None:
            state = {**state}
            state["noise_rngs"], state["server_rngs"] = noise_streams(ctx, R, n, self.noise_seed)
            state["noise_buf"] = NoiseBuffer(state["noise_rngs"], x.shape[-1], NOISE_BLOCK)
        if state.get("noise_buf") is not None:
            state["noise_buf"].rounds_left = getattr(ctx, "rounds_left", None)
        U = self.client_updates(x, problem, ctx)
        norms = np.linalg.norm(U, axis=-1)
        G = self.transform(U, norms, ctx)
        Z = self.draw_noise(state, U.shape)
        if self.rate >= 1.0:
            mask = np.ones((R, n))
        else:
            mask = np.stack([g.random(n) < self.rate for g in state["server_rngs"]]).astype(float)
        g_mean, z_mean = self.aggregate(G, Z, mask, self.rate * n)
        x_new = self.server(x, g_mean + z_mean)
        # reservoir: after this round the output is uniform over w_0..w_k (w_k = x, replaced w.p. 1/(k+1))
        k = state["k"]
        take = np.array([g.random() < 1.0 / (k + 1) for g in state["server_rngs"]])
        pick = np.where(take[:, None], x, state["pick"])
        return {"x": x_new, "pick": pick, "k": k + 1, "noise_rngs": state["noise_rngs"],
                "server_rngs": state["server_rngs"], "noise_buf": state.get("noise_buf"), "u": U, "u_norm": norms,
                "g_mean": g_mean, "z_mean": z_mean, "sampled": mask}

    def output(self, state: dict[str, Any]) -> np.ndarray:
        return state["pick"] if self.output_point == "random" else state["x"]
