"""The bad-input table: every command refuses bad arguments up front, in one line, with exit status 2.

Each case runs ``fedrates.verify.cli.main`` in-process (the same code path as the entry point after the imports) in an
empty working directory and asserts: exit status 2, nothing on stdout, exactly one line on stderr starting with
``fedrates: error:`` and containing the expected words, no traceback, no raw control characters echoed, and no file
written anywhere under the working directory.  A few cases run the real entry point in a subprocess.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from fedrates.verify.cli import main
from fedrates.verify.records import empty_records, provenance, write_json_atomic, write_records

Q = ["run", "fedavg", "--problem", "quadratic", "--set", "dim=4", "clients=4", "sigma=0.5", "--rounds", "3"]
QQ = ["run", "fedavg", "--problem", "quadratic", "--rounds", "3"]  # no --set: cases add their own
T21 = ["mu=0.5", "L=1", "a=8", "K=4", "E=2", "Lam=1", "H=1", "rho=1", "sigma=1", "B=1"]
EX = ["explore", "bao.thm2.1", "--set", *T21]

FALSIFY_POINT = {"mu": 0.5, "spread": 1.0, "sigma": 1.0, "radius": 2.0, "lam": 0.01, "dim": 4, "clients": 4, "E": 2,
                 "a_factor": 1.0, "t_factor": 2.0}  # inside the search box of bao.thm2.1.explicit's target


def _point(**changes) -> str:
    return json.dumps({**FALSIFY_POINT, **changes})


FP = ["falsify", "bao.thm2.1.explicit", "--point"]

#: (id, argv, words expected in the one-line message); "{tmp}" is the test's working directory
CASES: list[tuple[str, list[str], str]] = [
    # ---- run: seeds
    ("run-seed-negative", [*Q, "--seed", "-1"], "--seed -1 is out of range"),
    ("run-seeds-negative", [*Q, "--seeds=-1,-2"], "--seeds item -1 is out of range"),
    ("run-seeds-empty-item", [*Q, "--seeds", "1,,2"], "empty item"),
    ("run-seeds-repeat", [*Q, "--seeds", "1,1"], "repeats a seed"),
    ("run-seeds-huge", [*Q, "--seeds", "99999999999999999999999"], "out of range"),
    ("run-seeds-text", [*Q, "--seeds", "1,a"], "is not an integer"),
    ("run-seeds-blank", [*Q, "--seeds", ","], "--seeds"),
    # ---- run: problem parameters
    ("run-clients-inf", [*QQ, "--set", "clients=inf"], "--set clients 'inf' is not a finite number"),
    ("run-dim-1e308", [*QQ, "--set", "dim=1e308"], "dim=1e+308 is too large"),
    ("run-dim-memory", [*QQ, "--set", "dim=1000000000"], "of memory"),
    ("run-clients-memory", [*QQ, "--set", "clients=1000000000"], "of memory"),
    ("run-dim-fraction", [*QQ, "--set", "dim=2.5"], "must be an integer"),
    ("run-dim-nan", [*QQ, "--set", "dim=nan"], "is not a number"),
    ("run-mu-negative", [*QQ, "--set", "mu=-1"], "mu"),
    ("run-data-seed-negative", [*QQ, "--set", "seed=-1"], "seed"),
    ("run-sampling-choice", ["run", "fedda", "--problem", "lasso", "--set", "sampling=weird"], "expected one of"),
    ("run-set-repeated", [*QQ, "--set", "dim=2", "--set", "dim=3"], "gives 'dim' twice"),
    ("run-set-repeated-one-flag", [*QQ, "--set", "dim=2", "dim=3"], "gives 'dim' twice"),
    ("run-set-no-equals", [*QQ, "--set", "dim"], "expects key=value"),
    ("run-set-bad-key", [*QQ, "--set", "bad key=1"], "not a valid parameter name"),
    ("run-set-newline-key", [*QQ, "--set", "dim\n\x1b[31m=1"], "not a valid parameter name"),
    ("run-set-unknown", [*QQ, "--set", "dimm=4"], "did you mean 'dim'"),
    ("run-set-too-long", [*QQ, "--set", "dim=" + "1" * 300], "too long"),
    ("run-preset-unknown", ["run", "fedavg", "--preset", "no-such-preset"], "preset"),
    ("run-no-problem", ["run", "fedavg"], "no problem given"),
    # ---- run: hyperparameters and counts
    ("run-hyper-repeated", [*Q, "--hyper", "step=0.1", "step=0.2"], "gives 'step' twice"),
    ("run-hyper-inf", [*Q, "--hyper", "step=inf"], "step"),
    ("run-hyper-unknown", [*Q, "--hyper", "stepp=0.1"], "did you mean 'step'"),
    ("run-hyper-local-steps-text", [*Q, "--hyper", "local_steps=abc"], "not a number"),
    ("run-hyper-batch-1e30", [*Q, "--hyper", "batch=1e30"], "--hyper batch"),
    ("run-local-steps-twice", [*Q, "--local-steps", "2", "--hyper", "local_steps=3"], "given twice"),
    ("run-rounds-zero", [*Q, "--rounds", "0"], "--rounds 0 is out of range"),
    ("run-rounds-1e14", [*Q, "--rounds", "100000000000000"], "--rounds 100000000000000 is out of range"),
    ("run-rounds-text", [*Q, "--rounds", "1e14"], "invalid int value"),
    ("run-local-steps-1e14", [*Q, "--local-steps", "100000000000000"], "out of range"),
    ("run-local-steps-zero", [*Q, "--local-steps", "0"], "local_steps"),
    ("run-batch-negative", [*Q, "--batch", "-2"], "batch"),
    ("run-record-every-zero", [*Q, "--record-every", "0"], "--record-every 0 is out of range"),
    ("run-participating-zero", [*Q, "--participating", "0"], "participating"),
    ("run-participating-too-many", [*Q, "--participating", "9"], "the problem's clients"),
    ("run-gradients-choice", [*Q, "--gradients", "fuzzy"], "invalid choice"),
    ("run-algorithm-ansi", ["run", "fedavg\x1b[31m", "--problem", "quadratic"], "unknown algorithm"),
    # ---- run: output destination, checked before simulating
    ("run-out-parent-is-file", [*Q, "--out", "{tmp}/file/x.parquet"], "is not a directory"),
    ("run-out-name-too-long", [*Q, "--out", "{tmp}/" + "a" * 300 + ".parquet"], "File name too long"),
    ("run-out-is-directory", [*Q, "--out", "{tmp}/d.parquet"], "is a directory"),
    ("run-out-unknown-suffix", [*Q, "--out", "{tmp}/x.txt"], ".parquet or .csv"),
    ("run-out-read-only-fs", [*Q, "--out", "/proc/x.parquet"], "not writable"),
    ("run-out-newline", [*Q, "--out", "{tmp}/x\n.txt"], "unknown format"),
    # ---- verify
    ("verify-jobs-huge", ["verify", "--jobs", "99999999999999999999", "--out", "{tmp}/v"], "--jobs"),
    ("verify-jobs-zero", ["verify", "--jobs", "0", "--out", "{tmp}/v"], "--jobs 0 is out of range"),
    ("verify-jobs-text", ["verify", "--jobs", "many", "--out", "{tmp}/v"], "is not an integer"),
    ("verify-seed-huge", ["verify", "--seed", "100000000000000000000", "--out", "{tmp}/v"], "--seed"),
    ("verify-seed-negative", ["verify", "--seed", "-1", "--out", "{tmp}/v"], "--seed -1 is out of range"),
    ("verify-profile-unknown", ["verify", "--profile", "turbo", "--out", "{tmp}/v"], "unknown profile"),
    ("verify-executor", ["verify", "--executor", "slurm", "--out", "{tmp}/v"], "executor"),
    ("verify-only-empty", ["verify", "--only", " ", "--out", "{tmp}/v"], "--only"),
    ("verify-only-nomatch", ["verify", "--only", "zz-no-such-claim", "--out", "{tmp}/v"], "matches no claim"),
    # ---- reference
    ("reference-dim-1e308", ["reference", "quadratic", "--set", "dim=1e308"], "too large"),
    ("reference-dim-memory", ["reference", "quadratic", "--set", "dim=1000000000"], "of memory"),
    ("reference-tol-nan", ["reference", "quadratic", "--tol", "nan"], "--tol"),
    ("reference-tol-zero", ["reference", "quadratic", "--tol", "0"], "--tol"),
    ("reference-set-repeated", ["reference", "quadratic", "--set", "dim=2", "dim=3"], "twice"),
    ("reference-unknown-problem", ["reference", "quadratik"], "did you mean 'quadratic'"),
    ("reference-method-choice", ["reference", "quadratic", "--method", "magic"], "invalid choice"),
    # ---- constants
    ("constants-dim-memory", ["constants", "quadratic", "--set", "dim=1000000000"], "of memory"),
    ("constants-set-repeated", ["constants", "quadratic", "--set", "dim=2", "dim=3"], "twice"),
    ("constants-batch-zero", ["constants", "quadratic", "--batch", "0"], "--batch 0 is out of range"),
    ("constants-radius-nan", ["constants", "quadratic", "--radius", "nan"], "--radius 'nan' is not a number"),
    # ---- explore: ranges and targets
    ("explore-range-zero", [*EX, "--solve", "T", "--target", "1e-3", "--range", "0", "10"], "0 < LO < HI"),
    ("explore-range-reversed", [*EX, "--solve", "T", "--target", "1e-3", "--range", "10", "1"], "0 < LO < HI"),
    ("explore-range-inf", [*EX, "--solve", "T", "--target", "1e-3", "--range", "1e-3", "inf"], "0 < LO < HI"),
    ("explore-range-negative", [*EX, "--dominant", "T", "--range", "-1", "10"], "0 < LO < HI"),
    ("explore-range-expression", [*EX, "--dominant", "T", "--range", "2*0", "10"], "0 < LO < HI"),
    ("explore-range-alone", [*EX, "--range", "1", "10"], "--range is only used"),
    ("explore-target-exp-tower", [*EX, "--solve", "T", "--target", "exp(exp(exp(1000)))"], "exp argument"),
    ("explore-target-overflow", [*EX, "--solve", "T", "--target", "1e308*10"], "not a finite real number"),
    ("explore-target-code", [*EX, "--solve", "T", "--target", "__import__('os')"], "not allowed"),
    ("explore-target-alone", [*EX, "--target", "1"], "--target is only used"),
    ("explore-solve-no-target", [*EX, "--solve", "T"], "--solve needs --target"),
    ("explore-no-root-in-range", [*EX, "--solve", "T", "--target", "1", "--range", "100", "1000"],
     "no positive root of bao.thm2.1 rhs = 1 found for T in [100, 1000]"),
    ("explore-at-zero-alone", [*EX, "--at-zero"], "--at-zero is only used"),
    ("explore-solve-inconclusive", ["explore", "bao.corB.1", "--set", "K=4", "Tm=100", "eps_m=0.5", "nu=0.01",
                                    "sigma=1", "tau=0.01", "--solve", "delta", "--target", "1e6"],
     "inconclusive: no positive root of bao.corB.1 rhs = 1e+06 found for delta in [1e-12, 1e+18], and the rhs "
     "is undefined on 60% of that range"),
    # ---- explore: values and symbols
    ("explore-value-negative", ["explore", "bao.thm2.1", "--set", "mu=-1"], "must be a finite positive number"),
    ("explore-value-zero-not-allowed", ["explore", "bao.thm2.1", "--set", "mu=0"], "must be positive"),
    ("explore-index-negative", ["explore", "buttaci.thm1", "--set", "t=-1"], ">= 0 for indicators"),
    ("explore-index-negative-expression", ["explore", "buttaci.thm1", "--set", "t=0-1"], "'t' must be >= 0"),
    ("explore-indicator-negative", ["explore", "buttaci.lemB1", "--set", "ind=1-2"], "'ind' must be >= 0"),
    ("explore-value-repeated", ["explore", "bao.thm2.1", "--set", "mu=1", "mu=2"], "gives 'mu' twice"),
    ("explore-value-div-zero", ["explore", "bao.thm2.1", "--set", "mu=1/0"], "division by zero"),
    ("explore-value-1e400", ["explore", "bao.thm2.1", "--set", "mu=1e400"], "finite"),
    ("explore-unknown-symbol", ["explore", "bao.thm2.1", "--set", "zeta=1"], "unknown symbol 'zeta'"),
    ("explore-solve-unknown", [*EX, "--solve", "Z", "--target", "1"], "unknown symbol"),
    ("explore-solve-condition-only", ["explore", "bao.thm3.2", "--solve", "Psi", "--target", "1"],
     "appears only in the conditions"),
    ("explore-solve-missing-values", ["explore", "bao.thm2.1", "--solve", "T", "--target", "1e-3"],
     "needs values for"),
    ("explore-dominant-missing-values", ["explore", "bao.thm2.1", "--dominant", "T"], "needs values for"),
    ("explore-theorem-control-chars", ["explore", "bao.thm2.1\n\x1b[31mred"], "unknown theorem"),
    # ---- one number parser for every command: ASCII digits only, finite, normal doubles, ranges
    ("run-set-devanagari", [*QQ, "--set", "dim=\u0967\u0966"], "is not written with ASCII digits"),
    ("run-set-fullwidth", [*QQ, "--set", "dim=\uff11\uff10"], "is not written with ASCII digits"),
    ("run-set-underscore", [*QQ, "--set", "dim=1_000"], "has '_' in it"),
    ("run-set-1e400", [*QQ, "--set", "sigma=1e400"], "--set sigma '1e400' is too large"),
    ("run-hyper-subnormal", ["run", "fast_fedda", "--problem", "quadratic", "--hyper", "a=1e-320"],
     "--hyper a '1e-320' is too small"),
    ("run-hyper-tiny", ["run", "fast_fedda", "--problem", "quadratic", "--hyper", "a=1e-300"],
     "--hyper a=1e-300 is out of range"),
    ("run-hyper-huge", [*Q, "--hyper", "step=1e200"], "--hyper step=1e+200 is out of range"),
    ("run-rounds-underscore", [*Q, "--rounds", "1_000"], "invalid int value: '1_000'"),
    ("run-seed-devanagari", [*Q, "--seed", "\u0967"], "invalid int value"),
    ("verify-jobs-fullwidth", ["verify", "--jobs", "\uff12", "--out", "{tmp}/v"], "is not written with ASCII"),
    ("falsify-seed-negative", ["falsify", "bao.thm2.1.explicit", "--seed", "-1", "--out", "{tmp}/f"],
     "--seed -1 is out of range"),
    ("falsify-seed-huge", ["falsify", "bao.thm2.1.explicit", "--seed", "100000000000000000000", "--out", "{tmp}/f"],
     "--seed 100000000000000000000 is out of range"),
    ("falsify-budget-huge", ["falsify", "bao.thm2.1.explicit", "--budget", "99999999999999999999", "--out",
                             "{tmp}/f"], "--budget 99999999999999999999 is out of range"),
    ("falsify-budget-zero", ["falsify", "bao.thm2.1.explicit", "--budget", "0"], "--budget 0 is out of range"),
    ("falsify-budget-underscore", ["falsify", "bao.thm2.1.explicit", "--budget", "1_000"], "has '_' in it"),
    ("falsify-point-nan", [*FP, _point(mu=math.nan)], "--point mu 'nan' is not a number"),
    ("falsify-point-infinity", [*FP, _point(sigma=math.inf)], "--point sigma 'inf' is not a finite number"),
    ("falsify-point-1e400", [*FP, _point().replace('"sigma": 1.0', '"sigma": 1e400')], "--point sigma 'inf'"),
    ("falsify-point-negative", [*FP, _point(mu=-0.5)], "--point mu=-0.5 is outside the search box"),
    ("falsify-point-bool", [*FP, _point(dim=True)], "--point dim is true; expected a number"),
    ("falsify-point-string", [*FP, _point(dim="4")], "--point dim is \"4\"; expected a number"),
    ("falsify-point-clients-1e30", [*FP, _point(clients=1e30)], "--point clients=1e+30 is outside the search box"),
    ("falsify-point-E-fraction", [*FP, _point(E=0.3)], "--point E=0.3 is outside the search box"),
    ("falsify-point-E-not-integer", [*FP, _point(E=2.5)], "--point E=2.5 is not an integer"),
    ("falsify-point-dim-1e9", [*FP, _point(dim=1e9)], "--point dim=1e+09 is outside the search box"),
    ("falsify-point-t-factor-1e9", [*FP, _point(t_factor=1e9)], "--point t_factor=1e+09 is outside the search box"),
    ("falsify-point-nested", [*FP, "[" * 100_000], "--point is too long"),
    ("falsify-point-nested-short", [*FP, "[" * 3_000 + "]" * 3_000], "--point is nested too deeply"),
    ("falsify-point-missing", [*FP, '{"mu": 0.5}'], "--point must give exactly the parameters"),
    ("falsify-point-seeds-negative", [*FP, _point(), "--seeds", "-1"], "--seeds item -1 is out of range"),
    ("selfcheck-seed-huge", ["selfcheck", "--seed", "100000000000000000000"],
     "--seed 100000000000000000000 is out of range"),
    ("selfcheck-seed-negative", ["selfcheck", "--seed", "-1"], "--seed -1 is out of range"),
    ("selfcheck-profile-full", ["selfcheck", "--profile", "full"], "unknown profile 'full'; expected one of: quick, "
                                                                      "standard"),
    ("selfcheck-only-empty", ["selfcheck", "--only", ""], "--only '' is not a variant pattern"),
    ("selfcheck-jobs-text-names-jobs-only", ["selfcheck", "--jobs", "x"], "error: --jobs 'x' is not an integer"),
    ("selfcheck-seed-text-names-seed-only", ["selfcheck", "--seed", "x"], "error: --seed 'x' is not an integer"),
    ("constants-radius-1e308", ["constants", "quadratic", "--radius", "1e308"], "--radius '1e308' is out of range"),
    ("constants-radius-subnormal", ["constants", "quadratic", "--radius", "1e-320"], "--radius '1e-320' is too small"),
    ("constants-set-radius-1e308", ["constants", "quadratic", "--set", "radius=1e308"], "the computation failed"),
    ("constants-batch-fullwidth", ["constants", "quadratic", "--batch", "\uff12"], "is not written with ASCII"),
    # ---- report
    ("report-seeds-not-list", ["report", "{tmp}/run-seeds"], "field 'seeds' is 5; expected a list"),
    ("report-verdict-unknown", ["report", "{tmp}/run-verdict"], "verdict 'maybe' is not one of"),
    ("report-verdict-missing", ["report", "{tmp}/run-noverdict"], "has no 'verdict' field"),
    ("report-verdicts-not-json", ["report", "{tmp}/run-json"], "cannot read verdicts"),
    ("report-dir-missing", ["report", "{tmp}/nowhere"], "does not exist"),
    ("report-verdicts-nested", ["report", "{tmp}/run-nested"], "nested too deeply"),
    ("report-verdicts-not-utf8", ["report", "{tmp}/run-latin1"], "cannot read verdicts"),
    ("report-name-too-long", ["report", "{tmp}/" + "a" * 300], "File name too long"),
    ("report-out-name-too-long", ["report", "{tmp}/run-json", "--out", "{tmp}/" + "a" * 300 + ".html"],
     "File name too long"),
    ("plot-verdicts-nested", ["plot", "{tmp}/run-nested", "--claim", "c/1", "--out", "{tmp}/c.svg"],
     "nested too deeply"),
    ("plot-verdicts-not-utf8", ["plot", "{tmp}/run-latin1", "--claim", "c/1", "--out", "{tmp}/c.svg"],
     "cannot read"),
    ("plot-name-too-long", ["plot", "{tmp}/" + "a" * 300, "--claim", "c/1"], "File name too long"),
    ("verify-out-name-too-long", ["verify", "--only", "bao.thm2.1/rate-T", "--out", "{tmp}/" + "a" * 300],
     "File name too long"),
    # ---- Dask: refused before anything is written (no output directory)
    ("verify-scheduler-empty", ["verify", "--executor", "dask", "--scheduler", "", "--out", "{tmp}/v"], "is empty"),
    ("verify-scheduler-text", ["verify", "--executor", "dask", "--scheduler", "not an address", "--out", "{tmp}/v"],
     "is not a Dask address"),
    ("verify-scheduler-http", ["verify", "--executor", "dask", "--scheduler", "http://127.0.0.1:8786", "--out",
                               "{tmp}/v"], "is not a Dask address (scheme 'http')"),
]


def _report_dirs(root: Path) -> None:
    """Run directories with valid records and a broken verdicts.json each (and a file where a directory is
    expected)."""
    (root / "file").write_text("a file where a directory is expected")
    bad = {
        "run-seeds": [{"claim": "c/1", "verdict": "pass", "seeds": 5}],
        "run-verdict": [{"claim": "c/1", "verdict": "maybe"}],
        "run-noverdict": [{"claim": "c/1"}],
    }
    raw = {"run-json": b"{not json", "run-nested": b"[" * 100_000, "run-latin1": '[{"claim": "c/1", "verdict": '
           '"pass", "title": "caf\u00e9"}]'.encode("latin-1")}
    for name in (*bad, *raw):
        directory = root / name
        write_records(empty_records(), directory / "records.parquet", provenance(seeds=[0]))
        if name in bad:
            write_json_atomic(bad[name], directory / "verdicts.json")
        else:
            (directory / "verdicts.json").write_bytes(raw[name])


def _tree(root: Path) -> dict[str, int]:
    return {str(p.relative_to(root)): p.stat().st_size for p in root.rglob("*")}


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FEDRATES_CACHE", str(tmp_path / "ref-cache"))
    (tmp_path / "d.parquet").mkdir()
    _report_dirs(tmp_path)
    return tmp_path


@pytest.mark.parametrize("argv,needle", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_one_line_exit_2_nothing_written(workdir, capsys, argv, needle):
    argv = [a.replace("{tmp}", str(workdir)) for a in argv]
    before = _tree(workdir)
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's own errors
        code = exc.code
    out, err = capsys.readouterr()
    assert code == 2, err
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1 and err.endswith("\n"), err
    assert lines[0].startswith("fedrates: error: ") or lines[0].startswith("usage:") is False
    assert "Traceback" not in err and "\x1b" not in err
    assert needle in lines[0]
    assert _tree(workdir) == before  # nothing written, nothing removed


def test_table_is_large_and_ids_unique():
    assert len(CASES) >= 60
    assert len({c[0] for c in CASES}) == len(CASES)


@pytest.mark.parametrize("argv,needle", [
    (["run", "fedavg", "--problem", "quadratic", "--seed", "-1"], "--seed -1 is out of range"),
    (["explore", "bao.thm2.1", "--solve", "T", "--target", "1", "--range", "0", "10"], "0 < LO < HI"),
    (["verify", "--jobs", "99999999999999999999", "--out", "v"], "--jobs"),
])
def test_real_entry_point(tmp_path, argv, needle):
    env = {**os.environ, "FEDRATES_CACHE": str(tmp_path / "cache")}
    script = Path(sys.executable).with_name("fedrates")  # the installed console script
    command = [str(script)] if script.is_file() else [sys.executable, "-m", "fedrates.verify"]
    proc = subprocess.run([*command, *argv], capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env)
    assert proc.returncode == 2
    assert proc.stdout == "" and len(proc.stderr.splitlines()) == 1 and needle in proc.stderr
    assert "Traceback" not in proc.stderr and "Warning" not in proc.stderr
    assert not (tmp_path / "v").exists()


# ---- results are never lost --------------------------------------------------------------------------------------

def test_run_keeps_results_when_writing_fails_after_the_run(workdir, capsys, monkeypatch):
    from fedrates.solvers import _cache
    from fedrates.verify.commands import run as run_command

    monkeypatch.setattr(_cache, "user_cache_root", lambda: workdir / "user-cache")
    real_write = run_command._write
    target = workdir / "out.parquet"

    def failing(trace, problem, out):
        if Path(out) == target:
            raise PermissionError(13, "Permission denied")
        real_write(trace, problem, out)

    monkeypatch.setattr(run_command, "_write", failing)
    code = main([*Q, "--out", str(target)])
    out, err = capsys.readouterr()
    assert code == 2 and len(err.splitlines()) == 1 and "results were kept in" in err
    kept = Path(err.split("kept in '")[1].split("'")[0])
    assert kept.is_file() and kept.parent == workdir / "user-cache" / "fedrates" / "unsaved"
    records = pd.read_parquet(kept)  # the long record format: one row per round and metric
    assert sorted(set(records["round"].tolist())) == [0, 1, 2, 3]
    assert "objective_gap" in set(records["metric"])
    assert "objective_gap" in out  # the table was still printed


def test_run_shows_the_reference_cache_warning(workdir, capsys, monkeypatch):
    ro = workdir / "ro-cache"
    ro.write_text("a file where the cache directory should be")
    monkeypatch.setenv("FEDRATES_CACHE", str(ro))
    code = main([*Q])
    _, err = capsys.readouterr()
    assert code == 0
    assert "reference cache not written" in err


def test_no_runtime_warning_reaches_stderr(capsys):
    # a huge T makes lambdified terms overflow inside numpy; the answer must come without a warning line
    code = main(["explore", "bao.thm2.1", "--set", *T21, "--dominant", "T", "--range", "1e-300", "1e300"])
    _, err = capsys.readouterr()
    assert code == 0 and "Warning" not in err and "overflow" not in err


def test_messages_escape_control_characters(capsys):
    code = main(["explore", "bao.thm2.1", "--set", "mu=1\n2"])
    _, err = capsys.readouterr()
    assert code == 2 and len(err.splitlines()) == 1 and "\\n" in err


def test_verdicts_with_infinite_measured_value_are_accepted(tmp_path, capsys):
    directory = tmp_path / "run"
    write_records(empty_records(), directory / "records.parquet", provenance(seeds=[0]))
    write_json_atomic([{"claim": "c/1", "verdict": "pass", "measured": math.inf, "seeds": [0, 1]}],
                      directory / "verdicts.json")
    assert main(["report", str(directory)]) == 0
    assert (directory / "report.html").is_file()
    assert json.loads((directory / "verdicts.json").read_text())[0]["claim"] == "c/1"


# ---- the campaign's commands that must now give the correct result ----------------------------------------------

def test_explore_evaluates_at_round_zero_and_reports_conditions(capsys):
    # t = 0 is the first round: the contraction factor is 1, value hand computed in test_analysis_bounded
    code = main(["explore", "buttaci.thm1", "--set", "t=0", "Delta=1", "E=2", "G=1", "Gamma=1", "L=1", "S=0.5",
                 "alpha=1", "mu=0.5", "sigma=1", "--json"])
    out, err = capsys.readouterr()
    assert code == 0 and err == ""
    assert json.loads(out)["value"] == pytest.approx(11.625, rel=1e-15)


def test_explore_dominant_at_equal_lambdas_exit_0(capsys):
    code = main(["explore", "bao.thm3.2", "--set", "delta=0.05", "lam0=1", "lam_opt=1", "sigma=1", "--dominant",
                 "K", "--json"])
    out, err = capsys.readouterr()
    assert code == 0 and "Traceback" not in err
    assert len(json.loads(out)["dominant"]) == 1


def test_explore_dominant_text_names_failing_conditions(capsys):
    code = main([*EX, "--dominant", "T", "--range", "1e-300", "1e300"])
    out, _ = capsys.readouterr()
    assert code == 0
    # hand computed: 256/T^3 = 64/T^2 at T = 4; T >= a = 8 fails below 8; E <= T (E = 2) fails below 2
    assert "[1e-300, 4]  B*a**3*mu/T**3\n      condition T >= a FAILS on [1e-300, 4]\n" \
           "      condition E <= T FAILS on [1e-300, 2]\n" in out
    assert "[4, 128]  E**2*L*(H + Lam*rho)**2/(T**2*mu**2)\n      condition T >= a FAILS on [4, 8]\n" \
           "    [128, 1e+300]  sigma**2/(K*T*mu)\n" in out


def test_a_run_long_because_of_its_client_streams_is_announced_once_its_problem_is_built(capsys, monkeypatch):
    """4 seeds x 10⁶ noisy clients, 2 rounds: 8·10⁶ client steps (2.7 s at the engine's rate, not announced before
    the build) and 4·10⁶ generators (24 s) with 8·10⁶ draws (8 s): announced after the build; a run whose steps
    were announced already, or that stays short, says nothing more; exact gradients and σ = 0 draw nothing."""
    import argparse

    from fedrates.solvers import algorithms, problems
    from fedrates.verify.commands import _common
    from fedrates.verify.commands.run import _announce_streams

    _common.announce_streams(4e6, 8e6, 10)
    err = capsys.readouterr().err
    assert err.startswith("fedrates: note: this run draws its gradients from 4e+06 per-client random streams")
    assert "roughly 0.58 min" in err and err.count("\n") == 1  # (8e6/3e6 + 4e6 x 6e-6 + 8e6 x 1e-6) s = 34.7 s
    _common.announce_streams(4e6, 1e8, 10)  # 33 s of steps: announce_work spoke already
    _common.announce_streams(1e5, 1e5, 10)
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(_common, "STREAM_BUILD_SECONDS", 1.0)  # a small run made "long" to exercise the helper
    noisy = problems.make("structured_quadratic", clients=40, dim=2, sigma=0.1)
    quiet = problems.make("structured_quadratic", clients=40, dim=2, sigma=0.0)
    method = algorithms.make("fedavg")
    for gradients, problem, participating, said in (("stochastic", noisy, None, "80 per-client"),
                                                    ("stochastic", noisy, 5, "40 per-client"),  # 4 rounds x 5
                                                    ("exact", noisy, None, ""), ("stochastic", quiet, None, "")):
        args = argparse.Namespace(gradients=gradients, participating=participating, rounds=4)
        _announce_streams(args, method, problem, [0, 1])
        err = capsys.readouterr().err
        assert (said in err) if said else err == "", (gradients, participating, err)


def test_a_long_run_is_announced_before_it_starts(capsys):
    from fedrates.verify.cli import build_parser
    from fedrates.verify.commands._common import validate_run

    args = build_parser().parse_args(["run", "fedavg", "--problem", "quadratic", "--set", "dim=2", "clients=1e6",
                                      "--rounds", "100"])
    assert validate_run(args) == [0]
    err = capsys.readouterr().err
    assert err.startswith("fedrates: note: this run simulates 1e+08 client steps") and err.count("\n") == 1
    args = build_parser().parse_args(["run", "fedavg", "--problem", "quadratic", "--set", "dim=2", "clients=4",
                                      "--rounds", "100"])
    validate_run(args)
    assert capsys.readouterr().err == ""  # a short run says nothing
