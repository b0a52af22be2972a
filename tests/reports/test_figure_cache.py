"""The figure cache's keys: a claim's figure depends on its own records and stored verdict, nothing else."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from fedrates.reports.html import figure_digest, rows_bytes, rows_bytes_by_claim, stored_form
from fedrates.reports.pdf import page_digest


def _rows() -> pd.DataFrame:
    return pd.DataFrame({"claim": ["t/a"] * 3, "seed": [0, 1, 2], "iterations": [10, 20, 40],
                         "value": [0.1, 0.05, 0.025], "diverged": [False, False, True], "params": ["{}"] * 3})


def test_rows_key_ignores_other_claims_columns_and_merge_dtypes() -> None:
    rows = _rows()
    merged = pd.concat([pd.DataFrame({"claim": ["t/b"], "delta_g": [1.0]}), rows], ignore_index=True)
    own = merged[merged["claim"] == "t/a"]  # other claim's column (all missing here), ints as floats, bools as objects
    assert own["iterations"].dtype.kind == "f" and "delta_g" in own.columns
    assert rows_bytes(own) == rows_bytes(rows)
    assert rows_bytes(rows[list(reversed(rows.columns))]) == rows_bytes(rows)


def test_rows_keys_of_all_claims_at_once_are_each_claims_own() -> None:
    rng = np.random.default_rng(7)
    n = 400
    frame = pd.DataFrame({
        "claim": rng.choice(["t/a", "t/b", "t/c"], n),  # interleaved claims
        "seed": rng.integers(0, 5, n), "value": rng.standard_normal(n),
        "diverged": rng.random(n) < 0.1,
        "params": pd.array(rng.choice(["{}", '{"K": 2}', '{"K": 4}', None], n), dtype="string"),
        "note": rng.choice(["x", "y", np.nan], n).astype(object),
    })
    frame.loc[frame["claim"] == "t/c", "value"] = np.nan  # a column one claim has no value in
    frame.loc[frame["claim"] == "t/b", "params"] = pd.NA
    frame.loc[5, "claim"] = None  # a row of no claim: in no claim's key
    batched = rows_bytes_by_claim(frame)
    assert set(batched) == {"t/a", "t/b", "t/c"}
    for claim, rows in frame.groupby("claim", sort=False):
        assert batched[claim] == rows_bytes(rows), claim
    assert rows_bytes_by_claim(frame.iloc[0:0]) == {}


def test_rows_key_changes_with_any_value_or_name() -> None:
    rows = _rows()
    base = rows_bytes(rows)
    for change in (lambda d: d.assign(value=d["value"] * (1 + 1e-12)),
                   lambda d: d.assign(diverged=[False, False, False]),
                   lambda d: d.assign(params=["{}", "{}", '{"K": 2}']),
                   lambda d: d.rename(columns={"value": "values"}),
                   lambda d: d.assign(value=[0.1, np.nan, 0.025]),
                   lambda d: d.iloc[:2]):
        assert rows_bytes(change(rows.copy())) != base


def test_verdict_key_is_the_stored_verdict() -> None:
    rows = _rows()
    judged = {"claim": "t/a", "verdict": "pass", "measured": np.float64(math.nan), "seeds": (0, 1, 2),
              "n": np.int64(3), "run_at": "2026-01-01T00:00:00+00:00"}
    read_back = stored_form(judged)[1]  # NaN as null, numpy scalars as numbers, tuples as lists
    assert read_back["measured"] is None and read_back["seeds"] == [0, 1, 2] and type(read_back["n"]) is int
    assert figure_digest(rows, judged) == figure_digest(rows, read_back)
    assert page_digest(rows, rows.iloc[0:0], judged) == page_digest(rows, rows.iloc[0:0], read_back)
    later = dict(judged, run_at="2026-02-01T00:00:00+00:00")
    assert figure_digest(rows, later) == figure_digest(rows, judged)  # the figure does not show the date
    assert page_digest(rows, rows.iloc[0:0], later) != page_digest(rows, rows.iloc[0:0], judged)  # the page does
    assert figure_digest(rows, dict(judged, verdict="fail")) != figure_digest(rows, judged)
    assert figure_digest(rows, judged, "paper") != figure_digest(rows, judged)


def _die(*args) -> None:
    import os

    os._exit(3)  # a worker that dies (as one killed for memory would)


def test_a_dead_worker_leaves_the_figures_to_the_report(tmp_path, monkeypatch) -> None:
    from fedrates.reports import drawing, html

    claims = ["t/a", "t/b", "t/c", "t/d", "t/e"]
    records = pd.concat([_rows().assign(claim=c, metric="objective_gap", point=[0, 1, 2], bound=1.0)
                         for c in claims], ignore_index=True)
    verdicts = [{"claim": c, "verdict": "pass", "x": "iterations", "metric": "objective_gap"} for c in claims]
    monkeypatch.setattr(drawing, "_draw", _die)
    assert drawing.draw_missing(records, verdicts, tmp_path, jobs=2, with_pdf=False) == 0  # no exception
    assert len(drawing.missing(records, verdicts, tmp_path, with_pdf=False)) == len(claims)
    page = html.render_html_string(records, verdicts, {}, [], cache=tmp_path)
    assert page.count("<svg") == len(claims) and "Figure unavailable" not in page


def test_page_digests_of_all_claims_are_each_claims_own() -> None:
    from fedrates.reports.pdf import claim_inputs, page_digests

    rng = np.random.default_rng(3)
    ids = ["das.fig1/reproduction", "das.other/claim", "bao.some/claim"]  # the first has a paper figure
    frame = pd.DataFrame({"claim": rng.choice(ids, 300), "seed": rng.integers(0, 4, 300),
                          "value": rng.standard_normal(300), "params": rng.choice(["{}", '{"K": 2}'], 300)})
    verdicts = [{"claim": c, "verdict": "pass", "title": c} for c in ids]
    verdicts.append({"claim": "no/records", "verdict": "error"})
    batched = page_digests(frame, verdicts)
    single = {str(v["claim"]): page_digest(rows, paper, v) for rows, paper, v in claim_inputs(frame, verdicts)}
    assert batched == single and len(set(batched.values())) == 4
    assert not claim_inputs(frame, verdicts)[0][1].empty  # the paper figure's rows were part of the digest


def test_kept_claims_reuse_their_stored_page_digest_only_when_drawn_from_the_same_inputs(tmp_path: Path,
                                                                                         monkeypatch) -> None:
    from fedrates.reports import pdf
    from fedrates.reports.pdf import kept_page_digests, page_digests, store_page_digests

    rng = np.random.default_rng(4)
    ids = ["das.fig1/reproduction", "das.other/claim", "bao.some/claim"]  # the first has a paper figure
    frame = pd.DataFrame({"claim": rng.choice(ids, 300), "seed": rng.integers(0, 4, 300),
                          "value": rng.standard_normal(300)})
    verdicts = [{"claim": c, "verdict": "pass", "title": c} for c in ids]
    digests = page_digests(frame, verdicts)
    store_page_digests(tmp_path, digests, verdicts)
    # nothing of their paper rerun: every kept claim's digest as stored, equal to one computed again
    assert kept_page_digests(tmp_path, verdicts, ids, ["bao.new/claim"]) == digests
    # a claim of das rerun: the paper figure of das.fig1/reproduction draws from its rows, so it is digested again;
    # das.other/claim has no paper figure and keeps its digest
    assert kept_page_digests(tmp_path, verdicts, ids, ["das.step23/corrected"]) == \
        {c: digests[c] for c in ("das.other/claim", "bao.some/claim")}
    # only the kept claims; a verdict that is not the stored one is digested again
    changed = [dict(verdicts[0]), dict(verdicts[1], verdict="fail"), dict(verdicts[2])]
    assert kept_page_digests(tmp_path, changed, ids[:2], []) == {"das.fig1/reproduction": digests[ids[0]]}
    # other drawing code: nothing reused; no stored digests: nothing either
    monkeypatch.setattr(pdf, "_code_digest", lambda: b"other code")
    assert kept_page_digests(tmp_path, verdicts, ids, []) == {}
    assert kept_page_digests(tmp_path / "none", verdicts, ids, []) == {}


def test_cache_files_are_written_whole_or_not_at_all(tmp_path: Path) -> None:
    from fedrates.reports.cache_files import store

    store(tmp_path / "a" / "x.page.json", "ℓ text")
    store(tmp_path / "a" / "y.bin", b"\x00\x01")
    assert (tmp_path / "a" / "x.page.json").read_text(encoding="utf-8") == "ℓ text"
    assert (tmp_path / "a" / "y.bin").read_bytes() == b"\x00\x01"
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == ["x.page.json", "y.bin"]  # no temporary left
    (tmp_path / "file").write_text("")
    store(tmp_path / "file" / "z.json", "lost")  # a folder that cannot exist: the reuse is lost, nothing raised
    assert not (tmp_path / "file" / "z.json").exists()
