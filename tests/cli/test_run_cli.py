"""``fedrates run``: output contract, files, bad input (exit 2, one line), divergence (exit 0, null metrics)."""

from __future__ import annotations

import json
import subprocess
import sys

import pandas as pd
import pytest

from fedrates.solvers.algorithms import COLUMNS
from fedrates.verify.cli import main

SMALL = ["--problem", "quadratic", "--set", "dim=4", "--set", "clients=4", "--set", "lam=0.05"]


def run_cli(capsys, argv):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_end_to_end_subprocess_json():
    proc = subprocess.run([sys.executable, "-m", "verify", "run", "fedda", *SMALL, "--rounds", "3", "--json",
                           "--gradients", "exact", "--hyper", "step=0.5"], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert set(doc["final"]) == set(COLUMNS)
    assert doc["final"]["round"] == 3 and doc["final"]["iterations"] == 3 and doc["diverged"] is False
    assert doc["params"]["algorithm"] == "fedda" and doc["params"]["hyperparameters"]["step"] == 0.5
    assert doc["final"]["objective_gap"] >= -1e-12


def test_a_finished_run_ends_without_teardown_and_keeps_its_output(tmp_path):
    """The program itself ends a finished run at once (freeing 4·10⁶ client generators took 7 s of teardown after
    the table was printed): the table and the --out file with its provenance are complete, the exit code is the
    run's, and the interpreter's exit handlers do not run (an atexit line would be printed if they did)."""
    out = tmp_path / "records.parquet"
    program = ("import atexit, sys; atexit.register(lambda: sys.stderr.write('teardown ran\\n')); "
               "from fedrates.verify.cli import main; sys.exit(main())")
    proc = subprocess.run([sys.executable, "-c", program, "run", "fedda", *SMALL, "--rounds", "4", "--seeds", "0,1",
                           "--out", str(out)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "teardown ran" not in proc.stderr
    rows = [line.split() for line in proc.stdout.strip().splitlines()[2:]]
    assert [r[:2] for r in rows] == [["0", "4"], ["1", "4"]]
    frame = pd.read_parquet(out)
    assert set(frame["seed"]) == {0, 1} and frame["round"].max() == 4
    assert json.loads((tmp_path / "records.parquet.provenance.json").read_text())["seeds"] == [0, 1]
    # another command (here `list`) ends normally, exit handlers included
    listed = subprocess.run([sys.executable, "-c", program, "list", "problems"], capture_output=True, text=True,
                            timeout=120)
    assert listed.returncode == 0 and "teardown ran" in listed.stderr


def test_table_and_seeds(capsys, tmp_path):
    out_file = tmp_path / "records.csv"
    code, out, _ = run_cli(capsys, ["run", "fedmid", *SMALL, "--rounds", "4", "--seeds", "3,5",
                                    "--participating", "2", "--local-steps", "2", "--out", str(out_file)])
    assert code == 0
    assert "objective_gap" in out and len(out.strip().splitlines()) == 4
    from fedrates.verify.records import COLUMNS as LONG
    from fedrates.verify.records import read_records

    records, prov = read_records(out_file)  # the long record format of `fedrates verify`, with provenance
    assert set(LONG) <= set(records.columns)
    assert set(records["metric"]) == {"objective_gap", "distance_to_optimum", "distance_to_truth", "support_f1",
                                      "rank"}
    assert sorted(records["seed"].unique()) == [3, 5] and records["iterations"].max() == 8
    assert prov["fedrates"] and prov["seeds"] == [3, 5] and prov["run"]["algorithm"] == "fedmid"
    assert (tmp_path / "records.csv.provenance.json").is_file()


def test_parquet_output(capsys, tmp_path):
    out_file = tmp_path / "records.parquet"
    code, _, _ = run_cli(capsys, ["run", "fedda", *SMALL, "--rounds", "2", "--out", str(out_file), "--json"])
    records = pd.read_parquet(out_file)
    assert code == 0 and records[records["metric"] == "objective_gap"]["round"].tolist() == [0, 1, 2]


@pytest.mark.parametrize("argv,needle", [
    (["run", "fedavgg", *SMALL], "did you mean 'fedavg'"),
    (["run", "fedda", *SMALL, "--hyper", "stepp=0.1"], "did you mean 'step'"),
    (["run", "fedda", *SMALL, "--hyper", "step=-1"], "step"),
    (["run", "fedda", *SMALL, "--rounds", "0"], "rounds"),
    (["run", "fedda", *SMALL, "--local-steps", "0"], "local_steps"),
    (["run", "fedda", *SMALL, "--batch", "-2"], "batch"),
    (["run", "fedda", *SMALL, "--participating", "5"], "participating"),
    (["run", "fedavg", *SMALL], "smooth objectives only"),
    (["run", "fedda", *SMALL, "--out", "x.txt"], ".parquet or .csv"),
    (["run", "fedda", *SMALL, "--seeds", "1,a"], "--seeds"),
    (["run", "fedda", "--preset", "no-such-preset"], "preset"),
])
def test_bad_input_is_one_line_exit_2(capsys, argv, needle):
    code, out, err = run_cli(capsys, argv)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and needle in err


def test_divergence_exits_0_with_null_metrics(capsys):
    code, out, err = run_cli(capsys, ["run", "fedavg", "--problem", "quadratic", "--set", "dim=4", "--rounds",
                                      "60", "--hyper", "step=50", "--gradients", "exact", "--json"])
    assert code == 0
    doc = json.loads(out)
    assert doc["diverged"] is True and doc["final"]["diverged"] is True
    assert all(doc["final"][m] is None for m in ("objective_gap", "distance_to_optimum"))
    assert "warning" in err and "diverged" in err
