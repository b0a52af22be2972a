"""Gradient oracles, vectorized over replicas (seeds) and clients.

Randomness: a run seed s gives ``SeedSequence(s).spawn(K + 1)``: stream 0 is the server's (client sampling), and
stream 1 + k belongs to client k.  A client draws from its own stream only when it computes a stochastic gradient,
so results do not depend on which other clients participate or in which order they are processed, and equal seeds
give bit-identical results.

Per local step, client k consumes exactly one *draw unit* from its stream:

* ``empirical`` without replacement — ``u = g.random(B)``; Floyd's algorithm turns u into a uniformly random
  B-subset of the client's n samples (as in Bao et al.'s experiments): for i = 0..B−1 with j = n − B + i,
  t = ⌊u_i (j + 1)⌋, and the subset gains t, or j if t is already in it;
* ``empirical`` with replacement — ``u = g.random(B)``, indices ⌊u·n⌋;
* ``population`` — ``g.standard_normal((B, d + 1))``: x = m_k + F g (first d columns), y = xᵀw° + σ_ε e (last);
* ``gaussian`` — ``g.standard_normal(d)`` (only when σ > 0).

The minibatch gradient is g = (1/B) Σ_{i∈batch} x_i(x_iᵀw_k − y_i) for sample-based problems and
∇f_k(w_k) + (σ/√(dB)) ζ for ``gaussian`` problems (E‖noise‖² = σ²/B).  All are unbiased for ∇f_k(w_k).

``Generator.random`` and ``Generator.standard_normal`` fill arrays sequentially, so drawing several steps in one
call gives exactly the numbers of step-by-step calls: :class:`GradientOracle` draws a whole round's units per
client in one call (bounded by a memory budget) and the results are identical to step-by-step drawing, whatever
the number of replicas processed together.  With ``prefetch=True`` (``empirical`` sampling) it also draws *across
rounds*: several rounds' units per client in one call, served round by round, in the order of the client's own
consumption (a client not participating in a round consumes nothing), so the results are again identical.  This
is exact only when nothing else draws from the client streams meanwhile: the runner turns it on only for
algorithms that declare they never read ``RoundContext.client_rngs``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from fedrates.solvers import kernels, seed_streams
from fedrates.solvers.problems.base import Problem
from fedrates.solvers.problems.datafits import DenseQuadratic, GaussianPopulation, SampleLeastSquares
from fedrates.solvers.problems.structured_quadratic import StructuredQuadratic

__all__ = ["Streams", "make_streams", "make_streams_many", "minibatch_gradients", "exact_gradients", "GradientOracle"]

#: largest number of float64 values drawn ahead in one round (64 MB)
_PREFETCH_BUDGET = 1 << 23
#: bytes of minibatch rows gathered at once (fits in a typical L2 cache)
_CHUNK_BYTES = 1 << 20
#: largest number of minibatch-row indices held ahead across rounds per oracle (16 MB)
_AHEAD_BUDGET = 1 << 21
#: uniforms drawn at once before they are turned into rows (256 kB: they stay in cache)
_SCRATCH = 1 << 15


@dataclass
class Streams:
    """The random streams of one run: one for the server, one per client."""

    server: np.random.Generator
    clients: Sequence[np.random.Generator]


class ClientStreams(Sequence):
    """The clients' generators of one seed, built on first access: item k is
    ``default_rng(SeedSequence(seed).spawn(K + 1)[1 + k])`` (the same child,
    ``SeedSequence(seed, spawn_key=(1 + k,))``), so a run whose gradients draw nothing (exact gradients, σ = 0)
    never builds the K generators of 10⁵ clients.  Streams made together (:func:`make_streams_many`) share a
    :class:`_StreamPool`: the first access to client k of any of them builds client k's generator of every seed in
    one vectorised hash (:func:`fedrates.solvers.seed_streams.generators`, the same streams)."""

    def __init__(self, seed: int, clients: int, pool: _StreamPool | None = None) -> None:
        self._seed, self._count = int(seed), int(clients)
        self._built: dict[int, np.random.Generator] = {}
        self._pool = pool

    @property
    def seed(self) -> int:
        """The run seed these streams derive from."""
        return self._seed

    def __len__(self) -> int:
        return self._count

    def _one(self, k: int) -> np.random.Generator:
        g = self._built.get(k)
        if g is None:
            if self._pool is not None and self._pool.fill(k):
                return self._built[k]
            g = self._built[k] = np.random.default_rng(np.random.SeedSequence(self._seed, spawn_key=(1 + k,)))
        return g

    def __getitem__(self, index):  # type: ignore[no-untyped-def]  # noqa: ANN001, ANN204 - Sequence protocol
        if isinstance(index, slice):
            return [self._one(k) for k in range(*index.indices(self._count))]
        k = int(index)
        if k < 0:
            k += self._count
        if not 0 <= k < self._count:
            raise IndexError(f"client {index} out of range 0..{self._count - 1}")
        return self._one(k)

    def __iter__(self) -> Iterator[np.random.Generator]:
        if self._pool is not None:  # every client is about to be built: build them with the other seeds' at once
            self._pool.fill_all(self._count)
        return (self._one(k) for k in range(self._count))

    def build(self, clients: Iterable[int]) -> None:
        """Build the generators of ``clients`` (in range) not built yet, together with the same clients' of the
        other seeds made with these streams, in one vectorised hash: what a round of many participants needs,
        without one hash per client."""
        if self._pool is not None and len(self._built) < self._count:
            missing = [k for k in clients if k not in self._built]
            if missing:
                self._pool.fill_many(missing)

    def take(self, clients: Sequence[int]) -> list[np.random.Generator]:
        """``[self[k] for k in clients]`` (clients in range), built as :meth:`build` builds them."""
        self.build(clients)
        return [self._one(k) for k in clients]


#: streams hashed in one call when a pool builds every client (bounds the hash's temporary arrays)
_FILL_CHUNK = 1 << 15


class _StreamPool:
    """The client streams of the seeds of one run: client k's generators of every seed are built together, on the
    first access to client k of any seed (runs use a client in every replica, or in none: exact gradients, or only
    client 0's stream for a replica's own coins)."""

    def __init__(self) -> None:
        self.members: list[ClientStreams] = []
        self._filled: set[int] = set()

    def fill(self, k: int) -> bool:
        """Build client k's generator of every member that has not built it (once per k); False when done before."""
        if k in self._filled:
            return False
        self._filled.add(k)
        wanted = [m for m in self.members if k not in m._built]
        for m, g in zip(wanted, seed_streams.generators([(m.seed, (1 + k,)) for m in wanted]), strict=True):
            m._built[k] = g
        return True

    def fill_all(self, clients: int) -> None:
        """Build every client's generator of every member (the clients not filled yet), hashed together in chunks
        of :data:`_FILL_CHUNK` streams: what iterating over one member's streams is about to need client by client."""
        self.fill_many(range(clients))

    def fill_many(self, clients: Iterable[int]) -> None:
        """Build the generators of ``clients`` of every member (those not filled yet), hashed together in chunks of
        :data:`_FILL_CHUNK` streams."""
        todo = list(dict.fromkeys(k for k in clients if k not in self._filled))
        per_chunk = max(1, _FILL_CHUNK // max(1, len(self.members)))
        for start in range(0, len(todo), per_chunk):
            chunk = todo[start:start + per_chunk]
            self._filled.update(chunk)
            wanted = [(m, k) for k in chunk for m in self.members if k not in m._built]
            gens = seed_streams.generators([(m.seed, (1 + k,)) for m, k in wanted])
            for (m, k), g in zip(wanted, gens, strict=True):
                m._built[k] = g


def make_streams(seed: int, clients: int) -> Streams:
    """Streams derived from ``seed``: ``SeedSequence(seed).spawn(clients + 1)`` (server first; the clients'
    generators built on first use, :class:`ClientStreams`)."""
    return make_streams_many([seed], clients)[0]


#: bytes one client's generator holds once built (numpy's Generator and PCG64 objects with their lock, and its entry
#: in :class:`ClientStreams`; 0.98 KB measured as resident memory per generator with numpy 2, rounded up)
STREAM_BYTES = 1100


def check_stream_memory(problem: Problem, seeds: int, batch: int, replace: bool, exact: bool,
                        taking_part: int | None = None, extra_per_client: float = 0.0) -> None:
    """Refuse (one-line InputError) a run whose per-client random streams would take more than half of the available
    memory: with stochastic gradients that draw (minibatches, or gradient noise σ > 0) every replica builds a
    generator per client as it first takes part, ``seeds × clients ×`` :data:`STREAM_BYTES` in all (8 seeds of 10⁶
    clients: 8.2 GiB); exact or noiseless gradients build none. ``taking_part``: at most this many distinct clients
    take part in the run (rounds × participants per round under client sampling), default all.
    ``extra_per_client``: bytes the algorithm holds per seed and client besides (its own noise streams and their
    buffer, :meth:`fedrates.solvers.algorithms.base.Algorithm.bytes_per_client`)."""
    from fedrates.solvers.problems._params import MEMORY_SHARE, available_memory

    draws = not exact and draws_per_client(problem, batch, replace)
    per_client = (STREAM_BYTES if draws else 0.0) + float(extra_per_client)
    if per_client <= 0:
        return
    clients = problem.clients if taking_part is None else min(problem.clients, int(taking_part))
    needed, avail = float(seeds) * clients * per_client, available_memory()
    if needed > MEMORY_SHARE * avail:
        from fedrates.solvers.errors import InputError

        raise InputError(f"the per-client random streams of {seeds} seed(s) x {clients} clients need about "
                         f"{needed / 2**30:.3g} GiB of memory, more than {MEMORY_SHARE:.0%} of the "
                         f"{avail / 2**30:.3g} GiB available; use fewer seeds or clients"
                         + (", or exact gradients" if draws else ""))


def make_streams_many(seeds: Sequence[int], clients: int) -> list[Streams]:
    """``[make_streams(s, clients) for s in seeds]``, the same streams, hashed together: the servers' now, client
    k's of every seed on the first access to client k of any of them (:class:`_StreamPool`)."""
    servers = seed_streams.generators([(int(s), (0,)) for s in seeds])
    pool = _StreamPool()
    pool.members = [ClientStreams(s, clients, pool) for s in seeds]
    return [Streams(server=g, clients=c) for g, c in zip(servers, pool.members, strict=True)]


def _take(streams: Sequence[np.random.Generator], clients: list[int]) -> list[np.random.Generator]:
    """``[streams[k] for k in clients]``, built in bulk when ``streams`` builds on demand
    (:meth:`ClientStreams.take`)."""
    take = getattr(streams, "take", None)
    return take(clients) if take is not None else [streams[k] for k in clients]


def _distinct(client_rngs: Sequence[Sequence[np.random.Generator]]) -> bool:
    """No generator appears twice among the replicas' client streams."""
    gens = [g for row in client_rngs for g in row]
    return len({id(g) for g in gens}) == len(gens)


def _unit_shape(problem: Problem, batch: int, replace: bool) -> tuple[int, ...] | None:
    """Shape of the random numbers one client consumes per local step (None: deterministic)."""
    if problem.sampling == "empirical":
        return (batch,)
    if problem.sampling == "population":
        return (batch, problem.dim + 1)
    return (problem.dim,) if problem.noise_std > 0 else None


def draws_per_client(problem: Problem, batch: int, replace: bool = False) -> bool:
    """Whether stochastic gradients on ``problem`` draw random numbers from the clients' streams (sampled
    minibatches, or gradient noise σ > 0): then every client that takes part builds a generator."""
    return _unit_shape(problem, batch, replace) is not None


def _draw(gens: Sequence[np.random.Generator], steps: int, unit: tuple[int, ...], sampling: str) -> np.ndarray:
    """Stack of ``steps`` draw units per generator: (len(gens), steps, *unit)."""
    out = np.empty((len(gens), steps) + unit)
    if sampling == "empirical":
        for g, o in zip(gens, out, strict=True):
            g.random(out=o)
    else:
        for g, o in zip(gens, out, strict=True):
            g.standard_normal(out=o)
    return out


def _indices(u: np.ndarray, n: int, batch: int, replace: bool) -> np.ndarray:
    """Minibatch indices from uniforms: (..., B) -> (..., B) (with replacement, or Floyd's algorithm,
    :func:`fedrates.solvers.kernels.floyd`, whose backends give identical indices)."""
    if replace:
        return np.minimum((u * n).astype(np.intp), n - 1)
    return kernels.floyd(u.reshape(-1, batch), n).reshape(u.shape)


def _check_batch(problem: Problem, batch: int, replace: bool) -> None:
    if problem.sampling == "empirical" and not replace and batch > problem.datafit.samples:
        from fedrates.solvers.errors import InputError

        raise InputError(f"batch={batch} exceeds the {problem.datafit.samples} samples of a client "
                         "(sampling without replacement); expected batch <= samples")


def exact_gradients(problem: Problem, Wf: np.ndarray, clients: np.ndarray) -> np.ndarray:
    """∇f_k at per-(replica, client) points: Wf (R, m, d), clients (R, m) -> (R, m, d) (flattened model)."""
    fit = problem.datafit
    if isinstance(fit, StructuredQuadratic):  # O(m·d) in the shared basis: no (m, d, d) Hessians
        return fit.pair_gradients(Wf, clients)
    if hasattr(fit, "gradients_at"):  # a non-quadratic datafit evaluates its own gradients (R, m, d) -> (R, m, d)
        return fit.gradients_at(Wf, clients)
    if isinstance(fit, GaussianPopulation):
        U = Wf - fit.truth
        means = fit.means[clients]
        return U @ fit.cov + np.einsum("rmd,rmd->rm", U, means)[..., None] * means
    if isinstance(fit, DenseQuadratic) or (isinstance(fit, SampleLeastSquares) and fit.dim <= 2 * fit.samples):
        Q, b = fit.hessians[clients], fit.linear_terms[clients]
        return np.einsum("rmde,rme->rmd", Q, Wf) - b
    out = np.empty_like(Wf)
    for r in range(Wf.shape[0]):  # rows gathered one replica at a time to bound memory
        X, y = fit.X[clients[r]], fit.y[clients[r]]
        resid = np.einsum("mnd,md->mn", X, Wf[r]) - y
        out[r] = np.einsum("mnd,mn->md", X, resid) / fit.samples
    return out


def _sample_gradients(problem: Problem, Wf: np.ndarray, clients: np.ndarray, draws: np.ndarray,
                      batch: int, work: _Workspace | None = None) -> np.ndarray:
    """Minibatch gradients from one step's draws: Wf (R, m, d), draws (R, m, *unit) -> (R, m, d).

    For ``empirical`` sampling ``draws`` are the rows of the stacked (K·n, d) sample matrix, (R, m, B)."""
    if problem.sampling == "gaussian":
        G = exact_gradients(problem, Wf, clients)
        if problem.noise_std > 0:
            G = G + (problem.noise_std / np.sqrt(problem.dim * batch)) * draws
        return G
    R, m, d = Wf.shape
    if problem.sampling == "empirical":
        return _empirical_gradients(problem.datafit, Wf, draws, batch, work)
    pop = problem.population
    Xb = (pop.means[clients][:, :, None, :] + draws[..., :d] @ pop.cov_factor.T).reshape(R * m, batch, d)
    yb = Xb @ pop.truth + pop.noise_std * draws[..., d].reshape(R * m, batch)
    resid = (Xb @ Wf.reshape(R * m, d, 1))[..., 0] - yb
    return ((resid[:, None, :] @ Xb)[:, 0, :] / batch).reshape(R, m, d)


class _Workspace:
    """A reusable float buffer (the gathered minibatch rows): reusing it avoids a fresh allocation, and the page
    faults of its first touch, at every step."""

    def __init__(self) -> None:
        self._buf = np.empty(0)

    def get(self, size: int) -> np.ndarray:
        if self._buf.size < size:
            self._buf = np.empty(size)
        return self._buf[:size]


def _empirical_gradients(fit: SampleLeastSquares, Wf: np.ndarray, rows: np.ndarray, batch: int,
                         work: _Workspace | None = None) -> np.ndarray:
    """(1/B) X_bᵀ(X_b w − y_b) per (replica, client), rows (R, m, B) of the (K·n, d) sample matrix.

    One fused call over all R·m (replica, client) pairs (:func:`fedrates.solvers.kernels.lsq_rows`): the numba
    kernel reads each sampled row once; the numpy fallback gathers rows into a reused buffer in chunks of at most
    :data:`_CHUNK_BYTES` (the arithmetic per client does not depend on the chunking).  A datafit that holds its
    samples implicitly (no sample matrix, e.g. :mod:`~fedrates.solvers.problems.implicit_least_squares`) computes
    the same gradients of the same rows itself (``rows_gradients``)."""
    if not isinstance(fit, SampleLeastSquares) and hasattr(fit, "rows_gradients"):
        return fit.rows_gradients(Wf, rows, batch)
    R, m, d = Wf.shape
    rows = rows.reshape(R * m, batch)
    X, y, W = fit.X.reshape(-1, d), fit.y.reshape(-1), Wf.reshape(R * m, d)
    buf = None
    if kernels.BACKEND == "numpy":
        chunk = max(1, min(R * m, _CHUNK_BYTES // (batch * d * 8)))
        buf = (work or _Workspace()).get(chunk * batch * d)
    out = kernels.lsq_rows(X, y, W, rows, chunk_bytes=_CHUNK_BYTES, buf=buf)
    return out.reshape(R, m, d)


def _rows(problem: Problem, clients: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Rows of the stacked sample matrix: clients (R, m), idx (R, m, ..., B) -> same shape as idx."""
    c = clients.reshape(clients.shape + (1,) * (idx.ndim - clients.ndim))
    return c * problem.datafit.samples + idx


def minibatch_gradients(
    problem: Problem,
    W: np.ndarray,
    client_rngs: Sequence[Sequence[np.random.Generator]],
    clients: np.ndarray,
    batch: int,
    replace: bool = False,
) -> np.ndarray:
    """Stochastic gradients for R replicas and m clients (one local step; see module docstring).

    Args:
        problem: the federation.
        W: points, shape (R, m, *shape) — replica r, participating client j.
        client_rngs: ``client_rngs[r][k]`` is the stream of client k in replica r.
        clients: indices of the m participating clients, shape (R, m) (per replica) or (m,).
        batch: minibatch size B ≥ 1 (for ``gaussian`` sampling B only divides the noise variance by B).
        replace: sample the empirical minibatch with replacement.

    Returns:
        array of shape (R, m, *shape).
    """
    _check_batch(problem, batch, replace)
    R, m = W.shape[:2]
    clients = np.broadcast_to(np.asarray(clients), (R, m))
    unit = _unit_shape(problem, batch, replace)
    draws = None
    if unit is not None:
        gens = [client_rngs[r][k] for r in range(R) for k in clients[r]]
        draws = _draw(gens, 1, unit, problem.sampling).reshape((R, m) + unit)
        if problem.sampling == "empirical":
            draws = _rows(problem, clients, _indices(draws, problem.datafit.samples, batch, replace))
    return problem.unflat(_sample_gradients(problem, problem.flat(W), clients, draws, batch))


class _Ahead:
    """Minibatch rows of the clients' future local steps, drawn ahead across rounds (``empirical`` sampling).

    Pair i = r·K + k (replica r, client k) holds rows of units drawn from its stream and not consumed yet.  A
    request for ``steps`` units of some pairs serves each pair's next units, after refilling the pairs that hold
    fewer than ``steps``: one ``Generator.random`` call per pair (into a small scratch array, turned into rows by
    Floyd's algorithm while in cache, :func:`fedrates.solvers.kernels.floyd_rows`), the units still held coming
    first.  A pair's units are thus consumed in the order its stream produced them, whatever the pairs requested
    together: the rows are those of drawing step by step.

    While every request is for all pairs (full participation) the pairs move in lockstep and the rows are a
    steps-leading block (S, P, B) served as views (a refill builds a new block, so a view stays valid); the first
    request for some pairs only turns it into a pair-leading store (P, S, B) with per-pair positions, refilled in
    place.  At most :data:`_AHEAD_BUDGET` units' indices are held (more only if one request needs more)."""

    def __init__(self, problem: Problem, client_rngs: Sequence[Sequence[np.random.Generator]], batch: int,
                 replace: bool) -> None:
        self.gens = [g for row in client_rngs for g in row]
        self.batch, self.replace = batch, replace
        self.R, self.K, self.n = len(client_rngs), problem.clients, problem.datafit.samples
        self.P = P = self.R * self.K
        self.size = max(1, _AHEAD_BUDGET // (P * batch))
        self.block = np.empty((0, P, batch), dtype=np.intp)  # lockstep rows
        self.pos0 = self.end0 = 0
        self.store: np.ndarray | None = None  # pair-leading rows, once some request was not for all pairs
        self.pos = self.end = np.zeros(0, dtype=np.intp)
        self._all = np.arange(P, dtype=np.intp)
        self._full: np.ndarray | None = None
        self._scratch = np.empty(0)

    def take(self, clients: np.ndarray, steps: int, want: int) -> np.ndarray:
        """Rows (steps, R, m, B) of the stacked sample matrix for the next ``steps`` units of the pairs
        (r, clients[r, j]); a refilled pair draws up to ``want`` units (at least ``steps``, at most the budget's)."""
        R, m = clients.shape
        if clients is self._full or m == self.K and (m == 1 or bool(np.all(clients == self._all[:m]))):
            # a read-only array (the runner's, for every fully participated round) cannot change: checked once
            self._full = None if clients.flags.writeable else clients
            if self.store is None:
                if self.pos0 + steps > self.end0:
                    self._refill_block(steps, want)
                out = self.block[self.pos0:self.pos0 + steps]
                self.pos0 += steps
                return out.reshape(steps, R, m, self.batch)
            src = self._all
        else:
            if m > 1 and bool(np.any(np.diff(np.sort(clients, axis=1), axis=1) == 0)):
                # a client twice in a replica's request: its units go to its occurrences in order, column by column
                return np.concatenate([self.take(clients[:, j:j + 1], steps, want) for j in range(m)], axis=2)
            if self.store is None:
                self._unlock(steps)
            src = (np.arange(R, dtype=np.intp)[:, None] * self.K + clients).reshape(-1)
        first = self.pos[src]
        short = first + steps > self.end[src]
        if short.any():
            self._refill_pairs(src[short], steps, want)
            first = self.pos[src]
        out = self.store[src[None, :], first[None, :] + np.arange(steps)[:, None]]  # (steps, Q, B)
        self.pos[src] = first + steps
        return out.reshape(steps, R, m, self.batch)

    def _total(self, steps: int, want: int, size: int) -> int:
        """Units a refilled pair holds: ``want`` within ``size``, whole requests of ``steps``, at least one."""
        total = min(want, size)
        return max(steps, total - total % steps)

    def _fresh(self, pairs: np.ndarray, F: int, out: np.ndarray, start: int = 0) -> None:
        """Draw F units per pair and write their rows to out[:, start:start + len(pairs)] ((F, ·, B) intp)."""
        B = self.batch
        chunk = max(1, _SCRATCH // (F * B))
        if self._scratch.size < min(chunk, len(pairs)) * F * B:
            self._scratch = np.empty(min(chunk, len(pairs)) * F * B)
        offsets = (pairs % self.K) * self.n
        for c in range(0, len(pairs), chunk):
            ps = pairs[c:c + chunk]
            U = self._scratch[:len(ps) * F * B].reshape(len(ps), F, B)
            for i, u in zip(ps.tolist(), U, strict=True):
                self.gens[i].random(out=u)
            if self.replace or _indices is not _PRISTINE_INDICES:
                rows = offsets[c:c + len(ps), None, None] + _indices(U, self.n, B, self.replace)
                out[:, start + c:start + c + len(ps)] = rows.transpose(1, 0, 2)
            else:
                kernels.floyd_rows(U, self.n, offsets[c:c + len(ps)], out, start + c)

    def _refill_block(self, steps: int, want: int) -> None:
        rem = self.end0 - self.pos0
        total = self._total(steps, want, self.size)
        block = np.empty((total, self.P, self.batch), dtype=np.intp)
        block[:rem] = self.block[self.pos0:self.end0]
        self._fresh(self._all, total - rem, block[rem:])
        self.block, self.pos0, self.end0 = block, 0, total

    def _unlock(self, steps: int) -> None:
        """Lockstep block -> pair-leading store with per-pair positions (the units not consumed kept)."""
        rem = self.end0 - self.pos0
        self.store = np.empty((self.P, max(self.size, steps, rem), self.batch), dtype=np.intp)
        self.store[:, :rem] = self.block[self.pos0:self.end0].transpose(1, 0, 2)
        self.pos = np.zeros(self.P, dtype=np.intp)
        self.end = np.full(self.P, rem, dtype=np.intp)
        self.block = self.block[:0]

    def _refill_pairs(self, pairs: np.ndarray, steps: int, want: int) -> None:
        if steps > self.store.shape[1]:  # a request larger than the store: grow it
            grown = np.empty((self.P, steps, self.batch), dtype=np.intp)
            grown[:, :self.store.shape[1]] = self.store
            self.store = grown
        total = self._total(steps, want, self.store.shape[1])
        pos, end = self.pos[pairs], self.end[pairs]
        rem = end - pos
        for i in np.nonzero(rem)[0].tolist():  # units still held move to the front
            self.store[pairs[i], :rem[i]] = self.store[pairs[i], pos[i]:end[i]].copy()
        for r0 in np.unique(rem).tolist():
            group = pairs[rem == r0]
            fresh = np.empty((total - r0, len(group), self.batch), dtype=np.intp)
            self._fresh(group, total - r0, fresh)
            self.store[group, r0:total] = fresh.transpose(1, 0, 2)
        self.pos[pairs] = 0
        self.end[pairs] = total


class GradientOracle:
    """Per-run gradient oracle: exact or minibatch gradients of participating clients, with evaluation counts.

    ``begin_round(clients, steps)`` announces the round's participants (R, m) and its expected number of local
    steps; the draw units of those steps are then drawn in one call per client (and more on demand).
    ``oracle(W)`` returns the gradients of the round's participants at W (R, m, *shape) and advances one step;
    ``oracle(W, clients)`` with other clients draws one step for those clients directly.

    Counters: ``steps`` (oracle calls = local steps), ``evaluations`` (client gradient evaluations, one per
    client per call, a minibatch counting as one).

    ``prefetch=True`` (effective for ``empirical`` minibatches; see the module docstring) draws several rounds'
    units per client at once, ``begin_round(..., ahead=n)`` announcing that n rounds (this one included) remain:
    bit-identical results, provided nothing else draws from ``client_rngs`` during the run (:attr:`prefetching`
    says whether it is on; the runner's round context then refuses to hand out the streams).
    """

    def __init__(self, problem: Problem, client_rngs: Sequence[Sequence[np.random.Generator]], batch: int,
                 exact: bool = False, replace: bool = False, prefetch: bool = False) -> None:
        self.problem = problem
        self._client_rngs = client_rngs
        self.batch = int(batch)
        self.exact = bool(exact)
        self.replace = bool(replace)
        if not self.exact:
            _check_batch(problem, self.batch, self.replace)
        self.unit = None if self.exact else _unit_shape(problem, self.batch, self.replace)
        self.steps = 0
        self.evaluations = 0
        self._clients: np.ndarray | None = None
        self._buffer: np.ndarray | None = None
        self._pos = 0
        self._steps = 0
        self._hint = 1
        self._axis = 0 if problem.sampling == "empirical" else 2
        self._work = _Workspace()
        self._gens_of: tuple[np.ndarray, list[np.random.Generator]] | None = None
        self._replay: np.ndarray | None = None
        self._replay_pos = 0
        self._ahead = None
        self._rounds_ahead = 1
        if (prefetch and self.unit is not None and problem.sampling == "empirical"
                and all(len(row) == problem.clients for row in client_rngs)
                and _distinct(client_rngs)):  # a generator shared by two pairs: no prefetch
            self._ahead = _Ahead(problem, client_rngs, self.batch, self.replace)

    @property
    def prefetching(self) -> bool:
        """Whether draws are made ahead across rounds (then nothing else may draw from ``client_rngs``)."""
        return self._ahead is not None

    @property
    def client_rngs(self) -> Sequence[Sequence[np.random.Generator]]:
        """The per-client streams ``client_rngs[r][k]``; refused (RuntimeError) while draws are made ahead, since a
        draw made elsewhere would shift the minibatches already drawn."""
        if self._ahead is not None:
            raise RuntimeError("the client streams are not available while minibatches are drawn ahead; the "
                               "algorithm must declare uses_client_streams = True to read them")
        return self._client_rngs

    def begin_round(self, clients: np.ndarray, steps: int = 1, ahead: int = 1) -> None:
        """Announce the round's participants (R, m), its expected local steps and the rounds left (this one
        included; used only to size the draws made ahead)."""
        self._clients = clients
        self._replay = None
        self._buffer = None
        self._pos = 0
        self._hint = max(1, int(steps))
        self._rounds_ahead = max(1, int(ahead))

    def _refill(self, clients: np.ndarray, steps: int) -> np.ndarray:
        R, m = clients.shape
        per_step = R * m * math.prod(self.unit)
        steps = max(1, min(steps, _PREFETCH_BUDGET // max(per_step, 1)))
        if self._ahead is not None:
            # units a client is expected to consume in the rounds left (m of K clients take part in a round)
            K = self.problem.clients
            want = self._hint * -(-self._rounds_ahead * m // K)
            return self._ahead.take(clients, steps, want)
        if self._gens_of is not None and self._gens_of[0] is clients:
            gens = self._gens_of[1]
        else:
            build = getattr(self._client_rngs[0], "build", None)
            if build is not None and R > 1:  # every replica's participants at once (the seeds share one pool)
                build(np.unique(clients).tolist())
            gens = [g for r in range(R) for g in _take(self._client_rngs[r], clients[r].tolist())]
            if not clients.flags.writeable:  # a read-only participants array (full participation) cannot change
                self._gens_of = (clients, gens)
        draws = _draw(gens, steps, self.unit, self.problem.sampling).reshape((R, m, steps) + self.unit)
        if self.problem.sampling == "empirical":
            idx = _indices(draws, self.problem.datafit.samples, self.batch, self.replace)
            # rows (steps, R, m, B): one contiguous block per step
            draws = np.ascontiguousarray(np.moveaxis(_rows(self.problem, clients, idx), 2, 0))
        return draws

    def __call__(self, W: np.ndarray, clients: np.ndarray | None = None) -> np.ndarray:
        problem = self.problem
        own = clients is None or clients is self._clients
        clients = self._clients if clients is None else np.broadcast_to(np.asarray(clients), W.shape[:2])
        Wf = problem.flat(W)
        self.steps += 1
        self.evaluations += clients.shape[1]
        if self.exact:
            return problem.unflat(exact_gradients(problem, Wf, clients))
        draws = None
        if self.unit is not None:
            if own and self._replay is not None:
                draws = self._replay[self._replay_pos]
                self._replay_pos += 1
                if self._replay_pos == self._replay.shape[0]:
                    self._replay = None
            elif own:
                draws = self._next_own()
            else:
                draws = self._step(self._refill(clients, 1), 0)
        return problem.unflat(_sample_gradients(problem, Wf, clients, draws, self.batch, self._work))

    def _next_own(self) -> np.ndarray:
        """The next step's draws of the round's participants (refilling the buffer when it is used up)."""
        if self._buffer is None or self._pos >= self._steps:
            self._buffer = self._refill(self._clients, self._hint)
            self._steps = self._buffer.shape[self._axis]
            self._pos = 0
        draws = self._step(self._buffer, self._pos)
        self._pos += 1
        return draws

    # ---- fused rounds -------------------------------------------------------------------------------------------
    def fusable(self) -> bool:
        """True when a whole round of local steps may run in one fused kernel: numba kernels selected, minibatches
        of sample-based least squares, and the gradient functions of this module unchanged (a patched gradient — a
        deliberately broken variant, say — must be honoured, so it forces step-by-step evaluation)."""
        return (kernels.BACKEND == "numba" and not self.exact and self.unit is not None
                and self.problem.sampling == "empirical" and type(self.problem.datafit) is SampleLeastSquares
                and self._clients is not None and self._replay is None
                and _sample_gradients is _PRISTINE[0] and _empirical_gradients is _PRISTINE[1])

    def deterministic_pristine(self) -> bool:
        """True when every gradient this oracle returns is the exact ∇f_k (exact oracle, or ``gaussian`` sampling with
        σ = 0: nothing is drawn) and the gradient functions of this module are unchanged, so that a round may be
        computed in closed form by the problem's own structured routine."""
        return ((self.exact or self.unit is None) and self._replay is None
                and exact_gradients is _PRISTINE_EXACT and _sample_gradients is _PRISTINE[0])

    def take_rows(self, steps: int) -> np.ndarray:
        """Rows of the stacked (K·n, d) sample matrix for the next ``steps`` local steps of the round's participants,
        (steps, R, m, B), counted as ``steps`` oracle calls: exactly the draws that ``steps`` calls would use."""
        R, m = self._clients.shape
        if (self._buffer is None or self._pos >= self._steps) and self._hint == steps:
            # the common case: a fresh round whose E steps are drawn in one block, used as is
            out = self._buffer = self._refill(self._clients, steps)
            self._steps = self._buffer.shape[0]
            self._pos = self._steps
            if self._steps != steps:  # a memory budget smaller than one round: continue step by step
                out = np.concatenate([out] + [self._next_own()[None] for _ in range(steps - self._steps)])
        else:
            out = np.empty((steps, R, m, self.batch), dtype=np.intp)
            for e in range(steps):
                out[e] = self._next_own()
        self.steps += steps
        self.evaluations += steps * m
        return out

    def replay(self, rows: np.ndarray) -> None:
        """Serve ``rows`` (from :meth:`take_rows`) to the next ``len(rows)`` calls for the round's participants
        instead of drawing, and uncount them (the calls count again): a fused round redone step by step."""
        self._replay, self._replay_pos = rows, 0
        self.steps -= rows.shape[0]
        self.evaluations -= rows.shape[0] * self._clients.shape[1]

    def _step(self, buffer: np.ndarray, pos: int) -> np.ndarray:
        """The draws of step ``pos`` of a refilled buffer (steps lead for empirical rows, else axis 2)."""
        return buffer[pos] if self._axis == 0 else buffer[:, :, pos]


#: the gradient functions as defined here (see :meth:`GradientOracle.fusable`)
_PRISTINE = (_sample_gradients, _empirical_gradients)
_PRISTINE_EXACT = exact_gradients
#: the index function as defined here (a replaced one is honoured by the draws made ahead)
_PRISTINE_INDICES = _indices
