"""Cold-start wall time of ``fedrates explore THEOREM --exponent VAR`` for every catalogued theorem.

Each call is a fresh subprocess (imports included), as a user would run it.  Target: <= 2 s per theorem on
2 cores.  Prints one row per theorem and the median/max, and the baseline (``fedrates --help``) for scale.

    python benchmarks/explore.py [--paper bao] [--repeat 1]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

TARGET_SECONDS = 2.0


def wall(args: list[str]) -> tuple[float, int]:
    code = "import sys; from verify.cli import main; sys.exit(main(sys.argv[1:]))"
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True)
    return time.perf_counter() - start, proc.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--paper", default=None)
    parser.add_argument("--repeat", type=int, default=1)
    opts = parser.parse_args()

    from fedrates.bounds.catalog import all_theorems

    base = min(wall(["--help"])[0] for _ in range(opts.repeat))
    print(f"baseline `fedrates --help`: {base:.2f} s")
    print(f"{'theorem':<32} {'variable':<9} {'seconds':>8} {'ratio':>6}  status")
    times = []
    for th in all_theorems(opts.paper):
        vocab = [v for v in th.vocabulary() if v in th.rhs_symbols] or list(th.rhs_symbols)[:1]
        args = ["explore", th.id] + (["--exponent", vocab[0]] if vocab else [])
        best, rc = min(wall(args) for _ in range(opts.repeat))
        times.append(best)
        status = "ok" if rc == 0 and best <= TARGET_SECONDS else ("SLOW" if rc == 0 else f"exit {rc}")
        print(f"{th.id:<32} {(vocab[0] if vocab else '-'):<9} {best:8.2f} {best / base:6.1f}  {status}")
    print(f"median {statistics.median(times):.2f} s, max {max(times):.2f} s (target {TARGET_SECONDS} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
