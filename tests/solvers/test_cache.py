"""Tests of the on-disk reference cache: hits are re-certified, damaged entries are recomputed, never trusted."""

from __future__ import annotations

import hashlib
import io
import json

import numpy as np
import pytest

from fedrates.solvers import _cache, problems, reference


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    path = tmp_path / "cache"
    monkeypatch.setenv("FEDRATES_CACHE", str(path))
    return path


@pytest.fixture
def problem():
    return problems.make("lasso", dim=12, sparsity=4, clients=3, samples=20, lam=0.05)


def _entry(cache_dir):
    npz = sorted(cache_dir.glob("*.npz"))
    js = sorted(cache_dir.glob("*.json"))
    assert len(npz) == 1 and len(js) == 1
    return npz[0], js[0]


def test_second_solve_is_a_certified_hit(cache_dir, problem):
    first = reference.solve(problem)
    assert not first.cached and first.warnings == ()
    second = reference.solve(problem)
    assert second.cached
    np.testing.assert_array_equal(second.w, first.w)
    assert second.value == first.value and second.gap <= 1e-11
    assert not list(cache_dir.glob("*.tmp"))  # atomic writes leave no temporaries
    # a different setting is a different entry
    reference.solve(problem, tol=1e-10)
    assert len(list(cache_dir.glob("*.npz"))) == 2


def test_cache_directory_follows_the_environment(cache_dir):
    assert _cache.cache_dir() == cache_dir


def _damage_truncate(npz, js):
    npz.write_bytes(npz.read_bytes()[:40])


def _damage_flip_byte(npz, js):
    raw = bytearray(npz.read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    npz.write_bytes(bytes(raw))


def _damage_json_value(npz, js):
    meta = json.loads(js.read_text())
    meta["value"] = meta["value"] - 1.0
    js.write_text(json.dumps(meta))


def _damage_json_syntax(npz, js):
    js.write_text(js.read_text()[:-5])


def _damage_point_with_valid_checksum(npz, js):
    # a well-formed entry whose point is not optimal: only re-certification can catch it
    buffer = io.BytesIO()
    np.savez(buffer, w=np.zeros(12))
    raw = buffer.getvalue()
    npz.write_bytes(raw)
    meta = json.loads(js.read_text())
    meta["npz_sha256"] = hashlib.sha256(raw).hexdigest()
    js.write_text(json.dumps(meta))


def _damage_shape(npz, js):
    buffer = io.BytesIO()
    np.savez(buffer, w=np.zeros(5))
    raw = buffer.getvalue()
    npz.write_bytes(raw)
    meta = json.loads(js.read_text())
    meta["npz_sha256"] = hashlib.sha256(raw).hexdigest()
    js.write_text(json.dumps(meta))


def _damage_missing_npz(npz, js):
    npz.unlink()


@pytest.mark.parametrize("damage", [_damage_truncate, _damage_flip_byte, _damage_json_value, _damage_json_syntax,
                                    _damage_point_with_valid_checksum, _damage_shape, _damage_missing_npz])
def test_damaged_entry_is_recomputed(cache_dir, problem, damage):
    first = reference.solve(problem)
    npz, js = _entry(cache_dir)
    damage(npz, js)
    again = reference.solve(problem)
    assert not again.cached  # recomputed, not trusted
    np.testing.assert_allclose(again.w, first.w, atol=1e-12)
    assert again.gap <= 1e-11
    # the entry was rewritten and is valid again
    third = reference.solve(problem)
    assert third.cached
    np.testing.assert_array_equal(third.w, again.w)


def test_unwritable_cache_does_not_break_a_solve(tmp_path, monkeypatch, problem):
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("x")
    monkeypatch.setenv("FEDRATES_CACHE", str(blocker / "cache"))
    ref = reference.solve(problem)
    assert ref.gap <= 1e-11 and not ref.cached
    assert len(ref.warnings) == 1 and "cache" in ref.warnings[0]


def test_no_cache_neither_reads_nor_writes(cache_dir, problem):
    reference.solve(problem, cache=False)
    assert not cache_dir.exists() or not list(cache_dir.iterdir())


def test_load_removes_garbage_entries(cache_dir):
    cache_dir.mkdir()
    key = "0" * 64
    (cache_dir / f"{key}.npz").write_bytes(b"not a zip file")
    (cache_dir / f"{key}.json").write_text("{}")
    assert _cache.load(key, (3,)) is None
    assert not list(cache_dir.iterdir())


@pytest.mark.parametrize("field,value", [("method", "cvxpy"), ("seconds", 0.001), ("value", 1.0), ("gap", 0.0)])
def test_metadata_fields_are_covered_by_the_checksum(tmp_path, field, value):
    w = np.arange(6.0).reshape(2, 3)
    meta = {"value": 2.5, "gap": 1e-12, "method": "fast", "seconds": 3.25}
    assert _cache.store("k", w, meta, tmp_path) is None
    assert _cache.load("k", (2, 3), tmp_path)[1]["method"] == "fast"
    path = tmp_path / "k.json"
    doc = json.loads(path.read_text())
    doc[field] = value  # the npz checksum still matches: only meta_sha256 can tell
    path.write_text(json.dumps(doc))
    assert _cache.load("k", (2, 3), tmp_path) is None
    assert not path.exists()  # a damaged entry is removed, then recomputed by the caller


def test_every_single_bit_flip_of_the_metadata_is_a_miss(tmp_path):
    w = np.ones((2, 2))
    _cache.store("k", w, {"value": 1.0, "gap": 1e-13, "method": "fast", "seconds": 0.5}, tmp_path)
    npz, side = (tmp_path / "k.npz").read_bytes(), (tmp_path / "k.json").read_bytes()
    for i in range(len(side)):
        for bit in range(8):
            raw = bytearray(side)
            raw[i] ^= 1 << bit
            (tmp_path / "k.npz").write_bytes(npz)
            (tmp_path / "k.json").write_bytes(bytes(raw))
            assert _cache.load("k", (2, 2), tmp_path) is None, (i, bit)
