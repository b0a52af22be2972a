"""The outputs of ``fedrates verify``: one writer per directory (two real processes), nothing lost on a full disk
(a monkeypatched ENOSPC, and a real 200 KiB tmpfs where one can be mounted), the manifest checked by the merge,
``report`` and ``plot``, a damaged report rebuilt, leftover temporary files removed.

The runs use a tiny claim (value = scale/T against the bound 1/T, no solver) through the real command line: the
claim registry is replaced by that claim, nothing else is.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fedrates.verify import outputs
from fedrates.verify import records as rec
from fedrates.verify.checks import bound_holds
from fedrates.verify.claims.base import Claim, records_from_trace

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class _Toy(Claim):
    """value = scale / T over a T grid with the bound 1/T: passes for scale < 1, fails above."""

    scale: float = 0.5

    def points(self, profile: str) -> list[dict]:
        return [{"T": t} for t in (10, 20, 40)]

    def simulate(self, point: dict, seeds) -> pd.DataFrame:
        rng = np.random.default_rng([int(point["T"]), *seeds])
        df = pd.DataFrame({"seed": list(seeds), "round": point["T"], "iterations": point["T"],
                           "objective_gap": self.scale / point["T"] * rng.uniform(0.9, 1.1, len(seeds)),
                           "diverged": False})
        return records_from_trace(df, claim=self, point_index=[10, 20, 40].index(point["T"]), point=point,
                                  metrics=["objective_gap"], bound=lambda d: 1.0 / d["iterations"].to_numpy())

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        table = records.pivot_table(index="seed", columns="iterations", values="value")
        bound = records.groupby("iterations")["bound"].first().reindex(table.columns).to_numpy()
        return self.verdict(bound_holds(table.to_numpy(), bound), conditions=[], seeds=sorted(table.index),
                            constants={})


def toy(cid: str, scale: float = 0.5) -> _Toy:
    return _Toy(id=cid, theorem="toy", title=cid, algorithm="toy", problem="toy", regime="", why="",
                metric="objective_gap", x="iterations", n_seeds={"quick": 4, "standard": 6, "full": 8}, scale=scale)


def _stub_report(records, verdicts, provenance, errata, path, title="", shared=None, cache=None, digests=None,
                 front_drawn=None):
    """A report file naming the claims, written atomically like the real renderers (which draw every figure:
    seconds per run, and not what these tests are about; tests/reports covers them)."""
    if front_drawn is not None:  # the process drawing the front pages beside it is waited for, as the PDF does
        front_drawn()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = f"{title} " + " ".join(str(v.get("claim")) for v in verdicts) + " " + "x" * 2000 + "\n"
    rec._atomic_write(path, lambda tmp: tmp.write_text(text))
    return path


def use_toys(monkeypatch, *claims: _Toy) -> None:
    """``fedrates verify`` sees exactly these claims; reports are drawn by a stub."""
    from fedrates.reports import html, pdf
    from fedrates.verify import claim_index
    from fedrates.verify import claims as registry

    monkeypatch.setattr(registry, "select", lambda pattern: list(claims))
    monkeypatch.setattr(registry, "ids", lambda: [c.id for c in claims])
    monkeypatch.setattr(claim_index, "check_only", lambda pattern: None)
    monkeypatch.setattr(claim_index, "store_ids", lambda ids: None)  # the toy ids must not stand for the real ones
    monkeypatch.setattr(html, "render_html", _stub_report)
    monkeypatch.setattr(pdf, "render_pdf", _stub_report)


def verify(out: Path, *extra: str) -> int:
    from fedrates.verify.cli import main

    return main(["verify", "--profile", "quick", "--only", "t/*", "--jobs", "1", "--out", str(out), *extra])


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.setenv("FEDRATES_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    from fedrates.solvers import _cache

    monkeypatch.setattr(_cache, "user_cache_root", lambda: tmp_path / "user-cache")
    return tmp_path


# ---- the manifest ------------------------------------------------------------------------------------------------

def test_manifest_lists_every_top_level_output_with_its_digest(env, monkeypatch, capsys):
    use_toys(monkeypatch, toy("t/a"))
    out = env / "out"
    assert verify(out) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert set(manifest["files"]) == {"records.parquet", "verdicts.json", "errata.json", "provenance.json",
                                      "report.html", "report.pdf", "timings.json"}
    timings = json.loads((out / "timings.json").read_text())
    assert set(timings["claim_compute_cpu_seconds"]) == {"t/a"}  # the one claim run, with its points' CPU time
    assert timings["points"]["computed"] >= 1 and timings["claim_compute_cpu_seconds"]["t/a"] >= 0
    phases = timings["wall_seconds"]
    assert phases["total"] >= phases["sweep"] + phases["judge_and_draw"] - 1e-6 >= 0
    for name, entry in manifest["files"].items():
        assert entry["sha256"] == outputs.file_digest(out / name)
        assert entry["bytes"] == (out / name).stat().st_size
    assert outputs.damaged(out, list(outputs.OUTPUT_FILES)) == []


def _flip_bit(path: Path, byte: int) -> None:
    data = bytearray(path.read_bytes())
    data[byte % len(data)] ^= 0x10
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("name,byte", [("records.parquet", 1000), ("records.parquet", -9), ("verdicts.json", 40),
                                       ("errata.json", 7), ("provenance.json", 20)])
def test_report_plot_and_merge_refuse_a_changed_data_file(env, monkeypatch, capsys, name, byte):
    from fedrates.verify.cli import main

    use_toys(monkeypatch, toy("t/a"))
    out = env / "out"
    assert verify(out) == 0
    capsys.readouterr()
    _flip_bit(out / name, byte)
    before = (out / "report.html").read_bytes()
    checks = [["report", str(out)]]
    if name in ("records.parquet", "verdicts.json"):  # what plot reads
        checks.append(["plot", str(out), "--claim", "t/a", "--out", str(env / "a.svg")])
    for argv in checks:
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"{name}' does not match its SHA-256" in err, err
    assert (out / "report.html").read_bytes() == before and not (env / "a.svg").exists()
    use_toys(monkeypatch, toy("t/b"))  # a merge would carry the changed file forward: refused before any work
    assert verify(out) == 2
    stdout, err = capsys.readouterr()
    assert err.count("\n") == 1 and "does not match" in err and "--replace" in err
    assert stdout == ""  # refused before the sweep: no verdict computed
    assert verify(out, "--replace") == 0  # --replace writes the directory again
    assert outputs.damaged(out, list(outputs.OUTPUT_FILES)) == []


def test_a_truncated_report_is_rebuilt_by_the_next_verify(env, monkeypatch, capsys, frozen_clock):
    use_toys(monkeypatch, toy("t/a"))
    out = env / "out"
    assert verify(out) == 0
    full = (out / "report.html").read_bytes()
    (out / "report.html").write_bytes(full[:1000])
    (out / "report.pdf").write_bytes(b"")
    assert verify(out) == 0  # the same run: results unchanged, but the reports no longer match the manifest
    assert (out / "report.html").read_bytes() == full and (out / "report.pdf").stat().st_size > 1000
    assert outputs.damaged(out, ["report.html", "report.pdf"]) == []
    mtime = (out / "report.html").stat().st_mtime_ns
    assert verify(out) == 0  # intact and unchanged: kept as is
    assert (out / "report.html").stat().st_mtime_ns == mtime


def test_report_rewrites_its_manifest_entry(env, monkeypatch, capsys):
    from fedrates.verify.cli import main

    use_toys(monkeypatch, toy("t/a"))
    out = env / "out"
    assert verify(out) == 0
    assert main(["report", str(out), "--title", "another title"]) == 0
    assert outputs.damaged(out, list(outputs.OUTPUT_FILES)) == []
    assert main(["plot", str(out), "--claim", "t/a", "--out", str(env / "new" / "dir" / "a.svg")]) == 0


def test_a_damaged_manifest_is_refused_in_one_line(env, monkeypatch, capsys):
    from fedrates.verify.cli import main

    use_toys(monkeypatch, toy("t/a"))
    out = env / "out"
    assert verify(out) == 0
    capsys.readouterr()
    (out / "manifest.json").write_text("[" * 100_000)
    assert main(["report", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "manifest.json' is damaged" in err and "Traceback" not in err


def test_leftover_temporary_files_are_removed_by_the_next_run(env, monkeypatch, capsys):
    use_toys(monkeypatch, toy("t/a"))
    out = env / "out"
    assert verify(out) == 0
    leftovers = [out / ".records.parquet.abc123.tmp", out / ".verdicts.json.x.tmp", out / ".fedrates-write-test-9"]
    for path in leftovers:
        path.write_bytes(b"")  # a SIGKILL during the final write leaves these
    keep = out / "notes.tmp"  # not ours: kept
    keep.write_text("user file")
    assert verify(out) == 0
    assert not any(p.exists() for p in leftovers) and keep.exists()


# ---- a full disk -------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("scale,code", [(0.5, 2), (3.0, 1)])
def test_full_disk_prints_and_keeps_the_verdicts_in_one_line(env, monkeypatch, capsys, scale, code):
    use_toys(monkeypatch, toy("t/a", scale=scale))

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(rec, "write_records", full)
    out = env / "out"
    assert verify(out) == code  # 2: nothing failed but the disk; 1: the claim failed as well
    stdout, err = capsys.readouterr()
    assert "t/a" in stdout and ("pass" if code == 2 else "fail") in stdout  # the verdicts were printed
    assert len(err.split()) and len([line for line in err.splitlines() if line.strip()]) == 1, err
    assert "Traceback" not in err
    assert f"not enough space in '{out}'" in err and "the outputs need about" in err and "MiB" in err
    kept = Path(err.split("kept in '")[1].split("'")[0])
    assert kept.parent == env / "user-cache" / "fedrates" / "unsaved"
    assert [v["claim"] for v in json.loads(kept.read_text())] == ["t/a"]
    assert not (out / "verdicts.json").exists() and not (out / "manifest.json").exists()
    assert not [p for p in out.iterdir() if p.name.endswith(".tmp")]


def test_full_disk_during_the_report_keeps_the_earlier_files_consistent(env, monkeypatch, capsys):
    from fedrates.reports import html

    out = env / "out"

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    use_toys(monkeypatch, toy("t/a"))
    monkeypatch.setattr(html, "render_html", full)
    assert verify(out) == 2
    assert "not enough space" in capsys.readouterr().err
    monkeypatch.undo()
    use_toys(monkeypatch, toy("t/a"))
    assert verify(out) == 0  # space freed: the same command completes, report included
    assert (out / "report.html").is_file() and outputs.damaged(out, list(outputs.OUTPUT_FILES)) == []


_SCRIPT = r"""
import sys
sys.path.insert(0, {here!r})
import pytest
from test_outputs import toy, use_toys

mp = pytest.MonkeyPatch()
use_toys(mp, *[toy(c, float(s)) for c, s in (item.split(":") for item in sys.argv[2].split(","))])
if len(sys.argv) > 3 and sys.argv[3] == "hold":  # the records write waits for the test's signal (a slow disk)
    from pathlib import Path
    import time
    from fedrates.verify import records as rec
    real = rec.write_records
    def slow(*args, **kwargs):
        print("writing", flush=True)
        release = Path(sys.argv[1]).parent / "release"
        while not release.exists():
            time.sleep(0.05)
        return real(*args, **kwargs)
    mp.setattr(rec, "write_records", slow)
from fedrates.verify.cli import main
sys.exit(main(["verify", "--profile", "quick", "--only", "t/*", "--jobs", "1", "--out", sys.argv[1]]))
"""


def _start(env: Path, out: Path, claims: str, *extra: str, **environ: str) -> subprocess.Popen:
    script = _SCRIPT.format(here=str(HERE))
    full_env = {**os.environ, "FEDRATES_CACHE": str(env / "cache"), "XDG_CACHE_HOME": str(env / "user-cache"),
                "MPLBACKEND": "Agg", **environ}
    return subprocess.Popen([sys.executable, "-c", script, str(out), claims, *extra], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=full_env, cwd=env)


def _wait_for_line(stream, needle: str) -> str:
    seen = []
    for line in stream:  # blocks until the process writes the line (or ends: then the assert below fails)
        seen.append(line)
        if needle in line:
            return line
    raise AssertionError(f"'{needle}' never written; got {''.join(seen)!r}")


@pytest.mark.slow
def test_one_writer_per_directory_a_second_waits_a_third_is_refused(env):
    """Three real processes on one --out: the first holds the lock inside its (slow) records write; the second
    waits, saying so, then merges; the third, with a short wait, is refused in one line with its verdict printed and
    kept.  No claim is lost (the campaign lost one in 3 of 3 trials without the lock)."""
    out = env / "out"
    procs: list[subprocess.Popen] = []
    try:
        first = _start(env, out, "t/a:0.5", "hold")
        procs.append(first)
        _wait_for_line(first.stdout, "writing")  # the first run holds the lock, inside its records write
        second = _start(env, out, "t/b:0.5", FEDRATES_LOCK_WAIT="600")
        procs.append(second)
        line = _wait_for_line(second.stderr, "waiting for it")
        assert "is writing to" in line and f"'{out}'" in line and "pid" in line and "at most 600 s" in line
        third = _start(env, out, "t/c:3.0", FEDRATES_LOCK_WAIT="0.5")
        procs.append(third)
        stdout, stderr = third.communicate(timeout=600)
        assert third.returncode == 1  # refused (one line) and its claim failed: 1, as for a full disk
        lines = [line for line in stderr.splitlines() if line.strip()]
        assert len(lines) == 2 and "waiting for it (at most 0.5 s)" in lines[0], stderr
        assert lines[1].startswith("fedrates: error: another fedrates run") and "still writing" in lines[1]
        assert "kept in '" in lines[1] and "Traceback" not in stderr
        assert "t/c" in stdout and "fail" in stdout  # its verdict was printed before it waited
        kept = Path(lines[1].split("kept in '")[1].split("'")[0])
        assert [v["claim"] for v in json.loads(kept.read_text())] == ["t/c"]
        (env / "release").write_text("")
        assert first.wait(timeout=600) == 0
        assert second.wait(timeout=600) == 0
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
    verdicts = json.loads((out / "verdicts.json").read_text())
    assert sorted(v["claim"] for v in verdicts) == ["t/a", "t/b"]  # the later writer merged the earlier's claim
    records, _ = rec.read_records(out / "records.parquet")
    assert sorted(records["claim"].unique()) == ["t/a", "t/b"]
    assert outputs.damaged(out, list(outputs.OUTPUT_FILES)) == []


def _can_mount_tmpfs() -> str | None:
    """None when a private tmpfs can be mounted here (``unshare -rm``: a user and mount namespace), else why not."""
    if not sys.platform.startswith("linux"):
        return "tmpfs mounts need Linux"
    if shutil.which("unshare") is None:
        return "no unshare command"
    probe = subprocess.run(["unshare", "-rm", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt 2>&1 || "
                            "mount -t tmpfs -o size=64k tmpfs /tmp"], capture_output=True, text=True)
    if probe.returncode != 0:
        return f"cannot mount a tmpfs in a user namespace: {(probe.stderr or probe.stdout).strip()[:200]}"
    return None


@pytest.mark.slow  # a whole verify in a subprocess on a real full filesystem: the long step
def test_full_tmpfs_real_disk(env):
    why = _can_mount_tmpfs()
    if why:
        pytest.skip(why)
    out = env / "small"
    out.mkdir()
    script = _SCRIPT.format(here=str(HERE))
    (env / "run.py").write_text(script)
    # a 200 KiB filesystem with 170 KiB already taken: the toy's outputs (about 150 KiB with both reports) cannot fit
    shell = (f"mount -t tmpfs -o size=200k tmpfs '{out}' && head -c 174080 /dev/zero > '{out}/filler' && "
             f"exec '{sys.executable}' '{env / 'run.py'}' '{out}' t/a:0.5")
    environ = {**os.environ, "FEDRATES_CACHE": str(env / "cache"), "XDG_CACHE_HOME": str(env / "user-cache"),
               "MPLBACKEND": "Agg"}
    proc = subprocess.run(["unshare", "-rm", "sh", "-c", shell], capture_output=True, text=True, env=environ,
                          cwd=env, timeout=600)
    assert proc.returncode == 2, proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("fedrates: error:")]
    assert len(errors) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert f"not enough space in '{out}'" in errors[0] and "free" in errors[0]
    assert "t/a" in proc.stdout and "pass" in proc.stdout
    kept = Path(errors[0].split("kept in '")[1].split("'")[0])
    assert [v["claim"] for v in json.loads(kept.read_text())] == ["t/a"]
