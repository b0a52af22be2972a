"""Verdict stability over base seeds: a verdict that changes with the seed is a bug.

Runs ``fedrates verify`` for every profile asked for at base seeds 0..N-1 (each in a fresh output folder) and prints
every claim whose verdict is not the same at every seed, with its verdict per seed. Target: 0 changes for quick and
standard. Exit status 1 when some verdict changes.

    python benchmarks/stability.py                          # quick and standard, 10 seeds each
    python benchmarks/stability.py --profiles quick --seeds 3 --only 'bylinkin.*' --jobs 2
    python benchmarks/stability.py --json stability.json    # also write the per-seed verdicts
    python benchmarks/stability.py --json stability.json --resume   # skip the seeds the file already has

``--verdicts-only`` runs the same sweep and judging as ``fedrates verify`` (:func:`fedrates.verify.sweep.run_claims`,
:func:`fedrates.verify.pipeline.judge_claims`) in this process, without the records, reports and figures that
``verify`` writes (the verdicts do not depend on them): about half the time per seed.

With ``--json`` the file is rewritten after every seed, so an interrupted run keeps what it finished and
``--resume`` goes on from there.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path


def run_profile(profile: str, seed: int, only: str | None, jobs: int, out: Path) -> dict[str, str]:
    """Verdict per claim of one ``fedrates verify`` run."""
    cmd = [sys.executable, "-m", "fedrates", "verify", "--profile", profile, "--seed", str(seed), "--jobs",
           str(jobs), "--out", str(out), "--replace", "--json"]
    if only:
        cmd += ["--only", only]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"verify --profile {profile} --seed {seed} exited {proc.returncode}: "
                         f"{proc.stderr.strip().splitlines()[-1:]}")
    doc = json.loads(proc.stdout)
    verdicts = doc["verdicts"] if isinstance(doc, dict) else doc
    return {str(v["claim"]): str(v["verdict"]) for v in verdicts}


def run_verdicts_only(profile: str, seed: int, only: str | None, jobs: int, out: Path) -> dict[str, str]:
    """Verdict per claim from the sweep and judging of ``fedrates verify``, nothing written (``out`` unused)."""
    from fedrates.verify import claims as registry
    from fedrates.verify.pipeline import judge_claims
    from fedrates.verify.sweep import run_claims

    selected = registry.select(only)
    sweep = run_claims(selected, profile, None, jobs=jobs, base_seed=seed)
    verdicts = judge_claims(selected, sweep.records, sweep.errors, profile, base_seed=seed, timestamp="", jobs=jobs)
    return {str(v["claim"]): str(v["verdict"]) for v in verdicts}


def changes(per_seed: dict[int, dict[str, str]]) -> dict[str, dict[int, str]]:
    """Claims whose verdict differs between seeds: claim -> {seed: verdict} (a missing claim counts as a change)."""
    claims = sorted({c for verdicts in per_seed.values() for c in verdicts})
    out = {}
    for claim in claims:
        row = {seed: verdicts.get(claim, "missing") for seed, verdicts in sorted(per_seed.items())}
        if len(set(row.values())) > 1:
            out[claim] = row
    return out


def _write(path: Path, report: dict) -> None:
    """Write the report atomically (a temporary file renamed over FILE)."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(report, indent=1, sort_keys=True), encoding="utf-8")
    tmp.replace(path)


def _previous(path: Path, only: str | None) -> dict:
    """The profiles of an earlier report run with the same ``--only`` (others would mix claim sets)."""
    doc = json.loads(path.read_text(encoding="utf-8"))
    return {profile: entry for profile, entry in doc.items() if entry.get("only") == only}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--profiles", nargs="+", default=["quick", "standard"])
    parser.add_argument("--seeds", type=int, default=10, help="base seeds 0..N-1 (default 10)")
    parser.add_argument("--only", default=None, help="claim pattern, as for verify --only")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--json", default=None, metavar="FILE", help="write every verdict per profile and seed")
    parser.add_argument("--verdicts-only", action="store_true",
                        help="sweep and judge in this process, writing no records or reports (same verdicts)")
    parser.add_argument("--resume", action="store_true",
                        help="with --json: keep the seeds already in FILE (same --only) and run the others")
    args = parser.parse_args(argv)
    if args.resume and not args.json:
        parser.error("--resume needs --json FILE")
    report: dict[str, dict] = {}
    previous = _previous(Path(args.json), args.only) if args.resume and Path(args.json).exists() else {}
    total_changes = 0
    for profile in args.profiles:
        per_seed: dict[int, dict[str, str]] = {
            int(k): v for k, v in previous.get(profile, {}).get("per_seed", {}).items() if int(k) < args.seeds}
        started = time.perf_counter()
        for seed in range(args.seeds):
            if seed not in per_seed:
                with tempfile.TemporaryDirectory(prefix=f"fedrates-stability-{profile}-{seed}-") as tmp:
                    run = run_verdicts_only if args.verdicts_only else run_profile
                    per_seed[seed] = run(profile, seed, args.only, args.jobs, Path(tmp))
                if args.json:
                    report[profile] = {"per_seed": {str(k): v for k, v in per_seed.items()}, "only": args.only}
                    _write(Path(args.json), {**previous, **report})
            counts: dict[str, int] = defaultdict(int)
            for verdict in per_seed[seed].values():
                counts[verdict] += 1
            print(f"{profile} seed {seed}: " + ", ".join(f"{n} {k}" for k, n in sorted(counts.items())), flush=True)
        changed = changes(per_seed)
        total_changes += len(changed)
        seconds = time.perf_counter() - started
        print(f"{profile}: {len(changed)} claim(s) of {len(per_seed[0])} change verdict over seeds "
              f"0..{args.seeds - 1} ({seconds:.0f} s)")
        for claim, row in changed.items():
            print(f"  {claim}: " + ", ".join(f"{seed}={verdict}" for seed, verdict in row.items()))
        report[profile] = {"per_seed": {str(k): v for k, v in per_seed.items()}, "changes": changed,
                           "only": args.only}
    if args.json:
        _write(Path(args.json), {**previous, **report})
    print(f"target 0 verdict changes: {'met' if total_changes == 0 else 'NOT met'} ({total_changes})")
    return 0 if total_changes == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
