"""Shared machinery of the complexity-separation methods (Bylinkin et al.).

* Problems: the ``separation`` family (:mod:`fedrates.solvers.problems.separation`); the methods work on the group
  means f, g and the server's f_1, g_1 (:func:`~fedrates.solvers.problems.separation.split`), vectorized over
  replicas: points have shape (R, d).
* Communication: every method counts **rounds with M_f** and **rounds with M_g** separately in its state
  (``rounds_f``, ``rounds_g``, integer arrays (R,)); a round is one synchronous exchange of the server with every
  node of that group.  Server-side subproblems cost no communication.
* Randomness: coins and epoch lengths of replica r come from one server-side stream per replica,
  ``make_streams(seed_r, K).clients[0]`` — the stream of the first client, which the exact-gradient oracle never
  uses — so :func:`simulate` and the generic runner give bit-identical results for equal seeds.  A replica draws
  only the coins it uses (an epoch that has ended draws none), so its run does not depend on the other seeds of
  its batch.
* Subproblems ``min_x ½xᵀMx − rᵀx`` (M symmetric positive definite when the instance's convexity preconditions
  hold) are solved ``exact`` (linear solve) or ``boundary``: x̄ = A* + s(c − A*) with c the prox centre and s ≤ 1
  chosen so that ‖∇A(x̄)‖² equals ``factor``·C‖c − A*‖² exactly — an iterative solver started at c and stopped
  exactly when the paper's accuracy criterion (constant C) first holds.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from fedrates.solvers import seed_streams
from fedrates.solvers.errors import InputError
from fedrates.solvers.problems.separation import Split, split

__all__ = ["Coins", "coins_for_seeds", "coins_from_context", "solve_subproblem", "supports_separation",
           "simulate", "SUBPROBLEM_MODES", "MAX_INNER"]

SUBPROBLEM_MODES = ("exact", "boundary")
#: cap on inner iterations of one subproblem solve (a run hitting it is reported as diverged)
MAX_INNER = 100_000
_BLOCK = 256


class Coins:
    """Uniform draws in [0, 1), one stream per replica, drawn in blocks (identical to one-at-a-time drawing).

    Each replica keeps its own position in its stream: a draw restricted to some replicas (``draw``) leaves the
    others' streams where they are, so a replica's numbers never depend on which replicas share its batch."""

    def __init__(self, gens: Sequence[np.random.Generator]) -> None:
        self.gens = list(gens)
        self._buf = np.empty((len(self.gens), _BLOCK))
        self._pos = np.full(len(self.gens), _BLOCK, dtype=np.intp)
        self._rows = np.arange(len(self.gens))
        self._calls_left = 0  # calls before some replica can reach the end of its block (every call moves ≤ 1)

    def _refill(self) -> None:
        """Draw the next block of every replica whose block is used up (the same numbers as drawing on demand)."""
        for r in np.flatnonzero(self._pos == _BLOCK):
            self.gens[r].random(out=self._buf[r])
            self._pos[r] = 0
        self._calls_left = _BLOCK - int(self._pos.max(initial=0))

    def uniform(self, draw: np.ndarray | None = None) -> np.ndarray:
        """The next uniform of each replica's stream, (R,); with ``draw`` (bool (R,)) only the replicas marked
        True take one (the others get NaN and their streams do not move)."""
        if self._calls_left <= 0:
            self._refill()
        self._calls_left -= 1
        out = self._buf[self._rows, self._pos]
        if draw is None:
            self._pos += 1
        else:
            take = np.asarray(draw, dtype=bool)
            out[~take] = np.nan
            self._pos += take
        return out

    def take(self, counts: np.ndarray) -> np.ndarray:
        """The next ``counts[r]`` uniforms of each replica r's stream at once, (R, max counts), NaN past
        ``counts[r]``: the numbers of ``counts[r]`` calls of :meth:`uniform` that mark replica r."""
        counts = np.asarray(counts, dtype=np.intp)
        out = np.full((len(self.gens), int(counts.max(initial=0))), np.nan)
        for r in np.flatnonzero(counts > 0):
            need, filled = int(counts[r]), 0
            while filled < need:
                if self._pos[r] == _BLOCK:
                    self.gens[r].random(out=self._buf[r])
                    self._pos[r] = 0
                k = min(need - filled, _BLOCK - int(self._pos[r]))
                out[r, filled:filled + k] = self._buf[r, self._pos[r]:self._pos[r] + k]
                self._pos[r] += k
                filled += k
        self._calls_left = 0  # positions moved by more than one: look for used-up blocks before the next draw
        return out

    def bernoulli(self, p: float, draw: np.ndarray | None = None) -> np.ndarray:
        """Be(p) per replica (bool (R,)); ``draw`` as in :meth:`uniform` (False where no coin is drawn)."""
        return self.uniform(draw) < p

    def geometric(self, q: float) -> np.ndarray:
        """Geom(q) on {1, 2, ...} per replica: ⌈ln U / ln(1 − q)⌉ with U = 1 − uniform ∈ (0, 1]."""
        u = 1.0 - self.uniform()
        t = np.ceil(np.log(u) / np.log1p(-q))
        return np.maximum(t, 1).astype(np.int64)


def coins_for_seeds(seeds: Sequence[int], clients: int) -> Coins:
    """The streams ``make_streams(seed, clients).clients[0]``, building only that generator per seed."""
    return Coins(seed_streams.generators([(int(s), (1,)) for s in seeds]))  # SeedSequence(s).spawn(K + 1)[1]


def coins_from_context(state: dict, ctx: Any) -> Coins:
    """The replica streams of a run under the generic runner (first client's stream of each replica)."""
    coins = state.get("_coins")
    if coins is None:
        coins = Coins([gens[0] for gens in ctx.client_rngs])
    return coins


def supports_separation(name: str, problem: Any) -> str | None:
    if getattr(problem, "family", None) != "separation":
        return (f"{name} needs a two-group federation (problem family 'separation'); got "
                f"{getattr(problem, 'family', problem)!r}")
    return None


def precondition_warnings(problem: Any, needs: tuple[str, ...]) -> list[str]:
    """Violated assumptions of the analysing theorem on a separation problem (the run proceeds)."""
    if getattr(problem, "family", None) != "separation":
        return []
    sp = split(problem)
    table = {
        "ass2": (sp.mu < sp.delta_f < sp.delta_g, f"Assumption 2 needs mu < delta_f < delta_g; got mu={sp.mu:.4g}, "
                                                   f"delta_f={sp.delta_f:.4g}, delta_g={sp.delta_g:.4g}"),
        "h1": (sp.lambda_min_h1 >= 0, f"h_1 = f_1 + g_1 is not convex (lambda_min = {sp.lambda_min_h1:.4g}): the "
                                      "proofs' 1/theta-strongly convex subproblem fails"),
        "f1g": (sp.lambda_min_f1_plus_g >= 0, f"f_1 + g is not convex (lambda_min = {sp.lambda_min_f1_plus_g:.4g}): "
                                              "Kovalev et al.'s theorem does not apply"),
        "g": (sp.lambda_min_g >= 0, f"g is not convex (lambda_min = {sp.lambda_min_g:.4g}): Assumption 3 fails"),
    }
    return [table[n][1] for n in needs if not table[n][0]]


def solve_subproblem(M: np.ndarray, r: np.ndarray, centre: np.ndarray, mode: str, crit: float,
                     factor: float = 1.0, Minv: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Minimise ½xᵀMx − rᵀx for every replica (r, centre: (R, d)); return (x̄, A*).

    ``boundary``: x̄ = A* + s(centre − A*), s = min(1, √(factor·crit)‖centre − A*‖/‖M(centre − A*)‖), so that
    ‖∇A(x̄)‖² = factor·crit·‖centre − A*‖² (or x̄ = centre when the centre already meets the criterion).
    ``Minv`` (the inverse of the symmetric M, when the caller reuses it) replaces the linear solve.
    """
    star = r @ Minv if Minv is not None else np.linalg.solve(M, r.T).T
    if mode == "exact":
        return star, star
    D = centre - star
    MD = D @ M
    nd = np.sqrt(np.einsum("ri,ri->r", D, D))
    nmd = np.sqrt(np.einsum("ri,ri->r", MD, MD))
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.where(nmd > 0, np.sqrt(factor * crit) * nd / nmd, 0.0)
    s = np.minimum(s, 1.0)
    return star + s[:, None] * D, star


def check_fraction(name: str, value: float) -> None:
    if value != 0 and not 0 < value < 1:
        raise InputError(f"hyperparameter {name}={value!r} is not valid; expected {name} in (0, 1) (0 = the "
                         f"paper's tuning)")


def counters(R: int) -> dict[str, np.ndarray]:
    return {"rounds_f": np.zeros(R, dtype=np.int64), "rounds_g": np.zeros(R, dtype=np.int64)}


def simulate(alg: Any, problem: Any, iterations: int, seeds: Sequence[int], w0: np.ndarray | None = None,
             record: Any = None) -> dict:
    """Run ``alg`` (a separation method) for ``iterations`` of its ``round`` on every seed at once.

    Faster than the generic runner (no per-round metrics against a reference): returns the final state.
    ``record(k, state)`` is called after every iteration (k = 1..iterations) and once at k = 0.
    """
    sp: Split = split(problem)
    R = len(seeds)
    W0 = np.zeros((R, problem.dim)) if w0 is None else np.broadcast_to(np.asarray(w0, float), (R, problem.dim))
    state = alg.init(problem, W0.copy())
    state["_coins"] = coins_for_seeds(seeds, problem.clients)
    if record is not None:
        record(0, state)
    for k in range(iterations):
        with np.errstate(over="ignore", invalid="ignore"):
            state = alg.step(state, sp, state["_coins"])
        if record is not None:
            record(k + 1, state)
    return state
