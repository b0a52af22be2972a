"""Claim builders: the common kinds of claim, each declared in about fifteen lines.

A builder is a frozen dataclass subclass of :class:`~fedrates.verify.claims.base.Claim` that implements
``points``, ``simulate`` and ``judge`` for one kind of statement, on one instance of a problem family whose constants
are certified (:mod:`fedrates.solvers.constants`, checked after judging by :mod:`fedrates.solvers.certify`):

* :class:`RateClaim` — the metric decays as ``x^p`` in a variable (fitted log–log slope, its bootstrap CI within
  ``p ± tolerance``; :func:`fedrates.verify.checks.rate_exponent`);
* :class:`BoundClaim` — the metric stays below the theorem's explicit right-hand side at every point (one-sided
  confidence bound; the verdict carries the slack bound/measured);
* :class:`ExactClaim` — the Monte-Carlo mean equals a closed form at every point (two-sided, family-wise
  confidence; :func:`fedrates.verify.checks.exact_expectation`);
* :class:`LimitClaim` — an exact-gradient run reaches the certified optimum, or a stated fixed point, to a relative
  accuracy ``fraction``;
* :class:`ContractionClaim` — the worst per-round factor ``e_{r+1}/e_r`` of an exact-gradient run is at most the
  theorem's contraction factor (and, when ``sharp``, within ``tolerance`` of it);
* :class:`ComparisonClaim` — the claim's algorithm reaches a lower metric than ``other`` at equal rounds, paired over
  common seeds (one-sided);
* :func:`erratum_claim` — any of the above whose check tests an erratum's prediction: the reproduced failure is the
  verdict ``erratum``, a check that passes is a ``fail``.

Every builder carries its regime (the claim's ``regime`` text), its tolerance, the theorem's conditions evaluated on
the certified constants of the instance (a condition that fails gives ``conditions-not-met``, never a pass), a
reference-sufficiency check where the metric is measured against the certified optimum, a margin
(:mod:`fedrates.verify.margins`) and a figure: its records hold the metric against ``x`` (and the bound), from which
:func:`fedrates.verify.plotdata.plot_spec` draws the claim's figure in the report.

The theorem's symbols are given values by :meth:`BuiltClaim.symbol_values`: the run's variables through the
theorem's own ``symbols`` map (a letter meaning ``iterations``, ``rounds``, ``clients``, ``local_steps``, ``batch``,
``participating`` or ``dim`` takes the point's value), the usual letters of :data:`fedrates.bounds.symbols.MEANINGS`
from the certified constants (``L``, ``mu``, ``Lam``, ``H``, ``sigma``, ``rho``, ``B`` = ‖w0 − ŵ‖², ``K``, ``E``),
the algorithm's hyperparameters by name, and finally ``values(instance, point)``, the claim's own map.

Example (a FedAvg bound, with a user's :class:`~fedrates.Theorem`)::

    BoundClaim(id="mypaper.thm1/bound", theorem=THM1, title="Theorem 1 holds", algorithm="fedavg",
               problem="quadratic", regime="exact gradients, T = 1..64", why="Theorem 1, explicit constants",
               problem_params={"clients": 1, "dim": 4, "mu": 0.5, "L": 2.0}, gradients="exact",
               hyper=lambda inst: {"step": 1 / inst.constants.L, "local_steps": 1},
               metric="distance_to_optimum", x="iterations", grid={"quick": (1, 4, 16, 64)})
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fedrates._lazy import lazy_import
from fedrates.solvers.certify import observed_cache
from fedrates.verify import checks
from fedrates.verify import margins as mg
from fedrates.verify import tolerances as tol
from fedrates.verify.claims.base import Claim, evaluate_conditions, matrix, records_from_trace
from fedrates.verify.errata import Erratum

pd = lazy_import("pandas")  # imported on first use: listing claims stays fast

__all__ = ["BoundClaim", "BuiltClaim", "ComparisonClaim", "ContractionClaim", "ExactClaim", "Instance",
           "LimitClaim", "RateClaim", "erratum_claim", "instance"]

_TINY = float(np.finfo(float).tiny)
#: the run variables recorded by the runner itself (one run, recorded at every grid value)
TIME_VARIABLES = ("round", "iterations")
#: record columns set from the sweep point (a problem parameter or a hyperparameter of that name)
_POINT_COLUMNS = ("clients", "local_steps", "batch", "participating", "dim")


def _grid_default() -> dict[str, tuple[float, ...]]:
    return {}


# ---- instances ---------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Instance:
    """One problem instance with its certified reference optimum and exact constants.

    Attributes:
        family: problem family name (``quadratic``, ``lasso``, ... or a plugin's family).
        params: the family parameters it was built from (preset under ``"preset"``).
        problem: the federation (:class:`fedrates.solvers.problems.base.Problem`).
        reference: the certified optimum ŵ (``.w``, ``.value``, ``.gap``: φ(ŵ) − φ* ≤ gap).
        constants: the exact constants (:class:`fedrates.solvers.constants.Constants`), computed at ŵ.
    """

    family: str
    params: Mapping[str, Any]
    problem: Any
    reference: Any
    constants: Any


@observed_cache
def _build(family: str, params_json: str, batch: int) -> tuple[Any, Any, Any]:
    from fedrates.solvers import constants, problems, reference

    params = json.loads(params_json)
    preset = params.pop("preset", None)
    problem = problems.make(family, preset, **params)
    ref = reference.solve(problem)
    consts = constants.compute(problem, batch=batch, reference_point=ref.w)
    return problem, ref, consts


def instance(family: str, params: Mapping[str, Any] | None = None, batch: int = 1) -> Instance:
    """The instance of ``family`` with ``params`` (memoised per process; the reference and constants are certified
    and cached on disk, see :func:`fedrates.solvers.reference.solve` and :func:`fedrates.solvers.constants.compute`).
    ``batch`` is the minibatch size B at which σ² is computed."""
    params = dict(params or {})
    problem, ref, consts = _build(family, json.dumps(params, sort_keys=True, default=str), int(batch))
    return Instance(family, params, problem, ref, consts)


# ---- the shared base ---------------------------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class BuiltClaim(Claim):
    """What every builder shares: the instance, the algorithm's hyperparameters, the theorem and its symbols.

    Its fields are those of :class:`~fedrates.verify.claims.base.Claim` (``metric`` defaults to
    ``objective_gap``, ``x`` to ``iterations``, ``why`` to ``""``) and the following.

    Attributes:
        problem_params: parameters of the problem family ``problem`` (``"preset"`` selects a preset).
        hyper: the algorithm's hyperparameters, or a function ``instance -> hyperparameters`` (a step size 1/L from
            the certified constants).
        gradients: ``"stochastic"`` or ``"exact"`` (see :func:`fedrates.solvers.algorithms.run_batch`).
        participating: clients per round (None: all).
        values: ``(instance, point) -> {symbol: value}``, the claim's own values of the theorem's symbols (added
            to and overriding the defaults of :meth:`symbol_values`).
        theorem_def: the :class:`~fedrates.Theorem` itself when it is not (or not yet) in the catalogue; passing a
            Theorem as ``theorem`` sets it and keeps its id in ``theorem``.
        statement: LaTeX statement shown with the verdict (default: the theorem's).
        grid: the values of ``x`` per profile (``{"quick": (...), "standard": (...), "full": (...)}``; a profile
            that is missing uses the closest smaller one).
        rounds: rounds of each run when ``x`` is not a time variable (``round``/``iterations``).
    """

    metric: str = "objective_gap"
    x: str = "iterations"
    why: str = ""
    problem_params: Mapping[str, Any] = field(default_factory=dict)
    hyper: Mapping[str, Any] | Callable[[Instance], Mapping[str, Any]] = field(default_factory=dict)
    gradients: str = "stochastic"
    participating: int | None = None
    values: Callable[[Instance, Mapping[str, Any]], Mapping[str, float]] | None = None
    theorem_def: Any = field(default=None, compare=False)
    statement: str = ""
    grid: Mapping[str, Sequence[float]] = field(default_factory=_grid_default)
    rounds: int = 0

    def __post_init__(self) -> None:
        super().__post_init__()
        if not isinstance(self.theorem, str):  # a Theorem object: keep it, and its id as the claim's theorem
            if not (hasattr(self.theorem, "id") and hasattr(self.theorem, "check_conditions")):
                raise TypeError(f"claim {self.id}: theorem must be a theorem id or a fedrates.Theorem, got "
                                f"{type(self.theorem).__name__}")
            object.__setattr__(self, "theorem_def", self.theorem)
            object.__setattr__(self, "theorem", self.theorem.id)
        if self.gradients not in ("stochastic", "exact"):
            raise ValueError(f"claim {self.id}: gradients must be 'stochastic' or 'exact', got {self.gradients!r}")
        object.__setattr__(self, "problem_params", dict(self.problem_params))
        object.__setattr__(self, "grid", {k: tuple(v) for k, v in dict(self.grid).items()})

    def __reduce_ex__(self, protocol: Any) -> Any:
        """Pickled by reference when the claim is registered (``fedrates verify --jobs N`` sends claims to worker
        processes, and a builder's fields are often lambdas, which pickle cannot send): the id and the fields that
        differ from the registered claim (e.g. ``algorithm_override``); the worker looks the claim up in its own
        registry. An unregistered claim is pickled field by field."""
        try:
            from fedrates.verify import claims

            registered = claims.get(self.id)
        except Exception:  # noqa: BLE001 - not registered (a claim being written, a test's claim)
            registered = None
        if registered is None or type(registered) is not type(self):
            return super().__reduce_ex__(protocol)
        changes = {}
        for f in dataclasses.fields(self):
            mine, theirs = getattr(self, f.name), getattr(registered, f.name)
            try:
                same = mine is theirs or bool(mine == theirs)
            except Exception:  # noqa: BLE001 - values that cannot be compared are sent
                same = False
            if not same:
                changes[f.name] = mine
        return _registered_claim, (self.id, changes)

    # ---- pieces a subclass or a user may reuse ----
    def grid_for(self, profile: str) -> list[float]:
        """The grid of ``x`` for ``profile`` (the closest smaller profile's when the profile is not given)."""
        order = ("quick", "standard", "full")
        for name in order[: order.index(profile) + 1][::-1] if profile in order else (profile,):
            if name in self.grid:
                return list(self.grid[name])
        raise ValueError(f"claim {self.id}: no grid for profile {profile!r} (grid has {sorted(self.grid)})")

    def theorem_object(self) -> Any:
        """The claim's :class:`~fedrates.Theorem` (``theorem_def``, else the catalogue's ``theorem``)."""
        if self.theorem_def is not None:
            return self.theorem_def
        from fedrates.bounds import catalog

        return catalog.get(self.theorem)

    def _problem_overrides(self, point: Mapping[str, Any]) -> dict[str, Any]:
        from fedrates.solvers import problems

        names = set(problems.family(self.problem).parameters)
        return {k: v for k, v in point.items() if k in names}

    def instance(self, point: Mapping[str, Any] | None = None) -> Instance:
        """The instance of the claim's problem at ``point`` (the point's problem parameters override
        ``problem_params``), with constants at the algorithm's batch size."""
        params = {**self.problem_params, **self._problem_overrides(point or {})}
        base = instance(self.problem, params, 1)
        if self.gradients == "exact":
            return base
        # σ² at the minibatch size the claim declares (the registered default when it declares none)
        batch = int(self._declared(base, point).get("batch", 1))
        return base if batch == 1 else instance(self.problem, params, batch)

    def hyperparameters(self, inst: Instance, point: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The algorithm's hyperparameters on ``inst`` at ``point`` (a point's key naming a hyperparameter sets
        it)."""
        hyper = dict(self.hyper(inst) if callable(self.hyper) else self.hyper)
        if point:
            names = self._hyper_names(self.algorithm)
            hyper.update({k: v for k, v in point.items() if k in names})
        return hyper

    @staticmethod
    def _hyper_names(name: str) -> set[str]:
        from fedrates.solvers import algorithms

        try:
            return {f.name for f in dataclasses.fields(algorithms.get(name))}
        except Exception:  # noqa: BLE001 - a subject that is not an algorithm has no hyperparameters
            return set()

    def _declared(self, inst: Instance, point: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The declared hyperparameters completed with the registered algorithm's defaults."""
        from fedrates.solvers import algorithms

        values = self.hyperparameters(inst, point)
        try:
            return algorithms.make(self.algorithm, **values).hyperparameters()
        except Exception:  # noqa: BLE001 - a subject without a registered algorithm: the declared values
            return values

    def make_algorithm(self, inst: Instance, point: Mapping[str, Any] | None = None, name: str | None = None,
                       hyper: Mapping[str, Any] | None = None) -> Any:
        """The algorithm object that runs: the registered one with :meth:`hyperparameters`, or the override of
        :meth:`with_algorithm` (a class is built with the same hyperparameters; an object keeps its own except the
        point's ``local_steps``/``batch``)."""
        from fedrates.solvers import algorithms

        own = name is None or name == self.algorithm
        values = dict(hyper) if hyper is not None else self.hyperparameters(inst, point)
        if own and isinstance(self.algorithm_override, type):
            return self.algorithm_override(**values)
        if own and self.algorithm_override is not None:
            sweep = {k: values[k] for k in ("local_steps", "batch") if point and k in point}
            return dataclasses.replace(self.algorithm_override, **sweep)
        return algorithms.make(name or self.algorithm, **values)

    def symbol_values(self, inst: Instance, point: Mapping[str, Any], algorithm: Any = None) -> dict[str, float]:
        """Values of the theorem's symbols at ``point`` (see the module docstring); symbols without a value are left
        out (their conditions are then reported as not evaluated)."""
        thm = self.theorem_object()
        c, problem = inst.constants, inst.problem
        hyper = algorithm.hyperparameters() if algorithm is not None else self._declared(inst, point)
        known: dict[str, float] = {}
        w0 = np.zeros(problem.shape)
        common = {"L": c.L, "mu": c.mu, "Lam": c.Lambda, "H": c.H, "sigma": math.sqrt(max(c.sigma2, 0.0)),
                  "rho": problem.radius, "B": float(np.sum((w0 - np.asarray(inst.reference.w)) ** 2)),
                  "K": problem.clients, "E": hyper.get("local_steps", 1)}
        for name, value in common.items():
            if name in thm.symbols and value is not None:
                known[name] = float(value)
        run = {"clients": problem.clients, "local_steps": hyper.get("local_steps", 1), "batch": hyper.get("batch"),
               "participating": self.participating or problem.clients, "dim": problem.dim,
               "rounds": point.get("round"), "iterations": point.get("iterations")}
        if "round" in point and point.get("iterations") is None:
            run["iterations"] = float(point["round"]) * float(hyper.get("local_steps", 1))
        if "iterations" in point and point.get("round") is None:
            run["rounds"] = float(point["iterations"]) / float(hyper.get("local_steps", 1))
        for letter, meaning in thm.symbols.items():
            if meaning in run and run[meaning] is not None:
                known[letter] = float(run[meaning])
            elif letter in hyper and isinstance(hyper[letter], (int, float)) and not isinstance(hyper[letter], bool):
                known[letter] = float(hyper[letter])
        if self.values is not None:
            known.update({k: float(v) for k, v in self.values(inst, point).items()})
        return known

    def conditions(self, inst: Instance, points: Sequence[Mapping[str, Any]]) -> list[dict]:
        """The theorem's conditions at every point (report dicts); a condition failing at some point is reported
        once as failing, with the point."""
        thm = self.theorem_object()
        merged: dict[str, dict] = {}
        for i, point in enumerate(points):
            for cond in evaluate_conditions(thm, self.symbol_values(inst, point)):
                seen = merged.get(cond["condition"])
                if seen is None or (cond["holds"] is False and seen["holds"] is not False):
                    merged[cond["condition"]] = {**cond, "value": f"{cond['value']} (point {i})".strip()}
        return list(merged.values())

    def run(self, inst: Instance, algorithm: Any, rounds: int, seeds: Sequence[int], record_every: int = 1,
            callback: Callable[[int, Any], None] | None = None) -> Any:
        """``run_batch`` of ``algorithm`` on the instance (its certified reference) for ``rounds`` rounds."""
        from fedrates.solvers.algorithms import run_batch

        return run_batch(algorithm, inst.problem, int(rounds), seeds=list(seeds), participating=self.participating,
                         gradients=self.gradients, record_every=max(1, int(record_every)), reference=inst.reference,
                         callback=callback)

    def reference_scale(self, inst: Instance) -> float | None:
        """The certified uncertainty of the reference in the metric's units: the gap for ``objective_gap``, and
        √(2·gap/μ) ≥ ‖ŵ − w*‖ for ``distance_to_optimum`` (μ-strong convexity); None for other metrics."""
        gap = float(inst.reference.gap)
        if self.metric == "objective_gap":
            return gap
        if self.metric == "distance_to_optimum" and inst.constants.mu > 0:
            return math.sqrt(2.0 * gap / inst.constants.mu)
        return None

    def _statement(self) -> str:
        if self.statement:
            return self.statement
        try:
            return str(self.theorem_object().statement)
        except Exception:  # noqa: BLE001 - a statement is decoration
            return ""

    @staticmethod
    def _seeds_of(records: pd.DataFrame) -> list[int]:
        return sorted(int(s) for s in records["seed"].unique()) if len(records) else []

    def _x_column(self) -> str:
        return "round" if self.x in ("round", "rounds") else self.x

    # ---- a generic sweep: one run per point (time variables: one run recorded at every grid value) ----
    def points(self, profile: str) -> list[dict]:
        """One point holding the whole grid for a time variable (one run recorded at every value), else one point
        per value of ``x`` (a problem parameter or a hyperparameter of that name)."""
        grid = self.grid_for(profile)
        if self._x_column() in TIME_VARIABLES:
            return [{"grid": [int(v) for v in grid]}]
        return [{self.x: v} for v in grid]

    def _round_grid(self, grid: Sequence[int], local_steps: int) -> list[int]:
        if self._x_column() == "round":
            return [int(g) for g in grid]
        bad = [g for g in grid if int(g) % local_steps]
        if bad:
            raise ValueError(f"claim {self.id}: iterations {bad} are not multiples of local_steps={local_steps}")
        return [int(g) // local_steps for g in grid]

    def simulate(self, point: dict, seeds: Sequence[int]) -> pd.DataFrame:
        """Run the algorithm and return the records of ``metric`` against ``x`` (with the theorem's bound when
        :meth:`bound_at` gives one)."""
        index = 0 if "grid" in point else self.points_index(point)
        inst = self.instance(point)
        alg = self.make_algorithm(inst, point)
        if "grid" in point:
            rounds_grid = self._round_grid(point["grid"], int(alg.local_steps))
            every = math.gcd(*rounds_grid) if len(rounds_grid) > 1 else rounds_grid[0]
            trace = self.run(inst, alg, max(rounds_grid), seeds, record_every=every)
            df = trace.records[trace.records["round"].isin(rounds_grid)]
        else:
            if self.rounds < 1:
                raise ValueError(f"claim {self.id}: x={self.x!r} is not a time variable; give rounds=")
            trace = self.run(inst, alg, self.rounds, seeds, record_every=self.rounds)
            df = trace.records[trace.records["round"] == self.rounds]
        return self._records(df, index, point, inst, alg)

    def points_index(self, point: Mapping[str, Any]) -> int:
        """The index of a non-time point (its position in the full profile's grid)."""
        for profile in ("full", "standard", "quick"):
            try:
                values = self.grid_for(profile)
            except ValueError:
                continue
            if point.get(self.x) in values:
                return values.index(point.get(self.x))
        return 0

    def _records(self, df: pd.DataFrame, index: int, point: Mapping[str, Any], inst: Instance, alg: Any,
                 metrics: Sequence[str] | None = None) -> pd.DataFrame:
        hyper = alg.hyperparameters()
        shown = {**point, "clients": inst.problem.clients, "local_steps": hyper.get("local_steps", 1),
                 "batch": 0 if self.gradients == "exact" else hyper.get("batch", 0),
                 "participating": self.participating or inst.problem.clients}
        shown.pop("grid", None)
        bound = None
        if self.has_bound():
            bound = lambda d: np.array([self.bound_at(inst, self._point_row(point, row))  # noqa: E731
                                        for row in d.itertuples()])
        out = records_from_trace(df, claim=self, point_index=index, point=shown, metrics=metrics or [self.metric],
                                 bound=bound, problem_dim=inst.problem.dim)
        col = self._x_column()
        if col not in TIME_VARIABLES and col in point:
            out[col] = point[col]
        return out

    def _point_row(self, point: Mapping[str, Any], row: Any) -> dict[str, Any]:
        if "grid" in point:
            return {"round": int(row.round), "iterations": int(row.iterations)}
        return dict(point)

    def has_bound(self) -> bool:
        """Whether the records carry the theorem's bound (:meth:`bound_at`) in their ``bound`` column."""
        return False

    def bound_at(self, inst: Instance, point: Mapping[str, Any]) -> float:
        """The theorem's bound at a point (for claims whose :meth:`has_bound` is true)."""
        raise NotImplementedError

    def _table(self, records: pd.DataFrame, metric: str | None = None) -> tuple[np.ndarray, np.ndarray, list[int]]:
        seeds = self._seeds_of(records)
        x, y = matrix(records, metric or self.metric, self._x_column(), seeds)
        return x, y, seeds

    def _point_of(self, value: float) -> dict[str, Any]:
        value = int(value) if float(value).is_integer() else float(value)  # as the grid gave it (4, not 4.0)
        col = self._x_column()
        return {col: value} if col in TIME_VARIABLES else {self.x: value}

    def _judge_with(self, records: pd.DataFrame, profile: str,
                    check: Callable[[Instance, np.ndarray, np.ndarray], tuple[checks.CheckResult, dict]]) -> dict:
        """Conditions first (on the certified constants at every point), then ``check(inst, x, y)`` → (result,
        extra keyword arguments of :meth:`verdict`)."""
        x, y, seeds = self._table(records)
        points = [self._point_of(v) for v in x]
        per_point = {float(v): self.instance(self._point_of(v)) for v in x} \
            if self._x_column() not in TIME_VARIABLES else {}
        inst = next(iter(per_point.values())) if per_point else self.instance()
        conditions = []
        for i, p in enumerate(points):
            conditions += [c for c in self.conditions(per_point.get(float(x[i]), inst), [p])
                           if c["condition"] not in {d["condition"] for d in conditions}]
        values = self.symbol_values(inst, points[-1] if points else {})
        statement = self._statement()
        if any(c["holds"] is False for c in conditions):
            return self.conditions_not_met(conditions, seeds, values, statement)
        result, extra = check(inst, x, y)
        return self.verdict(result, conditions=conditions, seeds=seeds, constants=values, statement=statement,
                            **extra)


def _registered_claim(claim_id: str, changes: Mapping[str, Any]) -> Claim:
    """The registered claim ``claim_id`` with ``changes`` applied (unpickling, see :meth:`BuiltClaim.__reduce_ex__`)."""
    from fedrates.verify import claims

    claim = claims.get(claim_id)
    return dataclasses.replace(claim, **changes) if changes else claim


# ---- rate --------------------------------------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class RateClaim(BuiltClaim):
    """E[metric] ∝ x^exponent: the log–log slope of the mean over seeds, with a bootstrap CI over seeds, lies in
    ``exponent ± tolerance`` (:func:`fedrates.verify.checks.rate_exponent`; pass only when the whole CI is inside
    the band and narrower than :data:`tolerances.MAX_SLOPE_CI_WIDTH`, fail when it lies outside).

    The regime matters: a rate holds where its term dominates the bound; say in ``regime`` why the grid is there.
    """

    exponent: float
    tolerance: float = tol.SLOPE_TOLERANCE

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        """Conditions, then the slope check; the reference must be 100× below the smallest mean measured."""
        def check(inst: Instance, x: np.ndarray, y: np.ndarray) -> tuple[checks.CheckResult, dict]:
            res = checks.rate_exponent(x, y, self.exponent, self.tolerance, variable=self.x)
            return res, {"reference_gap": self.reference_scale(inst),
                         "smallest_measured": float(np.nanmin(np.nanmean(y, axis=0)))}

        return self._judge_with(records, profile, check)


# ---- bound -------------------------------------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class BoundClaim(BuiltClaim):
    """E[metric] ≤ rhs at every point, rhs the theorem's explicit right-hand side on the certified constants
    (:meth:`Theorem.evaluate <fedrates.Theorem.evaluate>` of :meth:`symbol_values`; or ``rhs(instance, values)``).

    Pass when the one-sided 95% upper confidence bound of the mean is below the bound everywhere, fail when the
    lower one is above it somewhere (:func:`fedrates.verify.checks.bound_holds`). The margin is the slack
    min bound/mean; a pass with slack above :data:`margins.SHARP_SLACK` is ``informational`` (cannot fail).
    """

    rhs: Callable[[Instance, Mapping[str, float]], float] | None = None

    def has_bound(self) -> bool:
        return True

    def bound_at(self, inst: Instance, point: Mapping[str, Any]) -> float:
        """The bound at ``point``: ``rhs(instance, values)`` or the theorem's rhs at :meth:`symbol_values`."""
        values = self.symbol_values(inst, point)
        if self.rhs is not None:
            return float(self.rhs(inst, values))
        return float(self.theorem_object().evaluate(values))

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        """Conditions, then the bound check with its slack and the reference sufficiency."""
        def check(inst: Instance, x: np.ndarray, y: np.ndarray) -> tuple[checks.CheckResult, dict]:
            bound = np.array([self.bound_at(inst, self._point_of(v)) for v in x])
            res = checks.bound_holds(y, bound)
            mean = np.nanmean(y, axis=0)
            ratio = float(np.nanmax(mean / bound))
            return res, {"bound_ratio": ratio, "margin": mg.slack(bound, mean),
                         "reference_gap": self.reference_scale(inst),
                         "smallest_measured": float(np.nanmin(mean))}

        return self._judge_with(records, profile, check)


# ---- exact expectation -------------------------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class ExactClaim(BuiltClaim):
    """E[metric] = expected(instance, context) at every point, two-sided (too good fails as well as too bad).

    ``expected(instance, context)`` is the closed form, computed independently of the algorithm's code, with
    ``context`` the claim's declared hyperparameters (completed with the registered algorithm's defaults — never
    those of a substituted, broken algorithm) and the point (``round`` and ``iterations``, or ``x``); ``sd``
    (optional, same arguments) is the exact standard deviation of one sample. The Monte-Carlo mean must lie within
    ``expected ± z·sd/√S`` at family-wise confidence :data:`tolerances.EXACT_CONFIDENCE` (Bonferroni over the
    points), with a half-width at most :data:`tolerances.EXACT_RESOLUTION` of the value
    (:func:`fedrates.verify.checks.exact_expectation`). The margin is that resolution.
    """

    expected: Callable[[Instance, Mapping[str, Any]], float]
    sd: Callable[[Instance, Mapping[str, Any]], float] | None = None

    def _context(self, inst: Instance, point: Mapping[str, Any]) -> dict[str, Any]:
        # the declared hyperparameters (with the registered defaults), never those of a substituted algorithm
        hyper = self._declared(inst, point)
        ctx = {**hyper, **point}
        if "round" in point:
            ctx.setdefault("iterations", int(point["round"]) * int(hyper.get("local_steps", 1)))
        return ctx

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        """Conditions, then the two-sided exact-expectation check; the margin is its resolution."""
        def check(inst: Instance, x: np.ndarray, y: np.ndarray) -> tuple[checks.CheckResult, dict]:
            ctx = [self._context(inst, self._point_of(v)) for v in x]
            expected = np.array([float(self.expected(inst, c)) for c in ctx])
            sd = None if self.sd is None else np.array([float(self.sd(inst, c)) for c in ctx])
            res = checks.exact_expectation(y, expected, sd)
            half = res.details.get("half_width")
            margin = mg.resolution(float(np.max(np.asarray(half) / np.abs(expected)))) if half is not None else \
                mg.resolution(tol.EXACT_RELATIVE)
            return res, {"margin": margin}

        return self._judge_with(records, profile, check)


# ---- limit -------------------------------------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class LimitClaim(BuiltClaim):
    """With exact gradients the run converges to the certified optimum ŵ (default) or to a stated fixed point.

    Metric ``relative_gap`` = (φ(w_r) − φ(ŵ)) / (φ(w_0) − φ(ŵ)), or, with ``fixed_point(instance) -> w``,
    ``relative_distance`` = ‖w_r − w_fp‖ / ‖w_0 − w_fp‖. Pass when the last value is at most ``fraction``
    (:data:`tolerances.LIMIT_FRACTION`); the reference gap must be 100× below ``fraction``·(initial gap), so that
    the certified optimum can resolve the threshold. ``x`` is ``round``; ``rounds`` per profile through ``grid``
    (its largest value) or ``rounds``.
    """

    x: str = "round"
    metric: str = "relative_gap"
    gradients: str = "exact"
    fixed_point: Callable[[Instance], np.ndarray] | None = None
    fraction: float = tol.LIMIT_FRACTION
    n_seeds: Mapping[str, int] = field(default_factory=lambda: {"quick": 1, "standard": 1, "full": 1})

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.metric not in ("relative_gap", "relative_distance"):
            raise ValueError(f"claim {self.id}: a limit claim measures relative_gap or relative_distance")
        if (self.metric == "relative_distance") != (self.fixed_point is not None):
            raise ValueError(f"claim {self.id}: relative_distance goes with fixed_point= (and relative_gap without)")

    def points(self, profile: str) -> list[dict]:
        """One run of ``max(grid)`` (or ``rounds``) rounds, recorded at 9 rounds spread over it."""
        total = int(max(self.grid_for(profile))) if self.grid else int(self.rounds)
        if total < 1:
            raise ValueError(f"claim {self.id}: give rounds= or grid= for a limit claim")
        return [{"rounds": total}]

    def simulate(self, point: dict, seeds: Sequence[int]) -> pd.DataFrame:
        """Run to ``rounds``; record the relative gap (or distance to the fixed point)."""
        inst = self.instance()
        alg = self.make_algorithm(inst, point)
        total = int(point["rounds"])
        every = max(1, total // 8)
        outputs: dict[int, np.ndarray] = {}
        if self.fixed_point is not None:
            def keep(r: int, state: Any) -> None:
                if r % every == 0 or r == total:
                    outputs[r] = np.array(alg.output(state), dtype=float)
        else:
            keep = None
        trace = self.run(inst, alg, total, seeds, record_every=every, callback=keep)
        df = trace.records.copy()
        if self.fixed_point is None:
            g0 = df.groupby("seed")["objective_gap"].transform("first")
            df["relative_gap"] = df["objective_gap"] / np.maximum(g0, _TINY)
        else:
            target = np.asarray(self.fixed_point(inst), dtype=float)
            outputs[0] = np.zeros((len(seeds),) + inst.problem.shape)
            d0 = max(float(np.linalg.norm(target)), _TINY)
            rows = {r: np.linalg.norm((w - target).reshape(len(seeds), -1), axis=1) / d0 for r, w in outputs.items()}
            order = {int(s): i for i, s in enumerate(seeds)}
            df["relative_distance"] = [rows[int(r)][order[int(s)]] for r, s in zip(df["round"], df["seed"],
                                                                                   strict=True)]
        return self._records(df, 0, {}, inst, alg)

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        """Conditions, then last value ≤ ``fraction`` for every seed (deterministic)."""
        inst = self.instance()
        seeds = self._seeds_of(records)
        sub = records[records["metric"] == self.metric]
        last_round = int(sub["round"].max())
        last = sub[sub["round"] == last_round]["value"].to_numpy(dtype=float)
        values = self.symbol_values(inst, {"round": last_round})
        conditions = self.conditions(inst, [{"round": last_round}])
        statement = self._statement()
        if any(c["holds"] is False for c in conditions):
            return self.conditions_not_met(conditions, seeds, values, statement)
        worst = float(np.max(last)) if last.size else math.inf
        target = "the certified optimum" if self.fixed_point is None else "the stated fixed point"
        measured = f"{self.metric} = {worst:.3g} after {last_round} rounds"
        ok = bool(np.isfinite(worst) and worst <= self.fraction)
        msg = (f"reaches {target}: {measured} ≤ {self.fraction:g}" if ok
               else f"does not reach {target}: {measured} > {self.fraction:g}")
        res = checks.CheckResult("pass" if ok else "fail", measured, f"{self.metric} ≤ {self.fraction:g}",
                                 f"{self.fraction:g} (exact gradients)", msg)
        extra: dict[str, Any] = {"margin": mg.resolution(self.fraction)}
        if self.fixed_point is None:
            initial = self._initial_gap(inst)
            extra.update(reference_gap=float(inst.reference.gap), smallest_measured=self.fraction * initial)
        return self.verdict(res, conditions=conditions, seeds=seeds, constants=values, statement=statement, **extra)

    @staticmethod
    def _initial_gap(inst: Instance) -> float:
        from fedrates.solvers.algorithms._trace import Metrics

        vals = Metrics(inst.problem, inst.reference)(np.zeros((1,) + inst.problem.shape))
        return float(np.asarray(vals["objective_gap"]).reshape(-1)[0])


# ---- contraction -------------------------------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class ContractionClaim(BuiltClaim):
    """Per-round contraction: with exact gradients, every factor e_{r+1}/e_r of ``metric`` (default
    ‖w_r − ŵ‖) is at most the predicted factor q — the theorem's rhs (kind ``contraction``) on the certified
    constants, or ``factor(instance, values)``.

    The factors are taken while e_r is above 10⁴·(the reference's certified scale) and 10⁻¹⁰·e_0 (below, rounding
    and the reference's own error dominate). Pass when max_r e_{r+1}/e_r ≤ q (floating-point slack
    :data:`tolerances.FLOAT_SLACK`) and, when ``sharp``, the worst factor is at least q·(1 − tolerance) (the
    factor is attained, so a slower or faster algorithm both fail).
    """

    x: str = "round"
    metric: str = "distance_to_optimum"
    gradients: str = "exact"
    factor: Callable[[Instance, Mapping[str, float]], float] | None = None
    sharp: bool = False
    tolerance: float = 0.05
    n_seeds: Mapping[str, int] = field(default_factory=lambda: {"quick": 1, "standard": 1, "full": 1})

    def points(self, profile: str) -> list[dict]:
        """One run recorded at every round up to ``max(grid)`` (or ``rounds``)."""
        total = int(max(self.grid_for(profile))) if self.grid else int(self.rounds)
        if total < 1:
            raise ValueError(f"claim {self.id}: give rounds= or grid= for a contraction claim")
        return [{"grid": list(range(total + 1))}]

    def simulate(self, point: dict, seeds: Sequence[int]) -> pd.DataFrame:
        """One exact-gradient run recorded at every round."""
        inst = self.instance()
        alg = self.make_algorithm(inst, point)
        total = int(max(point["grid"]))
        trace = self.run(inst, alg, total, seeds, record_every=1)
        return self._records(trace.records, 0, point, inst, alg)

    def predicted(self, inst: Instance) -> float:
        """The predicted factor q on the instance."""
        values = self.symbol_values(inst, {"round": 1})
        if self.factor is not None:
            return float(self.factor(inst, values))
        return float(self.theorem_object().evaluate(values))

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        """Conditions, then the worst per-round factor against q."""
        def check(inst: Instance, x: np.ndarray, y: np.ndarray) -> tuple[checks.CheckResult, dict]:
            q = self.predicted(inst)
            scale = self.reference_scale(inst) or 0.0
            factors = []
            for row in y:
                floor = max(1e4 * scale, 1e-10 * float(row[0]))
                usable = [row[r + 1] / row[r] for r in range(len(row) - 1) if row[r] > floor and np.isfinite(row[r])]
                factors += usable if all(np.isfinite(row)) else [math.inf]
            if not factors:
                return checks.CheckResult("inconclusive", "no round above the reference's resolution", f"q = {q:.6g}",
                                          "—", "the error starts below the reference's resolution"), {}
            worst = float(np.max(factors))
            measured = f"max e_(r+1)/e_r = {worst:.6g} over {len(factors)} rounds"
            low = q * (1 - self.tolerance) if self.sharp else -math.inf
            ok = worst <= q * (1 + tol.FLOAT_SLACK) and worst >= low
            if ok:
                msg = f"every per-round factor ≤ q = {q:.6g}" + (f" and the worst ≥ {low:.6g}" if self.sharp else "")
            elif worst > q * (1 + tol.FLOAT_SLACK):
                msg = f"a per-round factor {worst:.6g} exceeds q = {q:.6g}"
            else:
                msg = (f"the worst per-round factor {worst:.6g} is below q(1 − {self.tolerance:g}) = {low:.6g}: q is "
                       "not attained")
            tolerance = f"relative {self.tolerance:g} (sharp)" if self.sharp else "floating point only"
            res = checks.CheckResult("pass" if ok else "fail", measured, f"factor ≤ {q:.6g}", tolerance, msg)
            return res, {"margin": mg.slack(q, worst)}

        return self._judge_with(records, profile, check)


# ---- paired comparison -------------------------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class ComparisonClaim(BuiltClaim):
    """The claim's algorithm reaches a lower ``metric`` than ``other`` after ``rounds`` rounds, paired over common
    seeds (both runs use the same streams), one-sided at :data:`tolerances.COMPARISON_CONFIDENCE`
    (:func:`fedrates.verify.checks.comparison`). ``x`` is ``algorithm``: the figure shows both."""

    other: str
    other_hyper: Mapping[str, Any] | Callable[[Instance], Mapping[str, Any]] = field(default_factory=dict)
    x: str = "algorithm"

    def points(self, profile: str) -> list[dict]:
        """Two points: the claim's algorithm and ``other``."""
        if self.rounds < 1:
            raise ValueError(f"claim {self.id}: give rounds= for a comparison claim")
        return [{"algorithm": self.algorithm, "side": "a"}, {"algorithm": self.other, "side": "b"}]

    def simulate(self, point: dict, seeds: Sequence[int]) -> pd.DataFrame:
        """One run of the point's algorithm; its last round."""
        inst = self.instance()
        if point["side"] == "a":
            alg = self.make_algorithm(inst)
        else:
            hyper = self.other_hyper(inst) if callable(self.other_hyper) else dict(self.other_hyper)
            alg = self.make_algorithm(inst, name=self.other, hyper=hyper)
        trace = self.run(inst, alg, self.rounds, seeds, record_every=self.rounds)
        df = trace.records[trace.records["round"] == self.rounds]
        out = self._records(df, 0 if point["side"] == "a" else 1, {}, inst, alg)
        out["algorithm"] = point["algorithm"]
        return out

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        """Conditions (at the rounds run), then the paired one-sided comparison."""
        inst = self.instance()
        seeds = self._seeds_of(records)
        sub = records[records["metric"] == self.metric]
        a = sub[sub["point"] == 0].sort_values("seed")["value"].to_numpy(dtype=float)
        b = sub[sub["point"] == 1].sort_values("seed")["value"].to_numpy(dtype=float)
        point = {"round": self.rounds}
        values = self.symbol_values(inst, point)
        conditions = self.conditions(inst, [point])
        statement = self._statement()
        if any(c["holds"] is False for c in conditions):
            return self.conditions_not_met(conditions, seeds, values, statement)
        if len(a) != len(b) or not len(a):
            raise ValueError(f"claim {self.id}: the two algorithms were run on different seeds")
        res = checks.comparison(a, b, names=(self.algorithm, self.other))
        return self.verdict(res, conditions=conditions, seeds=seeds, constants=values, statement=statement,
                            reference_gap=self.reference_scale(inst),
                            smallest_measured=float(min(np.mean(a), np.mean(b))))


# ---- erratum -----------------------------------------------------------------------------------------------------
def erratum_claim(claim: Claim, erratum: Erratum) -> Claim:
    """``claim`` as the test of a documented erratum: its check tests the paper's statement as printed, and the
    erratum (with its kind and its ``prediction``, how the statement fails) turns the verdict around — a failing
    check is the reproduced erratum (verdict ``erratum``), a passing one is a ``fail`` (the erratum did not
    reproduce). See :meth:`fedrates.verify.claims.base.Claim.verdict`."""
    if not isinstance(erratum, Erratum):
        raise TypeError(f"claim {claim.id}: erratum must be a fedrates.Erratum, got {type(erratum).__name__}")
    if not erratum.prediction.strip():
        raise ValueError(f"claim {claim.id}: an erratum claim needs the erratum's prediction (how the statement "
                         "fails)")
    return dataclasses.replace(claim, erratum=erratum)
