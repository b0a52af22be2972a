"""Wall time of ``--solve`` and ``--dominant`` over the whole catalogue (the analyses the test suite checks for
correctness in ``tests/bounds/test_analysis_bounded.py``, without timing them: wall time depends on the load).

For every catalogued theorem, at the seeded admissible point of that test, and for every symbol x of the rhs, times
``analysis.solve_details(rhs = rhs(x0))`` and ``analysis.dominant_regimes`` over [1e-6, 1e15]. Target: <= 2 s per
call on 2 cores. Prints the slowest calls and the median, and the load average for context.

    python benchmarks/analysis_bounded.py [--paper bao] [--top 10]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import sys
import time
from pathlib import Path

TARGET_SECONDS = 2.0


def _test_module():
    path = Path(__file__).resolve().parent.parent / "tests" / "bounds" / "test_analysis_bounded.py"
    spec = importlib.util.spec_from_file_location("_analysis_bounded", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--paper", default=None)
    parser.add_argument("--top", type=int, default=10)
    args = parser.parse_args()
    from fedrates.bounds import analysis

    tests = _test_module()
    rows = []
    for th in tests.THEOREMS:
        point = tests.POINTS[th.id]
        if point is None or (args.paper and th.paper != args.paper):
            continue
        target = th.evaluate(point)
        for var in th.rhs_symbols:
            others = {k: v for k, v in point.items() if k != var}
            start = time.perf_counter()
            analysis.solve_details(th, var, target, others)
            rows.append((time.perf_counter() - start, f"{th.id} --solve {var}"))
            start = time.perf_counter()
            analysis.dominant_regimes(th, var, others, lo=1e-6, hi=1e15)
            rows.append((time.perf_counter() - start, f"{th.id} --dominant {var}"))
    if not rows:
        print("no theorem selected")
        return 2
    rows.sort(reverse=True)
    for seconds, what in rows[:args.top]:
        print(f"{seconds:7.3f} s  {what}")
    over = sum(s > TARGET_SECONDS for s, _ in rows)
    print(f"{len(rows)} calls: median {statistics.median(s for s, _ in rows):.3f} s, slowest {rows[0][0]:.3f} s, "
          f"{over} above {TARGET_SECONDS} s (load average {os.getloadavg()[0]:.1f})")
    return 0 if over == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
