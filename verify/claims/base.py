"""Claims: a theorem × an algorithm × a problem × a sweep, turned into a falsifiable verdict.

A :class:`Claim` declares

* ``points(profile)`` — the sweep points (JSON-able dicts of run parameters in fedrates' vocabulary);
* ``seeds(profile, base_seed)`` — the Monte-Carlo seeds;
* ``simulate(point, seeds)`` — runs the algorithm (vectorized over seeds) and returns tidy records
  (:mod:`fedrates.verify.records` schema: one row per seed × recorded round × metric);
* ``judge(records, profile)`` — evaluates the theorem's conditions on the instance's exact constants first
  (failing conditions give ``conditions-not-met``, never a pass), then the check, and returns a verdict dict.

Soundness tests swap the algorithm for a deliberately broken one with :meth:`Claim.with_algorithm`.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fedrates._lazy import lazy_import
from fedrates._tables import pivot_last
from fedrates.verify import margins as mg
from fedrates.verify import tolerances as tol
from fedrates.verify.checks import CheckResult
from fedrates.verify.errata import Erratum

pd = lazy_import("pandas")  # imported on first use: listing and refusing stay fast

PROFILES = ("quick", "standard", "full")
VERDICTS = ("pass", "fail", "conditions-not-met", "erratum", "informational", "inconclusive", "error")
#: verdicts with which ``verify`` exits 0: a pass, a documented erratum that reproduced, a claim that cannot fail
OK_VERDICTS = ("pass", "erratum", "informational")
#: seconds of compute a claim may use per profile before it ends as ``error`` (see :attr:`Claim.budget`)
DEFAULT_BUDGET = {"quick": 120.0, "standard": 300.0, "full": 3600.0}


@dataclass(frozen=True)
class Claim:
    """A falsifiable claim: a theorem's statement × an algorithm × a problem × a sweep.

    Subclass it as a frozen dataclass and override :meth:`points`, :meth:`simulate` and :meth:`judge` (the builders
    of :mod:`fedrates.verify.builders` do this for the common kinds of claim). Attributes:

    * ``id`` — ``<paper>.<theorem label>/<what>``, unique, starting with the paper's id;
    * ``theorem`` — the theorem's id; ``title`` — one line; ``algorithm`` — a registered algorithm name (or a
      subject the paper declares); ``problem`` — the problem family;
    * ``regime`` — where the sweep sits and why the statement is testable there; ``why`` — what the check shows;
    * ``metric`` — the measured record metric; ``x`` — the record column swept (the figure's horizontal axis);
    * ``n_seeds``, ``budget``, ``erratum``, ``informational``, ``reference_free`` — see below.

    ``fedrates verify --jobs N`` sends claims to worker processes by pickling them: a subclass's fields must be
    picklable (module-level functions, not lambdas), except for the builders, which registered claims send by
    reference (:meth:`fedrates.verify.builders.BuiltClaim.__reduce_ex__`).
    """

    id: str
    theorem: str
    title: str
    algorithm: str
    problem: str
    regime: str
    why: str
    metric: str
    x: str
    #: seeds per profile
    n_seeds: Mapping[str, int] = field(default_factory=lambda: {"quick": 6, "standard": 12, "full": 40})
    #: an algorithm object replacing the registered one (soundness tests)
    algorithm_override: Any = None
    #: a documented erratum of the paper (:class:`fedrates.verify.errata.Erratum`, with its kind): the check
    #: tests the erratum's prediction; when the check fails (the paper's statement fails as predicted) the verdict
    #: is ``erratum``, when it passes (the failure did not reproduce) the verdict is ``fail``
    erratum: Erratum | None = None
    #: why the claim cannot fail in practice (a bound far above the data, a verdict that does not depend on the
    #: run): a ``pass`` is then reported as ``informational`` — shown, never counted as verified
    informational: str | None = None
    #: seconds of compute per profile; past it the claim ends as ``error`` with the reason and the run goes on
    budget: Mapping[str, float] = field(default_factory=lambda: dict(DEFAULT_BUDGET))
    #: why the claim measures nothing against a reference optimum (identities, graph invariants, formulas); a
    #: verdict without a reference-sufficiency check must say so
    reference_free: str | None = None

    def __post_init__(self) -> None:
        if self.erratum is not None and not isinstance(self.erratum, Erratum):
            raise TypeError(f"claim {self.id}: erratum must be an Erratum (with its kind), got "
                            f"{type(self.erratum).__name__}")

    # ---- sweep ----------------------------------------------------------------------------------------------
    def points(self, profile: str) -> list[dict]:  # pragma: no cover - abstract
        """The sweep points of ``profile`` (``"quick"``, ``"standard"`` or ``"full"``).

        Each point is a JSON-able dict of run parameters in fedrates' vocabulary (``clients``, ``local_steps``,
        ``rounds``, ...; anything the claim's :meth:`simulate` reads). Points are hashed into the cache key of the
        sweep (:mod:`fedrates.verify.sweep`): equal points give cached records, so a point must say everything that
        changes the run. The ``quick`` profile should finish in seconds; ``full`` is what a paper's figure needs.
        """
        raise NotImplementedError

    def seeds(self, profile: str, base_seed: int = 0) -> list[int]:
        """The Monte-Carlo seeds of ``profile``: ``n_seeds[profile]`` seeds derived from ``base_seed`` (``fedrates
        verify --seed``), disjoint for different base seeds. Every point is run for every seed; a replica r of the
        run uses the streams of ``seeds[r]`` (:func:`fedrates.solvers.oracles.make_streams`), so a paired claim
        compares two algorithms on common seeds. Override to fix the seeds (a deterministic claim: one seed)."""
        return [int(base_seed) * 100_003 + i for i in range(self.n_seeds[profile])]

    def simulate(self, point: dict, seeds: Sequence[int]) -> pd.DataFrame:  # pragma: no cover - abstract
        """Run ``point`` for ``seeds`` (one vectorised run: ``run_batch(..., seeds=seeds)``) and return its tidy
        records: one row per seed × recorded round × metric, columns :data:`fedrates.verify.records.COLUMNS`
        (:func:`records_from_trace` builds them from ``run_batch(...).records``).

        The sweep may call it with a subset of the seeds (seed batches, in parallel processes): the records of one
        seed must not depend on the others. It must return a DataFrame (anything else ends the claim as ``error``);
        the rows are the claim's whatever their ``claim`` column says (:func:`fedrates.verify.sweep.owned`). Use
        the algorithm of :meth:`with_algorithm` when ``algorithm_override`` is set, so that broken variants run.
        """
        raise NotImplementedError

    def judge(self, records: pd.DataFrame, profile: str) -> dict:  # pragma: no cover - abstract
        """Turn all the claim's records into its verdict, and return ``self.verdict(...)``.

        First evaluate the theorem's conditions on the instance's certified constants (:func:`evaluate_conditions`);
        if one fails return :meth:`conditions_not_met`, never a pass. Then run a check of
        :mod:`fedrates.verify.checks` on the measurements (:func:`matrix` pivots seeds × x) and return
        :meth:`verdict` with the check's result, the conditions, the seeds and the constants used (with the
        reference-sufficiency numbers and a margin where they apply). A judge that returns anything else (a plain
        dict, a CheckResult) ends the claim as ``error`` ("judge of <id> returned ..., expected
        self.verdict(...)"); an exception ends it as ``error`` with its message. The other claims still run.
        """
        raise NotImplementedError

    def shared_runs(self) -> str | None:
        """A key shared by claims whose :meth:`simulate` writes the same records — up to the claim's own labels
        (``claim``, ``theorem``) — for equal points and seeds: claims that check different statements on the same
        runs. The sweep then computes them once, for the first such claim of the run, and hands the others its
        records relabelled (:func:`fedrates.verify.sweep.run_claims`; only where their points and seeds are equal
        too). None (the default): the claim's runs are its own. A key must cover everything :meth:`simulate`
        reads; a test compares the records of every such group."""
        return None

    # ---- helpers --------------------------------------------------------------------------------------------
    def with_algorithm(self, algorithm: Any) -> Claim:
        """A copy of the claim that runs ``algorithm`` instead of the registered one (``algorithm_override``).

        ``algorithm`` is an algorithm object (it keeps its own hyperparameters) or an algorithm class (built with
        the claim's hyperparameters); this is how a :class:`~fedrates.verify.variants.BrokenVariant` injects a bug:
        ``apply=lambda claim: claim.with_algorithm(make("fedavg", step=2.0))``. The id stays the same."""
        return dataclasses.replace(self, algorithm_override=algorithm)

    def verdict(self, result: Any, *, conditions: list[dict], seeds: Sequence[int], constants: Mapping[str, float],
                statement: str = "", extra: Mapping[str, Any] | None = None,
                reference_gap: float | None = None, smallest_measured: float | None = None,
                bound_ratio: float | None = None, margin: Mapping[str, Any] | None = None) -> dict:
        """Assemble the verdict dict of :mod:`fedrates.reports` from a :class:`fedrates.verify.checks.CheckResult`.

        ``reference_gap`` (the certified gap of the optimum the claim measures against; 0 for a closed-form
        optimum) and ``smallest_measured`` (the smallest quantity the check used, in the same units) give the
        reference-sufficiency check: unless ``smallest_measured ≥ REFERENCE_MARGIN · reference_gap`` a pass or fail
        becomes ``inconclusive`` with both numbers. ``bound_ratio`` (max measured/bound of a bound claim) is
        reported, and flagged loose when below ``1/LOOSE_RATIO``.

        ``margin`` (:mod:`fedrates.verify.margins`) says how strongly the verdict was earned; a bound claim that
        gives ``bound_ratio`` and no margin gets the slack ``1/bound_ratio``. A ``pass`` becomes ``informational``
        when the claim declares :attr:`informational` or its slack exceeds :data:`margins.SHARP_SLACK`. For an
        erratum claim a failing check is the reproduced erratum (verdict ``erratum``) and a passing check is a
        ``fail``: the erratum did not reproduce.
        """
        verdict = result.verdict
        message = result.message
        reference = reference_check(reference_gap, smallest_measured)
        if reference["sufficient"] is None and self.reference_free:
            reference["message"] = f"not applicable: {self.reference_free}"
        if verdict in ("pass", "fail") and reference["sufficient"] is False:
            verdict = "inconclusive"
            message = f"{message}; reference insufficient: {reference['message']}"
        if margin is None:
            margin = _default_margin(result, bound_ratio)
        margin = dict(margin) if margin is not None else None
        informational = None
        if self.erratum is not None:
            if verdict == "fail":
                verdict = "erratum"
                message = f"{message}. Documented erratum ({self.erratum.kind}): {self.erratum.text}"
            elif verdict == "pass":
                verdict = "fail"
                predicted = self.erratum.prediction or self.erratum.quote
                message = f"erratum did not reproduce: {predicted} ({message})"
        elif verdict == "pass":
            if self.informational:
                informational = self.informational
            elif mg.cannot_fail(margin):
                informational = (f"bound {margin['value']:.3g}× above the measurement: cannot fail in practice"
                                 if np.isfinite(margin["value"]) else "the bound is not tested by any measurement")
            if informational:
                verdict = "informational"
                message = f"{message}; informational: {informational}"
        out = {
            "claim": self.id,
            "title": self.title,
            "theorem": self.theorem,
            "statement": statement,
            "algorithm": self.algorithm,
            "problem": self.problem,
            "verdict": verdict,
            "measured": result.measured,
            "predicted": result.predicted,
            "tolerance": result.tolerance,
            "regime": self.regime,
            "why": self.why,
            "conditions": conditions,
            "constants": {k: float(v) for k, v in constants.items()},
            "seeds": [int(s) for s in seeds],
            "message": message,
            "x": self.x,
            "metric": self.metric,
            "fit": result.fit,
            "calibrated_constant": result.calibrated_constant,
            "reference": reference,
            "bound_ratio": None if bound_ratio is None else float(bound_ratio),
            "loose": None if bound_ratio is None else bool(bound_ratio < 1.0 / tol.LOOSE_RATIO),
            "margin": margin,
            "informational": informational,
            "erratum": None if self.erratum is None else self.erratum.as_dict(),
            "erratum_kind": None if self.erratum is None else self.erratum.kind,
        }
        if extra:
            out.update(extra)
        return out

    def conditions_not_met(self, conditions: list[dict], seeds: Sequence[int], constants: Mapping[str, float],
                           statement: str = "") -> dict:
        """The verdict ``conditions-not-met`` (nothing measured), listing the conditions that fail."""
        failed = [c["condition"] for c in conditions if c["holds"] is False]
        res = CheckResult("conditions-not-met", "not measured", "—", "—",
                      "theorem conditions fail on this instance: " + "; ".join(failed))
        return self.verdict(res, conditions=conditions, seeds=seeds, constants=constants, statement=statement)


def _default_margin(result: CheckResult, bound_ratio: float | None) -> dict | None:
    """The margin a claim gets when it gives none: for a fitted slope (a rate claim) the CI width against the
    tolerance band; otherwise, for a bound claim reporting ``bound_ratio``, the slack ``1/bound_ratio``."""
    fit = result.fit or {}
    if "lo" in fit and "hi" in fit:
        band = _number(result.tolerance)
        if band:
            return mg.ci(float(fit["hi"]) - float(fit["lo"]), 2.0 * band)
        return None
    if bound_ratio is not None and np.isfinite(bound_ratio):
        return mg.slack_from_ratio(bound_ratio)
    return None


def _number(text: Any) -> float | None:
    """The number of a tolerance such as ``0.15`` or ``"± 0.15"`` (None when there is none)."""
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        return float(text)
    import re

    match = re.search(r"[-+]?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?", str(text or ""))
    return float(match.group()) if match else None


def reference_check(reference_gap: float | None, smallest_measured: float | None) -> dict:
    """``{sufficient, reference_gap, smallest_measured, message}``: is the reference's certified gap at least
    ``REFERENCE_MARGIN`` times below the smallest measured quantity? ``sufficient`` is None when not supplied."""
    if reference_gap is None or smallest_measured is None:
        return {"sufficient": None, "reference_gap": reference_gap, "smallest_measured": smallest_measured,
                "message": "reference sufficiency not checked"}
    gap, smallest = float(reference_gap), float(smallest_measured)
    ok = bool(np.isfinite(gap) and np.isfinite(smallest) and smallest >= tol.REFERENCE_MARGIN * gap)
    relation = "≥" if ok else "<"
    return {"sufficient": ok, "reference_gap": gap, "smallest_measured": smallest,
            "message": f"smallest measured {smallest:.3g} {relation} {tol.REFERENCE_MARGIN:g} × certified reference "
                       f"gap {gap:.3g}"}


def evaluate_conditions(theorem: Any, values: Mapping[str, float]) -> list[dict]:
    """The theorem's conditions on the given values, as report dicts ``{condition, holds, value}``."""
    out = []
    for res in theorem.check_conditions(values):
        holds = getattr(res, "holds", None)
        text = getattr(res, "text", None) or getattr(res, "condition", None) or str(res)
        detail = getattr(res, "detail", "") or getattr(res, "value", "")
        out.append({"condition": str(text), "holds": None if holds is None else bool(holds), "value": str(detail)})
    return out


def records_from_trace(df: pd.DataFrame, *, claim: Claim, point_index: int, point: Mapping[str, Any],
                       metrics: Sequence[str], bound: Callable[[pd.DataFrame], np.ndarray] | None = None,
                       problem_dim: int = 0) -> pd.DataFrame:
    """Reshape a Trace DataFrame (one row per seed × round) into tidy records (one row per metric): the rows of
    ``metrics[0]`` for every (seed, round) of ``df``, then those of ``metrics[1]``, and so on."""
    metrics = list(metrics)
    n, m = len(df), len(metrics)
    tile = (lambda a: np.tile(a, m)) if m != 1 else (lambda a: a)
    bound_values = bound(df) if bound is not None else np.nan
    return pd.DataFrame({
        "claim": claim.id,
        "theorem": claim.theorem,
        "algorithm": claim.algorithm,
        "problem": claim.problem,
        "preset": str(point.get("preset") or ""),
        "point": int(point_index),
        "seed": tile(df["seed"].astype("int64").to_numpy()),
        "round": tile(df["round"].astype("int64").to_numpy()),
        "iterations": tile(df["iterations"].astype("int64").to_numpy()),
        "clients": int(point.get("clients", 0)),
        "local_steps": int(point.get("local_steps", 1)),
        "batch": int(point.get("batch", 0)),
        "participating": int(point.get("participating") or point.get("clients", 0)),
        "dim": int(problem_dim),
        "metric": np.repeat(np.array(metrics, dtype=object), n),
        "value": np.concatenate([df[metric].astype(float).to_numpy() for metric in metrics]) if m else np.empty(0),
        "bound": tile(np.broadcast_to(bound_values, n)) if np.ndim(bound_values) else bound_values,
        "params": json.dumps(dict(point), sort_keys=True, default=str),
        "diverged": tile(df["diverged"].astype(bool).to_numpy()) if "diverged" in df else False,
    }, index=pd.RangeIndex(n * m))


def matrix(records: pd.DataFrame, metric: str, x: str, seeds: Sequence[int] | None = None) -> tuple[np.ndarray,
                                                                                                    np.ndarray]:
    """(x values (P,), values (S, P)) for one metric, pivoting seeds × x; rows ordered by seed."""
    sub = records[records["metric"] == metric]
    table = pivot_last(sub, "seed", x)
    if seeds is not None:
        table = table.reindex(sorted(seeds))
    return table.columns.to_numpy(dtype=float), table.to_numpy(dtype=float)
