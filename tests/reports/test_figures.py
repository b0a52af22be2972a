"""Claim figures show the statistic the claim tests (with its interval) next to the prediction on the same axes."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from matplotlib.collections import PolyCollection

from fedrates.reports import figures
from fedrates.verify.plotdata import plot_spec

X = [100, 200, 400, 800]
SEEDS = list(range(8))


def _records(values, x: str = "iterations", bound=None, xs=X, claim: str = "c/rate") -> pd.DataFrame:
    """values(seed, x) -> value; two recorded rounds per run (the early one must never be plotted)."""
    rows = []
    for seed in SEEDS:
        for point, t in enumerate(xs):
            for rnd in (1, 10):
                rows.append({"claim": claim, "point": point, "seed": seed, "round": rnd, x: t,
                             "metric": "objective_gap", "value": values(seed, t) if rnd == 10 else 1e6,
                             "bound": math.nan if bound is None else bound(t)})
    return pd.DataFrame(rows)


def _verdict(**over) -> dict:
    v = {"claim": "c/rate", "verdict": "pass", "x": "iterations", "metric": "objective_gap", "theorem": "none",
         "measured": "slope -1.0 [-1.1, -0.9]", "predicted": "slope -1", "tolerance": "± 0.25",
         "fit": {"slope": -1.0, "intercept": math.log(3.0), "lo": -1.1, "hi": -0.9}}
    v.update(over)
    return v


def _errorbar_centers(ax) -> np.ndarray:
    (container,) = ax.containers
    return np.asarray(container.lines[0].get_ydata(), dtype=float)


def test_rate_figure_draws_mean_with_interval_fit_and_predicted_slope_band() -> None:
    rng = np.random.default_rng(0)
    noise = rng.uniform(0.8, 1.2, size=(len(SEEDS), len(X)))
    records = _records(lambda s, t: 3.0 / t * noise[s, X.index(t)])
    verdict = _verdict()
    spec = plot_spec(records, verdict)
    assert spec["kind"] == "slope" and spec["statistic"] == "arithmetic mean over seeds"
    fig = figures.claim_figure(records, verdict, spec)
    ax = fig.axes[0]
    assert (ax.get_xscale(), ax.get_yscale()) == ("log", "log")
    np.testing.assert_allclose(_errorbar_centers(ax), (3.0 / np.array(X)) * noise.mean(axis=0), rtol=1e-12)
    labels = [line.get_label() for line in ax.get_lines()]
    assert "predicted slope \u22121.00 ± 0.25" in labels
    assert "fitted slope \u22121.00 [\u22121.10, \u22120.90]" in labels
    (pred,) = [line for line in ax.get_lines() if line.get_label().startswith("predicted slope")]
    x, y = pred.get_xdata(), pred.get_ydata()
    assert math.log(y[-1] / y[0]) / math.log(x[-1] / x[0]) == pytest.approx(-1.0)
    assert any(isinstance(c, PolyCollection) for c in ax.collections)  # the tolerance band
    lo, hi = np.array(spec["points"]["lo"]), np.array(spec["points"]["hi"])
    assert np.all(lo < spec["points"]["center"]) and np.all(hi > spec["points"]["center"])


def test_bound_figure_draws_bound_curve_and_flags_loose_bounds() -> None:
    records = _records(lambda s, t: 1e-6 * (1 + s / 10) / t, bound=lambda t: 1.0 / t)
    verdict = _verdict(claim="c/bound", fit=None, predicted="measured ≤ bound", tolerance="95% one-sided")
    records["claim"] = "c/bound"
    spec = plot_spec(records, verdict)
    assert spec["kind"] == "bound" and spec["loose"] is True and spec["bound_ratio"] < 1e-3
    ax = figures.claim_figure(records, verdict, spec).axes[0]
    (bound,) = [line for line in ax.get_lines() if line.get_label().startswith("bound")]
    np.testing.assert_allclose(bound.get_ydata(), 1.0 / np.array(X))
    assert any("LOOSE" in t.get_text() for t in ax.texts)
    tight = plot_spec(_records(lambda s, t: 0.5 / t, bound=lambda t: 1.0 / t), verdict)
    assert tight["loose"] is False
    assert not any("LOOSE" in t.get_text() for t in figures.claim_figure(records, verdict, tight).axes[0].texts)


def test_high_probability_figure_plots_the_quantile_not_the_mean() -> None:
    values = {s: float(s + 1) for s in SEEDS}  # 1..8
    records = pd.DataFrame({"claim": "c/rate", "point": 0, "seed": SEEDS, "round": 150, "metric": "objective_gap",
                            "value": [values[s] for s in SEEDS], "bound": math.nan})
    verdict = _verdict(x="round", fit=None, predicted="P(X ≤ bound) ≥ 0.9", tolerance="95% order statistics",
                       metric="objective_gap", theorem="bao.thm3.2.err",
                       constants={"Psi": 2.0, "lam_opt": 0.5, "mu": 1.0, "lam0": 2.0, "delta": 0.1})
    spec = plot_spec(records, verdict)
    assert spec["kind"] == "quantile"
    # the records hold no bound: it is the catalogued theorem's rhs 4Ψλ_opt/μ at the verdict's constants
    assert spec["prediction"]["kind"] == "bound" and spec["prediction"]["source"] == "theorem"
    assert spec["prediction"]["y"] == [pytest.approx(4 * 2.0 * 0.5 / 1.0)]
    assert spec["points"]["center"] == [pytest.approx(np.quantile(list(values.values()), 0.9))]
    assert spec["points"]["center"][0] != pytest.approx(np.mean(list(values.values())))
    ax = figures.claim_figure(records, verdict, spec).axes[0]
    assert any("0.9-quantile" in t.get_text() for t in ax.get_legend().get_texts())


def test_calibrated_claim_draws_c_times_rhs_from_the_catalogued_theorem() -> None:
    from fedrates.bounds import catalog

    thm = catalog.get("bao.thm2.1")
    constants = {"mu": 0.5, "L": 2.0, "Lam": 1.0, "H": 0.3, "rho": 2.0, "sigma": 4.0, "B": 1.0, "a": 16.0,
                 "T": 400.0, "E": 16.0, "K": 8.0}
    steps = [1, 2, 4, 8]
    records = _records(lambda s, e: 0.01 * e, x="local_steps", xs=steps)
    verdict = _verdict(x="local_steps", fit=None, theorem="bao.thm2.1", calibrated_constant=0.5,
                       predicted="mean ≤ C(1+margin)·rhs", tolerance="margin 0.5", constants=constants)
    spec = plot_spec(records, verdict)
    rhs = np.array([thm.evaluate({**constants, "E": float(e)}) for e in steps])
    np.testing.assert_allclose(spec["prediction"]["y"], 0.5 * rhs)
    np.testing.assert_allclose(spec["prediction"]["upper"], 0.75 * rhs)
    ax = figures.claim_figure(records, verdict, spec).axes[0]
    assert any(line.get_label().startswith("C·rhs") for line in ax.get_lines())


def test_comparison_figure_is_categorical_and_names_the_prediction() -> None:
    records = pd.DataFrame({"claim": "c/cmp", "seed": [0, 0, 1, 1], "algorithm": ["a", "b", "a", "b"], "round": 5,
                            "metric": "distance_to_truth", "value": [1.0, 2.0, 1.1, 2.2], "point": [0, 1, 0, 1]})
    verdict = {"claim": "c/cmp", "x": "algorithm", "metric": "distance_to_truth", "predicted": "a < b",
               "verdict": "pass"}
    ax = figures.claim_figure(records, verdict, plot_spec(records, verdict)).axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["a", "b"]
    assert any("predicted: a < b" in t.get_text() for t in ax.get_legend().get_texts())


def test_verdicts_without_plot_description_still_render() -> None:
    records = _records(lambda s, t: 3.0 / t, bound=lambda t: 10.0 / t)
    ax = figures.claim_figure(records, _verdict()).axes[0]
    assert ax.get_title(loc="left").endswith("pass")
    np.testing.assert_allclose(_errorbar_centers(ax), 3.0 / np.array(X))


def test_non_positive_values_switch_to_linear_axes() -> None:
    records = _records(lambda s, t: 0.0 if s == 0 else 1.0 / t)
    verdict = _verdict(fit=None, predicted="something", tolerance="")
    ax = figures.claim_figure(records, verdict, plot_spec(records, verdict)).axes[0]
    assert ax.get_yscale() == "linear"


def test_categorical_figure_draws_at_most_seed_markers_per_value_and_says_so() -> None:
    """1,000 seeds at each of two values: 60 dots per value (evenly spaced in seed order), the statistic from all."""
    seeds = np.arange(1000)
    records = pd.DataFrame({"claim": "c/cmp", "seed": np.tile(seeds, 2), "algorithm": np.repeat(["a", "b"], 1000),
                            "round": 5, "metric": "distance_to_truth", "point": np.repeat([0, 1], 1000),
                            "value": np.r_[1.0 + seeds / 1000, 2.0 + seeds / 1000]})
    verdict = {"claim": "c/cmp", "x": "algorithm", "metric": "distance_to_truth", "predicted": "a < b",
               "verdict": "pass"}
    ax = figures.claim_figure(records, verdict, plot_spec(records, verdict)).axes[0]
    (dots,) = [c for c in ax.collections if c.get_label().startswith("seeds")]
    xy = np.asarray(dots.get_offsets())
    assert len(xy) == 2 * figures.SEED_MARKERS
    for value in (0, 1):
        ys = np.sort(xy[np.round(xy[:, 0]) == value, 1])
        assert len(ys) == figures.SEED_MARKERS
        assert ys[0] == value + 1.0 and np.all(np.diff(ys) > 0.015)  # spread over the seeds, first seed included
    assert "60 of up to 1000" in dots.get_label()
    np.testing.assert_allclose(_errorbar_centers(ax), [1.4995, 2.4995])


def test_thin_per_group_keeps_small_groups_whole_and_is_even_in_order() -> None:
    groups = np.r_[np.zeros(10), np.ones(100)]
    order = np.r_[np.arange(10), np.arange(100)[::-1]]
    keep = figures.thin_per_group(groups, order, 20)
    assert keep[:10].all()
    assert sorted(order[10:][keep[10:]]) == list(range(0, 100, 5))


def test_prefix_ids_prefixes_every_id_and_reference_as_the_regular_expressions_do() -> None:
    import re

    from matplotlib.figure import Figure

    def by_regex(svg: str, prefix: str) -> str:  # the definition: ids at a word boundary, and every reference
        svg = re.sub(r'\bid="', f'id="{prefix}', svg)
        return re.sub(r"url\(#", f"url(#{prefix}", re.sub(r'href="#', f'href="#{prefix}', svg))

    fig = Figure()
    ax = fig.add_subplot()
    ax.plot([1, 2, 3], [1, 4, 9], marker="o", label="x")
    ax.fill_between([1, 2, 3], [0, 1, 2], [2, 5, 10], alpha=0.2)
    ax.set_yscale("log")
    ax.legend()
    drawn = figures.to_svg(fig)
    edge_cases = ['id="a"', 'xid="a" id="b"', '_id="x" data-id="y"', 'é id="x" éid="y"', 'id="id="', "", 'id=',
                  '<use xlink:href="#m" href="#n" style="clip-path:url(#c)"/>']
    for svg in [drawn, *edge_cases]:
        assert figures.prefix_ids(svg, "c12-") == by_regex(svg, "c12-")
    prefixed = figures.prefix_ids(drawn, "p3-")
    ids = re.findall(r'\bid="([^"]*)"', prefixed)
    assert ids and all(i.startswith("p3-") for i in ids)
    assert all(r.startswith("p3-") for r in re.findall(r'href="#([^"]*)"', prefixed) + re.findall(r"url\(#([^)]*)\)",
                                                                                                   prefixed))
    with pytest.raises(ValueError, match="id_prefix"):
        figures.prefix_ids(drawn, "1bad prefix")
