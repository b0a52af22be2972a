"""Quick paths stay quick: bad-argument refusals, `fedrates list claims` and a reference cache hit do not import the
heavy libraries (numpy 0.1–0.2 s, sympy 0.5–1 s, pandas 0.3–1 s, scipy.stats about 1 s on a loaded machine).

Deterministic stand-ins for the latency targets (≤ 0.5 s per refusal, ≤ 1 s per cached command; measured by
``benchmarks/refusals.py`` and ``benchmarks/cli_latency.py``): each check runs in a fresh interpreter and inspects
``sys.modules``, so it fails as soon as a slow import comes back on one of these paths.
"""

from __future__ import annotations

import json
from pathlib import Path

from _cli_processes import run_commands
from _scripts import load_script

HEAVY = ("numpy", "scipy", "pandas", "sympy", "pyarrow", "numba", "matplotlib", "cvxpy")

#: refusals of the bad-input table decided from the arguments alone (the rest need a problem's parameter table, the
#: algorithm or claim registry, or sympy to parse an expression or look up a theorem)
LIGHT = [
    'run-seed-negative', 'run-seeds-negative', 'run-seeds-empty-item', 'run-seeds-repeat', 'run-seeds-huge',
    'run-seeds-text', 'run-seeds-blank', 'run-dim-nan', 'run-set-repeated', 'run-set-repeated-one-flag',
    'run-set-no-equals', 'run-set-bad-key', 'run-set-newline-key', 'run-set-too-long', 'run-hyper-repeated',
    'run-hyper-batch-1e30', 'run-rounds-zero', 'run-rounds-1e14', 'run-rounds-text', 'run-local-steps-1e14',
    'run-local-steps-zero', 'run-batch-negative', 'run-record-every-zero', 'run-participating-zero',
    'run-gradients-choice', 'run-out-parent-is-file', 'run-out-is-directory', 'run-out-unknown-suffix',
    'run-out-read-only-fs', 'run-out-newline', 'verify-jobs-huge', 'verify-jobs-zero', 'verify-jobs-text',
    'verify-seed-huge', 'verify-seed-negative', 'verify-profile-unknown', 'verify-only-empty', 'reference-tol-nan',
    'reference-tol-zero', 'reference-set-repeated', 'reference-method-choice', 'constants-set-repeated',
    'constants-batch-zero', 'constants-radius-nan', 'explore-range-zero', 'explore-range-reversed',
    'explore-range-inf', 'explore-range-negative', 'explore-range-alone', 'explore-target-alone',
    'explore-solve-no-target', 'explore-at-zero-alone', 'explore-value-negative', 'explore-index-negative',
    'explore-value-1e400', 'report-seeds-not-list', 'report-verdict-unknown', 'report-verdict-missing',
    'report-verdicts-not-json', 'report-dir-missing',
]


def _run(argvs, cwd, cache):
    return run_commands(argvs, cache, cwd=cwd, heavy=HEAVY)[0]


def _bad_input_table():
    return load_script(Path(__file__).with_name("test_bad_input.py"), "_bad_input_table")


def test_refusals_decided_from_the_arguments_import_nothing_heavy(tmp_path):
    table = _bad_input_table()
    cases = {c[0]: c[1] for c in table.CASES}
    assert set(LIGHT) <= set(cases)
    (tmp_path / "d.parquet").mkdir()
    table._report_dirs(tmp_path)
    argvs = [[a.replace("{tmp}", str(tmp_path)) for a in cases[i]] for i in LIGHT]
    results = _run(argvs, tmp_path, tmp_path / "cache")
    for case_id, (code, loaded) in zip(LIGHT, results, strict=True):
        assert code == 2, case_id
        assert loaded == [], f"{case_id} imported {loaded} before refusing"  # the first offender is named


def test_listing_claims_imports_no_scipy_pandas_or_sympy(tmp_path):
    (code, loaded), = _run([["list", "claims"]], tmp_path, tmp_path / "cache")
    assert code == 0
    assert not {"scipy", "pandas", "sympy", "pyarrow"} & set(loaded), loaded


def test_reference_cache_hit_imports_no_scipy(tmp_path):
    argv = ["reference", "lasso", "--set", "dim=12", "sparsity=4", "clients=3", "samples=20", "--json"]
    cache = tmp_path / "cache"
    (code, _), = _run([argv], tmp_path, cache)  # cold: solves (Gram matrix, scipy) and stores the entry
    assert code == 0 and list(cache.glob("*.npz"))
    (code, loaded), = _run([argv], tmp_path, cache)
    assert code == 0
    assert not {"scipy", "pandas", "sympy", "cvxpy"} & set(loaded), loaded


def test_listing_theorems_reads_its_cache_without_sympy(tmp_path):
    cache = tmp_path / "cache"
    argv = ["list", "theorems", "--json"]
    (code, loaded), = _run([argv], tmp_path, cache)  # cold: builds the sympy catalogue and caches the rows
    assert code == 0 and "sympy" in loaded
    (entry,) = (cache / "listings").glob("*.json")
    (code, loaded), = _run([argv], tmp_path, cache)
    assert code == 0 and not {"sympy", "numpy", "scipy", "pandas"} & set(loaded), loaded
    # a damaged entry is rebuilt from the catalogue (sympy again), never trusted
    entry.write_text(entry.read_text().replace('"bao.thm2.1"', '"bao.thm9.9"'))
    (code, loaded), = _run([argv], tmp_path, cache)
    assert code == 0 and "sympy" in loaded


def test_cached_theorem_rows_equal_the_catalogue(tmp_path, monkeypatch, capsys):
    from fedrates.bounds.catalog import all_theorems
    from fedrates.verify.cli import main

    monkeypatch.setenv("FEDRATES_CACHE", str(tmp_path / "cache"))
    outputs = []
    for _ in range(2):  # built, then read back
        assert main(["list", "theorems", "--paper", "bao", "--json"]) == 0
        outputs.append(json.loads(capsys.readouterr().out)["theorems"])
    assert outputs[0] == outputs[1]
    expected = [t.id for t in all_theorems("bao")]
    assert [r["id"] for r in outputs[1]] == expected
    assert [r["errata"] for r in outputs[1]] == [len(t.errata) for t in all_theorems("bao")]
