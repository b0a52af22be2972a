"""Benchmark: how much slower an unrelated pytest run gets because the fedrates pytest plugin is installed.

Creates a throw-away project with one trivial test (and a ``verify.py`` of its own, the name that used to collide),
then times ``python -m pytest -q`` there with the plugin loaded (the default once fedrates is installed) and with
``-p no:fedrates``, alternating the two, and prints the median wall times and their difference. Target: the plugin
adds at most 0.1 s. Also prints which fedrates modules the plugin imports at load time (expected: none heavy).

    python benchmarks/plugin_overhead.py [--repeats 9]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET = 0.1


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _time(cmd: list[str], cwd: Path) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the child): CPU time is the robust number on a loaded machine."""
    start, cpu = time.perf_counter(), _cpu()
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    elapsed, cpu = time.perf_counter() - start, _cpu() - cpu
    if proc.returncode != 0:
        raise SystemExit(f"pytest failed in {cwd}:\n{proc.stdout}\n{proc.stderr}")
    return elapsed, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=9)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp)
        (project / "verify.py").write_text("def check():\n    return 1\n")
        (project / "test_unrelated.py").write_text("from verify import check\n\n\ndef test_it():\n"
                                                  "    assert check() == 1\n")
        base = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
        with_plugin, without = [], []
        _time(base, project)  # warm the file-system cache
        for _ in range(args.repeats):
            with_plugin.append(_time(base, project))
            without.append(_time([*base, "-p", "no:fedrates"], project))
        probe = ("import sys, importlib.metadata as m; ep = [e for e in m.entry_points(group='pytest11') "
                 "if e.name == 'fedrates'][0]; ep.load(); print(sorted(k for k in sys.modules "
                 "if k.startswith('fedrates')), 'numpy' in sys.modules, 'pandas' in sys.modules)")
        loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True).stdout.strip()
    print(f"unrelated pytest run, median of {args.repeats}:      wall clock   CPU (user+sys)")
    w = [statistics.median(t[k] for t in with_plugin) for k in (0, 1)]
    wo = [statistics.median(t[k] for t in without) for k in (0, 1)]
    print(f"  with the fedrates plugin              {w[0]:8.3f} s   {w[1]:8.3f} s")
    print(f"  with -p no:fedrates                   {wo[0]:8.3f} s   {wo[1]:8.3f} s")
    print(f"  overhead (target <= {TARGET} s)           {w[0] - wo[0]:+8.3f} s   {w[1] - wo[1]:+8.3f} s")
    print(f"  modules loaded by the plugin (fedrates modules, numpy?, pandas?): {loaded}")


if __name__ == "__main__":
    main()
