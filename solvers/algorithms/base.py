"""Federated algorithm protocol, registry and runner.

**Protocol.**  An algorithm is a frozen dataclass of hyperparameters (subclass of :class:`Algorithm`, declared with
:func:`hyper` so that values are validated on construction) with three methods:

* ``init(problem, w0) -> State`` — w0 has shape ``(R, *shape)`` (R replicas = seeds simulated together);
* ``round(state, problem, ctx) -> State`` — one communication round: local steps on every participating client
  (vectorized over replicas and clients), then server aggregation.  ``ctx`` is a :class:`RoundContext`;
* ``output(state) -> (R, *shape)`` — the point the analysing theorem bounds (not necessarily the last iterate).

A State is a dataclass or a dict whose array entries have a leading replica axis R (client arrays ``(R, K, *shape)``
or ``(R, m, *shape)``); other entries (Python scalars) are shared by all replicas.  Optional:

* ``check(problem) -> list[str]`` — conditions of the analysing theorem that these hyperparameters violate on
  this problem (the run proceeds; the trace carries the messages as warnings);
* ``supports(problem) -> str | None`` — None if the algorithm handles the problem, else the reason (the run is
  refused with an :class:`~solvers.errors.InputError`);
* ``uses_client_streams = False`` (class attribute; default True) — the round never reads ``ctx.client_rngs``, so
  the runner may draw the minibatches several rounds ahead (bit-identical results; reading ``ctx.client_rngs``
  then raises a RuntimeError rather than shifting the draws).

Every algorithm has the hyperparameters ``local_steps`` (E ≥ 1, local steps per round) and ``batch`` (B ≥ 1,
minibatch size of the stochastic gradients).

**Round context.**  ``ctx.round`` (0-based round index), ``ctx.clients`` (R, m) participating client indices
(sorted; m of K drawn uniformly without replacement from each replica's server stream, or all clients when
``participating`` is None), ``ctx.weights`` (R, m) the weights π_k renormalised over the participants, and
``ctx.gradients(W, clients=None)`` → gradients of the participants (or of ``clients``) at W ``(R, m, *shape)``:
exact ∇f_k, or minibatch gradients drawn from each client's own stream (:mod:`fedrates.solvers.oracles`).

**Registry.**  ``@register`` a class with a ``name`` class attribute; :func:`get`, :func:`names`, :func:`make`.

**Runner.**  :func:`run` (one seed → :class:`Trace`) and :func:`run_batch` (seeds → :class:`BatchTrace`, one
vectorized simulation with replica r driven by ``make_streams(seeds[r], K)``).  Records (columns
:data:`~solvers.algorithms._trace.COLUMNS`) are taken at round 0 (the initial point), every ``record_every``
rounds and at the last round; ``iterations`` counts local steps per client, ``grad_evals`` client gradient
evaluations (a minibatch gradient counts one), ``clients_communicated`` client uploads (cumulative).
Divergence of a replica (non-finite output, or ‖output‖ > 1e6·(1 + ‖w0‖ + ‖ŵ‖)) freezes it at its last state,
marks it ``diverged`` and makes its metrics NaN; the other replicas continue.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import numpy as np

from fedrates._lazy import lazy_import
from fedrates.solvers.algorithms._trace import COLUMNS, METRICS, BatchTrace, Metrics, Trace
from fedrates.solvers.errors import InputError, VerificationError, unknown_name
from fedrates.solvers.oracles import GradientOracle, check_stream_memory, make_streams_many

pd = lazy_import("pandas")  # imported on first use: listing and refusing stay fast

__all__ = [
    "Algorithm", "RoundContext", "Trace", "BatchTrace", "COLUMNS", "hyper", "register", "get", "names", "make",
    "hyperparameters", "run", "run_batch", "weighted_mean", "DIVERGENCE_FACTOR",
]

#: a replica diverges when ‖output‖ exceeds this factor times (1 + ‖w0‖ + ‖ŵ‖)
DIVERGENCE_FACTOR = 1e6
#: bytes of recorded output points held before their metrics are evaluated in one batched pass
_METRIC_BUDGET = 1 << 25
GRADIENTS = ("stochastic", "exact")


# ---- hyperparameters -------------------------------------------------------------------------------------------
def hyper(default: Any, doc: str, *, low: float | None = None, strict: bool = False,
          choices: Sequence[str] = ()) -> Any:
    """Declare a hyperparameter field: default, one-line meaning, optional lower bound (``strict``: > low).

    The kind (int, float, bool, choice) follows the default's type (``choices`` for strings).
    """
    return dataclasses.field(default=default, metadata={"doc": doc, "low": low, "strict": strict,
                                                        "choices": tuple(choices)})


def _coerce(cls_name: str, f: dataclasses.Field, value: Any) -> Any:
    meta = f.metadata
    default = f.default
    where = f"hyperparameter {f.name}={value!r} of {cls_name}"
    if meta.get("choices"):
        if value not in meta["choices"]:
            raise InputError(f"{where} is not valid; expected one of {', '.join(meta['choices'])}")
        return value
    if isinstance(default, bool):
        if not isinstance(value, (bool, np.bool_)):
            raise InputError(f"{where} is not a boolean; expected true or false")
        return bool(value)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise InputError(f"{where} is not a number; expected {meta.get('doc', 'a number')}")
    if not np.isfinite(float(value)):
        raise InputError(f"{where} must be finite; expected {meta.get('doc', 'a number')}")
    if isinstance(default, (int, np.integer)):
        if float(value) != int(value):
            raise InputError(f"{where} must be an integer; expected {meta.get('doc', 'an integer')}")
        value = int(value)
    else:
        value = float(value)
    low = meta.get("low")
    if low is not None and (value <= low if meta.get("strict") else value < low):
        op = ">" if meta.get("strict") else ">="
        raise InputError(f"{where} is out of range; expected {f.name} {op} {low:g}")
    return value


@dataclasses.dataclass(frozen=True, kw_only=True)
class Algorithm:
    """Base class of federated algorithms (see module docstring). Hyperparameters are validated on creation."""

    name: ClassVar[str] = "algorithm"
    #: one-line description (shown by ``fedrates list algorithms``)
    summary: ClassVar[str] = ""
    #: whether ``round`` may read ``ctx.client_rngs`` (draw its own randomness from the clients' streams).  False
    #: lets the runner draw minibatches several rounds ahead (bit-identical results); an algorithm declaring False
    #: that reads ``ctx.client_rngs`` anyway gets a RuntimeError, never different draws.
    uses_client_streams: ClassVar[bool] = True

    local_steps: int = hyper(1, "local steps per round E >= 1", low=1)
    batch: int = hyper(10, "minibatch size B >= 1", low=1)

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            if "doc" in f.metadata:
                object.__setattr__(self, f.name, _coerce(self.name, f, getattr(self, f.name)))

    def bytes_per_client(self, problem: Any) -> float:
        """Bytes the algorithm itself holds per seed and client during a run (its own random streams and buffers;
        the oracle's streams are counted apart), for the memory check of :func:`run_batch`; 0 by default."""
        return 0.0

    # ---- protocol ----
    def init(self, problem: Any, w0: np.ndarray) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def round(self, state: Any, problem: Any, ctx: RoundContext) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def output(self, state: Any) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def check(self, problem: Any) -> list[str]:
        """Violated conditions of the analysing theorem (none by default)."""
        return []

    def supports(self, problem: Any) -> str | None:
        """None if the problem is handled, else the reason."""
        return None

    def hyperparameters(self) -> dict[str, Any]:
        """The hyperparameter values as a dict."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}


# ---- registry -------------------------------------------------------------------------------------------------
_REGISTRY: dict[str, type[Algorithm]] = {}


def register(cls: type[Algorithm]) -> type[Algorithm]:
    """Class decorator: register an algorithm under ``cls.name``.

    The class must be a frozen dataclass (``@register`` above ``@dataclass(frozen=True)``): its fields are the
    hyperparameters that :func:`make` accepts, and an algorithm object is an immutable value.
    """
    name = getattr(cls, "name", None)
    if not isinstance(name, str) or not name:
        raise TypeError(f"@register: {getattr(cls, '__name__', cls)!r} has no algorithm name (class attribute "
                        "name = '...')")
    params = getattr(cls, "__dataclass_params__", None)
    if "__dataclass_fields__" not in cls.__dict__ or params is None or not params.frozen:
        raise TypeError(f"@register: algorithm class {cls.__name__} ('{name}') must be decorated with "
                        "@dataclass(frozen=True) under @register, so that its hyperparameters are its fields")
    if name in _REGISTRY and _REGISTRY[name] is not cls:
        raise ValueError(f"algorithm name '{name}' registered twice")
    _REGISTRY[name] = cls
    return cls


def _load_plugins() -> None:
    """Import the algorithm modules of every installed paper (:mod:`fedrates.plugins`), registering them."""
    from fedrates import plugins

    plugins.load_algorithms()


def names() -> list[str]:
    """Registered algorithm names (built-in and of installed papers), sorted."""
    _load_plugins()
    return sorted(_REGISTRY)


def get(name: str) -> type[Algorithm]:
    """The algorithm class registered under ``name`` (unknown name: InputError suggesting the closest)."""
    if name not in _REGISTRY:
        _load_plugins()
    if name not in _REGISTRY:
        raise unknown_name("algorithm", name, _REGISTRY)
    return _REGISTRY[name]


def hyperparameters(name: str) -> dict[str, tuple[Any, str]]:
    """{field: (default, meaning)} of a registered algorithm."""
    return {f.name: (f.default, f.metadata.get("doc", "")) for f in dataclasses.fields(get(name))}


def make(name: str, **hyper_values: Any) -> Algorithm:
    """Build a registered algorithm; unknown hyperparameters suggest the closest, bad values raise InputError."""
    cls = get(name)
    known = {f.name for f in dataclasses.fields(cls)}
    for key in hyper_values:
        if key not in known:
            raise unknown_name(f"hyperparameter of {name}", key, known)
    return cls(**hyper_values)


# ---- helpers for algorithms -----------------------------------------------------------------------------------
def weighted_mean(weights: np.ndarray, X: np.ndarray) -> np.ndarray:
    """Σ_j weights[r, j] X[r, j]: weights (R, m), X ``(R, m, *shape) -> (R, *shape)``."""
    R, m = weights.shape
    return np.einsum("rm,rmd->rd", weights, X.reshape(R, m, -1)).reshape((R,) + X.shape[2:])


class RoundContext:
    """What a round sees: its index, the participants, their weights, the gradient oracle, and how many rounds the
    run has left, this one included (None when the caller does not say)."""

    def __init__(self, index: int, clients: np.ndarray, weights: np.ndarray, oracle: GradientOracle,
                 rounds_left: int | None = None) -> None:
        self.round = index
        self.clients = clients
        self.weights = weights
        self._oracle = oracle
        self.rounds_left = rounds_left

    def gradients(self, W: np.ndarray, clients: np.ndarray | None = None) -> np.ndarray:
        """Gradients of the participants (or ``clients`` (R, m)) at W ``(R, m, *shape) -> (R, m, *shape)``."""
        return self._oracle(W, None if clients is None else clients)

    @property
    def client_rngs(self) -> Sequence[Sequence[np.random.Generator]]:
        """The per-client random streams, ``client_rngs[r][k]`` for client k of replica r (for algorithms whose own
        randomness, such as coins, inner indices or privacy noise, is drawn from the clients' streams).

        Refused (RuntimeError) while the oracle draws minibatches ahead: the runner does that only for algorithms
        whose ``uses_client_streams`` is False, and drawing here would shift their minibatches."""
        if getattr(self._oracle, "prefetching", False):
            raise RuntimeError("ctx.client_rngs read by an algorithm whose uses_client_streams is False (its "
                               "minibatches are drawn ahead); declare uses_client_streams = True on its class")
        return self._oracle.client_rngs

    @property
    def exact(self) -> bool:
        """Whether :meth:`gradients` returns exact (full) gradients."""
        return bool(self._oracle.exact)

    def count(self, steps: int, evaluations: int) -> None:
        """Add oracle work an algorithm did by itself (its own gradient evaluations) to the run's counters."""
        self._oracle.steps += steps
        self._oracle.evaluations += evaluations

    def closed_form_rounds(self) -> bool:
        """True when a round may be computed by the problem's own structured routine (e.g.
        :func:`fedrates.solvers.problems.structured_quadratic.local_average`): every gradient is the exact ∇f_k
        (nothing drawn) and neither this context's nor the oracle module's gradient functions were replaced."""
        return ("gradients" not in vars(self) and type(self).gradients is RoundContext.gradients
                and type(self._oracle) is GradientOracle and self._oracle.deterministic_pristine())

    def local_rows(self, steps: int) -> np.ndarray | None:
        """Minibatch rows (steps, R, m, B) of the participants' next ``steps`` local steps, drawn from their streams
        as ``steps`` calls of :meth:`gradients` would draw them, for a round fused into one kernel; None when the
        round must go step by step through :meth:`gradients` (numpy kernels, non-sample oracles, or a gradient
        replaced on this context or in the oracle module, which only step-by-step evaluation honours)."""
        if "gradients" in vars(self) or type(self).gradients is not RoundContext.gradients \
                or type(self._oracle) is not GradientOracle or not self._oracle.fusable():
            return None
        return self._oracle.take_rows(steps)

    def replay(self, rows: np.ndarray) -> None:
        """Make the next calls of :meth:`gradients` use ``rows`` from :meth:`local_rows` (a fused round redone step by
        step gives the same draws)."""
        self._oracle.replay(rows)


# ---- runner ---------------------------------------------------------------------------------------------------
def _resolve(algorithm: Algorithm | str, hyper_values: dict[str, Any]) -> Algorithm:
    if isinstance(algorithm, str):
        return make(algorithm, **hyper_values)
    if not isinstance(algorithm, Algorithm):
        raise InputError(f"algorithm {algorithm!r} is not an algorithm name or instance")
    if hyper_values:
        known = {f.name for f in dataclasses.fields(algorithm)}
        for key in hyper_values:
            if key not in known:
                raise unknown_name(f"hyperparameter of {algorithm.name}", key, known)
        algorithm = dataclasses.replace(algorithm, **hyper_values)
    return algorithm


def _default_reference(problem: Any, warnings: list[str]) -> Any | None:
    """``solvers.reference.solve(problem)``; None (metrics against the optimum are NaN) if it cannot certify."""
    try:
        module = importlib.import_module("fedrates.solvers.reference")
    except ModuleNotFoundError as exc:
        if exc.name == "fedrates.solvers.reference":
            warnings.append("no reference solver available; objective gap and distance to optimum are NaN")
            return None
        raise
    try:
        ref = module.solve(problem)
        warnings.extend(getattr(ref, "warnings", ()))  # e.g. "reference cache not written": shown by `run` too
        return ref
    except VerificationError as exc:
        warnings.append(f"reference optimum not certified ({exc}); objective gap and distance to optimum are NaN")
        return None


def _freeze(new: Any, old: Any, frozen: np.ndarray) -> Any:
    """Replace the replicas marked ``frozen`` in state ``new`` by their values in ``old``."""
    def pick(a: Any, b: Any) -> Any:
        if isinstance(a, np.ndarray) and a.ndim and a.shape[0] == frozen.shape[0]:
            return np.where(frozen.reshape((-1,) + (1,) * (a.ndim - 1)), b, a)
        return a

    if isinstance(new, dict):
        return {k: pick(v, old[k]) for k, v in new.items()}
    if dataclasses.is_dataclass(new):
        return dataclasses.replace(new, **{f.name: pick(getattr(new, f.name), getattr(old, f.name))
                                           for f in dataclasses.fields(new) if f.init})
    raise TypeError(f"unsupported state type {type(new).__name__}")


def _validate_run(problem: Any, rounds: int, participating: int | None, gradients: str, record_every: int) -> None:
    if isinstance(rounds, bool) or not isinstance(rounds, (int, np.integer)) or rounds < 1:
        raise InputError(f"rounds={rounds!r} is not valid; expected an integer >= 1")
    if isinstance(record_every, bool) or not isinstance(record_every, (int, np.integer)) or record_every < 1:
        raise InputError(f"record_every={record_every!r} is not valid; expected an integer >= 1")
    if gradients not in GRADIENTS:
        raise unknown_name("gradient mode", gradients, GRADIENTS)
    if participating is not None:
        K = problem.clients
        if isinstance(participating, bool) or not isinstance(participating, (int, np.integer)) \
                or not 1 <= participating <= K:
            raise InputError(f"participating={participating!r} is not valid; expected an integer in 1..{K} "
                             f"(the problem has {K} clients)")


def run_batch(
    algorithm: Algorithm | str,
    problem: Any,
    rounds: int,
    seeds: Sequence[int] = (0,),
    participating: int | None = None,
    gradients: str = "stochastic",
    record_every: int = 1,
    w0: np.ndarray | None = None,
    reference: Any | None = None,
    replace: bool = False,
    callback: Callable[[int, Any], None] | None = None,
    **hyper_values: Any,
) -> BatchTrace:
    """Run ``algorithm`` for ``rounds`` rounds on ``problem`` for every seed at once (see module docstring).

    Args:
        algorithm: a registered name (hyperparameters in ``hyper_values``) or an :class:`Algorithm`.
        problem: the federation.
        rounds: communication rounds R ≥ 1.
        seeds: one replica per seed; replica r uses ``make_streams(seeds[r], K)``.
        participating: clients per round m (uniform without replacement from the server stream), None = all.
        gradients: ``stochastic`` (minibatches, see :mod:`fedrates.solvers.oracles`) or ``exact``.
        record_every: record metrics every this many rounds (and at rounds 0 and R).
        w0: initial point ``(*shape)`` or ``(R, *shape)``; zeros by default.
        reference: object with ``.w`` and ``.value`` (certified optimum); default ``fedrates.solvers.reference.solve``.
        replace: draw empirical minibatches with replacement.
        callback: called as ``callback(round, state)`` after every round (diagnostics).
    """
    alg = _resolve(algorithm, hyper_values)
    _validate_run(problem, rounds, participating, gradients, record_every)
    seeds = [int(s) for s in seeds]
    if not seeds:
        raise InputError("seeds is empty; expected at least one seed")
    reason = alg.supports(problem)
    if reason:
        raise InputError(reason)
    warnings = list(alg.check(problem))
    if hasattr(alg, "check_rounds"):  # conditions on the run's length (e.g. T >= a), warned only when they fail
        warnings += list(alg.check_rounds(problem, rounds))
    K, R = problem.clients, len(seeds)
    if participating is not None and participating == K:
        participating = None
    if reference is None:
        reference = _default_reference(problem, warnings)
    metrics = Metrics(problem, reference)

    if w0 is None:
        W0 = problem.zeros(R)
    else:
        w0 = np.asarray(w0, dtype=float)
        if w0.shape == problem.shape:
            W0 = np.broadcast_to(w0, (R,) + problem.shape).copy()
        elif w0.shape == (R,) + problem.shape:
            W0 = w0.copy()
        else:
            raise InputError(f"w0 has shape {w0.shape}; expected {problem.shape} or {(R,) + problem.shape}")
    limit = DIVERGENCE_FACTOR * (1 + problem.norm(W0) + metrics.reference_norm())

    check_stream_memory(problem, R, alg.batch, replace, exact=gradients == "exact",
                        taking_part=None if participating is None else rounds * participating,
                        extra_per_client=alg.bytes_per_client(problem))
    streams = make_streams_many(seeds, K)
    oracle = GradientOracle(problem, [st.clients for st in streams], alg.batch, exact=(gradients == "exact"),
                            replace=replace, prefetch=not alg.uses_client_streams)
    all_clients = np.broadcast_to(np.arange(K), (R, K))
    all_weights = np.broadcast_to(problem.weights, (R, K))

    state = alg.init(problem, W0)
    diverged = np.zeros(R, dtype=bool)
    rows: list[dict[str, Any]] = []
    # per-replica counters (a diverged replica stops counting, as it would when run alone)
    steps, evals, communicated = (np.zeros(R, dtype=np.int64) for _ in range(3))

    # metrics are evaluated in batches of recorded rounds (one pass over Q̄ per batch instead of one per round)
    pending: list[tuple[dict[str, Any], np.ndarray]] = []
    budget = max(1, _METRIC_BUDGET // max(1, 8 * R * problem.dim))

    def flush() -> None:
        if not pending:
            return
        vals = metrics(np.concatenate([o for _, o in pending]))
        for i, (row, _) in enumerate(pending):
            sl = slice(i * R, (i + 1) * R)
            for name in METRICS:
                row[name] = np.where(row["diverged"], np.nan, vals[name][sl])
        pending.clear()

    def record(r: int, out: np.ndarray) -> None:
        row = {"round": np.full(R, r), "iterations": steps.copy(), "grad_evals": evals.copy(),
               "clients_communicated": communicated.copy(), "seed": np.asarray(seeds), "diverged": diverged.copy()}
        rows.append(row)
        pending.append((row, np.array(out, dtype=float)))
        if len(pending) >= budget:
            flush()

    record(0, alg.output(state))
    for r in range(rounds):
        if participating is None:
            clients, weights = all_clients, all_weights
        else:
            clients = np.stack([np.sort(st.server.choice(K, participating, replace=False)) for st in streams])
            pw = problem.weights[clients]
            weights = pw / pw.sum(axis=1, keepdims=True)
        oracle.begin_round(clients, alg.local_steps, ahead=rounds - r)
        alive = ~diverged
        if alive.any():
            steps0, evals0 = oracle.steps, oracle.evaluations
            with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
                new = alg.round(state, problem, RoundContext(r, clients, weights, oracle, rounds - r))
                out = alg.output(new)
                # ‖out‖ is NaN or inf when out has a non-finite entry: one test for both kinds of divergence
                bad = ~(problem.norm(out) <= limit)
            steps[alive] += oracle.steps - steps0
            evals[alive] += oracle.evaluations - evals0
            communicated[alive] += clients.shape[1]
            newly = bad & alive
            if diverged.any() or newly.any():
                new = _freeze(new, state, diverged | newly)
                diverged |= newly
                out = alg.output(new)
            state = new
        else:
            out = alg.output(state)
        if callback is not None:
            callback(r + 1, state)
        if (r + 1) % record_every == 0 or r + 1 == rounds:
            record(r + 1, out)

    flush()
    records = pd.DataFrame({c: np.concatenate([row[c] for row in rows]) for c in COLUMNS})
    if R > 1:  # group by replica in the order the seeds were given, rounds ascending within each
        order = np.argsort(np.tile(np.arange(R), len(rows)), kind="stable")
        records = records.iloc[order].reset_index(drop=True)
    params = {
        "algorithm": alg.name, "hyperparameters": alg.hyperparameters(), "problem": problem.summary(),
        "fingerprint": problem.fingerprint, "rounds": int(rounds), "seeds": seeds, "participating": participating,
        "gradients": gradients, "record_every": int(record_every), "replace": bool(replace),
        "reference_value": None if reference is None else float(reference.value),
        "reference_gap": None if reference is None else _maybe_float(getattr(reference, "gap", None)),
    }
    if diverged.any():
        warnings.append(f"{int(diverged.sum())} of {R} replicas diverged (seeds "
                        f"{', '.join(str(s) for s, d in zip(seeds, diverged, strict=True) if d)})")
    return BatchTrace(records=records, w=np.asarray(alg.output(state)), seeds=seeds, diverged=diverged,
                      warnings=warnings, params=params, state=state)


def _maybe_float(x: Any) -> float | None:
    return None if x is None else float(x)


def run(
    algorithm: Algorithm | str,
    problem: Any,
    rounds: int,
    seed: int = 0,
    participating: int | None = None,
    gradients: str = "stochastic",
    record_every: int = 1,
    w0: np.ndarray | None = None,
    reference: Any | None = None,
    **hyper_values: Any,
) -> Trace:
    """Run one seed; same arguments as :func:`run_batch` (``w0`` of shape ``problem.shape``)."""
    batch = run_batch(algorithm, problem, rounds, seeds=[seed], participating=participating, gradients=gradients,
                      record_every=record_every, w0=w0, reference=reference, **hyper_values)
    trace = batch.trace(int(seed))
    trace.state = batch.state
    return trace
