"""Adversarial instance search: look for the instance on which an explicit bound is worst, and try to break it.

A claim checks a theorem on instances we chose; :func:`falsify` asks instead for the *worst* instance.  For a theorem
of kind ``explicit`` it maximises the ratio  measured / bound  over an instance family's parameters (conditioning
μ/L, heterogeneity, noise σ, dimension, clients K, local steps E, horizon T, radius ρ, ...), with the measured side
from real runs of the algorithm against the certified optimum.

**Search: seeded quasi-random exploration, then Nelder–Mead on the log-parameters.**  Phase 1 evaluates a scrambled
Sobol sample (``scipy.stats.qmc``, seeded) of the box — an even cover that finds the region where the bound is
tightest without assuming anything about the landscape; phase 2 runs Nelder–Mead (``scipy.optimize.minimize``) from
the best valid Sobol points on log(mean/bound), with every parameter on a log scale (the parameters span decades and
the bounds are products of powers of them, so the landscape is close to piecewise linear in logs).  Why not
differential evolution: it needs a population of ~15×dim per generation, i.e. several hundred runs before it improves
on random search — more than the ≤ 2 min budget allows at 0.05–0.5 s per evaluated instance.  Integer parameters are
rounded inside the objective.  Common random numbers (the same run seeds at every instance) make the Monte-Carlo
objective smooth in the continuous parameters, which Nelder–Mead needs.

**Measured side and confidence.**  Each instance is run with ``n_seeds`` seeds; for an expectation the mean, its
one-sided Student-t bounds at :data:`CONFIDENCE` give the ratio interval [lo, hi] = [mean − t·se, mean + t·se + gap]
/ bound (``gap`` = the certified reference gap, since the measured gap can underestimate the true one by at most that
much).  Deterministic theorems use one run and no interval.  The search maximises over many noisy instances, so the
best search value is biased upwards: the verdict ``refuted`` is given only after a **confirmation** run of the worst
instance with ``confirm_seeds`` fresh seeds (disjoint from the search seeds) whose lower ratio bound exceeds 1.

**Conditions.**  The theorem's conditions are evaluated on every instance's exact constants; an instance violating
them is recorded (with the failed conditions) but never counts against the bound and is never a worst instance.  An
instance whose construction fails (e.g. a constant that cannot be computed) is recorded with its error, not counted.

**Verdicts.**  ``refuted`` — the confirmed lower ratio bound is > 1 (the worst instance is printed as a ``fedrates
run`` command line); ``survived`` — the largest upper ratio bound found, and where; ``vacuous`` — every valid instance
has upper ratio bound < :data:`VACUOUS` (the bound holds but says little); ``inconclusive`` — no valid instance.

**Records.**  Every evaluated instance is a row of ``DIR/records.parquet`` (parameters, constants, conditions,
measured mean/sd/n, bound, ratio and its interval, reference gap, seconds, phase).  Evaluations are memoised on the
theorem, algorithm, instance parameters, bound scale and seeds: rerunning with the same ``--seed`` replays the same
proposals and reads finished ones from the file (resume after an interruption; a larger ``--budget`` re-reads the
Sobol points it shares with the smaller run, since a Sobol sequence of a given seed extends its prefix).

**Scope.**  Expectation and deterministic statements; a high-probability statement needs a quantile, not a mean,
and is refused until a target provides one.  A deterministic theorem is run with one seed (its target must use
exact gradients).

**Adding a target**: write ``build(x) -> Instance`` that maps a point of the search box (a dict of
parameter values) to a problem, the algorithm with its hyperparameters, the number of rounds and the theorem's
symbol values on the instance's exact constants, and list the :class:`Target` (``Target(theorem=..., algorithm=...,
family=..., space=(Dim(...), ...), build=...)``) in ``TARGETS`` of a module that the paper declares as ``falsify``
(:class:`fedrates.Paper`; e.g. :mod:`fedrates.verify.claims.das.falsify`).  ``fedrates falsify THEOREM`` then finds
it.  When the bounded
quantity is not a metric of the run's trace (a mixture, an average over rounds, a gradient norm) or the rhs contains
quantities measured along the run (trajectory averages, an a-posteriori constant), give the target a
``measure(instance, seeds) -> Measured`` as well: the search then uses its per-seed samples, evaluates the bound per
seed on the measured symbols (a valid estimate of the bound at their expectations when the rhs is affine in them) and
widens the ratio interval by the bound's own interval (each end then holds at ≥ 2·CONFIDENCE − 1, Bonferroni). The
worst instances are rerun with ``fedrates falsify THEOREM --point JSON --seeds ...``.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from fedrates.solvers.errors import InputError, unknown_name

__all__ = ["CONFIDENCE", "DEFAULT_BUDGET", "Dim", "Instance", "Measured", "Target", "TARGETS", "VACUOUS", "falsify",
           "register", "target_for"]

#: one-sided confidence of each end of the ratio interval (a 98% two-sided interval)
CONFIDENCE = 0.99
#: upper ratio bound below which the bound is called vacuous on the searched region
VACUOUS = 1e-3
#: default number of evaluated instances (Sobol + Nelder–Mead; the confirmation run comes on top); ≈ 10–30 s on a
#: loaded 2-core machine
DEFAULT_BUDGET = 200
#: seeds per evaluated instance during the search, and fresh seeds of the confirmation run
SEARCH_SEEDS = 8
CONFIRM_SEEDS = 128
#: fraction of the budget spent on the Sobol exploration
EXPLORE_FRACTION = 0.5


@dataclass(frozen=True)
class Dim:
    """One search parameter: range [low, high], searched on a log scale when ``log`` (then low > 0)."""

    name: str
    low: float
    high: float
    log: bool = True
    integer: bool = False
    doc: str = ""

    def from_unit(self, u: float) -> float:
        u = min(max(float(u), 0.0), 1.0)
        v = math.exp(math.log(self.low) + u * (math.log(self.high) - math.log(self.low))) if self.log else \
            self.low + u * (self.high - self.low)
        return float(min(max(round(v), self.low), self.high)) if self.integer else v


@dataclass
class Instance:
    """What one point of the search box means: the run and the theorem's values on its exact constants."""

    problem: Any
    reference: Any
    algorithm: Any
    rounds: int
    values: dict[str, float]
    run_command: str
    family: str
    problem_params: dict[str, Any]
    #: anything a target's own :attr:`Target.measure` needs (start point, step sizes, ...)
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class Measured:
    """What a target's own measurement returns, for theorems whose bounded quantity is not a metric of the run's
    trace or whose right-hand side contains quantities measured along the run.

    ``samples``: the bounded quantity, one value per run seed.  ``symbols``: per-seed values of rhs symbols that are
    expectations measured along the run (e.g. Das et al.'s H_clip); the bound is evaluated per seed and averaged,
    which is the bound at the expected symbols when the rhs is affine in them (every target using this states it).
    ``values``: rhs symbols derived from the whole run and shared by all seeds (e.g. an a-posteriori G).
    ``slack``: how much the measured mean can underestimate the true one (a reference optimum's certified gap);
    ``None`` uses the instance's ``reference.gap``.
    """

    samples: np.ndarray
    symbols: dict[str, np.ndarray] = field(default_factory=dict)
    values: dict[str, float] = field(default_factory=dict)
    slack: float | None = None
    diverged: bool = False


@dataclass(frozen=True)
class Target:
    """A theorem × algorithm × problem family, searchable by :func:`falsify`."""

    theorem: str
    algorithm: str
    family: str
    space: tuple[Dim, ...]
    build: Callable[[Mapping[str, float]], Instance]
    metric: str = "objective_gap"
    description: str = ""
    #: ``measure(instance, seeds) -> Measured``; ``None`` reads ``metric`` at the last round of ``run_batch``
    measure: Callable[[Instance, list[int]], Measured] | None = None
    #: run seeds per evaluated instance during the search (``None``: :data:`SEARCH_SEEDS`)
    seeds: int | None = None
    #: catalogue ids whose conditions must hold as well (e.g. the lemma that delivers a hypothesis for this algorithm)
    also_conditions: tuple[str, ...] = ()


def _conditions(target: Target, theorem: Any, values: Mapping[str, float]) -> list[Any]:
    """The theorem's conditions and those of ``target.also_conditions`` on ``values``."""
    conds = list(theorem.check_conditions(values))
    if target.also_conditions:
        from fedrates.bounds import catalog

        seen = {c.text for c in conds}
        for other in target.also_conditions:
            conds += [c for c in catalog.get(other).check_conditions(values) if c.text not in seen]
            seen = {c.text for c in conds}
    return conds


TARGETS: dict[tuple[str, str], Target] = {}
#: the smallest positive double: a constant that is exactly 0 is evaluated in the limit 0+
TINY = float(np.finfo(float).tiny)


def register(target: Target) -> Target:
    TARGETS[(target.theorem, target.algorithm)] = target
    return target


_PLUGINS_LOADED = False


def load_targets() -> dict[tuple[str, str], Target]:
    """Register the targets of every installed paper (its ``falsify`` modules define ``TARGETS``); idempotent."""
    global _PLUGINS_LOADED
    if not _PLUGINS_LOADED:
        _PLUGINS_LOADED = True
        from fedrates import plugins

        for paper, target in plugins.exported("falsify"):
            if not isinstance(target, Target):
                plugins.report_problem(f"'{paper.id}'", f"TARGETS holds a {type(target).__name__}, expected a Target")
            elif not target.theorem.startswith(paper.id + "."):
                plugins.report_problem(f"'{paper.id}'", f"falsify target of '{target.theorem}' is not a theorem of "
                                                        f"paper '{paper.id}'")
            else:
                register(target)
    return TARGETS


def point_command(theorem: str, x: Mapping[str, float], algorithm: str) -> str:
    """``fedrates falsify THEOREM --algorithm A --point JSON``: reruns the instance of a search point."""
    point = json.dumps({k: float(v) for k, v in x.items()}, sort_keys=True, separators=(",", ":"))
    return f"fedrates falsify {theorem} --algorithm {algorithm} --point '{point}'"


def target_for(theorem_id: str, algorithm: str | None = None) -> Target | None:
    """The registered target of a theorem (and algorithm), or ``None`` when the theorem has none."""
    load_targets()
    matches = [t for (th, _), t in TARGETS.items() if th == theorem_id]
    if algorithm is None:
        return matches[0] if matches else None
    for t in matches:
        if t.algorithm == algorithm:
            return t
    if matches:
        raise unknown_name(f"algorithm for {theorem_id}", algorithm, [t.algorithm for t in matches])
    return None


# ---- evaluation ------------------------------------------------------------------------------------------------------
def _key(x: Mapping[str, float], seeds: Sequence[int]) -> str:
    return json.dumps({"x": {k: round(float(v), 12) for k, v in sorted(x.items())}, "seeds": [int(s) for s in seeds]},
                      sort_keys=True)


def _interval(samples: np.ndarray, deterministic: bool) -> tuple[float, float, float, float]:
    """(mean, sd, lower, upper) of E[X] at :data:`CONFIDENCE` one-sided each end."""
    from scipy import stats

    n = samples.size
    mean = float(np.mean(samples))
    if deterministic or n < 2:
        return mean, 0.0, mean, mean
    sd = float(np.std(samples, ddof=1))
    half = float(stats.t.ppf(CONFIDENCE, n - 1)) * sd / math.sqrt(n)
    return mean, sd, mean - half, mean + half


def evaluate(target: Target, theorem: Any, x: Mapping[str, float], seeds: Sequence[int],
             bound_scale: float = 1.0) -> dict[str, Any]:
    """Run one instance and return its record (a flat dict)."""
    from fedrates.solvers.algorithms import run_batch

    start = time.perf_counter()
    row: dict[str, Any] = {f"x_{k}": float(v) for k, v in x.items()}
    try:
        inst = target.build(x)
    except Exception as exc:  # noqa: BLE001 - an instance that cannot be built is recorded, never counted
        row.update({"n_seeds": 0, "measured_mean": math.nan, "measured_sd": math.nan, "measured_lo": math.nan,
                    "measured_hi": math.nan, "bound": math.nan, "ratio": math.nan, "ratio_lo": math.nan,
                    "ratio_hi": math.nan, "reference_gap": math.nan, "diverged": False, "conditions_ok": False,
                    "failed_conditions": "", "run_command": "", "problem_params": "{}",
                    "error": f"{type(exc).__name__}: {exc}"[:300], "seconds": time.perf_counter() - start})
        return row
    row.update({f"c_{k}": float(v) for k, v in inst.values.items()})
    conds = _conditions(target, theorem, inst.values)
    failed = [c.text for c in conds if c.holds is False]
    missing = [c.text for c in conds if c.holds is None]
    deterministic = theorem.probability == "deterministic"
    run_seeds = list(seeds)[:1] if deterministic else list(seeds)
    ref_gap = float(inst.reference.gap)
    if target.measure is None:
        trace = run_batch(inst.algorithm, inst.problem, inst.rounds, seeds=run_seeds, record_every=inst.rounds,
                          reference=inst.reference)
        final = trace.final()
        samples = final[target.metric].to_numpy(dtype=float)
        diverged = bool(trace.diverged.any()) or not np.all(np.isfinite(samples))
        bound = bound_lo = bound_hi = float(bound_scale * theorem.evaluate(inst.values))
    else:
        m = target.measure(inst, run_seeds)
        samples = np.asarray(m.samples, dtype=float).reshape(-1)
        diverged = bool(m.diverged) or not np.all(np.isfinite(samples))
        ref_gap = ref_gap if m.slack is None else float(m.slack)
        row.update({f"c_{k}": float(v) for k, v in m.values.items()})
        row.update({f"s_{k}": float(np.mean(v)) for k, v in m.symbols.items()})
        base = {**inst.values, **m.values}
        finite = all(math.isfinite(float(v)) for v in m.values.values()) and all(
            np.all(np.isfinite(v)) for v in m.symbols.values())
        if not finite:  # a bound that cannot be evaluated on this run (e.g. an infinite a-posteriori constant)
            bound = bound_lo = bound_hi = math.nan
        elif m.symbols:
            per_seed = np.array([bound_scale * theorem.evaluate(
                {**base, **{k: max(float(v[s]), _TINY) for k, v in m.symbols.items()}}) for s in range(samples.size)])
            bound, _, bound_lo, bound_hi = _interval(per_seed, deterministic)
        else:
            bound = bound_lo = bound_hi = float(bound_scale * theorem.evaluate(base))
    if diverged:
        mean = sd = lo = hi = math.inf
    else:
        mean, sd, lo, hi = _interval(samples, deterministic)
        hi += ref_gap  # the measured gap underestimates the true gap by at most the reference's certified gap
    # with a bound estimated along the run, each end of the ratio interval combines the two one-sided intervals
    # (confidence of each end >= 2*CONFIDENCE - 1 by Bonferroni)
    ratio_hi = math.nan if math.isnan(bound_lo) else hi / bound_lo if bound_lo > 0 else math.inf
    row.update({
        "n_seeds": len(run_seeds), "measured_mean": mean, "measured_sd": sd, "measured_lo": lo, "measured_hi": hi,
        "bound": bound, "bound_lo": bound_lo, "bound_hi": bound_hi, "ratio": mean / bound,
        "ratio_lo": lo / bound_hi, "ratio_hi": ratio_hi,
        "reference_gap": ref_gap, "diverged": diverged,
        "conditions_ok": not failed and not missing, "failed_conditions": "; ".join(failed + missing),
        "run_command": f"{inst.run_command} --seeds {','.join(str(s) for s in run_seeds)}",
        "problem_params": json.dumps(inst.problem_params, sort_keys=True),
        "error": "", "seconds": time.perf_counter() - start,
    })
    return row


class _Store:
    """Append-only parquet store of evaluated instances, memoised by (x, seeds)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.rows: list[dict[str, Any]] = []
        self.cache: dict[str, dict[str, Any]] = {}
        if path is not None and path.exists():
            try:
                frame = pd.read_parquet(path)
            except Exception as exc:  # noqa: BLE001 - any unreadable file is reported as bad input
                raise InputError(f"cannot resume from '{path}': {str(exc).splitlines()[0] if str(exc) else exc!r}; "
                                 f"remove it or choose another --out") from None
            if "key" not in frame:
                raise InputError(f"cannot resume from '{path}': it has no 'key' column (not a falsify record file)")
            for row in frame.to_dict("records"):
                self.cache[row["key"]] = row

    def get(self, key: str) -> dict[str, Any] | None:
        return self.cache.get(key)

    def add(self, row: dict[str, Any]) -> None:
        self.rows.append(row)
        self.cache[row["key"]] = row

    def flush(self) -> None:
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        frame = pd.DataFrame(list(self.cache.values()))
        tmp = self.path.with_suffix(".tmp.parquet")
        frame.to_parquet(tmp, index=False)
        tmp.replace(self.path)


@dataclass
class FalsifyResult:
    """What :func:`falsify` found."""

    theorem: str
    algorithm: str
    family: str
    verdict: str
    explanation: str
    worst: dict[str, Any] | None
    confirmation: dict[str, Any] | None
    evaluations: int
    valid: int
    seconds: float
    budget: int
    seed: int
    bound_scale: float
    records: pd.DataFrame = field(repr=False, default_factory=pd.DataFrame)
    pep: list[dict[str, Any]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"theorem": self.theorem, "algorithm": self.algorithm, "family": self.family, "verdict": self.verdict,
                "explanation": self.explanation, "worst": self.worst, "confirmation": self.confirmation,
                "evaluations": self.evaluations, "valid_instances": self.valid, "seconds": self.seconds,
                "budget": self.budget, "seed": self.seed, "bound_scale": self.bound_scale,
                "confidence_one_sided": CONFIDENCE, "vacuous_below": VACUOUS, "pep": self.pep}


def _check_theorem(theorem: Any) -> None:
    if theorem.kind == "explicit" and theorem.probability == "high_probability":
        raise InputError(f"theorem {theorem.id} is a high-probability bound; the search estimates means (an "
                         f"expectation or a deterministic value), not (1 - delta)-quantiles")
    if theorem.kind != "explicit":
        from fedrates.bounds import catalog

        hint = f"; try {theorem.id}.explicit" if f"{theorem.id}.explicit" in catalog.ids() else ""
        raise InputError(f"theorem {theorem.id} is of kind '{theorem.kind}' (no explicit constant to break); "
                         f"the search needs an explicit bound{hint}")


def falsify(theorem: str | Any, algorithm: str | None = None, budget: int = DEFAULT_BUDGET, seed: int = 0,
            out: str | Path | None = None, bound_scale: float = 1.0, n_seeds: int | None = None,
            confirm_seeds: int = CONFIRM_SEEDS) -> FalsifyResult:
    """Search for the instance maximising measured/bound (see module docstring).

    ``theorem`` is a catalogue id or a :class:`~fedrates.bounds.theorem.Theorem` (e.g. a modified copy in soundness
    tests; its target is looked up by its id).  ``bound_scale`` multiplies the bound (a deliberately wrong bound for
    tests).  ``out``: directory for ``records.parquet`` (resumable); ``None`` keeps records in memory only.
    """
    from scipy.optimize import minimize
    from scipy.stats import qmc

    from fedrates.bounds import catalog

    thm = catalog.get(theorem) if isinstance(theorem, str) else theorem
    _check_theorem(thm)
    if int(budget) != budget or budget <= 0:
        raise InputError(f"budget {budget} must be a positive integer (number of evaluated instances)")
    target = target_for(thm.id, algorithm)
    if target is None:
        raise InputError(f"no search target registered for theorem {thm.id} (registered: "
                         f"{', '.join(sorted({t for t, _ in load_targets()}))})")
    n_seeds = int(n_seeds if n_seeds is not None else target.seeds or SEARCH_SEEDS)
    start = time.perf_counter()
    store = _Store(Path(out) / "records.parquet" if out is not None else None)
    search_seeds = [int(seed) * 1000 + i for i in range(n_seeds)]
    # confirmation seeds are disjoint from every search seed of any --seed (search seeds are < 1000 per base seed)
    fresh = [10**7 + int(seed) * 1000 + i for i in range(confirm_seeds)]
    names = [d.name for d in target.space]
    counter = {"n": 0}

    def point(u: np.ndarray) -> dict[str, float]:
        return {d.name: d.from_unit(v) for d, v in zip(target.space, u, strict=True)}

    def run(x: dict[str, float], phase: str, seeds: list[int]) -> dict[str, Any]:
        key = f"{thm.id}|{target.algorithm}|" + _key({**x, "bound_scale": bound_scale}, seeds)
        row = store.get(key)
        if row is None:
            row = evaluate(target, thm, x, seeds, bound_scale)
            row.update({"key": key, "phase": phase, "theorem": thm.id, "algorithm": target.algorithm,
                        "family": target.family, "search_seed": int(seed), "bound_scale": bound_scale})
            store.add(row)
            if len(store.rows) % 10 == 0:
                store.flush()
        row = dict(row)
        row["index"] = counter["n"]
        return row

    evaluated: list[dict[str, Any]] = []
    seen: dict[str, dict[str, Any]] = {}
    n_explore = max(1, int(round(budget * EXPLORE_FRACTION)))
    sampler = qmc.Sobol(d=len(names), scramble=True, seed=np.random.default_rng(seed))
    units = sampler.random(2 ** math.ceil(math.log2(n_explore)))[:n_explore]
    for u in units:
        if counter["n"] >= budget:
            break
        x = point(u)
        row = run(x, "explore", search_seeds)
        evaluated.append(row)
        seen[_key(x, search_seeds)] = row
        counter["n"] += 1

    def objective(u: np.ndarray) -> float:
        x = point(np.clip(u, 0.0, 1.0))
        key = _key(x, search_seeds)
        if key in seen:  # already evaluated in this search (rounded integers, clipped corners): free
            row = seen[key]
        else:
            if counter["n"] >= budget:
                raise StopIteration
            row = run(x, "refine", search_seeds)
            counter["n"] += 1
            evaluated.append(row)
            seen[key] = row
        if not row["conditions_ok"]:
            return 50.0  # outside the theorem's conditions: never better than a valid point
        r = row["ratio"]
        return -math.log(r) if r > 0 and math.isfinite(r) else (-50.0 if r == math.inf else 50.0)

    valid_units = [(row["ratio"], u) for row, u in zip(evaluated, units, strict=False)
                   if row["conditions_ok"] and math.isfinite(row["ratio"])]
    valid_units.sort(key=lambda t: -t[0])
    starts = [u for _, u in valid_units[:3]]
    for i_start, u0 in enumerate(starts):
        if counter["n"] >= budget:
            break
        per_start = max(len(names) + 2, (budget - counter["n"]) // (len(starts) - i_start))
        simplex = np.clip(np.vstack([u0] + [u0 + 0.25 * np.eye(len(names))[i] * np.where(u0[i] > 0.5, -1, 1)
                                            for i in range(len(names))]), 0.0, 1.0)
        try:
            minimize(objective, u0, method="Nelder-Mead",
                     options={"initial_simplex": simplex, "maxfev": per_start, "xatol": 1e-3, "fatol": 1e-3})
        except StopIteration:
            break
    store.flush()
    records = pd.DataFrame(evaluated)
    valid = records[records["conditions_ok"]] if len(records) else records
    result = FalsifyResult(thm.id, target.algorithm, target.family, "inconclusive",
                           "no evaluated instance satisfies the theorem's conditions", None, None, len(records),
                           int(len(valid)), 0.0, int(budget), int(seed), float(bound_scale), records)
    if len(valid):
        best = valid.loc[valid["ratio"].idxmax()]
        worst = _describe(best, names)
        worst["conditions"] = [c.as_dict() for c in _conditions(target, thm, worst["constants"])]
        result.worst = worst
        x = {n: float(best[f"x_{n}"]) for n in names}
        max_hi = float(valid["ratio_hi"].max())
        if max_hi < VACUOUS:
            result.verdict = "vacuous"
            result.explanation = (f"every valid instance has ratio upper bound < {VACUOUS:g} (max {max_hi:.3g}): "
                                  f"the bound holds on the searched region but says little")
        else:
            confirm = run(x, "confirm", fresh)
            result.confirmation = _describe(pd.Series(confirm), names)
            result.records = pd.concat([records, pd.DataFrame([confirm])], ignore_index=True)
            if confirm["conditions_ok"] and confirm["ratio_lo"] > 1.0:
                result.verdict = "refuted"
                result.explanation = (f"on {len(fresh)} fresh seeds the worst instance has measured/bound in "
                                      f"[{confirm['ratio_lo']:.4g}, {confirm['ratio_hi']:.4g}] (each end "
                                      f"{CONFIDENCE:.0%} one-sided) > 1; its search run: {worst['run_command']}")
            else:
                result.verdict = "survived"
                result.explanation = (f"largest ratio {best['ratio']:.4g} (upper bound {best['ratio_hi']:.4g}) at the "
                                      f"worst instance; on fresh seeds [{confirm['ratio_lo']:.4g}, "
                                      f"{confirm['ratio_hi']:.4g}]")
        store.flush()
    result.seconds = time.perf_counter() - start
    return result


def _describe(row: pd.Series, names: Sequence[str]) -> dict[str, Any]:
    keys = ("measured_mean", "measured_lo", "measured_hi", "bound", "bound_lo", "bound_hi", "ratio", "ratio_lo",
            "ratio_hi", "n_seeds",
            "reference_gap", "conditions_ok", "failed_conditions", "run_command", "index", "phase")
    out: dict[str, Any] = {k: _py(row[k]) for k in keys if k in row}
    out["parameters"] = {n: _py(row[f"x_{n}"]) for n in names}
    out["constants"] = {k[2:]: _py(v) for k, v in row.items() if str(k).startswith("c_") and not _isnan(v)}
    # rhs symbols measured along the run (means over the run seeds), e.g. Das et al.'s H_clip
    out["constants"].update({k[2:]: _py(v) for k, v in row.items() if str(k).startswith("s_") and not _isnan(v)})
    out["problem_params"] = json.loads(row["problem_params"])
    return out


def _isnan(v: Any) -> bool:
    return isinstance(v, float) and math.isnan(v)


def _py(v: Any) -> Any:
    return v.item() if hasattr(v, "item") else v


_TINY = float(np.finfo(float).tiny)


# ---- targets ---------------------------------------------------------------------------------------------------------
def run_command(algorithm: str, family: str, params: Mapping[str, Any], hyper: Mapping[str, Any],
                 rounds: int) -> str:
    """The ``fedrates run`` command line of an instance (:func:`evaluate` appends the run seeds)."""
    sets = " ".join(f"{k}={v}" for k, v in params.items() if v is not None)
    hypers = " ".join(f"{k}={v!r}" if isinstance(v, str) else f"{k}={v:.17g}" if isinstance(v, float) else
                      f"{k}={v}" for k, v in hyper.items())
    return f"fedrates run {algorithm} --problem {family} --set {sets} --hyper {hypers} --rounds {rounds}"
