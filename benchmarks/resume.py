"""Resume after an interruption: a rerun after Ctrl-C at 50% of the sweep must take <= 60% of a fresh run.

After an untimed warm-up (so that every run finds the reference optima cached), three runs of the same claims,
each with its own empty sweep cache and ``jobs`` workers:

1. fresh: the whole sweep, timed;
2. interrupted: the same sweep stopped (KeyboardInterrupt, as Ctrl-C does) as soon as half of its (point, seed
   batch) tasks have finished; every finished batch is already on disk;
3. rerun: the sweep again on the interrupted run's cache, timed.

Prints both times, the ratio rerun / fresh (target <= 0.60), and how many batches the rerun took from the cache.
The load average is printed before and after (timings on a loaded machine are noisy).
Usage: ``python benchmarks/resume.py [--only PATTERN] [--profile quick] [--jobs 1]``.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from fedrates.verify import claims as registry
from fedrates.verify.sweep import run_claims


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="bao.thm2.1/local-steps-E", help="claim pattern (default: %(default)s)")
    parser.add_argument("--profile", default="quick")
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    selected = registry.select(args.only)
    print(f"claims: {', '.join(c.id for c in selected)}; profile {args.profile}; jobs {args.jobs}; "
          f"load {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        run_claims(selected, args.profile, root / "warm-up", jobs=args.jobs)  # reference optima cached for all three
        start = time.perf_counter()
        fresh = run_claims(selected, args.profile, root / "fresh", jobs=args.jobs)
        t_fresh = time.perf_counter() - start

        def stop_halfway(done: int, total: int, claim_id: str) -> None:
            if done >= total / 2:
                raise KeyboardInterrupt

        start = time.perf_counter()
        try:
            run_claims(selected, args.profile, root / "resumed", jobs=args.jobs, on_progress=stop_halfway)
        except KeyboardInterrupt:
            pass
        t_interrupted = time.perf_counter() - start
        start = time.perf_counter()
        rerun = run_claims(selected, args.profile, root / "resumed", jobs=args.jobs)
        t_rerun = time.perf_counter() - start
    ratio = t_rerun / t_fresh
    print(f"fresh run      {t_fresh:8.2f} s  ({fresh.computed} batches computed)")
    print(f"interrupted    {t_interrupted:8.2f} s  (stopped at 50% of the batches)")
    print(f"rerun          {t_rerun:8.2f} s  ({rerun.cached} batches from the cache, {rerun.computed} computed)")
    print(f"rerun / fresh  {ratio:8.2f}  (target <= 0.60: {'met' if ratio <= 0.60 else 'NOT met'}); "
          f"load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
