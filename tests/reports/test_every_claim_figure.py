"""Every claim of every paper gets a figure, whatever shape its records take.

Running every claim's quick sweep takes minutes on a loaded machine, so the records are synthesised: for each
registered claim, one row per seed × sweep point carrying the claim's declared metric, with the declared x variable
where the records keep it (a column when it is one of the records' columns, else inside the ``params`` JSON, a
ratio ``a/b`` as its two parameters). The shapes the claims actually write besides that — quantities recorded as
``<metric>_<index>`` families, categories recorded as metric names, a declared variable recorded nowhere, metrics
named differently from the declared one — are covered one by one below on hand-built frames copied from stored runs.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from fedrates.reports import figures
from fedrates.verify import claims
from fedrates.verify.plotdata import plot_spec, resolve
from fedrates.verify.records import COLUMNS

SEEDS = range(3)


def _synthetic(claim) -> pd.DataFrame:
    rng = np.random.default_rng(abs(hash(claim.id)) % 2**32)
    rows = []
    for point, xv in enumerate((1.0, 2.0, 4.0)):
        params: dict = {"problem": claim.problem}
        if "/" in claim.x:
            a, b = claim.x.split("/", 1)
            params |= {a: xv, b: 1.0}
        elif claim.x not in COLUMNS:
            params[claim.x] = xv
        for seed in SEEDS:
            row = {"claim": claim.id, "point": point, "seed": seed, "round": 5, "metric": claim.metric,
                   "value": float(rng.uniform(0.5, 2.0) / xv), "bound": 3.0 / xv, "params": json.dumps(params)}
            if claim.x in COLUMNS:
                row[claim.x] = xv if claim.x != "algorithm" else f"alg{point}"
            rows.append(row)
    return pd.DataFrame(rows)


ALL = claims.all_claims()


def test_there_are_claims_of_every_paper() -> None:
    papers = {c.id.split(".", 1)[0] for c in ALL}
    assert {"bao", "bylinkin", "dinh", "das", "buttaci"} <= papers


@pytest.mark.slow  # every claim's figure drawn (several seconds of CPU): the long step
def test_every_claim_has_a_figure_from_records_shaped_by_its_declaration() -> None:
    unavailable = []
    fig = Figure()
    for claim in ALL:
        records = _synthetic(claim)
        verdict = {"claim": claim.id, "verdict": "pass", "metric": claim.metric, "x": claim.x, "predicted": "",
                   "theorem": claim.theorem}
        try:
            spec = plot_spec(records, verdict)
            ax = fig.add_subplot()
            figures.draw_claim(ax, records, verdict, spec)
        except (ValueError, KeyError, TypeError) as exc:
            unavailable.append(f"{claim.id}: Figure unavailable: {exc}")
        else:
            # three sweep points must stay three points (a variable lost would pool them into one)
            assert len(spec["points"]["x"]) == 3, (claim.id, spec["points"]["x"])
            assert not spec["note"], (claim.id, spec["note"])
        fig.clear()
    assert not unavailable, "\n".join(unavailable)


def _frame(metrics: dict[str, list[float]], params: dict, **cols) -> pd.DataFrame:
    rows = []
    for name, values in metrics.items():
        for seed, v in enumerate(values):
            rows.append({"claim": "c", "point": 0, "seed": seed, "round": 3, "metric": name, "value": v,
                         "params": json.dumps(params)} | cols)
    return pd.DataFrame(rows)


def test_metric_family_gives_x_from_the_suffix() -> None:
    df = _frame({"gap_0": [4.0, 4.2], "gap_1": [2.0, 2.1], "gap_2": [1.0, 1.1], "grad_sq_0": [9.0, 9.0]}, {})
    rows, x, metric, note = resolve(df, "round", "gap")
    assert (x, metric, note) == ("round", "gap", "")
    assert sorted(rows["round"].unique()) == [0, 1, 2]
    assert set(rows["metric"]) == {"gap_0", "gap_1", "gap_2"}


def test_metric_family_index_maps_to_the_listed_parameter() -> None:
    df = _frame({"ratio_0": [1.0], "ratio_1": [2.0]}, {"taus": [14, 28]})
    rows, x, _, _ = resolve(df, "tau", "ratio")
    assert sorted(rows[x].unique()) == [14, 28]


def test_categories_recorded_as_metric_names() -> None:
    df = _frame({"fedprox_sgd": [1.0, 1.2], "fedproxvr_sarah": [0.5, 0.6]}, {}, algorithm="x")
    spec = plot_spec(df, {"claim": "c", "x": "algorithm", "metric": "objective_gap", "predicted": "a < b"})
    assert spec["points"]["x"] == ["fedprox_sgd", "fedproxvr_sarah"]


def test_x_from_params_and_ratio_of_params() -> None:
    rows = []
    for point, (df_, mu) in enumerate(((0.1, 0.01), (0.2, 0.01), (0.4, 0.01))):
        for seed in range(2):
            rows.append({"claim": "c", "point": point, "seed": seed, "round": 0, "metric": "rounds_f",
                         "value": 10.0 * (point + 1), "params": json.dumps({"delta_f": df_, "mu": mu})})
    df = pd.DataFrame(rows)
    spec = plot_spec(df, {"claim": "c", "x": "delta_f/mu", "metric": "rounds_f"})
    assert spec["points"]["x"] == pytest.approx([10.0, 20.0, 40.0])
    spec = plot_spec(df, {"claim": "c", "x": "delta_f", "metric": "rounds_f"})
    assert spec["points"]["x"] == pytest.approx([0.1, 0.2, 0.4])
    assert spec["label"] == "similarity δ_f"


def test_variable_recorded_nowhere_is_pooled_and_said() -> None:
    df = _frame({"lyapunov": [1.0, 1.1, 0.9]}, {"mu": 0.1})
    spec = plot_spec(df, {"claim": "c", "x": "iteration", "metric": "lyapunov"})
    assert spec["points"]["x"] == ["all runs"] and "not recorded" in spec["note"]


def test_metric_recorded_under_other_names_shows_every_quantity() -> None:
    df = _frame({"mode1": [1.0, 1.1], "mode2": [2.0, 2.1], "mode3": [3.0, 3.2]}, {})
    spec = plot_spec(df, {"claim": "c", "x": "round", "metric": "mode0"})
    assert spec["points"]["x"] == ["mode1", "mode2", "mode3"]
    assert "no 'mode0'" in spec["note"]
    ax = figures.claim_figure(df, {"claim": "c", "x": "round", "metric": "mode0", "verdict": "pass"}, spec).axes[0]
    assert ax.get_legend() is not None


def test_no_finite_value_is_refused() -> None:
    df = _frame({"gap": [float("nan")]}, {})
    with pytest.raises(ValueError, match="no finite values"):
        resolve(df, "round", "gap")
