"""Tests of verify.records: schema validation, parquet/CSV round trips, provenance, atomic writes."""

from __future__ import annotations

import importlib.metadata
import json
import math
from datetime import datetime
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from fedrates import solvers
from fedrates.verify import records

REQUIRED = [
    "claim", "theorem", "algorithm", "problem", "preset", "point", "seed", "round", "iterations", "clients",
    "local_steps", "batch", "participating", "dim", "metric", "value", "bound", "params", "diverged",
]  # fmt: skip


def _records() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "claim": ["bao.thm2.1/rate-T"] * 3,
            "theorem": ["bao.thm2.1"] * 3,
            "algorithm": ["fedda"] * 3,
            "problem": ["lasso"] * 3,
            "preset": ["", "bao-lasso", "NaN"],
            "point": [0, 1, 2],
            "seed": [7, 7, 8],
            "round": [10, 20, 40],
            "iterations": [100, 200, 400],
            "clients": [4, 4, 4],
            "local_steps": [10, 10, 10],
            "batch": [0, 8, 8],
            "participating": [4, 4, 2],
            "dim": [50, 50, 50],
            "metric": ["objective_gap"] * 3,
            "value": [0.25, math.inf, 1e-300],
            "bound": [math.nan, 1.5, 2.0],
            "params": ['{"eta": 0.1, "note": "a, \\"b\\""}', "{}", "{}"],
            "diverged": [False, True, False],
            "wall_seconds": [0.5, math.nan, 1.25],  # an extra column
        }
    )


def test_columns_constant_lists_required_schema() -> None:
    assert list(records.COLUMNS) == REQUIRED
    kinds = {name: col.kind for name, col in records.COLUMNS.items()}
    assert kinds["point"] == kinds["batch"] == "int"
    assert kinds["value"] == kinds["bound"] == "float"
    assert kinds["diverged"] == "bool"
    assert kinds["params"] == kinds["preset"] == "str"
    assert all(col.meaning for col in records.COLUMNS.values())


def test_empty_records_is_valid_and_complete() -> None:
    df = records.empty_records()
    assert list(df.columns) == REQUIRED and len(df) == 0
    assert records.validate(df) is df


def test_validate_names_missing_column() -> None:
    df = _records().drop(columns=["seed", "metric"])
    with pytest.raises(ValueError, match="seed, metric"):
        records.validate(df)


@pytest.mark.parametrize(
    ("column", "values"),
    [
        ("seed", [1.0, 2.0, 3.0]),  # float where int expected
        ("value", ["a", "b", "c"]),  # text where float expected
        ("diverged", [0, 1, 0]),  # int where bool expected
        ("claim", ["x", None, "y"]),  # missing string
        ("point", [True, False, True]),  # bool where int expected
    ],
)
def test_validate_names_wrong_dtype(column: str, values: list) -> None:
    df = _records()
    df[column] = pd.Series(values, dtype=object if None in values else None)
    with pytest.raises(ValueError, match=f"'{column}'"):
        records.validate(df)


@pytest.mark.parametrize("name", ["records.parquet", "records.csv"])
def test_round_trip_preserves_values_dtypes_and_provenance(tmp_path: Path, name: str) -> None:
    df = _records()
    prov = records.provenance(seeds=[7, 8], reference_gaps={"lasso": 3e-12}, extra={"profile": "quick"})
    path = records.write_records(df, tmp_path / name, prov)
    back, prov_back = records.read_records(path)
    pd.testing.assert_frame_equal(back, df, check_dtype=False)
    for col in REQUIRED:
        assert records.COLUMNS[col].kind != "int" or back[col].dtype == np.int64
    assert back["preset"].tolist() == ["", "bao-lasso", "NaN"]  # text stays text
    assert math.isnan(back["bound"][0]) and back["value"][1] == math.inf
    assert prov_back == json.loads(json.dumps(prov))
    assert json.loads((tmp_path / "provenance.json").read_text()) == prov_back
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([name, "provenance.json"])  # no temp files


@pytest.mark.parametrize("name", ["records.parquet", "records.csv"])
def test_read_only_some_claims_gives_their_rows_in_file_order(tmp_path: Path, name: str) -> None:
    base = _records()
    df = pd.concat([base.assign(claim=c, seed=base["seed"] + k) for k, c in
                    enumerate(["a/x", "b/y", "a/x", "c/z"])], ignore_index=True)
    path = records.write_records(df, tmp_path / name, records.provenance(seeds=[7, 8]))
    every, _ = records.read_records(path)
    pd.testing.assert_frame_equal(every, df, check_dtype=False)  # text columns read encoded, then expanded
    for wanted in ({"a/x", "c/z"}, {"b/y"}, set(), {"not/there"}):
        some, _ = records.read_records(path, claims=wanted)
        expected = every[every["claim"].isin(wanted)].reset_index(drop=True)
        pd.testing.assert_frame_equal(some, expected)
        assert len(some) == 3 * sum(c in wanted for c in ["a/x", "b/y", "a/x", "c/z"])


def test_parquet_schema_metadata_holds_provenance(tmp_path: Path) -> None:
    path = records.write_records(_records(), tmp_path / "r.parquet", {"seeds": [1], "x": math.inf})
    meta = pq.read_schema(path).metadata
    assert json.loads(meta[records.PROVENANCE_KEY]) == {"seeds": [1], "x": "inf"}


def test_read_falls_back_to_side_provenance(tmp_path: Path) -> None:
    _records().to_parquet(tmp_path / "r.parquet", index=False)
    assert records.read_records(tmp_path / "r.parquet")[1] == {}
    (tmp_path / "provenance.json").write_text('{"fedrates": "9.9"}')
    assert records.read_records(tmp_path / "r.parquet")[1] == {"fedrates": "9.9"}


def test_write_refuses_invalid_records(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="missing"):
        records.write_records(_records().drop(columns="bound"), tmp_path / "r.parquet", {})
    assert not any(tmp_path.iterdir())


def test_failed_write_keeps_previous_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = records.write_records(_records(), tmp_path / "r.parquet", {"run": 1})
    before = path.read_bytes()

    def broken(table: object, where: object, **kwargs: object) -> None:
        Path(str(where)).write_bytes(b"PAR1 half written")
        raise OSError("disk full")

    monkeypatch.setattr(pq, "write_table", broken)
    with pytest.raises(OSError, match="disk full"):
        records.write_records(_records(), path, {"run": 2})
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["provenance.json", "r.parquet"]
    assert records.read_records(path)[1] == {"run": 1}


def test_read_errors(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        records.read_records(tmp_path / "absent.parquet")
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"not parquet at all")
    with pytest.raises(ValueError, match="cannot read"):
        records.read_records(bad)
    partial = tmp_path / "partial.csv"
    partial.write_text("claim,value\nx,1.0\n")
    with pytest.raises(ValueError, match="missing"):
        records.read_records(partial)


def test_write_json_atomic_is_strict(tmp_path: Path) -> None:
    obj = {
        "nan": math.nan,
        "inf": math.inf,
        "ninf": -math.inf,
        "np": np.float64(0.5),
        "int": np.int64(3),
        "arr": np.array([1.0, math.nan]),
        "flag": np.bool_(True),
        "nested": [{"a": (1, 2)}],
    }
    path = records.write_json_atomic(obj, tmp_path / "sub" / "verdicts.json")

    def reject(name: str) -> None:
        raise AssertionError(f"non-strict JSON constant {name}")

    back = json.loads(path.read_text(), parse_constant=reject)
    assert back == {
        "nan": None, "inf": "inf", "ninf": "-inf", "np": 0.5, "int": 3, "arr": [1.0, None], "flag": True,
        "nested": [{"a": [1, 2]}],
    }  # fmt: skip
    assert [p.name for p in path.parent.iterdir()] == ["verdicts.json"]
    with pytest.raises(TypeError):
        records.write_json_atomic({"bad": object()}, tmp_path / "x.json")
    assert not (tmp_path / "x.json").exists()


def test_provenance_contents(monkeypatch: pytest.MonkeyPatch) -> None:
    prov = records.provenance(seeds=np.array([3, 4]), reference_gaps={"lasso": np.float64(1e-12)})
    assert prov["fedrates"] == solvers.__version__
    assert prov["numpy"] == importlib.metadata.version("numpy")
    assert prov["pandas"] == importlib.metadata.version("pandas")
    for key in ("python", "scipy", "sympy", "cvxpy", "pyarrow", "platform", "machine", "cpu_count"):
        assert key in prov
    stamp = datetime.fromisoformat(prov["timestamp_utc"])
    assert stamp.utcoffset() is not None and stamp.utcoffset().total_seconds() == 0
    assert prov["seeds"] == [3, 4] and prov["reference_gaps"] == {"lasso": 1e-12}
    json.dumps(prov, allow_nan=False)

    real = importlib.metadata.version

    def no_cvxpy(name: str) -> str:
        if name == "cvxpy":
            raise importlib.metadata.PackageNotFoundError(name)
        return real(name)

    monkeypatch.setattr(importlib.metadata, "version", no_cvxpy)
    assert records.provenance(extra={"cvxpy": "x", "k": 1})["cvxpy"] == "x"
    assert records.provenance()["cvxpy"] is None
