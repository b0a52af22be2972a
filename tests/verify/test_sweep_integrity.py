"""Sweep cache integrity: every single-bit change is detected, the key covers what changes the result, finished seed
batches survive an interruption, and records are in a canonical order whatever --jobs is."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest

from fedrates.verify import sweep
from fedrates.verify.claims.base import Claim
from fedrates.verify.records import empty_records, write_records
from fedrates.verify.sweep import run_claims, verify_entry

CALLS: list[tuple] = []


@dataclass(frozen=True)
class Toy(Claim):
    """value = x^-1 times lognormal noise from the seed; two metrics and two rounds per seed."""

    scale: float = 1.0

    def points(self, profile):
        return [{"iterations": int(t)} for t in (10, 20, 40)]

    def simulate(self, point, seeds):
        CALLS.append((point["iterations"], tuple(seeds)))
        rows = []
        for s in seeds:
            rng = np.random.default_rng(s)
            for rnd in (0, point["iterations"]):
                for metric in ("gap", "dist"):
                    rows.append({"claim": self.id, "point": point["iterations"] // 10, "seed": s, "round": rnd,
                                 "iterations": point["iterations"], "metric": metric,
                                 "value": self.scale * float(np.exp(0.1 * rng.standard_normal())) / (1 + rnd)})
        # deliberately not in canonical order: reversed seeds, metric before round
        return pd.DataFrame(rows[::-1])

    def judge(self, records, profile):
        return {"claim": self.id, "verdict": "pass"}


def toy(**kw):
    return Toy(id="toy.claim/rate", theorem="toy", title="toy", algorithm="none", problem="none", regime="r",
               why="w", metric="gap", x="iterations", n_seeds={"quick": 8, "standard": 8, "full": 8}, **kw)


def _entry(tmp_path):
    run_claims([toy()], "quick", tmp_path)
    parquet = sorted(tmp_path.rglob("records.parquet"))[0]
    side = parquet.with_suffix(".json")
    meta = json.loads(side.read_text())
    expected = {k: meta[k] for k in ("format", "claim", "key", "point", "batch", "code")}
    return parquet.read_bytes(), side.read_bytes(), expected


def test_intact_entry_is_accepted(tmp_path):
    data, meta, expected = _entry(tmp_path)
    frame = verify_entry(data, meta, expected)
    assert frame is not None and len(frame) == 4 * len(expected["batch"])
    assert set(frame["seed"]) == set(expected["batch"])


def test_every_single_bit_flip_is_detected(tmp_path):
    """Exhaustive over the sidecar and the parquet file: each of the 8 x (bytes) flips is rejected."""
    data, meta, expected = _entry(tmp_path)
    for blob, which in ((meta, "meta"), (data, "data")):
        raw = bytearray(blob)
        for i in range(len(raw)):
            for bit in range(8):
                raw[i] ^= 1 << bit
                args = (bytes(raw), meta) if which == "data" else (data, bytes(raw))
                assert verify_entry(*args, expected) is None, (which, i, bit)
                raw[i] ^= 1 << bit
    assert verify_entry(data, meta, expected) is not None


def test_a_flipped_bit_on_disk_is_recomputed_not_trusted(tmp_path):
    first = run_claims([toy()], "quick", tmp_path).records["toy.claim/rate"]
    victim = sorted(tmp_path.rglob("records.parquet"))[3]
    raw = bytearray(victim.read_bytes())
    raw[len(raw) // 2] ^= 0x10
    victim.write_bytes(bytes(raw))
    CALLS.clear()
    second = run_claims([toy()], "quick", tmp_path)
    assert second.computed == 1 and len(CALLS) == 1
    pd.testing.assert_frame_equal(first, second.records["toy.claim/rate"])


def test_metadata_edit_with_recomputed_data_hash_is_still_detected(tmp_path):
    data, meta, expected = _entry(tmp_path)
    doc = json.loads(meta)
    doc["rows"] = doc["rows"] + 1  # a consistent-looking edit: only meta_sha256 catches it
    assert verify_entry(data, json.dumps(doc).encode(), expected) is None
    doc = json.loads(meta)
    doc["batch"] = [s + 1 for s in doc["batch"]]
    body = {k: doc[k] for k in sorted(doc) if k != "meta_sha256"}
    doc["meta_sha256"] = hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
    assert verify_entry(data, json.dumps(doc).encode(), expected) is None  # not the entry this run asks for


def test_key_covers_claim_parameters_point_batch_and_code(tmp_path, monkeypatch):
    claim = toy()
    point = {"iterations": 10}
    key = sweep._point_key(claim, point, [0, 1])
    assert sweep._point_key(claim, point, [0, 1]) == key  # stable
    assert sweep._point_key(dataclasses.replace(claim, scale=2.0), point, [0, 1]) != key
    assert sweep._point_key(claim, {"iterations": 11}, [0, 1]) != key
    assert sweep._point_key(claim, point, [0, 2]) != key
    monkeypatch.setattr(sweep, "code_version", lambda c: "another version of the code")
    assert sweep._point_key(claim, point, [0, 1]) != key


def test_code_version_reads_the_claim_and_solver_sources():
    version = sweep.code_version(toy())
    assert len(version) == 64 and version == sweep.code_version(toy())
    assert sweep._solvers_digest() != hashlib.sha256(b"").hexdigest()


def test_finished_seed_batches_survive_an_interruption(tmp_path):
    CALLS.clear()
    seen = []

    def stop_halfway(done, total, claim_id):
        seen.append(done)
        if done == total // 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_claims([toy()], "quick", tmp_path, on_progress=stop_halfway)
    total = len(CALLS)
    assert total == 3  # 3 of the 6 (point, batch) tasks finished: 8 seeds in batches of 6 and 2
    CALLS.clear()
    res = run_claims([toy()], "quick", tmp_path)
    assert res.cached == 3 and res.computed == 3 and len(CALLS) == 3


def test_records_identical_for_one_and_two_jobs(tmp_path):
    one = run_claims([toy()], "quick", None, jobs=1).records["toy.claim/rate"]
    two = run_claims([toy()], "quick", tmp_path / "c", jobs=2).records["toy.claim/rate"]
    pd.testing.assert_frame_equal(one, two)
    keys = ["point", "seed", "round", "iterations", "metric"]
    assert one[keys].equals(one.sort_values(keys).reset_index(drop=True)[keys])
    # the same rows written with the same provenance give byte-identical parquet files
    base = {name: 0 for name in empty_records().columns}
    frames = []
    for df in (one, two):
        full = pd.DataFrame([{**base, **row} for row in df.to_dict("records")])
        for col in ("claim", "theorem", "algorithm", "problem", "preset", "params"):
            full[col] = full[col].astype(str)
        full["diverged"] = False
        full["bound"] = float("nan")
        frames.append(full)
    write_records(frames[0], tmp_path / "a" / "records.parquet", {"run": 1})
    write_records(frames[1], tmp_path / "b" / "records.parquet", {"run": 1})
    assert (tmp_path / "a" / "records.parquet").read_bytes() == (tmp_path / "b" / "records.parquet").read_bytes()


def test_interrupt_with_two_jobs_keeps_finished_batches(tmp_path):
    def stop_at_first(done, total, claim_id):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_claims([toy()], "quick", tmp_path, jobs=2, on_progress=stop_at_first)
    res = run_claims([toy()], "quick", tmp_path, jobs=1)
    assert res.cached >= 1 and res.cached + res.computed == 6


def test_cache_entries_hold_the_bytes_pandas_writes() -> None:
    """The single-threaded conversion of a cache entry gives ``to_parquet``'s bytes, and reads back to the frame."""
    import io

    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"claim": "a/b", "metric": rng.choice(["gap", "norm"], 500), "seed": np.arange(500),
                          "value": rng.standard_normal(500), "bound": np.where(rng.random(500) < 0.3, np.nan, 1.0),
                          "diverged": rng.random(500) < 0.1, "params": '{"K": 2}'}, index=np.arange(500)[::-1])
    expected = io.BytesIO()
    frame.reset_index(drop=True).to_parquet(expected, index=False)
    raw = sweep.parquet_bytes(frame)
    assert raw == expected.getvalue()
    pd.testing.assert_frame_equal(pd.read_parquet(io.BytesIO(raw)), frame.reset_index(drop=True))
