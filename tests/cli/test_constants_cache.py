"""`fedrates constants` caches its document: a repeated command reads it back (same numbers, same table), a damaged
or edited entry is recomputed, and the key follows the problem's data and the options."""

from __future__ import annotations

import json

import pytest

from fedrates.verify.cli import main


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("FEDRATES_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache" / "constants"


def _json(capsys, *args):
    assert main(["constants", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _values(doc):
    return json.dumps(doc["constants"], sort_keys=True)


def test_second_command_reads_the_cache(cache, capsys):
    first = _json(capsys, "realisable-quadratic", "--batch", "2")
    assert first["cached"] is False and len(list(cache.glob("*.json"))) == 1
    second = _json(capsys, "realisable-quadratic", "--batch", "2")
    assert second["cached"] is True
    assert _values(second) == _values(first) and second["seconds"] == first["seconds"]
    assert list(second["constants"]) == list(first["constants"])  # the table keeps its order
    assert main(["constants", "realisable-quadratic", "--batch", "2"]) == 0
    text = capsys.readouterr().out
    assert "read from the cache" in text and "note H:" in text and text.index("  L ") < text.index("  Delta_star ")


def test_key_follows_options_and_data(cache, capsys):
    _json(capsys, "similar-quadratic")
    assert _json(capsys, "similar-quadratic", "--batch", "2")["cached"] is False
    assert _json(capsys, "similar-quadratic", "--set", "radius=2")["cached"] is False
    assert _json(capsys, "similar-quadratic", "--set", "seed=3")["cached"] is False
    assert len(list(cache.glob("*.json"))) == 4


@pytest.mark.parametrize("damage", ["value", "truncate", "checksum"])
def test_damaged_entry_is_recomputed(cache, capsys, damage):
    first = _json(capsys, "similar-quadratic")
    (path,) = cache.glob("*.json")
    text = path.read_text()
    if damage == "value":  # a plausible edit of one number, file otherwise well-formed
        record = json.loads(text)
        record["document"]["constants"]["L"]["value"] *= 2
        path.write_text(json.dumps(record, indent=1))
    elif damage == "truncate":
        path.write_text(text[: len(text) // 2])
    else:
        path.write_text(text.replace('"sha256": "', '"sha256": "0', 1))
    again = _json(capsys, "similar-quadratic")
    assert again["cached"] is False and _values(again) == _values(first)
    assert _json(capsys, "similar-quadratic")["cached"] is True  # rewritten and valid again


def test_no_cache_neither_reads_nor_writes(cache, capsys):
    assert _json(capsys, "similar-quadratic", "--no-cache")["cached"] is False
    assert not cache.exists()
